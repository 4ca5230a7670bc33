// The one-to-one chat part of the fake API: an agent's chats (its first one kept under its id in
// `backend.chats`, later ones in `backend.moreChats`), pages, sends (with /reset, /new and the
// files' budgets), runs and their events, and what a run was given.
import { vi } from "vitest";
import { ClawbooError } from "../errors";
import type { SomeCommandFakes } from "./commandFakes";
import { emit } from "./fakeEvents";
import { backend, notFound, tick, type FileName, type FakeChat } from "./fakeState";
import { agentFiles } from "./fakeAgents";
import { planTurn, routesOf } from "./fakeFileRoutes";
import type {
  ChatMessage,
  ChatPage,
  ChatRunContext,
  ChatSummary,
  FileRouteInfo,
  RunEvent,
  RunErrorCode,
  RunEventRecord,
  RunStatus,
  ReadThreadKind,
  RunSummary,
  SendOutcome,
  UnreadThread,
} from "../bindings";

export const RESET_NOTICE = "Conversation reset. The agent starts fresh.";
export const NEW_CHAT_NOTICE = "New chat: the agent starts fresh here.";

function newFakeChat(agentId: string, id: string): FakeChat {
  const now = tick();
  const summary: ChatSummary = {
    id,
    agentId,
    title: null,
    titleSetByUser: false,
    pinned: false,
    archivedAt: null,
    createdAt: now,
    lastActivityAt: now,
    messages: 0,
    lastMessageAt: null,
  };
  return { messages: [], runs: [], activeRun: null, summary, deleted: false };
}

/** The agent's first chat, made on first use (as the engine makes one with the first message). */
function firstChatOf(agentId: string): FakeChat {
  let chat = backend.chats.get(agentId);
  if (!chat) backend.chats.set(agentId, (chat = newFakeChat(agentId, `chat-${agentId}`)));
  return chat;
}

/** Every chat of every agent, deleted ones too. */
function allChats(): FakeChat[] {
  return [...backend.chats.values(), ...backend.moreChats.values()];
}

/** Every chat of the agent, deleted ones too. */
function chatsOf(agentId: string): FakeChat[] {
  const first = backend.chats.get(agentId);
  const more = [...backend.moreChats.values()].filter((c) => c.summary.agentId === agentId);
  return first ? [first, ...more] : more;
}

/** The chat a message without a chat goes to: the most recently used one in the list. */
function chatOf(agentId: string): FakeChat {
  const listed = chatsOf(agentId).filter((c) => !c.deleted && c.summary.archivedAt === null);
  listed.sort((a, b) => b.summary.lastActivityAt - a.summary.lastActivityAt);
  return listed[0] ?? firstChatOf(agentId);
}

function chatById(chatId: string): FakeChat {
  const chat = [...backend.chats.values(), ...backend.moreChats.values()].find((c) => c.summary.id === chatId);
  return chat && !chat.deleted ? chat : notFound(`Chat ${chatId}`);
}

function inChat(agentId: string, chatId: string | null): FakeChat {
  if (chatId === null) return chatOf(agentId);
  const chat = chatById(chatId);
  return chat.summary.agentId === agentId ? chat : notFound(`Chat ${chatId}`);
}

/** A new chat of the agent's, as New chat and `/new` make it. */
export function seedChat(agentId: string, title: string | null = null): ChatSummary {
  firstChatOf(agentId);
  const chat = newFakeChat(agentId, `chat-${backend.nextId++}`);
  chat.summary.title = title;
  backend.moreChats.set(chat.summary.id, chat);
  return { ...chat.summary };
}

function listed(chat: FakeChat): ChatSummary {
  return { ...chat.summary, messages: chat.messages.length };
}

/** The fake's id of an agent's first chat (its conversation). */
export const conversationOf = (agentId: string) => `chat-${agentId}`;

/** As the engine pages: up to `limit` messages before `beforeSeq`, the runs they refer to. */
function pageOf(agentId: string, chatId: string | null, beforeSeq: number | null, limit: number): ChatPage {
  const chat = inChat(agentId, chatId);
  const before = chat.messages.filter((m) => beforeSeq === null || m.seq < beforeSeq);
  const messages = before.slice(Math.max(0, before.length - limit)).map((m) => ({ ...m }));
  const runIds = [...new Set(messages.flatMap((m) => (m.runId ? [m.runId] : [])))];
  return {
    conversationId: chat.messages.length ? chat.summary.id : null,
    messages,
    hasOlder: before.length > limit,
    runs: runIds.flatMap((id) => chat.runs.filter((r) => r.id === id).map((r) => ({ ...r }))),
    activeRun: chat.activeRun && { ...chat.activeRun },
  };
}

