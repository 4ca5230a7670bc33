import { describe, expect, it } from "vitest";
import type { ChatMessage, RunSummary } from "../../bindings";
import type { ChatView } from "./chat";
import { buildTimeline, currentRun, firstLines, formatDuration, summarizeInput } from "./chat";

const msg = (id: string, seq: number, runId: string | null = null): ChatMessage => ({
  id,
  chatId: "c",
  agentId: "a",
  seq,
  role: "user",
  content: id,
  runId,
  createdAt: seq,
});

const run = (id: string, status: RunSummary["status"], startedAt: number, finishedAt: number | null): RunSummary => ({
  id,
  agentId: "a",
  runtime: "native",
  status,
  error: null,
  errorCode: null,
  startedAt,
  finishedAt,
});

describe("buildTimeline", () => {
  it("places notices of failed or stopped runs after the last message of their run", () => {
    const history: ChatView = {
      messages: [msg("m1", 1, "ok"), msg("r1", 2, "ok"), msg("m2", 3, "bad"), msg("m3", 4, "stop"), msg("r3", 5, "stop")],
      runs: [run("ok", "succeeded", 11, 20), run("bad", "failed", 31, 40), run("stop", "cancelled", 51, 50)],
      activeRun: null,
    };
    expect(buildTimeline(history).map((e) => e.key)).toEqual(["m:m1", "m:r1", "m:m2", "r:bad", "m:m3", "m:r3", "r:stop"]);
  });
});

describe("currentRun", () => {
  it("prefers the active run, else the one started last", () => {
    const active = run("b", "running", 5, null);
    expect(currentRun({ messages: [], runs: [run("a", "succeeded", 1, 2), active], activeRun: active })).toBe(active);
    expect(
      currentRun({ messages: [], runs: [run("late", "failed", 9, 10), run("early", "succeeded", 1, 2)], activeRun: null })
        ?.id,
    ).toBe("late");
    expect(currentRun({ messages: [], runs: [], activeRun: null })).toBeNull();
  });
});

describe("formatting", () => {
  it("formats durations", () => {
    expect(formatDuration(420)).toBe("420 ms");
    expect(formatDuration(1500)).toBe("1.5 s");
    expect(formatDuration(65_000)).toBe("1m 5s");
  });

  it("summarizes tool input on one line", () => {
    expect(summarizeInput({ command: "ls -la\n/tmp", timeout: 5 })).toBe("ls -la /tmp");
    expect(summarizeInput({ a: 1 })).toBe('{"a":1}');
    expect(summarizeInput("x".repeat(500))).toHaveLength(160);
    expect(summarizeInput(null)).toBe("null");
  });

  it("cuts text to its first lines", () => {
    expect(firstLines("a\nb\nc", 2)).toEqual({ shown: "a\nb", hidden: 1, total: 3 });
    expect(firstLines("a", 2)).toEqual({ shown: "a", hidden: 0, total: 1 });
  });
});
