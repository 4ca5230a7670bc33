import { useState, type FormEvent } from "react";
import type { Agent, Citation, Fact, Team } from "../../bindings";
import { errorMessage } from "../../errors";
import { useDeleteFact, useEditFact, useFactDetail, useRestoreFact } from "./memoryQueries";
import { authorLabel, formatTime, MAX_FACT_CHARS, parseTags, scopeLabel } from "./memoryLabels";
import { ErrorMessage } from "../../components/ErrorMessage";
import { RunContextViewer } from "../run-context/RunContextViewer";
import { CharCounter, charCount } from "../../components/CharCounter";
import { VersionList } from "./VersionList";

type Props = { id: string; teams: Team[]; agents: Agent[]; onClose: () => void };

/** One fact: who wrote it and where it may be read, every version with what changed, and the
 *  runs that were given it. Edit, delete and restore from here. */
export function FactDetailPanel({ id, teams, agents, onClose }: Props) {
  const detail = useFactDetail(id);
  const [editing, setEditing] = useState(false);
  const [viewing, setViewing] = useState<Citation | null>(null);
  const remove = useDeleteFact();
  const restore = useRestoreFact();
  const actionError = remove.error ?? restore.error;

  return (
    <aside className="memory-detail" aria-label={`Fact ${id}`} data-testid="memory-detail">
      <header className="memory-detail__head">
        <code className="memory-id memory-id--large">{id}</code>
        <button type="button" className="button button--small" onClick={onClose} data-testid="memory-detail-close">
          Close
        </button>
      </header>
      {detail.error ? (
        <ErrorMessage message={errorMessage(detail.error)} />
      ) : !detail.data ? (
        <p className="muted">Loading…</p>
      ) : (
        <>
          <FactSummary fact={detail.data.fact} teams={teams} agents={agents} />
          {editing ? (
            <EditFactForm fact={detail.data.fact} onDone={() => setEditing(false)} />
          ) : (
            <div className="memory-detail__actions">
              {detail.data.fact.deleted ? (
                <button
                  type="button"
                  className="button button--small button--primary"
                  onClick={() => restore.mutate(id)}
                  disabled={restore.isPending}
                  data-testid="memory-restore"
                >
                  Restore
                </button>
              ) : (
                <>
                  <button
                    type="button"
                    className="button button--small"
                    onClick={() => setEditing(true)}
                    data-testid="memory-edit"
                  >
                    Edit
                  </button>
                  <button
                    type="button"
                    className="button button--small button--danger-subtle"
                    onClick={() => remove.mutate(id)}
                    disabled={remove.isPending}
                    data-testid="memory-delete"
                  >
                    Delete
                  </button>
                </>
              )}
            </div>
          )}
          <ErrorMessage message={actionError ? errorMessage(actionError) : null} />

          <h3 className="memory-detail__section">History</h3>
          <VersionList versions={detail.data.versions} />

          <h3 className="memory-detail__section">Cited in</h3>
          {detail.data.citations.length === 0 ? (
            <p className="muted" data-testid="memory-citations-none">
              No run has been given this fact yet.
            </p>
          ) : (
            <ul className="memory-citations" data-testid="memory-citations">
              {detail.data.citations.map((c) => (
                <li key={`${c.runId}-${c.agentId}`}>
                  <button
                    type="button"
                    className="link-button memory-citation"
                    onClick={() => setViewing(c)}
                    data-testid={`memory-citation-${c.runId}`}
                    title="What this agent saw on that run"
                  >
                    <span className="memory-citation__who">@{c.agentHandle}</span>
                    <time className="muted">{formatTime(c.at)}</time>
                    <code className="memory-citation__run">{c.runId}</code>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      {viewing && <RunContextViewer runId={viewing.runId} who={`@${viewing.agentHandle}`} onClose={() => setViewing(null)} />}
    </aside>
  );
}

function FactSummary({ fact, teams, agents }: { fact: Fact; teams: Team[]; agents: Agent[] }) {
  return (
    <div className="memory-detail__summary">
      {fact.deleted && (
        <p className="banner banner--warning" data-testid="memory-detail-deleted">
          Deleted: hidden from search. Its history is kept; restore it to use it again.
        </p>
      )}
      <p className="memory-detail__text" data-testid="memory-detail-text">
        {fact.text}
      </p>
      <dl className="memory-detail__meta">
        <dt>Scope</dt>
        <dd>{scopeLabel(fact.scope, teams, agents)}</dd>
        <dt>Author</dt>
        <dd>{authorLabel(fact.author)}</dd>
        <dt>Tags</dt>
        <dd>{fact.tags.length ? fact.tags.join(", ") : <span className="muted">none</span>}</dd>
        <dt>Version</dt>
        <dd>
          {fact.version} · created {formatTime(fact.createdAt)} · updated {formatTime(fact.updatedAt)}
        </dd>
      </dl>
    </div>
  );
}

function EditFactForm({ fact, onDone }: { fact: Fact; onDone: () => void }) {
  const [text, setText] = useState(fact.text);
  const [tags, setTags] = useState(fact.tags.join(", "));
  const edit = useEditFact();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const newTags = parseTags(tags);
    const sameTags = newTags.join("\n") === fact.tags.join("\n");
    const newText = text === fact.text ? null : text;
    if (newText === null && sameTags) return onDone();
    edit.mutate(
      { id: fact.id, edit: { text: newText, tags: sameTags ? null : newTags } },
      { onSuccess: onDone },
    );
  };

  return (
    <form className="memory-edit" onSubmit={submit} data-testid="memory-edit-form">
      <textarea value={text} onChange={(e) => setText(e.target.value)} rows={4} data-testid="memory-edit-text" />
      <CharCounter count={charCount(text.trim())} max={MAX_FACT_CHARS} />
      <label className="field">
        <span className="field__label">Tags (comma-separated)</span>
        <input value={tags} onChange={(e) => setTags(e.target.value)} data-testid="memory-edit-tags" />
      </label>
      <ErrorMessage message={edit.error ? errorMessage(edit.error) : null} />
      <div className="memory-new__actions">
        <button type="button" className="button button--small" onClick={onDone}>
          Cancel
        </button>
        <button
          type="submit"
          className="button button--small button--primary"
          disabled={edit.isPending}
          data-testid="memory-edit-save"
        >
          {edit.isPending ? "Saving…" : "Save"}
        </button>
      </div>
    </form>
  );
}
