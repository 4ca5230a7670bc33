import { useState } from "react";
import type { Agent, Routine, Team } from "../../bindings";
import { ErrorWithCode } from "../../components/ErrorMessage";
import { RoutineEditor } from "./RoutineEditor";
import { useRoutineEvents, useRoutines } from "./routineQueries";
import { RoutinesTable } from "./RoutinesTable";
import { RoutineDetailPanel } from "./RoutineDetailPanel";

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
            <RoutinesTable routines={routines.data} openId={openId} onOpen={setOpenId} />
          )}
        </div>
        {open && (
          <RoutineDetailPanel
            key={open.id}
            routine={open}
            teams={teams}
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
