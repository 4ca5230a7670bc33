import { useState } from "react";
import type { TaskTrace } from "../../bindings";
import { useTraces } from "./boardQueries";
import { errorMessage } from "../../errors";
import { formatCount } from "../../lib/format";
import { formatTime } from "../memory/memoryLabels";
import { ErrorMessage } from "../../components/ErrorMessage";
import { TaskRunContextViewer } from "./TaskRunContextViewer";
import { runCostLabel } from "../spend/money";
import { useRunsSpend } from "../spend/spendQueries";

/** Traces of task-runner runs: what each was sent (chars per tier), what it cost, how long it
 *  took and how it ended; each opens to its exact context. */
export function ObservabilityCard() {
  const traces = useTraces();
  // Cost as the engine counted it (never the CLI's own price): the spend of each traced run.
  const spent = useRunsSpend((traces.data ?? []).map((t) => t.runId), (traces.data ?? []).map((t) => t.status).join(",")).data;
  const spentOf = (runId: string) => spent?.find((s) => s.runId === runId);
  const [open, setOpen] = useState<TaskTrace | null>(null);
  return (
    <section className="card" aria-label="Observability">
      <h2 className="card__title">Observability</h2>
      <p className="muted">
        Every task-runner run, newest first: the tiers it was sent, tokens and cache reads, fresh sessions and fix
        rounds, how long it took and how it ended.
      </p>
      <ErrorMessage message={traces.error ? errorMessage(traces.error) : null} />
      {traces.data?.length === 0 && <p className="muted">No task runs yet. Run a card from the Board.</p>}
      {!!traces.data?.length && (
        <div className="traces__scroll">
          <table className="traces" data-testid="traces">
            <thead>
              <tr>
                <th>Started</th>
                <th>Card</th>
                <th>Agent</th>
                <th>Run</th>
                <th>Outcome</th>
                <th>Took</th>
                <th title="Characters sent: steady for the task / context / changes most">Tiers (chars)</th>
                <th title="Input / output tokens, and input read from the provider's cache">Tokens</th>
                <th>Cost</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {traces.data.map((t) => (
                <tr key={t.runId} data-testid={`trace-${t.runId}`}>
                  <td>{formatTime(t.startedAt)}</td>
                  <td>
                    #{t.cardNumber} {t.cardTitle}
                  </td>
                  <td>{t.agentHandle ? `@${t.agentHandle}` : "deleted agent"}</td>
                  <td>
                    {t.attempt} · {t.kind}
                  </td>
                  <td className={`run-status run-status--${t.status}`} title={t.reason ?? undefined}>
                    {t.status}
                  </td>
                  <td>{t.finishedAt ? seconds(t.finishedAt - t.startedAt) : "…"}</td>
                  <td className="mono">
                    {formatCount(t.steadyChars)} / {formatCount(t.contextChars)} / {formatCount(t.changingChars)}
                    {t.cited > 0 && ` · ${t.cited} facts`}
                  </td>
                  <td className="mono">
                    {formatCount(t.inputTokens)} in · {formatCount(t.outputTokens)} out
                    {t.cacheReadTokens > 0 && ` · ${formatCount(t.cacheReadTokens)} cached`}
                  </td>
                  <td data-testid={`trace-cost-${t.runId}`}>
                    {spentOf(t.runId) ? runCostLabel(spentOf(t.runId)!.costMicros, spentOf(t.runId)!.billing) : "—"}
                  </td>
                  <td>
                    <button
                      type="button"
                      className="button button--small"
                      onClick={() => setOpen(t)}
                      data-testid={`trace-open-${t.runId}`}
                    >
                      Context
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open && (
        <TaskRunContextViewer
          runId={open.runId}
          who={open.agentHandle ? `@${open.agentHandle}` : "the agent"}
          onClose={() => setOpen(null)}
        />
      )}
    </section>
  );
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
