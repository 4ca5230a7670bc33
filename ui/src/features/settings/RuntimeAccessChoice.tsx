import { useId } from "react";
import type { Access, RuntimeAccess } from "../../bindings";
import { useSetRuntimeAccess } from "./settingsQueries";
import { errorMessage } from "../../errors";
import { ErrorMessage } from "../../components/ErrorMessage";
import { describe } from "../agents/agentAccess";
import { providerLabel } from "../../lib/providers";

type Props = { access: RuntimeAccess };

/** What agents on this runtime use, in words ("your own sign-in", "an API key from Clawboo"). */
export function describeAccess(access: RuntimeAccess): string {
  return access.effective ? describe(access, access.effective) : "nothing yet";
}

/** Settings > Runtimes: the user's own CLI sign-in or an API key from Clawboo, for one runtime. */
export function RuntimeAccessChoice({ access }: Props) {
  const { kind, choice, effective, keySet, signInFound, signInPlace, problem } = access;
  const name = useId();
  const setAccess = useSetRuntimeAccess();
  const checked: Access | null = choice ?? effective;
  // Hermes takes the key of each agent's provider.
  const keyDetail =
    kind === "hermes"
      ? `the key of each agent's provider; ${keySet ? `${providerLabel(access.keyProvider)} key set` : "none set"}`
      : `${providerLabel(access.keyProvider)} key ${keySet ? "set" : "not set"}`;

  const pick = (next: Access | null) => {
    setAccess.reset();
    setAccess.mutate({ kind, access: next });
  };

  const option = (value: Access, label: string, detail: string, testId: string) => (
    <label className="runtime__access-option">
      <input
        type="radio"
        name={name}
        value={value}
        checked={checked === value}
        onChange={() => pick(value)}
        disabled={setAccess.isPending}
        data-testid={testId}
      />{" "}
      {label} <span className="muted">({detail})</span>
    </label>
  );

  return (
    <fieldset className="runtime__access" data-testid={`runtime-access-${kind}`}>
      <legend>How agents reach the model</legend>
      {option(
        "own_sign_in",
        "Use my own sign-in",
        signInFound ? `found: ${signInPlace}` : `not found in ${signInPlace}`,
        `access-own-${kind}`,
      )}
      {option("api_key", "Use an API key from Clawboo", keyDetail, `access-key-${kind}`)}
      <p className="muted" data-testid={`access-effective-${kind}`}>
        {effective ? `Agents use ${describeAccess(access)}` : "Agents cannot run yet"}
        {effective && choice === null ? ", chosen automatically." : "."}
        {choice !== null && (
          <>
            {" "}
            <button
              type="button"
              className="button button--small"
              onClick={() => pick(null)}
              disabled={setAccess.isPending}
              data-testid={`access-auto-${kind}`}
            >
              Choose automatically
            </button>
          </>
        )}
      </p>
      {problem && (
        <p className="runtime__problem" data-testid={`access-problem-${kind}`}>
          {problem}
        </p>
      )}
      <ErrorMessage message={setAccess.error ? errorMessage(setAccess.error) : null} />
    </fieldset>
  );
}