/** Adds a stored message to an agent's chat (`chatId` null: its most recently used; no event). */
export function seedMessage(
  agentId: string,
  role: ChatMessage["role"],
  content: string,
  runId: string | null = null,
  chatId: string | null = null,
) {
  const chat = inChat(agentId, chatId);
  const seq = chat.messages.length + 1;
  const createdAt = tick();
  const id = `msg-${backend.nextId++}`;
  const message: ChatMessage = {
    id,
    chatId: chat.summary.id,
    agentId,
    seq,
    role,
    content,
    runId,
    createdAt,
    superseded: false,
  };
  chat.messages.push(message);
  chat.summary.lastActivityAt = createdAt;
  chat.summary.lastMessageAt = createdAt;
  if (role === "user" && chat.summary.title === null && !chat.summary.titleSetByUser)
    chat.summary.title = content.split(/\s+/).join(" ").slice(0, 60);
  return message;
}

/** Starts a run for the agent, as a send would (no event); the last user message without a run is its. */
/** The code the engine records with a run's end, by its status (a failure's: "run_failed"
 *  unless the test says which). */
export function codeOf(status: RunStatus, code?: RunErrorCode): RunErrorCode | null {
  if (status === "timed_out" || status === "interrupted") return status;
  return status === "failed" ? (code ?? "run_failed") : null;
}

export function seedRun(
  agentId: string,
  status: RunStatus = "running",
  error: string | null = null,
  code?: RunErrorCode,
  chatId: string | null = null,
): RunSummary {
  const running = status === "running";
  const run: RunSummary = {
    id: `run-${backend.nextId++}`,
    agentId,
    // The engine records the runtime the agent had when the run started.
    runtime: backend.agents.find((a) => a.id === agentId)?.runtime ?? "claude-code",
    status,
    error,
    errorCode: codeOf(status, code),
    startedAt: tick(),
    finishedAt: running ? null : tick(),
  };
  const chat = inChat(agentId, chatId);
  chat.runs.push(run);
  const asked = chat.messages[chat.messages.length - 1];
  if (asked && asked.role === "user" && asked.runId === null) asked.runId = run.id;
  if (running) chat.activeRun = run;
  return run;
}

/** Stores what a one-to-one run was given, roughly as the engine words it, and notes the
 *  references it delivered into the session. */
function recordChatRunContext(
  agentId: string,
  runId: string,
  files: ChatRunContext["files"],
  delivered: Map<FileName, string>,
) {
  const texts = agentFiles(agentId);
  const sent = (route: string) => files.filter((f) => f.route === route && f.status === "sent");
  const system = sent("instructions").map((f) => texts.get(f.file)!.trim());
  const references = sent("reference").map((f) => `### ${f.file}\n${texts.get(f.file)!.trim()}`);
  backend.chatRunContexts.set(runId, {
    runId,
    systemText: system.length ? system.join("\n\n") : null,
    preamble: references.length ? `## Workspace files\n\n${references.join("\n\n")}` : null,
    files,
    sections: [],
    createdAt: tick(),
  });
  for (const f of sent("reference")) delivered.set(f.file, f.hash);
  backend.deliveredFiles.set(agentId, delivered);
}

/** Tells the app a message was stored, as the engine does after its commit. */
export function emitMessageAdded(agentId: string, message: ChatMessage) {
  emit("chatMessageAdded", { agentId, message: { ...message } });
}

/** Tells the app a run started or ended. */
export function emitRunChanged(agentId: string, run: RunSummary) {
  const chat = chatsOf(agentId).find((c) => c.runs.some((r) => r.id === run.id)) ?? chatOf(agentId);
  emit("runChanged", { agentId, chatId: chat.summary.id, run: { ...run } });
}

/** The next record of a run, numbered after what the run emitted so far. Stored for runActivity(). */
export function recordRunEvent(runId: string, event: RunEvent, at = tick()): RunEventRecord {
  const records = backend.runRecords.get(runId) ?? [];
  const record = { runId, seq: records.length + 1, at, event };
  backend.runRecords.set(runId, [...records, record]);
  return record;
}

