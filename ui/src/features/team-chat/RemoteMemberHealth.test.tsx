import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, screen, within } from "@testing-library/react";
import { backend, resetBackend, seedAgent, seedTeam } from "../../test/fakeApi";
import { emit } from "../../test/fakeEvents";
import { openAgentProfile, renderApp } from "../../test/helpers";
import { describeGatewayHealth } from "../agents/gatewayHealth";
import type { Agent, GatewayHealth } from "../../bindings";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

const URL = "ws://10.29.0.2:18789";
let ivy: Agent;

function health(partial: Partial<GatewayHealth>): GatewayHealth {
  return {
    agentId: ivy.id,
    url: URL,
    state: "connected",
    latencyMs: 12,
    version: "2026.9.6",
    since: 1,
    lastError: null,
    retryAt: null,
    ...partial,
  };
}

beforeEach(() => {
  resetBackend();
  const lead = seedAgent({ name: "Lead", handle: "lead" });
  ivy = seedAgent({ name: "Ivy", handle: "ivy", runtime: "openclaw", openclawGatewayUrl: URL });
  backend.gatewayHealths = [health({})];
  seedTeam({ name: "Launch", memberIds: [lead.id, ivy.id], leaderId: lead.id });
});

describe("A remote member's Gateway in the team's member list", () => {
  it("shows connected with latency and version, then lost with the countdown and the reason", async () => {
    const { user } = renderApp();
    await user.click(await screen.findByTestId("team-item-Launch"));
    const members = await screen.findByTestId("team-member-list");
    const badge = await within(members).findByTestId("gateway-health-member");
    expect(badge.textContent).toBe("Gateway connected · 12 ms · 2026.9.6");
    expect(badge.closest("li")?.textContent).toContain("@ivy");
    expect(within(members).getAllByTestId("gateway-health-member")).toHaveLength(1);

    act(() =>
      emit("gatewayHealthChanged", {
        health: health({
          state: "lost",
          lastError: "the Gateway closed the connection (1006)",
          retryAt: Date.now() + 8_000,
        }),
      }),
    );
    const lost = await within(members).findByText(/Reconnecting in [78] s/);
    const row = lost.closest("[data-testid=gateway-health-member]") as HTMLElement;
    expect(row.dataset.state).toBe("lost");
    expect(row.title).toContain("Gateway lost: the Gateway closed the connection (1006).");
  });
});

describe("A remote agent's Gateway on its profile", () => {
  it("says the whole state: lost, why, and when Clawboo tries again", async () => {
    backend.gatewayHealths = [
      health({ state: "lost", lastError: "no answer to a ping within 5 s", retryAt: Date.now() + 30_000 }),
    ];
    const { user } = renderApp();
    await openAgentProfile(user, "ivy");
    const line = await screen.findByTestId("gateway-health-profile");
    expect(line.textContent).toMatch(
      /^Gateway lost: no answer to a ping within 5 s\. Reconnecting in (29|30) s\. Its turns are refused until it is back\.$/,
    );
  });
});

describe("describeGatewayHealth", () => {
  it("says each state in a few words, and the whole of it for the profile", () => {
    ivy = { id: "ivy" } as Agent;
    const now = 1_000_000;
    expect(describeGatewayHealth(health({ state: "connecting", latencyMs: null }), now).short).toBe(
      "Connecting to the Gateway…",
    );
    const lost = describeGatewayHealth(health({ state: "lost", lastError: "no answer to a ping within 5 s", retryAt: now + 60_000 }), now);
    expect(lost.tone).toBe("lost");
    expect(lost.short).toBe("Reconnecting in 60 s");
    expect(lost.long).toBe(
      "Gateway lost: no answer to a ping within 5 s. Reconnecting in 60 s. Its turns are refused until it is back.",
    );
    expect(describeGatewayHealth(health({ state: "lost", retryAt: now - 5 }), now).short).toBe("Reconnecting…");
    expect(describeGatewayHealth(health({ latencyMs: null, version: null }), now).short).toBe("Gateway connected");
  });
});
