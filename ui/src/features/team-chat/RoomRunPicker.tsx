import type { RunSummary } from "../../bindings";
import { RUN_STATUS_LABELS } from "../chat/chat";

type PickerProps = {
  runs: readonly RunSummary[];
  shown: RunSummary | null;
  handle: (id: string) => string;
  onPick: (runId: string) => void;
};

/** "14:05", or "Dec 4, 14:05" for another day. */
function startedAt(ms: number, now = Date.now()): string {
  const at = new Date(ms);
  const time = at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  if (at.toDateString() === new Date(now).toDateString()) return time;
  return `${at.toLocaleDateString(undefined, { month: "short", day: "numeric" })}, ${time}`;
}

/** Every run of the room, newest first, each with its agent, when it started and its turn (the
 *  agent's nth run here); the chosen one's activity shows below. */
export function RoomRunPicker({ runs, shown, handle, onPick }: PickerProps) {
  if (runs.length === 0) return null;
  // Oldest first: an agent's turn number counts its runs in this room so far.
  const turns = new Map<string, number>();
  const seen = new Map<string, number>();
  for (const run of runs) {
    const turn = (seen.get(run.agentId) ?? 0) + 1;
    seen.set(run.agentId, turn);
    turns.set(run.id, turn);
  }
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
              data-testid={`room-run-${run.id}`}
            >
              <span>{handle(run.agentId)}</span>
              <span className="run-picker__when muted">
                {startedAt(run.startedAt)} · turn {turns.get(run.id)}
              </span>
              <span className={`run-status run-status--${run.status}`}>{RUN_STATUS_LABELS[run.status]}</span>
            </button>
          </li>
        ))}
    </ol>
  );
}
