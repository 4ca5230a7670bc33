import { useState, type FormEvent } from "react";
import type { ScratchNote, ScratchScope } from "../../bindings";
import { errorMessage } from "../../errors";
import { useAddScratch, useDeleteScratch, useEditScratch } from "./memoryQueries";
import { authorLabel, formatTime } from "./memoryLabels";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorMessage } from "../../components/ErrorMessage";

type Props = {
  title: string;
  hint?: string;
  /** For data-testids: "global", "team-<id>", "sessions". */
  testKey: string;
  notes: ScratchNote[];
  /** Where new notes go; none for session notes, which are the agents' own. */
  addTo: ScratchScope | null;
};

/** The scratch notes of one scope (or of every session), newest first. */
export function ScratchGroup({ title, hint, testKey, notes, addTo }: Props) {
  const [deleting, setDeleting] = useState<ScratchNote | null>(null);
  const remove = useDeleteScratch();
  return (
    <section className="card memory-scratch-group" data-testid={`scratch-group-${testKey}`}>
      <h2 className="card__title">{title}</h2>
      {hint && <p className="muted">{hint}</p>}
      {notes.length === 0 && <p className="muted">No notes.</p>}
      <ul className="memory-list">
        {notes.map((note) => (
          <ScratchRow key={note.id} note={note} editable={addTo !== null} onDelete={() => setDeleting(note)} />
        ))}
      </ul>
      {addTo && <AddScratch scope={addTo} testKey={testKey} />}
      {deleting && (
        <ConfirmDialog
          title="Delete this note?"
          confirmLabel="Delete"
          busy={remove.isPending}
          error={remove.error ? errorMessage(remove.error) : null}
          onCancel={() => {
            remove.reset();
            setDeleting(null);
          }}
          onConfirm={() => remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })}
          confirmTestId="scratch-delete-confirm"
        >
          <p>“{deleting.text}” will be gone for good: agents stop seeing it on their next turn.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function ScratchRow({ note, editable, onDelete }: { note: ScratchNote; editable: boolean; onDelete: () => void }) {
  const [draft, setDraft] = useState<string | null>(null);
  const edit = useEditScratch();
  const save = (e: FormEvent) => {
    e.preventDefault();
    if (draft === null || draft === note.text) return setDraft(null);
    edit.mutate({ id: note.id, text: draft }, { onSuccess: () => setDraft(null) });
  };

  return (
    <li className="memory-note" data-testid={`scratch-note-${note.id}`}>
      {draft !== null ? (
        <form className="memory-edit" onSubmit={save}>
          <textarea value={draft} onChange={(e) => setDraft(e.target.value)} rows={2} data-testid={`scratch-edit-text-${note.id}`} />
          <ErrorMessage message={edit.error ? errorMessage(edit.error) : null} />
          <div className="memory-new__actions">
            <button type="button" className="button button--small" onClick={() => setDraft(null)}>
              Cancel
            </button>
            <button
              type="submit"
              className="button button--small button--primary"
              disabled={edit.isPending}
              data-testid={`scratch-edit-save-${note.id}`}
            >
              Save
            </button>
          </div>
        </form>
      ) : (
        <>
          <div className="memory-note__body">
            <span className="memory-note__text">{note.text}</span>
            <span className="muted memory-note__meta">
              {authorLabel(note.author)} · {formatTime(note.updatedAt)}
              {note.promotedFrom && ` · promoted from ${note.promotedFrom}`}
              {note.scope.kind === "session" && ` · conversation ${note.scope.conversation_id}`}
            </span>
          </div>
          {editable && (
            <div className="memory-note__actions">
              <button
                type="button"
                className="button button--small"
                onClick={() => setDraft(note.text)}
                data-testid={`scratch-edit-${note.id}`}
              >
                Edit
              </button>
              <button
                type="button"
                className="button button--small button--danger-subtle"
                onClick={onDelete}
                data-testid={`scratch-delete-${note.id}`}
              >
                Delete
              </button>
            </div>
          )}
        </>
      )}
    </li>
  );
}

function AddScratch({ scope, testKey }: { scope: ScratchScope; testKey: string }) {
  const [text, setText] = useState("");
  const add = useAddScratch();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    add.mutate({ scope, text }, { onSuccess: () => setText("") });
  };
  return (
    <form className="memory-scratch-add" onSubmit={submit}>
      <div className="memory-scratch-add__row">
        <input
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="A short conclusion worth keeping"
          aria-label="New note"
          data-testid={`scratch-add-input-${testKey}`}
        />
        <button
          type="submit"
          className="button button--small"
          disabled={add.isPending || !text.trim()}
          data-testid={`scratch-add-${testKey}`}
        >
          Add
        </button>
      </div>
      <ErrorMessage message={add.error ? errorMessage(add.error) : null} />
    </form>
  );
}
