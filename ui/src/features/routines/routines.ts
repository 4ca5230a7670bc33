// How routines read on the Routines page, and the editor's schedule model. Pure functions, so
// the words and the conversions are tested once.
import type { Agent, Preset, Routine, RoutineOutcome, RoutineRun, RunTrigger, Schedule, Team } from "../../bindings";

export const OUTCOME_LABELS: Record<RoutineOutcome, string> = {
  running: "Running",
  succeeded: "Succeeded",
  failed: "Failed",
  needs_you: "Needs you",
  stopped: "Stopped",
  skipped_overlap: "Skipped (overlap)",
};

export const TRIGGER_LABELS: Record<RunTrigger, string> = {
  schedule: "On schedule",
  catch_up: "Catch-up",
  retry: "Retry",
  manual: "Run now",
};

/** The engine's bounds (src-tauri/routines/src/types.rs), in characters. */
export const MAX_NAME_CHARS = 120;
export const MAX_PROMPT_CHARS = 8_000;

/** "Ada" (an agent) or "Launch (team)". */
export function ownerLabel(routine: Routine): string {
  if (routine.teamId) return `${routine.ownerName || "A deleted team"} (team)`;
  return routine.ownerName || "A deleted agent";
}

/** A time as the user reads it, in their zone. */
export function formatWhen(at: number | null, now = Date.now()): string {
  if (at === null) return "—";
  const date = new Date(at);
  const sameDay = new Date(now).toDateString() === date.toDateString();
  return sameDay
    ? `Today ${date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`
    : date.toLocaleString([], { weekday: "short", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** What the list says about when it runs next. */
export function nextRunText(routine: Routine, now = Date.now()): string {
  if (routine.state === "paused") return "Paused";
  if (routine.retryAt !== null && (routine.nextFireAt === null || routine.retryAt < routine.nextFireAt)) {
    return `Retry ${formatWhen(routine.retryAt, now)}`;
  }
  if (routine.nextFireAt === null) return "No next run";
  return formatWhen(routine.nextFireAt, now);
}

/** A run's line: its outcome, and what it was (a catch-up, a retry) when not a plain slot. */
export function runSummary(run: RoutineRun): string {
  const outcome = OUTCOME_LABELS[run.outcome];
  return run.trigger === "schedule" ? outcome : `${outcome} · ${TRIGGER_LABELS[run.trigger]}`;
}

export type ScheduleMode = "preset" | "cron" | "every" | "once";
export type EveryUnit = "minutes" | "hours";

/** The editor's schedule fields, whatever the mode (switching modes keeps what was typed). */
export type ScheduleDraft = {
  mode: ScheduleMode;
  presetId: string;
  cron: string;
  tz: string;
  every: string;
  unit: EveryUnit;
  /** A `datetime-local` value, in the machine's zone. */
  once: string;
};

export function emptyDraft(presets: Preset[], tz: string): ScheduleDraft {
  return {
    mode: "preset",
    presetId: presets[0]?.id ?? "",
    cron: presets[0]?.expr ?? "0 8 * * *",
    tz,
    every: "60",
    unit: "minutes",
    once: "",
  };
}

/** The schedule the draft stands for; null while a field it needs is empty or not a number. */
export function draftSchedule(draft: ScheduleDraft, presets: Preset[]): Schedule | null {
  switch (draft.mode) {
    case "preset": {
      const preset = presets.find((p) => p.id === draft.presetId);
      return preset ? { kind: "cron", expr: preset.expr, tz: draft.tz } : null;
    }
    case "cron":
      return draft.cron.trim() ? { kind: "cron", expr: draft.cron, tz: draft.tz } : null;
    case "every": {
      const n = Number(draft.every);
      if (draft.every.trim() === "" || !Number.isFinite(n)) return null;
      // The engine says what is wrong with 0 or a fraction; it gets the whole number of minutes.
      return { kind: "every", minutes: Math.max(0, Math.round(draft.unit === "hours" ? n * 60 : n)) };
    }
    case "once": {
      const at = draft.once ? new Date(draft.once).getTime() : NaN;
      return Number.isFinite(at) ? { kind: "once", at } : null;
    }
  }
}

/** The draft that edits `schedule` (a cron that is a preset opens as that preset). */
export function scheduleDraft(schedule: Schedule, presets: Preset[], tz: string): ScheduleDraft {
  const draft = emptyDraft(presets, tz);
  switch (schedule.kind) {
    case "cron": {
      const expr = schedule.expr.trim().split(/\s+/).join(" ");
      const preset = presets.find((p) => p.expr === expr);
      return preset
        ? { ...draft, mode: "preset", presetId: preset.id, cron: expr, tz: schedule.tz }
        : { ...draft, mode: "cron", cron: expr, tz: schedule.tz };
    }
    case "every":
      return schedule.minutes % 60 === 0
        ? { ...draft, mode: "every", every: String(schedule.minutes / 60), unit: "hours" }
        : { ...draft, mode: "every", every: String(schedule.minutes), unit: "minutes" };
    case "once":
      return { ...draft, mode: "once", once: toLocalInput(schedule.at) };
  }
}

/** A time as a `datetime-local` input's value (the machine's zone, to the minute). */
export function toLocalInput(at: number): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Who a routine may belong to: agents, then teams that are not archived. */
export type OwnerChoice = { value: string; label: string; agentId: string | null; teamId: string | null };

export function ownerChoices(agents: Agent[], teams: Team[]): OwnerChoice[] {
  return [
    ...agents.map((a) => ({ value: `agent:${a.id}`, label: `${a.name} (@${a.handle})`, agentId: a.id, teamId: null })),
    ...teams
      .filter((t) => !t.archived)
      .map((t) => ({ value: `team:${t.id}`, label: `${t.name} (team, to its leader)`, agentId: null, teamId: t.id })),
  ];
}
