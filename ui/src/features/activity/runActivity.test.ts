import { describe, expect, it, vi } from "vitest";
import type { RunEvent, RunEventRecord } from "../../bindings";
import { RunActivityStore, summarize } from "./runActivity";

const rec = (seq: number, event: RunEvent, at = seq * 100, runId = "run-1"): RunEventRecord => ({ runId, seq, at, event });

/** A store whose notifications wait for `frame()`. */
function manualStore(maxRuns?: number) {
  const pending: Array<() => void> = [];
  const store = new RunActivityStore((flush) => pending.push(flush), maxRuns);
  const frame = () => pending.splice(0).forEach((f) => f());
  return { store, frame, scheduled: () => pending.length };
}

describe("summarize", () => {
  it("concatenates deltas and puts whole messages in a new paragraph", () => {
    const a = summarize([
      rec(1, { type: "textDelta", text: "Hel" }),
      rec(2, { type: "textDelta", text: "lo" }),
      rec(3, { type: "message", text: "Done." }),
    ]);
    expect(a.text).toBe("Hello\n\nDone.");
    expect(summarize([rec(1, { type: "message", text: "Only" })]).text).toBe("Only");
    // Like the stored reply: no blank line added after a line that already ended.
    const b = summarize([rec(1, { type: "textDelta", text: "List:\n" }), rec(2, { type: "message", text: "- a" })]);
    expect(b.text).toBe("List:\n- a");
  });

  it("tracks a tool call from start to result, with its timing", () => {
    const a = summarize([
      rec(1, { type: "toolCallStarted", callId: "c1", name: "Bash", input: { command: "ls" } }, 1_000),
      rec(2, { type: "toolResult", callId: "c1", output: "a\nb", isError: false }, 2_500),
      rec(3, { type: "toolCallStarted", callId: "c2", name: "Read", input: { path: "x" } }, 3_000),
      rec(4, { type: "toolResult", callId: "c2", output: "nope", isError: true }, 3_100),
    ]);
    expect(a.items).toEqual([
      expect.objectContaining({ kind: "tool", callId: "c1", name: "Bash", status: "done", output: "a\nb", startedAt: 1_000, finishedAt: 2_500 }),
      expect.objectContaining({ kind: "tool", callId: "c2", status: "error", output: "nope" }),
    ]);
  });

  it("merges consecutive thinking and keeps separate blocks apart", () => {
    const a = summarize([
      rec(1, { type: "thinking", text: "Let me " }),
      rec(2, { type: "thinking", text: "think." }),
      rec(3, { type: "textDelta", text: "Hi" }),
      rec(4, { type: "thinking", text: "Again." }),
    ]);
    expect(a.items.map((i) => (i.kind === "thinking" ? i.text : i.kind))).toEqual(["Let me think.", "Again."]);
  });

  it("resolves permission requests and sums usage", () => {
    const usage = (input: number, cost: number | null): RunEvent => ({
      type: "usage",
      inputTokens: input,
      outputTokens: 10,
      cacheReadTokens: 1,
      cacheWriteTokens: 2,
      costUsd: cost,
    });
    const a = summarize([
      rec(1, { type: "permissionRequest", requestId: "p1", tool: "Bash", input: "rm -rf x", description: "Delete x" }),
      rec(2, { type: "permissionResolved", requestId: "p1", allowed: false }),
      rec(3, usage(100, null)),
      rec(4, usage(50, 0.25)),
      rec(5, { type: "warning", message: "slow" }),
      rec(6, { type: "finished", outcome: "failed", message: "boom" }),
    ]);
    expect(a.items[0]).toMatchObject({ kind: "permission", requestId: "p1", allowed: false });
    expect(a.items[1]).toMatchObject({ kind: "warning", message: "slow" });
    expect(a.usage).toEqual({ inputTokens: 150, outputTokens: 20, cacheReadTokens: 2, cacheWriteTokens: 4, costUsd: 0.25 });
    expect(a.finished).toEqual({ outcome: "failed", message: "boom" });
    expect(a.lastSeq).toBe(6);
  });

  it("keeps what Clawboo added to the message, summary and exact text", () => {
    const a = summarize([
      rec(1, { type: "contextAdded", summary: "Recalled 2 saved notes", text: "Your saved notes:\n- a\n- b" }),
      rec(2, { type: "textDelta", text: "ok" }),
    ]);
    expect(a.items).toEqual([
      { kind: "context", key: "context:1", summary: "Recalled 2 saved notes", text: "Your saved notes:\n- a\n- b" },
    ]);
    expect(a.text).toBe("ok");
  });

  it("orders by seq and ignores duplicates", () => {
    const a = summarize([
      rec(2, { type: "textDelta", text: "b" }),
      rec(1, { type: "textDelta", text: "a" }),
      rec(2, { type: "textDelta", text: "b" }),
    ]);
    expect(a.text).toBe("ab");
  });
});

