// The only module that talks to the Tauri backend. Components and hooks go
// through here so tests can replace it with `vi.mock("./api")`.
import { commands, events } from "./bindings";
import type {
  Access,
  Agent,
  AgentFile,
  AgentFileChanged,
  AgentFileInfo,
  AgentPatch,
  AppError,
  AppInfo,
  ChatMessageAdded,
  ChatPage,
  NewAgent,
  OpenclawGateway,
  OpenclawGatewayInput,
  Provider,
  ProviderStatus,
  RunChanged,
  RunEventEmitted,
  RunEventRecord,
  RuntimeAccess,
  RuntimeInfo,
  RuntimeKind,
  SendOutcome,
} from "./bindings";
import { toClawbooError } from "./errors";

export type {
  Access,
  Agent,
  AgentFile,
  AgentFileChanged,
  AgentFileInfo,
  AgentPatch,
  AppError,
  AppInfo,
  ApprovalPolicy,
  ChatMessage,
  ChatMessageAdded,
  ChatPage,
  ChatRole,
  ErrorCode,
  Value as JsonValue,
  NewAgent,
  OpenclawGateway,
  OpenclawGatewayInput,
  Provider,
  ProviderStatus,
  RunChanged,
  RunEvent,
  RunEventEmitted,
  RunEventRecord,
  RunOutcome,
  RunStatus,
  RunSummary,
  RuntimeAccess,
  RuntimeInfo,
  RuntimeKind,
  SendOutcome,
} from "./bindings";

export type Unlisten = () => void;

type CommandResult<T> = { status: "ok"; data: T } | { status: "error"; error: AppError };

/** Resolves with the command's data or throws a ClawbooError. */
async function unwrap<T>(call: () => Promise<CommandResult<T>>): Promise<T> {
  let result: CommandResult<T>;
  try {
    result = await call();
  } catch (e) {
    throw toClawbooError(e);
  }
  if (result.status === "ok") return result.data;
  throw toClawbooError(result.error);
}

export const appInfo = (): Promise<AppInfo> => unwrap(() => commands.appInfo());

export const listAgents = (): Promise<Agent[]> => unwrap(() => commands.listAgents());

export const createAgent = (input: NewAgent): Promise<Agent> =>
  unwrap(() => commands.createAgent(input));

export const updateAgent = (id: string, patch: AgentPatch): Promise<Agent> =>
  unwrap(() => commands.updateAgent(id, patch));

export const deleteAgent = (id: string): Promise<null> => unwrap(() => commands.deleteAgent(id));

export const listAgentFiles = (agentId: string): Promise<AgentFileInfo[]> =>
  unwrap(() => commands.listAgentFiles(agentId));

export const readAgentFile = (agentId: string, name: string): Promise<AgentFile> =>
  unwrap(() => commands.readAgentFile(agentId, name));

export const writeAgentFile = (agentId: string, name: string, content: string): Promise<AgentFile> =>
  unwrap(() => commands.writeAgentFile(agentId, name, content));

/** Which Gateway an OpenClaw agent uses: its URL and whether a token is saved (never the token). */
export const getOpenclawGateway = (agentId: string): Promise<OpenclawGateway> =>
  unwrap(() => commands.getOpenclawGateway(agentId));

/** `url: null` goes back to a Gateway Clawboo starts; `token: null` keeps the saved token. */
export const setOpenclawGateway = (agentId: string, input: OpenclawGatewayInput): Promise<OpenclawGateway> =>
  unwrap(() => commands.setOpenclawGateway(agentId, input));

export const listProviders = (): Promise<ProviderStatus[]> =>
  unwrap(() => commands.listProviders());

export const setApiKey = (provider: Provider, key: string): Promise<null> =>
  unwrap(() => commands.setApiKey(provider, key));

export const deleteApiKey = (provider: Provider): Promise<null> =>
  unwrap(() => commands.deleteApiKey(provider));

/** `null` goes back to the provider's default endpoint. */
export const setBaseUrl = (provider: Provider, url: string | null): Promise<null> =>
  unwrap(() => commands.setBaseUrl(provider, url));

export const listRuntimes = (): Promise<RuntimeInfo[]> => unwrap(() => commands.listRuntimes());

/** `null` goes back to automatic detection. */
export const setRuntimePath = (kind: RuntimeKind, path: string | null): Promise<RuntimeInfo> =>
  unwrap(() => commands.setRuntimePath(kind, path));

/** What Claude Code and Codex use to reach their models: the user's own sign-in or a key. */
export const listRuntimeAccess = (): Promise<RuntimeAccess[]> => unwrap(() => commands.listRuntimeAccess());

/** `null` goes back to automatic (the key when one is stored, else the sign-in). */
export const setRuntimeAccess = (kind: RuntimeKind, access: Access | null): Promise<RuntimeAccess[]> =>
  unwrap(() => commands.setRuntimeAccess(kind, access));

/** Up to `limit` messages before `beforeSeq` (the newest when null), oldest first. */
export const chatHistoryPage = (agentId: string, beforeSeq: number | null, limit: number): Promise<ChatPage> =>
  unwrap(() => commands.chatHistoryPage(agentId, beforeSeq, limit));

export const sendChatMessage = (agentId: string, text: string): Promise<SendOutcome> =>
  unwrap(() => commands.sendChatMessage(agentId, text));

export const cancelRun = (runId: string): Promise<null> => unwrap(() => commands.cancelRun(runId));

export const answerPermission = (runId: string, requestId: string, allow: boolean): Promise<null> =>
  unwrap(() => commands.answerPermission(runId, requestId, allow));

/** Everything a run has emitted so far, in `seq` order. */
export const runActivity = (runId: string): Promise<RunEventRecord[]> =>
  unwrap(() => commands.runActivity(runId));

/** The agent list changed (created, updated or deleted, from anywhere). */
export function onAgentsChanged(cb: () => void): Promise<Unlisten> {
  return events.agentsChanged.listen(() => cb());
}

/** A file in an agent's folder changed on disk (also after the app's own save). */
export function onAgentFileChanged(cb: (change: AgentFileChanged) => void): Promise<Unlisten> {
  return events.agentFileChanged.listen((event) => cb(event.payload));
}

/** A message was stored in an agent's chat (the user's, a reply, a notice). */
export function onChatMessageAdded(cb: (added: ChatMessageAdded) => void): Promise<Unlisten> {
  return events.chatMessageAdded.listen((event) => cb(event.payload));
}

/** A run of an agent's chat started or ended. */
export function onRunChanged(cb: (changed: RunChanged) => void): Promise<Unlisten> {
  return events.runChanged.listen((event) => cb(event.payload));
}

/** One event of a run, as it happens. Arrives at high rates while a run streams. */
export function onRunEvent(cb: (emitted: RunEventEmitted) => void): Promise<Unlisten> {
  return events.runEventEmitted.listen((event) => cb(event.payload));
}
