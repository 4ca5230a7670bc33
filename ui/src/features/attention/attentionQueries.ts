// The Inbox's server state: open requests, the history, the audit, "Allow always" grants, the
// approval expiry and the tray's count. Every key starts with "attention", so one
// `attentionChanged` event refetches whatever is on screen.
import { useEffect, useRef } from "react";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { AttentionSettings, AuditEntry, AttentionRequest, UserAnswer, Viewing } from "../../bindings";

export const attentionKeys = {
  all: ["attention"] as const,
  open: ["attention", "open"] as const,
  history: ["attention", "history"] as const,
  audit: ["attention", "audit"] as const,
  request: (id: string) => ["attention", "request", id] as const,
  grants: ["attention", "grants"] as const,
  settings: ["attention", "settings"] as const,
  tray: ["attention", "tray"] as const,
};

/** How many history requests or audit lines one page reads. */
export const ATTENTION_PAGE = 50;

export function useOpenRequests() {
  return useQuery({ queryKey: attentionKeys.open, queryFn: () => call("attentionOpen") });
}

/** Every request, newest first, a page at a time (each page after the last request of the one before). */
export function useRequestHistory() {
  return useInfiniteQuery({
    queryKey: attentionKeys.history,
    queryFn: ({ pageParam }) => call("attentionHistory", pageParam, ATTENTION_PAGE),
    initialPageParam: null as string | null,
    getNextPageParam: (last: AttentionRequest[]) =>
      last.length < ATTENTION_PAGE ? undefined : last[last.length - 1].id,
  });
}

/** The whole audit, newest first, a page at a time (older pages by sequence number). */
export function useAuditLog() {
  return useInfiniteQuery({
    queryKey: attentionKeys.audit,
    queryFn: ({ pageParam }) => call("attentionAudit", null, pageParam, ATTENTION_PAGE),
    initialPageParam: null as number | null,
    getNextPageParam: (last: AuditEntry[]) => (last.length < ATTENTION_PAGE ? undefined : last[last.length - 1].seq),
  });
}

/** One request, whatever its status (for one the lists on screen do not hold). */
export function useAttentionRequest(id: string | null) {
  return useQuery({
    queryKey: attentionKeys.request(id ?? ""),
    queryFn: () => call("attentionGet", id ?? ""),
    enabled: id !== null,
  });
}

export function useGrants() {
  return useQuery({ queryKey: attentionKeys.grants, queryFn: () => call("attentionGrants") });
}

export function useAttentionSettings() {
  return useQuery({ queryKey: attentionKeys.settings, queryFn: () => call("attentionSettings") });
}

/** The count the sidebar's Inbox badge shows (the same as the tray's). */
export function useTrayState() {
  return useQuery({ queryKey: attentionKeys.tray, queryFn: () => call("trayState") });
}

/** A change: afterwards everything the Inbox shows is read again (the event says so too; this
 *  makes the result show at once). */
function useAttentionChange<TVars, TResult>(fn: (vars: TVars) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => refetchAttention(client) });
}

export function useAnswerRequest() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, answer }: { id: string; answer: UserAnswer }) => call("attentionAnswer", id, answer),
    onSuccess: () => {
      refetchAttention(client);
      // A pause resumed or a budget allowed until tomorrow shows in Settings › Limits at once.
      void client.invalidateQueries({ queryKey: ["limits"] });
    },
  });
}
export const useRevokeGrant = () => useAttentionChange((id: string) => call("attentionRevokeGrant", id));
export const useSetAttentionSettings = () =>
  useAttentionChange((settings: AttentionSettings) => call("attentionSetSettings", settings));

export function refetchAttention(client: QueryClient) {
  void client.invalidateQueries({ queryKey: attentionKeys.all });
}

/** Tells the backend what the window shows, once per change (not on every render). */
export function useReportViewing(viewing: Viewing | null) {
  // A new object each render; its content is what counts.
  const key = viewing ? JSON.stringify(viewing) : "";
  const latest = useRef(viewing);
  latest.current = viewing;
  useEffect(() => {
    // Only a hint for notifications: a failure changes nothing the user sees.
    call("attentionViewing", latest.current).catch(() => {});
  }, [key]);
}
