// One error card for every run that failed — a one-to-one chat's, a team member's or leader's, a
// card's: what happened, why (as text), and what can be done: Retry, the way to the fix (picked
// by the run's error code), Copy details. Kept in the history with its run.
import type { ReactNode } from "react";
import type { RunErrorCode } from "../../bindings";
import { Markdown } from "../../components/Markdown";
import { CopyErrorDetails } from "../../components/CopyErrorDetails";
import { FixButton, fixForCode } from "../agents/CantRun";

type Props = {
  /** "The run failed.", "@scout's run failed." */
  title: string;
  code: RunErrorCode | null;
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
  const fix = agentId ? fixForCode(code) : null;
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
