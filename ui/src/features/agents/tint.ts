export const TINT_PALETTE = [
  "#7c5cff",
  "#3b82f6",
  "#14b8a6",
  "#22c55e",
  "#eab308",
  "#f97316",
  "#ef4444",
  "#ec4899",
];

/** `<input type="color">` only accepts #rrggbb. */
export function colorInputValue(tint: string): string {
  if (/^#[0-9a-fA-F]{6}$/.test(tint)) return tint.toLowerCase();
  const short = /^#([0-9a-fA-F])([0-9a-fA-F])([0-9a-fA-F])$/.exec(tint);
  if (short) return `#${short[1]}${short[1]}${short[2]}${short[2]}${short[3]}${short[3]}`.toLowerCase();
  return TINT_PALETTE[0];
}
