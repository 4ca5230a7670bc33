import type { ChatRunContext } from "../api";
import { useChatRunContext } from "../queries";
import { hasErrorCode } from "../errors";
import { codePointLength, formatCount } from "../lib/format";
import { ContextViewerFrame } from "./RunContextViewer";
import { FileDeliveryList } from "./FileDeliveryList";

type Props = {
  runId: string;
  /** Who ran it, e.g. "@scout". */
  who: string;
  onClose: () => void;
};

/** Exactly what a one-to-one run was given: the runtime's instruction slot, the text in front of
 *  the message, where each agent file went, and the request bodies the model received. */
export function ChatRunContextViewer({ runId, who, onClose }: Props) {
  const context = useChatRunContext(runId);
  // Runs from before Clawboo kept this have none: say so rather than show an error.
  const notKept = hasErrorCode(context.error, "not_found");
  return (
    <ContextViewerFrame
      runId={runId}
      who={who}
      onClose={onClose}
      testId="chat-run-context"
      error={notKept ? null : context.error}
    >
      {notKept ? (
        <p className="muted" data-testid="chat-run-context-not-kept">
          Not recorded: this run is from before Clawboo kept what each one-to-one run was given.
        </p>
      ) : (
        context.data && <ChatContextBody context={context.data} />
      )}
    </ContextViewerFrame>
  );
}

function ChatContextBody({ context }: { context: ChatRunContext }) {
  return (
    <div className="run-context">
      <p className="muted">
        The message itself is in the chat. Before it, Clawboo gave the runtime what follows: its instruction slot
        (when Clawboo fills it), the text in front of the message (workspace files and recalled notes, when any), and
        the agent&apos;s files.
      </p>
      {context.systemText ? (
        <details className="run-context__raw" data-testid="chat-run-context-system">
          <summary>Instruction slot as sent ({formatCount(codePointLength(context.systemText))} characters)</summary>
          <pre>{context.systemText}</pre>
        </details>
      ) : (
        <p className="muted" data-testid="chat-run-context-no-system">
          Clawboo filled no instruction slot for this run.
        </p>
      )}
      {context.preamble ? (
        <details className="run-context__raw" data-testid="chat-run-context-preamble">
          <summary>Placed before the message ({formatCount(codePointLength(context.preamble))} characters)</summary>
          <pre>{context.preamble}</pre>
        </details>
      ) : (
        <p className="muted" data-testid="chat-run-context-no-preamble">
          Nothing was placed before the message.
        </p>
      )}
      <FileDeliveryList files={context.files} />
    </div>
  );
}
