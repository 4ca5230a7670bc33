import { memo, useLayoutEffect, useRef, useState, type CSSProperties } from "react";
import type { ChatMessage, RunSummary } from "../api";
import { isRunFailure, runNoticeTitle, type TimelineEntry } from "../lib/chat";

/** Entries rendered at first; "Show earlier" adds this many more. */
export const TIMELINE_PAGE = 200;
/** How close to the bottom (px) still counts as "at the bottom". */
const STICKY_SLACK = 48;

type Props = {
  agentName: string;
  tint: string;
  entries: TimelineEntry[];
  /** The text of a message still on its way to the backend. */
  pendingText: string | null;
  /** The live reply of the active run; null when no run is going. */
  streaming: { text: string } | null;
};

const MessageRow = memo(function MessageRow({ message }: { message: ChatMessage }) {
  if (message.role === "notice") {
    return (
      <div className="chat-notice" data-testid="chat-notice">
        {message.content}
      </div>
    );
  }
  return (
    <div className={`chat-row chat-row--${message.role}`} data-testid="chat-message" data-role={message.role}>
      <div className="chat-bubble">{message.content}</div>
    </div>
  );
});

const RunNotice = memo(function RunNotice({ run }: { run: RunSummary }) {
  const failure = isRunFailure(run.status);
  return (
    <div
      className={`chat-run-notice ${failure ? "chat-run-notice--error" : ""}`}
      role={failure ? "alert" : undefined}
      data-testid={failure ? "run-error" : "run-cancelled"}
    >
      <strong>{runNoticeTitle(run.status)}</strong>
      {run.error && <span> {run.error}</span>}
    </div>
  );
});

/** The conversation, newest at the bottom; follows new content unless the user scrolled up. */
export function ChatTimeline({ agentName, tint, entries, pendingText, streaming }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const restoreFrom = useRef<{ height: number; top: number } | null>(null);
  const [limit, setLimit] = useState(TIMELINE_PAGE);

  const visible = entries.length > limit ? entries.slice(entries.length - limit) : entries;
  const hiddenCount = entries.length - visible.length;

  const onScroll = () => {
    const el = scroller.current;
    if (el) atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= STICKY_SLACK;
  };

  const showEarlier = () => {
    const el = scroller.current;
    if (el) restoreFrom.current = { height: el.scrollHeight, top: el.scrollTop };
    setLimit((n) => n + TIMELINE_PAGE);
  };

  // Sending a message always brings the conversation back to the bottom.
  useLayoutEffect(() => {
    if (pendingText !== null) atBottom.current = true;
  }, [pendingText]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const restore = restoreFrom.current;
    if (restore) {
      // Earlier messages were added above: keep what the user was looking at in place.
      restoreFrom.current = null;
      el.scrollTop = el.scrollHeight - restore.height + restore.top;
    } else if (atBottom.current) {
      el.scrollTop = el.scrollHeight;
    }
  });

  const empty = entries.length === 0 && pendingText === null && !streaming;

  return (
    <div
      className="chat-timeline"
      ref={scroller}
      onScroll={onScroll}
      style={{ "--agent-tint": tint } as CSSProperties}
      role="log"
      aria-label="Conversation"
      data-testid="chat-timeline"
    >
      {hiddenCount > 0 && (
        <button type="button" className="button button--small chat-earlier" onClick={showEarlier} data-testid="chat-show-earlier">
          Show earlier ({hiddenCount})
        </button>
      )}
      {empty && <p className="chat-empty muted">Say hello to {agentName}.</p>}
      {visible.map((entry) =>
        entry.kind === "message" ? (
          <MessageRow key={entry.key} message={entry.message} />
        ) : (
          <RunNotice key={entry.key} run={entry.run} />
        ),
      )}
      {pendingText !== null && (
        <div className="chat-row chat-row--user is-pending" data-testid="chat-pending">
          <div className="chat-bubble">{pendingText}</div>
        </div>
      )}
      {streaming && (
        <div className="chat-row chat-row--assistant">
          <div className="chat-bubble" data-testid="chat-streaming">
            {streaming.text || (
              <span className="typing" aria-label={`${agentName} is working`}>
                <span />
                <span />
                <span />
              </span>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
