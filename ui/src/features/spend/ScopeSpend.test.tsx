import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { fakeApi, resetBackend, seedAgent, seedTeam } from "../../test/fakeApi";
import { seedRoutine } from "../../test/fakeRoutines";
import { spend, totals } from "../../test/fakeSpend";
import { renderApp } from "../../test/helpers";
import type { Agent, Team } from "../../bindings";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

let ava: Agent;
let bo: Agent;
let shop: Team;

beforeEach(() => {
  resetBackend();
  ava = seedAgent({ name: "Ava", handle: "ava" });
  bo = seedAgent({ name: "Bo", handle: "bo", runtime: "claude-code" });
  shop = seedTeam({ name: "Shop", memberIds: [ava.id, bo.id] });
});

describe("What a scope spent in all", () => {
  it("shows an agent's money and cache-read share on its page", async () => {
    // 60,000 of 100,000 prompt tokens read from the cache.
    spend.scopes.set(
      `agent:${ava.id}`,
      totals({ requests: 14, inputTokens: 20_000, outputTokens: 2_000, cacheReadTokens: 60_000, cacheWriteTokens: 20_000, costMicros: 1_234_000 }),
    );
    const { user } = renderApp();
    await user.click(await screen.findByTestId("agent-item-ava"));
    expect((await screen.findByTestId("agent-spend")).textContent).toBe("Spent in all: $1.23 · cache reads 60%");
    expect(fakeApi.spendOf).toHaveBeenCalledWith({ kind: "agent", id: ava.id });
  });

  it("says nothing for an agent that spent nothing yet", async () => {
    const { user } = renderApp();
    await user.click(await screen.findByTestId("agent-item-bo"));
    await screen.findByTestId("tab-details");
    await waitFor(() => expect(fakeApi.spendOf).toHaveBeenCalledWith({ kind: "agent", id: bo.id }));
    expect(screen.queryByTestId("agent-spend")).toBeNull();
  });

  it("shows a team's money with its members' subscription tokens said apart", async () => {
    // Ava through Clawboo's keys ($0.45); Bo's Claude Code on the user's own sign-in (12,000 tokens).
    spend.scopes.set(
      `team:${shop.id}`,
      totals({ requests: 9, inputTokens: 15_000, outputTokens: 1_000, cacheReadTokens: 5_000, costMicros: 450_000, subscriptionTokens: 12_000 }),
    );
    const { user } = renderApp();
    await user.click(await screen.findByTestId("team-item-Shop"));
    expect((await screen.findByTestId("team-spend")).textContent).toBe(
      "Spent in all: $0.45 + 12k tokens on your subscription · cache reads 25%",
    );
  });

  it("shows a routine's tokens and says no price is known, never a made-up figure", async () => {
    const routine = seedRoutine({ name: "Morning digest", agentId: ava.id, ownerName: "Ava" });
    spend.scopes.set(
      `routine:${routine.id}`,
      totals({ requests: 3, inputTokens: 4_000, outputTokens: 500, unpricedTokens: 4_500 }),
    );
    const { user } = renderApp();
    await user.click(await screen.findByTestId("nav-routines"));
    await user.click(await screen.findByTestId(`routine-row-${routine.id}`));
    const detail = await screen.findByTestId("routine-detail");
    expect((await within(detail).findByTestId("routine-spend")).textContent).toBe(
      "Spent in all: 4.5k tokens with no price known · cache reads 0%",
    );
  });
});
