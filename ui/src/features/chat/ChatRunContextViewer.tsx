import type { ChatRunContext, RunSummary } from "../../bindings";
import { useRunRequests } from "../team-chat/roomQueries";
import { whyNoRequests } from "../run-context/notSent";
import { useChatRunContext } from "./chatQueries";
import { hasErrorCode } from "../../errors";
import { codePointLength, formatCount } from "../../lib/format";
import { ContextViewerFrame } from "../run-context/RunContextViewer";
import { FileDeliveryList } from "../run-context/FileDeliveryList";

type Props = {
  runId: string;
  /** Who ran it, e.g. "@scout". */
  who: string;
  onClose: () => void;
  /** The run, for how it ended. */
  run?: RunSummary | null;
};

/** Exactly what a one-to-one run was given: the runtime's instruction slot, the text in front of
 *  the message, where each agent file went, and the request bodies the model received. */
export function ChatRunContextViewer({ runId, who, onClose, run }: Props) {
  const context = useChatRunContext(runId);
  const requests = useRunRequests(runId);
  const unsent = whyNoRequests(run, requests.data) === "ended_before_sending";
  // Runs from before Clawboo kept this have none: say so rather than show an error.
  const notKept = hasErrorCode(context.error, "not_found");
  return (
    <ContextViewerFrame
      runId={runId}
      who={who}
      onClose={onClose}
      testId="chat-run-context"
      run={run}
      error={notKept ? null : context.error}
    >
      {notKept ? (
        <p className="muted" data-testid="chat-run-context-not-kept">
          Not recorded: this run is from before Clawboo kept what each one-to-one run was given.
        </p>
      ) : (
        context.data && <ChatContextBody context={context.data} unsent={unsent} />
      )}
    </ContextViewerFrame>
  );
}

function ChatContextBody({ context, unsent }: { context: ChatRunContext; unsent: boolean }) {
  return (
    <div className="run-context">
      <p className="muted">
        The message itself is in the chat. Before it, Clawboo gave the runtime what follows: its instruction slot
        (when Clawboo fills it), the text in front of the message (workspace files and recalled notes, when any), and
        the agent&apos;s files.
      </p>
      <RawText
        text={context.systemText}
        summary="Instruction slot as sent"
        testId="chat-run-context-system"
        emptyTestId="chat-run-context-no-system"
        empty="Clawboo filled no instruction slot for this run."
      />
      <RawText
        text={context.preamble}
        summary="Placed before the message"
        testId="chat-run-context-preamble"
        emptyTestId="chat-run-context-no-preamble"
        empty="Nothing was placed before the message."
      />
      {context.sections.length > 0 && (
        <div className="run-context__sections" data-testid="chat-run-context-sections">
          <p className="muted">
            Of that, Boo Zero&apos;s part, one section at a time: its rules, and for each team the message named, what was
            read for it (each within its budget; each section says what did not fit).
          </p>
          {context.sections.map((section, index) => (
            <details className="run-context__raw" key={index} data-testid="chat-run-context-section">
              <summary>
                <span className="run-context__section-title">{section.title}</span> (
                {formatCount(codePointLength(section.text))} characters)
              </summary>
              <pre>{section.text}</pre>
            </details>
          ))}
        </div>
      )}
      <FileDeliveryList files={context.files} unsent={unsent} />
    </div>
  );
}

type RawTextProps = { text: string | null; summary: string; testId: string; empty: string; emptyTestId: string };

/** A block of exactly what was sent, folded under its size; a line saying so when there was none. */
function RawText({ text, summary, testId, empty, emptyTestId }: RawTextProps) {
  if (!text) {
    return (
      <p className="muted" data-testid={emptyTestId}>
        {empty}
      </p>
    );
  }
  return (
    <details className="run-context__raw" data-testid={testId}>
      <summary>
        {summary} ({formatCount(codePointLength(text))} characters)
      </summary>
      <pre>{text}</pre>
    </details>
  );
}
