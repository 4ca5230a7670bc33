import { useState } from "react";
import type { Agent, CardRun, RunSummary } from "../../bindings";
import { ActivityCard } from "../activity/ActivityCard";
import { RunErrorCard } from "../activity/RunErrorCard";
import { formatTime } from "../memory/memoryLabels";

/** A card's runs, each with "What it saw" and its Activity (the picked run's, else the newest's,
 *  live while it goes). */
export function CardRuns({
  runs,
  assignee,
  onShowContext,
  onRetry,
}: {
  runs: CardRun[] | undefined;
  assignee: Agent | undefined;
  onShowContext: (run: CardRun) => void;
  /** Runs the card again (offered while it can start). */
  onRetry?: () => void;
}) {
  const [shownRunId, setShownRunId] = useState<string | null>(null);
  const activityRun = runs?.find((r) => r.runId === shownRunId) ?? runs?.[runs.length - 1] ?? null;
  return (
    <section className="card-panel__section">
      <h3>Runs</h3>
      {runs?.length ? (
        <ul className="card-runs" data-testid="card-runs">
          {runs.map((run) => (
            <li key={run.runId} className="card-run" data-testid={`card-run-${run.attempt}`}>
              <span>Attempt {run.attempt}</span>
              <span className="pill pill--muted">{run.kind}</span>
              <span className={`run-status run-status--${run.status}`} data-testid={`card-run-status-${run.attempt}`}>
                {run.status}
              </span>
              <time className="muted">{formatTime(run.startedAt)}</time>
              {/* The failed run shown below says why in its error card. */}
              {run.reason && !(run === activityRun && isCardRunFailure(run)) && (
                <span className="muted card-run__reason">{run.reason}</span>
              )}
              <span className="card-run__actions">
                <button
                  type="button"
                  className="button button--small"
                  onClick={() => onShowContext(run)}
                  data-testid={`card-run-context-${run.attempt}`}
                >
                  What it saw
                </button>
                <button
                  type="button"
                  className="button button--small"
                  aria-pressed={activityRun?.runId === run.runId}
                  onClick={() => setShownRunId(run.runId)}
                  data-testid={`card-run-activity-${run.attempt}`}
                >
                  Activity
                </button>
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">No runs yet.</p>
      )}
      {activityRun && isCardRunFailure(activityRun) && (
        <RunErrorCard
          title={`Attempt ${activityRun.attempt} ${activityRun.status === "interrupted" ? "was interrupted" : "failed"}.`}
          code={activityRun.errorCode}
          message={activityRun.reason}
          agentId={assignee?.id}
          // Only the newest run is tried again: an older one's card has moved on.
          onRetry={activityRun === runs?.[runs.length - 1] ? onRetry : undefined}
          testId="card-run-error"
        />
      )}
      {activityRun && assignee && <ActivityCard run={runSummary(activityRun, assignee)} />}
    </section>
  );
}

const isCardRunFailure = (run: CardRun) => run.status === "failed" || run.status === "interrupted";

/** A card's run as the Activity card reads runs. */
function runSummary(run: CardRun, agent: Agent): RunSummary {
  return {
    id: run.runId,
    agentId: agent.id,
    runtime: agent.runtime,
    status: run.status,
    error: run.reason,
    errorCode: run.errorCode,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
  };
}
