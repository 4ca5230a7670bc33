// The engine's file routes and budgets (src-tauri/context/src/files.rs), for the fake
// backend: where each agent file goes for a runtime, and what a one-to-one run carried. Pure.
import type { Agent, AgentFile, FileDelivery, FileRoute, FileRouteInfo, FileStatus, RuntimeKind } from "../bindings";

type FileName = AgentFile["name"];

/** Each file's budget where Clawboo sends it (`budget`). */
export const FILE_BUDGETS: Record<FileName, number> = {
  "SOUL.md": 4_000,
  "AGENTS.md": 16_000,
  "IDENTITY.md": 2_000,
  "USER.md": 2_000,
  "MEMORY.md": 8_000,
  "BOOTSTRAP.md": 8_000,
  "HEARTBEAT.md": 4_000,
};

/** The limit a runtime that reads AGENTS.md itself holds it to (`runtime_limit`): Codex's
 *  project-doc limit, Hermes' context-file and OpenClaw's bootstrap-file cut. */
export const RUNTIME_LIMITS: Partial<Record<RuntimeKind, number>> = { codex: 64_000, hermes: 20_000, openclaw: 20_000 };

/** The budget `file` is held to on `route` for `runtime` (`budget_on`): AGENTS.md the runtime
 *  reads itself, to the runtime's own limit; everything else, to Clawboo's budget. */
export function budgetOn(runtime: RuntimeKind, file: FileName, route: FileRoute): number {
  const own = file === "AGENTS.md" && route === "workspace" ? RUNTIME_LIMITS[runtime] : undefined;
  return own ?? FILE_BUDGETS[file];
}

const ALL = Object.keys(FILE_BUDGETS) as FileName[];
const PERSONA: FileName[] = ["SOUL.md", "IDENTITY.md", "USER.md"];

/** As the engine routes for a one-to-one chat in the agent's folder with the memory tools on
 *  (Claude Code's CLAUDE.md imports @AGENTS.md, as Clawboo writes it). */
export function routeOf(agent: Agent, file: FileName): FileRoute {
  if (agent.runtime === "openclaw" && agent.openclawGatewayUrl) return "not_sent";
  const openclaw = agent.runtime === "openclaw";
  if (PERSONA.includes(file)) return openclaw ? "workspace" : "instructions";
  if (file === "AGENTS.md") return agent.runtime === "native" ? "instructions" : "workspace";
  if (file === "MEMORY.md") return "memory_pointer";
  if (file === "BOOTSTRAP.md") return "reference";
  return "heartbeat";
}

/** The engine's words, as `route_label` has them. */
const INSTRUCTIONS: Record<RuntimeKind, string> = {
  "claude-code": "sent as instructions every turn (appended to Claude Code's system prompt)",
  codex: "sent as developer instructions each session; a change starts a fresh one",
  hermes: "sent as instructions each session (Hermes' SOUL.md); a change branches the session",
  native: "sent as instructions in the system prompt of every request",
  openclaw: "sent as instructions once per session, with the message",
};
const WORKSPACE: Record<RuntimeKind, string> = {
  codex: "read by Codex from the workspace (its own AGENTS.md discovery)",
  "claude-code": "read by Claude Code from the workspace (its CLAUDE.md imports @AGENTS.md)",
  hermes: "read by Hermes from the workspace",
  openclaw: "read by OpenClaw from its workspace copy",
  native: "read from the workspace",
};
const OTHER: Record<Exclude<FileRoute, "instructions" | "workspace">, string> = {
  reference: "sent with the message on a new session, and again when it changes",
  memory_pointer: "pointer only: memory tools on (memory_get / memory_search)",
  heartbeat: "sent on heartbeat runs only",
  not_sent: "not sent: this agent's own OpenClaw Gateway keeps its own files",
};

export function routeLabel(runtime: RuntimeKind, route: FileRoute): string {
  if (route === "instructions") return INSTRUCTIONS[runtime];
  if (route === "workspace") return WORKSPACE[runtime];
  return OTHER[route];
}

const budgetApplies = (runtime: RuntimeKind, file: FileName, route: FileRoute) =>
  route !== "memory_pointer" && route !== "not_sent" && budgetOn(runtime, file, route) === FILE_BUDGETS[file];

