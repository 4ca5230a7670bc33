// Characters that change how text looks without showing themselves: bidi controls (which can
// make `rm -rf ~ #` read as something harmless) and zero-width characters. An approval shows
// each as a marked chip, so a hostile agent cannot disguise what the user allows. Other
// invisible characters (soft hyphen, invisible operators, Unicode tags) are shown the same way.

/** Names of the characters made visible, by code point. */
export const HIDDEN_CHAR_NAMES: Record<number, string> = {
  0x00ad: "SOFT HYPHEN",
  0x061c: "ARABIC LETTER MARK",
  0x180e: "MONGOLIAN VOWEL SEPARATOR",
  0x200b: "ZERO WIDTH SPACE",
  0x200c: "ZERO WIDTH NON-JOINER",
  0x200d: "ZERO WIDTH JOINER",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2060: "WORD JOINER",
  0x2061: "FUNCTION APPLICATION",
  0x2062: "INVISIBLE TIMES",
  0x2063: "INVISIBLE SEPARATOR",
  0x2064: "INVISIBLE PLUS",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE",
};

const HIDDEN = /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u{E0000}-\u{E007F}]/gu;

/** A run of plain text, or one hidden character shown by its code ("U+202E"). */
export type Piece = { hidden: false; text: string } | { hidden: true; code: string; name: string };

/** "U+202E" */
export function codePointLabel(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** `text` cut into plain runs and the hidden characters between them, nothing left out. */
export function revealHidden(text: string): Piece[] {
  const pieces: Piece[] = [];
  let from = 0;
  for (const match of text.matchAll(HIDDEN)) {
    const at = match.index;
    if (at > from) pieces.push({ hidden: false, text: text.slice(from, at) });
    const char = match[0];
    const cp = char.codePointAt(0)!;
    pieces.push({ hidden: true, code: codePointLabel(char), name: HIDDEN_CHAR_NAMES[cp] ?? (cp >= 0xe0000 ? "TAG" : "") });
    from = at + char.length;
  }
  if (from < text.length || pieces.length === 0) pieces.push({ hidden: false, text: text.slice(from) });
  return pieces;
}

/** How many hidden characters `text` holds. */
export function countHidden(text: string): number {
  return text.match(HIDDEN)?.length ?? 0;
}
