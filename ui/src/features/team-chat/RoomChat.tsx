import { useMemo, useState } from "react";
import type { RoomMessage, RunSummary, Team, Room } from "../../bindings";
import { useAgents } from "../agents/agentQueries";
import {
  flattenPages,
  useRoomMessages,
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
  // Kept per room, across switches and restarts; read while open.
  const draft = useDraft(`room:${room.id}`);
  useMarkRead("room", room.id, messages.data ? (entries[entries.length - 1]?.seq ?? 0) : undefined);

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
  const retry = (failed: RoomMessage) => {
    const handoff = failed.handoffId
      ? entries.find((m) => m.kind === "handoff" && m.handoffId === failed.handoffId)
      : undefined;
    if (handoff) {
      send.mutate(`${handle(handoff.targetId)} ${handoff.content}`);
      return;
    }
    const asked = entries.filter((m) => m.kind === "user" && m.seq < failed.seq).pop();
    if (asked) send.mutate(asked.content);
  };

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
                      <RoomLiveReply key={run.id} run={run} agent={agentOf(run.agentId)} />
                    ))}
                  </>
                ) : undefined
              }
              renderItem={(message) => (
                <RoomMessageRow
                  message={message}
                  run={message.runId ? runById.get(message.runId) : undefined}
                  agentOf={agentOf}
                  handle={handle}
                  askedYou={askedYou.has(message.id)}
                  onSee={openContext}
                  onSelectRun={setSelectedRun}
                  onRetry={retryable ? retry : undefined}
                  onOpenCard={onOpenCard}
                />
              )}
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
          run={runById.get(seeing.runId) ?? null}
          onClose={() => setSeeing(null)}
        />
      )}
      {peerOpen && (
        <PeerRoomViewer teamId={team.id} teamName={team.name} agents={agents} onClose={() => setPeerOpen(false)} />
      )}
    </div>
  );
}
