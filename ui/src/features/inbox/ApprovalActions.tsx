import type { AttentionRequest, Decision, RequestKind } from "../../bindings";
import { useAnswerRequest } from "../attention/attentionQueries";
import { allowAlwaysLabel } from "../attention/attention";
import { ErrorWithCode } from "../../components/ErrorMessage";
import { useNavigate } from "../../shell/navigation";

/** The words of a request's two answers, by its kind: what Allow and Deny do there. */
const ANSWER_WORDS: Partial<Record<RequestKind, { allow: string; deny: string | null }>> = {
  routine_proposal: { allow: "Allow", deny: "Deny" },
  memory_save: { allow: "Allow", deny: "Deny" },
  // A circuit breaker's pause, and a routine that paused itself: one view, one pair of words.
  scope_paused: { allow: "Resume", deny: "Keep paused" },
  routine_paused: { allow: "Resume", deny: "Keep paused" },
  budget_reached: { allow: "Allow until tomorrow", deny: "Keep stopped" },
  // A line to read: dismissing it changes nothing.
  budget_warning: { allow: "Dismiss", deny: null },
};

/** Allow once, Allow always (for this agent and tool, or a shell tool's command prefix, until
 *  revoked in Settings) when the engine offers it, or Deny — named for what they do on a
 *  routine, a pause or a budget; a spent budget also offers the way to raise it. */
export function ApprovalActions({ request }: { request: AttentionRequest }) {
  const answer = useAnswerRequest();
  const navigate = useNavigate();
  const decide = (decision: Decision) => answer.mutate({ id: request.id, answer: { type: "decision", decision } });
  const words = ANSWER_WORDS[request.kind] ?? { allow: "Allow once", deny: "Deny" };

  return (
    <div className="approval-actions">
      <div className="approval-actions__buttons">
        {request.kind === "budget_reached" && (
          <button
            type="button"
            className="button button--small button--primary"
            onClick={() => navigate({ page: "settings", section: "limits" })}
            data-testid={`raise-budget-${request.id}`}
          >
            Raise the budget
          </button>
        )}
        <button
          type="button"
          className={`button button--small${request.kind === "budget_reached" ? "" : " button--primary"}`}
          onClick={() => decide("allow_once")}
          disabled={answer.isPending}
          data-testid={`allow-once-${request.id}`}
        >
          {words.allow}
        </button>
        {request.allowAlways && (
          <button
            type="button"
            className="button button--small"
            onClick={() => decide("allow_always")}
            disabled={answer.isPending}
            title="From now on without asking; revoke it in Settings › Approvals"
            data-testid={`allow-always-${request.id}`}
          >
            {allowAlwaysLabel(request)}
          </button>
        )}
        {words.deny && (
          <button
            type="button"
            className="button button--small button--danger-subtle"
            onClick={() => decide("deny")}
            disabled={answer.isPending}
            data-testid={`deny-${request.id}`}
          >
            {words.deny}
          </button>
        )}
      </div>
      <ErrorWithCode error={answer.error} />
    </div>
  );
}
