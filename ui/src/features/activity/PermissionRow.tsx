import { memo, useState } from "react";
import type { Decision } from "../../bindings";
import type { PermissionItem } from "./runActivity";
import { useAnswerPermission } from "../chat/chatQueries";
import { useOpenRequests } from "../attention/attentionQueries";
import { allowAlwaysLabel } from "../attention/attention";
import { prettyJson } from "../chat/chat";
import { ErrorWithCode } from "../../components/ErrorMessage";
import { ApprovalInput, RevealedText } from "../attention/ApprovalInput";

type Props = { runId: string; request: PermissionItem; runActive: boolean };

/** The agent asks before using a tool; the run waits for the answer. The same approval shows in
 *  the Inbox, so it can be answered in either place. */
export const PermissionRow = memo(function PermissionRow({ runId, request, runActive }: Props) {
  const { requestId, tool, input, description } = request;
  const answer = useAnswerPermission();
  // The Inbox's request for this question says whether "Allow always" is offered, and what it
  // grants (for a shell tool, a command prefix); until it is known, it is not offered.
  const stored = useOpenRequests().data?.find((r) => r.runId === runId && r.runtimeRequestId === requestId);
  const [sent, setSent] = useState<Decision | null>(null);
  // The backend's word wins over what we sent (it may have been answered in the Inbox).
  const allowed = request.allowed ?? (sent === null ? null : sent !== "deny");

  const reply = (decision: Decision) =>
    answer.mutate({ runId, requestId, decision }, { onSuccess: () => setSent(decision) });

  let state: string;
  if (allowed !== null) state = allowed ? (sent === "allow_always" ? "Allowed always" : "Allowed") : "Denied";
  else state = runActive ? "Waiting for you" : "No longer needed";

  return (
    <li className={`permission ${allowed === null && runActive ? "is-pending" : ""}`} data-testid={`permission-${requestId}`}>
      <div className="permission__head">
        <span className="permission__title">
          Allow{" "}
          <code>
            <RevealedText text={tool} />
          </code>
          ?
        </span>
        <span className={`permission__state permission__state--${allowed === null ? "open" : allowed ? "allowed" : "denied"}`}>
          {state}
        </span>
      </div>
      {description && (
        <p className="permission__description">
          <RevealedText text={description} />
        </p>
      )}
      <ApprovalInput text={prettyJson(input)} testId={`permission-input-${requestId}`} />
      {allowed === null && runActive && (
        <div className="permission__actions">
          <button
            type="button"
            className="button button--small button--primary"
            onClick={() => reply("allow_once")}
            disabled={answer.isPending}
            data-testid={`allow-${requestId}`}
          >
            Allow once
          </button>
          {stored?.allowAlways && (
            <button
              type="button"
              className="button button--small"
              onClick={() => reply("allow_always")}
              disabled={answer.isPending}
              title={`${allowAlwaysLabel(stored)}: from now on without asking (revoke it in Settings › Approvals)`}
              data-testid={`allow-always-${requestId}`}
            >
              {stored.commandPrefix ? `Allow always: ${stored.commandPrefix} …` : "Allow always"}
            </button>
          )}
          <button
            type="button"
            className="button button--small"
            onClick={() => reply("deny")}
            disabled={answer.isPending}
            data-testid={`deny-${requestId}`}
          >
            Deny
          </button>
        </div>
      )}
      <ErrorWithCode error={answer.error} />
    </li>
  );
});
