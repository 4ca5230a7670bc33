// The spend part of the fake API: the Spend page's figures (seeded by a test), runs' spend, the
// price table with the user's prices over the bundled ones, and the CSV export's save dialog.
import { vi } from "vitest";
import type { SomeCommandFakes } from "./commandFakes";
import type { Price, PriceEntry, PriceTable, RunSpend, SpendPage, SpendQuery, SpendScope, Totals } from "../bindings";
import { ClawbooError } from "../errors";
import { NO_SPEND } from "../features/spend/money";

export const ZERO: Totals = { ...NO_SPEND };

export function totals(partial: Partial<Totals>): Totals {
  return { ...ZERO, ...partial };
}

/** One run's spend as the engine counts it: priced through Clawboo's keys unless said. */
export function runSpend(partial: Partial<RunSpend> & Pick<RunSpend, "runId">): RunSpend {
  return {
    day: "2026-12-05",
    at: 0,
    agentId: "",
    teamId: "",
    routineId: "",
    cardId: "",
    runtime: "native",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    billing: "api",
    requests: 1,
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costMicros: null,
    unpricedTokens: 0,
    ...partial,
  };
}

function emptyPage(): SpendPage {
  return {
    today: "2026-12-05",
    todayTotals: ZERO,
    weekTotals: ZERO,
    monthTotals: ZERO,
    rangeTotals: ZERO,
    days: [],
    topAgents: [],
    topTeams: [],
    topRoutines: [],
    agents: [],
    teams: [],
    routines: [],
    runtimes: [],
  };
}

const BUNDLED: PriceEntry[] = [
  {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    price: { inputMicros: 3_000_000, outputMicros: 15_000_000, cacheWriteMicros: 3_750_000, cacheReadMicros: 300_000, free: false },
    source: "bundled",
    overridesBundled: false,
  },
];

function initialSpend() {
  return {
    /** What spendPage answers, whatever the query (a test sets it; `byQuery` narrows it). */
    page: emptyPage(),
    /** When set, answers per query (filters, stacking). */
    byQuery: null as ((query: SpendQuery) => SpendPage) | null,
    runs: [] as RunSpend[],
    /** What `spendOf` answers per scope, keyed `kind:id` (zero when not set). */
    scopes: new Map<string, Totals>(),
    yours: [] as PriceEntry[],
    /** Where the save dialog "saves"; null as if cancelled. */
    savePath: "/home/me/clawboo-spend.csv" as string | null,
  };
}

export const spend = initialSpend();

export function resetSpend() {
  Object.assign(spend, initialSpend());
}

function table(): PriceTable {
  const yours = spend.yours;
  return {
    taken: "2025-11-30",
    note: "List prices as published.",
    entries: [...yours, ...BUNDLED.filter((b) => !yours.some((y) => y.provider === b.provider && y.model === b.model))],
  };
}

export const fakeSpendApi = {
  spendPage: vi.fn(async (query: SpendQuery) => (spend.byQuery ? spend.byQuery(query) : spend.page)),
  spendOf: vi.fn(async (scope: SpendScope) => spend.scopes.get(scope.kind === "all" ? "all" : `${scope.kind}:${scope.id}`) ?? ZERO),
  runsSpend: vi.fn(async (runIds: string[]) => spend.runs.filter((r) => runIds.includes(r.runId))),
  spendPrices: vi.fn(async () => table()),
  setSpendPrice: vi.fn(async (provider: string, model: string, price: Price) => {
    if (!model.trim()) throw new ClawbooError("invalid_input", "Name the model (up to 200 characters), as the provider spells it.");
    const overridesBundled = BUNDLED.some((b) => b.provider === provider && b.model === model);
    spend.yours = [
      ...spend.yours.filter((y) => !(y.provider === provider && y.model === model)),
      { provider, model, price, source: "yours", overridesBundled },
    ];
    return table();
  }),
  removeSpendPrice: vi.fn(async (provider: string, model: string) => {
    spend.yours = spend.yours.filter((y) => !(y.provider === provider && y.model === model));
    return table();
  }),
  exportSpendCsv: vi.fn(async () => spend.savePath),
} satisfies SomeCommandFakes;
