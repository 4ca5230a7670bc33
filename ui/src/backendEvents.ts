import { useEffect } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { onAgentFileChanged, onAgentsChanged, type Unlisten } from "./api";
import { queryKeys } from "./queries";

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
 */
export function useBackendEvents(onFailure: (e: unknown) => void) {
  const client = useQueryClient();

  useSubscription(
    // Also sent when the event stream lagged and file events may have been dropped, so every
    // agent query is refreshed; open editors reconcile what comes back with their drafts.
    () =>
      onAgentsChanged(() => {
        void client.invalidateQueries({ queryKey: queryKeys.agents });
        void client.invalidateQueries({ queryKey: ["agentFiles"] });
        void client.invalidateQueries({ queryKey: ["agentFile"] });
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
}
