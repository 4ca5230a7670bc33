// The only module that talks to the Tauri backend. Components and hooks go
// through here so tests can replace it with `vi.mock("./api")`.
import { commands, events } from "./bindings";
import type {
  Access,
  BooZeroInfo,
  Agent,
  AgentFile,
  AgentFileChanged,
  AgentFileInfo,
  AgentPatch,
  AppError,
  AppInfo,
  ChatMessageAdded,
  ChatPage,
  ChatRunContext,
  FileRouteInfo,
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
  SandboxInfo,
  SendOutcome,
  TeamSendOutcome,
  RoomPage,
  RunSummary,
  PeerPage,
  RunContext,
  RelayedRequest,
  RoomMessageAdded,
  RoomRunChanged,
  PeerPostAdded,
  NewRoom,
  NewTeam,
  Room,
  RoomPatch,
  Team,
  TeamRule,
  Fact,
  FactDetail,
  FactEdit,
  FactFilter,
  FactInput,
  Promotion,
  Saved,
  SavedNote,
  ScratchNote,
  ScratchScope,
  SearchResult,
  Activity,
  BoardColumn,
  Card,
  CardDetail,
  CardDiff,
  CardEdit,
  CardFilter,
  CardRun,
  CardStatus,
  Comment,
  NewCard,
  RunnerSettings,
  TaskRunContext,
  TaskStart,
  TaskTrace,
  AttentionChanged,
  AttentionRequest,
  AttentionSettings,
  AuditEntry,
  Decision,
  Grant,
  KeptInTray,
  OpenAttention,
  TrayState,
  UserAnswer,
  Viewing,
  LocalApiStatus,
  OnboardingState,
  StarterProposal,
  StarterTeamInput,
} from "./bindings";
import { getVersion } from "@tauri-apps/api/app";
import { toClawbooError } from "./errors";

