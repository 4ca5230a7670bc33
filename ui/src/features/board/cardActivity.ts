// How a card's comments and activity name who did what.
import type { Activity, Actor, Agent, BoardColumn, CardStatus } from "../../bindings";

/** "You", "@handle" or "Clawboo". */
export function actorLabel(actor: Actor): string {
  switch (actor.kind) {
    case "user":
      return "You";
    case "agent":
      return `@${actor.handle}`;
    case "clawboo":
      return "Clawboo";
  }
}

/** What an activity entry says, after its actor ("moved it from To do to In review"). */
export function activityText(
  entry: Activity,
  columns: BoardColumn[],
  numberOf: (id: string) => number | undefined,
  agents: Agent[],
): string {
  const label = (s: CardStatus) => columns.find((c) => c.status === s)?.label ?? s;
  const who = (id: string | null) => (id ? `@${agents.find((a) => a.id === id)?.handle ?? "deleted agent"}` : "nobody");
  const a = entry.activity;
  switch (a.kind) {
    case "created":
      return "created the card";
    case "edited":
      return `edited ${a.fields.join(", ")}`;
    case "moved":
      return `moved it from ${label(a.from)} to ${label(a.to)}${a.reason ? `: ${a.reason}` : ""}`;
    case "assigned":
      return `assigned it to ${who(a.to)}`;
    case "claimed":
      return "started a run";
    case "released":
      return "ended its run";
    case "commented":
      return "commented";
    case "dependency_added":
      return `made it wait for #${numberOf(a.card_id) ?? "?"}`;
    case "dependency_removed":
      return `stopped it waiting for #${numberOf(a.card_id) ?? "?"}`;
  }
}
