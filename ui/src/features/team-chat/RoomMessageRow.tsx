import { memo, useCallback, useRef, type CSSProperties } from "react";
import type { Agent, RoomMessage, RoomRoutine, RunSummary } from "../../bindings";
import { RUN_STATUS_LABELS, isRunFailure } from "../chat/chat";
import { RunErrorCard } from "../activity/RunErrorCard";
import { Markdown } from "../../components/Markdown";
import { TintDot } from "../../components/TintDot";
import { UnconfinedBadge } from "../sandbox/UnconfinedBadge";
import { PathOwnerProvider } from "../../components/MarkdownPath";
import { MessageActions } from "../chat/MessageActions";

type RowProps = {
  message: RoomMessage;
  run: RunSummary | undefined;
  agentOf: (id: string | null | undefined) => Agent | undefined;
  handle: (id: string | null | undefined) => string;
  /** The reply asks the user something still open in the Inbox. */
  askedYou: boolean;
  onSee: (runId: string, agentId: string | null | undefined) => void;
  onSelectRun: (runId: string) => void;
  /** Runs a failed run's work again (offered while nothing runs in the room). */
  onRetry?: (message: RoomMessage) => void;
  /** Opens a card on the Board (a routine's card). */
  onOpenCard?: (cardId: string) => void;
};

/** "@scout's run failed.", as the one-to-one chat says "The run failed.". */
function failureTitle(who: string, run: RunSummary): string {
  if (run.status === "timed_out") return `${who}'s run timed out.`;
  if (run.status === "interrupted") return `${who}'s run was interrupted.`;
  return `${who}'s run failed.`;
}

/** One entry of a room: the user's message, a notice, a reply, a hand-off card or a batch card.
 *  Memoised: a row renders again only when its own props change (its message, its run). */
export const RoomMessageRow = memo(function RoomMessageRow({
  message,
  run,
  agentOf,
  handle,
  askedYou,
  onSee,
  onSelectRun,
  onRetry,
  onOpenCard,
}: RowProps) {
  const author = agentOf(message.authorId);
  // "Copy" takes the text as read; retry in a room is the error card's, and edit is left out.
  const text = useRef<HTMLDivElement>(null);
  const plainText = useCallback(() => text.current?.innerText || text.current?.textContent || "", []);
  const see = (runId: string | null, agentId: string | null | undefined, label: string) =>
    runId && (
      <button type="button" className="link-button" onClick={() => onSee(runId, agentId)} data-testid="see-context">
        {label}
      </button>
    );
  if (message.kind === "user" && message.routine) {
    return (
      <RoutineMessage
        message={message}
        routine={message.routine}
        agentOf={agentOf}
        handle={handle}
        onOpenCard={onOpenCard}
      />
    );
  }
  switch (message.kind) {
    case "user":
      return (
        <div className="chat-entry chat-entry--user">
          <div className="chat-row chat-row--user" data-testid="room-message-user" data-message-id={message.id}>
            <div className="chat-bubble" ref={text}>
              {message.content}
            </div>
          </div>
          <MessageActions markdown={message.content} plainText={plainText} label="your message" />
        </div>
      );
    case "notice":
      // A member's or the leader's run that failed: the error card, kept with the room's history.
      if (run && isRunFailure(run.status)) {
        return (
          <RunErrorCard
            title={failureTitle(handle(message.authorId), run)}
            code={run.errorCode}
            message={run.error}
            agentId={message.authorId}
            onRetry={onRetry ? () => onRetry(message) : undefined}
            testId="room-run-error"
          >
            <footer className="room-meta">{see(message.runId, message.authorId, `What ${handle(message.authorId)} saw`)}</footer>
          </RunErrorCard>
        );
      }
      return (
        <p className="room-notice" data-testid="room-notice" data-message-id={message.id}>
          {message.content}
        </p>
      );
    case "reply":
      return (
        <div className="chat-entry chat-entry--assistant">
          <div
            className="chat-row chat-row--assistant"
            style={{ "--agent-tint": author?.tint } as CSSProperties}
            data-testid="room-message-reply" data-message-id={message.id}
          >
            <div className="chat-bubble chat-bubble--markdown">
              <header className="room-author">
                {author && <TintDot tint={author.tint} />}
                <strong>{author?.name ?? "A former member"}</strong>
                <span className="muted">{handle(message.authorId)}</span>
                <UnconfinedBadge agent={author} />
                {askedYou && (
                  <span
                    className="asked-you"
                    title="Waiting for your answer: reply here, or answer in the Inbox."
                    data-testid={`asked-you-${message.id}`}
                  >
                    asked you
                  </span>
                )}
              </header>
              <PathOwnerProvider agentId={message.authorId}>
                <div ref={text}>
                  <Markdown text={message.content} />
                </div>
              </PathOwnerProvider>
              <footer className="room-meta">
                {see(message.runId, message.authorId, `What ${handle(message.authorId)} saw`)}
              </footer>
            </div>
          </div>
          <MessageActions
            markdown={message.content}
            plainText={plainText}
            label={`${author?.name ?? "a former member"}'s reply`}
          />
        </div>
      );
    case "handoff":
      return (
        <div className="room-card room-card--handoff" data-testid="handoff-card" data-message-id={message.id}>
          <header>
            <span>
              {handle(message.authorId)} → <strong>{handle(message.targetId)}</strong>
            </span>
            <button
              type="button"
              className={`run-status run-status--${run?.status ?? "queued"}`}
              onClick={() => run && onSelectRun(run.id)}
              disabled={!run}
            >
              {run ? RUN_STATUS_LABELS[run.status] : "Waiting to start"}
            </button>
          </header>
          <p className="room-card__label">Task, exactly as {handle(message.targetId)} received it</p>
          <pre className="room-card__text" data-testid="handoff-task">
            {message.content}
          </pre>
          <footer className="room-meta">{see(message.runId, message.targetId, `What ${handle(message.targetId)} saw`)}</footer>
        </div>
      );
    case "batch":
      return (
        <div className="room-card room-card--batch" data-testid="batch-card" data-message-id={message.id}>
          <header>
            <span>
              Results for <strong>{handle(message.authorId)}</strong>, in one batch
            </span>
          </header>
          <details>
            <summary>The message {handle(message.authorId)} received</summary>
            <pre className="room-card__text">{message.content}</pre>
          </details>
          <footer className="room-meta">{see(message.runId, message.authorId, `What ${handle(message.authorId)} saw`)}</footer>
        </div>
      );
  }
});