describe("RunActivityStore", () => {
  it("batches notifications until the next frame", () => {
    const { store, frame, scheduled } = manualStore();
    const listener = vi.fn();
    store.subscribe("run-1", listener);

    for (let i = 1; i <= 500; i++) store.add(rec(i, { type: "textDelta", text: "x" }));
    expect(scheduled()).toBe(1);
    expect(listener).not.toHaveBeenCalled();
    expect(store.get("run-1")).toBeUndefined();

    frame();
    expect(listener).toHaveBeenCalledTimes(1);
    expect(store.get("run-1")?.text).toBe("x".repeat(500));
  });

  it("tells whether a record is the first of its run", () => {
    const { store } = manualStore();
    expect(store.add(rec(1, { type: "textDelta", text: "a" }))).toBe(true);
    expect(store.add(rec(2, { type: "textDelta", text: "b" }))).toBe(false);
  });

  it("keeps the snapshot, and the items list, stable when nothing relevant changed", () => {
    const { store, frame } = manualStore();
    store.add(rec(1, { type: "toolCallStarted", callId: "c1", name: "Bash", input: null }));
    frame();
    const first = store.get("run-1")!;
    expect(store.get("run-1")).toBe(first);

    store.add(rec(2, { type: "textDelta", text: "streaming" }));
    frame();
    const second = store.get("run-1")!;
    expect(second).not.toBe(first);
    expect(second.items).toBe(first.items);

    store.add(rec(3, { type: "toolResult", callId: "c1", output: "ok", isError: false }));
    frame();
    expect(store.get("run-1")!.items).not.toBe(first.items);
  });

  it("merges a backfill with live records without duplicates", () => {
    const { store, frame } = manualStore();
    // Live events 3 and 4 arrive before the backfill of 1..3.
    store.add(rec(3, { type: "textDelta", text: "c" }));
    store.add(rec(4, { type: "textDelta", text: "d" }));
    store.merge("run-1", [
      rec(1, { type: "textDelta", text: "a" }),
      rec(2, { type: "toolCallStarted", callId: "c1", name: "Bash", input: null }),
      rec(3, { type: "textDelta", text: "c" }),
    ]);
    store.add(rec(4, { type: "textDelta", text: "d" }));
    store.add(rec(5, { type: "textDelta", text: "e" }));
    frame();
    const a = store.get("run-1")!;
    expect(a.text).toBe("acde");
    expect(a.items).toHaveLength(1);
    expect(a.lastSeq).toBe(5);
  });

  it("shares one backfill fetch between concurrent callers", async () => {
    const { store, frame } = manualStore();
    const fetch = vi.fn(async (runId: string) => [rec(1, { type: "textDelta", text: "hi" }, 100, runId)]);
    await Promise.all([store.backfill("run-1", fetch), store.backfill("run-1", fetch)]);
    frame();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(store.get("run-1")?.text).toBe("hi");
  });

  it("forgets the oldest finished run nobody watches when over the limit", () => {
    const { store, frame } = manualStore(3);
    const done: RunEvent = { type: "finished", outcome: "succeeded", message: null };
    store.subscribe("watched", () => {});
    store.merge("watched", [rec(1, done, 1, "watched")]);
    store.add(rec(1, { type: "textDelta", text: "still going" }, 1, "running"));
    store.merge("old", [rec(1, done, 1, "old")]);
    store.add(rec(1, { type: "textDelta", text: "n" }, 1, "new"));
    frame();
    expect(store.get("watched")).toBeDefined();
    expect(store.get("running")?.text).toBe("still going");
    expect(store.get("old")).toBeUndefined();
    expect(store.get("new")?.text).toBe("n");
  });

  it("notices records lost on the way and fills them from a backfill", async () => {
    const { store, frame } = manualStore();
    store.add(rec(1, { type: "textDelta", text: "a" }));
    store.add(rec(4, { type: "textDelta", text: "d" }));
    expect(store.hasGaps("run-1")).toBe(true);
    await store.backfill("run-1", async () => [
      rec(1, { type: "textDelta", text: "a" }),
      rec(2, { type: "textDelta", text: "b" }),
      rec(3, { type: "textDelta", text: "c" }),
    ]);
    frame();
    expect(store.hasGaps("run-1")).toBe(false);
    expect(store.get("run-1")?.text).toBe("abcd");
  });

  it("counts a finished run incomplete until its finished record is here", () => {
    const { store, frame } = manualStore();
    expect(store.isIncomplete("run-1")).toBe(true); // nothing heard of it
    store.merge("run-1", []);
    expect(store.isIncomplete("run-1")).toBe(true); // an empty early backfill
    store.add(rec(1, { type: "textDelta", text: "a" }));
    expect(store.isIncomplete("run-1")).toBe(true); // no end yet
    store.add(rec(2, { type: "finished", outcome: "succeeded", message: null }));
    frame();
    expect(store.isIncomplete("run-1")).toBe(false);
  });

  it("fetches a finished run again after an early fetch that found nothing stored yet", async () => {
    const { store, frame } = manualStore();
    let releaseEarly: (records: RunEventRecord[]) => void = () => {};
    const early = store.backfill("run-1", () => new Promise((resolve) => (releaseEarly = resolve)));
    const all = [
      rec(1, { type: "textDelta", text: "done" }),
      rec(2, { type: "finished", outcome: "succeeded", message: null }),
    ];
    const later = vi.fn(async () => all);
    const completing = store.completeFinished("run-1", later);
    releaseEarly([]); // read before the run's records were stored
    await early;
    await completing;
    frame();
    expect(later).toHaveBeenCalledTimes(1);
    expect(store.get("run-1")?.text).toBe("done");
    await store.completeFinished("run-1", later);
    expect(later).toHaveBeenCalledTimes(1); // complete now: no more fetches
  });
});
