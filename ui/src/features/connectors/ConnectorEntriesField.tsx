import type { ConnectorKind } from "../../bindings";
import type { EntryDraft } from "./connectorDraft";

/** A connector's env variables (stdio) or headers (HTTP), each of which may be a secret. */
export function ConnectorEntriesField({
  kind,
  entries,
  onChange,
}: {
  kind: ConnectorKind;
  entries: EntryDraft[];
  onChange: (entries: EntryDraft[]) => void;
}) {
  const rowLabel = kind === "stdio" ? "Environment variables" : "Headers";
  const setEntry = (i: number, patch: Partial<EntryDraft>) =>
    onChange(entries.map((e, j) => (j === i ? { ...e, ...patch } : e)));
  return (
    <fieldset className="connector-form__entries">
      <legend>{rowLabel}</legend>
      {entries.map((entry, i) => (
        <div className="connector-form__entry" key={i} data-testid={`connector-entry-${i}`}>
          <input
            aria-label={`${rowLabel} ${i + 1} name`}
            value={entry.key}
            onChange={(e) => setEntry(i, { key: e.target.value })}
            placeholder={kind === "stdio" ? "API_TOKEN" : "Authorization"}
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
            onClick={() => onChange(entries.filter((_, j) => j !== i))}
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
        onClick={() => onChange([...entries, { key: "", value: "", secret: false, wasSet: false }])}
        data-testid="connector-entry-add"
      >
        Add {kind === "stdio" ? "variable" : "header"}
      </button>
      <p className="muted">Secrets go to your system keychain and are never shown again.</p>
    </fieldset>
  );
}
