// One error card for every run that failed — a one-to-one chat's, a team member's or leader's, a
// card's: what happened, why (as text), and what can be done: Retry, the way to the fix (picked
// by the run's error code), Copy details. Kept in the history with its run.
import type { ReactNode } from "react";
import type { RunErrorCode } from "../../bindings";
import { useNavigate } from "../../shell/navigation";
import { Markdown } from "../../components/Markdown";
import { CopyErrorDetails } from "../../components/CopyErrorDetails";
import { FixButton, fixForCode } from "../agents/CantRun";

type Props = {
  /** "The run failed.", "@scout's run failed." */
  title: string;
  /** A run's error code, or a refusal's: a paused scope or a spent budget. */
  code: RunErrorCode | GuardRefusal | null;
  message: string | null;
  /** The agent whose profile a model fix opens; no fix link without it. */
  agentId?: string | null;
  /** Runs it again (offered while nothing else runs). */
  onRetry?: () => void;
  /** More ways forward (the sandbox's settings). */
  extra?: ReactNode;
  /** Below the card (a "What it saw" link). */
  children?: ReactNode;
  testId?: string;
};

export function RunErrorCard({ title, code, message, agentId, onRetry, extra, children, testId = "run-error" }: Props) {
  const fix = agentId && code !== "budget_exhausted" && code !== "paused" ? fixForCode(code) : null;
  return (
    <div className="chat-run-notice chat-run-notice--error" role="alert" data-testid={testId} data-code={code ?? undefined}>
      <strong>{title}</strong>
      {message && (
        <div className="chat-run-notice__why" data-testid="run-error-text">
          <Markdown text={message} />
        </div>
      )}
      <div className="chat-run-notice__actions">
        {onRetry && (
          <button type="button" className="button button--small" onClick={onRetry} data-testid="run-retry">
            Retry
          </button>
        )}
        {fix && agentId && <FixButton fix={fix} agentId={agentId} />}
        {(code === "budget_exhausted" || code === "paused") && <LimitsLink code={code} />}
        {extra}
        {code && (
          <code className="chat-run-notice__code" title="The error's code" data-testid="run-error-code">
            {code}
          </code>
        )}
        <CopyErrorDetails code={code ?? "run_failed"} message={message ?? title} />
      </div>
      {children}
    </div>
  );
}

/** The codes of a run the guards refused before it started. */
export type GuardRefusal = "budget_exhausted" | "paused";

/** The way to the budget (or the paused scope): Settings › Limits. */
function LimitsLink({ code }: { code: GuardRefusal }) {
  const navigate = useNavigate();
  return (
    <button
      type="button"
      className="button button--small"
      onClick={() => navigate({ page: "settings", section: "limits" })}
      data-testid="open-limits"
    >
      {code === "budget_exhausted" ? "Open the budget" : "Open Limits"}
    </button>
  );
}
