import type { Preset } from "../../bindings";
import { formatWhen, type ScheduleDraft, type ScheduleMode } from "./routines";
import { useSchedulePreview } from "./routineQueries";
import { ErrorWithCode } from "../../components/ErrorMessage";

const MODES: { value: ScheduleMode; label: string }[] = [
  { value: "preset", label: "Preset" },
  { value: "cron", label: "Cron" },
  { value: "every", label: "Every" },
  { value: "once", label: "Once" },
];

/** When a routine runs: a preset, cron or an interval (each in a time zone), or once; with what the
 *  engine makes of it (its next fire times, or why it is invalid). */
export function ScheduleFields({
  draft,
  presets,
  preview,
  incomplete,
  set,
}: {
  draft: ScheduleDraft;
  presets: Preset[];
  preview: ReturnType<typeof useSchedulePreview>;
  /** The draft is not a schedule yet. */
  incomplete: boolean;
  set: (patch: Partial<ScheduleDraft>) => void;
}) {
  return (
    <fieldset className="routine-editor__schedule">
      <legend>When</legend>
      <div className="tabs" role="tablist" aria-label="Schedule kind">
        {MODES.map((m) => (
          <button
            key={m.value}
            type="button"
            role="tab"
            aria-selected={draft.mode === m.value}
            className={`tab ${draft.mode === m.value ? "is-active" : ""}`}
            onClick={() => set({ mode: m.value })}
            data-testid={`routine-mode-${m.value}`}
          >
            {m.label}
          </button>
        ))}
      </div>
      {draft.mode === "preset" && (
        <select value={draft.presetId} onChange={(e) => set({ presetId: e.target.value })} data-testid="routine-preset">
          {presets.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </select>
      )}
      {draft.mode === "cron" && (
        <div className="field">
          <label htmlFor="routine-cron">Cron (minute hour day-of-month month day-of-week)</label>
          <input
            id="routine-cron"
            value={draft.cron}
            onChange={(e) => set({ cron: e.target.value })}
            placeholder="0 9 * * 1-5"
            spellCheck={false}
            data-testid="routine-cron"
          />
        </div>
      )}
      {(draft.mode === "preset" || draft.mode === "cron") && (
        <div className="field">
          <label htmlFor="routine-tz">Time zone</label>
          <input
            id="routine-tz"
            value={draft.tz}
            onChange={(e) => set({ tz: e.target.value })}
            placeholder="Europe/Berlin"
            spellCheck={false}
            data-testid="routine-tz"
          />
        </div>
      )}
      {draft.mode === "every" && (
        <div className="field-row">
          <input
            type="number"
            min={1}
            value={draft.every}
            onChange={(e) => set({ every: e.target.value })}
            aria-label="Every"
            data-testid="routine-every"
          />
          <select
            value={draft.unit}
            onChange={(e) => set({ unit: e.target.value as ScheduleDraft["unit"] })}
            aria-label="Unit"
            data-testid="routine-every-unit"
          >
            <option value="minutes">minutes</option>
            <option value="hours">hours</option>
          </select>
        </div>
      )}
      {draft.mode === "once" && (
        <input
          type="datetime-local"
          value={draft.once}
          onChange={(e) => set({ once: e.target.value })}
          aria-label="At"
          data-testid="routine-once"
        />
      )}
      <SchedulePreviewBox preview={preview} incomplete={incomplete} />
    </fieldset>
  );
}

function SchedulePreviewBox({
  preview,
  incomplete,
}: {
  preview: ReturnType<typeof useSchedulePreview>;
  incomplete: boolean;
}) {
  if (incomplete) return <p className="muted routine-editor__preview">Fill in the schedule to see when it runs.</p>;
  if (preview.error) {
    return (
      <div className="routine-editor__preview" data-testid="routine-schedule-error">
        <ErrorWithCode error={preview.error} />
      </div>
    );
  }
  if (!preview.data) return <p className="muted routine-editor__preview">Checking…</p>;
  return (
    <div className="routine-editor__preview">
      <p data-testid="routine-schedule-text">{preview.data.text}</p>
      <ol className="routine-editor__fires" data-testid="routine-next-fires">
        {preview.data.next.map((at) => (
          <li key={at}>{formatWhen(at)}</li>
        ))}
      </ol>
    </div>
  );
}
