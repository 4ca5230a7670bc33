import { useState, type FormEvent } from "react";
import type { Agent, Connector, ConnectorEntryInput, ConnectorInput, ConnectorKind } from "../../bindings";
import { ErrorWithCode } from "../../components/ErrorMessage";

/** One env variable (stdio) or header (HTTP) as edited. A secret's `value` is what the user typed
 * now: empty keeps the stored secret (`wasSet`). */
export type EntryDraft = { key: string; value: string; secret: boolean; wasSet: boolean };

export type ConnectorDraft = {
  name: string;
  kind: ConnectorKind;
  command: string;
  /** One argument per line. */
  args: string;
  url: string;
  entries: EntryDraft[];
  enabled: boolean;
  sharedWith: string[];
};

/** The engine's name rule (src-tauri/engine/src/connectors/validate.rs). */
const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;

export function draftOf(connector: Connector | null): ConnectorDraft {
  if (!connector) {
    return { name: "", kind: "stdio", command: "", args: "", url: "", entries: [], enabled: true, sharedWith: [] };
  }
  return {
    name: connector.name,
    kind: connector.kind,
    command: connector.command,
    args: connector.args.join("\n"),
    url: connector.url,
    entries: connector.entries.map((e) => ({ key: e.key, value: e.value ?? "", secret: e.secret, wasSet: e.isSet })),
    enabled: connector.enabled,
    sharedWith: connector.sharedWith,
  };
}

/** What the form finds wrong before sending (the engine checks again). */
export function draftProblem(draft: ConnectorDraft): string | null {
  const name = draft.name.trim();
  if (!name) return "Give the connector a name.";
  if (!NAME_PATTERN.test(name)) return "Use lowercase letters a-z, digits, _ and -, starting with a letter or digit.";
  if (name.startsWith("clawboo")) return "Names starting with \"clawboo\" are Clawboo's own.";
  if (draft.kind === "stdio" && !draft.command.trim()) return "Enter the command that starts the MCP server.";
  if (draft.kind === "http" && !/^https?:\/\/[^\s/]+/.test(draft.url.trim())) {
    return "Enter a URL starting with http:// or https://.";
  }
  const keys = draft.entries.map((e) => e.key.trim().toLowerCase());
  if (keys.some((k) => !k)) return "Every row needs a name.";
  if (new Set(keys).size !== keys.length) return "A name is given twice.";
  return null;
}

/** The input the engine takes: a secret left empty is sent without a value (kept as stored). */
export function inputOf(draft: ConnectorDraft): ConnectorInput {
  const entries: ConnectorEntryInput[] = draft.entries.map((e) => ({
    key: e.key.trim(),
    value: e.secret && e.value === "" ? null : e.value,
    secret: e.secret,
  }));
  return {
    name: draft.name.trim(),
    kind: draft.kind,
    command: draft.kind === "stdio" ? draft.command.trim() : "",
    args:
      draft.kind === "stdio"
        ? draft.args
            .split("\n")
            .map((a) => a.trim())
            .filter((a) => a !== "")
        : [],
    url: draft.kind === "http" ? draft.url.trim() : "",
    entries,
    enabled: draft.enabled,
  };
}

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
  const setEntry = (i: number, patch: Partial<EntryDraft>) =>
    set({ entries: draft.entries.map((e, j) => (j === i ? { ...e, ...patch } : e)) });
  const rowLabel = draft.kind === "stdio" ? "Environment variables" : "Headers";

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
      <fieldset className="connector-form__entries">
        <legend>{rowLabel}</legend>
        {draft.entries.map((entry, i) => (
          <div className="connector-form__entry" key={i} data-testid={`connector-entry-${i}`}>
            <input
              aria-label={`${rowLabel} ${i + 1} name`}
              value={entry.key}
              onChange={(e) => setEntry(i, { key: e.target.value })}
              placeholder={draft.kind === "stdio" ? "API_TOKEN" : "Authorization"}
              data-testid={`connector-entry-key-${i}`}
            />
            <input
              aria-label={`${rowLabel} ${i + 1} value`}
              type={entry.secret ? "password" : "text"}
              value={entry.value}
              onChange={(e) => setEntry(i, { value: e.target.value })}
              placeholder={entry.secret ? (entry.wasSet ? "Set (type to replace)" : "Not set") : ""}
              autoComplete="off"
              data-testid={`connector-entry-value-${i}`}
            />
            <label className="connector-form__secret">
              <input
                type="checkbox"
                checked={entry.secret}
                onChange={(e) => setEntry(i, { secret: e.target.checked, value: "", wasSet: false })}
                data-testid={`connector-entry-secret-${i}`}
              />{" "}
              Secret
            </label>
            <button
              type="button"
              className="button button--small"
              onClick={() => set({ entries: draft.entries.filter((_, j) => j !== i) })}
              aria-label={`Remove ${entry.key || "row"}`}
              data-testid={`connector-entry-remove-${i}`}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          className="button button--small"
          onClick={() => set({ entries: [...draft.entries, { key: "", value: "", secret: false, wasSet: false }] })}
          data-testid="connector-entry-add"
        >
          Add {draft.kind === "stdio" ? "variable" : "header"}
        </button>
        <p className="muted">Secrets go to your system keychain and are never shown again.</p>
      </fieldset>
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
