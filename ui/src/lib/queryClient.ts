// The app's one TanStack Query client.
import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { ClawbooError, hasErrorCode } from "../errors";

/**
 * One client per app. `onEngineUnavailable` fires when any command reports that
 * the data directory could not be opened, so the app can show its fatal panel.
 */
export function createQueryClient(onEngineUnavailable: (error: ClawbooError) => void): QueryClient {
  const watch = (error: unknown) => {
    if (hasErrorCode(error, "engine_unavailable")) onEngineUnavailable(error as ClawbooError);
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError: watch }),
    mutationCache: new MutationCache({ onError: watch }),
    defaultOptions: {
      // Local IPC: failures are deterministic, and backend events tell us about changes.
      queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 },
      mutations: { retry: false },
    },
  });
}
