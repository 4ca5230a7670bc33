import { describe, expect, it } from "vitest";
import type { ChatMessage, ChatPage, ChatSummary, RunSummary } from "../../bindings";
import {
  flattenPages,
  newestPageOnly,
  olderPageParam,
  withChatActivity,
  withMessage,
  withRun,
  withSuperseded,
  type ChatPages,
} from "./chatPages";

const msg = (seq: number, runId: string | null = null): ChatMessage => ({
  id: `m${seq}`,
  chatId: "c",
  agentId: "a",
  seq,
  role: "user",
  content: `m${seq}`,
  runId,
  createdAt: seq,
  superseded: false,
});
const run = (id: string, status: RunSummary["status"]): RunSummary => ({
  id,
  agentId: "a",
  runtime: "native",
  status,
  error: null,
  errorCode: null,
  startedAt: 1,
  finishedAt: status === "running" ? null : 2,
});
const page = (seqs: number[], hasOlder: boolean, runs: RunSummary[] = [], activeRun: RunSummary | null = null): ChatPage => ({
  conversationId: "c",
  messages: seqs.map((s) => msg(s)),
  hasOlder,
  runs,
  activeRun,
});
const pages = (...list: ChatPage[]): ChatPages => ({ pages: list, pageParams: list.map((_, i) => (i === 0 ? null : i)) });

describe("chat pages", () => {
  it("flatten oldest first and ask for the page before the oldest message", () => {
    const data = pages(page([3, 4], true), page([1, 2], false));
    expect(flattenPages(data).messages.map((m) => m.seq)).toEqual([1, 2, 3, 4]);
    expect(olderPageParam(data.pages[0])).toBe(3);
    expect(olderPageParam(data.pages[1])).toBeUndefined();
  });

  it("append a message once, in seq order", () => {
    let data = pages(page([1, 2], false));
    data = withMessage(data, msg(4));
    data = withMessage(data, msg(3));
    data = withMessage(data, msg(4));
    expect(data.pages[0].messages.map((m) => m.seq)).toEqual([1, 2, 3, 4]);
  });

  it("track the active run and ignore a start heard after the end", () => {
    let data = pages(page([1], false));
    data = withRun(data, run("r", "running"));
    expect(data.pages[0].activeRun?.id).toBe("r");
    data = withRun(data, run("r", "succeeded"));
    expect(data.pages[0].activeRun).toBeNull();
    expect(withRun(data, run("r", "running"))).toBe(data);
    expect(flattenPages(data).runs.map((r) => r.status)).toEqual(["succeeded"]);
  });

  it("keep only the newest page for a refetch after lost events", () => {
    const data = newestPageOnly(pages(page([3], true), page([2], true), page([1], false)));
    expect(data.pages).toHaveLength(1);
    expect(data.pageParams).toEqual([null]);
  });
});

describe("withSuperseded", () => {
  it("marks the replaced messages on whichever page holds them, and changes nothing else", () => {
    const data = pages(page([3, 4], true), page([1, 2], false));
    const next = withSuperseded(data, ["m2", "m3"]);
    expect(flattenPages(next).messages.map((m) => [m.id, m.superseded])).toEqual([
      ["m1", false],
      ["m2", true],
      ["m3", true],
      ["m4", false],
    ]);
    expect(withSuperseded(next, ["m2"])).toBe(next);
  });
});

describe("withChatActivity", () => {
  const chat = (id: string, lastActivityAt: number, pinned = false, title: string | null = id): ChatSummary => ({
    id,
    agentId: "a",
    title,
    titleSetByUser: false,
    pinned,
    archivedAt: null,
    createdAt: 0,
    lastActivityAt,
    messages: 2,
    lastMessageAt: lastActivityAt,
  });
  const news = (chatId: string, createdAt: number, role: ChatMessage["role"] = "assistant"): ChatMessage => ({
    ...msg(99),
    chatId,
    role,
    createdAt,
  });

  it("counts the message and moves its chat to the top of its group, as the engine lists it", () => {
    const list = [chat("pinned", 5, true), chat("b", 30), chat("a", 20), chat("c", 10)];
    const next = withChatActivity(list, news("c", 40))!;
    expect(next.map((c) => c.id)).toEqual(["pinned", "c", "b", "a"]);
    expect(next[1]).toMatchObject({ messages: 3, lastActivityAt: 40, lastMessageAt: 40 });
    expect(withChatActivity(list, news("pinned", 40))!.map((c) => c.id)).toEqual(["pinned", "b", "a", "c"]);
  });

  it("leaves to the engine what only it knows: an unlisted chat, a first message's title, a tie", () => {
    const list = [chat("b", 30), chat("a", 20, false, null)];
    expect(withChatActivity(list, news("x", 40))).toBeUndefined();
    expect(withChatActivity(list, news("a", 40, "user"))).toBeUndefined();
    expect(withChatActivity(list, news("a", 30))).toBeUndefined();
    expect(withChatActivity(list, news("a", 40))!.map((c) => c.id)).toEqual(["a", "b"]);
  });
});
