// Limits' server state: the circuit breakers' limits, the scopes paused now, and the budgets.
// Every key starts with "limits"; an answered Inbox request refetches them too (see the Inbox).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { BudgetInput, BudgetPeriod, BudgetScope, Limits, ScopeKind } from "../../bindings";

export const limitsKeys = {
  all: ["limits"] as const,
  limits: ["limits", "limits"] as const,
  paused: ["limits", "paused"] as const,
  budgets: ["limits", "budgets"] as const,
};

export function useLimits() {
  return useQuery({ queryKey: limitsKeys.limits, queryFn: () => call("limitsGet") });
}

export function useSetLimits() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (limits: Limits) => call("limitsSet", limits),
    onSuccess: (next) => client.setQueryData(limitsKeys.limits, next),
  });
}

export function usePausedScopes() {
  return useQuery({ queryKey: limitsKeys.paused, queryFn: () => call("pausedScopes") });
}

export function useResumeScope() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ scope, id }: { scope: ScopeKind; id: string }) => call("scopeResume", scope, id),
    onSettled: () => client.invalidateQueries({ queryKey: limitsKeys.all }),
  });
}

export function useBudgets() {
  return useQuery({ queryKey: limitsKeys.budgets, queryFn: () => call("budgetsList") });
}

export function useSetBudget() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (budget: BudgetInput) => call("budgetSet", budget),
    onSettled: () => client.invalidateQueries({ queryKey: limitsKeys.budgets }),
  });
}

export function useRemoveBudget() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ scope, scopeId, period }: { scope: BudgetScope; scopeId: string; period: BudgetPeriod }) =>
      call("budgetRemove", scope, scopeId, period),
    onSettled: () => client.invalidateQueries({ queryKey: limitsKeys.budgets }),
  });
}
