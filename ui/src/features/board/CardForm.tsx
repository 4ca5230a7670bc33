import { useState, type FormEvent } from "react";
import type { Agent, Card, Priority, Team } from "../../bindings";
import { cardRef, PRIORITIES } from "./board";
import { ErrorMessage } from "../../components/ErrorMessage";

export type CardFields = {
  title: string;
  description: string;
  assigneeId: string | null;
  teamId: string | null;
  priority: Priority;
  dependsOn: string[];
  checkCommand: string | null;
  projectFolder: string | null;
};

export function fieldsOf(card: Card | null): CardFields {
  return {
    title: card?.title ?? "",
    description: card?.description ?? "",
    assigneeId: card?.assigneeId ?? null,
    teamId: card?.teamId ?? null,
    priority: card?.priority ?? "medium",
    dependsOn: card?.dependsOn ?? [],
    checkCommand: card?.checkCommand ?? null,
    projectFolder: card?.projectFolder ?? null,
  };
}

type Props = {
  initial: CardFields;
  /** Cards this one may depend on (itself left out). */
  others: Card[];
  agents: Agent[];
  teams: Team[];
  submitLabel: string;
  pending: boolean;
  error: string | null;
  onSubmit: (fields: CardFields) => void;
  onCancel: () => void;
};

const blankToNull = (s: string) => (s.trim() === "" ? null : s);

/** A card's fields, for a new card and for editing one. The engine checks everything again. */
export function CardForm({ initial, others, agents, teams, submitLabel, pending, error, onSubmit, onCancel }: Props) {
  const [fields, setFields] = useState(initial);
  const set = <K extends keyof CardFields>(key: K, value: CardFields[K]) => setFields((f) => ({ ...f, [key]: value }));
  const team = teams.find((t) => t.id === fields.teamId);
  // With a team chosen, only its members can take the card.
  const assignable = team ? agents.filter((a) => team.members.some((m) => m.agentId === a.id)) : agents;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit(fields);
  };

  return (
    <form className="form card-form" onSubmit={submit} data-testid="card-form">
      <label className="field">
        <span>Title</span>
        <input
          value={fields.title}
          onChange={(e) => set("title", e.target.value)}
          maxLength={200}
          data-autofocus
          data-testid="card-title-input"
          required
        />
      </label>
      <label className="field">
        <span>Description</span>
        <textarea
          value={fields.description}
          onChange={(e) => set("description", e.target.value)}
          rows={6}
          placeholder="What done looks like, and anything the agent should know."
          data-testid="card-description-input"
        />
      </label>
      <div className="card-form__row">
        <label className="field">
          <span>Team</span>
          <select
            value={fields.teamId ?? ""}
            onChange={(e) => set("teamId", blankToNull(e.target.value))}
            data-testid="card-team-select"
          >
            <option value="">No team</option>
            {teams.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Assignee</span>
          <select
            value={fields.assigneeId ?? ""}
            onChange={(e) => set("assigneeId", blankToNull(e.target.value))}
            data-testid="card-assignee-select"
          >
            <option value="">Unassigned</option>
            {assignable.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} (@{a.handle})
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Priority</span>
          <select
            value={fields.priority}
            onChange={(e) => set("priority", e.target.value as Priority)}
            data-testid="card-priority-select"
          >
            {PRIORITIES.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <fieldset className="field card-form__deps">
        <legend>Waits for</legend>
        {others.length === 0 && <p className="muted">No other cards yet.</p>}
        <div className="card-form__dep-list">
          {others.map((c) => (
            <label key={c.id} className="card-form__dep">
              <input
                type="checkbox"
                checked={fields.dependsOn.includes(c.id)}
                onChange={(e) =>
                  set(
                    "dependsOn",
                    e.target.checked ? [...fields.dependsOn, c.id] : fields.dependsOn.filter((id) => id !== c.id),
                  )
                }
              />
              {cardRef(c)} {c.title}
            </label>
          ))}
        </div>
      </fieldset>
      <label className="field">
        <span>Check command (optional)</span>
        <input
          value={fields.checkCommand ?? ""}
          onChange={(e) => set("checkCommand", blankToNull(e.target.value))}
          placeholder="cargo test"
          className="mono"
          data-testid="card-check-input"
        />
        <small className="field__hint">Runs after the agent finishes; a non-zero exit code gets the agent one fix round.</small>
      </label>
      <label className="field">
        <span>Project folder (optional)</span>
        <input
          value={fields.projectFolder ?? ""}
          onChange={(e) => set("projectFolder", blankToNull(e.target.value))}
          placeholder="/home/me/code/shop"
          className="mono"
          data-testid="card-folder-input"
        />
        <small className="field__hint">A git repository gets one worktree per run; your checkout is never touched.</small>
      </label>
      <ErrorMessage message={error} />
      <div className="modal__actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={pending} data-testid="card-submit">
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
