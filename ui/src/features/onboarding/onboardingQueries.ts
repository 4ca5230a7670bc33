// First run: whether it is one, the starter team proposed, making it or skipping.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { StarterTeamInput } from "../../bindings";
import { agentKeys } from "../agents/agentQueries";
import { teamKeys } from "../team-chat/teamQueries";


export const onboardingStateKey = ["onboarding", "state"] as const;
export const proposalKey = ["onboarding", "proposal"] as const;

export function useOnboardingState() {
  return useQuery({ queryKey: onboardingStateKey, queryFn: () => call("onboardingState"), staleTime: Infinity });
}

/** Asked once detection on the page has finished (`enabled`): the versions are cached by then. */
export function useStarterProposal(enabled: boolean) {
  return useQuery({ queryKey: proposalKey, queryFn: () => call("starterTeamProposal"), enabled, staleTime: 0 });
}

export function useCreateStarterTeam() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: StarterTeamInput) => call("createStarterTeam", input),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: onboardingStateKey });
      void client.invalidateQueries({ queryKey: teamKeys.teams });
      void client.invalidateQueries({ queryKey: agentKeys.agents });
    },
  });
}

export function useFinishOnboarding() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => call("finishOnboarding"),
    onSuccess: (state) => client.setQueryData(onboardingStateKey, state),
  });
}