/** Delivers a record to the app's live listeners. */
export function deliverRunEvent(agentId: string, record: RunEventRecord) {
  emit("runEventEmitted", { agentId, record });
}

/** Records and delivers a run event, as the backend does while a run goes. */
export function emitRunEvent(agentId: string, runId: string, event: RunEvent, at?: number): RunEventRecord {
  const record = recordRunEvent(runId, event, at);
  deliverRunEvent(agentId, record);
  return record;
}

/** Ends the active run: stores the reply (if any), sets the status, and reports both. */
export function finishRun(
  agentId: string,
  status: RunStatus,
  reply: string | null,
  error: string | null = null,
  code?: RunErrorCode,
) {
  const chat = chatsOf(agentId).find((c) => c.activeRun) ?? notFound("Active run");
  const run = chat.activeRun ?? notFound("Active run");
  const message = reply !== null ? seedMessage(agentId, "assistant", reply, run.id, chat.summary.id) : null;
  const done = { ...run, status, error, errorCode: codeOf(status, code), finishedAt: tick() };
  chat.runs = chat.runs.map((r) => (r.id === run.id ? done : r));
  chat.activeRun = null;
  if (message) emitMessageAdded(agentId, message);
  emitRunChanged(agentId, done);
}

export const fakeChatApi = {
  chatHistoryPage: vi.fn(
    async (agentId: string, chatId: string | null, beforeSeq: number | null, limit: number): Promise<ChatPage> =>
      pageOf(agentId, chatId, beforeSeq, limit),
  ),
  /** Like the engine: stores, publishes the news, and returns it. */
  sendChatMessage: vi.fn(async (agentId: string, chatId: string | null, text: string): Promise<SendOutcome> => {
    if (chatId !== null) inChat(agentId, chatId);
    if (text === "/reset" || text === "/new") {
      backend.deliveredFiles.delete(agentId);
      const into = text === "/new" ? seedChat(agentId).id : chatId;
      const notice = seedMessage(agentId, "notice", text === "/new" ? NEW_CHAT_NOTICE : RESET_NOTICE, null, into);
      emitMessageAdded(agentId, notice);
      return { message: { ...notice }, run: null };
    }
    // Like the engine: a file over a budget that applies refuses the run before anything is stored.
    const agent = backend.agents.find((a) => a.id === agentId) ?? notFound("Agent");
    const delivered = backend.deliveredFiles.get(agentId) ?? new Map<FileName, string>();
    const plan = planTurn(agent, agentFiles(agentId), delivered);
    if (plan.refusal) throw new ClawbooError("context_too_large", plan.refusal);
    const message = seedMessage(agentId, "user", text, null, chatId);
    const run = seedRun(agentId, "running", null, undefined, message.chatId);
    recordChatRunContext(agentId, run.id, plan.files, delivered);
    emitMessageAdded(agentId, message);
    emitRunChanged(agentId, run);
    return { message: { ...message }, run: { ...run } };
  }),
  retryChatMessage: vi.fn(async (messageId: string): Promise<SendOutcome> => replaceLast(messageId, null)),
  editChatMessage: vi.fn(async (messageId: string, text: string): Promise<SendOutcome> => replaceLast(messageId, text)),
  markThreadRead: vi.fn(async (kind: ReadThreadKind, id: string): Promise<null> => {
    const newest =
      kind === "chat"
        ? allChats().find((c) => c.summary.id === id)?.messages.slice(-1)[0]?.seq
        : (backend.roomMessages.get(id) ?? []).slice(-1)[0]?.seq;
    const key = `${kind}:${id}`;
    if ((newest ?? 0) > (backend.readMarks.get(key) ?? 0)) {
      backend.readMarks.set(key, newest ?? 0);
      emit("readMarksChanged", null);
    }
    return null;
  }),
  unreadThreads: vi.fn(async (): Promise<UnreadThread[]> => unreadThreads()),
  chatRunContext: vi.fn(
    async (runId: string): Promise<ChatRunContext> =>
      backend.chatRunContexts.get(runId) ?? notFound(`What run ${runId} was given`),
  ),
  agentFileRoutes: vi.fn(async (agentId: string): Promise<FileRouteInfo[]> =>
    routesOf(backend.agents.find((a) => a.id === agentId) ?? notFound("Agent")),
  ),
  cancelRun: vi.fn(async (_runId: string): Promise<null> => null),
  listChats: vi.fn(async (agentId: string): Promise<ChatSummary[]> => {
    const chats = chatsOf(agentId).filter((c) => !c.deleted);
    chats.sort(
      (a, b) =>
        Number(b.summary.pinned) - Number(a.summary.pinned) || b.summary.lastActivityAt - a.summary.lastActivityAt,
    );
    return chats.map(listed);
  }),
  newChat: vi.fn(async (agentId: string): Promise<ChatSummary> => seedChat(agentId)),
  renameChat: vi.fn(async (chatId: string, title: string): Promise<ChatSummary> => {
    const chat = chatById(chatId);
    const first = chat.messages.find((m) => m.role === "user");
    chat.summary.title = title.trim() || (first ? first.content.slice(0, 60) : null);
    chat.summary.titleSetByUser = title.trim() !== "";
    return listed(chat);
  }),
  pinChat: vi.fn(async (chatId: string, pinned: boolean): Promise<ChatSummary> => {
    const chat = chatById(chatId);
    chat.summary.pinned = pinned;
    return listed(chat);
  }),
  archiveChat: vi.fn(async (chatId: string, archived: boolean): Promise<ChatSummary> => {
    const chat = chatById(chatId);
    chat.summary.archivedAt = archived ? tick() : null;
    return listed(chat);
  }),
  deleteChat: vi.fn(async (chatId: string): Promise<null> => {
    chatById(chatId).deleted = true;
    return null;
  }),
  restoreChat: vi.fn(async (chatId: string): Promise<ChatSummary> => {
    const chat = [...backend.chats.values(), ...backend.moreChats.values()].find((c) => c.summary.id === chatId);
    if (!chat?.deleted) return notFound(`Deleted chat ${chatId}`);
    chat.deleted = false;
    return listed(chat);
  }),
  runActivity: vi.fn(async (runId: string): Promise<RunEventRecord[]> => [...(backend.runRecords.get(runId) ?? [])]),
} satisfies SomeCommandFakes;

