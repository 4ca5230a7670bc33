import { useState } from "react";
import type { Agent, CardRun, RunSpend, RunSummary } from "../../bindings";
import { ActivityCard } from "../activity/ActivityCard";
import { RunErrorCard } from "../activity/RunErrorCard";
import { formatTime } from "../memory/memoryLabels";
import { cacheShare, formatMicros, formatTokens, runCostLabel, totalTokens } from "../spend/money";
import { useRunsSpend } from "../spend/spendQueries";

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
  // Every run of the card (its runs, fix rounds and fresh sessions), priced as recorded.
  const spent = useRunsSpend(runs?.map((r) => r.runId) ?? [], runs?.map((r) => r.status).join(",") ?? "").data ?? [];
  const spentOf = (runId: string) => spent.find((s) => s.runId === runId);
  const cost = spent.reduce((sum, s) => sum + (s.costMicros ?? 0), 0);
  const tokens = spent.reduce((sum, s) => sum + totalTokens(s), 0);
  const priced = spent.some((s) => s.costMicros !== null);
  const cache = {
    inputTokens: spent.reduce((n, s) => n + s.inputTokens, 0),
    cacheReadTokens: spent.reduce((n, s) => n + s.cacheReadTokens, 0),
    cacheWriteTokens: spent.reduce((n, s) => n + s.cacheWriteTokens, 0),
  };
  return (
    <section className="card-panel__section">
      <h3>Runs</h3>
      {spent.length > 0 && (
        <p className="run-cost" data-testid="card-spend">
          All runs: {priced ? formatMicros(cost) : runCostLabel(null, spent[0].billing)} · {formatTokens(tokens)} tokens · cache
          reads {cacheShare(cache)}
        </p>
      )}
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
              {spentOf(run.runId) && (
                <span className="run-cost" data-testid={`card-run-cost-${run.attempt}`}>
                  <RunCost spent={spentOf(run.runId)!} />
                </span>
              )}
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

/** One run's cost, and the share of its prompt read from the cache when it read any. */
function RunCost({ spent }: { spent: RunSpend }) {
  return (
    <>
      {runCostLabel(spent.costMicros, spent.billing)}
      {spent.cacheReadTokens > 0 && ` · cache reads ${cacheShare(spent)}`}
    </>
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
