// Home's server state: one summary of what is running and what needs the user, read again
// whenever a run, a room's run, the Board, the Inbox or the routines change (while Home shows).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import { useSubscription } from "../../lib/useSubscription";

export const homeKeys = { summary: ["home", "summary"] as const };

export function useHomeSummary() {
  return useQuery({ queryKey: homeKeys.summary, queryFn: () => call("homeSummary") });
}

/** Keeps the summary fresh from the events that change what it lists. */
export function useHomeEvents(onFailure: (e: unknown) => void) {
  const client = useQueryClient();
  const refetch = () => void client.invalidateQueries({ queryKey: homeKeys.summary });
  useSubscription("runChanged", refetch, onFailure);
  useSubscription("roomRunChanged", refetch, onFailure);
  useSubscription("boardChanged", refetch, onFailure);
  useSubscription("attentionChanged", refetch, onFailure);
  useSubscription("routinesChanged", refetch, onFailure);
  useSubscription("agentsChanged", refetch, onFailure);
}
