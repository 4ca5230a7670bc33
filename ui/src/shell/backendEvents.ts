import { useRef } from "react";
import { useQueryClient } from "@tanstack/react-query";
import {
  addChatMessage,
  changeChatRun,
  refetchNewestChatPages,
  supersedeChatMessages,
} from "../features/chat/chatQueries";
import { refetchUnread } from "../features/chat/unread";
import { refetchRooms } from "../features/team-chat/roomQueries";
import { refetchMemory } from "../features/memory/memoryQueries";
import { refetchBoard } from "../features/board/boardQueries";
import { refetchAttention } from "../features/attention/attentionQueries";
import { refetchConnectors } from "../features/connectors/connectorQueries";
import { useRunActivityStore } from "../features/activity/runActivity";
import { useSubscription } from "../lib/useSubscription";
import { agentFileKeys } from "../features/agent-files/agentFileQueries";
import { agentKeys } from "../features/agents/agentQueries";
import { teamKeys } from "../features/team-chat/teamQueries";
import { gatewayHealthKeys, putGatewayHealth } from "../features/agents/gatewayHealth";

/**
 * Keeps server state in step with the backend's change events. A changed file
 * is refetched; the open editor reconciles the new disk content with its draft.
 * Chats are updated in place from their events (a message appended, a run changed); after lost
 * events only each chat's newest page is read again. Run events go to the run activity store,
 * never through the query cache.
 */
export function useBackendEvents(onFailure: (e: unknown) => void) {
  const client = useQueryClient();
  const runs = useRunActivityStore();

  useSubscription(
    // Also sent when the event stream lagged and events may have been dropped, so every agent
    // query is refreshed (open editors reconcile what comes back with their drafts), and each
    // chat's newest page: older pages do not change.
    "agentsChanged",
    () => {
      void client.invalidateQueries({ queryKey: agentKeys.agents });
      void client.invalidateQueries({ queryKey: ["agentFiles"] });
      void client.invalidateQueries({ queryKey: ["agentFile"] });
      // Routes follow the runtime and its tools.
      void client.invalidateQueries({ queryKey: ["agentFileRoutes"] });
      refetchNewestChatPages(client);
      refetchRooms(client);
      refetchUnread(client);
      // A deleted agent leaves its teams; a lag may have dropped teamsChanged.
      void client.invalidateQueries({ queryKey: teamKeys.teams });
      refetchMemory(client);
      // A deleted agent leaves its cards unassigned.
      refetchBoard(client);
      // A deleted agent's requests are withdrawn; a lag may have dropped attentionChanged.
      refetchAttention(client);
      // A deleted agent's shares go with it.
      refetchConnectors(client);
      // A deleted agent, or one moved off a Gateway the user runs, has no link any more.
      void client.invalidateQueries({ queryKey: gatewayHealthKeys.all });
      runs.resync();
    },
    onFailure,
  );

  useSubscription(
    "teamsChanged",
    () => {
      void client.invalidateQueries({ queryKey: teamKeys.teams });
      // A deleted team leaves its cards without a team.
      refetchBoard(client);
    },
    onFailure,
  );

  // Whatever the Memory view shows is read again: facts, notes, scratch notes, promotions.
  useSubscription("memoryChanged", () => refetchMemory(client), onFailure);

  // Whatever the Board shows is read again: columns of cards, an open card, its runs.
  useSubscription("boardChanged", () => refetchBoard(client), onFailure);

  // Whatever the Inbox and its badge show is read again: open requests, history, audit, grants.
  useSubscription("attentionChanged", () => refetchAttention(client), onFailure);
  useSubscription("connectorsChanged", () => refetchConnectors(client), onFailure);
  useSubscription("gatewayHealthChanged", ({ health }) => putGatewayHealth(client, health), onFailure);

  useSubscription(
    "agentFileChanged",
    ({ agentId, name }) => {
      void client.invalidateQueries({ queryKey: agentFileKeys.files(agentId) });
      void client.invalidateQueries({ queryKey: agentFileKeys.file(agentId, name), exact: true });
    },
    onFailure,
  );

  useSubscription(
    "chatMessageAdded",
    ({ agentId, message }) => {
      addChatMessage(client, agentId, message);
      // A reply may be unread (the open chat marks itself read as it shows it).
      if (message.role === "assistant") refetchUnread(client);
    },
    onFailure,
  );
  useSubscription(
    "chatMessagesSuperseded",
    ({ agentId, messageIds }) => {
      supersedeChatMessages(client, agentId, messageIds);
      refetchUnread(client);
    },
    onFailure,
  );
  useSubscription(
    "roomMessageAdded",
    ({ message }) => {
      if (message.kind === "reply") refetchUnread(client);
    },
    onFailure,
  );
  useSubscription("readMarksChanged", () => refetchUnread(client), onFailure);

  useSubscription("runChanged", ({ agentId, chatId, run }) => changeChatRun(client, agentId, chatId, run), onFailure);

  // A run's start reaches its chat through runChanged, published before its first event.
  useSubscription("runEventEmitted", ({ record }) => void runs.add(record), onFailure);
}

export type ShellHandlers = {
  /** The user picked a request in the tray menu or its notification (null: the Inbox itself). */
  onOpenAttention: (requestId: string | null) => void;
  /** The window was hidden to the tray while agents work; `first` only the first time ever. */
  onKeptInTray: (first: boolean) => void;
};

/** The tray's events, which move the window rather than data: the handlers are read fresh on
 *  each event, so they may close over the current state. */
export function useShellEvents(handlers: ShellHandlers, onFailure: (e: unknown) => void) {
  const current = useRef(handlers);
  current.current = handlers;
  useSubscription("openAttention", ({ requestId }) => current.current.onOpenAttention(requestId), onFailure);
  useSubscription("keptInTray", ({ first }) => current.current.onKeptInTray(first), onFailure);
}
