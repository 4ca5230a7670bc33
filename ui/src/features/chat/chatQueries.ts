// TanStack Query hooks for an agent's one-to-one chats: the list of its chats, each chat's pages
// (kept current by events), sending, stopping, permission answers and what a run was given.
import { QueryClient, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { call } from "../../api";
import { refetchAttention } from "../attention/attentionQueries";
import {
  newestPageOnly,
  olderPageParam,
  withChatActivity,
  PAGE_SIZE,
  withMessage,
  withRun,
  withSuperseded,
  type ChatPages,
  type PageParam,
} from "./chatPages";
import type { ChatMessage, ChatPage, ChatSummary, Decision, RunSummary, SendOutcome } from "../../bindings";

export const chatKeys = {
  /** One chat's pages; `null`: the agent's most recently used chat (it has none listed yet). */
  pages: (agentId: string, chatId: string | null) => ["chatPages", agentId, chatId ?? ""] as const,
  /** Every chat's pages of an agent. */
  agentPages: (agentId: string) => ["chatPages", agentId] as const,
  list: (agentId: string) => ["chats", agentId] as const,
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

/** One of an agent's chats, newest page first; `fetchNextPage` loads the page before the oldest. */
export function useChatPages(agentId: string, chatId: string | null, enabled = true) {
  return useInfiniteQuery<ChatPage, Error, ChatPages, ReturnType<typeof chatKeys.pages>, PageParam>({
    queryKey: chatKeys.pages(agentId, chatId),
    enabled,
    queryFn: ({ pageParam }): Promise<ChatPage> => call("chatHistoryPage", agentId, chatId, pageParam, PAGE_SIZE),
    initialPageParam: null as PageParam,
    getNextPageParam: olderPageParam,
    // Events keep it current; a refetch only follows lost events.
    staleTime: Infinity,
  });
}

/** Applies a stored message to its cached chat (refetches the newest page if none is cached yet).
 *  The agent's list is updated in place when the message is news to the open chat (its place, its
 *  count), else read again (a chat not open, or a first message that names its chat). */
export function addChatMessage(client: QueryClient, agentId: string, message: ChatMessage) {
  const added = updateChat(client, agentId, message.chatId, (data) => withMessage(data, message));
  if (added === "unchanged") return; // heard before (the send's answer and its event both tell)
  const list = chatKeys.list(agentId);
  const chats = client.getQueryData<ChatSummary[]>(list);
  const moved = added === "changed" && chats ? withChatActivity(chats, message) : undefined;
  if (moved) client.setQueryData<ChatSummary[]>(list, moved);
  else void client.invalidateQueries({ queryKey: list });
}

/** Applies a run's new state to its cached chat. */
export function changeChatRun(client: QueryClient, agentId: string, chatId: string, run: RunSummary) {
  updateChat(client, agentId, chatId, (data) => withRun(data, run));
}

/** Marks the messages a retry or an edit replaced, in whichever of the agent's cached chats holds them. */
export function supersedeChatMessages(client: QueryClient, agentId: string, messageIds: string[]) {
  client.setQueriesData<ChatPages>({ queryKey: chatKeys.agentPages(agentId) }, (data) =>
    data && withSuperseded(data, messageIds),
  );
}

/** What an update did to a chat's cached pages: `unknown` when none are cached (or not yet). */
type ChatUpdate = "changed" | "unchanged" | "unknown";

function updateChat(
  client: QueryClient,
  agentId: string,
  chatId: string,
  update: (data: ChatPages) => ChatPages,
): ChatUpdate {
  const key = chatKeys.pages(agentId, chatId);
  const state = client.getQueryState(key);
  if (!state) return "unknown"; // never opened: it reads the store when it is
  if (state.data === undefined) {
    // The first page is still on its way and may have been read before this was stored.
    void client.invalidateQueries({ queryKey: key });
    return "unknown";
  }
  let outcome: ChatUpdate = "unchanged";
  client.setQueryData<ChatPages>(key, (data) => {
    if (!data) return data;
    const next = update(data);
    if (next !== data) outcome = "changed";
    return next;
  });
  return outcome;
}

/** Keeps only the newest page of every cached chat and refetches it: after events were lost. */
export function refetchNewestChatPages(client: QueryClient, agentId?: string) {
  const queryKey = agentId ? chatKeys.agentPages(agentId) : ["chatPages"];
  client.setQueriesData<ChatPages>({ queryKey }, (data) => data && newestPageOnly(data));
  void client.invalidateQueries({ queryKey });
}

/** Refetches an agent's newest pages, for when we know they changed but heard nothing. */
export function useRefreshChat(agentId: string) {
  const client = useQueryClient();
  return useCallback(() => refetchNewestChatPages(client, agentId), [client, agentId]);
}

/** Sends in `chatId` (null: the agent's most recently used chat, made if it has none). */
export function useSendChatMessage(agentId: string, chatId: string | null) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (text: string) => call("sendChatMessage", agentId, chatId, text),
    // The same news comes as events too; whichever lands first is kept once.
    onSuccess: ({ message, run }: SendOutcome) => {
      addChatMessage(client, agentId, message);
      if (run) changeChatRun(client, agentId, message.chatId, run);
    },
  });
}

/** The agent's chats (archived included): pinned first, then the most recently used. */
export function useChats(agentId: string) {
  return useQuery({ queryKey: chatKeys.list(agentId), queryFn: () => call("listChats", agentId) });
}

/** Making, naming, pinning, archiving, deleting and restoring an agent's chats; each reads the
 *  list again when done. */
export function useChatActions(agentId: string) {
  const client = useQueryClient();
  const onSettled = () => client.invalidateQueries({ queryKey: chatKeys.list(agentId) });
  const create = useMutation({ mutationFn: () => call("newChat", agentId), onSettled });
  const rename = useMutation({
    mutationFn: ({ chatId, title }: { chatId: string; title: string }) => call("renameChat", chatId, title),
    onSettled,
  });
  const pin = useMutation({
    mutationFn: ({ chatId, pinned }: { chatId: string; pinned: boolean }) => call("pinChat", chatId, pinned),
    onSettled,
  });
  const archive = useMutation({
    mutationFn: ({ chatId, archived }: { chatId: string; archived: boolean }) =>
      call("archiveChat", chatId, archived),
    onSettled,
  });
  const remove = useMutation({ mutationFn: (chatId: string) => call("deleteChat", chatId), onSettled });
  const restore = useMutation({ mutationFn: (chatId: string) => call("restoreChat", chatId), onSettled });
  return { create, rename, pin, archive, remove, restore };
}

export type { ChatSummary };

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
      if (run) changeChatRun(client, agentId, message.chatId, run);
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
