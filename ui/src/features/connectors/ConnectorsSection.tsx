import { useState } from "react";
import type { Connector } from "../../bindings";
import { errorMessage } from "../../errors";
import { useAgents } from "../agents/agentQueries";
import {
  useConnectors,
  useCreateConnector,
  useDeleteConnector,
  useSetConnectorShares,
  useSuggestedConnectors,
  useUpdateConnector,
} from "./connectorQueries";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorWithCode } from "../../components/ErrorMessage";
import { ConnectorForm } from "./ConnectorForm";
import { inputOf, type ConnectorDraft } from "./connectorDraft";

/** What keeps a connector from starting, as far as Settings can tell: its unset secrets. */
export function connectorWarning(connector: Connector): string | null {
  const unset = connector.entries.filter((e) => e.secret && !e.isSet).map((e) => e.key);
  if (unset.length === 0) return null;
  return `Secret ${unset.join(", ")} not set: runs leave this connector out.`;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** Settings > Connectors: MCP servers the user plugs in and shares with chosen agents. */
export function ConnectorsSection() {
  const connectors = useConnectors();
  const suggested = useSuggestedConnectors();
  const agents = useAgents();
  const create = useCreateConnector();
  const update = useUpdateConnector();
  const shares = useSetConnectorShares();
  const remove = useDeleteConnector();
  /** null: no form; "new": adding; else the id being edited. */
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Connector | null>(null);

  const current = connectors.data?.find((c) => c.id === editing) ?? null;
  const busy = create.isPending || update.isPending || shares.isPending;
  const saveError = create.error ?? update.error ?? shares.error;
  const added = new Set(connectors.data?.map((c) => c.name));
  const ideas = (suggested.data ?? []).filter((s) => !added.has(s.name));

  const open = (id: string | null) => {
    create.reset();
    update.reset();
    shares.reset();
    setEditing(id);
  };

  const save = async (draft: ConnectorDraft) => {
    try {
      const input = inputOf(draft);
      const saved = current ? await update.mutateAsync({ id: current.id, input }) : await create.mutateAsync(input);
      if (!sameSet(saved.sharedWith, draft.sharedWith)) {
        await shares.mutateAsync({ id: saved.id, agentIds: draft.sharedWith });
      }
      setEditing(null);
    } catch {
      // Shown by the form (the mutation's error).
    }
  };

  const agentCount = agents.data?.length ?? 0;
  return (
    <section className="card" aria-label="Connectors" data-testid="connectors-section">
      <h2 className="card__title">Connectors</h2>
      <p className="muted">
        MCP servers your agents can use: a command Clawboo starts for each run, or a URL. Each one reaches only the
        agents you share it with.
      </p>
      <ErrorWithCode error={connectors.error} />
      {connectors.data && connectors.data.length === 0 && editing === null && (
        <p className="muted" data-testid="connectors-empty">
          No connectors yet.
        </p>
      )}
      {connectors.data && connectors.data.length > 0 && (
        <ul className="connector-list">
          {connectors.data.map((c) => {
            const warning = connectorWarning(c);
            return (
              <li key={c.id} className="connector" data-testid={`connector-row-${c.name}`}>
                <div className="connector__head">
                  <span className="connector__name">{c.name}</span>
                  <span className="pill pill--muted">{c.kind === "stdio" ? "Command" : "URL"}</span>
                  {!c.enabled && <span className="pill pill--muted">Off</span>}
                  <span className="muted" data-testid={`connector-shared-${c.name}`}>
                    Shared with {c.sharedWith.length} of {agentCount} agent{agentCount === 1 ? "" : "s"}
                  </span>
                  <span className="connector__actions">
                    <button
                      type="button"
                      className="button button--small"
                      onClick={() => open(c.id)}
                      data-testid={`connector-edit-${c.name}`}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      className="button button--small button--danger-subtle"
                      onClick={() => {
                        remove.reset();
                        setDeleting(c);
                      }}
                      data-testid={`connector-delete-${c.name}`}
                    >
                      Delete
                    </button>
                  </span>
                </div>
                <code className="connector__target">{c.kind === "stdio" ? [c.command, ...c.args].join(" ") : c.url}</code>
                {warning && (
                  <p className="connector__warning" role="status" data-testid={`connector-warning-${c.name}`}>
                    {warning}
                  </p>
                )}
                {editing === c.id && (
                  <ConnectorForm
                    initial={c}
                    agents={agents.data ?? []}
                    busy={busy}
                    error={saveError}
                    onSave={(d) => void save(d)}
                    onCancel={() => setEditing(null)}
                  />
                )}
              </li>
            );
          })}
        </ul>
      )}
      {editing === "new" ? (
        <ConnectorForm
          initial={null}
          agents={agents.data ?? []}
          busy={busy}
          error={saveError}
          onSave={(d) => void save(d)}
          onCancel={() => setEditing(null)}
        />
      ) : (
        <button type="button" className="button" onClick={() => open("new")} data-testid="connector-add">
          Add connector
        </button>
      )}
      {ideas.length > 0 && (
        <p className="muted" data-testid="connector-suggestions">
          Popular: {ideas.map((s) => `${s.name} (${s.description.toLowerCase()})`).join(", ")}.
        </p>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          confirmLabel="Delete"
          busy={remove.isPending}
          error={remove.error ? errorMessage(remove.error) : null}
          confirmTestId="connector-delete-confirm"
          onConfirm={() => remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
          onCancel={() => setDeleting(null)}
        >
          <p>Agents lose its tools from their next run, and its secrets leave the keychain.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
