/** "Run without the sandbox": on for an agent trusted with the whole account. */
export function UnconfinedSwitch({
  confined,
  disabled,
  saved,
  onChange,
}: {
  confined: boolean;
  disabled: boolean;
  /** Just saved: says so. */
  saved: boolean;
  /** `unconfined`: the switch as the user set it. */
  onChange: (unconfined: boolean) => void;
}) {
  return (
    <div className={`sandbox-off ${confined ? "" : "is-on"}`}>
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          checked={!confined}
          aria-checked={!confined}
          disabled={disabled}
          onChange={(e) => onChange(e.target.checked)}
          data-testid="sandbox-unconfined-switch"
        />
        <span className="switch__track" aria-hidden="true" />
        <span className="switch__label">Run without the sandbox</span>
      </label>
      <p className="field__hint">
        {confined
          ? "Only for an agent you trust with your whole account."
          : "This agent runs with your whole account: it can read and change your files, use your keys and " +
            "sign-ins, and reach any host. Turn this off to sandbox it again."}
      </p>
      {saved && (
        <span className="saved-notice" role="status" data-testid="sandbox-confined-saved">
          {confined ? "The sandbox is on again" : "Saved"}
        </span>
      )}
    </div>
  );
}
