// Boo Zero's server state: which agent it is, its rules and the global brief.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { BooZeroInfo } from "../../bindings";

export const booZeroKey = ["booZero"] as const;

/** Boo Zero never changes agent (it is kept by id), so this is read once and updated by saves. */
export function useBooZero() {
  return useQuery({ queryKey: booZeroKey, queryFn: () => call("booZero"), staleTime: Infinity });
}

/** The id of Boo Zero's agent, once known. */
export function useBooZeroId(): string | null {
  return useBooZero().data?.agentId ?? null;
}

function useBooZeroChange<T>(save: (input: T) => Promise<BooZeroInfo>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: save,
    onSuccess: (info) => client.setQueryData(booZeroKey, info),
  });
}

/** `null` goes back to the default rules. */
export const useSetBooZeroRules = () => useBooZeroChange((text: string | null) => call("setBooZeroRules", text));

export const useSetGlobalBrief = () => useBooZeroChange((text: string) => call("setGlobalBrief", text));
