import type { Agent, Fact, Team } from "../../bindings";
import { authorLabel, formatTime, scopeLabel } from "./memoryLabels";

type Props = {
  fact: Fact;
  teams: Team[];
  agents: Agent[];
  selected: boolean;
  onOpen: (id: string) => void;
  onRestore?: (id: string) => void;
  /** "memory-fact" for the list, another prefix where the same fact shows twice. */
  testPrefix?: string;
};

/** One fact in a list: its id, text, tags, scope, author and when it last changed. */
export function FactRow({ fact, teams, agents, selected, onOpen, onRestore, testPrefix = "memory-fact" }: Props) {
  return (
    <li
      className={`memory-fact ${selected ? "is-selected" : ""} ${fact.deleted ? "is-deleted" : ""}`}
      data-testid={`${testPrefix}-${fact.id}`}
    >
      <button type="button" className="memory-fact__open" onClick={() => onOpen(fact.id)} aria-pressed={selected}>
        <span className="memory-fact__head">
          <code className="memory-id">{fact.id}</code>
          <span className="memory-fact__scope">{scopeLabel(fact.scope, teams, agents)}</span>
          <span className="memory-fact__author" data-testid={`${testPrefix}-author-${fact.id}`}>
            {authorLabel(fact.author)}
          </span>
          <time className="memory-fact__time">{formatTime(fact.updatedAt)}</time>
          {fact.deleted && <span className="memory-badge memory-badge--deleted">deleted</span>}
        </span>
        <span className="memory-fact__text">{fact.text}</span>
        {fact.tags.length > 0 && (
          <span className="memory-tags">
            {fact.tags.map((tag) => (
              <span key={tag} className="memory-tag">
                {tag}
              </span>
            ))}
          </span>
        )}
      </button>
      {fact.deleted && onRestore && (
        <button
          type="button"
          className="button button--small memory-fact__restore"
          onClick={() => onRestore(fact.id)}
          data-testid={`${testPrefix}-restore-${fact.id}`}
        >
          Restore
        </button>
      )}
    </li>
  );
}
