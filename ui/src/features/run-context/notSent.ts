// Whether a run ended before any model request: then nothing it was given reached the model, and
// "What this agent saw" must say so rather than list its files as sent.
import type { RelayedRequest, RunSummary } from "../../bindings";

/** Runtimes whose every model request goes through Clawboo (recorded): none recorded means none made. */
const ALWAYS_RELAYED = new Set<RunSummary["runtime"]>(["native"]);

export type NoRequests =
  /** The run ended (failed or stopped) before its first request. */
  | "ended_before_sending"
  /** Still running, and no request yet. */
  | "not_yet"
  /** It failed or was stopped, and its runtime may talk to its model itself: either. */
  | "ended_or_direct"
  /** The runtime talked to its model itself (its own sign-in or Gateway). */
  | "direct_or_none";

/** Why a run has no recorded requests; null when it has some, or when that is not known yet. */
export function whyNoRequests(run: RunSummary | null | undefined, requests: RelayedRequest[] | undefined): NoRequests | null {
  if (!requests || requests.length > 0) return null;
  if (run?.status === "running") return "not_yet";
  if (run && ALWAYS_RELAYED.has(run.runtime)) return "ended_before_sending";
  // A CLI on its own sign-in sends nothing through Clawboo: none recorded proves nothing.
  if (run && run.status !== "succeeded") return "ended_or_direct";
  return "direct_or_none";
}
