import { useState } from "react";
import type { Card } from "../../bindings";
import { Modal } from "../../components/Modal";
import { cardRef } from "./board";

/** Blocked needs a reason: asked before the move. */
export function BlockReasonDialog({
  card,
  onBlock,
  onCancel,
}: {
  card: Card;
  onBlock: (reason: string) => void;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState("");
  return (
    <Modal title={`Why is ${cardRef(card)} blocked?`} onClose={onCancel} testId="block-reason-dialog">
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (reason.trim()) onBlock(reason.trim());
        }}
      >
        <div className="field">
          <label htmlFor="block-reason">Reason</label>
          <input
            id="block-reason"
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder="Waiting for the supplier's price list"
            data-testid="block-reason-input"
          />
          <p className="field__hint">The assignee and anyone opening the card sees it.</p>
        </div>
        <div className="modal__actions">
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={!reason.trim()} data-testid="block-confirm">
            Block
          </button>
        </div>
      </form>
    </Modal>
  );
}
