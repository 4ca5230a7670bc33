// An in-memory stand-in for the backend: `fakeApi` holds a fake for every command (typed by
// commandFakes.ts, so none can be missing), `fakeApiModule` replaces ../api in a test:
//   vi.mock("../api", async () => (await import("./fakeApi")).fakeApiModule);
import { vi } from "vitest";
import type { CommandArgs, CommandName } from "../api";
import type { CommandFakes } from "./commandFakes";
import { emit, fakeListen, resetEvents } from "./fakeEvents";
import { ClawbooError } from "../errors";
import { fakeMemoryApi, resetMemory } from "./fakeMemory";
import { fakeBoardApi, resetBoard } from "./fakeBoard";
import { fakeLocalApi, resetLocalApi } from "./fakeLocalApi";
import { fakeAttentionApi, resetAttention } from "./fakeAttention";
import { fakeBooZeroApi, resetBooZero } from "./fakeBooZero";
import { fakeRoutinesApi, resetRoutines } from "./fakeRoutines";
import { fakeConnectorsApi } from "./fakeConnectors";
import { fakeOnboardingApi, resetOnboarding } from "./fakeOnboarding";
import { planTurn, routesOf } from "./fakeFileRoutes";
import type {
  Access,
  Agent,
  AgentFile,
  AgentFileInfo,
  AgentPatch,
  AppInfo,
  ChatMessage,
  ChatPage,
  ChatRunContext,
  FileRouteInfo,
  NewAgent,
  OpenclawGateway,
  OpenclawGatewayInput,
  Provider,
  ProviderStatus,
  RunEvent,
  RunEventRecord,
  RunStatus,
  RunSummary,
  RuntimeAccess,
  RuntimeInfo,
  RuntimeKind,
  SandboxInfo,
  SandboxSettings,
  SendOutcome,
  NewRoom,
  NewTeam,
  Room,
  RoomPatch,
  Team,
  TeamRule,
  PeerPage,
  PeerPost,
  RelayedRequest,
  RoomMessage,
  RoomPage,
  RunContext,
  TeamSendOutcome,
} from "../bindings";

type FileName = AgentFile["name"];

export const FILE_NAMES: FileName[] = [
  "SOUL.md",
  "AGENTS.md",
  "IDENTITY.md",
  "USER.md",
  "MEMORY.md",
  "BOOTSTRAP.md",
  "HEARTBEAT.md",
];

type FakeChat = { messages: ChatMessage[]; runs: RunSummary[]; activeRun: RunSummary | null };

export const RESET_NOTICE = "Conversation reset. The agent starts fresh.";

function initialRuntimes(): RuntimeInfo[] {
  const row = (kind: RuntimeKind, label: string, found: boolean, installHint: string): RuntimeInfo => ({
    kind,
    label,
    found,
    path: found ? `/usr/local/bin/${kind}` : null,
    version: found ? "1.0.0" : null,
    customPath: null,
    installHint,
    problem: null,
  });
  return [
    row("claude-code", "Claude Code", true, "npm install -g @anthropic-ai/claude-code"),
    row("codex", "Codex", false, "npm install -g @openai/codex"),
  ];
}

/** Claude Code: a sign-in found, no Anthropic key. Codex: an OpenAI key, no sign-in. */
function initialAccess(): { kind: RuntimeKind; choice: Access | null; signInFound: boolean; place: string }[] {
  return [
    { kind: "claude-code", choice: null, signInFound: true, place: "~/.claude/.credentials.json" },
    { kind: "codex", choice: null, signInFound: false, place: "~/.codex/auth.json" },
  ];
}

/** The engine's rule: the choice, else the key when set, else the sign-in when found. */
function accessStatuses(): RuntimeAccess[] {
  return backend.access.map(({ kind, choice, signInFound, place }) => {
    const keyProvider: Provider = kind === "codex" ? "openai" : "anthropic";
    const keySet = backend.providers.find((p) => p.provider === keyProvider)?.keySet ?? false;
    const label = kind === "codex" ? "Codex" : "Claude Code";
    const wanted = choice ?? (keySet ? "api_key" : "own_sign_in");
    const available = wanted === "api_key" ? keySet : signInFound;
    return {
      kind,
      label,
      choice,
      effective: available ? wanted : null,
      keyProvider,
      keySet,
      signInFound,
      signInPlace: place,
      problem: available ? null : `${label} has no API key in Clawboo and no sign-in was found in ${place}.`,
    };
  });
}

