import { useEffect } from "react";
import { call } from "../api";
import { markStart, takeStartSteps } from "../lib/startSteps";

let reported = false;
let interactive: () => void;
const interactiveOnce = new Promise<void>((resolve) => (interactive = resolve));

/** Resolves once the first interactive screen is reported: what the first screen does not need
 *  (the chat pages' code, ...) waits for it instead of competing with it. */
export function whenInteractive(): Promise<void> {
  return interactiveOnce;
}

/**
 * The first interactive screen: the sidebar rendered with its agents and teams (their queries
 * settled), a frame painted, and the main thread free to take input. Marked once per page load
 * for the page (`performance.mark`) and the shell, with the page's steps on the way (scripts/bench
 * reads the start-up time from it).
 */
export function useReportInteractive(ready: boolean) {
  useEffect(() => {
    if (!ready || reported) return;
    reported = true;
    markStart("sidebar rendered with its data");
    // The task after the next frame runs once that frame is painted and input can be handled.
    requestAnimationFrame(() =>
      setTimeout(() => {
        performance.mark("clawboo:interactive");
        markStart("interactive");
        call("reportInteractive", takeStartSteps()).catch(() => {});
        interactive();
      }, 0),
    );
  }, [ready]);
}
