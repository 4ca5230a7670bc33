// TanStack Query hooks for agents (the list, create, update, delete) and an OpenClaw agent's Gateway.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import { agentFileKeys } from "../agent-files/agentFileQueries";
import type { Agent, AgentPatch, NewAgent, OpenclawGateway, OpenclawGatewayInput } from "../../bindings";

export const agentKeys = {
  agents: ["agents"] as const,
  openclawGateway: (agentId: string) => ["openclawGateway", agentId] as const,
};

export function useAgents() {
  return useQuery({ queryKey: agentKeys.agents, queryFn: () => call("listAgents") });
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
    mutationFn: (input: NewAgent) => call("createAgent", input),
    onSuccess: (agent) => {
      client.setQueryData<Agent[]>(agentKeys.agents, (list) => upsertAgent(list, agent));
      void client.invalidateQueries({ queryKey: agentKeys.agents });
    },
  });
}

export function useUpdateAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: AgentPatch }) => call("updateAgent", id, patch),
    onSuccess: (agent) => {
      client.setQueryData<Agent[]>(agentKeys.agents, (list) => upsertAgent(list, agent));
      void client.invalidateQueries({ queryKey: agentKeys.agents });
      // A new runtime routes the files differently.
      void client.invalidateQueries({ queryKey: agentFileKeys.routes(agent.id) });
    },
  });
}

export function useDeleteAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call("deleteAgent", id),
    onSuccess: (_data, id) => {
      client.setQueryData<Agent[]>(agentKeys.agents, (list) => list?.filter((a) => a.id !== id));
      client.removeQueries({ queryKey: agentFileKeys.files(id) });
      client.removeQueries({ queryKey: ["agentFile", id] });
      client.removeQueries({ queryKey: agentKeys.openclawGateway(id) });
      client.removeQueries({ queryKey: agentFileKeys.routes(id) });
      void client.invalidateQueries({ queryKey: agentKeys.agents });
    },
  });
}

export function useOpenclawGateway(agentId: string) {
  return useQuery({
    queryKey: agentKeys.openclawGateway(agentId),
    queryFn: () => call("getOpenclawGateway", agentId),
  });
}

export function useSetOpenclawGateway(agentId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: OpenclawGatewayInput) => call("setOpenclawGateway", agentId, input),
    onSuccess: (gateway: OpenclawGateway) => {
      client.setQueryData(agentKeys.openclawGateway(agentId), gateway);
      // The URL is part of the agent too, and a Gateway of the user's own gets no files.
      void client.invalidateQueries({ queryKey: agentKeys.agents });
      void client.invalidateQueries({ queryKey: agentFileKeys.routes(agentId) });
    },
  });
}
