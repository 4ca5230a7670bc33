import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { fakeApi, resetBackend, seedAgent, seedBudget, seedPaused, limitsState } from "../../test/fakeApi";
import { seedRequest } from "../../test/fakeAttention";
import { openChat, renderApp } from "../../test/helpers";
import { ClawbooError } from "../../errors";
import type { Agent } from "../../bindings";
import { figure, parseAmount, percentSpent } from "./budgets";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);
Element.prototype.scrollIntoView = vi.fn();

let ada: Agent;

beforeEach(() => {
  resetBackend();
  ada = seedAgent({ name: "Ada", handle: "ada" });
});

async function openInbox() {
  const { user } = renderApp();
  await user.click(await screen.findByTestId("nav-inbox"));
  await screen.findByTestId("inbox-page");
  return { user };
}

async function openSettings() {
  const { user } = renderApp();
  await user.click(await screen.findByTestId("settings-link"));
  return { user, limits: await screen.findByTestId("settings-limits", {}, { timeout: 5_000 }) };
}

describe("Inbox: the guards' requests", () => {
  it("a circuit breaker's pause offers Resume and Keep paused, each a decision", async () => {
    const paused = seedRequest(ada, {
      kind: "scope_paused",
      text: "@ada was about to start run 61 within an hour (the limit is 60 runs an hour), so Clawboo paused it.",
      tool: null,
    });
    const { user } = await openInbox();
    const card = await screen.findByTestId(`request-${paused.id}`);
    expect((within(card).getByTestId(`request-kind-${paused.id}`)).textContent).toContain("Paused a loop");
    expect((card).textContent).toContain("run 61 within an hour (the limit is 60");
    expect((within(card).getByTestId(`deny-${paused.id}`)).textContent).toContain("Keep paused");
    await user.click(within(card).getByTestId(`allow-once-${paused.id}`));
    await waitFor(() =>
      expect(fakeApi.attentionAnswer).toHaveBeenCalledWith(paused.id, { type: "decision", decision: "allow_once" }),
    );
    expect(screen.queryByText("Resume")).toBeNull();
  });

  it("a routine that paused itself reads the same: Resume / Keep paused", async () => {
    const routine = seedRequest(ada, { kind: "routine_paused", text: "The routine stopped running.", tool: null });
    const { user } = await openInbox();
    const card = await screen.findByTestId(`request-${routine.id}`);
    expect((within(card).getByTestId(`allow-once-${routine.id}`)).textContent).toContain("Resume");
    await user.click(within(card).getByTestId(`deny-${routine.id}`));
    await waitFor(() =>
      expect(fakeApi.attentionAnswer).toHaveBeenCalledWith(routine.id, { type: "decision", decision: "deny" }),
    );
  });

  it("a spent budget offers Raise the budget (Settings › Limits), Allow until tomorrow and Keep stopped", async () => {
    const spent = seedRequest(ada, {
      kind: "budget_reached",
      text: "The overall daily token budget (1,000 tokens) is spent: 1,200 tokens today.",
      tool: null,
    });
    const { user } = await openInbox();
    const card = await screen.findByTestId(`request-${spent.id}`);
    expect((within(card).getByTestId(`request-kind-${spent.id}`)).textContent).toContain("Budget spent");
    expect((within(card).getByTestId(`allow-once-${spent.id}`)).textContent).toContain("Allow until tomorrow");
    expect((within(card).getByTestId(`deny-${spent.id}`)).textContent).toContain("Keep stopped");
    await user.click(within(card).getByTestId(`allow-once-${spent.id}`));
    await waitFor(() =>
      expect(fakeApi.attentionAnswer).toHaveBeenCalledWith(spent.id, { type: "decision", decision: "allow_once" }),
    );
  });

  it("Raise the budget opens Settings at Limits", async () => {
    const spent = seedRequest(ada, { kind: "budget_reached", text: "Spent.", tool: null });
    const { user } = await openInbox();
    await user.click(await screen.findByTestId(`raise-budget-${spent.id}`));
    expect(await screen.findByTestId("settings-limits", {}, { timeout: 5_000 })).toBeTruthy();
    expect(fakeApi.attentionAnswer).not.toHaveBeenCalled();
  });

  it("a budget at 80% is a line to dismiss, with no Deny", async () => {
    const warning = seedRequest(ada, { kind: "budget_warning", text: "@ada's daily token budget is at 80%.", tool: null });
    await openInbox();
    const card = await screen.findByTestId(`request-${warning.id}`);
    expect((within(card).getByTestId(`allow-once-${warning.id}`)).textContent).toContain("Dismiss");
    expect(within(card).queryByTestId(`deny-${warning.id}`)).toBeNull();
  });
});

