// The connectors part of the fake API, with the engine's rules and messages where the view's
// tests look at them (src-tauri/tools/src/connectors). Secrets are kept apart from the rows, as
// the keychain keeps them: a connector as listed shows only whether each is set.
import { vi } from "vitest";
import type { SomeCommandFakes } from "./commandFakes";
import { emit } from "./fakeEvents";
import { ClawbooError } from "../errors";
import type { Connector, ConnectorInput, SuggestedConnector } from "../bindings";

function initialConnectors() {
  return {
    rows: [] as Connector[],
    /** `<connector id>:<key>` → value: the fake keychain. */
    secrets: new Map<string, string>(),
    nextId: 1,
  };
}

export const connectors = initialConnectors();

export function resetConnectors() {
  Object.assign(connectors, initialConnectors());
}

const SUGGESTED: SuggestedConnector[] = [
  { name: "github", description: "Issues, pull requests and code on GitHub" },
  { name: "filesystem", description: "Read and write files in folders you choose" },
];

const copy = (c: Connector): Connector => ({
  ...c,
  args: [...c.args],
  sharedWith: [...c.sharedWith],
  entries: c.entries.map((e) => ({ ...e, isSet: !e.secret || connectors.secrets.has(`${c.id}:${e.key}`) })),
});

function rowOf(id: string): Connector {
  const row = connectors.rows.find((c) => c.id === id);
  if (!row) throw new ClawbooError("not_found", "That connector no longer exists.");
  return row;
}

function checked(input: ConnectorInput, id: string | null) {
  if (!/^[a-z0-9][a-z0-9_-]{0,39}$/.test(input.name) || input.name.startsWith("clawboo")) {
    throw new ClawbooError("invalid_input", `"${input.name}" cannot be a connector's name.`);
  }
  if (connectors.rows.some((c) => c.name === input.name && c.id !== id)) {
    throw new ClawbooError("conflict", `A connector named "${input.name}" already exists.`);
  }
  if (input.kind === "stdio" && !input.command?.trim()) {
    throw new ClawbooError("invalid_input", "Enter the command that starts the MCP server.");
  }
}

function apply(row: Connector, input: ConnectorInput) {
  for (const e of input.entries ?? []) {
    if (e.secret && e.value !== null) connectors.secrets.set(`${row.id}:${e.key}`, e.value);
  }
  Object.assign(row, {
    name: input.name,
    kind: input.kind,
    command: input.command ?? "",
    args: input.args ?? [],
    url: input.url ?? "",
    enabled: input.enabled,
    entries: (input.entries ?? []).map((e) => ({
      key: e.key,
      value: e.secret ? null : e.value,
      secret: e.secret,
      isSet: true,
    })),
    updatedAt: Date.now(),
  });
}

function changed() {
  setTimeout(() => emit("connectorsChanged", null), 0);
}

/** A connector as if the user had added it. */
export function seedConnector(input: Partial<ConnectorInput> & { name: string }, sharedWith: string[] = []): Connector {
  const row: Connector = {
    id: `con-${connectors.nextId++}`,
    name: input.name,
    kind: "stdio",
    command: "",
    args: [],
    url: "",
    entries: [],
    enabled: true,
    sharedWith,
    createdAt: Date.now(),
    updatedAt: Date.now(),
  };
  apply(row, { kind: "stdio", command: "npx", args: [], url: "", entries: [], enabled: true, ...input });
  connectors.rows.push(row);
  return copy(row);
}

export const fakeConnectorsApi = {
  listConnectors: vi.fn(async (): Promise<Connector[]> =>
    connectors.rows.map(copy).sort((a, b) => a.name.localeCompare(b.name)),
  ),
  suggestedConnectors: vi.fn(async (): Promise<SuggestedConnector[]> => SUGGESTED),
  createConnector: vi.fn(async (input: ConnectorInput): Promise<Connector> => {
    checked(input, null);
    const made = seedConnector(input);
    changed();
    return made;
  }),
  updateConnector: vi.fn(async (id: string, input: ConnectorInput): Promise<Connector> => {
    const row = rowOf(id);
    checked(input, id);
    apply(row, input);
    changed();
    return copy(row);
  }),
  deleteConnector: vi.fn(async (id: string): Promise<null> => {
    rowOf(id);
    connectors.rows = connectors.rows.filter((c) => c.id !== id);
    changed();
    return null;
  }),
  setConnectorShares: vi.fn(async (id: string, agentIds: string[]): Promise<Connector> => {
    const row = rowOf(id);
    row.sharedWith = [...new Set(agentIds)].sort();
    changed();
    return copy(row);
  }),
  shareConnector: vi.fn(async (id: string, agentId: string, shared: boolean): Promise<Connector> => {
    const row = rowOf(id);
    row.sharedWith = shared
      ? [...new Set([...row.sharedWith, agentId])].sort()
      : row.sharedWith.filter((a) => a !== agentId);
    changed();
    return copy(row);
  }),
  setConnectorSecret: vi.fn(async (id: string, key: string, value: string): Promise<Connector> => {
    connectors.secrets.set(`${rowOf(id).id}:${key}`, value);
    changed();
    return copy(rowOf(id));
  }),
  clearConnectorSecret: vi.fn(async (id: string, key: string): Promise<Connector> => {
    connectors.secrets.delete(`${rowOf(id).id}:${key}`);
    changed();
    return copy(rowOf(id));
  }),
} satisfies SomeCommandFakes;
