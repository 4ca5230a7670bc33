// TanStack Query hooks over ./api. Components use these, never ./api itself.
import {
  MutationCache,
  QueryCache,
  QueryClient,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import { useCallback } from "react";
import { call } from "./api";
import type {
  Access,
  Agent,
  AgentFile,
  AgentPatch,
  ChatMessage,
  ChatPage,
  NewAgent,
  OpenclawGateway,
  OpenclawGatewayInput,
  Provider,
  RunSummary,
  RuntimeInfo,
  RuntimeKind,
  SendOutcome,
  NewRoom,
  NewTeam,
  RoomPatch,
  Team,
  Decision,
} from "./bindings";
import { refetchAttention } from "./attentionQueries";
import { ClawbooError, hasErrorCode } from "./errors";
import {
  newestPageOnly,
  olderPageParam,
  PAGE_SIZE,
  withMessage,
  withRun,
  type ChatPages,
  type PageParam,
} from "./lib/chatPages";

export const queryKeys = {
  appInfo: ["appInfo"] as const,
  agents: ["agents"] as const,
  agentFiles: (agentId: string) => ["agentFiles", agentId] as const,
  agentFile: (agentId: string, name: string) => ["agentFile", agentId, name] as const,
  agentFileRoutes: (agentId: string) => ["agentFileRoutes", agentId] as const,
  chatRunContext: (runId: string) => ["chatRunContext", runId] as const,
  openclawGateway: (agentId: string) => ["openclawGateway", agentId] as const,
  providers: ["providers"] as const,
  runtimes: ["runtimes"] as const,
  runtimeAccess: ["runtimeAccess"] as const,
  sandboxInfo: ["sandboxInfo"] as const,
  chatPages: (agentId: string) => ["chatPages", agentId] as const,
  teams: ["teams"] as const,
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
  return useQuery({ queryKey: queryKeys.appInfo, queryFn: () => call("appInfo"), staleTime: Infinity });
}

export function useAgents() {
  return useQuery({ queryKey: queryKeys.agents, queryFn: () => call("listAgents") });
}

export function useAgentFiles(agentId: string) {
  return useQuery({
    queryKey: queryKeys.agentFiles(agentId),
    queryFn: () => call("listAgentFiles", agentId),
  });
}

export function useAgentFile(agentId: string, name: string | null) {
  return useQuery({
    queryKey: queryKeys.agentFile(agentId, name ?? ""),
    queryFn: () => call("readAgentFile", agentId, name ?? ""),
    enabled: name !== null,
  });
}

/** How each file reaches the agent's runtime, with its budget. Depends on the runtime and its
 *  tools, so any change to agents refetches it (see backendEvents). */
export function useAgentFileRoutes(agentId: string) {
  return useQuery({
    queryKey: queryKeys.agentFileRoutes(agentId),
    queryFn: () => call("agentFileRoutes", agentId),
  });
}

/** What a one-to-one run was given; stored once when the run starts, never changed. */
export function useChatRunContext(runId: string) {
  return useQuery({
    queryKey: queryKeys.chatRunContext(runId),
    queryFn: () => call("chatRunContext", runId),
    staleTime: Infinity,
  });
}

export function useProviders() {
  return useQuery({ queryKey: queryKeys.providers, queryFn: () => call("listProviders") });
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
      client.setQueryData<Agent[]>(queryKeys.agents, (list) => upsertAgent(list, agent));
      void client.invalidateQueries({ queryKey: queryKeys.agents });
    },
  });
}

export function useUpdateAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: AgentPatch }) => call("updateAgent", id, patch),
    onSuccess: (agent) => {
      client.setQueryData<Agent[]>(queryKeys.agents, (list) => upsertAgent(list, agent));
      void client.invalidateQueries({ queryKey: queryKeys.agents });
      // A new runtime routes the files differently.
      void client.invalidateQueries({ queryKey: queryKeys.agentFileRoutes(agent.id) });
    },
  });
}

export function useDeleteAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call("deleteAgent", id),
    onSuccess: (_data, id) => {
      client.setQueryData<Agent[]>(queryKeys.agents, (list) => list?.filter((a) => a.id !== id));
      client.removeQueries({ queryKey: queryKeys.agentFiles(id) });
      client.removeQueries({ queryKey: ["agentFile", id] });
      client.removeQueries({ queryKey: queryKeys.openclawGateway(id) });
      client.removeQueries({ queryKey: queryKeys.agentFileRoutes(id) });
      void client.invalidateQueries({ queryKey: queryKeys.agents });
    },
  });
}

export function useWriteAgentFile(agentId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ name, content }: { name: string; content: string }) =>
      call("writeAgentFile", agentId, name, content),
    onSuccess: (file: AgentFile) => {
      client.setQueryData(queryKeys.agentFile(agentId, file.name), file);
      void client.invalidateQueries({ queryKey: queryKeys.agentFiles(agentId) });
    },
  });
}

