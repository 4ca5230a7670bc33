import type { Routine, RoutineRun } from "../../bindings";
import { nextRunText, OUTCOME_LABELS, ownerLabel } from "./routines";

/** Every routine with its owner, schedule, next run, last run and state; a row opens it. */
export function RoutinesTable({
  routines,
  openId,
  onOpen,
}: {
  routines: Routine[];
  openId: string | null;
  onOpen: (id: string) => void;
}) {
  return (
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
        {routines.map((r) => (
          <tr
            key={r.id}
            className={`routines-table__row ${r.id === openId ? "is-selected" : ""}`}
            onClick={() => onOpen(r.id)}
            data-testid={`routine-row-${r.id}`}
          >
            <td>
              <button type="button" className="link-button" onClick={() => onOpen(r.id)}>
                {r.name}
              </button>
            </td>
            {/* data-label: the column's name, shown before the value when rows stack (narrow). */}
            <td data-label="Belongs to">{ownerLabel(r)}</td>
            <td data-label="Schedule">{r.scheduleText}</td>
            <td data-label="Next run" data-testid={`routine-next-${r.id}`}>
              {nextRunText(r)}
            </td>
            <td data-label="Last run">{r.lastRun ? <Outcome run={r.lastRun} /> : <span className="muted">—</span>}</td>
            <td>
              <span className={`routine-state routine-state--${r.state}`} data-testid={`routine-state-${r.id}`}>
                {r.state === "active" ? "Active" : "Paused"}
              </span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Outcome({ run }: { run: RoutineRun }) {
  return <span className={`routine-outcome routine-outcome--${run.outcome}`}>{OUTCOME_LABELS[run.outcome]}</span>;
}
