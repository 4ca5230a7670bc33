import { useState } from "react";
import type { Agent, SavedNote } from "../../bindings";
import { errorMessage } from "../../errors";
import { useDeleteNote, useSavedNotes } from "./memoryQueries";
import { formatTime } from "./memoryLabels";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorMessage } from "../../components/ErrorMessage";

/** An agent's own saved notes (note_save), the ones it is given when a one-to-one chat starts. */
export function NotesTab({ agents }: { agents: Agent[] }) {
  const [picked, setPicked] = useState<string | null>(null);
  const agentId = picked ?? agents[0]?.id ?? null;
  const agent = agents.find((a) => a.id === agentId);
  const notes = useSavedNotes(agentId);
  const remove = useDeleteNote();
  const [deleting, setDeleting] = useState<SavedNote | null>(null);

  if (agents.length === 0) return <p className="muted">No agents yet.</p>;

  return (
    <div className="memory-notes">
      <div className="memory-toolbar">
        <label className="memory-toolbar__label">
          Agent
          <select
            value={agentId ?? ""}
            onChange={(e) => setPicked(e.target.value)}
            data-testid="memory-notes-agent"
          >
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} (@{a.handle})
              </option>
            ))}
          </select>
        </label>
      </div>
      <p className="muted">
        {agent ? `@${agent.handle}` : "The agent"} gets up to 8 of its newest notes at the start of a one-to-one chat
        and after /reset.
      </p>
      <ErrorMessage message={notes.error ? errorMessage(notes.error) : null} />
      {notes.data?.length === 0 && (
        <p className="muted" data-testid="memory-notes-empty">
          No saved notes.
        </p>
      )}
      <ul className="memory-list" data-testid="memory-notes">
        {notes.data?.map((note) => (
          <li key={note.id} className="memory-note" data-testid={`memory-note-${note.id}`}>
            <div className="memory-note__body">
              <span className="memory-note__text">{note.text}</span>
              <time className="muted">{formatTime(note.createdAt)}</time>
            </div>
            <button
              type="button"
              className="button button--small button--danger-subtle"
              onClick={() => setDeleting(note)}
              data-testid={`memory-note-delete-${note.id}`}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
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
          confirmTestId="memory-note-delete-confirm"
        >
          <p>“{deleting.text}” will be gone for good: saved notes keep no history.</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
