import type { CSSProperties } from "react";
import type { Agent, RunSummary } from "../../bindings";
import { useRunActivity } from "../activity/runActivity";
import { StreamingMarkdown } from "../../components/Markdown";
import { TintDot } from "../../components/TintDot";
import { UnconfinedBadge } from "../sandbox/UnconfinedBadge";

/** A run's reply as it streams: it alone listens to the run, and only its growing last block of
 *  Markdown is parsed again per event. */
export function RoomLiveReply({ run, agent }: { run: RunSummary; agent: Agent | undefined }) {
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
        {activity.text ? <StreamingMarkdown text={activity.text} /> : <span className="typing" aria-label="working" />}
      </div>
    </div>
  );
}
