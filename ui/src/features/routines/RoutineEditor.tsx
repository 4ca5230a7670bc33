import { useState } from "react";
import type { Agent, Routine, RoutineInput, Team } from "../../bindings";
import {
  draftSchedule,
  emptyDraft,
  MAX_NAME_CHARS,
  MAX_PROMPT_CHARS,
  ownerChoices,
  scheduleDraft,
  type ScheduleDraft,
} from "./routines";
import { useCreateRoutine, usePresets, useSchedulePreview, useUpdateRoutine } from "./routineQueries";
import { ErrorWithCode } from "../../components/ErrorMessage";
import { Modal } from "../../components/Modal";
import { ScheduleFields } from "./ScheduleFields";

type Props = {
  agents: Agent[];
  teams: Team[];
  /** The routine to edit; null for a new one. */
  routine: Routine | null;
  onClose: () => void;
  onSaved: (routine: Routine) => void;
};

/** Creates or edits a routine: who it belongs to, what each run does, and when it runs, with
 *  the next 5 fire times (or the engine's error) shown as the schedule is typed. */
export function RoutineEditor({ agents, teams, routine, onClose, onSaved }: Props) {
  const presets = usePresets();
  if (!presets.data) {
    return (
      <Modal title={routine ? "Edit routine" : "New routine"} onClose={onClose} testId="routine-editor">
        {presets.error ? <ErrorWithCode error={presets.error} /> : <p className="muted">Loading…</p>}
      </Modal>
    );
  }
  return (
    <EditorForm
      agents={agents}
      teams={teams}
      routine={routine}
      onClose={onClose}
      onSaved={onSaved}
      presets={presets.data.presets}
      defaultTz={presets.data.defaultTimeZone}
    />
  );
}

function EditorForm({
  agents,
  teams,
  routine,
  onClose,
  onSaved,
  presets,
  defaultTz,
}: Props & { presets: NonNullable<ReturnType<typeof usePresets>["data"]>["presets"]; defaultTz: string }) {
  const owners = ownerChoices(agents, teams);
  const initialOwner = routine
    ? routine.agentId
      ? `agent:${routine.agentId}`
      : `team:${routine.teamId}`
    : owners[0]?.value ?? "";
  const [name, setName] = useState(routine?.name ?? "");
  const [owner, setOwner] = useState(initialOwner);
  const [prompt, setPrompt] = useState(routine?.prompt ?? "");
  const [heartbeat, setHeartbeat] = useState(routine?.heartbeat ?? false);
  // "Report to <team>": on by default for a member; an existing routine keeps its choice.
  const [reportTo, setReportTo] = useState<string | null>(() =>
    routine ? routine.reportsToTeamId : (teamsOf(teams, owners[0]?.agentId ?? null)[0]?.id ?? null),
  );
  const [draft, setDraft] = useState<ScheduleDraft>(() =>
    routine ? scheduleDraft(routine.schedule, presets, defaultTz) : emptyDraft(presets, defaultTz),
  );
  const set = (patch: Partial<ScheduleDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const schedule = draftSchedule(draft, presets);
  const preview = useSchedulePreview(schedule);
  const create = useCreateRoutine();
  const update = useUpdateRoutine();
  const save = routine ? update : create;
  const choice = owners.find((o) => o.value === owner);
  const isAgent = choice?.agentId != null;
  const memberOf = teamsOf(teams, choice?.agentId ?? null);
  const reportTeam = memberOf.find((t) => t.id === reportTo) ?? null;
  const changeOwner = (value: string) => {
    setOwner(value);
    const first = teamsOf(teams, owners.find((o) => o.value === value)?.agentId ?? null)[0];
    setReportTo(first?.id ?? null);
  };

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!schedule || !choice) return;
    const input: RoutineInput = {
      name,
      prompt,
      agentId: choice.agentId,
      teamId: choice.teamId,
      schedule,
      heartbeat: isAgent && heartbeat,
      reportsToTeamId: isAgent ? (reportTeam?.id ?? null) : null,
    };
    const done = { onSuccess: (saved: Routine) => onSaved(saved) };
    if (routine) update.mutate({ id: routine.id, input }, done);
    else create.mutate(input, done);
  };

  return (
    <Modal title={routine ? "Edit routine" : "New routine"} onClose={onClose} testId="routine-editor" size="wide">
      <form className="routine-editor" onSubmit={submit}>
        <div className="field">
          <label htmlFor="routine-name">Name</label>
          <input
            id="routine-name"
            value={name}
            maxLength={MAX_NAME_CHARS}
            onChange={(e) => setName(e.target.value)}
            placeholder="Morning digest"
            data-testid="routine-name"
            data-autofocus
          />
        </div>
        <div className="field">
          <label htmlFor="routine-owner">Belongs to</label>
          <select id="routine-owner" value={owner} onChange={(e) => changeOwner(e.target.value)} data-testid="routine-owner">
            {owners.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
          <p className="field__hint">
            {!isAgent
              ? "Each run is a message to the team's leader in General; the reply lands in the team chat."
              : reportTeam
                ? `Each run is a task on the ${reportTeam.name} Board for this agent; its report lands on the card and goes to the team's leader in General.`
                : "Each run is a task on the Board for this agent; its report lands on the card."}
          </p>
        </div>
        {isAgent && memberOf.length > 0 && (
          <div className="routine-editor__check">
            <label>
              <input
                type="checkbox"
                checked={reportTeam != null}
                onChange={(e) => setReportTo(e.target.checked ? (memberOf[0]?.id ?? null) : null)}
                data-testid="routine-report"
              />
              {memberOf.length === 1 || !reportTeam ? `Report to ${(reportTeam ?? memberOf[0]).name}` : "Report to"}
            </label>
            {memberOf.length > 1 && reportTeam && (
              <select
                aria-label="Team to report to"
                value={reportTeam.id}
                onChange={(e) => setReportTo(e.target.value)}
                data-testid="routine-report-team"
              >
                {memberOf.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </select>
            )}
          </div>
        )}
        <div className="field">
          <label htmlFor="routine-prompt">Each run</label>
          <textarea
            id="routine-prompt"
            rows={4}
            value={prompt}
            maxLength={MAX_PROMPT_CHARS}
            onChange={(e) => setPrompt(e.target.value)}
            placeholder="Summarise yesterday's orders and flag anything unusual."
            data-testid="routine-prompt"
          />
          <p className="field__hint">You may be away when it runs: the agent is told to make assumptions and state them.</p>
        </div>
        {isAgent && (
          <label className="routine-editor__check">
            <input type="checkbox" checked={heartbeat} onChange={(e) => setHeartbeat(e.target.checked)} data-testid="routine-heartbeat" />
            Heartbeat: each run also gets the agent's HEARTBEAT.md
          </label>
        )}

        <ScheduleFields
          draft={draft}
          presets={presets}
          preview={preview}
          incomplete={schedule === null}
          set={set}
        />

        <ErrorWithCode error={save.error} />
        <div className="modal__actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            className="button button--primary"
            disabled={save.isPending || !schedule || !choice || !name.trim() || !prompt.trim()}
            data-testid="routine-save"
          >
            {routine ? "Save" : "Create routine"}
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** The teams `agentId` is a member of that a routine can report to (not archived). */
function teamsOf(teams: Team[], agentId: string | null): Team[] {
  if (!agentId) return [];
  return teams.filter((t) => !t.archived && t.members.some((m) => m.agentId === agentId));
}
