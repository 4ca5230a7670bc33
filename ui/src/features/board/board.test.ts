import { describe, expect, it } from "vitest";
import { positionBetween } from "./board";

describe("positionBetween", () => {
  it("puts a card between its neighbours, or past the end it was dropped at", () => {
    expect(positionBetween(1, 2)).toBe(1.5);
    expect(positionBetween(null, 3)).toBe(2);
    expect(positionBetween(4, null)).toBe(5);
    expect(positionBetween(null, null)).toBe(1);
  });
});
