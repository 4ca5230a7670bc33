import { codePointLength, formatCount } from "../lib/format";

type Props = { count: number; max: number; testId?: string };

/** "1,234 / 4,000 characters", marked when over. Counts as the engine does (code points). */
export function CharCounter({ count, max, testId }: Props) {
  return (
    <span className={`char-counter ${count > max ? "is-over" : ""}`} data-testid={testId}>
      {formatCount(count)} / {formatCount(max)} characters
    </span>
  );
}

export const charCount = codePointLength;
