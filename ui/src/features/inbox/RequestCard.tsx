import { useEffect, useRef } from "react";
import type { AttentionRequest } from "../../bindings";
import {
  expiryText,
  isApproval,
  KIND_LABELS,
  outcomeText,
  relativeTime,
  STATUS_LABELS,
  whereLabel,
} from "../attention/attention";
import { AnswerForm } from "./AnswerForm";
import { ApprovalActions } from "./ApprovalActions";
import { ApprovalInput, RevealedText } from "../attention/ApprovalInput";

type Props = {
  request: AttentionRequest;
  now: number;
  /** Set (to when it was asked) while this request is the one to show: it scrolls into view. */
  focusedAt: number | null;
  canOpenSource: boolean;
  onOpenSource: (request: AttentionRequest) => void;
};

/** One request: who asks, from where, when, what; the answer it takes while open, or what
 *  became of it once closed. */
export function RequestCard({ request, now, focusedAt, canOpenSource, onOpenSource }: Props) {
  const ref = useRef<HTMLLIElement>(null);
  const open = request.status === "open";
  const expiry = expiryText(request, now);

  useEffect(() => {
    // jsdom has no scrollIntoView; a real window centres the request.
    if (focusedAt !== null) ref.current?.scrollIntoView?.({ block: "center", behavior: "smooth" });
  }, [focusedAt]);

  return (
    <li
      ref={ref}
      className={`request request--${request.kind}${open ? " is-open" : " is-closed"}${focusedAt !== null ? " is-focused" : ""}`}
      aria-current={focusedAt !== null ? "true" : undefined}
      data-testid={`request-${request.id}`}
    >
      <header className="request__head">
        <span className={`request-kind request-kind--${request.kind}`} data-testid={`request-kind-${request.id}`}>
          {KIND_LABELS[request.kind]}
        </span>
        <span className="request__who">
          <strong>{request.agentName}</strong> <span className="muted">@{request.agentHandle}</span>
        </span>
        <span className="request__where" data-testid={`request-where-${request.id}`}>
          {whereLabel(request)}
        </span>
        <time
          className="request__when"
          dateTime={new Date(request.createdAt).toISOString()}
          title={new Date(request.createdAt).toLocaleString()}
        >
          {relativeTime(request.createdAt, now)}
        </time>
        {!open && (
          <span className={`request-status request-status--${request.status}`} data-testid={`request-status-${request.id}`}>
            {STATUS_LABELS[request.status]}
          </span>
        )}
        <button
          type="button"
          className="link-button request__source"
          onClick={() => onOpenSource(request)}
          disabled={!canOpenSource}
          title={canOpenSource ? undefined : "Where it came from was deleted."}
          data-testid={`open-source-${request.id}`}
        >
          Open where it came from
        </button>
      </header>

      <RequestWhat request={request} />

      {expiry && (
        <p className="request__expiry" data-testid={`request-expiry-${request.id}`}>
          {expiry}
        </p>
      )}
      {open && !isApproval(request) && <AnswerForm request={request} />}
      {open && isApproval(request) && <ApprovalActions request={request} />}
      {!open && <Outcome request={request} />}
    </li>
  );
}

/** The question, the approval's description with the tool and its whole input, the fact to save,
 *  or the note to share; whatever an agent wrote, with its hidden characters shown. */
function RequestWhat({ request }: { request: AttentionRequest }) {
  if (request.kind === "memory_save") {
    // Where to, then the fact exactly as it is saved if allowed.
    return (
      <div className="request__what">
        <p className="request__text">
          <RevealedText text={request.text} />
        </p>
        {request.input !== null && <ApprovalInput text={request.input} testId={`request-input-${request.id}`} />}
      </div>
    );
  }
  if (request.kind === "permission") {
    return (
      <div className="request__what">
        <p className="request__text">
          <RevealedText text={request.text} />
        </p>
        {request.tool && (
          <p className="request__tool">
            Tool{" "}
            <code>
              <RevealedText text={request.tool} />
            </code>
          </p>
        )}
        {request.input && <ApprovalInput text={request.input} testId={`request-input-${request.id}`} />}
      </div>
    );
  }
  return (
    <div className="request__what">
      {request.kind === "promotion" && <p className="request__tool">Asks to share this scratch note more widely:</p>}
      <blockquote className="request__quote">
        <RevealedText text={request.text} />
      </blockquote>
    </div>
  );
}

function Outcome({ request }: { request: AttentionRequest }) {
  const when = request.answeredAt !== null ? new Date(request.answeredAt).toLocaleString() : null;
  return (
    <div className={`request__outcome request__outcome--${request.decision ?? request.status}`} data-testid={`request-outcome-${request.id}`}>
      <span>{outcomeText(request)}</span>
      {request.answer !== null && <blockquote className="request__quote request__quote--answer">{request.answer}</blockquote>}
      {when && <span className="muted request__answered-at">{when}</span>}
    </div>
  );
}
