import { useEffect, useState, type FormEvent } from "react";
import type { Limits, PausedScope } from "../../bindings";
import { useLimits, usePausedScopes, useResumeScope, useSetLimits } from "./limitsQueries";
import { BudgetEditor } from "./BudgetEditor";
import { errorMessage } from "../../errors";
import { ErrorMessage } from "../../components/ErrorMessage";

/** The engine's defaults (src-tauri/run/src/guard/mod.rs), stated beside each limit. */
export const DEFAULT_LIMITS: Limits = {
  runsPerHour: 60,
  handoffsPerTenMinutes: 30,
  repeatedToolCalls: 5,
  routineFailures: 3,
};

const SCOPE_LABELS: Record<PausedScope["scope"], string> = { agent: "Agent", room: "Room", routine: "Routine" };

/** Settings › Limits: the circuit breakers that pause a team that loops (each limit with its
 *  default), what they paused now, and the overall budget. */
export function LimitsCard({ sectionRef }: { sectionRef?: React.Ref<HTMLElement> }) {
  const limits = useLimits();
  const save = useSetLimits();
  const [draft, setDraft] = useState<Limits | null>(null);
  useEffect(() => {
    if (limits.data) setDraft(limits.data);
  }, [limits.data]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (draft) save.mutate(draft);
  };
  const number = (key: keyof Limits, label: string, hint: string, min = 1) =>
    draft && (
      <div className="field">
        <label htmlFor={`limit-${key}`}>{label}</label>
        <input
          id={`limit-${key}`}
          type="number"
          min={min}
          value={draft[key]}
          onChange={(e) => setDraft({ ...draft, [key]: Number(e.target.value) })}
          data-testid={`limit-${key}`}
        />
        <small>
          {hint} Default {DEFAULT_LIMITS[key]}.
        </small>
      </div>
    );

  return (
    <section className="card" aria-label="Limits" data-testid="settings-limits" ref={sectionRef}>
      <h2 className="card__title">Limits</h2>
      <p className="muted">
        Circuit breakers for teams that loop while you are away. Each pauses what it caught and asks you in the
        Inbox, with what it saw: <em>Resume</em> or <em>Keep paused</em>. A paused agent or room starts no new run.
      </p>
      <ErrorMessage message={limits.error ? errorMessage(limits.error) : null} />
      {draft && (
        <form className="form limits-group" onSubmit={submit} noValidate>
          <div className="limits-breakers">
            {number("runsPerHour", "Runs an agent starts in an hour", "More pauses the agent.")}
            {number("handoffsPerTenMinutes", "Hand-offs in a room in 10 minutes", "More pauses the room.")}
            {number("repeatedToolCalls", "The same tool call in one run", "That many ends the run.", 2)}
            <div className="field">
              <label htmlFor="limit-routineFailures">Routine failures in a row</label>
              <input id="limit-routineFailures" type="number" value={draft.routineFailures} disabled />
              <small>A routine pauses itself after {DEFAULT_LIMITS.routineFailures}. Fixed.</small>
            </div>
          </div>
          <ErrorMessage message={save.error ? errorMessage(save.error) : null} />
          <div>
            <button type="submit" className="button button--small" disabled={save.isPending} data-testid="limits-save">
              Save
            </button>
            <button
              type="button"
              className="link-button"
              onClick={() => setDraft({ ...DEFAULT_LIMITS })}
              data-testid="limits-defaults"
            >
              Back to the defaults
            </button>
            {save.isSuccess && !save.isPending && <span className="muted"> Saved.</span>}
          </div>
        </form>
      )}
      <PausedScopes />
      <div className="limits-group">
        <h3 className="limits-group__title">Overall budget</h3>
        <BudgetEditor scope="overall" scopeId="" what="Every run of every agent" />
      </div>
    </section>
  );
}

/** What the breakers paused now (and paused routines), each with Resume. */
export function PausedScopes() {
  const paused = usePausedScopes();
  const resume = useResumeScope();
  const list = paused.data ?? [];
  return (
    <div className="limits-group" data-testid="paused-scopes">
      <h3 className="limits-group__title">Paused now</h3>
      <ErrorMessage message={paused.error ? errorMessage(paused.error) : null} />
      {paused.data && list.length === 0 && <p className="muted">Nothing is paused.</p>}
      {list.length > 0 && (
        <ul className="paused-list">
          {list.map((p) => (
            <li key={`${p.scope}-${p.scopeId}`} className="paused-row" data-testid={`paused-${p.scope}-${p.scopeId}`}>
              <span className="paused-row__what">
                <strong>{SCOPE_LABELS[p.scope]} paused</strong>
                <span>{p.reason}</span>
              </span>
              {p.scope === "routine" ? (
                <span className="muted">Resume it on its routine.</span>
              ) : (
                <button
                  type="button"
                  className="button button--small"
                  onClick={() => resume.mutate({ scope: p.scope, id: p.scopeId })}
                  disabled={resume.isPending}
                  data-testid={`resume-${p.scope}-${p.scopeId}`}
                >
                  Resume
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <ErrorMessage message={resume.error ? errorMessage(resume.error) : null} />
    </div>
  );
}
