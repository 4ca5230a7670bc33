// TanStack Query hooks over ./api. Components use these, never ./api itself.
import {
  MutationCache,
  QueryCache,
  QueryClient,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import * as api from "./api";
import type { Agent, AgentFile, AgentPatch, NewAgent, Provider } from "./api";
import { ClawbooError, hasErrorCode } from "./errors";

export const queryKeys = {
  appInfo: ["appInfo"] as const,
  agents: ["agents"] as const,
  agentFiles: (agentId: string) => ["agentFiles", agentId] as const,
  agentFile: (agentId: string, name: string) => ["agentFile", agentId, name] as const,
  providers: ["providers"] as const,
};

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

export function useAppInfo() {
  return useQuery({ queryKey: queryKeys.appInfo, queryFn: api.appInfo, staleTime: Infinity });
}

export function useAgents() {
  return useQuery({ queryKey: queryKeys.agents, queryFn: api.listAgents });
}

export function useAgentFiles(agentId: string) {
  return useQuery({
    queryKey: queryKeys.agentFiles(agentId),
    queryFn: () => api.listAgentFiles(agentId),
  });
}

export function useAgentFile(agentId: string, name: string | null) {
  return useQuery({
    queryKey: queryKeys.agentFile(agentId, name ?? ""),
    queryFn: () => api.readAgentFile(agentId, name ?? ""),
    enabled: name !== null,
  });
}

export function useProviders() {
  return useQuery({ queryKey: queryKeys.providers, queryFn: api.listProviders });
}

function upsertAgent(list: Agent[] | undefined, agent: Agent): Agent[] | undefined {
  if (!list) return list;
  const index = list.findIndex((a) => a.id === agent.id);
  if (index === -1) return [...list, agent];
  const next = list.slice();
  next[index] = agent;
  return next;
}

export function useCreateAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: NewAgent) => api.createAgent(input),
    onSuccess: (agent) => {
      client.setQueryData<Agent[]>(queryKeys.agents, (list) => upsertAgent(list, agent));
      void client.invalidateQueries({ queryKey: queryKeys.agents });
    },
  });
}

export function useUpdateAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: AgentPatch }) => api.updateAgent(id, patch),
    onSuccess: (agent) => {
      client.setQueryData<Agent[]>(queryKeys.agents, (list) => upsertAgent(list, agent));
      void client.invalidateQueries({ queryKey: queryKeys.agents });
    },
  });
}

export function useDeleteAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.deleteAgent(id),
    onSuccess: (_data, id) => {
      client.setQueryData<Agent[]>(queryKeys.agents, (list) => list?.filter((a) => a.id !== id));
      client.removeQueries({ queryKey: queryKeys.agentFiles(id) });
      client.removeQueries({ queryKey: ["agentFile", id] });
      void client.invalidateQueries({ queryKey: queryKeys.agents });
    },
  });
}

export function useWriteAgentFile(agentId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ name, content }: { name: string; content: string }) =>
      api.writeAgentFile(agentId, name, content),
    onSuccess: (file: AgentFile) => {
      client.setQueryData(queryKeys.agentFile(agentId, file.name), file);
      void client.invalidateQueries({ queryKey: queryKeys.agentFiles(agentId) });
    },
  });
}

function useProviderMutation<TVars>(fn: (vars: TVars) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.providers }),
  });
}

export function useSetApiKey() {
  return useProviderMutation(({ provider, key }: { provider: Provider; key: string }) =>
    api.setApiKey(provider, key),
  );
}

export function useDeleteApiKey() {
  return useProviderMutation((provider: Provider) => api.deleteApiKey(provider));
}

export function useSetCustomBaseUrl() {
  return useProviderMutation((url: string) => api.setCustomBaseUrl(url));
}
