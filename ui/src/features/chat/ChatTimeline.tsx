import { memo, useCallback, useEffect, useMemo, useRef, useState, type CSSProperties } from "react";
import type { ChatMessage, RunSummary } from "../../bindings";
import { isRunFailure, runNoticeTitle, type TimelineEntry } from "./chat";
import { Markdown, StreamingMarkdown } from "../../components/Markdown";
import { Timeline } from "../../components/Timeline";
import { SandboxLink } from "../activity/ActivityCard";
import { mentionsSandbox } from "../sandbox/sandbox";
import { RunErrorCard } from "../activity/RunErrorCard";
import { ReplySteps } from "./ReplySteps";
import { PathOwnerProvider } from "../../components/MarkdownPath";
import { MessageActions, MessageEditor } from "./MessageActions";
import { useRunActivity } from "../activity/runActivity";

/** How long a finished run may still be called active before the newest page is read again. */
const FINISH_GRACE_MS = 3_000;

/** Retry and edit of the last exchange, offered while no run is going. */
export type ReplaceActions = {
  /** The user's last standing message, and the reply after it. */
  lastUserId: string | null;
  lastReplyId: string | null;
  onRetry: (userMessageId: string) => void;
  onEdit: (userMessageId: string, text: string) => void;
  /** Whether a retry or an edit is on its way. */
  sending: boolean;
};

type Props = {
  agentName: string;
  tint: string;
  entries: TimelineEntry[];
  /** The runs noted in the conversation (failed, stopped): their notice carries their link. */
  notedRunIds: ReadonlySet<string>;
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
  /** The text of a message still on its way to the backend. */
  pendingText: string | null;
  /** The active run, whose reply streams below the messages; null when no run is going. */
  streamingRunId: string | null;
  /** Called when the active run said it finished but no news of its end came for a while. */
  onQuietEnd: () => void;
  /** Opens "What this agent saw" for a run; its link reads `seeLabel`. */
  onSeeContext: (runId: string) => void;
  seeLabel: string;
  /** Opens the agent's Sandbox settings, offered under a run that failed for its sandbox. */
  onOpenSandbox?: () => void;
  /** Sends a failed run's message again (offered while no run is going). */
  onRetry?: (runId: string) => void;
  /** The agent, for the fix a failed run's error points to (its profile). */
  agentId?: string;
  /** Retry and edit on the last exchange (none while a run is going). */
  replace?: ReplaceActions;
};

type See = { label: string; open: (runId: string) => void };

/** The link to what a run was given, one per run. */
function SeeContext({ runId, see }: { runId: string; see: See }) {
  return (
    <footer className="chat-meta">
      <button
        type="button"
        className="link-button"
        onClick={() => see.open(runId)}
        data-testid={`chat-run-context-${runId}`}
      >
        {see.label}
      </button>
    </footer>
  );
}

/** The text of a rendered message as read (for "Copy"). */
const readText = (el: HTMLElement | null) => (el ? el.innerText || el.textContent || "" : "");

type RowProps = {
  message: ChatMessage;
  see: See | null;
  agentName: string;
  /** Offered on this row when it is the last reply or the user's last message. */
  replace?: ReplaceActions;
};

/** `see`: the reply carries its run's "What this agent saw" link. */
const MessageRow = memo(function MessageRow({ message, see, agentName, replace }: RowProps) {
  const bubble = useRef<HTMLDivElement>(null);
  const [editing, setEditing] = useState(false);
  const plainText = useCallback(() => readText(bubble.current), []);
  if (message.role === "notice") {
    return (
      <div className="chat-notice" data-testid="chat-notice" data-message-id={message.id}>
        {message.content}
      </div>
    );
  }
  if (message.role === "user") {
    const canEdit = replace && replace.lastUserId === message.id;
    if (editing && canEdit) {
      return (
        <div className="chat-row chat-row--user" data-testid="chat-message" data-role="user" data-message-id={message.id}>
          <MessageEditor
            initialText={message.content}
            sending={replace.sending}
            onCancel={() => setEditing(false)}
            onSend={(text) => {
              setEditing(false);
              replace.onEdit(message.id, text);
            }}
          />
        </div>
      );
    }
    return (
      <div className="chat-entry chat-entry--user">
        <div className="chat-row chat-row--user" data-testid="chat-message" data-role="user" data-message-id={message.id}>
          {/* What the user typed is shown as typed. */}
          <div className="chat-bubble" ref={bubble}>
            {message.content}
          </div>
        </div>
        <MessageActions
          markdown={message.content}
          plainText={plainText}
          label="your message"
          onEdit={canEdit ? () => setEditing(true) : undefined}
        />
      </div>
    );
  }
  const retryOf = replace && replace.lastReplyId === message.id ? replace.lastUserId : null;
  return (
    <>
      <div className="chat-entry chat-entry--assistant">
        <div className="chat-row chat-row--assistant" data-testid="chat-message" data-role="assistant" data-message-id={message.id}>
          <div className="chat-bubble chat-bubble--markdown" ref={bubble}>
            <Markdown text={message.content} />
          </div>
        </div>
        <MessageActions
          markdown={message.content}
          plainText={plainText}
          label={`${agentName}'s reply`}
          onRetry={retryOf && replace ? () => replace.onRetry(retryOf) : undefined}
        />
      </div>
      {message.runId && <ReplySteps runId={message.runId} />}
      {see && message.runId && <SeeContext runId={message.runId} see={see} />}
    </>
  );
});

