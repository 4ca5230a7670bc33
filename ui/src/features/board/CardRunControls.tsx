import type { Card } from "../../bindings";

/** Start a run (the assignee works on the card in a fresh session), or stop the one going. */
export function CardRunControls({
  card,
  hasAssignee,
  withMemory,
  onWithMemory,
  onStart,
  onStop,
  pending,
}: {
  card: Card;
  hasAssignee: boolean;
  withMemory: boolean;
  onWithMemory: (on: boolean) => void;
  onStart: () => void;
  onStop: () => void;
  pending: boolean;
}) {
  if (card.status === "in_progress") {
    return (
      <div className="card-run-controls">
        <span className="card-run-controls__live">A run is working on this card.</span>
        <button type="button" className="button button--small button--danger" onClick={onStop} disabled={pending} data-testid="card-run-stop">
          Stop
        </button>
      </div>
    );
  }
  if (card.status === "done" || card.status === "cancelled") return null;
  if (!hasAssignee) return <p className="muted card-run-controls">Assign an agent to run this card.</p>;
  const waiting = card.waitingOn.length > 0;
  return (
    <div className="card-run-controls">
      <button
        type="button"
        className="button button--primary button--small"
        onClick={onStart}
        disabled={pending || waiting}
        title={waiting ? "It waits for the cards it depends on." : undefined}
        data-testid="card-run-start"
      >
        Run
      </button>
      <label className="card-run-controls__memory">
        <input type="checkbox" checked={withMemory} onChange={(e) => onWithMemory(e.target.checked)} data-testid="card-run-memory" />
        Give it the memory facts that match the task
      </label>
    </div>
  );
}
