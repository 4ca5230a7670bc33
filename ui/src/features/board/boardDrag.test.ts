import { describe, expect, it } from "vitest";
import type { ClientRect } from "@dnd-kit/core";
import { nextColumn } from "./boardDrag";

const rect = (left: number, width: number): ClientRect => ({
  left,
  width,
  top: 100,
  height: 500,
  right: left + width,
  bottom: 600,
});

// Backlog (collapsed, 44 px), To do (220), In progress (220), Done (44).
const columns: [string, ClientRect][] = [
  ["backlog", rect(28, 44)],
  ["todo", rect(84, 220)],
  ["in_progress", rect(316, 220)],
  ["done", rect(548, 44)],
];

describe("a keyboard drag on the Board", () => {
  it("moves one whole column per arrow, collapsed columns included", () => {
    const card = rect(92, 204); // a card in To do
    expect(nextColumn("right", card, columns)).toEqual(columns[2][1]);
    expect(nextColumn("left", card, columns)).toEqual(columns[0][1]);
  });

  it("stays at the edges", () => {
    expect(nextColumn("left", rect(28 + 22 - 102, 204), columns)).toBeNull();
    expect(nextColumn("right", rect(570 - 102, 204), columns)).toBeNull();
  });

  it("goes on from a column the card was moved over, not from where it started", () => {
    const overInProgress = rect(316 + 110 - 102, 204);
    expect(nextColumn("right", overInProgress, columns)).toEqual(columns[3][1]);
    expect(nextColumn("left", overInProgress, columns)).toEqual(columns[1][1]);
  });
});
