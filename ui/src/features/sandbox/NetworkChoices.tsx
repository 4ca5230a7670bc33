import type { NetworkAccess } from "../../bindings";
import { NETWORK_CHOICES } from "./sandbox";

/** Where a sandboxed agent may connect: Clawboo only, listed hosts, or anywhere. */
export function NetworkChoices({
  name,
  network,
  confined,
  disabled,
  onChange,
}: {
  /** The radio group's name. */
  name: string;
  network: NetworkAccess;
  confined: boolean;
  disabled: boolean;
  onChange: (network: NetworkAccess) => void;
}) {
  return (
    <div className="sandbox-fields__network" role="radiogroup" aria-label="Network" data-testid="sandbox-network">
      <span className="sandbox-fields__label">Network</span>
      {!confined && (
        <p className="field__hint" data-testid="sandbox-network-off">
          Applies when the sandbox is on. Without it the agent reaches any host directly.
        </p>
      )}
      {NETWORK_CHOICES.map((choice) => (
        <label key={choice.value} className={`sandbox-choice ${network === choice.value ? "is-checked" : ""}`}>
          <input
            type="radio"
            name={name}
            value={choice.value}
            checked={network === choice.value}
            disabled={disabled || !confined}
            onChange={() => onChange(choice.value)}
            data-testid={`sandbox-network-${choice.value}`}
          />
          <span className="sandbox-choice__text">
            <span className="sandbox-choice__label">{choice.label}</span>
            <span className="sandbox-choice__hint">{choice.hint}</span>
          </span>
        </label>
      ))}
    </div>
  );
}
