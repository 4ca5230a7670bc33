import {
  closestCenter,
  KeyboardCode,
  pointerWithin,
  type Announcements,
  type ClientRect,
  type CollisionDetection,
  type KeyboardCoordinateGetter,
  type UniqueIdentifier,
} from "@dnd-kit/core";

/** Where a dragged card lands: the column under the pointer, never the one under the card (a
 *  card is wide, and grabbed anywhere). A keyboard drag has no pointer: the nearest column. */
export const columnUnderPointer: CollisionDetection = (args) =>
  args.pointerCoordinates ? pointerWithin(args) : closestCenter(args);

/** The column a keyboard drag moves to: arrow left or right jumps to the next column's middle,
 *  so one key press is one column (dnd-kit's default moves 25 px a press). */
export function nextColumn(
  direction: "left" | "right",
  card: ClientRect,
  columns: Iterable<[UniqueIdentifier, ClientRect]>,
): ClientRect | null {
  const middle = card.left + card.width / 2;
  let best: ClientRect | null = null;
  for (const [, rect] of columns) {
    const centre = rect.left + rect.width / 2;
    const ahead = direction === "right" ? centre > middle + 1 : centre < middle - 1;
    if (!ahead) continue;
    const distance = Math.abs(centre - middle);
    if (!best || distance < Math.abs(best.left + best.width / 2 - middle)) best = rect;
  }
  return best;
}

/** The keyboard sensor's moves on the Board: left and right by whole columns; up and down stay. */
export const columnKeyboardCoordinates: KeyboardCoordinateGetter = (event, { currentCoordinates, context }) => {
  const direction =
    event.code === KeyboardCode.Right ? "right" : event.code === KeyboardCode.Left ? "left" : null;
  const card = context.collisionRect;
  if (!direction || !card) return undefined;
  event.preventDefault();
  const target = nextColumn(direction, card, context.droppableRects.entries());
  if (!target) return currentCoordinates;
  const shift = target.left + target.width / 2 - (card.left + card.width / 2);
  return { x: currentCoordinates.x + shift, y: currentCoordinates.y };
};

/** What a screen reader hears during a drag, in the Board's words. */
export function boardAnnouncements(
  cardLabel: (id: UniqueIdentifier) => string,
  columnLabel: (id: UniqueIdentifier) => string,
): Announcements {
  return {
    onDragStart: ({ active }) =>
      `Picked up ${cardLabel(active.id)}. Arrow left and right move it between columns; Space drops it, Escape cancels.`,
    onDragOver: ({ active, over }) =>
      over ? `${cardLabel(active.id)} is over ${columnLabel(over.id)}.` : `${cardLabel(active.id)} is over no column.`,
    onDragEnd: ({ active, over }) =>
      over ? `${cardLabel(active.id)} dropped on ${columnLabel(over.id)}.` : `${cardLabel(active.id)} put back.`,
    onDragCancel: ({ active }) => `Moving ${cardLabel(active.id)} was cancelled; it stays where it was.`,
  };
}
