import { useEffect, useState, type FormEvent } from "react";
import type { RunnerSettings } from "../../bindings";
import { useRunnerSettings, useSetRunnerSettings } from "./boardQueries";
import { errorMessage } from "../../errors";
import { ErrorMessage } from "../../components/ErrorMessage";

/** How many Board cards run at once, and when a run is stopped for silence or length. */
export function RunnerSettingsCard() {
  const settings = useRunnerSettings();
  const save = useSetRunnerSettings();
  const [draft, setDraft] = useState<RunnerSettings | null>(null);
  useEffect(() => {
    if (settings.data) setDraft(settings.data);
  }, [settings.data]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (draft) save.mutate(draft);
  };
  const minutes = (secs: number) => Math.round(secs / 60);

  return (
    <section className="card" aria-label="Task runner">
      <h2 className="card__title">Task runner</h2>
      <p className="muted">Board cards your agents run. Cards beyond the limit wait, urgent first, then oldest.</p>
      <ErrorMessage message={settings.error ? errorMessage(settings.error) : null} />
      {draft && (
        <form className="form runner-settings" onSubmit={submit} noValidate>
          <div className="field-row">
            <div className="field">
              <label htmlFor="runner-max">Runs at once</label>
              <input
                id="runner-max"
                type="number"
                min={1}
                max={32}
                value={draft.maxConcurrent}
                onChange={(e) => setDraft({ ...draft, maxConcurrent: Number(e.target.value) })}
                data-testid="runner-max-concurrent"
              />
            </div>
            <div className="field">
              <label htmlFor="runner-wall">Longest run (minutes)</label>
              <input
                id="runner-wall"
                type="number"
                min={1}
                value={minutes(draft.wallClockSecs)}
                onChange={(e) => setDraft({ ...draft, wallClockSecs: Number(e.target.value) * 60 })}
              />
            </div>
            <div className="field">
              <label htmlFor="runner-silence">Stop after silence of (minutes)</label>
              <input
                id="runner-silence"
                type="number"
                min={1}
                value={minutes(draft.silenceSecs)}
                onChange={(e) => setDraft({ ...draft, silenceSecs: Number(e.target.value) * 60 })}
              />
            </div>
          </div>
          <ErrorMessage message={save.error ? errorMessage(save.error) : null} />
          <div>
            <button type="submit" className="button button--small" disabled={save.isPending} data-testid="runner-save">
              Save
            </button>
            {save.isSuccess && !save.isPending && <span className="muted"> Saved.</span>}
          </div>
        </form>
      )}
    </section>
  );
}
