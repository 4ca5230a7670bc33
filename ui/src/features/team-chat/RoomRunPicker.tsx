import type { RunSummary } from "../../bindings";
import { RUN_STATUS_LABELS } from "../chat/chat";

type PickerProps = {
  runs: readonly RunSummary[];
  shown: RunSummary | null;
  handle: (id: string) => string;
  onPick: (runId: string) => void;
};

/** Every run of the room, newest first; the chosen one's activity shows below. */
export function RoomRunPicker({ runs, shown, handle, onPick }: PickerProps) {
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
