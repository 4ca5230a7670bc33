// The Boo Zero part of the fake API: which agent it is, its rules and the global brief, with the
// engine's checks (src-tauri/engine/src/boo_zero.rs). No Boo Zero until a test seeds one.
import { vi } from "vitest";
import type { SomeCommandFakes } from "./commandFakes";
import { ClawbooError } from "../errors";
import type { BooZeroInfo } from "../bindings";

export const DEFAULT_RULES = "- You coordinate; you do not do the teams' work yourself.";

function initialBooZero() {
  return { agentId: null as string | null, rules: null as string | null, globalBrief: "" };
}

export const booZeroState = initialBooZero();

export function resetBooZero() {
  Object.assign(booZeroState, initialBooZero());
}

/** Makes `agentId` Boo Zero. */
export function seedBooZero(agentId: string, rules: string | null = null, globalBrief = "") {
  Object.assign(booZeroState, { agentId, rules, globalBrief });
}

function info(): BooZeroInfo {
  if (!booZeroState.agentId) throw new ClawbooError("not_found", "Boo Zero not found");
  return {
    agentId: booZeroState.agentId,
    rules: booZeroState.rules ?? DEFAULT_RULES,
    rulesAreDefault: booZeroState.rules === null,
    defaultRules: DEFAULT_RULES,
    rulesBudget: 4000,
    globalBrief: booZeroState.globalBrief,
    globalBriefBudget: 8000,
  };
}

function checkLength(what: string, text: string, budget: number) {
  const length = [...text].length;
  if (length > budget) {
    throw new ClawbooError(
      "invalid_input",
      `${what} may hold at most ${budget} characters; this has ${length}. Shorten it and save again.`,
    );
  }
}

export const fakeBooZeroApi = {
  booZero: vi.fn(async (): Promise<BooZeroInfo> => info()),
  setBooZeroRules: vi.fn(async (text: string | null): Promise<BooZeroInfo> => {
    if (text !== null) checkLength("Boo Zero's rules", text.trim(), 4000);
    info();
    booZeroState.rules = text === null ? null : text.trim();
    return info();
  }),
  setGlobalBrief: vi.fn(async (text: string): Promise<BooZeroInfo> => {
    checkLength("The global brief", text.trim(), 8000);
    info();
    booZeroState.globalBrief = text.trim();
    return info();
  }),
} satisfies SomeCommandFakes;
