import { useMemo, useState, type CSSProperties } from "react";
import type { Agent, RoomMessage, RunSummary, Team, Room } from "../../bindings";
import { useAgents } from "../agents/agentQueries";
import {
  flattenPages,
  useRoomMessages,
  useRoomRuns,
  useSendTeamMessage,
  useStopTeam,
} from "./roomQueries";
import { useRunActivity } from "../activity/runActivity";
import { useOpenRequests } from "../attention/attentionQueries";
import { errorMessage } from "../../errors";
import { RUN_STATUS_LABELS } from "../chat/chat";
import { ErrorMessage } from "../../components/ErrorMessage";
import { ChatComposer } from "../chat/ChatComposer";
import { ActivityCard } from "../activity/ActivityCard";
import { Markdown } from "../../components/Markdown";
import { Timeline } from "../../components/Timeline";
import { TintDot } from "../../components/TintDot";
import { UnconfinedBadge } from "../sandbox/UnconfinedBadge";
import { RunContextViewer } from "../run-context/RunContextViewer";
import { PeerRoomViewer } from "./PeerRoomViewer";

type Props = { team: Team; room: Room };


/** Drafts by room, kept while the user looks elsewhere. */
const drafts = new Map<string, string>();

/** A room of a team: the conversation with its hand-off and batch cards, and the room's runs beside it. */
export function RoomChat({ team, room }: Props) {
  const messages = useRoomMessages(room.id);
  const runs = useRoomRuns(room.id);
  const agents = useAgents().data ?? [];
  const send = useSendTeamMessage(room.id);
  const stop = useStopTeam(team.id);
  const [seeing, setSeeing] = useState<{ runId: string; who: string } | null>(null);
  const [peerOpen, setPeerOpen] = useState(false);
  const [selectedRun, setSelectedRun] = useState<string | null>(null);
  const open = useOpenRequests();
  // Replies whose agent asked the user something still unanswered (`@user` in the reply).
  const askedYou = useMemo(
    () => new Set((open.data ?? []).flatMap((r) => (r.roomId === room.id && r.messageId ? [r.messageId] : []))),
    [open.data, room.id],
  );

  const runById = useMemo(() => {
    const map = new Map<string, RunSummary>();
    for (const page of messages.data?.pages ?? []) for (const run of page.runs) map.set(run.id, run);
    for (const run of runs.data ?? []) map.set(run.id, run);
    return map;
  }, [messages.data, runs.data]);
  const running = (runs.data ?? []).filter((r) => r.status === "running");
  const entries = useMemo(() => flattenPages(messages.data), [messages.data]);

  const agentOf = (id: string | null | undefined) => agents.find((a) => a.id === id);
  const handle = (id: string | null | undefined) => {
    const agent = agentOf(id);
    return agent ? `@${agent.handle}` : "a former member";
  };
  const openContext = (runId: string, agentId: string | null | undefined) => setSeeing({ runId, who: handle(agentId) });

  const allRuns = runs.data ?? [];
  const shownRun =
    (selectedRun && runById.get(selectedRun)) || running[running.length - 1] || allRuns[allRuns.length - 1] || null;
  const leaderName = room.leaderId ? handle(room.leaderId) : "the leader";
  const error = send.error ?? stop.error ?? messages.error ?? runs.error;

  return (
    <div className="chat-layout">
      <section className="chat room-chat" aria-label={`${team.name} · ${room.isGeneral ? "General" : room.name}`} data-testid="room-chat">
        <div className="room-toolbar">
          <span className="muted room-toolbar__hint">
            A message goes to {leaderName}; @handle addresses a member.
          </span>
          <button type="button" className="button button--small" onClick={() => setPeerOpen(true)} data-testid="open-peer-room">
            Peer room
          </button>
          <button
            type="button"
            className="button button--small button--danger"
            disabled={running.length === 0 || stop.isPending}
            onClick={() => stop.mutate()}
            data-testid="stop-team"
            title="End every run of this team and drop its queued work"
          >
            Stop{running.length > 0 ? ` (${running.length} running)` : ""}
          </button>
        </div>
        {!messages.data ? (
          <p className="muted chat-loading">{messages.error ? "" : "Loading conversation…"}</p>
        ) : (
          <Timeline
            items={entries}
            getKey={(m) => m.id}
            ariaLabel={`Messages in ${room.isGeneral ? "General" : room.name}`}
            testId="room-timeline"
            followKey={send.submittedAt}
            hasOlder={messages.hasNextPage}
            loadingOlder={messages.isFetchingNextPage}
            onLoadOlder={() => void messages.fetchNextPage()}
            empty={
              <p className="muted chat-empty">
                Write to the team. A message goes to the leader; @handle addresses a member. /rule adds a team rule,
                /reset starts the agents fresh.
              </p>
            }
            footer={
              running.length > 0 ? (
                <>
                  {running.map((run) => (
                    <LiveReply key={run.id} run={run} agent={agentOf(run.agentId)} />
                  ))}
                </>
              ) : undefined
            }
            renderItem={(message) => (
              <MessageRow
                message={message}
                run={message.runId ? runById.get(message.runId) : undefined}
                agentOf={agentOf}
                handle={handle}
                askedYou={askedYou.has(message.id)}
                onSee={openContext}
                onSelectRun={setSelectedRun}
              />
            )}
          />
        )}
        <ErrorMessage message={error ? errorMessage(error) : null} />
        <ChatComposer
          initialText={drafts.get(room.id) ?? ""}
          onTextChange={(text) => drafts.set(room.id, text)}
          running={false}
          sending={send.isPending}
          stopping={false}
          onSend={(text) => send.mutateAsync(text)}
          onStop={() => stop.mutate()}
        />
      </section>
      <aside className="room-activity" aria-label="Runs in this room">
        <RunPicker runs={runs.data ?? []} shown={shownRun} handle={handle} onPick={setSelectedRun} />
        <ActivityCard run={shownRun} />
      </aside>
      {seeing && <RunContextViewer runId={seeing.runId} who={seeing.who} onClose={() => setSeeing(null)} />}
      {peerOpen && (
        <PeerRoomViewer teamId={team.id} teamName={team.name} agents={agents} onClose={() => setPeerOpen(false)} />
      )}
    </div>
  );
}

