// TanStack Query hooks for teams: members, leader, rules, brief, About you and rooms.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { NewRoom, NewTeam, RoomPatch, Team } from "../../bindings";

export const teamKeys = {
  teams: ["teams"] as const,
};

export function useTeams() {
  return useQuery({ queryKey: teamKeys.teams, queryFn: () => call("listTeams") });
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
    onSuccess: (team) => client.setQueryData<Team[]>(teamKeys.teams, (list) => upsertTeam(list, team)),
    onSettled: () => client.invalidateQueries({ queryKey: teamKeys.teams }),
  });
}

/** A change whose result is not a whole team (a rule, a room, nothing): teams refetch. */
function useTeamsRefetchingChange<TVars, TResult>(fn: (vars: TVars) => Promise<TResult>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => client.invalidateQueries({ queryKey: teamKeys.teams }),
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
    onSuccess: (_data, id) => client.setQueryData<Team[]>(teamKeys.teams, (list) => list?.filter((t) => t.id !== id)),
    onSettled: () => client.invalidateQueries({ queryKey: teamKeys.teams }),
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
