import { useId } from "react";
import type { ApprovalPolicy, NewAgent, Provider, RuntimeKind } from "../../bindings";
import { handleProblem, HANDLE_MAX_LENGTH, stripAt } from "./handle";
import { RUNTIMES } from "../../lib/runtimes";
import { APPROVAL_POLICIES } from "./approval";
import { DEFAULT_PROVIDER, PROVIDERS } from "../../lib/providers";
import { colorInputValue } from "./tint";
import { ErrorMessage } from "../../components/ErrorMessage";
import { errorMessage, hasErrorCode } from "../../errors";
import { runtimeProblem, type MachineSetup } from "./readiness";
import { useProviderModels } from "../settings/settingsQueries";

export type AgentFormValues = NewAgent;

export type AgentFieldErrors = {
  name?: string | null;
  handle?: string | null;
  model?: string | null;
};

/** Client-side problems with the form, by field. Empty when it can be submitted. */
export function validateAgentForm(values: AgentFormValues): AgentFieldErrors {
  const errors: AgentFieldErrors = {};
  if (!values.name.trim()) errors.name = "Enter a name.";
  const handle = handleProblem(values.handle);
  if (handle) errors.handle = handle;
  // Native calls the model API itself: without a model it cannot send anything.
  if (values.runtime === "native" && !values.model.trim()) errors.model = "Native needs a model, e.g. claude-sonnet-4-5.";
  return errors;
}

export const hasFieldErrors = (errors: AgentFieldErrors) => !!(errors.name || errors.handle || errors.model);

type Props = {
  values: AgentFormValues;
  onChange: (patch: Partial<AgentFormValues>) => void;
  /** Problems to show now (live handle check, or everything after a submit attempt). */
  errors: AgentFieldErrors;
  /** Backend error that belongs to the handle field (duplicate or invalid handle). */
  handleServerError?: string | null;
  /** "agent" in the create form, "profile" on the profile page. */
  testIdPrefix: string;
  disabled?: boolean;
  /** What runs here: runtimes that cannot are marked in the picker, with why. */
  setup?: MachineSetup;
};

