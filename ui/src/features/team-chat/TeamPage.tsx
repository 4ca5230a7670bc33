import { useState } from "react";
import type { Agent, Team } from "../../bindings";
import { useDeleteRoom, useDeleteTeam } from "./teamQueries";
import { errorMessage } from "../../errors";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { TeamBriefDialog } from "./TeamBriefDialog";
import { TeamMembersDialog } from "./TeamMembersDialog";
import { RoomDialog } from "./RoomDialog";
import { AboutYouGate } from "./AboutYouForm";
import { RoomChat } from "./RoomChat";
import { TeamHeader } from "./TeamHeader";
import { RoomTabs } from "./RoomTabs";
import { RoomSummary } from "./RoomSummary";

type Props = {
  team: Team;
  agents: Agent[];
  /** The room to open first (General when null), as when the Inbox opens where a request came from. */
  initialRoomId?: string | null;
  onDeleted: (team: Team) => void;
  /** Opens an agent's own page (a click on an @handle in the room). */
  onOpenAgent?: (agentId: string) => void;
  /** Opens a card on the Board (a routine's card, from its message in the room). */
  onOpenCard?: (cardId: string) => void;
};

type Dialog =
  | { kind: "brief" }
  | { kind: "members" }
  | { kind: "new-room" }
  | { kind: "room"; roomId: string; focus: "name" | "members" }
  | { kind: "delete-team" }
  | { kind: "delete-room"; roomId: string }
  | null;

export function TeamPage({ team, agents, initialRoomId = null, onDeleted, onOpenAgent, onOpenCard }: Props) {
  const [opened, setOpened] = useState<{ teamId: string; roomId: string | null }>({
    teamId: team.id,
    roomId: initialRoomId,
  });
  const [dialog, setDialog] = useState<Dialog>(null);
  const deleteTeam = useDeleteTeam();
  const deleteRoom = useDeleteRoom();

  const general = team.rooms.find((r) => r.isGeneral) ?? team.rooms[0];
  const wanted = opened.teamId === team.id ? opened.roomId : null;
  const room = team.rooms.find((r) => r.id === wanted) ?? general;
  const openRoom = (roomId: string) => setOpened({ teamId: team.id, roomId });
  const byId = new Map(agents.map((a) => [a.id, a]));
  const roomOf = (id: string) => team.rooms.find((r) => r.id === id);

  return (
    <div className="team-page" data-testid="team-page">
      <TeamHeader
        team={team}
        byId={byId}
        onOpenBrief={() => setDialog({ kind: "brief" })}
        onOpenMembers={() => setDialog({ kind: "members" })}
        onDelete={() => setDialog({ kind: "delete-team" })}
      />

      <RoomTabs
        rooms={team.rooms}
        room={room}
        onOpen={openRoom}
        onEdit={(roomId, focus) => setDialog({ kind: "room", roomId, focus })}
        onDelete={(roomId) => setDialog({ kind: "delete-room", roomId })}
        onNew={() => setDialog({ kind: "new-room" })}
      />

      <div className="team-page__body">
        {room && <RoomSummary room={room} byId={byId} />}
        {!team.aboutYou.trim() ? (
          <AboutYouGate key={team.id} team={team} />
        ) : (
          room && <RoomChat key={room.id} team={team} room={room} onOpenAgent={onOpenAgent} onOpenCard={onOpenCard} />
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
