import { describe, expect, it } from "vitest";
import type { RelayedRequest, RunSummary } from "../../bindings";
import { whyNoRequests } from "./notSent";

const run = (runtime: RunSummary["runtime"], status: RunSummary["status"]): RunSummary => ({
  id: "r1",
  agentId: "a1",
  runtime,
  status,
  error: null,
  errorCode: null,
  startedAt: 1,
  finishedAt: status === "running" ? null : 2,
});

describe("why a run has no recorded requests", () => {
  it("Native records every request: none means it ended before sending, whatever its end", () => {
    expect(whyNoRequests(run("native", "failed"), [])).toBe("ended_before_sending");
    expect(whyNoRequests(run("native", "cancelled"), [])).toBe("ended_before_sending");
  });

  it("a CLI may talk to its model itself: a failure with none recorded could be either, a success is direct", () => {
    expect(whyNoRequests(run("claude-code", "failed"), [])).toBe("ended_or_direct");
    expect(whyNoRequests(run("codex", "succeeded"), [])).toBe("direct_or_none");
  });

  it("says nothing while loading or when requests exist; a running one has none yet", () => {
    expect(whyNoRequests(run("native", "failed"), undefined)).toBeNull();
    expect(whyNoRequests(run("native", "failed"), [{} as RelayedRequest])).toBeNull();
    expect(whyNoRequests(run("native", "running"), [])).toBe("not_yet");
  });
});
