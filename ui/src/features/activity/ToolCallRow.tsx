import { memo, useState } from "react";
import type { ToolCallItem } from "./runActivity";
import { firstLines, formatDuration, prettyJson, summarizeInput } from "../chat/chat";

/** Output lines shown before "Show all". */
const OUTPUT_LINES = 20;

const STATUS_LABELS: Record<ToolCallItem["status"], string> = {
  running: "Running",
  done: "Done",
  error: "Failed",
};

function StatusIcon({ status }: { status: ToolCallItem["status"] }) {
  if (status === "running") return <span className="spinner" role="img" aria-label={STATUS_LABELS.running} />;
  return (
    <span className={`tool__icon tool__icon--${status}`} role="img" aria-label={STATUS_LABELS[status]}>
      {status === "done" ? "✓" : "✕"}
    </span>
  );
}

/** One tool call: what was called with what, how it went, and what came back. */
export const ToolCallRow = memo(function ToolCallRow({ call }: { call: ToolCallItem }) {
  const [showInput, setShowInput] = useState(false);
  const [showAllOutput, setShowAllOutput] = useState(false);
  const output = call.output === null ? null : firstLines(call.output, showAllOutput ? Infinity : OUTPUT_LINES);
  const summary = summarizeInput(call.input);

  return (
    <li className={`tool tool--${call.status}`} data-testid={`activity-tool-${call.callId}`} data-status={call.status}>
      <div className="tool__head">
        <StatusIcon status={call.status} />
        <span className="tool__name">{call.name}</span>
        <button
          type="button"
          className="tool__input"
          onClick={() => setShowInput((v) => !v)}
          aria-expanded={showInput}
          title={showInput ? "Hide the full input" : "Show the full input"}
          data-testid="tool-input"
        >
          {summary || "(no input)"}
        </button>
        {call.finishedAt !== null && (
          <span className="tool__duration" data-testid="tool-duration">
            {formatDuration(call.finishedAt - call.startedAt)}
          </span>
        )}
      </div>
      {showInput && (
        <pre className="tool__json" data-testid="tool-input-full">
          {prettyJson(call.input)}
        </pre>
      )}
      {output && (
        <>
          <pre className={`tool__output ${call.status === "error" ? "is-error" : ""}`} data-testid="tool-output">
            {output.shown || "(no output)"}
          </pre>
          {output.total > OUTPUT_LINES && (
            <button type="button" className="link-button" onClick={() => setShowAllOutput((v) => !v)}>
              {showAllOutput ? "Show less" : `Show all ${output.total} lines`}
            </button>
          )}
        </>
      )}
    </li>
  );
});
