import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { fakeApi, resetBackend, seedAgent, seedTeam } from "../../test/fakeApi";
import { seedCard } from "../../test/fakeBoard";
import { emitRoutinesChanged, routines, seedRoutine, seedRoutineRun } from "../../test/fakeRoutines";
import { backendDoes, renderApp } from "../../test/helpers";
import type { Agent, Team } from "../../bindings";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

let ava: Agent;
let shop: Team;

beforeEach(() => {
  resetBackend();
  ava = seedAgent({ name: "Ava", handle: "ava" });
  shop = seedTeam({ name: "Shop", memberIds: [ava.id] });
});

async function openRoutines() {
  const { user } = renderApp();
  await user.click(await screen.findByTestId("nav-routines"));
  await screen.findByTestId("routines-page");
  return { user };
}

describe("Routines page", () => {
  it("creates a routine in the editor with a preset, showing its next 5 runs", async () => {
    const { user } = await openRoutines();
    expect(await screen.findByTestId("routines-empty")).toBeTruthy();
    expect(screen.getByTestId("nav-routines").getAttribute("aria-current")).toBe("page");

    await user.click(screen.getByTestId("routines-new"));
    const editor = await screen.findByTestId("routine-editor");
    await user.type(within(editor).getByTestId("routine-name"), "Morning digest");
    await user.type(within(editor).getByTestId("routine-prompt"), "Summarise yesterday's orders.");
    expect((within(editor).getByTestId("routine-tz") as HTMLInputElement).value).toBe("Europe/Berlin");
    await user.selectOptions(within(editor).getByTestId("routine-preset"), "weekdays");
    const fires = await within(editor).findByTestId("routine-next-fires");
    await waitFor(() => expect(within(editor).getByTestId("routine-schedule-text").textContent).toBe("Weekdays at 09:00 (Europe/Berlin)"));
    expect(fires.querySelectorAll("li")).toHaveLength(5);
    await user.click(within(editor).getByTestId("routine-save"));

    await waitFor(() => expect(screen.queryByTestId("routine-editor")).toBeNull());
    expect(fakeApi.routineCreate).toHaveBeenCalledWith({
      name: "Morning digest",
      prompt: "Summarise yesterday's orders.",
      agentId: ava.id,
      teamId: null,
      schedule: { kind: "cron", expr: "0 9 * * 1-5", tz: "Europe/Berlin" },
      heartbeat: false,
      // Ava is a member of Shop: "Report to Shop" is on by default.
      reportsToTeamId: shop.id,
    });
    const id = routines.routines[0].id;
    const row = await screen.findByTestId(`routine-row-${id}`);
    expect(row.textContent).toContain("Morning digest");
    expect((await screen.findByTestId("routine-reports-to")).textContent).toBe("Shop: its leader gets each result");
    expect(row.textContent).toContain("Weekdays at 09:00 (Europe/Berlin)");
    expect(screen.getByTestId(`routine-state-${id}`).textContent).toBe("Active");
    expect(await screen.findByTestId("routine-detail")).toBeTruthy();
  });

  it("lets a member's routine report to its team, on by default, and off when unticked", async () => {
    const loner = seedAgent({ name: "Lou", handle: "lou" });
    const cafe = seedTeam({ name: "Cafe", memberIds: [ava.id] });
    const { user } = await openRoutines();
    await user.click(screen.getByTestId("routines-new"));
    const editor = await screen.findByTestId("routine-editor");
    const report = within(editor).getByTestId("routine-report") as HTMLInputElement;
    expect(report.checked).toBe(true);
    // A member of two teams picks which one.
    const team = within(editor).getByTestId("routine-report-team") as HTMLSelectElement;
    expect([shop.id, cafe.id]).toContain(team.value);
    const other = team.value === shop.id ? cafe : shop;
    await user.selectOptions(team, other.id);
    expect(within(editor).getByTestId("routine-owner").parentElement?.textContent).toContain(`${other.name} Board`);

    // An agent in no team has no such choice; a team's routine neither.
    await user.selectOptions(within(editor).getByTestId("routine-owner"), `agent:${loner.id}`);
    expect(within(editor).queryByTestId("routine-report")).toBeNull();
    await user.selectOptions(within(editor).getByTestId("routine-owner"), `team:${shop.id}`);
    expect(within(editor).queryByTestId("routine-report")).toBeNull();

    // Back to Ava: on again; unticked, the routine reports nowhere.
    await user.selectOptions(within(editor).getByTestId("routine-owner"), `agent:${ava.id}`);
    const again = within(editor).getByTestId("routine-report") as HTMLInputElement;
    expect(again.checked).toBe(true);
    expect(again.parentElement?.textContent).toContain("Report to");
    await user.click(again);
    expect(within(editor).getByTestId("routine-report").parentElement?.textContent).toMatch(/^Report to (Shop|Cafe)$/);
    await user.type(within(editor).getByTestId("routine-name"), "Digest");
    await user.type(within(editor).getByTestId("routine-prompt"), "Sum up.");
    await user.selectOptions(within(editor).getByTestId("routine-preset"), "weekdays");
    await within(editor).findByTestId("routine-next-fires");
    await user.click(within(editor).getByTestId("routine-save"));
    await waitFor(() =>
      expect(fakeApi.routineCreate).toHaveBeenCalledWith(
        expect.objectContaining({ agentId: ava.id, reportsToTeamId: null }),
      ),
    );
  });

  it("shows the engine's schedule errors inline as the cron is typed", async () => {
    const { user } = await openRoutines();
    await user.click(screen.getByTestId("routines-new"));
    const editor = await screen.findByTestId("routine-editor");
    await user.click(within(editor).getByTestId("routine-mode-cron"));
    const cron = within(editor).getByTestId("routine-cron");
    await user.clear(cron);
    await user.type(cron, "0 9 * *");
    const error = await within(editor).findByTestId("routine-schedule-error");
    expect(error.textContent).toContain("invalid_schedule");
    expect(error.textContent).toContain("has 5 fields");
    await user.type(cron, " 1");
    await within(editor).findByTestId("routine-next-fires");
    const tz = within(editor).getByTestId("routine-tz");
    await user.clear(tz);
    await user.type(tz, "Mars/Olympus");
    expect((await within(editor).findByTestId("routine-schedule-error")).textContent).toContain("not a known time zone");

    // Every N hours: sent as minutes; a team owner sends the team.
    await user.click(within(editor).getByTestId("routine-mode-every"));
    await user.clear(within(editor).getByTestId("routine-every"));
    await user.type(within(editor).getByTestId("routine-every"), "2");
    await user.selectOptions(within(editor).getByTestId("routine-every-unit"), "hours");
    await user.selectOptions(within(editor).getByTestId("routine-owner"), `team:${shop.id}`);
    expect(within(editor).queryByTestId("routine-heartbeat")).toBeNull();
    await user.type(within(editor).getByTestId("routine-name"), "Plan");
    await user.type(within(editor).getByTestId("routine-prompt"), "Plan the day.");
    await waitFor(() => expect(within(editor).getByTestId("routine-schedule-text").textContent).toBe("Every 2 hours"));
    await user.click(within(editor).getByTestId("routine-save"));
    await waitFor(() =>
      expect(fakeApi.routineCreate).toHaveBeenCalledWith(
        expect.objectContaining({ agentId: null, teamId: shop.id, schedule: { kind: "every", minutes: 120 } }),
      ),
    );
  });

  it("runs now, pauses, resumes and deletes; the last runs link their cards", async () => {
    const card = seedCard({ title: "Morning digest", assigneeId: ava.id });
    const routine = seedRoutine({ name: "Morning digest", agentId: ava.id, ownerName: "Ava" });
    seedRoutineRun(routine.id, {
      outcome: "succeeded",
      trigger: "catch_up",
      catchUp: true,
      missed: 3,
      note: "Missed 3 runs; ran once to catch up.",
      cardId: card.id,
      cardNumber: card.number,
    });
    const { user } = await openRoutines();
    const row = await screen.findByTestId(`routine-row-${routine.id}`);
    expect(row.textContent).toContain("Ava");
    expect(row.textContent).toContain("Succeeded");
    await user.click(row);
    const detail = await screen.findByTestId("routine-detail");
    const runs = await within(detail).findByTestId("routine-runs");
    expect(runs.textContent).toContain("Succeeded · Catch-up");
    expect(runs.textContent).toContain("Missed 3 runs; ran once to catch up.");

    await user.click(within(detail).getByTestId("routine-run-now"));
    await waitFor(() => expect(fakeApi.routineRunNow).toHaveBeenCalledWith(routine.id));
    await waitFor(() => expect(within(detail).getByTestId("routine-runs").textContent).toContain("Running · Run now"));
    expect((within(detail).getByTestId("routine-run-now") as HTMLButtonElement).disabled).toBe(true);

    await user.click(within(detail).getByTestId("routine-pause"));
    await waitFor(() => expect(screen.getByTestId(`routine-state-${routine.id}`).textContent).toBe("Paused"));
    expect(screen.getByTestId(`routine-next-${routine.id}`).textContent).toBe("Paused");
    await user.click(within(detail).getByTestId("routine-resume"));
    await waitFor(() => expect(screen.getByTestId(`routine-state-${routine.id}`).textContent).toBe("Active"));

    // A change in the engine (a run ended) shows without a click.
    routines.runs.get(routine.id)![0].outcome = "failed";
    routines.runs.get(routine.id)![0].note = "It could not start: no key.";
    await backendDoes(emitRoutinesChanged);
    await waitFor(() => expect(within(detail).getByTestId("routine-runs").textContent).toContain("It could not start: no key."));

    const firstRun = routines.runs.get(routine.id)![1];
    await user.click(within(detail).getByTestId(`routine-run-card-${firstRun.id}`));
    expect(await screen.findByTestId("board-page")).toBeTruthy();
    expect(await screen.findByTestId("card-panel")).toBeTruthy();

    await user.click(screen.getByTestId("nav-routines"));
    await user.click(await screen.findByTestId(`routine-row-${routine.id}`));
    await user.click(await screen.findByTestId("routine-delete"));
    await user.click(await screen.findByTestId("routine-delete-confirm"));
    await waitFor(() => expect(screen.queryByTestId(`routine-row-${routine.id}`)).toBeNull());
    expect(fakeApi.routineDelete).toHaveBeenCalledWith(routine.id);
  });

  it("says why a routine paused itself", async () => {
    const routine = seedRoutine({
      name: "Bank sync",
      agentId: ava.id,
      ownerName: "Ava",
      state: "paused",
      nextFireAt: null,
      pausedReason: "Paused after 3 failed runs in a row. The last: the model refused",
    });
    const { user } = await openRoutines();
    await user.click(await screen.findByTestId(`routine-row-${routine.id}`));
    expect((await screen.findByTestId("routine-paused-reason")).textContent).toContain("3 failed runs in a row");
    expect(screen.getByTestId("routine-resume")).toBeTruthy();
  });
});
