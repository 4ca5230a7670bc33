// The Routines page's server state. Every key starts with "routines", so one `routinesChanged`
// event (subscribed while the page is open) refetches whatever it shows.
import { useEffect } from "react";
import { useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import * as api from "./api";
import type { RoutineInput, Schedule } from "./api";
import { useDebounced } from "./memoryQueries";

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
  useEffect(() => {
    let disposed = false;
    let unlisten: (() => void) | undefined;
    api.onRoutinesChanged(() => refetchRoutines(client)).then(
      (fn) => {
        if (disposed) fn();
        else unlisten = fn;
      },
      (e: unknown) => {
        if (!disposed) onFailure(e);
      },
    );
    return () => {
      disposed = true;
      unlisten?.();
    };
  }, [client]);
}

export function useRoutines() {
  return useQuery({ queryKey: routineKeys.list, queryFn: api.routinesList });
}

export function useRoutineDetail(id: string | null) {
  return useQuery({
    queryKey: routineKeys.detail(id ?? ""),
    queryFn: () => api.routineGet(id ?? "", RUNS_SHOWN),
    enabled: id !== null,
  });
}

export function usePresets() {
  return useQuery({ queryKey: routineKeys.presets, queryFn: api.routinePresets, staleTime: Infinity });
}

/** The schedule being typed, checked by the engine once typing pauses: its words and next 5
 *  times, or the engine's error (shown inline). */
export function useSchedulePreview(schedule: Schedule | null) {
  const settled = useDebounced(schedule, PREVIEW_DEBOUNCE_MS);
  return useQuery({
    queryKey: routineKeys.preview(settled ?? { kind: "every", minutes: 0 }),
    queryFn: () => api.routinePreview(settled as Schedule),
    enabled: settled !== null,
    retry: false,
    placeholderData: (previous) => previous,
  });
}

function useRoutineChange<TVars, TResult>(fn: (vars: TVars) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => refetchRoutines(client) });
}

export const useCreateRoutine = () => useRoutineChange((input: RoutineInput) => api.routineCreate(input));
export const useUpdateRoutine = () =>
  useRoutineChange(({ id, input }: { id: string; input: RoutineInput }) => api.routineUpdate(id, input));
export const useDeleteRoutine = () => useRoutineChange((id: string) => api.routineDelete(id));
export const usePauseRoutine = () => useRoutineChange((id: string) => api.routinePause(id));
export const useResumeRoutine = () => useRoutineChange((id: string) => api.routineResume(id));
export const useRunRoutineNow = () => useRoutineChange((id: string) => api.routineRunNow(id));
