import { useState } from "react";
import type { CardDetail } from "../../bindings";
import { errorMessage } from "../../errors";
import { ErrorMessage } from "../../components/ErrorMessage";
import { Markdown } from "../../components/Markdown";
import { formatTime } from "../memory/memoryLabels";
import { useCommentCard } from "./boardQueries";
import { actorLabel } from "./cardActivity";

/** A card's comments (the agent's report is one) and the form to add one. */
export function CardComments({ cardId, comments }: { cardId: string; comments: CardDetail["comments"] | undefined }) {
  const comment = useCommentCard();
  const [draft, setDraft] = useState("");
  return (
    <section className="card-panel__section">
      <h3>Comments</h3>
      <ul className="card-comments" data-testid="card-comments">
        {comments?.length === 0 && <li className="muted">No comments yet.</li>}
        {comments?.map((c) => (
          <li key={c.id} className={`card-comment ${c.kind === "report" ? "is-report" : ""}`} data-testid={`card-comment-${c.kind}`}>
            <div className="card-comment__head">
              <strong>{actorLabel(c.author)}</strong>
              {c.kind === "report" && <span className="pill">Report</span>}
              <time className="muted">{formatTime(c.createdAt)}</time>
            </div>
            <Markdown text={c.text} />
          </li>
        ))}
      </ul>
      <form
        className="card-comment-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (draft.trim() === "") return;
          comment.mutate({ id: cardId, text: draft }, { onSuccess: () => setDraft("") });
        }}
      >
        <textarea
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          rows={2}
          placeholder="Add a comment"
          data-testid="card-comment-input"
        />
        <button type="submit" className="button button--small" disabled={comment.isPending || draft.trim() === ""}>
          Comment
        </button>
      </form>
      <ErrorMessage message={comment.error ? errorMessage(comment.error) : null} />
    </section>
  );
}
