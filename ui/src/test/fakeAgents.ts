// The agents part of the fake API: agents, their files and OpenClaw Gateway, API keys, runtimes and
// their access, and the sandbox.
import { vi } from "vitest";
import { ClawbooError } from "../errors";
import type { SomeCommandFakes } from "./commandFakes";
import { emit } from "./fakeEvents";
import { backend, notFound, initialRuntimes, FILE_NAMES, type FileName } from "./fakeState";
import type {
  Access,
  Agent,
  AgentFile,
  AgentFileInfo,
  AgentPatch,
  AppInfo,
  NewAgent,
  OpenclawGateway,
  OpenclawGatewayInput,
  GatewayHealth,
  Provider,
  ProviderStatus,
  RuntimeAccess,
  RuntimeInfo,
  RuntimeKind,
  SandboxInfo,
  SandboxSettings,
} from "../bindings";

/** The engine's rule: the choice, else the key when set, else the sign-in when found. */
function accessStatuses(): RuntimeAccess[] {
  return backend.access.map(({ kind, choice, signInFound, place }) => {
    // Hermes: a key for any of its providers counts, the first one set is shown.
    const candidates: Provider[] =
      kind === "hermes" ? ["openai", "openrouter", "custom"] : [kind === "codex" ? "openai" : "anthropic"];
    const keyed = candidates.find((c) => backend.providers.find((p) => p.provider === c)?.keySet);
    const keyProvider: Provider = keyed ?? candidates[0];
    const keySet = keyed !== undefined;
    const label = kind === "codex" ? "Codex" : kind === "hermes" ? "Hermes" : "Claude Code";
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

export function agentFiles(agentId: string): Map<FileName, string> {
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

export const fakeAgentsApi = {
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
  gatewayHealths: vi.fn(async (): Promise<GatewayHealth[]> => backend.gatewayHealths.map((h) => ({ ...h }))),
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
} satisfies SomeCommandFakes;
