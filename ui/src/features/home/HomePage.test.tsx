import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { fakeApi, finishRun, resetBackend, seedAgent, seedMessage, seedRun } from "../../test/fakeApi";
import { seedRequest } from "../../test/fakeAttention";
import { seedCard } from "../../test/fakeBoard";
import { backendDoes, renderApp } from "../../test/helpers";
import type { Agent } from "../../bindings";
import { elapsed } from "./HomePage";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

let ada: Agent;

beforeEach(() => {
  resetBackend();
  ada = seedAgent({ name: "Ada", handle: "ada" });
  seedAgent({ name: "Bo", handle: "bo" });
});

async function openHome() {
  const { user } = renderApp();
  await user.click(await screen.findByTestId("nav-home"));
  return { user, home: await screen.findByTestId("home") };
}

describe("Home", () => {
  it("lists what runs (who, on what, since when, where), what needs you and links each to its place", async () => {
    seedMessage(ada.id, "user", "Summarise the quarterly report\nwith charts");
    seedRun(ada.id, "running");
    seedRequest(ada, { kind: "question", text: "Which region: EU or US?" });
    seedCard({ title: "Ship the flyer", status: "blocked", blockedReason: "Waiting for the printer's quote" });
    const { user, home } = await openHome();

    const run = within(home).getByTestId("home-run");
    expect(run.textContent).toContain("Chat");
    expect(run.textContent).toContain("Ada");
    expect(run.textContent).toContain("Summarise the quarterly report");
    expect(run.textContent).toMatch(/since .*·/);
    expect(within(home).getByTestId("home-requests").textContent).toContain("Which region: EU or US?");
    expect(within(home).getByTestId("home-open-inbox").textContent).toBe("1 open request in the Inbox");
    expect(within(home).getByTestId("home-blocked").textContent).toContain("Waiting for the printer's quote");

    // The run's end takes it off the list.
    await backendDoes(() => finishRun(ada.id, "succeeded", "Done."));
    await waitFor(() => expect(within(home).queryByTestId("home-run")).toBeNull());
    expect(fakeApi.homeSummary.mock.calls.length).toBeGreaterThan(1);

    await user.click(within(home).getByTestId("home-open-inbox"));
    await screen.findByTestId("inbox-page");
  });

  it("opens a running chat where it shows", async () => {
    seedMessage(ada.id, "user", "Hello");
    seedRun(ada.id, "running");
    const { user, home } = await openHome();
    await user.click(within(home).getByTestId("home-run-open"));
    await screen.findByTestId("chat-timeline");
  });

  it("says so when nothing runs and nothing waits", async () => {
    const { home } = await openHome();
    expect(home.textContent).toContain("Nothing is running and nothing waits for you.");
  });

  it("counts time since a run started in minutes, then hours", () => {
    expect(elapsed(0, 30_000)).toBe("just now");
    expect(elapsed(0, 4 * 60_000)).toBe("4 min");
    expect(elapsed(0, 125 * 60_000)).toBe("2 h 5 min");
  });
});
