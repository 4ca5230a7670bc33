import type { Agent } from "../../bindings";
import { ConfirmDialog } from "../../components/ConfirmDialog";

/** Asks before an agent runs without the sandbox, saying what it can then reach. */
export function UnconfinedConfirm({
  agent,
  busy,
  error,
  onCancel,
  onConfirm,
}: {
  agent: Agent;
  busy: boolean;
  error: string | null;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <ConfirmDialog
      title={`Run @${agent.handle} without the sandbox?`}
      confirmLabel="Run without the sandbox"
      confirmTestId="confirm-unconfined"
      cancelLabel="Keep the sandbox"
      cancelTestId="cancel-unconfined"
      busy={busy}
      error={error}
      onCancel={onCancel}
      onConfirm={onConfirm}
    >
      <p>
        Without Clawboo's sandbox, <strong>{agent.name}</strong> runs with your whole account, as if you ran its
        programs yourself:
      </p>
      <ul className="sandbox-risks">
        <li>
          <strong>Files</strong>: it can read, change and delete any file you can, not only its own folder.
        </li>
        <li>
          <strong>Keys</strong>: it can use the keys and sign-ins on this machine (SSH keys, cloud and API
          credentials, browser data).
        </li>
        <li>
          <strong>Network</strong>: it can reach any host; the Network setting no longer applies.
        </li>
      </ul>
      <p>It shows a red “unconfined” badge wherever it appears. You can turn the sandbox back on here at any time.</p>
    </ConfirmDialog>
  );
}
