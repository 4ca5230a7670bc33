// The teams part of the fake API, with the engine's rules (src-tauri/teams/src): teams, rooms,
// team chat and peer posts.
import { vi } from "vitest";
import { ClawbooError } from "../errors";
import type { SomeCommandFakes } from "./commandFakes";
import { emit } from "./fakeEvents";
import { backend, notFound, tick, currentTick } from "./fakeState";
import type {
  RunSummary,
  NewRoom,
  NewTeam,
  Room,
  RoomPatch,
  Team,
  TeamRule,
  PeerPage,
  RelayedRequest,
  RoomMessage,
  RoomPage,
  RunContext,
  TeamSendOutcome,
} from "../bindings";

// Teams, with the engine's rules (src-tauri/teams/src): the messages tests look for match.
const RULES_BUDGET = 4_000;
const chars = (text: string) => [...text].length;
const invalid = (message: string): never => {
  throw new ClawbooError("invalid_input", message);
};

function teamOf(id: string): Team {
  return backend.teams.find((t) => t.id === id) ?? notFound("Team");
}

/** The engine's effective leaders: stored if still a member, else the first. */
function settle(team: Team) {
  const ids = team.members.map((m) => m.agentId);
  if (!team.leaderId || !ids.includes(team.leaderId)) team.leaderId = ids[0] ?? null;
  for (const room of team.rooms) {
    if (room.isGeneral) {
      room.memberIds = ids;
      room.leaderId = team.leaderId;
    } else {
      room.memberIds = room.memberIds.filter((m) => ids.includes(m));
      if (!room.leaderId || !room.memberIds.includes(room.leaderId)) room.leaderId = room.memberIds[0] ?? null;
    }
  }
  team.updatedAt = tick();
}

const cloneTeam = (t: Team): Team => ({
  ...t,
  members: t.members.map((m) => ({ ...m })),
  rules: t.rules.map((r) => ({ ...r })),
  rooms: t.rooms.map((r) => ({ ...r, memberIds: [...r.memberIds] })),
});

function emitTeamsChanged() {
  emit("teamsChanged", null);
}

/** Adds a team (with its General room) straight to the backend (no event). */
export function seedTeam(partial: Partial<Team> & { name: string; memberIds: string[] }): Team {
  const id = partial.id ?? `team-${backend.nextId++}`;
  const { memberIds, ...rest } = partial;
  const team: Team = {
    id,
    brief: "",
    aboutYou: "",
    projectFolder: null,
    leaderId: null,
    archived: false,
    rules: [],
    createdAt: currentTick(),
    updatedAt: currentTick(),
    ...rest,
    members: memberIds.map((agentId) => ({ agentId, role: "" })),
    rooms: [{ id: `room-${backend.nextId++}`, teamId: id, name: "General", isGeneral: true, leaderId: null, memberIds: [] }],
  };
  settle(team);
  backend.teams.push(team);
  return cloneTeam(team);
}

function changeTeam(id: string, edit: (team: Team) => void): Team {
  const team = teamOf(id);
  edit(team);
  settle(team);
  setTimeout(emitTeamsChanged, 0);
  return cloneTeam(team);
}

function checkName(name: string, what: string): string {
  const trimmed = name.trim();
  if (!trimmed) invalid(`A ${what} needs a name.`);
  if (chars(trimmed) > 80) invalid(`A ${what}'s name has at most 80 characters; this one has ${chars(trimmed)}.`);
  return trimmed;
}

