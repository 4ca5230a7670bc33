import { describe, expect, it } from "vitest";
import type { ChatMessage, RunSummary } from "../../bindings";
import type { ChatView } from "./chat";
import { buildTimeline, currentRun, firstLines, formatDuration, lastExchange, summarizeInput } from "./chat";

const msg = (id: string, seq: number, runId: string | null = null): ChatMessage => ({
  id,
  chatId: "c",
  agentId: "a",
  seq,
  role: "user",
  content: id,
  runId,
  createdAt: seq,
  superseded: false,
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

describe("replaced messages", () => {
  const said = (id: string, seq: number, role: ChatMessage["role"], content: string, superseded = false): ChatMessage => ({
    ...msg(id, seq),
    role,
    content,
    superseded,
  });

  it("fold into one entry, marked edited when the message after them says something else", () => {
    const retried = [
      said("u1", 1, "user", "Where?", true),
      said("a1", 2, "assistant", "North.", true),
      said("u2", 3, "user", "Where?"),
      said("a2", 4, "assistant", "South."),
    ];
    const entries = buildTimeline({ messages: retried, runs: [] });
    expect(entries.map((e) => e.kind)).toEqual(["superseded", "message", "message"]);
    expect(entries[0]).toMatchObject({ kind: "superseded", edited: false });
    const edited = [said("u1", 1, "user", "Where?", true), said("a1", 2, "assistant", "North.", true), said("u2", 3, "user", "Why?")];
    expect(buildTimeline({ messages: edited, runs: [] })[0]).toMatchObject({ kind: "superseded", edited: true });
  });

  it("are never the last exchange; a notice after your message leaves nothing to replace", () => {
    const messages = [
      said("u1", 1, "user", "Q1"),
      said("a1", 2, "assistant", "A1"),
      said("u2", 3, "user", "Q2", true),
      said("a2", 4, "assistant", "A2", true),
    ];
    expect(lastExchange(messages)).toEqual({ user: messages[0], reply: messages[1] });
    expect(lastExchange([said("u1", 1, "user", "Q1")])).toEqual({ user: expect.objectContaining({ id: "u1" }), reply: null });
    expect(lastExchange([...messages, said("n", 5, "notice", "Conversation reset")])).toEqual({ user: null, reply: null });
  });
});
