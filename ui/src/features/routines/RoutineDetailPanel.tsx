import { useState } from "react";
import type { Routine, Team } from "../../bindings";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorWithCode } from "../../components/ErrorMessage";
import { errorMessage } from "../../errors";
import { BudgetEditor } from "../limits/BudgetEditor";
import { formatWhen, nextRunText, ownerLabel, runSummary } from "./routines";
import { useDeleteRoutine, usePauseRoutine, useResumeRoutine, useRoutineDetail, useRunRoutineNow } from "./routineQueries";
import { ScopeSpend } from "../spend/ScopeSpend";

/** One routine, opened: its facts and prompt, Run now / Pause / Resume / Edit / Delete, and its last
 *  runs, each linked to its card or team chat. */
export function RoutineDetailPanel({
  routine,
  teams = [],
  onEdit,
  onClose,
  onDeleted,
  onOpenCard,
  onOpenRoom,
}: {
  routine: Routine;
  /** To name the team an agent's routine reports to. */
  teams?: Team[];
  onEdit: () => void;
  onClose: () => void;
  onDeleted: () => void;
  onOpenCard: (cardId: string) => void;
  onOpenRoom: (teamId: string, roomId: string | null) => void;
}) {
  const detail = useRoutineDetail(routine.id);
  const runNow = useRunRoutineNow();
  const pause = usePauseRoutine();
  const resume = useResumeRoutine();
  const remove = useDeleteRoutine();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const running = detail.data?.runs.some((r) => r.outcome === "running") ?? false;
  const actionError = runNow.error ?? pause.error ?? resume.error;

  return (
    <aside className="routine-detail" data-testid="routine-detail">
      <header className="routine-detail__header">
        <h2>{routine.name}</h2>
        <button type="button" className="button button--small" onClick={onClose} aria-label="Close">
          ✕
        </button>
      </header>
      <dl className="routine-detail__facts">
        <dt>Belongs to</dt>
        <dd>{ownerLabel(routine)}</dd>
        <dt>Schedule</dt>
        <dd>{routine.scheduleText}</dd>
        <dt>Next run</dt>
        <dd>{nextRunText(routine)}</dd>
        <dt>Created by</dt>
        <dd>{routine.createdBy === "agent" ? "An agent, approved by you" : "You"}</dd>
        {routine.reportsToTeamId && (
          <>
            <dt>Reports to</dt>
            <dd data-testid="routine-reports-to">
              {teams.find((t) => t.id === routine.reportsToTeamId)?.name ?? "A team"}: its leader gets each result
            </dd>
          </>
        )}
        {routine.heartbeat && (
          <>
            <dt>Heartbeat</dt>
            <dd>Each run gets HEARTBEAT.md</dd>
          </>
        )}
      </dl>
      {routine.pausedReason && (
        <p className="routine-detail__paused" role="status" data-testid="routine-paused-reason">
          {routine.pausedReason}
        </p>
      )}
      <blockquote className="routine-detail__prompt">{routine.prompt}</blockquote>
      <div className="routine-detail__actions">
        <button
          type="button"
          className="button button--small button--primary"
          onClick={() => runNow.mutate(routine.id)}
          disabled={runNow.isPending || running}
          title={running ? "Its run is still going" : undefined}
          data-testid="routine-run-now"
        >
          Run now
        </button>
        {routine.state === "active" ? (
          <button
            type="button"
            className="button button--small"
            onClick={() => pause.mutate(routine.id)}
            disabled={pause.isPending}
            data-testid="routine-pause"
          >
            Pause
          </button>
        ) : (
          <button
            type="button"
            className="button button--small"
            onClick={() => resume.mutate(routine.id)}
            disabled={resume.isPending}
            data-testid="routine-resume"
          >
            Resume
          </button>
        )}
        <button type="button" className="button button--small" onClick={onEdit} data-testid="routine-edit">
          Edit
        </button>
        <button
          type="button"
          className="button button--small button--danger-subtle"
          onClick={() => setConfirmDelete(true)}
          data-testid="routine-delete"
        >
          Delete
        </button>
      </div>
      <ErrorWithCode error={actionError} />

      <ScopeSpend scope={{ kind: "routine", id: routine.id }} testId="routine-spend" />
      <h3 className="routine-detail__runs-title">Budgets</h3>
      <BudgetEditor scope="routine" scopeId={routine.id} what="Every run this routine starts" />
      <h3 className="routine-detail__runs-title">Last runs</h3>
      <ErrorWithCode error={detail.error} />
      {detail.data && detail.data.runs.length === 0 && <p className="muted">It has not run yet.</p>}
      {detail.data && detail.data.runs.length > 0 && (
        <ol className="routine-runs" data-testid="routine-runs">
          {detail.data.runs.map((run) => (
            <li key={run.id} className="routine-run" data-testid={`routine-run-${run.id}`}>
              <div className="routine-run__head">
                <span className={`routine-outcome routine-outcome--${run.outcome}`}>{runSummary(run)}</span>
                <span className="routine-run__when">{formatWhen(run.startedAt)}</span>
                {run.cardId && (
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => onOpenCard(run.cardId as string)}
                    data-testid={`routine-run-card-${run.id}`}
                  >
                    {run.cardNumber !== null ? `#${run.cardNumber}` : "Its card"}
                  </button>
                )}
                {!run.cardId && run.teamId && (
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => onOpenRoom(run.teamId as string, run.roomId)}
                    data-testid={`routine-run-room-${run.id}`}
                  >
                    Team chat
                  </button>
                )}
              </div>
              {run.note && <p className="routine-run__note">{run.note}</p>}
            </li>
          ))}
        </ol>
      )}
      {confirmDelete && (
        <ConfirmDialog
          title={`Delete "${routine.name}"?`}
          confirmLabel="Delete"
          onConfirm={() =>
            remove.mutate(routine.id, {
              onSuccess: () => {
                setConfirmDelete(false);
                onDeleted();
              },
            })
          }
          onCancel={() => setConfirmDelete(false)}
          busy={remove.isPending}
          error={remove.error ? errorMessage(remove.error) : null}
          confirmTestId="routine-delete-confirm"
        >
          It stops running, and its history goes with it. The cards and messages of its runs stay.
        </ConfirmDialog>
      )}
    </aside>
  );
}
