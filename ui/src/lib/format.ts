const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** 1234 -> "1,234" */
export function formatCount(n: number): string {
  return integer.format(n);
}

/** Length in Unicode code points, so an emoji counts as one character. */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
