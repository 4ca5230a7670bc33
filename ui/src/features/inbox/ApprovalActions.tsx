import type { AttentionRequest, Decision } from "../../bindings";
import { useAnswerRequest } from "../attention/attentionQueries";
import { allowAlwaysLabel } from "../attention/attention";
import { ErrorWithCode } from "../../components/ErrorMessage";

/** Allow once, Allow always (for this agent and tool, or a shell tool's command prefix, until
 *  revoked in Settings) when the engine offers it, or Deny. */
export function ApprovalActions({ request }: { request: AttentionRequest }) {
  const answer = useAnswerRequest();
  const decide = (decision: Decision) => answer.mutate({ id: request.id, answer: { type: "decision", decision } });
  // A routine's request and a memory save are decided each time: "Allow", not "Allow once".
  const eachTime = ["routine_proposal", "routine_paused", "memory_save"].includes(request.kind);

  return (
    <div className="approval-actions">
      <div className="approval-actions__buttons">
        <button
          type="button"
          className="button button--small button--primary"
          onClick={() => decide("allow_once")}
          disabled={answer.isPending}
          data-testid={`allow-once-${request.id}`}
        >
          {eachTime ? "Allow" : "Allow once"}
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
        <button
          type="button"
          className="button button--small button--danger-subtle"
          onClick={() => decide("deny")}
          disabled={answer.isPending}
          data-testid={`deny-${request.id}`}
        >
          Deny
        </button>
      </div>
      <ErrorWithCode error={answer.error} />
    </div>
  );
}
