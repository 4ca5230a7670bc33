import { codePointLength, formatCount } from "../lib/format";

type Props = { text: string; budget: number };

/** How much of the persona budget SOUL.md uses, counted in Unicode code points. */
export function SoulMeter({ text, budget }: Props) {
  const count = codePointLength(text);
  const over = count - budget;
  const ratio = budget > 0 ? Math.min(count / budget, 1) : 1;

  return (
    <div className={`soul-meter ${over > 0 ? "is-over" : ""}`} data-testid="soul-meter">
      <div className="soul-meter__row">
        <span className="soul-meter__count">
          {formatCount(count)} / {formatCount(budget)} characters
        </span>
        <span className="soul-meter__bar" aria-hidden="true">
          <span className="soul-meter__fill" style={{ width: `${ratio * 100}%` }} />
        </span>
      </div>
      {over > 0 && (
        <p className="soul-meter__warning" role="status">
          Over the persona budget by {formatCount(over)} characters. Claude Code, Codex and Hermes receive only the
          first {formatCount(budget)} characters as the persona; the file itself is kept whole.
        </p>
      )}
    </div>
  );
}
