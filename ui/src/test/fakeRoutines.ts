// The routines part of the fake API: routines with their runs, and a schedule check close
// enough to the engine's for the page's tests (src-tauri/routines/src).
import { vi } from "vitest";
import type { SomeCommandFakes } from "./commandFakes";
import { emit } from "./fakeEvents";
import { ClawbooError } from "../errors";
import type {
  Preset,
  Routine,
  RoutineDetail,
  RoutineInput,
  RoutineRun,
  Schedule,
  SchedulePresets,
  SchedulePreview,
} from "../bindings";

const MINUTE = 60_000;
const ZONES = ["UTC", "Europe/Berlin", "America/New_York"];
export const PRESETS: Preset[] = [
  { id: "morning", label: "Every morning at 08:00", expr: "0 8 * * *" },
  { id: "weekdays", label: "Weekdays at 09:00", expr: "0 9 * * 1-5" },
  { id: "hourly", label: "Every hour, on the hour", expr: "0 * * * *" },
];

function initialRoutines() {
  return {
    routines: [] as Routine[],
    runs: new Map<string, RoutineRun[]>(),
    nextId: 1,
    now: Date.UTC(2026, 2, 2, 7, 0),
  };
}

export const routines = initialRoutines();

export function resetRoutines() {
  Object.assign(routines, initialRoutines());
}

const schedule = (message: string): never => {
  throw new ClawbooError("invalid_schedule", message);
};

/** Checks like the engine; the fire times are a stand-in (hourly, or the interval). */
function preview(s: Schedule): SchedulePreview {
  if (s.kind === "once") {
    if (s.at <= routines.now) schedule("That time has already passed: choose a time in the future.");
    return { text: "Once", next: [s.at] };
  }
  if (s.kind === "every") {
    if (s.minutes < 1) schedule("A routine runs at most once a minute: the interval is at least 1 minute.");
    return {
      text: s.minutes % 60 === 0 ? `Every ${s.minutes / 60} hours` : `Every ${s.minutes} minutes`,
      next: [1, 2, 3, 4, 5].map((k) => routines.now + k * s.minutes * MINUTE),
    };
  }
  const fields = s.expr.trim().split(/\s+/);
  if (fields.length !== 5) schedule(`A cron expression has 5 fields; "${s.expr.trim()}" has ${fields.length}.`);
  if (!ZONES.includes(s.tz.trim())) schedule(`"${s.tz.trim()}" is not a known time zone.`);
  const preset = PRESETS.find((p) => p.expr === fields.join(" "));
  return {
    text: preset ? `${preset.label} (${s.tz})` : `Cron "${fields.join(" ")}" (${s.tz})`,
    next: [1, 2, 3, 4, 5].map((k) => routines.now + k * 60 * MINUTE),
  };
}

function find(id: string): Routine {
  const routine = routines.routines.find((r) => r.id === id);
  if (!routine) throw new ClawbooError("not_found", `Routine ${id} was not found.`);
  return routine;
}

function stored(input: RoutineInput, id: string, createdAt: number): Routine {
  if (!input.name.trim()) throw new ClawbooError("invalid_input", "A routine needs a name.");
  const checked = preview(input.schedule);
  return {
    id,
    name: input.name.trim(),
    agentId: input.agentId,
    teamId: input.teamId,
    ownerName: input.agentId ? "Agent" : "Team",
    prompt: input.prompt.trim(),
    schedule: input.schedule,
    scheduleText: checked.text,
    heartbeat: input.heartbeat ?? false,
    reportsToTeamId: input.reportsToTeamId ?? null,
    state: "active",
    pausedReason: null,
    createdBy: "user",
    creatorAgentId: null,
    approvalId: null,
    nextFireAt: checked.next[0] ?? null,
    retryAt: null,
    consecutiveFailures: 0,
    createdAt,
    updatedAt: routines.now,
    lastRun: null,
  };
}

/** A routine as the engine would have stored it (owner names given by the test). */
export function seedRoutine(partial: Partial<Routine> & Pick<Routine, "name">): Routine {
  const routine: Routine = {
    ...stored(
      {
        name: partial.name,
        agentId: partial.agentId ?? "a-1",
        teamId: partial.teamId ?? null,
        prompt: partial.prompt ?? "Do it.",
        schedule: partial.schedule ?? { kind: "cron", expr: "0 8 * * *", tz: "UTC" },
        heartbeat: false,
      },
      `rt-${routines.nextId++}`,
      routines.now,
    ),
    ...partial,
  };
  routines.routines.push(routine);
  return routine;
}

export function seedRoutineRun(routineId: string, partial: Partial<RoutineRun> = {}): RoutineRun {
  const run: RoutineRun = {
    id: `rr-${routines.nextId++}`,
    routineId,
    scheduledFor: routines.now,
    startedAt: routines.now,
    endedAt: null,
    outcome: "running",
    trigger: "schedule",
    catchUp: false,
    missed: 0,
    cardId: null,
    cardNumber: null,
    teamId: null,
    roomId: null,
    runId: null,
    note: null,
    ...partial,
  };
  routines.runs.set(routineId, [run, ...(routines.runs.get(routineId) ?? [])]);
  find(routineId).lastRun = run;
  return run;
}

export function emitRoutinesChanged() {
  emit("routinesChanged", null);
}

const sorted = () => [...routines.routines].sort((a, b) => a.name.localeCompare(b.name));

export const fakeRoutinesApi = {
  routinesList: vi.fn(async (): Promise<Routine[]> => sorted().map((r) => ({ ...r }))),
  routineGet: vi.fn(
    async (id: string, limit: number): Promise<RoutineDetail> => ({
      routine: { ...find(id) },
      runs: (routines.runs.get(id) ?? []).slice(0, limit),
    }),
  ),
  routineCreate: vi.fn(async (input: RoutineInput): Promise<Routine> => {
    const routine = stored(input, `rt-${routines.nextId++}`, routines.now);
    routines.routines.push(routine);
    return { ...routine };
  }),
  routineUpdate: vi.fn(async (id: string, input: RoutineInput): Promise<Routine> => {
    const old = find(id);
    Object.assign(old, { ...stored(input, id, old.createdAt), state: old.state, lastRun: old.lastRun });
    return { ...old };
  }),
  routineDelete: vi.fn(async (id: string): Promise<null> => {
    find(id);
    routines.routines = routines.routines.filter((r) => r.id !== id);
    return null;
  }),
  routinePause: vi.fn(async (id: string): Promise<Routine> => {
    Object.assign(find(id), { state: "paused", nextFireAt: null, retryAt: null });
    return { ...find(id) };
  }),
  routineResume: vi.fn(async (id: string): Promise<Routine> => {
    const routine = find(id);
    Object.assign(routine, { state: "active", pausedReason: null, nextFireAt: preview(routine.schedule).next[0] });
    return { ...routine };
  }),
  routineRunNow: vi.fn(async (id: string): Promise<RoutineRun> => {
    if ((routines.runs.get(id) ?? []).some((r) => r.outcome === "running")) {
      throw new ClawbooError("conflict", "It is still running; wait for its run to end.");
    }
    return seedRoutineRun(id, { trigger: "manual" });
  }),
  routinePreview: vi.fn(async (s: Schedule): Promise<SchedulePreview> => preview(s)),
  routinePresets: vi.fn(async (): Promise<SchedulePresets> => ({ presets: PRESETS, defaultTimeZone: "Europe/Berlin" })),
} satisfies SomeCommandFakes;