/** As the engine: the user's last standing message and what came after it are superseded, and
 *  the same message (or `text`) is sent again as a new one. */
function replaceLast(messageId: string, text: string | null): SendOutcome {
  const chat = allChats().find((c) => !c.deleted && c.messages.some((m) => m.id === messageId)) ??
    notFound(`Message ${messageId}`);
  const agentId = chat.summary.agentId;
  const standing = chat.messages.filter((m) => !m.superseded);
  const last = [...standing].reverse().find((m) => m.role === "user");
  if (!last || last.id !== messageId) {
    throw new ClawbooError("conflict", "Only your last message can be retried or edited, and this one no longer is.");
  }
  const replaced = standing.filter((m) => m.seq >= last.seq && m.role !== "notice");
  for (const m of replaced) m.superseded = true;
  emit("chatMessagesSuperseded", { agentId, messageIds: replaced.map((m) => m.id) });
  const message = seedMessage(agentId, "user", text ?? last.content, null, chat.summary.id);
  const run = seedRun(agentId, "running", null, undefined, chat.summary.id);
  emitMessageAdded(agentId, message);
  emitRunChanged(agentId, run);
  return { message: { ...message }, run: { ...run } };
}

/** As the engine counts them: replies after each thread's read mark. */
export function unreadThreads(): UnreadThread[] {
  const out: UnreadThread[] = [];
  for (const chat of allChats().filter((c) => !c.deleted)) {
    const { id, agentId } = chat.summary;
    const mark = backend.readMarks.get(`chat:${id}`) ?? 0;
    const count = chat.messages.filter((m) => m.role === "assistant" && !m.superseded && m.seq > mark).length;
    if (count) out.push({ kind: "chat", id, agentId, teamId: null, count });
  }
  for (const team of backend.teams) {
    for (const room of team.rooms) {
      const mark = backend.readMarks.get(`room:${room.id}`) ?? 0;
      const count = (backend.roomMessages.get(room.id) ?? []).filter((m) => m.kind === "reply" && m.seq > mark).length;
      if (count) out.push({ kind: "room", id: room.id, agentId: null, teamId: team.id, count });
    }
  }
  return out;
}
