// The limits part of the fake API: the breakers' limits, paused scopes and budgets, checked as
// the engine checks them (src-tauri/run/src/guard).
import { vi } from "vitest";
import type { SomeCommandFakes } from "./commandFakes";
import { ClawbooError } from "../errors";
import type { Budget, BudgetInput, BudgetPeriod, BudgetScope, Limits, PausedScope, ScopeKind } from "../bindings";

export const DEFAULT_LIMITS: Limits = { runsPerHour: 60, handoffsPerTenMinutes: 30, repeatedToolCalls: 5, routineFailures: 3 };

function initialLimits() {
  return { limits: { ...DEFAULT_LIMITS }, paused: [] as PausedScope[], budgets: [] as Budget[] };
}

export const limitsState = initialLimits();

export function resetLimits() {
  Object.assign(limitsState, initialLimits());
}

/** A budget as if set and partly spent. */
export function seedBudget(budget: Partial<Budget> & Pick<Budget, "scope" | "period">): Budget {
  const full: Budget = { scopeId: "", unit: "tokens", amount: 1_000, spent: 0, allowedUntil: null, ...budget };
  limitsState.budgets.push(full);
  return full;
}

export function seedPaused(paused: PausedScope) {
  limitsState.paused.push(paused);
}

const same = (b: Budget, scope: BudgetScope, scopeId: string, period: BudgetPeriod) =>
  b.scope === scope && b.scopeId === scopeId && b.period === period;

export const fakeLimitsApi = {
  limitsGet: vi.fn(async (): Promise<Limits> => ({ ...limitsState.limits })),
  limitsSet: vi.fn(async (limits: Limits): Promise<Limits> => {
    if (limits.runsPerHour < 1 || limits.handoffsPerTenMinutes < 1 || limits.repeatedToolCalls < 2) {
      throw new ClawbooError("invalid_input", "Each limit is at least 1 (and a repeated tool call at least 2 times).");
    }
    limitsState.limits = { ...limits, routineFailures: DEFAULT_LIMITS.routineFailures };
    return { ...limitsState.limits };
  }),
  pausedScopes: vi.fn(async (): Promise<PausedScope[]> => limitsState.paused.map((p) => ({ ...p }))),
  scopeResume: vi.fn(async (scope: ScopeKind, id: string): Promise<null> => {
    const before = limitsState.paused.length;
    limitsState.paused = limitsState.paused.filter((p) => !(p.scope === scope && p.scopeId === id));
    if (limitsState.paused.length === before) throw new ClawbooError("not_found", `A paused ${scope} ${id} was not found.`);
    return null;
  }),
  budgetsList: vi.fn(async (): Promise<Budget[]> => limitsState.budgets.map((b) => ({ ...b }))),
  budgetSet: vi.fn(async (input: BudgetInput): Promise<Budget> => {
    if (input.amount <= 0) throw new ClawbooError("invalid_input", "A budget is more than zero (remove it to have none).");
    const earlier = limitsState.budgets.find((b) => same(b, input.scope, input.scopeId, input.period));
    const budget: Budget = { ...input, spent: earlier?.spent ?? 0, allowedUntil: null };
    limitsState.budgets = limitsState.budgets.filter((b) => b !== earlier).concat(budget);
    return { ...budget };
  }),
  budgetRemove: vi.fn(async (scope: BudgetScope, scopeId: string, period: BudgetPeriod): Promise<null> => {
    limitsState.budgets = limitsState.budgets.filter((b) => !same(b, scope, scopeId, period));
    return null;
  }),
} satisfies SomeCommandFakes;
