// The engine's file routes and budgets (src-tauri/context/src/files.rs), for the fake
// backend: where each agent file goes for a runtime, and what a one-to-one run carried. Pure.
// The routes, their words and the budgets are what the engine itself produced
// (engineFileRoutes.json, written and checked by the engine's test
// `the_ui_fakes_file_routes_are_the_engines`), so the fake cannot drift from it.
import type { Agent, AgentFile, FileDelivery, FileRoute, FileRouteInfo, FileStatus, RuntimeKind } from "../bindings";
import engine from "./engineFileRoutes.json";

type FileName = AgentFile["name"];

/** Each file's budget where Clawboo sends it (`budget`). */
export const FILE_BUDGETS = engine.budgets as Record<FileName, number>;

/** The limit a runtime that reads AGENTS.md itself holds it to (`runtime_limit`). */
export const RUNTIME_LIMITS = engine.runtimeLimits as Record<RuntimeKind, number | null>;

const ROUTES = engine.routes as Record<RuntimeKind, FileRouteInfo[]>;
const OWN_GATEWAY_ROUTES = engine.ownGatewayRoutes as FileRouteInfo[];
const LABELS = engine.labels as Record<RuntimeKind, Record<FileRoute, string>>;

/** The budget `file` is held to on `route` for `runtime` (`budget_on`): AGENTS.md the runtime
 *  reads itself, to the runtime's own limit; everything else, to Clawboo's budget. */
export function budgetOn(runtime: RuntimeKind, file: FileName, route: FileRoute): number {
  const own = file === "AGENTS.md" && route === "workspace" ? RUNTIME_LIMITS[runtime] : null;
  return own ?? FILE_BUDGETS[file];
}

const ALL = ROUTES.native.map((r) => r.file);

/** The engine's routes for a one-to-one chat in the agent's folder with the memory tools on
 *  (an OpenClaw agent on the user's own Gateway: nothing sent). */
export function routesOf(agent: Agent): FileRouteInfo[] {
  return agent.runtime === "openclaw" && agent.openclawGatewayUrl ? OWN_GATEWAY_ROUTES : ROUTES[agent.runtime];
}

function routeInfo(agent: Agent, file: FileName): FileRouteInfo {
  return routesOf(agent).find((r) => r.file === file)!;
}

/** The engine's words, as `route_label` has them. */
export function routeLabel(runtime: RuntimeKind, route: FileRoute): string {
  return LABELS[runtime][route];
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
  const files = ALL.map((file): { delivery: FileDelivery; budgetApplies: boolean } => {
    const text = texts.get(file) ?? "";
    const { route, routeLabel: label, budget, budgetApplies } = routeInfo(agent, file);
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
    const count = chars(text);
    // Over the runtime's own limit: the runtime's doing, never a refusal (the engine's words).
    const note =
      status === "read_by_runtime" && budget !== FILE_BUDGETS[file] && count > budget
        ? ownLimitNote(agent.runtime, file, count, budget)
        : null;
    return { delivery: { file, route, routeLabel: label, status, chars: count, budget, hash: h, note }, budgetApplies };
  });
  const over = files
    .filter(
      ({ delivery: f, budgetApplies }) =>
        ["sent", "read_by_runtime", "already_delivered"].includes(f.status) &&
        budgetApplies &&
        f.chars > f.budget &&
        f.note === null,
    )
    .map(({ delivery }) => delivery);
  const count = (n: number) => n.toLocaleString("en-US");
  const refusal = over.length
    ? `${over
        .map((f) => `${f.file} has ${count(f.chars)} characters, over its budget of ${count(f.budget)} (${f.routeLabel})`)
        .join("; ")}. Shorten it in the agent's Details > Agent Files; nothing was sent.`
    : null;
  return { files: files.map(({ delivery }) => delivery), refusal };
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
    runtime === "hermes" || runtime === "openclaw"
      ? `${label} reads its start and end and leaves out the middle`
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
