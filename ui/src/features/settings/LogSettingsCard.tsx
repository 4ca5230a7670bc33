import type { LogLevel } from "../../bindings";
import { useLogLevel, useSetLogLevel } from "./logQueries";
import { ErrorWithCode } from "../../components/ErrorMessage";

const LEVELS: { level: LogLevel; label: string }[] = [
  { level: "error", label: "Errors only" },
  { level: "warn", label: "Warnings and errors" },
  { level: "info", label: "What Clawboo does (default)" },
  { level: "debug", label: "Every step, for a bug report" },
];

/** Settings > Log: how much Clawboo writes to its log file; a change applies at once. */
export function LogSettingsCard() {
  const level = useLogLevel();
  const save = useSetLogLevel();
  const shown = save.isPending ? save.variables : level.data;
  return (
    <section className="card" aria-label="Log" data-testid="log-settings">
      <h2 className="card__title">Log</h2>
      <p className="muted">
        Clawboo writes what it does to <code>logs/clawboo.log</code> in its data directory (three files of 5 MiB at
        most). No key or token is ever written there. “Copy details” on an error adds its last lines.
      </p>
      <ErrorWithCode error={level.error} />
      {shown && (
        <div className="field">
          <label htmlFor="log-level">Level</label>
          <select
            id="log-level"
            value={shown}
            disabled={save.isPending}
            onChange={(e) => save.mutate(e.target.value as LogLevel)}
            data-testid="log-level"
          >
            {LEVELS.map(({ level, label }) => (
              <option key={level} value={level}>
                {label}
              </option>
            ))}
          </select>
        </div>
      )}
      {save.isSuccess && !save.isPending && (
        <span className="muted" data-testid="log-level-saved">
          Saved: it applies now.
        </span>
      )}
      <ErrorWithCode error={save.error} />
    </section>
  );
}
