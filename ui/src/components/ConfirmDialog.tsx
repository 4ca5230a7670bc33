import type { ReactNode } from "react";
import { Modal } from "./Modal";
import { ErrorMessage } from "./ErrorMessage";

type Props = {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  error?: string | null;
  confirmTestId?: string;
  /** "Cancel" unless the choice reads better otherwise ("Keep editing"). */
  cancelLabel?: string;
  cancelTestId?: string;
  /** "danger" (red) for what cannot be undone; "primary" for a risky step that loses nothing
   *  (opening a link in the browser). */
  tone?: "danger" | "primary";
};

/** An in-app replacement for window.confirm, for destructive or risky actions. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  busy,
  error,
  confirmTestId,
  cancelLabel = "Cancel",
  cancelTestId,
  tone = "danger",
}: Props) {
  return (
    <Modal title={title} onClose={busy ? () => {} : onCancel} role="alertdialog" testId="confirm-dialog">
      <div className="modal__body">{children}</div>
      <ErrorMessage message={error} />
      <div className="modal__actions">
        <button
          type="button"
          className="button"
          onClick={onCancel}
          disabled={busy}
          data-autofocus
          data-testid={cancelTestId}
        >
          {cancelLabel}
        </button>
        <button
          type="button"
          className={`button button--${tone}`}
          onClick={onConfirm}
          disabled={busy}
          data-testid={confirmTestId}
        >
          {busy ? "Working…" : confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
