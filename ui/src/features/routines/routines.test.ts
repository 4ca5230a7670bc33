import { describe, expect, it } from "vitest";
import type { Preset, Routine } from "../../bindings";
import { draftSchedule, emptyDraft, nextRunText, scheduleDraft, toLocalInput } from "./routines";

const presets: Preset[] = [
  { id: "morning", label: "Every morning at 08:00", expr: "0 8 * * *" },
  { id: "weekdays", label: "Weekdays at 09:00", expr: "0 9 * * 1-5" },
];

describe("the editor's schedule draft", () => {
  it("turns each mode into the schedule the engine takes, and back", () => {
    const base = emptyDraft(presets, "Europe/Berlin");
    expect(draftSchedule(base, presets)).toEqual({ kind: "cron", expr: "0 8 * * *", tz: "Europe/Berlin" });
    expect(draftSchedule({ ...base, mode: "cron", cron: "  " }, presets)).toBeNull();
    expect(draftSchedule({ ...base, mode: "every", every: "3", unit: "hours" }, presets)).toEqual({ kind: "every", minutes: 180 });
    expect(draftSchedule({ ...base, mode: "every", every: "" }, presets)).toBeNull();
    expect(draftSchedule({ ...base, mode: "once", once: "" }, presets)).toBeNull();
    const at = new Date(2026, 4, 1, 9, 30).getTime();
    expect(draftSchedule({ ...base, mode: "once", once: toLocalInput(at) }, presets)).toEqual({ kind: "once", at });

    expect(scheduleDraft({ kind: "cron", expr: "0  9 * * 1-5", tz: "UTC" }, presets, "Europe/Berlin")).toMatchObject({
      mode: "preset",
      presetId: "weekdays",
      tz: "UTC",
    });
    expect(scheduleDraft({ kind: "cron", expr: "7 9 * * *", tz: "UTC" }, presets, "UTC")).toMatchObject({ mode: "cron", cron: "7 9 * * *" });
    expect(scheduleDraft({ kind: "every", minutes: 120 }, presets, "UTC")).toMatchObject({ every: "2", unit: "hours" });
    expect(scheduleDraft({ kind: "every", minutes: 45 }, presets, "UTC")).toMatchObject({ every: "45", unit: "minutes" });
  });

  it("says when a routine runs next: paused, a retry first, or none left", () => {
    const r = { state: "active", nextFireAt: null, retryAt: null } as unknown as Routine;
    expect(nextRunText({ ...r, state: "paused" })).toBe("Paused");
    expect(nextRunText(r)).toBe("No next run");
    const now = new Date(2026, 2, 2, 7, 0).getTime();
    expect(nextRunText({ ...r, nextFireAt: now + 3_600_000, retryAt: now + 60_000 }, now)).toMatch(/^Retry Today /);
  });
});