export function useOpenclawGateway(agentId: string) {
  return useQuery({
    queryKey: queryKeys.openclawGateway(agentId),
    queryFn: () => call("getOpenclawGateway", agentId),
  });
}

export function useSetOpenclawGateway(agentId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: OpenclawGatewayInput) => call("setOpenclawGateway", agentId, input),
    onSuccess: (gateway: OpenclawGateway) => {
      client.setQueryData(queryKeys.openclawGateway(agentId), gateway);
      // The URL is part of the agent too, and a Gateway of the user's own gets no files.
      void client.invalidateQueries({ queryKey: queryKeys.agents });
      void client.invalidateQueries({ queryKey: queryKeys.agentFileRoutes(agentId) });
    },
  });
}

function useProviderMutation<TVars>(fn: (vars: TVars) => Promise<unknown>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => {
      void client.invalidateQueries({ queryKey: queryKeys.runtimeAccess }); // a key decides "automatic"
      return client.invalidateQueries({ queryKey: queryKeys.providers });
    },
  });
}

export function useSetApiKey() {
  return useProviderMutation(({ provider, key }: { provider: Provider; key: string }) =>
    call("setApiKey", provider, key),
  );
}

export function useDeleteApiKey() {
  return useProviderMutation((provider: Provider) => call("deleteApiKey", provider));
}

export function useSetBaseUrl() {
  return useProviderMutation(({ provider, url }: { provider: Provider; url: string | null }) =>
    call("setBaseUrl", provider, url),
  );
}

export function useRuntimes() {
  return useQuery({ queryKey: queryKeys.runtimes, queryFn: () => call("listRuntimes") });
}

export function useSetRuntimePath() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, path }: { kind: RuntimeKind; path: string | null }) => call("setRuntimePath", kind, path),
    onSuccess: (info) => {
      client.setQueryData<RuntimeInfo[]>(queryKeys.runtimes, (list) =>
        list?.map((r) => (r.kind === info.kind ? info : r)),
      );
    },
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.runtimes }),
  });
}

/** Whether agents are sandboxed on this OS; fixed for the app's life. */
export function useSandboxInfo() {
  return useQuery({ queryKey: queryKeys.sandboxInfo, queryFn: () => call("sandboxInfo"), staleTime: Infinity });
}

export function useRuntimeAccess() {
  return useQuery({ queryKey: queryKeys.runtimeAccess, queryFn: () => call("listRuntimeAccess") });
}

export function useSetRuntimeAccess() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ kind, access }: { kind: RuntimeKind; access: Access | null }) => call("setRuntimeAccess", kind, access),
    onSuccess: (list) => client.setQueryData(queryKeys.runtimeAccess, list),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.runtimeAccess }),
  });
}

/** An agent's chat, newest page first; `fetchNextPage` loads the page before the oldest. */
export function useChatPages(agentId: string) {
  return useInfiniteQuery<ChatPage, Error, ChatPages, ReturnType<typeof queryKeys.chatPages>, PageParam>({
    queryKey: queryKeys.chatPages(agentId),
    queryFn: ({ pageParam }): Promise<ChatPage> => call("chatHistoryPage", agentId, pageParam, PAGE_SIZE),
    initialPageParam: null as PageParam,
    getNextPageParam: olderPageParam,
    // Events keep it current; a refetch only follows lost events.
    staleTime: Infinity,
  });
}

/** Applies a stored message to an agent's cached chat; refetches the newest page if none is cached yet. */
export function addChatMessage(client: QueryClient, agentId: string, message: ChatMessage) {
  updateChat(client, agentId, (data) => withMessage(data, message));
}

/** Applies a run's new state to an agent's cached chat. */
export function changeChatRun(client: QueryClient, agentId: string, run: RunSummary) {
  updateChat(client, agentId, (data) => withRun(data, run));
}

function updateChat(client: QueryClient, agentId: string, update: (data: ChatPages) => ChatPages) {
  const key = queryKeys.chatPages(agentId);
  const state = client.getQueryState(key);
  if (!state) return; // never opened: it reads the store when it is
  if (state.data === undefined) {
    // The first page is still on its way and may have been read before this was stored.
    void client.invalidateQueries({ queryKey: key });
    return;
  }
  client.setQueryData<ChatPages>(key, (data) => data && update(data));
}

/** Keeps only the newest page of every cached chat and refetches it: after events were lost. */
export function refetchNewestChatPages(client: QueryClient, agentId?: string) {
  const queryKey = agentId ? queryKeys.chatPages(agentId) : ["chatPages"];
  client.setQueriesData<ChatPages>({ queryKey }, (data) => data && newestPageOnly(data));
  void client.invalidateQueries({ queryKey });
}

