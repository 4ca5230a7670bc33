// Connectors' server state. Every key starts with "connectors", so one `connectorsChanged`
// event refetches whatever is on screen.
import { useMutation, useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { ConnectorInput } from "../../bindings";

export const connectorKeys = {
  all: ["connectors"] as const,
  list: ["connectors", "list"] as const,
  suggested: ["connectors", "suggested"] as const,
};

export function refetchConnectors(client: QueryClient) {
  void client.invalidateQueries({ queryKey: connectorKeys.all });
}

export function useConnectors() {
  return useQuery({ queryKey: connectorKeys.list, queryFn: () => call("listConnectors") });
}

export function useSuggestedConnectors() {
  return useQuery({ queryKey: connectorKeys.suggested, queryFn: () => call("suggestedConnectors"), staleTime: Infinity });
}

function useConnectorMutation<A, R>(fn: (args: A) => Promise<R>) {
  const client = useQueryClient();
  return useMutation({ mutationFn: fn, onSettled: () => refetchConnectors(client) });
}

export const useCreateConnector = () => useConnectorMutation((input: ConnectorInput) => call("createConnector", input));

export const useUpdateConnector = () =>
  useConnectorMutation(({ id, input }: { id: string; input: ConnectorInput }) => call("updateConnector", id, input));

export const useDeleteConnector = () => useConnectorMutation((id: string) => call("deleteConnector", id));

export const useSetConnectorShares = () =>
  useConnectorMutation(({ id, agentIds }: { id: string; agentIds: string[] }) => call("setConnectorShares", id, agentIds));

export const useShareConnector = () =>
  useConnectorMutation(({ id, agentId, shared }: { id: string; agentId: string; shared: boolean }) =>
    call("shareConnector", id, agentId, shared),
  );

export const useClearConnectorSecret = () =>
  useConnectorMutation(({ id, key }: { id: string; key: string }) => call("clearConnectorSecret", id, key));
