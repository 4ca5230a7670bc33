import { useState } from "react";
import type { Agent, Room, Team } from "../../bindings";
import { useDeleteRoom, useDeleteTeam, useRenameTeam, useSetTeamArchived } from "./teamQueries";
import { errorMessage } from "../../errors";
import { TintDot } from "../../components/TintDot";
import { UnconfinedBadge } from "../sandbox/UnconfinedBadge";
import { Menu } from "../../components/Menu";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorMessage } from "../../components/ErrorMessage";
import { TeamBriefDialog } from "./TeamBriefDialog";
import { TeamMembersDialog } from "./TeamMembersDialog";
import { RoomDialog } from "./RoomDialog";
import { AboutYouGate } from "./AboutYouForm";
import { MAX_TEAM_NAME_CHARS } from "./limits";
import { RoomChat } from "./RoomChat";

type Props = {
  team: Team;
  agents: Agent[];
  /** The room to open first (General when null), as when the Inbox opens where a request came from. */
  initialRoomId?: string | null;
  onDeleted: (team: Team) => void;
};

type Dialog =
  | { kind: "brief" }
  | { kind: "members" }
  | { kind: "new-room" }
  | { kind: "room"; roomId: string; focus: "name" | "members" }
  | { kind: "delete-team" }
  | { kind: "delete-room"; roomId: string }
  | null;

