import { memo, useCallback, useMemo, type CSSProperties } from "react";
import type { ChatMessage, RunSummary } from "../../bindings";
import { isRunFailure, runNoticeTitle, type TimelineEntry } from "./chat";
import { Markdown, StreamingMarkdown } from "../../components/Markdown";
import { Timeline } from "../../components/Timeline";
import { SandboxLink } from "../activity/ActivityCard";
import { mentionsSandbox } from "../sandbox/sandbox";

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
  /** Opens "What this agent saw" for a run; its link reads `seeLabel`. */
  onSeeContext: (runId: string) => void;
  seeLabel: string;
  /** Opens the agent's Sandbox settings, offered under a run that failed for its sandbox. */
  onOpenSandbox?: () => void;
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

/** `see`: the reply carries its run's "What this agent saw" link. */
const MessageRow = memo(function MessageRow({ message, see }: { message: ChatMessage; see: See | null }) {
  if (message.role === "notice") {
    return (
      <div className="chat-notice" data-testid="chat-notice">
        {message.content}
      </div>
    );
  }
  if (message.role === "user") {
    return (
      <div className="chat-row chat-row--user" data-testid="chat-message" data-role="user">
        {/* What the user typed is shown as typed. */}
        <div className="chat-bubble">{message.content}</div>
      </div>
    );
  }
  return (
    <>
      <div className="chat-row chat-row--assistant" data-testid="chat-message" data-role="assistant">
        <div className="chat-bubble chat-bubble--markdown">
          <Markdown text={message.content} />
        </div>
      </div>
      {see && message.runId && <SeeContext runId={message.runId} see={see} />}
    </>
  );
});

type NoticeProps = { run: RunSummary; see: See; onOpenSandbox?: () => void };

const RunNotice = memo(function RunNotice({ run, see, onOpenSandbox }: NoticeProps) {
  const failure = isRunFailure(run.status);
  return (
    <div
      className={`chat-run-notice ${failure ? "chat-run-notice--error" : ""}`}
      role={failure ? "alert" : undefined}
      data-testid={failure ? "run-error" : "run-cancelled"}
    >
      <strong>{runNoticeTitle(run.status)}</strong>
      {run.error && <span> {run.error}</span>}
      {failure && onOpenSandbox && mentionsSandbox(run.error) && <SandboxLink onOpenSandbox={onOpenSandbox} />}
      <SeeContext runId={run.id} see={see} />
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
  onSeeContext,
  seeLabel,
  onOpenSandbox,
}: Props) {
  const see = useMemo(() => ({ label: seeLabel, open: onSeeContext }), [seeLabel, onSeeContext]);
  // A run noted in the conversation (failed, stopped) carries its link on the notice, which
  // comes after its last message; its partial reply, if any, does not repeat it.
  const noticed = useMemo(
    () => new Set(entries.flatMap((e) => (e.kind === "run" ? [e.run.id] : []))),
    [entries],
  );
  const renderEntry = useCallback(
    (entry: TimelineEntry) =>
      entry.kind === "message" ? (
        <MessageRow
          message={entry.message}
          see={entry.message.runId && !noticed.has(entry.message.runId) ? see : null}
        />
      ) : (
        <RunNotice run={entry.run} see={see} onOpenSandbox={onOpenSandbox} />
      ),
    [noticed, see, onOpenSandbox],
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
