import { useMachineSetup } from "./readiness";
import { useEffect, useState, type FormEvent } from "react";
import type { Agent, AgentPatch } from "../../bindings";
import { useDeleteAgent, useUpdateAgent } from "./agentQueries";
import { useProviders, useRuntimeAccess } from "../settings/settingsQueries";
import { agentAccess } from "./agentAccess";
import { errorMessage } from "../../errors";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorMessage } from "../../components/ErrorMessage";
import { OpenclawGatewayFields } from "./OpenclawGatewayFields";
import { AgentConnectors } from "../connectors/AgentConnectors";
import { SandboxFields } from "../sandbox/SandboxFields";
import { BudgetEditor } from "../limits/BudgetEditor";
import {
  AgentFields,
  hasFieldErrors,
  placeServerError,
  validateAgentForm,
  type AgentFormValues,
} from "./AgentFields";

const FIELDS = ["name", "handle", "description", "tint", "runtime", "model", "approvalPolicy", "provider"] as const;

const valuesOf = (agent: Agent): AgentFormValues => ({
  name: agent.name,
  handle: agent.handle,
  description: agent.description,
  tint: agent.tint,
  runtime: agent.runtime,
  model: agent.model,
  approvalPolicy: agent.approvalPolicy,
  provider: agent.provider,
});

const sameValues = (a: AgentFormValues, b: AgentFormValues) => FIELDS.every((f) => a[f] === b[f]);

/** Only the fields that changed; the rest stay null (untouched). */
function patchFor(before: AgentFormValues, after: AgentFormValues): AgentPatch {
  const changed = <K extends (typeof FIELDS)[number]>(f: K) => (before[f] === after[f] ? null : after[f]);
  return {
    name: changed("name"),
    handle: changed("handle"),
    description: changed("description"),
    tint: changed("tint"),
    runtime: changed("runtime"),
    model: changed("model"),
    approvalPolicy: changed("approvalPolicy"),
    provider: changed("provider"),
    sandbox: null,
  };
}

type Props = {
  agent: Agent;
  onDeleted: (agent: Agent) => void;
  /** Boo Zero cannot be deleted (the engine refuses): its page says so instead. */
  isBooZero?: boolean;
  /** Changes when a link asks for the Sandbox section (it scrolls into view). */
  sandboxFocus?: number;
};

export function AgentProfile({ agent, onDeleted, isBooZero = false, sandboxFocus }: Props) {
  const [base, setBase] = useState(() => valuesOf(agent));
  const [values, setValues] = useState(base);
  const [savedNotice, setSavedNotice] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const update = useUpdateAgent();
  const remove = useDeleteAgent();
  const setup = useMachineSetup();

  // Follow changes made elsewhere, unless the user is editing.
  useEffect(() => {
    const latest = valuesOf(agent);
    if (sameValues(latest, base)) return;
    if (sameValues(values, base)) setValues(latest);
    setBase(latest);
  }, [agent]);

  const problems = validateAgentForm(values);
  const dirty = !sameValues(values, base);
  const serverError = placeServerError(update.error);

  const change = (patch: Partial<AgentFormValues>) => {
    setValues((v) => ({ ...v, ...patch }));
    setSavedNotice(false);
    if (update.error) update.reset();
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!dirty || hasFieldErrors(problems) || update.isPending) return;
    const next = { ...values, name: values.name.trim(), model: values.model.trim() };
    update.mutate(
      { id: agent.id, patch: patchFor(base, next) },
      {
        onSuccess: (saved) => {
          const savedValues = valuesOf(saved);
          setBase(savedValues);
          setValues(savedValues);
          setSavedNotice(true);
        },
      },
    );
  };

  return (
    <form className="form profile" onSubmit={submit} noValidate>
      <AgentFields
        values={values}
        onChange={change}
        errors={problems}
        handleServerError={serverError.handle}
        testIdPrefix="profile"
        disabled={update.isPending}
        setup={setup}
      />
      <ErrorMessage message={serverError.form} />
      <RuntimeAccessNote agent={values} />

      <div className="form__actions">
        <button
          type="submit"
          className="button button--primary"
          disabled={!dirty || hasFieldErrors(problems) || update.isPending}
          data-testid="save-profile-button"
        >
          {update.isPending ? "Saving…" : "Save"}
        </button>
        {dirty && (
          <button type="button" className="button" onClick={() => setValues(base)}>
            Discard changes
          </button>
        )}
        {savedNotice && !dirty && (
          <span className="saved-notice" role="status">
            Saved
          </span>
        )}
      </div>

      {/* The saved runtime decides: the Gateway is saved apart from the fields above. */}
      {agent.runtime === "openclaw" && <OpenclawGatewayFields agentId={agent.id} />}

      <SandboxFields agent={agent} focusKey={sandboxFocus} />

      <AgentConnectors agentId={agent.id} />

      <section className="agent-connectors" aria-label="Budgets" data-testid="agent-budgets">
        <h3>Budgets</h3>
        <BudgetEditor scope="agent" scopeId={agent.id} what={`Every run of @${agent.handle}`} />
      </section>

      {isBooZero ? (
        <p className="muted" data-testid="boo-zero-not-deletable">
          Boo Zero is your own coordinator and cannot be deleted. Rename it or change its runtime instead.
        </p>
      ) : (
        <section className="danger-zone">
          <div>
            <h3>Delete agent</h3>
            <p className="muted">Removes the agent, its folder and all of its files.</p>
          </div>
          <button
            type="button"
            className="button button--danger"
            onClick={() => setConfirmingDelete(true)}
            data-testid="delete-agent-button"
          >
            Delete agent
          </button>
        </section>
      )}

      {confirmingDelete && (
        <ConfirmDialog
          title={`Delete ${agent.name}?`}
          confirmLabel="Delete agent"
          confirmTestId="confirm-delete-button"
          busy={remove.isPending}
          error={remove.error ? errorMessage(remove.error) : null}
          onCancel={() => {
            setConfirmingDelete(false);
            remove.reset();
          }}
          onConfirm={() => remove.mutate(agent.id, { onSuccess: () => onDeleted(agent) })}
        >
          <p>
            <strong>{agent.name}</strong> (@{agent.handle}) will be deleted. Its folder and all of its files, including
            SOUL.md and MEMORY.md, will be removed from disk. This can’t be undone.
          </p>
        </ConfirmDialog>
      )}
    </form>
  );
}

/** Which access the agent uses (own sign-in or a key), or why it cannot run. */
function RuntimeAccessNote({ agent }: { agent: Pick<Agent, "runtime" | "provider"> }) {
  const access = useRuntimeAccess();
  const providers = useProviders();
  const entry = access.data?.find((a) => a.kind === agent.runtime);
  if (!entry) return null;
  const { effective, text, problem } = agentAccess(entry, agent, providers.data);
  return (
    <p className={effective ? "muted" : "runtime__problem"} data-testid="profile-access">
      {effective ? text : problem}
    </p>
  );
}