export function TeamPage({ team, agents, initialRoomId = null, onDeleted }: Props) {
  const [opened, setOpened] = useState<{ teamId: string; roomId: string | null }>({
    teamId: team.id,
    roomId: initialRoomId,
  });
  const [dialog, setDialog] = useState<Dialog>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const rename = useRenameTeam();
  const archive = useSetTeamArchived();
  const deleteTeam = useDeleteTeam();
  const deleteRoom = useDeleteRoom();

  const general = team.rooms.find((r) => r.isGeneral) ?? team.rooms[0];
  const wanted = opened.teamId === team.id ? opened.roomId : null;
  const room = team.rooms.find((r) => r.id === wanted) ?? general;
  const openRoom = (roomId: string) => setOpened({ teamId: team.id, roomId });
  const byId = new Map(agents.map((a) => [a.id, a]));
  const roomOf = (id: string) => team.rooms.find((r) => r.id === id);

  const saveName = () => {
    if (renaming === null) return;
    if (renaming.trim() === team.name) return setRenaming(null);
    rename.mutate({ id: team.id, name: renaming }, { onSuccess: () => setRenaming(null) });
  };

  const teamMenu = [
    { label: "Rename", onSelect: () => setRenaming(team.name), testId: "team-rename" },
    { label: "Members…", onSelect: () => setDialog({ kind: "members" }), testId: "team-members-menu" },
    {
      label: team.archived ? "Unarchive" : "Archive",
      onSelect: () => archive.mutate({ id: team.id, archived: !team.archived }),
      testId: "team-archive",
    },
    { label: "Delete team…", onSelect: () => setDialog({ kind: "delete-team" }), danger: true, testId: "team-delete" },
  ];

  return (
    <div className="team-page" data-testid="team-page">
      <header className="team-header">
        <div className="team-header__title">
          {renaming === null ? (
            <h1 className="team-header__name" onDoubleClick={() => setRenaming(team.name)} data-testid="team-name">
              {team.name}
            </h1>
          ) : (
            <form
              className="team-header__rename"
              onSubmit={(e) => {
                e.preventDefault();
                saveName();
              }}
            >
              <input
                autoFocus
                value={renaming}
                maxLength={MAX_TEAM_NAME_CHARS}
                onChange={(e) => {
                  setRenaming(e.target.value);
                  rename.reset();
                }}
                onKeyDown={(e) => {
                  if (e.key === "Escape") setRenaming(null);
                }}
                aria-label="Team name"
                data-testid="team-name-edit"
              />
              <button type="submit" className="button button--small button--primary" disabled={rename.isPending}>
                Save
              </button>
              <button type="button" className="button button--small" onClick={() => setRenaming(null)}>
                Cancel
              </button>
            </form>
          )}
          {team.archived && <span className="pill pill--muted">Archived</span>}
          <div className="team-header__actions">
            <button
              type="button"
              className="button button--small"
              onClick={() => setDialog({ kind: "brief" })}
              data-testid="team-brief-button"
            >
              Team brief &amp; rules
            </button>
            <button
              type="button"
              className="button button--small"
              onClick={() => setDialog({ kind: "members" })}
              data-testid="team-members-button"
            >
              Members
            </button>
            <Menu label="Team actions" items={teamMenu} testId="team-menu" />
          </div>
        </div>
        <ErrorMessage message={rename.error ? errorMessage(rename.error) : null} />
        <ErrorMessage message={archive.error ? errorMessage(archive.error) : null} />
        <ul className="team-members" aria-label="Members" data-testid="team-member-list">
          {team.members.length === 0 && (
            <li className="muted">No members: every agent of this team was deleted. Add members to chat.</li>
          )}
          {team.members.map((m) => {
            const agent = byId.get(m.agentId);
            return (
              <li key={m.agentId} className="team-member" title={m.role || undefined}>
                <TintDot tint={agent?.tint ?? "#888888"} />
                <span className="team-member__handle">@{agent?.handle ?? "unknown"}</span>
                <UnconfinedBadge agent={agent} />
                {m.agentId === team.leaderId && (
                  <span className="pill team-member__leader" data-testid="leader-badge">
                    leader
                  </span>
                )}
                {m.role && <span className="team-member__role">{m.role}</span>}
              </li>
            );
          })}
        </ul>
      </header>

      <div className="tabs room-tabs" role="tablist" aria-label="Rooms">
        {team.rooms.map((r) => (
          <div key={r.id} className={`room-tab ${r.id === room?.id ? "is-active" : ""}`}>
            <button
              type="button"
              role="tab"
              aria-selected={r.id === room?.id}
              className={`tab ${r.id === room?.id ? "is-active" : ""}`}
              onClick={() => openRoom(r.id)}
              data-testid={`room-tab-${r.name}`}
            >
              {r.isGeneral ? "General" : r.name}
            </button>
            {!r.isGeneral && r.id === room?.id && (
              <Menu
                label={`Room ${r.name} actions`}
                className="room-tab__menu"
                testId="room-menu"
                items={[
                  { label: "Rename", onSelect: () => setDialog({ kind: "room", roomId: r.id, focus: "name" }) },
                  {
                    label: "Members…",
                    onSelect: () => setDialog({ kind: "room", roomId: r.id, focus: "members" }),
                  },
                  {
                    label: "Delete room…",
                    danger: true,
                    onSelect: () => setDialog({ kind: "delete-room", roomId: r.id }),
                    testId: "room-delete",
                  },
                ]}
              />
            )}
          </div>
        ))}
        <button
          type="button"
          className="tab room-tabs__add"
          onClick={() => setDialog({ kind: "new-room" })}
          aria-label="New room"
          title="New room"
          data-testid="new-room-button"
        >
          +
        </button>
      </div>

      <div className="team-page__body">
        {room && <RoomSummary room={room} byId={byId} />}
        {!team.aboutYou.trim() ? (
          <AboutYouGate key={team.id} team={team} />
        ) : (
          room && <RoomChat key={room.id} team={team} room={room} />
        )}
      </div>

      {dialog?.kind === "brief" && <TeamBriefDialog team={team} onClose={() => setDialog(null)} />}
      {dialog?.kind === "members" && (
        <TeamMembersDialog team={team} agents={agents} onClose={() => setDialog(null)} />
      )}
      {dialog?.kind === "new-room" && (
        <RoomDialog
          team={team}
          agents={agents}
          onClose={() => setDialog(null)}
          onSaved={(saved) => {
            setDialog(null);
            openRoom(saved.id);
          }}
        />
      )}
      {dialog?.kind === "room" && roomOf(dialog.roomId) && (
        <RoomDialog
          team={team}
          agents={agents}
          room={roomOf(dialog.roomId)}
          focus={dialog.focus}
          onClose={() => setDialog(null)}
          onSaved={() => setDialog(null)}
        />
      )}
      {dialog?.kind === "delete-team" && (
        <ConfirmDialog
          title={`Delete ${team.name}?`}
          confirmLabel="Delete team"
          busy={deleteTeam.isPending}
          error={deleteTeam.error ? errorMessage(deleteTeam.error) : null}
          onCancel={() => setDialog(null)}
          onConfirm={() => deleteTeam.mutate(team.id, { onSuccess: () => onDeleted(team) })}
          confirmTestId="confirm-delete-team"
        >
          The team, its rules, rooms and chats are deleted. Its agents stay. To keep the chats, archive the team instead.
        </ConfirmDialog>
      )}
      {dialog?.kind === "delete-room" && (
        <ConfirmDialog
          title={`Delete the room ${roomOf(dialog.roomId)?.name ?? ""}?`}
          confirmLabel="Delete room"
          busy={deleteRoom.isPending}
          error={deleteRoom.error ? errorMessage(deleteRoom.error) : null}
          onCancel={() => setDialog(null)}
          onConfirm={() =>
            deleteRoom.mutate(dialog.roomId, {
              onSuccess: () => {
                setDialog(null);
                if (general) openRoom(general.id);
              },
            })
          }
          confirmTestId="confirm-delete-room"
        >
          The room and its chat are deleted. Its members stay in the team.
        </ConfirmDialog>
      )}
    </div>
  );
}

function RoomSummary({ room, byId }: { room: Room; byId: Map<string, Agent> }) {
  const handle = (id: string | null) => (id ? `@${byId.get(id)?.handle ?? "unknown"}` : "nobody");
  if (room.isGeneral) return null;
  return (
    <p className="room-summary" data-testid="room-summary">
      {room.memberIds.length === 0
        ? "Nobody is in this room: every member left the team. Pick members from the room's menu."
        : `${room.memberIds.map(handle).join(", ")} · led by ${handle(room.leaderId)}`}
    </p>
  );
}
