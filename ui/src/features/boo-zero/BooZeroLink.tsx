import type { Agent } from "../../bindings";
import { UnconfinedBadge } from "../sandbox/UnconfinedBadge";

type Props = { agent: Agent; active: boolean; onSelect: (id: string) => void };

/** Boo Zero, pinned at the top of the sidebar with its own mark: the user's coordinator. */
export function BooZeroLink({ agent, active, onSelect }: Props) {
  return (
    <div className="boo-zero-pin">
      <button
        type="button"
        className={`agent-item boo-zero-link ${active ? "is-active" : ""}`}
        aria-current={active ? "page" : undefined}
        onClick={() => onSelect(agent.id)}
        title="Your coordinator: mention a team with @TeamName to bring its context"
        data-testid="boo-zero-link"
      >
        <span className="boo-zero-mark" aria-hidden="true" data-testid="boo-zero-mark">
          ✦
        </span>
        <span className="agent-item__text">
          <span className="agent-item__name">{agent.name}</span>
          <span className="agent-item__handle">@{agent.handle} · your coordinator</span>
        </span>
        <UnconfinedBadge agent={agent} className="agent-item__badge" />
      </button>
    </div>
  );
}

/** Boo Zero first and the other agents after it (Boo Zero is left out of the list it heads). */
export function pinBooZero(agents: Agent[] | undefined, booZeroId: string | null): [Agent | null, Agent[] | undefined] {
  const booZero = agents?.find((a) => a.id === booZeroId) ?? null;
  return [booZero, booZero ? agents?.filter((a) => a.id !== booZero.id) : agents];
}