type RoutineProps = {
  message: RoomMessage;
  routine: RoomRoutine;
  agentOf: (id: string | null | undefined) => Agent | undefined;
  handle: (id: string | null | undefined) => string;
  onOpenCard?: (cardId: string) => void;
};

/**
 * A routine's message: a team routine's prompt for the leader, or a member routine's result. Drawn
 * as the routine's (its name, the member that ran it, its card), not as something the user typed.
 */
function RoutineMessage({ message, routine, agentOf, handle, onOpenCard }: RoutineProps) {
  const ranBy = agentOf(routine.agentId);
  const text = useRef<HTMLDivElement>(null);
  const plainText = useCallback(() => text.current?.innerText || text.current?.textContent || "", []);
  // The stored text starts with the routine's name, as the leader read it: said once, above.
  const prefix = `Routine "${routine.name}": `;
  const body = message.content.startsWith(prefix) ? message.content.slice(prefix.length) : message.content;
  return (
    <div className="chat-entry chat-entry--routine">
      <div
        className="room-card room-card--routine"
        style={{ "--agent-tint": ranBy?.tint } as CSSProperties}
        data-testid="room-message-routine"
        data-message-id={message.id}
      >
        <header>
          <span className="room-routine__title">
            <RoutineIcon />
            <span>
              Routine <strong>{routine.name}</strong>
            </span>
          </span>
          <span className="room-routine__who">
            {routine.agentId ? (
              <>
                {ranBy && <TintDot tint={ranBy.tint} />}
                <span>ran by {handle(routine.agentId)}</span>
              </>
            ) : (
              <span>the team's routine, for the leader</span>
            )}
          </span>
        </header>
        <div className="room-card__body" ref={text}>
          <Markdown text={body} />
        </div>
        {routine.cardId && (
          <footer className="room-meta">
            <button
              type="button"
              className="link-button"
              onClick={() => routine.cardId && onOpenCard?.(routine.cardId)}
              disabled={!onOpenCard}
              data-testid="routine-card-link"
            >
              Open its card
            </button>
          </footer>
        )}
      </div>
      <MessageActions markdown={body} plainText={plainText} label={`routine ${routine.name}'s message`} />
    </div>
  );
}

/** A small clock: the routine's mark (drawn, so it never depends on an emoji font). */
function RoutineIcon() {
  return (
    <svg className="room-routine__icon" width="14" height="14" viewBox="0 0 16 16" aria-hidden="true">
      <circle cx="8" cy="8" r="6.25" fill="none" stroke="currentColor" strokeWidth="1.5" />
      <path d="M8 4.5V8l2.5 1.75" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
    </svg>
  );
}