export type {
  MissingRuntime,
  OnboardingState,
  StarterMember,
  StarterProposal,
  StarterRole,
  StarterTeamInput,
  Access,
  BooZeroInfo,
  ContextSection,
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
  ChatRunContext,
  ErrorCode,
  FileDelivery,
  FileRoute,
  FileRouteInfo,
  FileStatus,
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
  SandboxInfo,
  SandboxSettings,
  NetworkAccess,
  SendOutcome,
  TeamSendOutcome,
  RoomMessage,
  RoomMessageKind,
  RoomPage,
  PeerPage,
  PeerPost,
  RunContext,
  Section,
  SectionKind,
  RelayedRequest,
  RoomMessageAdded,
  RoomRunChanged,
  PeerPostAdded,
  NewRoom,
  NewTeam,
  Room,
  RoomPatch,
  Team,
  TeamMember,
  TeamRule,
  Author,
  Citation,
  Fact,
  FactChange,
  FactDetail,
  FactEdit,
  FactFilter,
  FactInput,
  FactVersion,
  Promotion,
  PromotionStatus,
  Saved,
  SavedNote,
  Scope,
  ScratchNote,
  ScratchScope,
  SearchHit,
  SearchResult,
  Activity,
  ActivityKind,
  Actor,
  BoardColumn,
  Card,
  CardDetail,
  CardEdit,
  CardFilter,
  CardOrigin,
  CardRun,
  CardRunKind,
  CardRunStatus,
  CardStatus,
  Comment,
  CommentKind,
  NewCard,
  Priority,
  RunnerSettings,
  TaskRunContext,
  TaskStart,
  TaskTrace,
  CardDiff,
  AttentionChanged,
  AttentionRequest,
  AttentionSettings,
  AuditAction,
  AuditEntry,
  Decision,
  Grant,
  KeptInTray,
  OpenAttention,
  Origin,
  RequestKind,
  RequestStatus,
  TrayItem,
  TrayState,
  UserAnswer,
  Viewing,
  LocalApiStatus,
  LogLevel,
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

/** Tells the shell the first interactive screen is up: a start-up measurement, nothing else. */
export const reportInteractive = (): Promise<void> => commands.reportInteractive();

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

/** Exactly what a one-to-one run was given: its instruction slot, the text in front of the
 *  message, and where each agent file went. */
export const chatRunContext = (runId: string): Promise<ChatRunContext> =>
  unwrap(() => commands.chatRunContext(runId));

/** Boo Zero: its agent id, its rules and the global brief (sent to no agent). */
export const booZero = (): Promise<BooZeroInfo> => unwrap(() => commands.booZero());
export const setBooZeroRules = (text: string | null): Promise<BooZeroInfo> =>
  unwrap(() => commands.setBooZeroRules(text));
export const setGlobalBrief = (text: string): Promise<BooZeroInfo> => unwrap(() => commands.setGlobalBrief(text));

/** How each of the agent's files reaches its runtime, with its budget (the editor's meter). */
export const agentFileRoutes = (agentId: string): Promise<FileRouteInfo[]> =>
  unwrap(() => commands.agentFileRoutes(agentId));

export const cancelRun = (runId: string): Promise<null> => unwrap(() => commands.cancelRun(runId));

/** Answers a runtime's permission question in a run's timeline; the same approval the Inbox shows. */
export const answerPermission = (runId: string, requestId: string, decision: Decision): Promise<AttentionRequest> =>
  unwrap(() => commands.answerPermission(runId, requestId, decision));

/** Everything a run has emitted so far, in `seq` order. */
export const runActivity = (runId: string): Promise<RunEventRecord[]> =>
  unwrap(() => commands.runActivity(runId));

/** Every team, archived ones included, by name. */
export const listTeams = (): Promise<Team[]> => unwrap(() => commands.listTeams());

export const getTeam = (id: string): Promise<Team> => unwrap(() => commands.getTeam(id));

/** A team with its General room; the leader defaults to the first member. */
export const createTeam = (input: NewTeam): Promise<Team> => unwrap(() => commands.createTeam(input));

export const renameTeam = (id: string, name: string): Promise<Team> => unwrap(() => commands.renameTeam(id, name));

export const setTeamArchived = (id: string, archived: boolean): Promise<Team> =>
  unwrap(() => commands.setTeamArchived(id, archived));

export const deleteTeam = (id: string): Promise<null> => unwrap(() => commands.deleteTeam(id));

/** Replaces the members, in order; rooms lose agents who left the team. */
export const setTeamMembers = (id: string, memberIds: string[]): Promise<Team> =>
  unwrap(() => commands.setTeamMembers(id, memberIds));

export const setTeamLeader = (id: string, agentId: string): Promise<Team> =>
  unwrap(() => commands.setTeamLeader(id, agentId));

export const setMemberRole = (id: string, agentId: string, role: string): Promise<Team> =>
  unwrap(() => commands.setMemberRole(id, agentId, role));

/** Refused (invalid_input) when all rules together would pass 4,000 characters. */
export const addTeamRule = (id: string, text: string): Promise<TeamRule> =>
  unwrap(() => commands.addTeamRule(id, text));

export const removeTeamRule = (id: string, ruleId: string): Promise<Team> =>
  unwrap(() => commands.removeTeamRule(id, ruleId));

export const setTeamBrief = (id: string, text: string): Promise<Team> =>
  unwrap(() => commands.setTeamBrief(id, text));

export const setAboutYou = (id: string, text: string): Promise<Team> => unwrap(() => commands.setAboutYou(id, text));

/** Where runs of the team's cards work when a card names no folder (a full path; null clears it). */
export const setTeamProjectFolder = (id: string, folder: string | null): Promise<Team> =>
  unwrap(() => commands.setTeamProjectFolder(id, folder));

export const createRoom = (teamId: string, input: NewRoom): Promise<Room> =>
  unwrap(() => commands.createRoom(teamId, input));

/** The General room cannot be renamed or re-membered. */
export const updateRoom = (roomId: string, patch: RoomPatch): Promise<Room> =>
  unwrap(() => commands.updateRoom(roomId, patch));

export const deleteRoom = (roomId: string): Promise<null> => unwrap(() => commands.deleteRoom(roomId));

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

// ---- Team chat ----

/** Stores the message and starts (or queues) the runs it addresses; replies arrive as events. */
export const sendTeamMessage = (roomId: string, text: string): Promise<TeamSendOutcome> =>
  unwrap(() => commands.sendTeamMessage(roomId, text));

/** Ends every run of the team and drops its queued work. */
export const stopTeam = (teamId: string): Promise<null> => unwrap(() => commands.stopTeam(teamId));

/** Up to `limit` messages before `beforeSeq` (the newest when null), oldest first. */
export const roomPage = (roomId: string, beforeSeq: number | null, limit: number): Promise<RoomPage> =>
  unwrap(() => commands.roomPage(roomId, beforeSeq, limit));

export const roomRuns = (roomId: string, limit: number): Promise<RunSummary[]> =>
  unwrap(() => commands.roomRuns(roomId, limit));

export const peerPosts = (teamId: string, beforeSeq: number | null, limit: number): Promise<PeerPage> =>
  unwrap(() => commands.peerPosts(teamId, beforeSeq, limit));

/** Exactly what a team run was given. */
export const runContext = (runId: string): Promise<RunContext> => unwrap(() => commands.runContext(runId));

/** The request bodies a run's model received through the relay. */
export const runRequests = (runId: string): Promise<RelayedRequest[]> =>
  unwrap(() => commands.runRequests(runId));

export function onRoomMessageAdded(cb: (added: RoomMessageAdded) => void): Promise<Unlisten> {
  return events.roomMessageAdded.listen((event) => cb(event.payload));
}

export function onRoomRunChanged(cb: (changed: RoomRunChanged) => void): Promise<Unlisten> {
  return events.roomRunChanged.listen((event) => cb(event.payload));
}

export function onPeerPostAdded(cb: (added: PeerPostAdded) => void): Promise<Unlisten> {
  return events.peerPostAdded.listen((event) => cb(event.payload));
}

/** A team, its members, rules, brief, About you or rooms changed (or one was created or deleted). */
export function onTeamsChanged(cb: () => void): Promise<Unlisten> {
  return events.teamsChanged.listen(() => cb());
}

// ---- Memory ----

/** Facts matching the filter: newest first without a query, best first with one. */
export const memoryList = (filter: FactFilter): Promise<Fact[]> => unwrap(() => commands.memoryList(filter));

/** The top 10 facts for `query` in every scope, plus up to 2 related ones. */
export const memorySearch = (query: string): Promise<SearchResult> => unwrap(() => commands.memorySearch(query));

/** A fact with its versions (oldest first) and the runs it was given to (newest first). */
export const memoryDetail = (id: string): Promise<FactDetail> => unwrap(() => commands.memoryDetail(id));

/** Refused (invalid_input) for secret-looking or too long text; the same text in the same scope
 *  returns the existing fact (`existing: true`). */
export const memorySave = (input: FactInput): Promise<Saved> => unwrap(() => commands.memorySave(input));

export const memoryEdit = (id: string, edit: FactEdit): Promise<Fact> => unwrap(() => commands.memoryEdit(id, edit));

/** A soft delete: kept in the fact's history, restorable. */
export const memoryDelete = (id: string): Promise<Fact> => unwrap(() => commands.memoryDelete(id));

export const memoryRestore = (id: string): Promise<Fact> => unwrap(() => commands.memoryRestore(id));

/** An agent's newest saved notes (up to 50), newest first. */
export const memoryNotes = (agentId: string): Promise<SavedNote[]> => unwrap(() => commands.memoryNotes(agentId));

export const memoryDeleteNote = (id: string): Promise<null> => unwrap(() => commands.memoryDeleteNote(id));

export const scratchList = (scope: ScratchScope): Promise<ScratchNote[]> => unwrap(() => commands.scratchList(scope));

/** Every scratch note (team, global and session; up to 500), newest first. */
export const scratchAll = (): Promise<ScratchNote[]> => unwrap(() => commands.scratchAll());

/** Team and global scopes only: session notes are the agents' own. */
export const scratchAdd = (scope: ScratchScope, text: string): Promise<ScratchNote> =>
  unwrap(() => commands.scratchAdd(scope, text));

export const scratchEdit = (id: string, text: string): Promise<ScratchNote> =>
  unwrap(() => commands.scratchEdit(id, text));

export const scratchDelete = (id: string): Promise<null> => unwrap(() => commands.scratchDelete(id));

/** Pending promotions first, then the latest decided ones (up to 100). */
export const promotions = (): Promise<Promotion[]> => unwrap(() => commands.promotions());

/** Approving copies the note's exact text to the target scope. */
export const decidePromotion = (id: string, approve: boolean): Promise<Promotion> =>
  unwrap(() => commands.decidePromotion(id, approve));

/** A fact, saved note, scratch note or promotion changed. */
export function onMemoryChanged(cb: () => void): Promise<Unlisten> {
  return events.memoryChanged.listen(() => cb());
}

// ---- Board ----

/** The columns in order, each with the moves the engine allows from it. */
export const boardColumns = (): Promise<BoardColumn[]> => commands.boardColumns();

/** Cards matching the filter, in column order, then by position. */
export const boardList = (filter: CardFilter): Promise<Card[]> => unwrap(() => commands.boardList(filter));

/** A card with its comments and activity, oldest first. */
export const boardCard = (id: string): Promise<CardDetail> => unwrap(() => commands.boardCard(id));

export const boardCreate = (card: NewCard): Promise<Card> => unwrap(() => commands.boardCreate(card));

/** Changes the fields `edit` sets; `null` clears an optional one. */
export const boardEdit = (id: string, edit: CardEdit): Promise<Card> => unwrap(() => commands.boardEdit(id, edit));

/** Refused (invalid_input) when the table does not allow the move; Blocked needs a reason. */
export const boardMove = (id: string, to: CardStatus, reason: string | null, position: number | null): Promise<Card> =>
  unwrap(() => commands.boardMove(id, to, reason, position));

export const boardComment = (id: string, text: string): Promise<Comment> =>
  unwrap(() => commands.boardComment(id, text));

/** Refused while a run works on the card. */
export const boardDelete = (id: string): Promise<null> => unwrap(() => commands.boardDelete(id));

/** A card's runs, oldest first. */
export const boardRuns = (id: string): Promise<CardRun[]> => unwrap(() => commands.boardRuns(id));

/** What a card's runs changed in its git worktree (its branch's commits once it is Done). Refused
 *  (invalid_input) without a project folder in a git repository; not_found before its first run. */
export const boardRunDiff = (id: string): Promise<CardDiff> => unwrap(() => commands.boardRunDiff(id));

/** A card was created, changed or deleted. */
export function onBoardChanged(cb: () => void): Promise<Unlisten> {
  return events.boardChanged.listen(() => cb());
}

// ---- Task runner ----

/** Claims the card and runs it for its assignee (or queues it when the runs at once are all
 *  taken). Refused (conflict) when it is claimed already or waits for other cards. */
export const boardRunStart = (cardId: string, disableMemoryAutoInject: boolean): Promise<TaskStart> =>
  unwrap(() => commands.boardRunStart(cardId, disableMemoryAutoInject));

/** Stops the card's run; the card goes back to To do. */
export const boardRunCancel = (cardId: string): Promise<null> => unwrap(() => commands.boardRunCancel(cardId));

/** Exactly what a task run was given: its tiers, section by section, and the cited facts. */
export const boardRunContext = (runId: string): Promise<TaskRunContext> =>
  unwrap(() => commands.boardRunContext(runId));

export const runnerSettings = (): Promise<RunnerSettings> => unwrap(() => commands.runnerSettings());

export const runnerSetSettings = (settings: RunnerSettings): Promise<RunnerSettings> =>
  unwrap(() => commands.runnerSetSettings(settings));

/** Traces of the newest task runs (Settings > Observability), newest first. */
export const runnerTraces = (limit: number): Promise<TaskTrace[]> => unwrap(() => commands.runnerTraces(limit));

// ---- Attention: questions and approvals for the user ----

/** Open requests, newest first. */
export const attentionOpen = (): Promise<AttentionRequest[]> => unwrap(() => commands.attentionOpen());

/** Every request, newest first, `limit` at most, created before `before` (ms) when given. */
export const attentionHistory = (before: string | null, limit: number): Promise<AttentionRequest[]> =>
  unwrap(() => commands.attentionHistory(before, limit));

export const attentionGet = (id: string): Promise<AttentionRequest> => unwrap(() => commands.attentionGet(id));

/** Text for a question, a decision for an approval; refused (conflict) once it is no longer open. */
export const attentionAnswer = (id: string, answer: UserAnswer): Promise<AttentionRequest> =>
  unwrap(() => commands.attentionAnswer(id, answer));

/** The audit, newest first (of one request when `requestId` is given), older than `before` (seq). */
export const attentionAudit = (requestId: string | null, before: number | null, limit: number): Promise<AuditEntry[]> =>
  unwrap(() => commands.attentionAudit(requestId, before, limit));

/** Every "Allow always" in force. */
export const attentionGrants = (): Promise<Grant[]> => unwrap(() => commands.attentionGrants());

export const attentionRevokeGrant = (id: string): Promise<null> => unwrap(() => commands.attentionRevokeGrant(id));

export const attentionSettings = (): Promise<AttentionSettings> => unwrap(() => commands.attentionSettings());

/** Refused (invalid_input) outside 1 to 720 hours. */
export const attentionSetSettings = (settings: AttentionSettings): Promise<AttentionSettings> =>
  unwrap(() => commands.attentionSetSettings(settings));

/** What the window shows, so no notification is raised for it while the window has focus. */
export async function attentionViewing(viewing: Viewing | null): Promise<null> {
  try {
    await commands.attentionViewing(viewing);
    return null;
  } catch (e) {
    throw toClawbooError(e);
  }
}

/** What the tray shows: the count of open requests and the newest few. */
export const trayState = (): Promise<TrayState> => unwrap(() => commands.trayState());

/** A request was raised, answered, cleared, expired or withdrawn, or a grant or the expiry changed. */
export function onAttentionChanged(cb: (changed: AttentionChanged) => void): Promise<Unlisten> {
  return events.attentionChanged.listen((event) => cb(event.payload));
}

/** The user picked a request in the tray menu or clicked its notification. */
export function onOpenAttention(cb: (open: OpenAttention) => void): Promise<Unlisten> {
  return events.openAttention.listen((event) => cb(event.payload));
}

/** The window was hidden to the tray while agents work. */
export function onKeptInTray(cb: (kept: KeptInTray) => void): Promise<Unlisten> {
  return events.keptInTray.listen((event) => cb(event.payload));
}

// ---- Local API: scripts start runs over loopback HTTP ----

/** Whether the local API is on, its port and URL, and the port file scripts read. */
export const localApiStatus = (): Promise<LocalApiStatus> => unwrap(() => commands.localApiStatus());

/** On (listening at once) or off (stopped at once); kept across restarts. */
export const localApiSetEnabled = (enabled: boolean): Promise<LocalApiStatus> =>
  unwrap(() => commands.localApiSetEnabled(enabled));

/** The bearer token (from the keychain), only when the user asks to see or copy it. */
export const localApiToken = (): Promise<string> => unwrap(() => commands.localApiToken());

/** A new token; the old one stops working at once. */
export const localApiRegenerateToken = (): Promise<string> => unwrap(() => commands.localApiRegenerateToken());

// ---- Routines ----

export type {
  Preset,
  Routine,
  RoutineDetail,
  RoutineInput,
  RoutineOutcome,
  RoutineRun,
  RoutineState,
  RunTrigger,
  Schedule,
  SchedulePresets,
  SchedulePreview,
} from "./bindings";
import type { Routine, RoutineDetail, RoutineInput, RoutineRun, Schedule, SchedulePresets, SchedulePreview } from "./bindings";

/** Every routine, by name, each with its last run. */
export const routinesList = (): Promise<Routine[]> => unwrap(() => commands.routinesList());

/** A routine and its newest `limit` runs, newest first. */
export const routineGet = (id: string, limit: number): Promise<RoutineDetail> => unwrap(() => commands.routineGet(id, limit));

/** Refused with `invalid_schedule` (a bad cron, zone, interval, or a time passed) before saving. */
export const routineCreate = (input: RoutineInput): Promise<Routine> => unwrap(() => commands.routineCreate(input));

export const routineUpdate = (id: string, input: RoutineInput): Promise<Routine> =>
  unwrap(() => commands.routineUpdate(id, input));

export const routineDelete = (id: string): Promise<null> => unwrap(() => commands.routineDelete(id));

export const routinePause = (id: string): Promise<Routine> => unwrap(() => commands.routinePause(id));

/** From now: none of the runs missed while paused. */
export const routineResume = (id: string): Promise<Routine> => unwrap(() => commands.routineResume(id));

/** Refused (`conflict`) while its previous run is going. */
export const routineRunNow = (id: string): Promise<RoutineRun> => unwrap(() => commands.routineRunNow(id));

/** The schedule in words and its next 5 fire times, or why it is invalid. */
export const routinePreview = (schedule: Schedule): Promise<SchedulePreview> =>
  unwrap(() => commands.routinePreview(schedule));

export const routinePresets = (): Promise<SchedulePresets> => unwrap(() => commands.routinePresets());

/** A routine or one of its runs changed. */
export function onRoutinesChanged(cb: () => void): Promise<Unlisten> {
  return events.routinesChanged.listen(() => cb());
}

// ---- Connectors: MCP servers the user plugs in and shares with agents ----

export type {
  Connector,
  ConnectorEntry,
  ConnectorEntryInput,
  ConnectorInput,
  ConnectorKind,
  ConnectorsChanged,
  SuggestedConnector,
} from "./bindings";
import type { Connector, ConnectorInput, ConnectorsChanged, SuggestedConnector } from "./bindings";

/** Every connector, by name; secrets show only whether they are set. */
export const listConnectors = (): Promise<Connector[]> => unwrap(() => commands.listConnectors());

/** Well-known MCP servers the user could add. */
export const suggestedConnectors = (): Promise<SuggestedConnector[]> => commands.suggestedConnectors();

/** Refused: invalid_input (name, command, URL, entries), conflict (name taken). */
export const createConnector = (input: ConnectorInput): Promise<Connector> =>
  unwrap(() => commands.createConnector(input));

/** A secret sent without a value keeps the stored one. */
export const updateConnector = (id: string, input: ConnectorInput): Promise<Connector> =>
  unwrap(() => commands.updateConnector(id, input));

export const deleteConnector = (id: string): Promise<null> => unwrap(() => commands.deleteConnector(id));

/** Shares a connector with exactly these agents. */
export const setConnectorShares = (id: string, agentIds: string[]): Promise<Connector> =>
  unwrap(() => commands.setConnectorShares(id, agentIds));

/** Shares or unshares one connector with one agent. */
export const shareConnector = (id: string, agentId: string, shared: boolean): Promise<Connector> =>
  unwrap(() => commands.shareConnector(id, agentId, shared));

export const setConnectorSecret = (id: string, key: string, value: string): Promise<Connector> =>
  unwrap(() => commands.setConnectorSecret(id, key, value));

export const clearConnectorSecret = (id: string, key: string): Promise<Connector> =>
  unwrap(() => commands.clearConnectorSecret(id, key));

/** A connector was added, changed, shared or deleted. */
export function onConnectorsChanged(cb: (changed: ConnectorsChanged) => void): Promise<Unlisten> {
  return events.connectorsChanged.listen((event) => cb(event.payload));
}

// First run.
export const onboardingState = (): Promise<OnboardingState> => unwrap(() => commands.onboardingState());
export const starterTeamProposal = (): Promise<StarterProposal> => unwrap(() => commands.starterTeamProposal());
export const createStarterTeam = (input: StarterTeamInput): Promise<Team> =>
  unwrap(() => commands.createStarterTeam(input));
export const finishOnboarding = (): Promise<OnboardingState> => unwrap(() => commands.finishOnboarding());
/** One runtime looked for now (the first-run page shows each as its probe ends). */
export const runtimeInfo = (kind: RuntimeKind): Promise<RuntimeInfo> => unwrap(() => commands.runtimeInfo(kind));

/** Whether agents are sandboxed on this OS, and the hosts the profile suggests. */
export const sandboxInfo = async (): Promise<SandboxInfo> => {
  try {
    return await commands.sandboxInfo();
  } catch (e) {
    throw toClawbooError(e);
  }
};

/** The app's version from the shell itself: known even when the engine did not start. */
export const appVersion = (): Promise<string> => getVersion();

// --- The app's log -------------------------------------------------------------------------

import type { LogLevel } from "./bindings";

/** How much Clawboo logs (Settings > Log). */
export const logLevel = (): Promise<LogLevel> => unwrap(() => commands.logLevel());

/** Stores the level; the app logs at it from the next event on. */
export const setLogLevel = (level: LogLevel): Promise<LogLevel> => unwrap(() => commands.setLogLevel(level));

/** The log's last `lines` lines, oldest first (the engine keeps it to 50 lines and 16 KiB). */
export const recentLogLines = (lines: number): Promise<string[]> => unwrap(() => commands.recentLogLines(lines));