/** Refetches an agent's newest page, for when we know it changed but heard nothing. */
export function useRefreshChat(agentId: string) {
  const client = useQueryClient();
  return useCallback(() => refetchNewestChatPages(client, agentId), [client, agentId]);
}

export function useSendChatMessage(agentId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (text: string) => call("sendChatMessage", agentId, text),
    // The same news comes as events too; whichever lands first is kept once.
    onSuccess: ({ message, run }: SendOutcome) => {
      addChatMessage(client, agentId, message);
      if (run) changeChatRun(client, agentId, run);
    },
  });
}

/** The backend reports the stopped run through runChanged. */
export function useCancelRun() {
  return useMutation({ mutationFn: (runId: string) => call("cancelRun", runId) });
}

/** The run learns the answer at once; the Inbox and its badge are read again. */
export function useAnswerPermission() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ runId, requestId, decision }: { runId: string; requestId: string; decision: Decision }) =>
      call("answerPermission", runId, requestId, decision),
    onSuccess: () => refetchAttention(client),
  });
}

export function useTeams() {
  return useQuery({ queryKey: queryKeys.teams, queryFn: () => call("listTeams") });
}

function upsertTeam(list: Team[] | undefined, team: Team): Team[] | undefined {
  if (!list) return list;
  const index = list.findIndex((t) => t.id === team.id);
  if (index === -1) return [...list, team];
  const next = list.slice();
  next[index] = team;
  return next;
}

/** A change to one team: the team it returns replaces the cached one, then teams refetch. */
function useTeamChange<TVars>(fn: (vars: TVars) => Promise<Team>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: (team) => client.setQueryData<Team[]>(queryKeys.teams, (list) => upsertTeam(list, team)),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.teams }),
  });
}

/** A change whose result is not a whole team (a rule, a room, nothing): teams refetch. */
function useTeamsRefetchingChange<TVars, TResult>(fn: (vars: TVars) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.teams }),
  });
}

export const useCreateTeam = () => useTeamChange((input: NewTeam) => call("createTeam", input));

export const useRenameTeam = () =>
  useTeamChange(({ id, name }: { id: string; name: string }) => call("renameTeam", id, name));

export const useSetTeamArchived = () =>
  useTeamChange(({ id, archived }: { id: string; archived: boolean }) => call("setTeamArchived", id, archived));

export function useDeleteTeam() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call("deleteTeam", id),
    onSuccess: (_data, id) => client.setQueryData<Team[]>(queryKeys.teams, (list) => list?.filter((t) => t.id !== id)),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.teams }),
  });
}

/** Members, leader and roles as one save from the members dialog (several commands, in order). */
export const useSaveTeamMembers = () =>
  useTeamChange(
    async ({
      id,
      memberIds,
      leaderId,
      roles,
    }: {
      id: string;
      memberIds: string[];
      leaderId: string | null;
      roles: Record<string, string>;
    }) => {
      let team = await call("setTeamMembers", id, memberIds);
      if (leaderId && team.leaderId !== leaderId) team = await call("setTeamLeader", id, leaderId);
      for (const member of team.members) {
        const role = roles[member.agentId];
        if (role !== undefined && role.trim() !== member.role) team = await call("setMemberRole", id, member.agentId, role);
      }
      return team;
    },
  );

export const useAddTeamRule = () =>
  useTeamsRefetchingChange(({ id, text }: { id: string; text: string }) => call("addTeamRule", id, text));

export const useRemoveTeamRule = () =>
  useTeamChange(({ id, ruleId }: { id: string; ruleId: string }) => call("removeTeamRule", id, ruleId));

export const useSetTeamBrief = () =>
  useTeamChange(({ id, text }: { id: string; text: string }) => call("setTeamBrief", id, text));

/** `null` clears it (cards of the team then work in their own folder, or the agent's). */
export const useSetTeamProjectFolder = () =>
  useTeamChange(({ id, folder }: { id: string; folder: string | null }) => call("setTeamProjectFolder", id, folder));

export const useSetAboutYou = () =>
  useTeamChange(({ id, text }: { id: string; text: string }) => call("setAboutYou", id, text));

export const useCreateRoom = () =>
  useTeamsRefetchingChange(({ teamId, input }: { teamId: string; input: NewRoom }) => call("createRoom", teamId, input));

export const useUpdateRoom = () =>
  useTeamsRefetchingChange(({ roomId, patch }: { roomId: string; patch: RoomPatch }) =>
    call("updateRoom", roomId, patch),
  );

export const useDeleteRoom = () => useTeamsRefetchingChange((roomId: string) => call("deleteRoom", roomId));
