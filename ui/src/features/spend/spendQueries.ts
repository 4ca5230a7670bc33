// TanStack Query hooks for what agents spent: the Spend page, a scope's or a run's spend, prices.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { Price, SpendQuery, SpendScope as Scope } from "../../bindings";

export const spendKeys = {
  all: ["spend"] as const,
  page: (query: SpendQuery) => ["spend", "page", query] as const,
  scope: (scope: Scope) => ["spend", "scope", scope] as const,
  runs: (runIds: string[], version: string) => ["spend", "runs", runIds, version] as const,
  prices: ["spend", "prices"] as const,
};

export function useSpendPage(query: SpendQuery) {
  return useQuery({ queryKey: spendKeys.page(query), queryFn: () => call("spendPage", query) });
}

export function useScopeSpend(scope: Scope | null) {
  return useQuery({
    queryKey: spendKeys.scope(scope ?? { kind: "all" }),
    queryFn: () => call("spendOf", scope ?? { kind: "all" }),
    enabled: scope !== null,
  });
}

/** `version` changes when the runs may have spent more (a run's status): asked again then, and
 *  every few seconds while one is running. */
export function useRunsSpend(runIds: string[], version = "") {
  return useQuery({
    queryKey: spendKeys.runs(runIds, version),
    queryFn: () => call("runsSpend", runIds),
    enabled: runIds.length > 0,
    refetchInterval: version === "running" ? 5000 : false,
  });
}

export function usePrices() {
  return useQuery({ queryKey: spendKeys.prices, queryFn: () => call("spendPrices") });
}

export function useSetPrice() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ provider, model, price }: { provider: string; model: string; price: Price }) =>
      call("setSpendPrice", provider, model, price),
    onSuccess: (table) => client.setQueryData(spendKeys.prices, table),
  });
}

export function useRemovePrice() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ provider, model }: { provider: string; model: string }) => call("removeSpendPrice", provider, model),
    onSuccess: (table) => client.setQueryData(spendKeys.prices, table),
  });
}

export function useExportSpendCsv() {
  return useMutation({ mutationFn: (query: SpendQuery) => call("exportSpendCsv", query) });
}
