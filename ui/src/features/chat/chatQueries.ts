// TanStack Query hooks for an agent's one-to-one chat: its pages (kept current by events), sending,
// stopping, permission answers and what a run was given.
import { QueryClient, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { call } from "../../api";
import { refetchAttention } from "../attention/attentionQueries";
import {
  newestPageOnly,
  olderPageParam,
  PAGE_SIZE,
  withMessage,
  withRun,
  withSuperseded,
  type ChatPages,
  type PageParam,
} from "./chatPages";
import type { ChatMessage, ChatPage, Decision, RunSummary, SendOutcome } from "../../bindings";

export const chatKeys = {
  pages: (agentId: string) => ["chatPages", agentId] as const,
  runContext: (runId: string) => ["chatRunContext", runId] as const,
};

/** What a one-to-one run was given; stored once when the run starts, never changed. */
export function useChatRunContext(runId: string) {
  return useQuery({
    queryKey: chatKeys.runContext(runId),
    queryFn: () => call("chatRunContext", runId),
    staleTime: Infinity,
  });
}

/** An agent's chat, newest page first; `fetchNextPage` loads the page before the oldest. */
export function useChatPages(agentId: string) {
  return useInfiniteQuery<ChatPage, Error, ChatPages, ReturnType<typeof chatKeys.pages>, PageParam>({
    queryKey: chatKeys.pages(agentId),
    queryFn: ({ pageParam }): Promise<ChatPage> => call("chatHistoryPage", agentId, pageParam, PAGE_SIZE),
    initialPageParam: null as PageParam,
    getNextPageParam: olderPageParam,
    // Events keep it current; a refetch only follows lost events.
    staleTime: Infinity,
  });
}

/** Applies a stored message to an agent's cached chat; refetches the newest page if none is cached yet. */
export function addChatMessage(client: QueryClient, agentId: string, message: ChatMessage) {
  updateChat(client, agentId, (data) => withMessage(data, message));
}

/** Marks the messages a retry or an edit replaced in an agent's cached chat. */
export function supersedeChatMessages(client: QueryClient, agentId: string, messageIds: string[]) {
  updateChat(client, agentId, (data) => withSuperseded(data, messageIds));
}

/** Applies a run's new state to an agent's cached chat. */
export function changeChatRun(client: QueryClient, agentId: string, run: RunSummary) {
  updateChat(client, agentId, (data) => withRun(data, run));
}

function updateChat(client: QueryClient, agentId: string, update: (data: ChatPages) => ChatPages) {
  const key = chatKeys.pages(agentId);
  const state = client.getQueryState(key);
  if (!state) return; // never opened: it reads the store when it is
  if (state.data === undefined) {
    // The first page is still on its way and may have been read before this was stored.
    void client.invalidateQueries({ queryKey: key });
    return;
  }
  client.setQueryData<ChatPages>(key, (data) => data && update(data));
}

/** Keeps only the newest page of every cached chat and refetches it: after events were lost. */
export function refetchNewestChatPages(client: QueryClient, agentId?: string) {
  const queryKey = agentId ? chatKeys.pages(agentId) : ["chatPages"];
  client.setQueriesData<ChatPages>({ queryKey }, (data) => data && newestPageOnly(data));
  void client.invalidateQueries({ queryKey });
}

/** Refetches an agent's newest page, for when we know it changed but heard nothing. */
export function useRefreshChat(agentId: string) {
  const client = useQueryClient();
  return useCallback(() => refetchNewestChatPages(client, agentId), [client, agentId]);
}

export function useSendChatMessage(agentId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (text: string) => call("sendChatMessage", agentId, text),
    // The same news comes as events too; whichever lands first is kept once.
    onSuccess: ({ message, run }: SendOutcome) => {
      addChatMessage(client, agentId, message);
      if (run) changeChatRun(client, agentId, run);
    },
  });
}

/** A retry (`text` null: the same message) or an edit of the user's last message: the replaced
 *  exchange is folded, the new message and run appended. */
export function useReplaceChatMessage(agentId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ messageId, text }: { messageId: string; text: string | null }) =>
      text === null ? call("retryChatMessage", messageId) : call("editChatMessage", messageId, text),
    // The events say the same (chatMessagesSuperseded names the replaced reply too); whichever
    // lands first is kept once.
    onSuccess: ({ message, run }: SendOutcome, { messageId }) => {
      supersedeChatMessages(client, agentId, [messageId]);
      addChatMessage(client, agentId, message);
      if (run) changeChatRun(client, agentId, run);
    },
  });
}

/** The backend reports the stopped run through runChanged. */
export function useCancelRun() {
  return useMutation({ mutationFn: (runId: string) => call("cancelRun", runId) });
}

/** The run learns the answer at once; the Inbox and its badge are read again. */
export function useAnswerPermission() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ runId, requestId, decision }: { runId: string; requestId: string; decision: Decision }) =>
      call("answerPermission", runId, requestId, decision),
    onSuccess: () => refetchAttention(client),
  });
}
