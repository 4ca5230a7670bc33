// An in-memory stand-in for ./api, used with `vi.mock("../api", ...)`.
import { vi } from "vitest";
import { ClawbooError } from "../errors";
import type {
  Agent,
  AgentFile,
  AgentFileChanged,
  AgentFileInfo,
  AgentPatch,
  AppInfo,
  NewAgent,
  Provider,
  ProviderStatus,
} from "../api";

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

type FileListener = (change: AgentFileChanged) => void;

function initialState() {
  return {
    appInfo: { version: "0.1.0", dataDir: "/home/test/.clawboo", personaBudget: 4000 } as AppInfo,
    agents: [] as Agent[],
    /** agentId -> file name -> content */
    files: new Map<string, Map<FileName, string>>(),
    providers: [
      { provider: "anthropic", label: "Anthropic", keySet: false, baseUrl: null },
      { provider: "openai", label: "OpenAI", keySet: true, baseUrl: null },
      { provider: "openrouter", label: "OpenRouter", keySet: false, baseUrl: null },
      { provider: "custom", label: "Custom (OpenAI-compatible)", keySet: false, baseUrl: null },
    ] as ProviderStatus[],
    keys: new Map<Provider, string>(),
    fileListeners: new Set<FileListener>(),
    agentListeners: new Set<() => void>(),
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
  backend.fileListeners.forEach((cb) => cb({ agentId, name }));
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

export const fakeApi = {
  appInfo: vi.fn(async (): Promise<AppInfo> => backend.appInfo),
  listAgents: vi.fn(async (): Promise<Agent[]> => backend.agents.map((a) => ({ ...a }))),
  createAgent: vi.fn(async (input: NewAgent): Promise<Agent> => {
    if (backend.agents.some((a) => a.handle === input.handle)) {
      throw new ClawbooError("duplicate_handle", `The handle @${input.handle} is already taken.`);
    }
    return seedAgent(input);
  }),
  updateAgent: vi.fn(async (id: string, patch: AgentPatch): Promise<Agent> => {
    const agent = backend.agents.find((a) => a.id === id) ?? notFound("Agent");
    for (const [key, value] of Object.entries(patch)) {
      if (value !== null) (agent as Record<string, unknown>)[key] = value;
    }
    return { ...agent };
  }),
  deleteAgent: vi.fn(async (id: string): Promise<null> => {
    backend.agents = backend.agents.filter((a) => a.id !== id);
    backend.files.delete(id);
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
  setCustomBaseUrl: vi.fn(async (url: string): Promise<null> => {
    backend.providers = backend.providers.map((p) => (p.provider === "custom" ? { ...p, baseUrl: url } : p));
    return null;
  }),
  onAgentsChanged: vi.fn(async (cb: () => void) => {
    backend.agentListeners.add(cb);
    return () => void backend.agentListeners.delete(cb);
  }),
  onAgentFileChanged: vi.fn(async (cb: FileListener) => {
    backend.fileListeners.add(cb);
    return () => void backend.fileListeners.delete(cb);
  }),
};

/** Fresh state and cleared call records; call in beforeEach. */
export function resetBackend() {
  Object.assign(backend, initialState());
  Object.values(fakeApi).forEach((fn) => fn.mockClear());
}
