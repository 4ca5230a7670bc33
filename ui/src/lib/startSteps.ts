// The page's own steps on the way to its first interactive screen (its script run, its first
// render, each command it asked and when the answer came), kept until that screen is reported
// with them (shell/startup.ts), so a slow start can be placed. Milliseconds since the page began
// to load (`performance.now()`). Nothing is kept after the report.
import type { PageStartStep } from "../bindings";

type Step = PageStartStep & { ms: number };

let steps: Step[] | null = [];

const now = () => Math.round(performance.now() * 10) / 10;

/** Notes a step, while the first interactive screen is still ahead. */
export function markStart(name: string) {
  steps?.push({ name, ms: now() });
}

/** Times a command asked before the first interactive screen: asked, then answered (or failed). */
export function timeStartCall<T>(name: string, answer: Promise<T>): Promise<T> {
  if (!steps) return answer;
  markStart(`${name} asked`);
  const answered = () => markStart(`${name} answered`);
  answer.then(answered, answered);
  return answer;
}

/** The steps so far, with what the browser itself timed (the page and its script fetched, the
 *  document parsed, the first paint); no more are kept after this. */
export function takeStartSteps(): Step[] {
  const taken = [...(steps ?? [])];
  steps = null;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  try {
    const [page] = performance.getEntriesByType("navigation") as PerformanceNavigationTiming[];
    if (page) {
      taken.push({ name: "page fetched", ms: round(page.responseEnd) });
      taken.push({ name: "document parsed", ms: round(page.domInteractive) });
      if (page.domContentLoadedEventEnd > 0) taken.push({ name: "DOMContentLoaded", ms: round(page.domContentLoadedEventEnd) });
      if (page.loadEventEnd > 0) taken.push({ name: "load", ms: round(page.loadEventEnd) });
    }
    for (const r of performance.getEntriesByType("resource") as PerformanceResourceTiming[]) {
      if (/\.(js|css)$/.test(r.name)) taken.push({ name: `${r.name.replace(/^.*\//, "")} fetched`, ms: round(r.responseEnd) });
    }
    for (const p of performance.getEntriesByType("paint")) taken.push({ name: p.name, ms: round(p.startTime) });
  } catch {
    // No timing API: the page's own steps only.
  }
  return taken.sort((a, b) => a.ms - b.ms);
}
