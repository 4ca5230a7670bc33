import { useEffect } from "react";
import { useQueryClient } from "@tanstack/react-query";
import {
  onAgentFileChanged,
  onAgentsChanged,
  onChatChanged,
  onRunEvent,
  onTeamsChanged,
  type Unlisten,
} from "./api";
import { queryKeys } from "./queries";
import { useRunActivityStore } from "./runActivity";

/** Subscribes to a backend event for the lifetime of the component. */
function useSubscription(subscribe: () => Promise<Unlisten>, onFailure: (e: unknown) => void) {
  useEffect(() => {
    let disposed = false;
    let unlisten: Unlisten | undefined;
    subscribe().then(
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
    // The subscription is set up once; callbacks read fresh state through the query client.
  }, []);
}

/**
 * Keeps server state in step with the backend's change events. A changed file
 * is refetched; the open editor reconciles the new disk content with its draft.
 * Run events go to the run activity store, never through the query cache.
 */
export function useBackendEvents(onFailure: (e: unknown) => void) {
  const client = useQueryClient();
  const runs = useRunActivityStore();

  useSubscription(
    // Also sent when the event stream lagged and file events may have been dropped, so every
    // agent query is refreshed; open editors reconcile what comes back with their drafts.
    () =>
      onAgentsChanged(() => {
        void client.invalidateQueries({ queryKey: queryKeys.agents });
        void client.invalidateQueries({ queryKey: ["agentFiles"] });
        void client.invalidateQueries({ queryKey: ["agentFile"] });
        void client.invalidateQueries({ queryKey: ["chatHistory"] });
        // A deleted agent leaves its teams; a lag may have dropped teamsChanged.
        void client.invalidateQueries({ queryKey: queryKeys.teams });
        runs.resync();
      }),
    onFailure,
  );

  useSubscription(
    () =>
      onTeamsChanged(() => {
        void client.invalidateQueries({ queryKey: queryKeys.teams });
      }),
    onFailure,
  );

  useSubscription(
    () =>
      onAgentFileChanged(({ agentId, name }) => {
        void client.invalidateQueries({ queryKey: queryKeys.agentFiles(agentId) });
        void client.invalidateQueries({ queryKey: queryKeys.agentFile(agentId, name), exact: true });
      }),
    onFailure,
  );

  useSubscription(
    () =>
      onChatChanged(({ agentId }) => {
        void client.invalidateQueries({ queryKey: queryKeys.chatHistory(agentId) });
      }),
    onFailure,
  );

  useSubscription(
    () =>
      onRunEvent(({ agentId, record }) => {
        // A run we had not heard of: its chat may not know it started yet.
        if (runs.add(record)) void client.invalidateQueries({ queryKey: queryKeys.chatHistory(agentId) });
      }),
    onFailure,
  );
}
