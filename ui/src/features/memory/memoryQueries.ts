// The Memory view's server state: facts (a list per filter, a detail per fact), agents' saved
// notes, scratch notes and promotions. Every key starts with "memory", so one `memoryChanged`
// event refetches whatever is on screen.
import { useEffect, useState } from "react";
import { useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { FactEdit, FactFilter, FactInput, ScratchScope } from "../../bindings";

export const memoryKeys = {
  all: ["memory"] as const,
  facts: (filter: FactFilter) => ["memory", "facts", filter] as const,
  search: (query: string) => ["memory", "search", query] as const,
  detail: (id: string) => ["memory", "detail", id] as const,
  notes: (agentId: string) => ["memory", "notes", agentId] as const,
  scratch: ["memory", "scratch"] as const,
  promotions: ["memory", "promotions"] as const,
};

/** How long typing pauses before the list searches. */
export const SEARCH_DEBOUNCE_MS = 150;

/** `value`, once it has stopped changing for `delay` ms. */
export function useDebounced<T>(value: T, delay: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return settled;
}

export function useFacts(filter: FactFilter) {
  return useQuery({
    queryKey: memoryKeys.facts(filter),
    queryFn: () => call("memoryList", filter),
    // Keep the rows on screen while the next query's rows load.
    placeholderData: (previous) => previous,
  });
}

/** Related facts (shared tags with the best matches) for a search. */
export function useRelatedFacts(query: string) {
  return useQuery({
    queryKey: memoryKeys.search(query),
    queryFn: () => call("memorySearch", query),
    enabled: query.trim() !== "",
    select: (result) => result.related,
  });
}

export function useFactDetail(id: string) {
  return useQuery({ queryKey: memoryKeys.detail(id), queryFn: () => call("memoryDetail", id) });
}

export function useSavedNotes(agentId: string | null) {
  return useQuery({
    queryKey: memoryKeys.notes(agentId ?? ""),
    queryFn: () => call("memoryNotes", agentId ?? ""),
    enabled: agentId !== null,
  });
}

export function useScratchNotes() {
  return useQuery({ queryKey: memoryKeys.scratch, queryFn: () => call("scratchAll") });
}

export function usePromotions() {
  return useQuery({ queryKey: memoryKeys.promotions, queryFn: () => call("promotions") });
}

/** A change: afterwards everything memory shows is read again (the event says so too; this
 *  makes the result show at once). */
function useMemoryChange<TVars, TResult>(fn: (vars: TVars) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => refetchMemory(client) });
}

export const useSaveFact = () => useMemoryChange((input: FactInput) => call("memorySave", input));
export const useEditFact = () => useMemoryChange(({ id, edit }: { id: string; edit: FactEdit }) => call("memoryEdit", id, edit));
export const useDeleteFact = () => useMemoryChange((id: string) => call("memoryDelete", id));
export const useRestoreFact = () => useMemoryChange((id: string) => call("memoryRestore", id));
export const useDeleteNote = () => useMemoryChange((id: string) => call("memoryDeleteNote", id));
export const useAddScratch = () =>
  useMemoryChange(({ scope, text }: { scope: ScratchScope; text: string }) => call("scratchAdd", scope, text));
export const useEditScratch = () =>
  useMemoryChange(({ id, text }: { id: string; text: string }) => call("scratchEdit", id, text));
export const useDeleteScratch = () => useMemoryChange((id: string) => call("scratchDelete", id));
export const useDecidePromotion = () =>
  useMemoryChange(({ id, approve }: { id: string; approve: boolean }) => call("decidePromotion", id, approve));

export function refetchMemory(client: QueryClient) {
  void client.invalidateQueries({ queryKey: memoryKeys.all });
}
