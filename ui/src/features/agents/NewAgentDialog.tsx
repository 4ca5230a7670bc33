import { useEffect, useRef, useState, type FormEvent } from "react";
import { defaultRuntime, useMachineSetup } from "./readiness";
import { DEFAULT_PROVIDER } from "../../lib/providers";
import type { Agent } from "../../bindings";
import { useCreateAgent } from "./agentQueries";
import { TINT_PALETTE } from "./tint";
import { Modal } from "../../components/Modal";
import { ErrorMessage } from "../../components/ErrorMessage";
import {
  AgentFields,
  hasFieldErrors,
  placeServerError,
  validateAgentForm,
  type AgentFormValues,
} from "./AgentFields";

type Props = {
  onClose: () => void;
  onCreated: (agent: Agent) => void;
};

function initialValues(): AgentFormValues {
  return {
    name: "",
    handle: "",
    description: "",
    tint: TINT_PALETTE[Math.floor(Math.random() * TINT_PALETTE.length)],
    // Until what runs here is known; then the first runtime that can (see below).
    runtime: "native",
    model: "",
    approvalPolicy: "ask",
    provider: DEFAULT_PROVIDER,
  };
}

export function NewAgentDialog({ onClose, onCreated }: Props) {
  const [values, setValues] = useState(initialValues);
  const [submitted, setSubmitted] = useState(false);
  const create = useCreateAgent();
  const setup = useMachineSetup();
  const runtimeChosen = useRef(false);
  const preferred = setup.runtimes ? defaultRuntime(setup) : null;
  // A new agent starts on a runtime that works on this machine, unless the user picked one.
  useEffect(() => {
    if (preferred && !runtimeChosen.current) setValues((v) => ({ ...v, runtime: preferred }));
  }, [preferred]);

  const problems = validateAgentForm(values);
  // The handle is checked as you type; everything else once you try to submit.
  const shownErrors = submitted ? problems : { handle: values.handle ? problems.handle : null };
  const serverError = placeServerError(create.error);

  const change = (patch: Partial<AgentFormValues>) => {
    if (patch.runtime) runtimeChosen.current = true;
    setValues((v) => ({ ...v, ...patch }));
    if (create.error) create.reset();
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (hasFieldErrors(problems) || create.isPending) return;
    create.mutate(
      {
        ...values,
        name: values.name.trim(),
        model: values.model.trim(),
        // Only Native uses a provider; other runtimes bring their own.
        provider: values.runtime === "native" ? values.provider : null,
      },
      { onSuccess: (agent) => onCreated(agent) },
    );
  };

  return (
    <Modal title="New agent" onClose={onClose} testId="new-agent-dialog">
      <form className="form" onSubmit={submit} noValidate>
        <AgentFields
          values={values}
          onChange={change}
          errors={shownErrors}
          handleServerError={serverError.handle}
          testIdPrefix="agent"
          disabled={create.isPending}
          setup={setup}
        />
        <ErrorMessage message={serverError.form} />
        <div className="modal__actions">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            className="button button--primary"
            disabled={create.isPending}
            data-testid="create-agent-submit"
          >
            {create.isPending ? "Creating…" : "Create agent"}
          </button>
        </div>
      </form>
    </Modal>
  );
}
