import { useState, type FormEvent } from "react";
import type { Agent, Team } from "../../bindings";
import { useSaveTeamMembers } from "./teamQueries";
import { errorMessage } from "../../errors";
import { Modal } from "../../components/Modal";
import { ErrorMessage } from "../../components/ErrorMessage";
import { effectiveLeader, MemberPicker } from "./MemberPicker";

type Props = { team: Team; agents: Agent[]; onClose: () => void };

/** Add or remove members, pick the leader, give each member a role. */
export function TeamMembersDialog({ team, agents, onClose }: Props) {
  const [members, setMembers] = useState(() => team.members.map((m) => m.agentId));
  const [leaderId, setLeaderId] = useState(team.leaderId);
  const [roles, setRoles] = useState<Record<string, string>>(() =>
    Object.fromEntries(team.members.map((m) => [m.agentId, m.role])),
  );
  const [problem, setProblem] = useState<string | null>(null);
  const save = useSaveTeamMembers();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (save.isPending) return;
    if (members.length === 0) return setProblem("A team needs at least one member.");
    setProblem(null);
    save.mutate(
      { id: team.id, memberIds: members, leaderId: effectiveLeader(members, leaderId), roles },
      { onSuccess: onClose },
    );
  };

  const leaving = team.members.filter((m) => !members.includes(m.agentId)).length;

  return (
    <Modal title={`Members of ${team.name}`} onClose={onClose} testId="team-members-dialog">
      <form className="form" onSubmit={submit} noValidate>
        <MemberPicker
          candidates={agents}
          selected={members}
          onSelected={(ids) => {
            setMembers(ids);
            setProblem(null);
          }}
          leaderId={leaderId}
          onLeader={setLeaderId}
          roles={roles}
          onRole={(id, role) => setRoles((r) => ({ ...r, [id]: role }))}
          disabled={save.isPending}
          testIdPrefix="team"
        />
        {leaving > 0 && (
          <p className="field__hint">
            Members who leave the team also leave its rooms. Their messages stay in the chat.
          </p>
        )}
        <ErrorMessage message={problem ?? (save.error ? errorMessage(save.error) : null)} />
        <div className="modal__actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={save.isPending} data-testid="members-save">
            {save.isPending ? "Saving…" : "Save members"}
          </button>
        </div>
      </form>
    </Modal>
  );
}
