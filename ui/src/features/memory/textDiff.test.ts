import { describe, expect, it } from "vitest";
import { diffWords, tokens } from "./textDiff";

describe("diffWords", () => {
  it("keeps the text whole: same+removed gives the old text, same+added the new", () => {
    const before = "The API lives at\nstaging.example.com  and uses v2.";
    const after = "The API lives at prod.example.com and uses v3, not v2.";
    const parts = diffWords(before, after);
    const join = (kinds: string[]) => parts.filter((p) => kinds.includes(p.kind)).map((p) => p.text).join("");
    expect(join(["same", "removed"])).toBe(before);
    expect(join(["same", "added"])).toBe(after);
  });

  it("marks only the changed word", () => {
    expect(diffWords("deploys run on Fridays", "deploys run on Mondays")).toEqual([
      { kind: "same", text: "deploys run on " },
      { kind: "removed", text: "Fridays" },
      { kind: "added", text: "Mondays" },
    ]);
  });

  it("shows a pure insertion and a pure deletion", () => {
    expect(diffWords("use pnpm", "always use pnpm")).toEqual([
      { kind: "added", text: "always " },
      { kind: "same", text: "use pnpm" },
    ]);
    expect(diffWords("use pnpm please", "use pnpm")).toEqual([
      { kind: "same", text: "use pnpm" },
      { kind: "removed", text: " please" },
    ]);
  });

  it("is all same for equal texts and handles empty ones", () => {
    expect(diffWords("a b", "a b")).toEqual([{ kind: "same", text: "a b" }]);
    expect(diffWords("", "new")).toEqual([{ kind: "added", text: "new" }]);
    expect(diffWords("old", "")).toEqual([{ kind: "removed", text: "old" }]);
    expect(diffWords("", "")).toEqual([]);
  });

  it("splits words from whitespace runs", () => {
    expect(tokens("a  b\nc")).toEqual(["a", "  ", "b", "\n", "c"]);
  });
});
