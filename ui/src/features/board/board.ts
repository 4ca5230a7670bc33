// The Board's words as the user reads them. The allowed moves come from the engine
// (`boardColumns`), never from a copy of its table here.
import type { Card, CardStatus, Priority } from "../../bindings";

export const PRIORITIES: ReadonlyArray<{ value: Priority; label: string }> = [
  { value: "urgent", label: "Urgent" },
  { value: "high", label: "High" },
  { value: "medium", label: "Medium" },
  { value: "low", label: "Low" },
];

export function priorityLabel(priority: Priority): string {
  return PRIORITIES.find((p) => p.value === priority)?.label ?? priority;
}

/** `#12` */
export function cardRef(card: Pick<Card, "number">): string {
  return `#${card.number}`;
}

/** Cards of one column, in their order on the Board. */
export function inColumn(cards: Card[], status: CardStatus): Card[] {
  return cards.filter((c) => c.status === status).sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
}

/** A position between the neighbours a card is dropped between (or at an end). */
export function positionBetween(before: number | null, after: number | null): number {
  if (before === null && after === null) return 1;
  if (before === null) return (after as number) - 1;
  if (after === null) return before + 1;
  return (before + after) / 2;
}
