import { describe, expect, it } from "vitest";
import { countHidden, HIDDEN_CHAR_NAMES, revealHidden } from "./hiddenChars";

describe("hidden characters", () => {
  it("cuts text into plain runs and every bidi control or zero-width character, leaving nothing out", () => {
    const text = "rm -rf ~ \u202E#tuo\u200Bdone";
    expect(revealHidden(text)).toEqual([
      { hidden: false, text: "rm -rf ~ " },
      { hidden: true, code: "U+202E", name: "RIGHT-TO-LEFT OVERRIDE" },
      { hidden: false, text: "#tuo" },
      { hidden: true, code: "U+200B", name: "ZERO WIDTH SPACE" },
      { hidden: false, text: "done" },
    ]);
    expect(countHidden(text)).toBe(2);
  });

  it("knows each character of the list, and nothing else", () => {
    const all = [
      ...Array.from({ length: 5 }, (_, i) => 0x202a + i),
      ...Array.from({ length: 4 }, (_, i) => 0x2066 + i),
      0x200e, 0x200f, 0x061c, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff,
      // Not bidi nor zero-width, but invisible all the same.
      0x00ad, 0x180e, 0x2061, 0x2062, 0x2063, 0x2064,
    ];
    for (const cp of all) {
      const pieces = revealHidden(`a${String.fromCodePoint(cp)}b`);
      expect(pieces).toHaveLength(3);
      expect(pieces[1]).toMatchObject({ hidden: true, name: HIDDEN_CHAR_NAMES[cp] });
    }
    expect(Object.keys(HIDDEN_CHAR_NAMES)).toHaveLength(all.length);
    expect(revealHidden("a\u{E0041}b")[1]).toEqual({ hidden: true, code: "U+E0041", name: "TAG" });
    expect(revealHidden("plain, ünïcödé and 日本語")).toEqual([{ hidden: false, text: "plain, ünïcödé and 日本語" }]);
    expect(revealHidden("")).toEqual([{ hidden: false, text: "" }]);
    expect(revealHidden("\u202E")).toEqual([{ hidden: true, code: "U+202E", name: "RIGHT-TO-LEFT OVERRIDE" }]);
  });
});
