// The app's one TanStack Query client.
import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { ClawbooError, hasErrorCode } from "../errors";

/**
 * How long what only one page shows stays cached once no page shows it (TanStack's default is
 * five minutes). A chat's or a room's loaded pages — all of them, however far back the user
 * scrolled — and what a run was given or sent are large and read in milliseconds: coming back
 * reads the newest page again, and the web process does not hold the rest meanwhile.
 */
export const CLOSED_PAGE_GC_MS = 5_000;

/** The key families kept only `CLOSED_PAGE_GC_MS`; lists, settings and counts keep the default. */
export const PAGE_ONLY_KEYS = [
  ["chatPages"],
  ["roomPages"],
  ["peerPosts"],
  ["chatRunContext"],
  ["runContext"],
  ["runRequests"],
  ["board", "runContext"],
] as const;

/**
 * One client per app. `onEngineUnavailable` fires when any command reports that
 * the data directory could not be opened, so the app can show its fatal panel.
 */
export function createQueryClient(onEngineUnavailable: (error: ClawbooError) => void): QueryClient {
  const watch = (error: unknown) => {
    if (hasErrorCode(error, "engine_unavailable")) onEngineUnavailable(error as ClawbooError);
  };
  const client = new QueryClient({
    queryCache: new QueryCache({ onError: watch }),
    mutationCache: new MutationCache({ onError: watch }),
    defaultOptions: {
      // Local IPC: failures are deterministic, and backend events tell us about changes.
      queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 },
      mutations: { retry: false },
    },
  });
  for (const key of PAGE_ONLY_KEYS) client.setQueryDefaults(key, { gcTime: CLOSED_PAGE_GC_MS });
  return client;
}