const providerRow = (id: Provider, label: string, keySet: boolean, defaultBaseUrl: string | null): ProviderStatus => ({
  provider: id,
  label,
  keySet,
  baseUrl: defaultBaseUrl,
  defaultBaseUrl,
});

/** As the engine's SUGGESTED_HOSTS. */
export const SUGGESTED_HOSTS = [
  "registry.npmjs.org",
  "pypi.org",
  "files.pythonhosted.org",
  "crates.io",
  "static.crates.io",
  "index.crates.io",
  "github.com",
  "codeload.github.com",
  "objects.githubusercontent.com",
  "docs.rs",
  "developer.mozilla.org",
];

/** As the engine's validate_hosts: lower-case names, optionally `*.` in front; no scheme, path or port. */
function validSandbox(sandbox: SandboxSettings): SandboxSettings {
  const hosts: string[] = [];
  for (const raw of sandbox.allowedHosts) {
    const host = raw.trim().replace(/\.$/, "").toLowerCase();
    if (!host) continue;
    const bare = host.startsWith("*.") ? host.slice(2) : host;
    const valid = bare !== "" && bare.split(".").every((l) => /^[a-z0-9][a-z0-9-]{0,62}$/.test(l));
    if (!valid) {
      throw new ClawbooError(
        "invalid_input",
        `“${raw.trim()}” is not a host name; write it like registry.npmjs.org or *.example.com (no https://, path or port).`,
      );
    }
    if (!hosts.includes(host)) hosts.push(host);
  }
  return { ...sandbox, allowedHosts: hosts };
}

function initialState() {
  return {
    appInfo: { version: "0.1.0", dataDir: "/home/test/.clawboo", personaBudget: 4000 } as AppInfo,
    sandboxInfo: { supported: true, os: "linux", suggestedHosts: [...SUGGESTED_HOSTS] } as SandboxInfo,
    agents: [] as Agent[],
    /** agentId -> file name -> content */
    files: new Map<string, Map<FileName, string>>(),
    providers: [
      providerRow("anthropic", "Anthropic", false, "https://api.anthropic.com"),
      providerRow("openai", "OpenAI", true, "https://api.openai.com/v1"),
      providerRow("openrouter", "OpenRouter", false, "https://openrouter.ai/api/v1"),
      providerRow("custom", "Custom (OpenAI-compatible)", false, null),
    ],
    keys: new Map<Provider, string>(),
    /** agentId -> the Gateway token kept "in the keychain" */
    gatewayTokens: new Map<string, string>(),
    runtimes: initialRuntimes(),
    access: initialAccess(),
    /** agentId -> chat */
    chats: new Map<string, FakeChat>(),
    /** runId -> what a one-to-one run was given */
    chatRunContexts: new Map<string, ChatRunContext>(),
    /** agentId -> file -> hash of the references its chat session holds (cleared by /reset) */
    deliveredFiles: new Map<string, Map<FileName, string>>(),
    /** runId -> everything the run emitted, for runActivity() */
    runRecords: new Map<string, RunEventRecord[]>(),
    teams: [] as Team[],
    /** roomId -> its messages, oldest first */
    roomMessages: new Map<string, RoomMessage[]>(),
    roomRuns: new Map<string, RunSummary[]>(),
    peerPosts: new Map<string, PeerPost[]>(),
    runContexts: new Map<string, RunContext>(),
    runRequests: new Map<string, RelayedRequest[]>(),
    nextId: 1,
  };
}

export const backend = initialState();

function notFound(what: string): never {
  throw new ClawbooError("not_found", `${what} not found`);
}

function agentFiles(agentId: string): Map<FileName, string> {
  return backend.files.get(agentId) ?? notFound("Agent");
}

/** Adds an agent with the standard files; `files` overrides their contents. */
export function seedAgent(
  partial: Partial<Agent> & { handle: string },
  files: Partial<Record<FileName, string>> = {},
): Agent {
  const id = partial.id ?? `agent-${backend.nextId++}`;
  const agent: Agent = {
    id,
    name: partial.name ?? partial.handle,
    description: "",
    tint: "#7c5cff",
    runtime: "claude-code",
    model: "claude-sonnet-4-5",
    approvalPolicy: "ask",
    provider: null,
    openclawGatewayUrl: null,
    sandbox: { confined: true, network: "clawboo_only", allowedHosts: [] },
    createdAt: 1,
    updatedAt: 1,
    ...partial,
  };
  backend.agents.push(agent);
  backend.files.set(id, new Map(FILE_NAMES.map((n) => [n, files[n] ?? `# ${n}\n`])));
  return agent;
}

