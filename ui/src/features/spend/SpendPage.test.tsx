import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { fakeApi, resetBackend } from "../../test/fakeApi";
import { spend, totals } from "../../test/fakeSpend";
import { renderApp } from "../../test/helpers";
import type { SpendPage, SpendQuery } from "../../bindings";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

beforeEach(() => resetBackend());

const today = new Date();
const pad = (n: number) => String(n).padStart(2, "0");
const TODAY = `${today.getFullYear()}-${pad(today.getMonth() + 1)}-${pad(today.getDate())}`;

/** Ada and Bo spent today, Ada in the Crew team; one routine; a subscription run. */
function seeded(query: SpendQuery): SpendPage {
  const ada = totals({ requests: 3, inputTokens: 1000, outputTokens: 200, cacheReadTokens: 3000, costMicros: 12_340_000 });
  const bo = totals({ requests: 1, inputTokens: 50, outputTokens: 10, subscriptionTokens: 60 });
  const onlyBo = query.filter?.agentId === "bo";
  const range = onlyBo ? bo : totals({ ...ada, requests: 4, inputTokens: 1050, outputTokens: 210, subscriptionTokens: 60 });
  const days =
    query.group === "team"
      ? [{ day: TODAY, key: "crew", totals: ada }, ...(onlyBo ? [] : [{ day: TODAY, key: "", totals: bo }])]
      : onlyBo
        ? [{ day: TODAY, key: "bo", totals: bo }]
        : [
            { day: TODAY, key: "ada", totals: ada },
            { day: TODAY, key: "bo", totals: bo },
          ];
  return {
    today: TODAY,
    todayTotals: range,
    weekTotals: range,
    monthTotals: range,
    rangeTotals: range,
    days,
    topAgents: onlyBo ? [{ key: "bo", totals: bo }] : [{ key: "ada", totals: ada }, { key: "bo", totals: bo }],
    topTeams: [{ key: "crew", totals: ada }],
    topRoutines: [{ key: "daily", totals: ada }],
    agents: [
      { id: "ada", name: "Ada" },
      { id: "bo", name: "Bo" },
    ],
    teams: [{ id: "crew", name: "Crew" }],
    routines: [{ id: "daily", name: "Daily digest" }],
    runtimes: ["claude-code", "native"],
  };
}

async function openSpend() {
  const { user } = renderApp();
  await user.click(await screen.findByTestId("nav-spend"));
  await screen.findByTestId("spend-page");
  return { user };
}

describe("The Spend page", () => {
  it("says nothing was spent yet, and how spend is counted, before any model call", async () => {
    await openSpend();
    expect((await screen.findByTestId("spend-empty")).textContent).toContain("Nothing spent in the last 30 days yet");
    expect(screen.queryByTestId("spend-chart")).toBeNull();
  });

  it("draws the days stacked by agent, with each figure on hover and in the tables, money and subscription apart", async () => {
    spend.byQuery = seeded;
    const { user } = await openSpend();
    const chart = await screen.findByTestId("spend-chart");
    const bars = within(chart).getAllByTestId("spend-bar");
    expect(bars).toHaveLength(30);
    const segments = within(chart).getAllByTestId("spend-segment");
    expect(segments.map((s) => s.querySelector("title")?.textContent)).toEqual([
      `${TODAY} · Ada: $12.34`,
      `${TODAY} · Bo: $0.00`,
    ]);
    await user.hover(segments[0]);
    expect(screen.getByTestId("spend-hover").textContent).toBe(`${TODAY} · Ada: $12.34`);
    expect(screen.getByTestId("spend-today").textContent).toMatch(/^Today\$12\.34\+ 60 tokens on your subscription/);
    expect(screen.getByTestId("spend-top-agents").textContent).toContain("Ada$12.34cache 75%");
    expect(screen.getByTestId("spend-top-routines").textContent).toContain("Daily digest");
    expect(screen.getAllByTestId("spend-table-row")).toHaveLength(1);
  });

  it("stacks by team and narrows to an agent, asking the engine with the filter", async () => {
    spend.byQuery = seeded;
    const { user } = await openSpend();
    await screen.findByTestId("spend-chart");
    await user.selectOptions(screen.getByTestId("spend-group"), "team");
    await waitFor(() =>
      expect(screen.getAllByTestId("spend-segment").map((s) => s.querySelector("title")?.textContent)).toEqual([
        `${TODAY} · Crew: $12.34`,
        `${TODAY} · No team: $0.00`,
      ]),
    );
    await user.selectOptions(screen.getByTestId("spend-filter-agent"), "bo");
    await waitFor(() =>
      expect(fakeApi.spendPage).toHaveBeenLastCalledWith(
        expect.objectContaining({ group: "team", filter: { runtime: null, agentId: "bo", teamId: null } }),
      ),
    );
    await waitFor(() => expect(screen.getByTestId("spend-range-total").textContent).toMatch(/^Last 30 days60 tokenson your subscription/));
    fireEvent.change(screen.getByTestId("spend-range"), { target: { value: "7" } });
    await waitFor(() => expect(screen.getAllByTestId("spend-bar")).toHaveLength(7));
  });

  it("exports the runs behind the page as CSV where the user saves it", async () => {
    spend.byQuery = seeded;
    const { user } = await openSpend();
    await user.click(await screen.findByTestId("spend-export"));
    expect(fakeApi.exportSpendCsv).toHaveBeenCalledWith(expect.objectContaining({ to: TODAY, group: "agent" }));
    expect((await screen.findByTestId("spend-export-note")).textContent).toBe("Saved to /home/me/clawboo-spend.csv");
  });
});
