// The one-to-one chat part of the fake API: pages, sends (with /reset and the files' budgets), runs
// and their events, and what a run was given.
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

function chatOf(agentId: string): FakeChat {
  let chat = backend.chats.get(agentId);
  if (!chat) backend.chats.set(agentId, (chat = { messages: [], runs: [], activeRun: null }));
  return chat;
}

/** The fake's conversation id of an agent's one chat. */
export const conversationOf = (agentId: string) => `conv-${agentId}`;

/** As the engine pages: up to `limit` messages before `beforeSeq`, the runs they refer to. */
function pageOf(agentId: string, beforeSeq: number | null, limit: number): ChatPage {
  const chat = chatOf(agentId);
  const before = chat.messages.filter((m) => beforeSeq === null || m.seq < beforeSeq);
  const messages = before.slice(Math.max(0, before.length - limit)).map((m) => ({ ...m }));
  const runIds = [...new Set(messages.flatMap((m) => (m.runId ? [m.runId] : [])))];
  return {
    conversationId: chat.messages.length ? conversationOf(agentId) : null,
    messages,
    hasOlder: before.length > limit,
    runs: runIds.flatMap((id) => chat.runs.filter((r) => r.id === id).map((r) => ({ ...r }))),
    activeRun: chat.activeRun && { ...chat.activeRun },
  };
}

/** Adds a stored message to an agent's chat (no event). */
export function seedMessage(agentId: string, role: ChatMessage["role"], content: string, runId: string | null = null) {
  const chat = chatOf(agentId);
  const seq = chat.messages.length + 1;
  const message: ChatMessage = {
    id: `msg-${backend.nextId++}`,
    agentId,
    seq,
    role,
    content,
    runId,
    createdAt: tick(),
    superseded: false,
  };
  chat.messages.push(message);
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
  const chat = chatOf(agentId);
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
  emit("runChanged", { agentId, run: { ...run } });
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
  const chat = chatOf(agentId);
  const run = chat.activeRun ?? notFound("Active run");
  const message = reply !== null ? seedMessage(agentId, "assistant", reply, run.id) : null;
  const done = { ...run, status, error, errorCode: codeOf(status, code), finishedAt: tick() };
  chat.runs = chat.runs.map((r) => (r.id === run.id ? done : r));
  chat.activeRun = null;
  if (message) emitMessageAdded(agentId, message);
  emitRunChanged(agentId, done);
}

export const fakeChatApi = {
  chatHistoryPage: vi.fn(
    async (agentId: string, beforeSeq: number | null, limit: number): Promise<ChatPage> =>
      pageOf(agentId, beforeSeq, limit),
  ),
  /** Like the engine: stores, publishes the news, and returns it. */
  sendChatMessage: vi.fn(async (agentId: string, text: string): Promise<SendOutcome> => {
    if (text === "/reset" || text === "/new") {
      backend.deliveredFiles.delete(agentId);
      const notice = seedMessage(agentId, "notice", RESET_NOTICE);
      emitMessageAdded(agentId, notice);
      return { message: { ...notice }, run: null };
    }
    // Like the engine: a file over a budget that applies refuses the run before anything is stored.
    const agent = backend.agents.find((a) => a.id === agentId) ?? notFound("Agent");
    const delivered = backend.deliveredFiles.get(agentId) ?? new Map<FileName, string>();
    const plan = planTurn(agent, agentFiles(agentId), delivered);
    if (plan.refusal) throw new ClawbooError("context_too_large", plan.refusal);
    const message = seedMessage(agentId, "user", text);
    const run = seedRun(agentId);
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
        ? [...backend.chats.entries()].find(([agentId]) => conversationOf(agentId) === id)?.[1].messages.slice(-1)[0]?.seq
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
  runActivity: vi.fn(async (runId: string): Promise<RunEventRecord[]> => [...(backend.runRecords.get(runId) ?? [])]),
} satisfies SomeCommandFakes;

/** As the engine: the user's last standing message and what came after it are superseded, and
 *  the same message (or `text`) is sent again as a new one. */
function replaceLast(messageId: string, text: string | null): SendOutcome {
  const [agentId, chat] = [...backend.chats.entries()].find(([, c]) => c.messages.some((m) => m.id === messageId)) ??
    notFound(`Message ${messageId}`);
  const standing = chat.messages.filter((m) => !m.superseded);
  const last = [...standing].reverse().find((m) => m.role === "user");
  if (!last || last.id !== messageId) {
    throw new ClawbooError("conflict", "Only your last message can be retried or edited, and this one no longer is.");
  }
  const replaced = standing.filter((m) => m.seq >= last.seq && m.role !== "notice");
  for (const m of replaced) m.superseded = true;
  emit("chatMessagesSuperseded", { agentId, messageIds: replaced.map((m) => m.id) });
  const message = seedMessage(agentId, "user", text ?? last.content);
  const run = seedRun(agentId);
  emitMessageAdded(agentId, message);
  emitRunChanged(agentId, run);
  return { message: { ...message }, run: { ...run } };
}

/** As the engine counts them: replies after each thread's read mark. */
export function unreadThreads(): UnreadThread[] {
  const out: UnreadThread[] = [];
  for (const [agentId, chat] of backend.chats) {
    const id = conversationOf(agentId);
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
