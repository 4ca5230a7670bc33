import { useState, type FormEvent } from "react";
import type { Agent, Team } from "../../bindings";
import { useCreateTeam } from "./teamQueries";
import { errorMessage } from "../../errors";
import { Modal } from "../../components/Modal";
import { ErrorMessage } from "../../components/ErrorMessage";
import { effectiveLeader, MemberPicker } from "./MemberPicker";

type Props = {
  agents: Agent[];
  onClose: () => void;
  onCreated: (team: Team) => void;
};

export const TEAM_NAME_MAX = 80;

export function NewTeamDialog({ agents, onClose, onCreated }: Props) {
  const [name, setName] = useState("");
  const [members, setMembers] = useState<string[]>([]);
  const [leaderId, setLeaderId] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const create = useCreateTeam();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (create.isPending) return;
    if (!name.trim()) return setProblem("Enter a name.");
    if (members.length === 0) return setProblem("Pick at least one member.");
    setProblem(null);
    create.mutate(
      { name: name.trim(), memberIds: members, leaderId: effectiveLeader(members, leaderId) },
      { onSuccess: onCreated },
    );
  };

  const changed = () => {
    setProblem(null);
    if (create.error) create.reset();
  };

  return (
    <Modal title="New team" onClose={onClose} testId="new-team-dialog">
      <form className="form" onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="new-team-name">Name</label>
          <input
            id="new-team-name"
            type="text"
            value={name}
            maxLength={TEAM_NAME_MAX}
            placeholder="Research team"
            autoComplete="off"
            disabled={create.isPending}
            onChange={(e) => {
              setName(e.target.value);
              changed();
            }}
            data-testid="team-name-input"
          />
        </div>
        <div className="field">
          <span className="field__label">Members</span>
          <p className="field__hint">The leader gets your messages and hands work to the others.</p>
          <MemberPicker
            candidates={agents}
            selected={members}
            onSelected={(ids) => {
              setMembers(ids);
              changed();
            }}
            leaderId={leaderId}
            onLeader={setLeaderId}
            disabled={create.isPending}
            testIdPrefix="new-team"
          />
        </div>
        <ErrorMessage message={problem ?? (create.error ? errorMessage(create.error) : null)} />
        <div className="modal__actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            className="button button--primary"
            disabled={create.isPending}
            data-testid="create-team-submit"
          >
            {create.isPending ? "Creating…" : "Create team"}
          </button>
        </div>
      </form>
    </Modal>
  );
}
