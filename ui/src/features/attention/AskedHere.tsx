import type { AttentionRequest } from "../../bindings";
import { AnswerForm } from "../inbox/AnswerForm";
import { useOpenRequests } from "./attentionQueries";

type Where = { agentId: string; roomId?: undefined } | { roomId: string; agentId?: undefined };

/** An agent's open questions asked here (its one-to-one chat, or a team room), each with its
 *  answer box: the user answers where the question was asked. The Inbox lists them too. */
export function AskedHere(where: Where) {
  const open = useOpenRequests();
  const questions = (open.data ?? []).filter((r) => r.kind === "question" && askedIn(r, where));
  if (questions.length === 0) return null;
  return (
    <section className="asked-here" aria-label="Questions for you" data-testid="asked-here">
      {questions.map((q) => (
        <article key={q.id} className="asked-here__card" data-testid={`asked-here-${q.id}`}>
          <p className="asked-here__question">
            <strong>@{q.agentHandle} asks:</strong> {q.text}
          </p>
          <AnswerForm request={q} />
        </article>
      ))}
    </section>
  );
}

function askedIn(request: AttentionRequest, where: Where): boolean {
  if (where.roomId) return request.roomId === where.roomId;
  return request.origin === "chat" && request.agentId === where.agentId;
}
