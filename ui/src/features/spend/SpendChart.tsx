// The Spend page's picture: one bar per day, stacked by agent or team, drawn by hand in SVG (no chart
// library). Money when anything was priced, else tokens. Hovering a segment names it and its figure
// (and the table below the chart has every number).
import { useState } from "react";
import type { DaySpend } from "../../bindings";
import { formatMicros, formatTokens, totalTokens } from "./money";

type Props = {
  /** Every day of the range, oldest first ("YYYY-MM-DD"). */
  days: string[];
  segments: DaySpend[];
  /** Key → what the user calls it ("" is "no team" / "no agent"). */
  nameOf: (key: string) => string;
  /** The keys in stacking order (biggest first), each with its colour. */
  colours: Map<string, string>;
};

const WIDTH = 720;
const HEIGHT = 220;
const AXIS = 28;

export function SpendChart({ days, segments, nameOf, colours }: Props) {
  const [hover, setHover] = useState<string | null>(null);
  const byMoney = segments.some((s) => s.totals.costMicros > 0);
  const value = (s: DaySpend) => (byMoney ? s.totals.costMicros : totalTokens(s.totals));
  const label = (n: number) => (byMoney ? formatMicros(n) : `${formatTokens(n)} tokens`);
  const perDay = new Map<string, DaySpend[]>();
  for (const s of segments) perDay.set(s.day, [...(perDay.get(s.day) ?? []), s]);
  const tallest = Math.max(1, ...days.map((d) => (perDay.get(d) ?? []).reduce((sum, s) => sum + value(s), 0)));
  const slot = (WIDTH - AXIS) / Math.max(1, days.length);
  const bar = Math.max(2, slot * 0.7);
  const order = [...colours.keys()];

  return (
    <figure className="spend-chart" data-testid="spend-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT + 18}`} role="img" aria-label={`Spend per day, ${byMoney ? "in dollars" : "in tokens"}`}>
        <line x1={AXIS} x2={WIDTH} y1={HEIGHT} y2={HEIGHT} className="spend-chart__axis" />
        {/* Above the bars, from the axis on: at the left of the axis a long figure was cut off. */}
        <text x={AXIS} y={11} className="spend-chart__scale" textAnchor="start">
          {`Tallest day: ${label(tallest)}`}
        </text>
        {days.map((day, i) => {
          const stack = [...(perDay.get(day) ?? [])].sort((a, b) => order.indexOf(a.key) - order.indexOf(b.key));
          let y = HEIGHT;
          const x = AXIS + i * slot + (slot - bar) / 2;
          return (
            <g key={day} data-testid="spend-bar" data-day={day}>
              {stack.map((s) => {
                const h = (value(s) / tallest) * (HEIGHT - 16);
                y -= h;
                const id = `${day}:${s.key}`;
                return (
                  <rect
                    key={s.key}
                    x={x}
                    y={y}
                    width={bar}
                    height={Math.max(h, value(s) > 0 ? 1 : 0)}
                    fill={colours.get(s.key) ?? "var(--muted)"}
                    className={hover === id ? "is-hovered" : undefined}
                    onMouseEnter={() => setHover(id)}
                    onMouseLeave={() => setHover(null)}
                    data-testid="spend-segment"
                  >
                    <title>{`${day} · ${nameOf(s.key)}: ${label(value(s))}`}</title>
                  </rect>
                );
              })}
              {(days.length <= 14 || i % Math.ceil(days.length / 10) === 0) && (
                <text x={x + bar / 2} y={HEIGHT + 14} className="spend-chart__day" textAnchor="middle">
                  {day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption className="spend-chart__legend">
        {order.map((key) => (
          <span key={key} className="spend-chart__key">
            <span className="spend-chart__swatch" style={{ background: colours.get(key) }} aria-hidden="true" />
            {nameOf(key)}
          </span>
        ))}
      </figcaption>
      {hover && (
        <p className="spend-chart__hover muted" role="status" data-testid="spend-hover">
          {(() => {
            const [day, key] = [hover.slice(0, 10), hover.slice(11)];
            const s = segments.find((x) => x.day === day && x.key === key);
            return s ? `${day} · ${nameOf(key)}: ${label(value(s))}` : "";
          })()}
        </p>
      )}
    </figure>
  );
}