/** Messages a retry or an edit replaced: one quiet line, opened on demand. */
const SupersededFold = memo(function SupersededFold({ messages, edited }: { messages: ChatMessage[]; edited: boolean }) {
  const [open, setOpen] = useState(false);
  const replies = messages.filter((m) => m.role === "assistant").length;
  const label = edited
    ? "Edited · earlier message"
    : replies === 1
      ? "Earlier reply"
      : `${replies} earlier replies`;
  return (
    <div className="chat-superseded" data-testid="chat-superseded">
      <button
        type="button"
        className="link-button chat-superseded__toggle"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        data-testid="chat-superseded-toggle"
      >
        {open ? "Hide" : "Show"} {label.toLowerCase()}
      </button>
      {open && (
        <div className="chat-superseded__messages">
          {messages.map((m) => (
            <div
              key={m.id}
              className={`chat-row chat-row--${m.role === "user" ? "user" : "assistant"} is-superseded`}
              data-testid="chat-superseded-message"
            >
              <div className={`chat-bubble ${m.role === "user" ? "" : "chat-bubble--markdown"}`}>
                {m.role === "user" ? m.content : <Markdown text={m.content} />}
              </div>
            </div>
          ))}
        </div>
      )}
    </div>
  );
});

type NoticeProps = {
  run: RunSummary;
  see: See;
  onOpenSandbox?: () => void;
  onRetry?: (runId: string) => void;
  agentId?: string;
};

/** A run that ended without its reply, kept in the history: a failure as the error card (its
 *  code, why as text, Retry, the fix, Copy details), a stop as a quiet notice. */
const RunNotice = memo(function RunNotice({ run, see, onOpenSandbox, onRetry, agentId }: NoticeProps) {
  if (isRunFailure(run.status)) {
    return (
      <RunErrorCard
        title={runNoticeTitle(run.status)}
        code={run.errorCode}
        message={run.error}
        agentId={agentId}
        onRetry={onRetry ? () => onRetry(run.id) : undefined}
        extra={onOpenSandbox && mentionsSandbox(run.error) && <SandboxLink onOpenSandbox={onOpenSandbox} />}
      >
        <SeeContext runId={run.id} see={see} />
      </RunErrorCard>
    );
  }
  return (
    <div className="chat-run-notice" data-testid="run-cancelled">
      <strong>{runNoticeTitle(run.status)}</strong>
      {run.error && (
        <div className="chat-run-notice__why" data-testid="run-error-text">
          <Markdown text={run.error} />
        </div>
      )}
      <SeeContext runId={run.id} see={see} />
    </div>
  );
});

/**
 * The active run's reply as it streams. It alone listens to the run's events, so a streamed
 * event renders this row and nothing else of the chat.
 */
const StreamingReply = memo(function StreamingReply({
  runId,
  agentName,
  onQuietEnd,
}: {
  runId: string;
  agentName: string;
  onQuietEnd: () => void;
}) {
  const { activity } = useRunActivity(runId);
  // Safety net: the run said it finished, yet no runChanged came to say so (this row would be
  // gone). Its end is stored (and announced) a moment after its last event, so only a long
  // silence reads the page again.
  const finished = activity.finished !== null;
  useEffect(() => {
    if (!finished) return;
    const timer = setTimeout(onQuietEnd, FINISH_GRACE_MS);
    return () => clearTimeout(timer);
  }, [finished, onQuietEnd]);
  return (
    <div className="chat-row chat-row--assistant">
      <div className="chat-bubble chat-bubble--markdown" data-testid="chat-streaming">
        {activity.text ? (
          <StreamingMarkdown text={activity.text} />
        ) : (
          <span className="typing" aria-label={`${agentName} is working`}>
            <span />
            <span />
            <span />
          </span>
        )}
      </div>
    </div>
  );
});

const entryKey = (entry: TimelineEntry) => entry.key;

/** The conversation, newest at the bottom; follows new content unless the user scrolled up. */
export function ChatTimeline({
  agentName,
  tint,
  entries,
  notedRunIds,
  hasOlder,
  loadingOlder,
  onLoadOlder,
  pendingText,
  streamingRunId,
  onQuietEnd,
  onSeeContext,
  seeLabel,
  onOpenSandbox,
  onRetry,
  agentId,
  replace,
}: Props) {
  const see = useMemo(() => ({ label: seeLabel, open: onSeeContext }), [seeLabel, onSeeContext]);
  const renderEntry = useCallback(
    (entry: TimelineEntry) =>
      entry.kind === "message" ? (
        <MessageRow
          message={entry.message}
          // A run noted in the conversation (failed, stopped) carries its link on the notice,
          // which comes after its last message; its partial reply, if any, does not repeat it.
          see={entry.message.runId && !notedRunIds.has(entry.message.runId) ? see : null}
          agentName={agentName}
          // Only the last exchange's rows change with it; the others stay memoised.
          replace={
            replace && (replace.lastUserId === entry.message.id || replace.lastReplyId === entry.message.id)
              ? replace
              : undefined
          }
        />
      ) : entry.kind === "superseded" ? (
        <SupersededFold messages={entry.messages} edited={entry.edited} />
      ) : (
        <RunNotice run={entry.run} see={see} onOpenSandbox={onOpenSandbox} onRetry={onRetry} agentId={agentId} />
      ),
    [notedRunIds, see, onOpenSandbox, onRetry, agentId, agentName, replace],
  );
  const footer =
    pendingText !== null || streamingRunId ? (
      <>
        {pendingText !== null && (
          <div className="chat-row chat-row--user is-pending" data-testid="chat-pending">
            <div className="chat-bubble">{pendingText}</div>
          </div>
        )}
        {streamingRunId && <StreamingReply runId={streamingRunId} agentName={agentName} onQuietEnd={onQuietEnd} />}
      </>
    ) : null;

  return (
    // A path an agent cites in its reply opens inside its own folder.
    <PathOwnerProvider agentId={agentId ?? null}>
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
    </PathOwnerProvider>
  );
}