type RowProps = {
  message: RoomMessage;
  run: RunSummary | undefined;
  agentOf: (id: string | null | undefined) => Agent | undefined;
  handle: (id: string | null | undefined) => string;
  /** The reply asks the user something still open in the Inbox. */
  askedYou: boolean;
  onSee: (runId: string, agentId: string | null | undefined) => void;
  onSelectRun: (runId: string) => void;
};

function MessageRow({ message, run, agentOf, handle, askedYou, onSee, onSelectRun }: RowProps) {
  const author = agentOf(message.authorId);
  const see = (runId: string | null, agentId: string | null | undefined, label: string) =>
    runId && (
      <button type="button" className="link-button" onClick={() => onSee(runId, agentId)} data-testid="see-context">
        {label}
      </button>
    );
  switch (message.kind) {
    case "user":
      return (
        <div className="chat-row chat-row--user" data-testid="room-message-user">
          <div className="chat-bubble">{message.content}</div>
        </div>
      );
    case "notice":
      return (
        <p className="room-notice" data-testid="room-notice">
          {message.content}
        </p>
      );
    case "reply":
      return (
        <div
          className="chat-row chat-row--assistant"
          style={{ "--agent-tint": author?.tint } as CSSProperties}
          data-testid="room-message-reply"
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
            <Markdown text={message.content} />
            <footer className="room-meta">
              {see(message.runId, message.authorId, `What ${handle(message.authorId)} saw`)}
            </footer>
          </div>
        </div>
      );
    case "handoff":
      return (
        <div className="room-card room-card--handoff" data-testid="handoff-card">
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
        <div className="room-card room-card--batch" data-testid="batch-card">
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
}

/** A run's reply as it streams. */
function LiveReply({ run, agent }: { run: RunSummary; agent: Agent | undefined }) {
  const { activity } = useRunActivity(run.id);
  return (
    <div
      className="chat-row chat-row--assistant is-streaming"
      style={{ "--agent-tint": agent?.tint } as CSSProperties}
      data-testid="room-live-reply"
    >
      <div className="chat-bubble chat-bubble--markdown">
        <header className="room-author">
          {agent && <TintDot tint={agent.tint} />}
          <strong>{agent?.name ?? "Agent"}</strong>
          <UnconfinedBadge agent={agent} />
          <span className="muted">is working…</span>
        </header>
        {activity.text ? <Markdown text={activity.text} /> : <span className="typing" aria-label="working" />}
      </div>
    </div>
  );
}

type PickerProps = {
  runs: readonly RunSummary[];
  shown: RunSummary | null;
  handle: (id: string) => string;
  onPick: (runId: string) => void;
};

/** Every run of the room, newest first; the chosen one's activity shows below. */
function RunPicker({ runs, shown, handle, onPick }: PickerProps) {
  if (runs.length === 0) return null;
  return (
    <ol className="run-picker" data-testid="room-runs">
      {runs
        .slice()
        .reverse()
        .slice(0, 12)
        .map((run) => (
          <li key={run.id}>
            <button
              type="button"
              className={`run-picker__item${shown?.id === run.id ? " is-selected" : ""}`}
              onClick={() => onPick(run.id)}
            >
              <span>{handle(run.agentId)}</span>
              <span className={`run-status run-status--${run.status}`}>{RUN_STATUS_LABELS[run.status]}</span>
            </button>
          </li>
        ))}
    </ol>
  );
}