export const fakeTeamsApi = {
  listTeams: vi.fn(async (): Promise<Team[]> =>
    backend.teams.map(cloneTeam).sort((a, b) => a.name.localeCompare(b.name)),
  ),
  getTeam: vi.fn(async (id: string): Promise<Team> => cloneTeam(teamOf(id))),
  createTeam: vi.fn(async (input: NewTeam): Promise<Team> => {
    const name = checkName(input.name, "team");
    if (input.memberIds.length === 0) invalid("A team needs at least one member.");
    if (input.leaderId && !input.memberIds.includes(input.leaderId)) invalid("The leader must be a member.");
    const team = seedTeam({ name, memberIds: input.memberIds, leaderId: input.leaderId });
    setTimeout(emitTeamsChanged, 0);
    return team;
  }),
  renameTeam: vi.fn(async (id: string, name: string): Promise<Team> => {
    const checked = checkName(name, "team");
    return changeTeam(id, (t) => void (t.name = checked));
  }),
  setTeamArchived: vi.fn(async (id: string, archived: boolean) => changeTeam(id, (t) => void (t.archived = archived))),
  deleteTeam: vi.fn(async (id: string): Promise<null> => {
    teamOf(id);
    backend.teams = backend.teams.filter((t) => t.id !== id);
    setTimeout(emitTeamsChanged, 0);
    return null;
  }),
  setTeamMembers: vi.fn(async (id: string, memberIds: string[]): Promise<Team> => {
    if (memberIds.length === 0) invalid("A team needs at least one member.");
    return changeTeam(id, (t) => {
      const roles = new Map(t.members.map((m) => [m.agentId, m.role]));
      t.members = memberIds.map((agentId) => ({ agentId, role: roles.get(agentId) ?? "" }));
    });
  }),
  setTeamLeader: vi.fn(async (id: string, agentId: string): Promise<Team> => {
    if (!teamOf(id).members.some((m) => m.agentId === agentId)) invalid("Not a member of this team.");
    return changeTeam(id, (t) => void (t.leaderId = agentId));
  }),
  setMemberRole: vi.fn(async (id: string, agentId: string, role: string) =>
    changeTeam(id, (t) => {
      const member = t.members.find((m) => m.agentId === agentId) ?? invalid("Not a member of this team.");
      member.role = role.trim();
    }),
  ),
  addTeamRule: vi.fn(async (id: string, text: string): Promise<TeamRule> => {
    const team = teamOf(id);
    const trimmed = text.trim();
    if (!trimmed) invalid("A rule needs some text.");
    const total = team.rules.reduce((n, r) => n + chars(r.text), 0) + chars(trimmed);
    if (total > RULES_BUDGET) {
      invalid(
        `Team rules have at most 4,000 characters in all; with this one they would have ${total.toLocaleString("en-US")}. Shorten or remove a rule.`,
      );
    }
    const rule = { id: `rule-${backend.nextId++}`, text: trimmed, createdAt: tick() };
    changeTeam(id, (t) => void t.rules.push(rule));
    return { ...rule };
  }),
  removeTeamRule: vi.fn(async (id: string, ruleId: string) =>
    changeTeam(id, (t) => void (t.rules = t.rules.filter((r) => r.id !== ruleId))),
  ),
  setTeamBrief: vi.fn(async (id: string, text: string) => changeTeam(id, (t) => void (t.brief = text.trim()))),
  setTeamProjectFolder: vi.fn(async (id: string, folder: string | null): Promise<Team> => {
    if (folder !== null && !folder.startsWith("/")) invalid("A project folder is a full path, like /home/me/code/shop.");
    return changeTeam(id, (t) => void (t.projectFolder = folder));
  }),
  setAboutYou: vi.fn(async (id: string, text: string): Promise<Team> => {
    if (chars(text.trim()) > 4_000) invalid("About you has at most 4,000 characters.");
    return changeTeam(id, (t) => void (t.aboutYou = text.trim()));
  }),
  createRoom: vi.fn(async (teamId: string, input: NewRoom): Promise<Room> => {
    const team = teamOf(teamId);
    const name = checkName(input.name, "room");
    if (name.toLowerCase() === "general") invalid("“General” is the room with the whole team; choose another name.");
    if (team.rooms.some((r) => r.name.toLowerCase() === name.toLowerCase())) {
      invalid(`This team already has a room called “${name}”.`);
    }
    if (input.memberIds.length === 0) invalid("A room needs at least one member.");
    const room: Room = {
      id: `room-${backend.nextId++}`,
      teamId,
      name,
      isGeneral: false,
      leaderId: input.leaderId,
      memberIds: [...input.memberIds],
    };
    changeTeam(teamId, (t) => void t.rooms.push(room));
    return { ...room, memberIds: [...room.memberIds] };
  }),
  updateRoom: vi.fn(async (roomId: string, patch: RoomPatch): Promise<Room> => {
    const team = backend.teams.find((t) => t.rooms.some((r) => r.id === roomId)) ?? notFound("Room");
    const room = team.rooms.find((r) => r.id === roomId)!;
    if (room.isGeneral && (patch.name || patch.memberIds || patch.leaderId)) invalid("The General room cannot be renamed.");
    changeTeam(team.id, () => {
      if (patch.name) room.name = checkName(patch.name, "room");
      if (patch.memberIds) room.memberIds = [...patch.memberIds];
      if (patch.leaderId) room.leaderId = patch.leaderId;
    });
    return { ...room, memberIds: [...room.memberIds] };
  }),
  deleteRoom: vi.fn(async (roomId: string): Promise<null> => {
    const team = backend.teams.find((t) => t.rooms.some((r) => r.id === roomId)) ?? notFound("Room");
    if (team.rooms.find((r) => r.id === roomId)!.isGeneral) invalid("The General room cannot be deleted.");
    changeTeam(team.id, (t) => void (t.rooms = t.rooms.filter((r) => r.id !== roomId)));
    return null;
  }),
  sendTeamMessage: vi.fn(async (roomId: string, text: string): Promise<TeamSendOutcome> => {
    if (!text.trim()) invalid("The message is empty.");
    return { message: seedRoomMessage(roomId, { kind: "user", content: text.trim() }), addressed: [] };
  }),
  stopTeam: vi.fn(async (): Promise<null> => null),
  roomPage: vi.fn(async (roomId: string, beforeSeq: number | null, limit: number): Promise<RoomPage> => {
    const all = (backend.roomMessages.get(roomId) ?? []).filter((m) => beforeSeq === null || m.seq < beforeSeq);
    const messages = all.slice(-limit);
    const ids = new Set(messages.map((m) => m.runId));
    const runs = (backend.roomRuns.get(roomId) ?? []).filter((r) => ids.has(r.id));
    return { messages, hasOlder: all.length > messages.length, runs };
  }),
  roomRuns: vi.fn(async (roomId: string): Promise<RunSummary[]> => backend.roomRuns.get(roomId) ?? []),
  peerPosts: vi.fn(async (teamId: string): Promise<PeerPage> => ({
    posts: backend.peerPosts.get(teamId) ?? [],
    hasOlder: false,
  })),
  runContext: vi.fn(async (runId: string): Promise<RunContext> => backend.runContexts.get(runId) ?? notFound("Run context")),
  runRequests: vi.fn(async (runId: string): Promise<RelayedRequest[]> => backend.runRequests.get(runId) ?? []),
} satisfies SomeCommandFakes;

/** A message in a room, as the engine would have stored it. */
export function seedRoomMessage(roomId: string, message: Partial<RoomMessage> & Pick<RoomMessage, "kind" | "content">) {
  const list = backend.roomMessages.get(roomId) ?? [];
  const stored: RoomMessage = {
    id: `rm-${backend.nextId++}`,
    roomId,
    seq: list.length + 1,
    authorId: null,
    targetId: null,
    runId: null,
    handoffId: null,
    routine: null,
    createdAt: tick(),
    ...message,
  };
  list.push(stored);
  backend.roomMessages.set(roomId, list);
  return stored;
}

export function emitRoomMessage(teamId: string, message: RoomMessage) {
  emit("roomMessageAdded", { teamId, message });
}
