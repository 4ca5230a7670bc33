import { memo, useState } from "react";
import type { PermissionItem } from "../runActivity";
import { useAnswerPermission } from "../queries";
import { errorMessage } from "../errors";
import { prettyJson } from "../lib/chat";
import { ErrorMessage } from "./ErrorMessage";

type Props = { runId: string; request: PermissionItem; runActive: boolean };

/** The agent asks before using a tool; the run waits for the answer. */
export const PermissionRow = memo(function PermissionRow({ runId, request, runActive }: Props) {
  const { requestId, tool, input, description } = request;
  const answer = useAnswerPermission();
  const [answered, setAnswered] = useState<boolean | null>(null);
  // The backend's word wins over what we sent.
  const allowed = request.allowed ?? answered;

  const reply = (allow: boolean) =>
    answer.mutate({ runId, requestId, allow }, { onSuccess: () => setAnswered(allow) });

  let state: string;
  if (allowed !== null) state = allowed ? "Allowed" : "Denied";
  else state = runActive ? "Waiting for you" : "No longer needed";

  return (
    <li className={`permission ${allowed === null && runActive ? "is-pending" : ""}`} data-testid={`permission-${requestId}`}>
      <div className="permission__head">
        <span className="permission__title">
          Allow <code>{tool}</code>?
        </span>
        <span className={`permission__state permission__state--${allowed === null ? "open" : allowed ? "allowed" : "denied"}`}>
          {state}
        </span>
      </div>
      {description && <p className="permission__description">{description}</p>}
      <pre className="tool__json">{prettyJson(input)}</pre>
      {allowed === null && runActive && (
        <div className="permission__actions">
          <button
            type="button"
            className="button button--small button--primary"
            onClick={() => reply(true)}
            disabled={answer.isPending}
            data-testid={`allow-${requestId}`}
          >
            Allow
          </button>
          <button
            type="button"
            className="button button--small"
            onClick={() => reply(false)}
            disabled={answer.isPending}
            data-testid={`deny-${requestId}`}
          >
            Deny
          </button>
        </div>
      )}
      <ErrorMessage message={answer.error ? errorMessage(answer.error) : null} />
    </li>
  );
});