export function routesOf(agent: Agent): FileRouteInfo[] {
  return ALL.map((file) => {
    const route = routeOf(agent, file);
    const budget = budgetOn(agent.runtime, file, route);
    return { file, route, routeLabel: routeLabel(agent.runtime, route), budget, budgetApplies: budgetApplies(agent.runtime, file, route) };
  });
}

/** FNV-1a, 32 bits, hex: the fake's stand-in for the engine's content hash. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

const chars = (text: string) => [...text.trim()].length;

/**
 * What a one-to-one turn carries: each file's delivery, or the engine's refusal (naming every
 * file over a budget that applies). `delivered`: file -> hash the session already holds.
 */
export function planTurn(
  agent: Agent,
  texts: Map<FileName, string>,
  delivered: Map<FileName, string>,
): { files: FileDelivery[]; refusal: string | null } {
  const files = ALL.map((file): FileDelivery => {
    const text = texts.get(file) ?? "";
    const route = routeOf(agent, file);
    const h = hash(text);
    const status: FileStatus =
      route === "not_sent"
        ? "not_sent"
        : route === "heartbeat"
          ? "not_this_run"
          : !text.trim()
            ? "empty"
            : route === "workspace"
              ? "read_by_runtime"
              : route === "reference" && delivered.get(file) === h
                ? "already_delivered"
                : "sent";
    const budget = budgetOn(agent.runtime, file, route);
    const count = chars(text);
    // Over the runtime's own limit: the runtime's doing, never a refusal (the engine's words).
    const note =
      status === "read_by_runtime" && budget !== FILE_BUDGETS[file] && count > budget
        ? ownLimitNote(agent.runtime, file, count, budget)
        : null;
    return { file, route, routeLabel: routeLabel(agent.runtime, route), status, chars: count, budget, hash: h, note };
  });
  const over = files.filter(
    (f) =>
      ["sent", "read_by_runtime", "already_delivered"].includes(f.status) &&
      budgetApplies(agent.runtime, f.file, f.route) &&
      f.chars > f.budget &&
      f.note === null,
  );
  const count = (n: number) => n.toLocaleString("en-US");
  const refusal = over.length
    ? `${over
        .map((f) => `${f.file} has ${count(f.chars)} characters, over its budget of ${count(f.budget)} (${f.routeLabel})`)
        .join("; ")}. Shorten it in the agent's Details > Agent Files; nothing was sent.`
    : null;
  return { files, refusal };
}

const RUNTIME_LABELS: Record<RuntimeKind, string> = {
  "claude-code": "Claude Code",
  codex: "Codex",
  hermes: "Hermes",
  native: "Native",
  openclaw: "OpenClaw",
};

/** `past_own_limit`'s line. */
function ownLimitNote(runtime: RuntimeKind, file: FileName, chars: number, limit: number): string {
  const label = RUNTIME_LABELS[runtime];
  const count = (n: number) => n.toLocaleString("en-US");
  const what =
    runtime === "hermes"
      ? `${label} reads its start and end and leaves out the middle`
      : runtime === "openclaw"
        ? `${label} reads its first ${count(limit)} characters`
        : `${label} reads it itself and may leave out what is past its limit`;
  return (
    `${file} has ${count(chars)} characters, over ${label}'s own limit of ${count(limit)}: the run went on, and ` +
    `${what} (Clawboo cuts nothing). Shorten it to have it read whole.`
  );
}

const ROUTE_FOR_STATUS: Record<FileStatus, FileRoute> = {
  sent: "instructions",
  read_by_runtime: "workspace",
  already_delivered: "reference",
  empty: "reference",
  unedited: "reference",
  not_this_run: "heartbeat",
  not_sent: "not_sent",
};

/** All seven files as a stored run context lists them; each "sent" unless `statuses` says. */
export function sampleDeliveries(
  statuses: Partial<Record<FileName, FileStatus>> = {},
  runtime: RuntimeKind = "codex",
): FileDelivery[] {
  return ALL.map((file) => {
    const status = statuses[file] ?? "sent";
    const route = ROUTE_FOR_STATUS[status];
    const chars = status === "empty" ? 0 : 120;
    const budget = budgetOn(runtime, file, route);
    return { file, route, routeLabel: routeLabel(runtime, route), status, chars, budget, hash: "0", note: null };
  });
}
