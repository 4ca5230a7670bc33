// Money and tokens as the Spend page and every run's cost show them. Money comes from the engine as
// integer micro-dollars (never floats in the store); it is only turned into text here.
import type { RunSpend, Totals } from "../../bindings";

/** `$1.23`; under a cent, `$0.0042` (four places); exactly zero, `$0.00`. */
export function formatMicros(micros: number): string {
  const dollars = micros / 1_000_000;
  if (micros !== 0 && Math.abs(dollars) < 0.01) return `$${dollars.toFixed(4)}`;
  return `$${dollars.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** `950`, `12.3k`, `4.1M`. */
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 10_000 ? 1 : 0)}k`;
  return `${(tokens / 1_000_000).toFixed(1)}M`;
}

export function totalTokens(t: Pick<Totals, "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens">): number {
  return t.inputTokens + t.outputTokens + t.cacheReadTokens + t.cacheWriteTokens;
}

/** The share of prompt tokens read from the cache, as `62%` (`—` with no prompt tokens). */
export function cacheShare(t: Pick<Totals, "inputTokens" | "cacheReadTokens" | "cacheWriteTokens">): string {
  const prompt = t.inputTokens + t.cacheReadTokens + t.cacheWriteTokens;
  if (prompt === 0) return "—";
  return `${Math.round((t.cacheReadTokens / prompt) * 100)}%`;
}

/** What a total costs, said honestly: money for what had a price, and what had none said apart. */
export function costLabel(t: Totals): string {
  const tokens = totalTokens(t);
  const priced = tokens - t.unpricedTokens - t.subscriptionTokens;
  const parts: string[] = [];
  if (priced > 0 || (t.unpricedTokens === 0 && t.subscriptionTokens === 0)) parts.push(formatMicros(t.costMicros));
  if (t.subscriptionTokens > 0) parts.push(`${formatTokens(t.subscriptionTokens)} tokens on your subscription`);
  if (t.unpricedTokens > 0) parts.push(`${formatTokens(t.unpricedTokens)} tokens with no price known`);
  return parts.join(" + ");
}

/** A headline's big figure and what qualifies it, short enough for a narrow card: money when
 *  anything had a price (what had none said after it), else the tokens with why there is no money. */
export function headlineParts(t: Totals): { figure: string; note: string | null } {
  const tokens = totalTokens(t);
  const priced = tokens - t.unpricedTokens - t.subscriptionTokens;
  const subscription = `${formatTokens(t.subscriptionTokens)} tokens on your subscription`;
  const unpriced = `${formatTokens(t.unpricedTokens)} tokens with no price known`;
  if (priced > 0 || (t.unpricedTokens === 0 && t.subscriptionTokens === 0)) {
    const apart = [t.subscriptionTokens > 0 && subscription, t.unpricedTokens > 0 && unpriced].filter(Boolean);
    return { figure: formatMicros(t.costMicros), note: apart.length ? `+ ${apart.join(" + ")}` : null };
  }
  if (t.unpricedTokens === 0) return { figure: `${formatTokens(tokens)} tokens`, note: "on your subscription" };
  if (t.subscriptionTokens === 0) return { figure: `${formatTokens(tokens)} tokens`, note: "no price known" };
  return { figure: `${formatTokens(tokens)} tokens`, note: `${subscription} + ${unpriced}` };
}

/** Nothing spent. */
export const NO_SPEND: Readonly<Totals> = Object.freeze({
  requests: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costMicros: 0,
  unpricedTokens: 0,
  subscriptionTokens: 0,
});

/** Runs' spend as one total: money only for what was priced; a run on the user's own sign-in
 *  counts as tokens on the subscription, a run with no known price as tokens with no price. */
export function totalsOfRuns(runs: RunSpend[]): Totals {
  const sum: Totals = { ...NO_SPEND };
  for (const run of runs) {
    sum.requests += run.requests;
    sum.inputTokens += run.inputTokens;
    sum.outputTokens += run.outputTokens;
    sum.cacheReadTokens += run.cacheReadTokens;
    sum.cacheWriteTokens += run.cacheWriteTokens;
    sum.costMicros += run.costMicros ?? 0;
    if (run.billing === "subscription") sum.subscriptionTokens += totalTokens(run);
    else sum.unpricedTokens += run.unpricedTokens;
  }
  return sum;
}

/** One run's or one request's cost: money, or why there is none. */
export function runCostLabel(costMicros: number | null, billing: "api" | "subscription"): string {
  if (billing === "subscription") return "on your subscription";
  if (costMicros === null) return "no price known";
  return formatMicros(costMicros);
}

/** The local day `days` before `day` ("YYYY-MM-DD"). */
export function daysBefore(day: string, days: number): string {
  const [y, m, d] = day.split("-").map(Number);
  const date = new Date(Date.UTC(y, m - 1, d - days));
  return date.toISOString().slice(0, 10);
}

/** Today, locally, as "YYYY-MM-DD". */
export function localToday(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
