import { memo, useCallback, type CSSProperties } from "react";
import type { ChatMessage, RunSummary } from "../api";
import { isRunFailure, runNoticeTitle, type TimelineEntry } from "../lib/chat";
import { Markdown, StreamingMarkdown } from "./Markdown";
import { Timeline } from "./Timeline";

type Props = {
  agentName: string;
  tint: string;
  entries: TimelineEntry[];
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
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
      {message.role === "assistant" ? (
        <div className="chat-bubble chat-bubble--markdown">
          <Markdown text={message.content} />
        </div>
      ) : (
        // What the user typed is shown as typed.
        <div className="chat-bubble">{message.content}</div>
      )}
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

const entryKey = (entry: TimelineEntry) => entry.key;

/** The conversation, newest at the bottom; follows new content unless the user scrolled up. */
export function ChatTimeline({
  agentName,
  tint,
  entries,
  hasOlder,
  loadingOlder,
  onLoadOlder,
  pendingText,
  streaming,
}: Props) {
  const renderEntry = useCallback(
    (entry: TimelineEntry) =>
      entry.kind === "message" ? <MessageRow message={entry.message} /> : <RunNotice run={entry.run} />,
    [],
  );
  const footer =
    pendingText !== null || streaming ? (
      <>
        {pendingText !== null && (
          <div className="chat-row chat-row--user is-pending" data-testid="chat-pending">
            <div className="chat-bubble">{pendingText}</div>
          </div>
        )}
        {streaming && (
          <div className="chat-row chat-row--assistant">
            <div className="chat-bubble chat-bubble--markdown" data-testid="chat-streaming">
              {streaming.text ? (
                <StreamingMarkdown text={streaming.text} />
              ) : (
                <span className="typing" aria-label={`${agentName} is working`}>
                  <span />
                  <span />
                  <span />
                </span>
              )}
            </div>
          </div>
        )}
      </>
    ) : null;

  return (
    <Timeline
      items={entries}
      getKey={entryKey}
      renderItem={renderEntry}
      hasOlder={hasOlder}
      loadingOlder={loadingOlder}
      onLoadOlder={onLoadOlder}
      footer={footer}
      empty={<p className="chat-empty muted">Say hello to {agentName}.</p>}
      followKey={pendingText}
      className="chat-timeline"
      style={{ "--agent-tint": tint } as CSSProperties}
      ariaLabel="Conversation"
      testId="chat-timeline"
    />
  );
}