/** Simulates an edit made outside the app, followed by the backend's change event. */
export function editOnDisk(agentId: string, name: FileName, content: string) {
  agentFiles(agentId).set(name, content);
  emitFileChanged(agentId, name);
}

export function emitFileChanged(agentId: string, name: FileName) {
  emit("agentFileChanged", { agentId, name });
}

const isFileName = (name: string): name is FileName => (FILE_NAMES as string[]).includes(name);

function checkedName(name: string): FileName {
  if (!isFileName(name)) throw new ClawbooError("forbidden_file_name", `${name} is not an agent file`);
  return name;
}

const fileOf = (agentId: string, name: string): AgentFile => {
  const fileName = checkedName(name);
  const content = agentFiles(agentId).get(fileName) ?? notFound(name);
  return { name: fileName, content, modifiedAt: Date.now() };
};

function chatOf(agentId: string): FakeChat {
  let chat = backend.chats.get(agentId);
  if (!chat) backend.chats.set(agentId, (chat = { messages: [], runs: [], activeRun: null }));
  return chat;
}

/** As the engine pages: up to `limit` messages before `beforeSeq`, the runs they refer to. */
function pageOf(agentId: string, beforeSeq: number | null, limit: number): ChatPage {
  const chat = chatOf(agentId);
  const before = chat.messages.filter((m) => beforeSeq === null || m.seq < beforeSeq);
  const messages = before.slice(Math.max(0, before.length - limit)).map((m) => ({ ...m }));
  const runIds = [...new Set(messages.flatMap((m) => (m.runId ? [m.runId] : [])))];
  return {
    messages,
    hasOlder: before.length > limit,
    runs: runIds.flatMap((id) => chat.runs.filter((r) => r.id === id).map((r) => ({ ...r }))),
    activeRun: chat.activeRun && { ...chat.activeRun },
  };
}

let clock = 1_000;

/** Adds a stored message to an agent's chat (no event). */
export function seedMessage(agentId: string, role: ChatMessage["role"], content: string, runId: string | null = null) {
  const chat = chatOf(agentId);
  const seq = chat.messages.length + 1;
  const message: ChatMessage = { id: `msg-${backend.nextId++}`, agentId, seq, role, content, runId, createdAt: clock++ };
  chat.messages.push(message);
  return message;
}

