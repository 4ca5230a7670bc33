import type { Agent, Promotion, Team } from "../../bindings";
import { errorMessage } from "../../errors";
import { useDecidePromotion, usePromotions } from "./memoryQueries";
import { authorLabel, formatTime, scopeLabel } from "./memoryLabels";
import { ErrorMessage } from "../../components/ErrorMessage";

type Props = { teams: Team[]; agents: Agent[] };

/** Agents' requests to copy a session note to a team or to everyone: the exact text that would
 *  be copied, who asked, where to. Nothing is copied until the user approves. */
export function PromotionList({ teams, agents }: Props) {
  const promotions = usePromotions();
  const decide = useDecidePromotion();
  const pending = promotions.data?.filter((p) => p.status === "pending") ?? [];
  const decided = promotions.data?.filter((p) => p.status !== "pending") ?? [];

  return (
    <section className="card memory-promotions" data-testid="memory-promotions">
      <h2 className="card__title">
        Pending promotions {pending.length > 0 && <span className="pill">{pending.length}</span>}
      </h2>
      <ErrorMessage message={promotions.error ? errorMessage(promotions.error) : null} />
      <ErrorMessage message={decide.error ? errorMessage(decide.error) : null} />
      {promotions.data && pending.length === 0 && (
        <p className="muted" data-testid="memory-promotions-none">
          Nothing waiting. When an agent asks to share one of its session notes with a team or everyone, it waits here
          for you.
        </p>
      )}
      <ul className="memory-list">
        {pending.map((p) => (
          <li key={p.id} className="memory-promotion" data-testid={`promotion-${p.id}`}>
            <PromotionHead promotion={p} teams={teams} agents={agents} />
            <blockquote className="memory-promotion__text">{p.text}</blockquote>
            <div className="memory-promotion__actions">
              <button
                type="button"
                className="button button--small"
                onClick={() => decide.mutate({ id: p.id, approve: false })}
                disabled={decide.isPending}
                data-testid={`promotion-reject-${p.id}`}
              >
                Reject
              </button>
              <button
                type="button"
                className="button button--small button--primary"
                onClick={() => decide.mutate({ id: p.id, approve: true })}
                disabled={decide.isPending}
                data-testid={`promotion-approve-${p.id}`}
              >
                Approve: copy to {scopeLabel(p.to, teams, agents)}
              </button>
            </div>
          </li>
        ))}
      </ul>
      {decided.length > 0 && (
        <details className="memory-promotions__decided">
          <summary>Decided ({decided.length})</summary>
          <ul className="memory-list">
            {decided.map((p) => (
              <li key={p.id} className="memory-promotion is-decided" data-testid={`promotion-${p.id}`}>
                <PromotionHead promotion={p} teams={teams} agents={agents} />
                <blockquote className="memory-promotion__text">{p.text}</blockquote>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function PromotionHead({ promotion: p, teams, agents }: { promotion: Promotion; teams: Team[]; agents: Agent[] }) {
  return (
    <div className="memory-promotion__head">
      <span>
        <strong>{authorLabel(p.requestedBy)}</strong> asks to copy to <strong>{scopeLabel(p.to, teams, agents)}</strong>
      </span>
      <time className="muted">{formatTime(p.createdAt)}</time>
      {p.status !== "pending" && (
        <span className={`memory-badge memory-badge--${p.status}`} data-testid={`promotion-status-${p.id}`}>
          {p.status}
          {p.decidedAt !== null && ` ${formatTime(p.decidedAt)}`}
        </span>
      )}
    </div>
  );
}
