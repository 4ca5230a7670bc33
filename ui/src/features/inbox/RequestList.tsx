import type { Agent, AttentionRequest, Team } from "../../bindings";
import { useAttentionRequest } from "../attention/attentionQueries";
import { sourceAvailable } from "../attention/attention";
import { ErrorWithCode } from "../../components/ErrorMessage";
import { RequestCard } from "./RequestCard";

/** Which request to show, and when that was asked (so asking again scrolls to it again). */
export type InboxFocus = { id: string; at: number };

type Props = {
  requests: AttentionRequest[];
  now: number;
  focus: InboxFocus | null;
  agents: Agent[];
  teams: Team[];
  onOpenSource: (request: AttentionRequest) => void;
  testId: string;
};

/** Requests as cards, in the order given (the engine's: newest first). */
export function RequestList({ requests, now, focus, agents, teams, onOpenSource, testId }: Props) {
  return (
    <ul className="request-list" data-testid={testId}>
      {requests.map((r) => (
        <RequestCard
          key={r.id}
          request={r}
          now={now}
          focusedAt={focus?.id === r.id ? focus.at : null}
          canOpenSource={sourceAvailable(r, agents, teams)}
          onOpenSource={onOpenSource}
        />
      ))}
    </ul>
  );
}

type FocusedProps = Omit<Props, "requests" | "testId" | "focus"> & { focus: InboxFocus };

/** The request asked for when the list on screen does not hold it (answered meanwhile, or on an
 *  older page): read on its own, shown above the list. */
export function FocusedRequest({ focus, ...rest }: FocusedProps) {
  const request = useAttentionRequest(focus.id);
  return (
    <section className="request-focused" data-testid="inbox-focused">
      <ErrorWithCode error={request.error} />
      {request.data && (
        <>
          {request.data.status !== "open" && <p className="muted">This request is no longer open.</p>}
          <RequestList requests={[request.data]} focus={focus} testId="inbox-focused-list" {...rest} />
        </>
      )}
    </section>
  );
}
