import type { Section, TaskRunContext } from "../../bindings";
import { useTaskRunContext } from "./boardQueries";
import { formatCount } from "../../lib/format";
import { ContextViewerFrame, SectionRow } from "../run-context/RunContextViewer";
import { FileDeliveryList } from "../run-context/FileDeliveryList";

/** The task runner's three tiers, as the seed names them. */
const TASK_TIERS: Record<Section["stability"], string> = {
  steady: "steady for the task",
  turn: "context",
  volatile: "changes most",
};

const KINDS: Record<TaskRunContext["kind"], string> = {
  run: "a run",
  fix: "a fix round (the check failed)",
  rotation: "a fresh session after the last one ran out of room",
  handoff: "a teammate's hand-off",
};

type Props = { runId: string; who: string; onClose: () => void };

/** Exactly what a task run was given: its tiers section by section, the facts cited, and the
 *  request bodies the model received. */
export function TaskRunContextViewer({ runId, who, onClose }: Props) {
  const context = useTaskRunContext(runId);
  return (
    <ContextViewerFrame runId={runId} who={who} onClose={onClose} testId="task-run-context" error={context.error}>
      {context.data && <TiersBody context={context.data} />}
    </ContextViewerFrame>
  );
}

function TiersBody({ context }: { context: TaskRunContext }) {
  const total = context.sections.reduce((sum, s) => sum + s.chars, 0);
  return (
    <div className="run-context">
      <p className="muted">
        Attempt {context.attempt}: {KINDS[context.kind]}. The steady tier is the same for every run of this task, so
        providers can reuse it from their cache; the message is the card&apos;s title.
      </p>
      <p className="run-context__total" data-testid="run-context-total">
        {context.sections.length} sections · {formatCount(total)} characters
        {context.cited.length > 0 && ` · facts given: ${context.cited.join(", ")}`}
      </p>
      <ol className="run-context__sections">
        {context.sections.map((section, i) => (
          <SectionRow key={`${section.kind}-${i}`} section={section} tiers={TASK_TIERS} />
        ))}
      </ol>
      <FileDeliveryList files={context.files} project={context.projectFile} />
      {context.systemText && (
        <details className="run-context__raw">
          <summary>System/developer slot as sent ({formatCount(context.systemText.length)} characters)</summary>
          <pre>{context.systemText}</pre>
        </details>
      )}
      {context.preamble && (
        <details className="run-context__raw">
          <summary>Placed before the message ({formatCount(context.preamble.length)} characters)</summary>
          <pre>{context.preamble}</pre>
        </details>
      )}
    </div>
  );
}
