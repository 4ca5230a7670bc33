import { useState, type FormEvent } from "react";
import type { Agent, Room, Team } from "../../bindings";
import { useCreateRoom, useUpdateRoom } from "./teamQueries";
import { errorMessage } from "../../errors";
import { Modal } from "../../components/Modal";
import { ErrorMessage } from "../../components/ErrorMessage";
import { effectiveLeader, MemberPicker } from "./MemberPicker";
import { MAX_TEAM_NAME_CHARS } from "./limits";

type Props = {
  team: Team;
  agents: Agent[];
  /** Absent: a new room. */
  room?: Room;
  /** "members": only the members part of an existing room. */
  focus?: "all" | "name" | "members";
  onClose: () => void;
  onSaved: (room: Room) => void;
};

/** A named room: its name, members (from the team) and leader. */
export function RoomDialog({ team, agents, room, focus = "all", onClose, onSaved }: Props) {
  const [name, setName] = useState(room?.name ?? "");
  const [members, setMembers] = useState<string[]>(room?.memberIds ?? []);
  const [leaderId, setLeaderId] = useState<string | null>(room?.leaderId ?? null);
  const [problem, setProblem] = useState<string | null>(null);
  const create = useCreateRoom();
  const update = useUpdateRoom();
  const busy = create.isPending || update.isPending;
  const error = create.error ?? update.error;
  const byId = new Map(agents.map((a) => [a.id, a]));
  const candidates = team.members.flatMap((m) => byId.get(m.agentId) ?? []);
  const showName = focus !== "members";
  const showMembers = focus !== "name";

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (showName && !name.trim()) return setProblem("Enter a name.");
    if (showMembers && members.length === 0) return setProblem("Pick at least one member.");
    setProblem(null);
    const leader = effectiveLeader(members, leaderId);
    if (!room) {
      create.mutate(
        { teamId: team.id, input: { name: name.trim(), memberIds: members, leaderId: leader } },
        { onSuccess: onSaved },
      );
    } else {
      const patch = {
        name: showName && name.trim() !== room.name ? name.trim() : null,
        memberIds: showMembers ? members : null,
        leaderId: showMembers ? leader : null,
      };
      update.mutate({ roomId: room.id, patch }, { onSuccess: onSaved });
    }
  };

  const title = !room ? "New room" : focus === "name" ? "Rename room" : focus === "members" ? "Room members" : "Room";

  return (
    <Modal title={title} onClose={onClose} testId="room-dialog">
      <form className="form" onSubmit={submit} noValidate>
        {showName && (
          <div className="field">
            <label htmlFor="room-name">Name</label>
            <input
              id="room-name"
              type="text"
              value={name}
              maxLength={MAX_TEAM_NAME_CHARS}
              placeholder="Design review"
              autoComplete="off"
              disabled={busy}
              onChange={(e) => {
                setName(e.target.value);
                setProblem(null);
                create.reset();
                update.reset();
              }}
              data-testid="room-name-input"
            />
          </div>
        )}
        {showMembers && (
          <div className="field">
            <span className="field__label">Members</span>
            <p className="field__hint">Only members of {team.name} can be in its rooms.</p>
            <MemberPicker
              candidates={candidates}
              selected={members}
              onSelected={(ids) => {
                setMembers(ids);
                setProblem(null);
              }}
              leaderId={leaderId}
              onLeader={setLeaderId}
              disabled={busy}
              testIdPrefix="room"
            />
          </div>
        )}
        <ErrorMessage message={problem ?? (error ? errorMessage(error) : null)} />
        <div className="modal__actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={busy} data-testid="room-save">
            {busy ? "Saving…" : room ? "Save" : "Create room"}
          </button>
        </div>
      </form>
    </Modal>
  );
}
