// The Board's server state: cards per filter, one card's detail and runs, and the columns with
// the moves the engine allows. Every key starts with "board", so one `boardChanged` event
// refetches whatever is on screen.
import { useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { CardEdit, CardFilter, CardStatus, NewCard, RunnerSettings } from "../../bindings";

export const boardKeys = {
  all: ["board"] as const,
  columns: ["board", "columns"] as const,
  cards: (filter: CardFilter) => ["board", "cards", filter] as const,
  detail: (id: string) => ["board", "detail", id] as const,
  runs: (id: string) => ["board", "runs", id] as const,
  runContext: (runId: string) => ["board", "runContext", runId] as const,
  settings: ["board", "runnerSettings"] as const,
  traces: ["board", "traces"] as const,
  diff: (cardId: string) => ["board", "diff", cardId] as const,
};

export function useBoardColumns() {
  return useQuery({ queryKey: boardKeys.columns, queryFn: () => call("boardColumns"), staleTime: Infinity });
}

export function useCards(filter: CardFilter) {
  return useQuery({
    queryKey: boardKeys.cards(filter),
    queryFn: () => call("boardList", filter),
    placeholderData: (previous) => previous,
  });
}

export function useCardDetail(id: string) {
  return useQuery({ queryKey: boardKeys.detail(id), queryFn: () => call("boardCard", id) });
}

export function useCardRuns(id: string) {
  return useQuery({ queryKey: boardKeys.runs(id), queryFn: () => call("boardRuns", id) });
}

/** A change: afterwards everything the Board shows is read again (the event says so too; this
 *  makes the result show at once). */
function useBoardChange<TVars, TResult>(fn: (vars: TVars) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => refetchBoard(client) });
}

export const useCreateCard = () => useBoardChange((input: NewCard) => call("boardCreate", input));
export const useEditCard = () => useBoardChange(({ id, edit }: { id: string; edit: CardEdit }) => call("boardEdit", id, edit));
export const useMoveCard = () =>
  useBoardChange(
    ({ id, to, reason, position }: { id: string; to: CardStatus; reason?: string | null; position?: number | null }) =>
      call("boardMove", id, to, reason ?? null, position ?? null),
  );
export const useCommentCard = () =>
  useBoardChange(({ id, text }: { id: string; text: string }) => call("boardComment", id, text));
export const useStartRun = () =>
  useBoardChange(({ id, withMemory }: { id: string; withMemory: boolean }) => call("boardRunStart", id, !withMemory));
export const useStopRun = () => useBoardChange((id: string) => call("boardRunCancel", id));

/** A run's context never changes once stored. */
export function useTaskRunContext(runId: string) {
  return useQuery({ queryKey: boardKeys.runContext(runId), queryFn: () => call("boardRunContext", runId), staleTime: Infinity });
}

/** The newest task runs; a run's end changes the Board, which refetches these. */
export function useTraces() {
  return useQuery({ queryKey: boardKeys.traces, queryFn: () => call("runnerTraces", 200) });
}

export function useRunnerSettings() {
  return useQuery({ queryKey: boardKeys.settings, queryFn: () => call("runnerSettings") });
}

export const useSetRunnerSettings = () => useBoardChange((settings: RunnerSettings) => call("runnerSetSettings", settings));

export const useDeleteCard = () => useBoardChange((id: string) => call("boardDelete", id));

export function refetchBoard(client: QueryClient) {
  void client.invalidateQueries({ queryKey: boardKeys.all });
}
