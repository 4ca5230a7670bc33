import { useState } from "react";
import type { Agent, Routine, RoutineRun, Team } from "../../bindings";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorWithCode } from "../../components/ErrorMessage";
import { RoutineEditor } from "./RoutineEditor";
import { errorMessage } from "../../errors";
import { formatWhen, nextRunText, OUTCOME_LABELS, ownerLabel, runSummary } from "./routines";
import {
  useDeleteRoutine,
  usePauseRoutine,
  useResumeRoutine,
  useRoutineDetail,
  useRoutineEvents,
  useRoutines,
  useRunRoutineNow,
} from "./routineQueries";

type Props = {
  agents: Agent[];
  teams: Team[];
  /** Opens a run's card on the Board. */
  onOpenCard: (cardId: string) => void;
  /** Opens a team routine's run in the team chat. */
  onOpenRoom: (teamId: string, roomId: string | null) => void;
  onEventsFailed?: (e: unknown) => void;
};

/** Work on a schedule: every routine with its owner, schedule, next run and state; one open
 *  with its actions and last runs; the editor with presets, cron, time zone and next fire times. */
export function RoutinesPage({ agents, teams, onOpenCard, onOpenRoom, onEventsFailed }: Props) {
  useRoutineEvents(onEventsFailed ?? (() => {}));
  const routines = useRoutines();
  const [openId, setOpenId] = useState<string | null>(null);
  const [editing, setEditing] = useState<Routine | "new" | null>(null);
  const open = routines.data?.find((r) => r.id === openId) ?? null;

  return (
    <div className="routines-page" data-testid="routines-page">
      <header className="routines-page__header">
        <div>
          <h1 className="page-title">Routines</h1>
          <p className="muted">Work that runs on its own schedule, and what each run did.</p>
        </div>
        <button
          type="button"
          className="button button--primary"
          onClick={() => setEditing("new")}
          disabled={agents.length === 0 && teams.length === 0}
          data-testid="routines-new"
        >
          New routine
        </button>
      </header>
      <div className={`routines-page__body ${open ? "has-detail" : ""}`}>
        <div className="routines-list-wrap">
          <ErrorWithCode error={routines.error} />
          {routines.data && routines.data.length === 0 && (
            <p className="muted routines-page__empty" data-testid="routines-empty">
              No routines yet. A routine runs an agent's task or a team's message on a schedule: every morning, every
              hour, once at a time you choose.
            </p>
          )}
          {routines.data && routines.data.length > 0 && (
            <table className="routines-table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Belongs to</th>
                  <th>Schedule</th>
                  <th>Next run</th>
                  <th>Last run</th>
                  <th>State</th>
                </tr>
              </thead>
              <tbody>
                {routines.data.map((r) => (
                  <tr
                    key={r.id}
                    className={`routines-table__row ${r.id === openId ? "is-selected" : ""}`}
                    onClick={() => setOpenId(r.id)}
                    data-testid={`routine-row-${r.id}`}
                  >
                    <td>
                      <button type="button" className="link-button" onClick={() => setOpenId(r.id)}>
                        {r.name}
                      </button>
                    </td>
                    <td>{ownerLabel(r)}</td>
                    <td>{r.scheduleText}</td>
                    <td data-testid={`routine-next-${r.id}`}>{nextRunText(r)}</td>
                    <td>{r.lastRun ? <Outcome run={r.lastRun} /> : <span className="muted">—</span>}</td>
                    <td>
                      <span className={`routine-state routine-state--${r.state}`} data-testid={`routine-state-${r.id}`}>
                        {r.state === "active" ? "Active" : "Paused"}
                      </span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
        {open && (
          <RoutineDetailPanel
            key={open.id}
            routine={open}
            onEdit={() => setEditing(open)}
            onClose={() => setOpenId(null)}
            onDeleted={() => setOpenId(null)}
            onOpenCard={onOpenCard}
            onOpenRoom={onOpenRoom}
          />
        )}
      </div>
      {editing && (
        <RoutineEditor
          agents={agents}
          teams={teams}
          routine={editing === "new" ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setEditing(null);
            setOpenId(saved.id);
          }}
        />
      )}
    </div>
  );
}

function Outcome({ run }: { run: RoutineRun }) {
  return <span className={`routine-outcome routine-outcome--${run.outcome}`}>{OUTCOME_LABELS[run.outcome]}</span>;
}

function RoutineDetailPanel({
  routine,
  onEdit,
  onClose,
  onDeleted,
  onOpenCard,
  onOpenRoom,
}: {
  routine: Routine;
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
