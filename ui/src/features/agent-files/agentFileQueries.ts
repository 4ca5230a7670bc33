// TanStack Query hooks for an agent's files and how each reaches its runtime.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { AgentFile } from "../../bindings";

export const agentFileKeys = {
  files: (agentId: string) => ["agentFiles", agentId] as const,
  file: (agentId: string, name: string) => ["agentFile", agentId, name] as const,
  routes: (agentId: string) => ["agentFileRoutes", agentId] as const,
};

export function useAgentFiles(agentId: string) {
  return useQuery({
    queryKey: agentFileKeys.files(agentId),
    queryFn: () => call("listAgentFiles", agentId),
  });
}

export function useAgentFile(agentId: string, name: string | null) {
  return useQuery({
    queryKey: agentFileKeys.file(agentId, name ?? ""),
    queryFn: () => call("readAgentFile", agentId, name ?? ""),
    enabled: name !== null,
  });
}

/** How each file reaches the agent's runtime, with its budget. Depends on the runtime and its
 *  tools, so any change to agents refetches it (see backendEvents). */
export function useAgentFileRoutes(agentId: string) {
  return useQuery({
    queryKey: agentFileKeys.routes(agentId),
    queryFn: () => call("agentFileRoutes", agentId),
  });
}

export function useWriteAgentFile(agentId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ name, content }: { name: string; content: string }) =>
      call("writeAgentFile", agentId, name, content),
    onSuccess: (file: AgentFile) => {
      client.setQueryData(agentFileKeys.file(agentId, file.name), file);
      void client.invalidateQueries({ queryKey: agentFileKeys.files(agentId) });
    },
  });
}
