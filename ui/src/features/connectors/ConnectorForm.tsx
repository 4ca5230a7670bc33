import { useState, type FormEvent } from "react";
import type { Agent, Connector } from "../../bindings";
import { ErrorWithCode } from "../../components/ErrorMessage";
import { draftOf, draftProblem, type ConnectorDraft } from "./connectorDraft";
import { ConnectorEntriesField } from "./ConnectorEntriesField";

type Props = {
  initial: Connector | null;
  agents: Agent[];
  busy: boolean;
  error: unknown;
  onSave: (draft: ConnectorDraft) => void;
  onCancel: () => void;
};

/** Add or edit a connector: its server (stdio command or HTTP URL), env or header rows with a
 * "secret" toggle, and the agents it is shared with. */
export function ConnectorForm({ initial, agents, busy, error, onSave, onCancel }: Props) {
  const [draft, setDraft] = useState<ConnectorDraft>(() => draftOf(initial));
  const [touched, setTouched] = useState(false);
  const problem = draftProblem(draft);
  const set = (patch: Partial<ConnectorDraft>) => setDraft((d) => ({ ...d, ...patch }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!problem && !busy) onSave(draft);
  };

  return (
    <form className="form connector-form" onSubmit={submit} noValidate data-testid="connector-form">
      <div className="field">
        <label htmlFor="connector-name">Name</label>
        <input
          id="connector-name"
          value={draft.name}
          onChange={(e) => set({ name: e.target.value })}
          placeholder="github"
          autoComplete="off"
          data-testid="connector-name"
        />
      </div>
      <fieldset className="connector-form__kind">
        <legend>Server</legend>
        {(["stdio", "http"] as const).map((kind) => (
          <label key={kind}>
            <input
              type="radio"
              name="connector-kind"
              checked={draft.kind === kind}
              onChange={() => set({ kind })}
              data-testid={`connector-kind-${kind}`}
            />{" "}
            {kind === "stdio" ? "Command (stdio)" : "URL (HTTP)"}
          </label>
        ))}
      </fieldset>
      {draft.kind === "stdio" ? (
        <>
          <div className="field">
            <label htmlFor="connector-command">Command</label>
            <input
              id="connector-command"
              value={draft.command}
              onChange={(e) => set({ command: e.target.value })}
              placeholder="npx"
              data-testid="connector-command"
            />
          </div>
          <div className="field">
            <label htmlFor="connector-args">Arguments (one per line)</label>
            <textarea
              id="connector-args"
              rows={3}
              value={draft.args}
              onChange={(e) => set({ args: e.target.value })}
              data-testid="connector-args"
            />
          </div>
        </>
      ) : (
        <div className="field">
          <label htmlFor="connector-url">URL</label>
          <input
            id="connector-url"
            value={draft.url}
            onChange={(e) => set({ url: e.target.value })}
            placeholder="https://example.com/mcp"
            data-testid="connector-url"
          />
        </div>
      )}
      <ConnectorEntriesField kind={draft.kind} entries={draft.entries} onChange={(entries) => set({ entries })} />
      <fieldset className="connector-form__shares">
        <legend>Shared with</legend>
        {agents.length === 0 && <p className="muted">No agents yet.</p>}
        {agents.map((agent) => (
          <label key={agent.id}>
            <input
              type="checkbox"
              checked={draft.sharedWith.includes(agent.id)}
              onChange={(e) =>
                set({
                  sharedWith: e.target.checked
                    ? [...draft.sharedWith, agent.id]
                    : draft.sharedWith.filter((id) => id !== agent.id),
                })
              }
              data-testid={`connector-share-${agent.id}`}
            />{" "}
            {agent.name} <span className="muted">@{agent.handle}</span>
          </label>
        ))}
      </fieldset>
      <label>
        <input
          type="checkbox"
          checked={draft.enabled}
          onChange={(e) => set({ enabled: e.target.checked })}
          data-testid="connector-enabled"
        />{" "}
        Enabled
      </label>
      {touched && problem && (
        <p className="error-message" role="alert" data-testid="connector-problem">
          {problem}
        </p>
      )}
      <ErrorWithCode error={error} />
      <div className="form__actions">
        <button type="submit" className="button button--primary" disabled={busy} data-testid="connector-save">
          {busy ? "Saving…" : "Save"}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={busy} data-testid="connector-cancel">
          Cancel
        </button>
      </div>
    </form>
  );
}
