import { useCallback, useMemo, useRef, useState } from "react";
import type { Agent, RoomMessage, Team, Room } from "../../bindings";
import { useAgents } from "../agents/agentQueries";
import {
  nextRoomView,
  useRoomMessages,
  type RoomView,
  useRoomRuns,
  useSendTeamMessage,
  useStopTeam,
} from "./roomQueries";
import { useOpenRequests } from "../attention/attentionQueries";
import { errorMessage } from "../../errors";
import { ErrorMessage } from "../../components/ErrorMessage";
import { ChatComposer } from "../chat/ChatComposer";
import { ActivityCard } from "../activity/ActivityCard";
import { Timeline } from "../../components/Timeline";
import { RunContextViewer } from "../run-context/RunContextViewer";
import { PeerRoomViewer } from "./PeerRoomViewer";
import { RoomMessageRow } from "./RoomMessageRow";
import { RoomLiveReply } from "./RoomLiveReply";
import { RoomRunPicker } from "./RoomRunPicker";
import { MentionsProvider } from "../../components/Markdown";
import { AskedHere } from "../attention/AskedHere";
import { useDraft } from "../../lib/useDraft";
import { useMarkRead } from "../chat/unread";

const messageKey = (message: RoomMessage) => message.id;
const NO_AGENTS: Agent[] = [];

type Props = {
  team: Team;
  room: Room;
  /** Opens an agent's own page (a click on its @handle). */
  onOpenAgent?: (agentId: string) => void;
  /** Opens a card on the Board (a routine's card). */
  onOpenCard?: (cardId: string) => void;
};

/** A room of a team: the conversation with its hand-off and batch cards, and the room's runs beside it. */
export function RoomChat({ team, room, onOpenAgent, onOpenCard }: Props) {
  const messages = useRoomMessages(room.id);
  const runs = useRoomRuns(room.id);
  const agents = useAgents().data ?? NO_AGENTS;
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

  // Made from the previous view when an event only appended a message: the rows already shown
  // keep their props, and nothing older is gone over again.
  const previousView = useRef<RoomView | undefined>(undefined);
  const view = useMemo(
    () => (previousView.current = nextRoomView(previousView.current, messages.data)),
    [messages.data],
  );
  const entries = view.messages;
  // The room's newest runs (kept current by events) over the runs its loaded pages came with.
  const recentRuns = useMemo(() => new Map((runs.data ?? []).map((r) => [r.id, r])), [runs.data]);
  const runById = useCallback(
    (id: string) => recentRuns.get(id) ?? view.runs.get(id),
    [recentRuns, view.runs],
  );
  const running = (runs.data ?? []).filter((r) => r.status === "running");
  // Kept per room, across switches and restarts; read while open.
  const draft = useDraft(`room:${room.id}`);
  useMarkRead("room", room.id, messages.data ? (entries[entries.length - 1]?.seq ?? 0) : undefined);

  // Stable while the agents are: a row is given the same functions on every event.
  const agentOf = useCallback((id: string | null | undefined) => agents.find((a) => a.id === id), [agents]);
  const handle = useCallback(
    (id: string | null | undefined) => {
      const agent = agentOf(id);
      return agent ? `@${agent.handle}` : "a former member";
    },
    [agentOf],
  );
  const openContext = useCallback(
    (runId: string, agentId: string | null | undefined) => setSeeing({ runId, who: handle(agentId) }),
    [handle],
  );

  const allRuns = runs.data ?? [];
  const shownRun =
    (selectedRun && runById(selectedRun)) || running[running.length - 1] || allRuns[allRuns.length - 1] || null;
  const leaderName = room.leaderId ? handle(room.leaderId) : "the leader";
  const memberHandles = useMemo(
    () => agents.filter((a) => room.memberIds.includes(a.id)).map((a) => a.handle),
    [agents, room.memberIds],
  );
  const mentions = useMemo(
    () => ({
      handles: memberHandles,
      onOpen: onOpenAgent
        ? (h: string) => {
            const agent = agents.find((a) => a.handle === h);
            if (agent) onOpenAgent(agent.id);
          }
        : undefined,
    }),
    [memberHandles, agents, onOpenAgent],
  );
  const error = send.error ?? stop.error ?? messages.error ?? runs.error;
  // Retry: a failed hand-off goes to its teammate again with the same task; any other failed
  // turn sends the user's message before it again.
  const retryable = running.length === 0 && !send.isPending;
  // Read at the click, so the callback (and the error cards given it) stays the same while
  // messages come.
  const entriesNow = useRef(entries);
  entriesNow.current = entries;
  const { mutate: sendText } = send;
  const retry = useCallback(
    (failed: RoomMessage) => {
      const shown = entriesNow.current;
      const handoff = failed.handoffId
        ? shown.find((m) => m.kind === "handoff" && m.handoffId === failed.handoffId)
        : undefined;
      if (handoff) {
        sendText(`${handle(handoff.targetId)} ${handoff.content}`);
        return;
      }
      const asked = shown.filter((m) => m.kind === "user" && m.seq < failed.seq).pop();
      if (asked) sendText(asked.content);
    },
    [handle, sendText],
  );
  const onRetry = retryable ? retry : undefined;
  // The page's handler may be a new function each render: rows keep one stable callback.
  const openCardRef = useRef(onOpenCard);
  openCardRef.current = onOpenCard;
  const openCard = useCallback((cardId: string) => openCardRef.current?.(cardId), []);
  const canOpenCard = onOpenCard !== undefined;

  const renderMessage = useCallback(
    (message: RoomMessage) => (
      <RoomMessageRow
        message={message}
        run={message.runId ? runById(message.runId) : undefined}
        agentOf={agentOf}
        handle={handle}
        askedYou={askedYou.has(message.id)}
        onSee={openContext}
        onSelectRun={setSelectedRun}
        // Only a notice (a failed run's card) offers Retry; the other rows never change with it.
        onRetry={message.kind === "notice" ? onRetry : undefined}
        onOpenCard={canOpenCard ? openCard : undefined}
      />
    ),
    [runById, agentOf, handle, askedYou, openContext, onRetry, canOpenCard, openCard],
  );

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
          <MentionsProvider value={mentions}>
            <Timeline
              items={entries}
              getKey={messageKey}
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
                      <RoomLiveReply key={run.id} run={run} agent={agentOf(run.agentId)} />
                    ))}
                  </>
                ) : undefined
              }
              renderItem={renderMessage}
            />
          </MentionsProvider>
        )}
        <ErrorMessage message={error ? errorMessage(error) : null} />
        <AskedHere roomId={room.id} />
        <ChatComposer
          key={room.id}
          mentionables={memberHandles}
          mentionKind="teammate"
          initialText={draft.initialText}
          onTextChange={draft.onTextChange}
          running={false}
          sending={send.isPending}
          stopping={false}
          onSend={(text) => send.mutateAsync(text)}
          onStop={() => stop.mutate()}
        />
      </section>
      <aside className="room-activity" aria-label="Runs in this room">
        <RoomRunPicker runs={runs.data ?? []} shown={shownRun} handle={handle} onPick={setSelectedRun} />
        <ActivityCard run={shownRun} />
      </aside>
      {seeing && (
        <RunContextViewer
          runId={seeing.runId}
          who={seeing.who}
          run={runById(seeing.runId) ?? null}
          onClose={() => setSeeing(null)}
        />
      )}
      {peerOpen && (
        <PeerRoomViewer teamId={team.id} teamName={team.name} agents={agents} onClose={() => setPeerOpen(false)} />
      )}
    </div>
  );
}