/** Starts a run for the agent, as a send would (no event); the last user message without a run is its. */
export function seedRun(agentId: string, status: RunStatus = "running", error: string | null = null): RunSummary {
  const running = status === "running";
  const run: RunSummary = {
    id: `run-${backend.nextId++}`,
    agentId,
    runtime: "claude-code",
    status,
    error,
    startedAt: clock++,
    finishedAt: running ? null : clock++,
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
    createdAt: clock++,
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
export function recordRunEvent(runId: string, event: RunEvent, at = clock++): RunEventRecord {
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
export function finishRun(agentId: string, status: RunStatus, reply: string | null, error: string | null = null) {
  const chat = chatOf(agentId);
  const run = chat.activeRun ?? notFound("Active run");
  const message = reply !== null ? seedMessage(agentId, "assistant", reply, run.id) : null;
  const done = { ...run, status, error, finishedAt: clock++ };
  chat.runs = chat.runs.map((r) => (r.id === run.id ? done : r));
  chat.activeRun = null;
  if (message) emitMessageAdded(agentId, message);
  emitRunChanged(agentId, done);
}

// Teams, with the engine's rules (src-tauri/engine/src/teams): the messages tests look for match.
const RULES_BUDGET = 4_000;
const chars = (text: string) => [...text].length;
const invalid = (message: string): never => {
  throw new ClawbooError("invalid_input", message);
};

function teamOf(id: string): Team {
  return backend.teams.find((t) => t.id === id) ?? notFound("Team");
}

/** The engine's effective leaders: stored if still a member, else the first. */
function settle(team: Team) {
  const ids = team.members.map((m) => m.agentId);
  if (!team.leaderId || !ids.includes(team.leaderId)) team.leaderId = ids[0] ?? null;
  for (const room of team.rooms) {
    if (room.isGeneral) {
      room.memberIds = ids;
      room.leaderId = team.leaderId;
    } else {
      room.memberIds = room.memberIds.filter((m) => ids.includes(m));
      if (!room.leaderId || !room.memberIds.includes(room.leaderId)) room.leaderId = room.memberIds[0] ?? null;
    }
  }
  team.updatedAt = clock++;
}

const cloneTeam = (t: Team): Team => ({
  ...t,
  members: t.members.map((m) => ({ ...m })),
  rules: t.rules.map((r) => ({ ...r })),
  rooms: t.rooms.map((r) => ({ ...r, memberIds: [...r.memberIds] })),
});

function emitTeamsChanged() {
  emit("teamsChanged", null);
}

/** Adds a team (with its General room) straight to the backend (no event). */
export function seedTeam(partial: Partial<Team> & { name: string; memberIds: string[] }): Team {
  const id = partial.id ?? `team-${backend.nextId++}`;
  const { memberIds, ...rest } = partial;
  const team: Team = {
    id,
    brief: "",
    aboutYou: "",
    projectFolder: null,
    leaderId: null,
    archived: false,
    rules: [],
    createdAt: clock,
    updatedAt: clock,
    ...rest,
    members: memberIds.map((agentId) => ({ agentId, role: "" })),
    rooms: [{ id: `room-${backend.nextId++}`, teamId: id, name: "General", isGeneral: true, leaderId: null, memberIds: [] }],
  };
  settle(team);
  backend.teams.push(team);
  return cloneTeam(team);
}

function changeTeam(id: string, edit: (team: Team) => void): Team {
  const team = teamOf(id);
  edit(team);
  settle(team);
  setTimeout(emitTeamsChanged, 0);
  return cloneTeam(team);
}

function checkName(name: string, what: string): string {
  const trimmed = name.trim();
  if (!trimmed) invalid(`A ${what} needs a name.`);
  if (chars(trimmed) > 80) invalid(`A ${what}'s name has at most 80 characters; this one has ${chars(trimmed)}.`);
  return trimmed;
}

export const fakeApi = {
  appInfo: vi.fn(async (): Promise<AppInfo> => backend.appInfo),
  reportInteractive: vi.fn(async (): Promise<void> => {}),
  listAgents: vi.fn(async (): Promise<Agent[]> => backend.agents.map((a) => ({ ...a }))),
  createAgent: vi.fn(async (input: NewAgent): Promise<Agent> => {
    if (backend.agents.some((a) => a.handle === input.handle)) {
      throw new ClawbooError("duplicate_handle", `The handle @${input.handle} is already taken.`);
    }
    return seedAgent(input);
  }),
  updateAgent: vi.fn(async (id: string, patch: AgentPatch): Promise<Agent> => {
    const agent = backend.agents.find((a) => a.id === id) ?? notFound("Agent");
    const checked = patch.sandbox ? { ...patch, sandbox: validSandbox(patch.sandbox) } : patch;
    for (const [key, value] of Object.entries(checked)) {
      if (value !== null && value !== undefined) (agent as Record<string, unknown>)[key] = value;
    }
    return { ...agent };
  }),
  deleteAgent: vi.fn(async (id: string): Promise<null> => {
    backend.agents = backend.agents.filter((a) => a.id !== id);
    backend.files.delete(id);
    backend.gatewayTokens.delete(id);
    return null;
  }),
  listAgentFiles: vi.fn(async (agentId: string): Promise<AgentFileInfo[]> =>
    [...agentFiles(agentId)].map(([name, content]) => ({ name, size: content.length, modifiedAt: 1 })),
  ),
  readAgentFile: vi.fn(async (agentId: string, name: string): Promise<AgentFile> => fileOf(agentId, name)),
  writeAgentFile: vi.fn(async (agentId: string, name: string, content: string): Promise<AgentFile> => {
    const fileName = checkedName(name);
    agentFiles(agentId).set(fileName, content);
    // Like the real backend: the watcher reports the app's own write too.
    setTimeout(() => emitFileChanged(agentId, fileName), 0);
    return fileOf(agentId, fileName);
  }),
  getOpenclawGateway: vi.fn(async (agentId: string): Promise<OpenclawGateway> => {
    const agent = backend.agents.find((a) => a.id === agentId) ?? notFound("Agent");
    return { url: agent.openclawGatewayUrl, tokenSet: backend.gatewayTokens.has(agentId) };
  }),
  setOpenclawGateway: vi.fn(async (agentId: string, input: OpenclawGatewayInput): Promise<OpenclawGateway> => {
    const agent = backend.agents.find((a) => a.id === agentId) ?? notFound("Agent");
    if (!input.url) {
      backend.gatewayTokens.delete(agentId);
      agent.openclawGatewayUrl = null;
      return { url: null, tokenSet: false };
    }
    // Like the engine: plain ws:// only to this machine (the real check also allows private networks).
    if (!/^wss:\/\/|^ws:\/\/(127\.|localhost)/.test(input.url)) {
      throw new ClawbooError("invalid_input", "ws:// to that host would send the token unencrypted. Use wss://.");
    }
    if (!input.token && !backend.gatewayTokens.has(agentId)) {
      throw new ClawbooError("invalid_input", "Enter the Gateway's token.");
    }
    if (input.token) backend.gatewayTokens.set(agentId, input.token);
    agent.openclawGatewayUrl = input.url.replace(/\/$/, "");
    return { url: agent.openclawGatewayUrl, tokenSet: true };
  }),
  listProviders: vi.fn(async (): Promise<ProviderStatus[]> => backend.providers.map((p) => ({ ...p }))),
  setApiKey: vi.fn(async (provider: Provider, key: string): Promise<null> => {
    backend.keys.set(provider, key);
    backend.providers = backend.providers.map((p) => (p.provider === provider ? { ...p, keySet: true } : p));
    return null;
  }),
  deleteApiKey: vi.fn(async (provider: Provider): Promise<null> => {
    backend.keys.delete(provider);
    backend.providers = backend.providers.map((p) => (p.provider === provider ? { ...p, keySet: false } : p));
    return null;
  }),
  setBaseUrl: vi.fn(async (provider: Provider, url: string | null): Promise<null> => {
    backend.providers = backend.providers.map((p) =>
      p.provider === provider ? { ...p, baseUrl: url ?? p.defaultBaseUrl } : p,
    );
    return null;
  }),
  listRuntimes: vi.fn(async (): Promise<RuntimeInfo[]> => backend.runtimes.map((r) => ({ ...r }))),
  setRuntimePath: vi.fn(async (kind: RuntimeKind, path: string | null): Promise<RuntimeInfo> => {
    const before = backend.runtimes.find((r) => r.kind === kind) ?? notFound("Runtime");
    const after: RuntimeInfo = path
      ? { ...before, customPath: path, path, found: true, version: "2.0.0" }
      : { ...initialRuntimes().find((r) => r.kind === kind)!, customPath: null };
    backend.runtimes = backend.runtimes.map((r) => (r.kind === kind ? after : r));
    return { ...after };
  }),
  listRuntimeAccess: vi.fn(async (): Promise<RuntimeAccess[]> => accessStatuses()),
  sandboxInfo: vi.fn(async (): Promise<SandboxInfo> => ({ ...backend.sandboxInfo })),
  setRuntimeAccess: vi.fn(async (kind: RuntimeKind, access: Access | null): Promise<RuntimeAccess[]> => {
    backend.access = backend.access.map((a) => (a.kind === kind ? { ...a, choice: access } : a));
    return accessStatuses();
  }),
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
  chatRunContext: vi.fn(
    async (runId: string): Promise<ChatRunContext> =>
      backend.chatRunContexts.get(runId) ?? notFound(`What run ${runId} was given`),
  ),
  agentFileRoutes: vi.fn(async (agentId: string): Promise<FileRouteInfo[]> =>
    routesOf(backend.agents.find((a) => a.id === agentId) ?? notFound("Agent")),
  ),
  cancelRun: vi.fn(async (_runId: string): Promise<null> => null),
  runActivity: vi.fn(async (runId: string): Promise<RunEventRecord[]> => [...(backend.runRecords.get(runId) ?? [])]),
  listTeams: vi.fn(async (): Promise<Team[]> =>
    backend.teams.map(cloneTeam).sort((a, b) => a.name.localeCompare(b.name)),
  ),
  getTeam: vi.fn(async (id: string): Promise<Team> => cloneTeam(teamOf(id))),
  createTeam: vi.fn(async (input: NewTeam): Promise<Team> => {
    const name = checkName(input.name, "team");
    if (input.memberIds.length === 0) invalid("A team needs at least one member.");
    if (input.leaderId && !input.memberIds.includes(input.leaderId)) invalid("The leader must be a member.");
    const team = seedTeam({ name, memberIds: input.memberIds, leaderId: input.leaderId });
    setTimeout(emitTeamsChanged, 0);
    return team;
  }),
  renameTeam: vi.fn(async (id: string, name: string): Promise<Team> => {
    const checked = checkName(name, "team");
    return changeTeam(id, (t) => void (t.name = checked));
  }),
  setTeamArchived: vi.fn(async (id: string, archived: boolean) => changeTeam(id, (t) => void (t.archived = archived))),
  deleteTeam: vi.fn(async (id: string): Promise<null> => {
    teamOf(id);
    backend.teams = backend.teams.filter((t) => t.id !== id);
    setTimeout(emitTeamsChanged, 0);
    return null;
  }),
  setTeamMembers: vi.fn(async (id: string, memberIds: string[]): Promise<Team> => {
    if (memberIds.length === 0) invalid("A team needs at least one member.");
    return changeTeam(id, (t) => {
      const roles = new Map(t.members.map((m) => [m.agentId, m.role]));
      t.members = memberIds.map((agentId) => ({ agentId, role: roles.get(agentId) ?? "" }));
    });
  }),
  setTeamLeader: vi.fn(async (id: string, agentId: string): Promise<Team> => {
    if (!teamOf(id).members.some((m) => m.agentId === agentId)) invalid("Not a member of this team.");
    return changeTeam(id, (t) => void (t.leaderId = agentId));
  }),
  setMemberRole: vi.fn(async (id: string, agentId: string, role: string) =>
    changeTeam(id, (t) => {
      const member = t.members.find((m) => m.agentId === agentId) ?? invalid("Not a member of this team.");
      member.role = role.trim();
    }),
  ),
  addTeamRule: vi.fn(async (id: string, text: string): Promise<TeamRule> => {
    const team = teamOf(id);
    const trimmed = text.trim();
    if (!trimmed) invalid("A rule needs some text.");
    const total = team.rules.reduce((n, r) => n + chars(r.text), 0) + chars(trimmed);
    if (total > RULES_BUDGET) {
      invalid(
        `Team rules have at most 4,000 characters in all; with this one they would have ${total.toLocaleString("en-US")}. Shorten or remove a rule.`,
      );
    }
    const rule = { id: `rule-${backend.nextId++}`, text: trimmed, createdAt: clock++ };
    changeTeam(id, (t) => void t.rules.push(rule));
    return { ...rule };
  }),
  removeTeamRule: vi.fn(async (id: string, ruleId: string) =>
    changeTeam(id, (t) => void (t.rules = t.rules.filter((r) => r.id !== ruleId))),
  ),
  setTeamBrief: vi.fn(async (id: string, text: string) => changeTeam(id, (t) => void (t.brief = text.trim()))),
  setTeamProjectFolder: vi.fn(async (id: string, folder: string | null): Promise<Team> => {
    if (folder !== null && !folder.startsWith("/")) invalid("A project folder is a full path, like /home/me/code/shop.");
    return changeTeam(id, (t) => void (t.projectFolder = folder));
  }),
  setAboutYou: vi.fn(async (id: string, text: string): Promise<Team> => {
    if (chars(text.trim()) > 4_000) invalid("About you has at most 4,000 characters.");
    return changeTeam(id, (t) => void (t.aboutYou = text.trim()));
  }),
  createRoom: vi.fn(async (teamId: string, input: NewRoom): Promise<Room> => {
    const team = teamOf(teamId);
    const name = checkName(input.name, "room");
    if (name.toLowerCase() === "general") invalid("“General” is the room with the whole team; choose another name.");
    if (team.rooms.some((r) => r.name.toLowerCase() === name.toLowerCase())) {
      invalid(`This team already has a room called “${name}”.`);
    }
    if (input.memberIds.length === 0) invalid("A room needs at least one member.");
    const room: Room = {
      id: `room-${backend.nextId++}`,
      teamId,
      name,
      isGeneral: false,
      leaderId: input.leaderId,
      memberIds: [...input.memberIds],
    };
    changeTeam(teamId, (t) => void t.rooms.push(room));
    return { ...room, memberIds: [...room.memberIds] };
  }),
  updateRoom: vi.fn(async (roomId: string, patch: RoomPatch): Promise<Room> => {
    const team = backend.teams.find((t) => t.rooms.some((r) => r.id === roomId)) ?? notFound("Room");
    const room = team.rooms.find((r) => r.id === roomId)!;
    if (room.isGeneral && (patch.name || patch.memberIds || patch.leaderId)) invalid("The General room cannot be renamed.");
    changeTeam(team.id, () => {
      if (patch.name) room.name = checkName(patch.name, "room");
      if (patch.memberIds) room.memberIds = [...patch.memberIds];
      if (patch.leaderId) room.leaderId = patch.leaderId;
    });
    return { ...room, memberIds: [...room.memberIds] };
  }),
  deleteRoom: vi.fn(async (roomId: string): Promise<null> => {
    const team = backend.teams.find((t) => t.rooms.some((r) => r.id === roomId)) ?? notFound("Room");
    if (team.rooms.find((r) => r.id === roomId)!.isGeneral) invalid("The General room cannot be deleted.");
    changeTeam(team.id, (t) => void (t.rooms = t.rooms.filter((r) => r.id !== roomId)));
    return null;
  }),
  sendTeamMessage: vi.fn(async (roomId: string, text: string): Promise<TeamSendOutcome> => {
    if (!text.trim()) invalid("The message is empty.");
    return { message: seedRoomMessage(roomId, { kind: "user", content: text.trim() }), addressed: [] };
  }),
  stopTeam: vi.fn(async (): Promise<null> => null),
  roomPage: vi.fn(async (roomId: string, beforeSeq: number | null, limit: number): Promise<RoomPage> => {
    const all = (backend.roomMessages.get(roomId) ?? []).filter((m) => beforeSeq === null || m.seq < beforeSeq);
    const messages = all.slice(-limit);
    const ids = new Set(messages.map((m) => m.runId));
    const runs = (backend.roomRuns.get(roomId) ?? []).filter((r) => ids.has(r.id));
    return { messages, hasOlder: all.length > messages.length, runs };
  }),
  roomRuns: vi.fn(async (roomId: string): Promise<RunSummary[]> => backend.roomRuns.get(roomId) ?? []),
  peerPosts: vi.fn(async (teamId: string): Promise<PeerPage> => ({
    posts: backend.peerPosts.get(teamId) ?? [],
    hasOlder: false,
  })),
  runContext: vi.fn(async (runId: string): Promise<RunContext> => backend.runContexts.get(runId) ?? notFound("Run context")),
  runRequests: vi.fn(async (runId: string): Promise<RelayedRequest[]> => backend.runRequests.get(runId) ?? []),
  ...fakeMemoryApi,
  ...fakeBoardApi,
  ...fakeAttentionApi,
  ...fakeLocalApi,
  ...fakeBooZeroApi,
  ...fakeRoutinesApi,
  ...fakeConnectorsApi,
  ...fakeOnboardingApi,
} satisfies CommandFakes;

/** What replaces ../api in a test: `call` runs the command's fake, `listen` the fake events. */
const commandFakes: CommandFakes = fakeApi;

export const fakeApiModule = {
  call: <K extends CommandName>(name: K, ...args: CommandArgs<K>) => commandFakes[name](...args),
  listen: fakeListen,
  appVersion: vi.fn(async () => "0.1.0"),
};

/** A message in a room, as the engine would have stored it. */
export function seedRoomMessage(roomId: string, message: Partial<RoomMessage> & Pick<RoomMessage, "kind" | "content">) {
  const list = backend.roomMessages.get(roomId) ?? [];
  const stored: RoomMessage = {
    id: `rm-${backend.nextId++}`,
    roomId,
    seq: list.length + 1,
    authorId: null,
    targetId: null,
    runId: null,
    handoffId: null,
    createdAt: clock++,
    ...message,
  };
  list.push(stored);
  backend.roomMessages.set(roomId, list);
  return stored;
}

export function emitRoomMessage(teamId: string, message: RoomMessage) {
  emit("roomMessageAdded", { teamId, message });
}

/** Fresh state and cleared call records; call in beforeEach. */
export function resetBackend() {
  Object.assign(backend, initialState());
  resetMemory();
  resetBoard();
  resetAttention();
  resetLocalApi();
  resetBooZero();
  resetRoutines();
  resetOnboarding();
  resetEvents();
  Object.values(fakeApi).forEach((fn) => fn.mockClear());
}