/** The editable fields of an agent, shared by the create form and the profile page. */
export function AgentFields({ values, onChange, errors, handleServerError, testIdPrefix, disabled, setup }: Props) {
  const id = useId();
  const runtimeIssue = setup ? runtimeProblem(values.runtime, setup) : null;
  const handleHintId = `${id}-handle-hint`;
  const handleError = errors.handle ?? null;

  return (
    <div className="agent-fields">
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          type="text"
          value={values.name}
          onChange={(e) => onChange({ name: e.target.value })}
          placeholder="Research assistant"
          autoComplete="off"
          disabled={disabled}
          aria-invalid={!!errors.name}
          data-testid={`${testIdPrefix}-name-input`}
        />
        {errors.name && <p className="field__error">{errors.name}</p>}
      </div>

      <div className="field">
        <label htmlFor={`${id}-handle`}>Handle</label>
        <div className="input-with-prefix">
          <span className="input-with-prefix__prefix" aria-hidden="true">
            @
          </span>
          <input
            id={`${id}-handle`}
            type="text"
            value={values.handle}
            onChange={(e) => onChange({ handle: stripAt(e.target.value) })}
            placeholder="researcher"
            autoComplete="off"
            spellCheck={false}
            disabled={disabled}
            aria-invalid={!!handleError || !!handleServerError}
            aria-describedby={handleHintId}
            data-testid={`${testIdPrefix}-handle-input`}
          />
        </div>
        {handleError ? (
          <p className="field__error" id={handleHintId} role="alert" data-testid="error-message">
            {handleError}
          </p>
        ) : (
          <p className="field__hint" id={handleHintId}>
            Letters, digits, '-' and '_', up to {HANDLE_MAX_LENGTH} characters.
          </p>
        )}
        <ErrorMessage message={handleServerError} className="field__error" />
      </div>

      <div className="field">
        <label htmlFor={`${id}-description`}>Description</label>
        <textarea
          id={`${id}-description`}
          rows={3}
          value={values.description}
          onChange={(e) => onChange({ description: e.target.value })}
          placeholder="What this agent is for"
          disabled={disabled}
          data-testid={`${testIdPrefix}-description-input`}
        />
      </div>

      <div className="field-row">
        <div className="field field--tint">
          <label htmlFor={`${id}-tint`}>Tint</label>
          <input
            id={`${id}-tint`}
            type="color"
            value={colorInputValue(values.tint)}
            onChange={(e) => onChange({ tint: e.target.value })}
            disabled={disabled}
            data-testid={`${testIdPrefix}-tint-input`}
          />
        </div>

        <div className="field field--grow">
          <label htmlFor={`${id}-runtime`}>Runtime</label>
          <select
            id={`${id}-runtime`}
            value={values.runtime}
            onChange={(e) => {
              const runtime = e.target.value as RuntimeKind;
              // Native talks to a model API itself and needs a provider.
              onChange(runtime === "native" && !values.provider ? { runtime, provider: DEFAULT_PROVIDER } : { runtime });
            }}
            disabled={disabled}
            data-testid={`${testIdPrefix}-runtime-select`}
          >
            {RUNTIMES.map((r) => {
              const problem = setup ? runtimeProblem(r.value, setup) : null;
              return (
                <option key={r.value} value={r.value}>
                  {problem ? `${r.label} (can't run here)` : r.label}
                </option>
              );
            })}
          </select>
          {runtimeIssue && (
            <p className="field__error" data-testid={`${testIdPrefix}-runtime-problem`}>
              {runtimeIssue} Install or sign in from Settings &gt; Runtimes, or pick another runtime.
            </p>
          )}
        </div>

        <div className="field field--grow">
          <label htmlFor={`${id}-model`}>Model</label>
          <input
            id={`${id}-model`}
            type="text"
            value={values.model}
            onChange={(e) => onChange({ model: e.target.value })}
            list={values.runtime === "native" ? `${id}-models` : undefined}
            placeholder={values.runtime === "native" ? "Required, e.g. claude-sonnet-4-5" : "Optional: the runtime's default"}
            autoComplete="off"
            spellCheck={false}
            disabled={disabled}
            aria-invalid={!!errors.model}
            data-testid={`${testIdPrefix}-model-input`}
          />
          {errors.model && (
            <p className="field__error" data-testid={`${testIdPrefix}-model-error`}>
              {errors.model}
            </p>
          )}
          {values.runtime === "native" && (
            <ProviderModelList provider={values.provider} setup={setup} listId={`${id}-models`} testIdPrefix={testIdPrefix} />
          )}
        </div>
      </div>

      <div className="field-row">
        <div className="field field--grow">
          <label htmlFor={`${id}-approval`}>Approval policy</label>
          <select
            id={`${id}-approval`}
            value={values.approvalPolicy}
            onChange={(e) => onChange({ approvalPolicy: e.target.value as ApprovalPolicy })}
            disabled={disabled}
            aria-describedby={`${id}-approval-hint`}
            data-testid={`${testIdPrefix}-approval-select`}
          >
            {APPROVAL_POLICIES.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
          <p className="field__hint" id={`${id}-approval-hint`}>
            {APPROVAL_POLICIES.find((p) => p.value === values.approvalPolicy)?.hint}
          </p>
        </div>

        {(values.runtime === "native" || values.runtime === "hermes") && (
          <div className="field field--grow">
            <label htmlFor={`${id}-provider`}>Provider</label>
            <select
              id={`${id}-provider`}
              value={values.provider ?? ""}
              onChange={(e) => onChange({ provider: e.target.value as Provider })}
              disabled={disabled}
              data-testid={`${testIdPrefix}-provider-select`}
            >
              {!values.provider && (
                <option value="" disabled>
                  {values.runtime === "hermes" ? "None: your own Hermes sign-in" : "Choose a provider"}
                </option>
              )}
              {/* Hermes' install cannot call Anthropic's API (the engine refuses it). */}
              {PROVIDERS.filter((p) => values.runtime !== "hermes" || p.value !== "anthropic").map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
    </div>
  );
}

/** Sorts a backend error to the field it concerns; the rest belongs to the form. */
export function placeServerError(error: unknown): { handle: string | null; form: string | null } {
  if (!error) return { handle: null, form: null };
  const message = errorMessage(error);
  if (hasErrorCode(error, "duplicate_handle") || hasErrorCode(error, "invalid_handle")) {
    return { handle: message, form: null };
  }
  return { handle: null, form: message };
}

/** The provider's models as suggestions for the model field (typing stays free): fetched by the
 *  engine with the stored key, kept, refreshed on demand; a failure says so and leaves typing. */
function ProviderModelList({
  provider,
  setup,
  listId,
  testIdPrefix,
}: {
  provider: Provider | null;
  setup?: MachineSetup;
  listId: string;
  testIdPrefix: string;
}) {
  const status = setup?.providers?.find((p) => p.provider === provider);
  const callable = !!status && (provider === "custom" ? !!status.baseUrl : status.keySet);
  const { query, refresh } = useProviderModels(provider, callable);
  if (!callable || !status) return null;
  const failure = refresh.error ?? query.error;
  const models = query.data?.models ?? [];
  return (
    <>
      <datalist id={listId}>
        {models.map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
      <p className="field__hint" data-testid={`${testIdPrefix}-model-list`}>
        {query.isLoading || refresh.isPending
          ? `Asking ${status.label} for its models…`
          : failure
            ? `${errorMessage(failure)} Type the model's name.`
            : `${models.length} models from ${status.label}: pick one or type a name.`}{" "}
        <button
          type="button"
          className="link-button"
          onClick={() => refresh.mutate()}
          disabled={refresh.isPending}
          data-testid={`${testIdPrefix}-model-list-refresh`}
        >
          Refresh
        </button>
      </p>
    </>
  );
}