describe("Settings › Limits", () => {
  it("states each breaker's default and saves a changed limit", async () => {
    const { user, limits } = await openSettings();
    const runs = await within(limits).findByTestId("limit-runsPerHour");
    expect((limits).textContent).toContain("Default 60.");
    expect((limits).textContent).toContain("Default 30.");
    expect((limits).textContent).toContain("Default 5.");
    expect((limits).textContent).toContain("A routine pauses itself after 3.");
    await user.clear(runs);
    await user.type(runs, "20");
    await user.click(within(limits).getByTestId("limits-save"));
    await waitFor(() => expect(limitsState.limits.runsPerHour).toBe(20));
    await user.click(within(limits).getByTestId("limits-defaults"));
    expect((within(limits).getByTestId("limit-runsPerHour") as HTMLInputElement).value).toBe(String(60));
  });

  it("lists what is paused, and Resume lifts it", async () => {
    seedPaused({
      scope: "room",
      scopeId: "room-1",
      breaker: "handoffs",
      reason: "#general had 30 hand-offs in the last 10 minutes (the limit is 30).",
      pausedAt: 1,
      requestId: null,
    });
    const { user, limits } = await openSettings();
    const row = await within(limits).findByTestId("paused-room-room-1");
    expect((row).textContent).toContain("30 hand-offs in the last 10 minutes");
    await user.click(within(row).getByTestId("resume-room-room-1"));
    await waitFor(() => expect(fakeApi.scopeResume).toHaveBeenCalledWith("room", "room-1"));
    expect(await within(limits).findByText("Nothing is paused.")).toBeTruthy();
  });
});

describe("The budget editor", () => {
  it("sets an overall daily budget in dollars, shows what it spent, and removes it", async () => {
    const { user, limits } = await openSettings();
    const editor = within(limits).getByTestId("budgets-overall");
    // Money is what runs through Clawboo's keys cost: a subscription's runs count in tokens.
    expect(within(editor).getByTestId("budget-subscription-note").textContent).toContain(
      "Runs on your subscription count toward token budgets only",
    );
    await user.click(await within(editor).findByTestId("budget-overall-day-set"));
    await user.selectOptions(within(editor).getByTestId("budget-overall-day-unit"), "usd");
    const amount = within(editor).getByTestId("budget-overall-day-amount");
    await user.type(amount, "0");
    expect((within(editor).getByTestId("budget-overall-day-save") as HTMLButtonElement).disabled).toBe(true);
    await user.clear(amount);
    await user.type(amount, "5.50");
    await user.click(within(editor).getByTestId("budget-overall-day-save"));
    await waitFor(() =>
      expect(fakeApi.budgetSet).toHaveBeenCalledWith({
        scope: "overall",
        scopeId: "",
        period: "day",
        unit: "usd",
        amount: 5_500_000,
      }),
    );
    expect((await within(editor).findByTestId("budget-overall-day-figure")).textContent).toContain("$0.00 of $5.50 today");
    await user.click(within(editor).getByTestId("budget-overall-day-remove"));
    expect(await within(editor).findByTestId("budget-overall-day-set")).toBeTruthy();
  });

  it("a spent budget is marked and offers Raise; the monthly one stays apart", async () => {
    seedBudget({ scope: "overall", period: "day", amount: 1_000, spent: 1_200 });
    seedBudget({ scope: "overall", period: "month", amount: 100_000, spent: 85_000 });
    const { user, limits } = await openSettings();
    const day = await within(limits).findByTestId("budget-overall-day");
    expect((day).classList.contains("is-spent")).toBe(true);
    expect((day).textContent).toContain("1,200 tokens of 1,000 tokens today");
    expect((within(limits).getByTestId("budget-overall-month")).classList.contains("is-warning")).toBe(true);
    await user.click(within(day).getByTestId("budget-overall-day-edit"));
    const amount = within(day).getByTestId("budget-overall-day-amount");
    expect((amount as HTMLInputElement).value).toBe(String("1000"));
    await user.clear(amount);
    await user.type(amount, "2000{Enter}");
    await waitFor(() => expect((within(limits).getByTestId("budget-overall-day")).classList.contains("is-spent")).toBe(false));
    expect((within(limits).getByTestId("budget-overall-day")).textContent).toContain("1,200 tokens of 2,000 tokens today");
  });

  it("reads and writes amounts as people type them", () => {
    expect(parseAmount("tokens", "1,000,000")).toBe(1_000_000);
    expect(parseAmount("usd", "$2.25")).toBe(2_250_000);
    expect(parseAmount("usd", "-1")).toBeNull();
    expect(parseAmount("tokens", "many")).toBeNull();
    expect(figure("usd", 1_234_560_000)).toBe("$1,234.56");
    expect(figure("tokens", 12_345)).toBe("12,345 tokens");
    expect(figure("tokens", 1)).toBe("1 token");
    expect(percentSpent({ spent: 799, amount: 1_000 })).toBe(79);
  });
});

describe("A run refused by the guards", () => {
  it("shows its figure in the run error card, with the way to the budget", async () => {
    fakeApi.sendChatMessage.mockRejectedValueOnce(
      new ClawbooError(
        "budget_exhausted",
        "@ada's daily token budget (10,000 tokens) is spent: 10,250 tokens today. New runs are stopped.",
      ),
    );
    const { user } = renderApp();
    await openChat(user, "ada");
    await user.type(screen.getByTestId("chat-input"), "Hello{Enter}");
    const card = await screen.findByTestId("run-refused");
    expect(card.textContent).toContain("(10,000 tokens) is spent: 10,250 tokens today");
    expect(within(card).getByTestId("run-error-code").textContent).toBe("budget_exhausted");
    await user.click(within(card).getByTestId("open-limits"));
    expect(await screen.findByTestId("settings-limits", {}, { timeout: 5_000 })).toBeTruthy();
  });
});
