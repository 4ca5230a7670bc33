// The fake backend's state (agents, files, keys, runtimes, chats, teams, rooms), shared by its parts.
import { ClawbooError } from "../errors";
import type {
  Access,
  Agent,
  AgentFile,
  AppInfo,
  ChatMessage,
  ChatSummary,
  ChatRunContext,
  GatewayHealth,
  Provider,
  ProviderStatus,
  RunEventRecord,
  RunSummary,
  RuntimeInfo,
  RuntimeKind,
  SandboxInfo,
  Team,
  PeerPost,
  RelayedRequest,
  RoomMessage,
  RunContext,
} from "../bindings";

export type FileName = AgentFile["name"];

export const FILE_NAMES: FileName[] = [
  "SOUL.md",
  "AGENTS.md",
  "IDENTITY.md",
  "USER.md",
  "MEMORY.md",
  "BOOTSTRAP.md",
  "HEARTBEAT.md",
];

export type FakeChat = {
  messages: ChatMessage[];
  runs: RunSummary[];
  activeRun: RunSummary | null;
  /** How it is listed (id, title, pin, archive); `deleted`: gone until restored. */
  summary: ChatSummary;
  deleted: boolean;
};

export function initialRuntimes(): RuntimeInfo[] {
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

export function initialState() {
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
    /** The links' health a test seeds (agents on a Gateway the user runs) */
    gatewayHealths: [] as GatewayHealth[],
    runtimes: initialRuntimes(),
    access: initialAccess(),
    /** agentId -> its first chat (id `chat-<agentId>`) */
    chats: new Map<string, FakeChat>(),
    /** chatId -> the chats made after the first (New chat, /new) */
    moreChats: new Map<string, FakeChat>(),
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
    /** "chat:<conversationId>" or "room:<roomId>" -> the seq read up to */
    readMarks: new Map<string, number>(),
    nextId: 1,
  };
}

export const backend = initialState();

export function notFound(what: string): never {
  throw new ClawbooError("not_found", `${what} not found`);
}

let clock = 1_000;

/** The fake's clock: each thing stored is a tick later than the one before (never reset). */
export const tick = () => clock++;

/** The clock without moving it. */
export const currentTick = () => clock;
