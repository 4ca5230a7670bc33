// The Routines page's server state. Every key starts with "routines", so one `routinesChanged`
// event (subscribed while the page is open) refetches whatever it shows.
import { useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { RoutineInput, Schedule } from "../../bindings";
import { useDebounced } from "../memory/memoryQueries";
import { useSubscription } from "../../lib/useSubscription";

/** The runs a routine's history shows. */
export const RUNS_SHOWN = 20;
/** How long typing in the schedule pauses before the preview asks the engine. */
export const PREVIEW_DEBOUNCE_MS = 250;

export const routineKeys = {
  all: ["routines"] as const,
  list: ["routines", "list"] as const,
  detail: (id: string) => ["routines", "detail", id] as const,
  presets: ["routines", "presets"] as const,
  preview: (schedule: Schedule) => ["routines", "preview", schedule] as const,
};

export function refetchRoutines(client: QueryClient) {
  void client.invalidateQueries({ queryKey: routineKeys.all });
}

/** Refetches the routines whenever the engine says they changed (while mounted). */
export function useRoutineEvents(onFailure: (e: unknown) => void) {
  const client = useQueryClient();
  useSubscription("routinesChanged", () => refetchRoutines(client), onFailure);
}

export function useRoutines() {
  return useQuery({ queryKey: routineKeys.list, queryFn: () => call("routinesList") });
}

export function useRoutineDetail(id: string | null) {
  return useQuery({
    queryKey: routineKeys.detail(id ?? ""),
    queryFn: () => call("routineGet", id ?? "", RUNS_SHOWN),
    enabled: id !== null,
  });
}

export function usePresets() {
  return useQuery({ queryKey: routineKeys.presets, queryFn: () => call("routinePresets"), staleTime: Infinity });
}

/** The schedule being typed, checked by the engine once typing pauses: its words and next 5
 *  times, or the engine's error (shown inline). */
export function useSchedulePreview(schedule: Schedule | null) {
  const settled = useDebounced(schedule, PREVIEW_DEBOUNCE_MS);
  return useQuery({
    queryKey: routineKeys.preview(settled ?? { kind: "every", minutes: 0 }),
    queryFn: () => call("routinePreview", settled as Schedule),
    enabled: settled !== null,
    retry: false,
    placeholderData: (previous) => previous,
  });
}

function useRoutineChange<TVars, TResult>(fn: (vars: TVars) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => refetchRoutines(client) });
}

export const useCreateRoutine = () => useRoutineChange((input: RoutineInput) => call("routineCreate", input));
export const useUpdateRoutine = () =>
  useRoutineChange(({ id, input }: { id: string; input: RoutineInput }) => call("routineUpdate", id, input));
export const useDeleteRoutine = () => useRoutineChange((id: string) => call("routineDelete", id));
export const usePauseRoutine = () => useRoutineChange((id: string) => call("routinePause", id));
export const useResumeRoutine = () => useRoutineChange((id: string) => call("routineResume", id));
export const useRunRoutineNow = () => useRoutineChange((id: string) => call("routineRunNow", id));
