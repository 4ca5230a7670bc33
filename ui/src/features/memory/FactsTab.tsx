import { useState } from "react";
import type { Agent, Fact, FactFilter, Team } from "../../bindings";
import { errorMessage } from "../../errors";
import { SEARCH_DEBOUNCE_MS, useDebounced, useFacts, useRelatedFacts, useRestoreFact } from "./memoryQueries";
import { scopeFromKey } from "./memoryLabels";
import { ErrorMessage } from "../../components/ErrorMessage";
import { FactDetailPanel } from "./FactDetailPanel";
import { FactRow } from "./FactRow";
import { NewFactForm } from "./NewFactForm";
import { ScopeOptions } from "./ScopeOptions";

type Props = { teams: Team[]; agents: Agent[] };

/** Every fact, searched as you type and filtered by scope, author and deletion; one opens in the
 *  panel beside the list. */
export function FactsTab({ teams, agents }: Props) {
  const [query, setQuery] = useState("");
  const [scope, setScope] = useState("all");
  const [author, setAuthor] = useState("all");
  const [showDeleted, setShowDeleted] = useState(false);
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const searched = useDebounced(query.trim(), SEARCH_DEBOUNCE_MS);

  const filter: FactFilter = {
    query: searched || null,
    scope: scopeFromKey(scope),
    author: author === "all" ? null : author,
    includeDeleted: showDeleted,
    limit: null,
  };
  const facts = useFacts(filter);
  const related = useRelatedFacts(searched);
  const restore = useRestoreFact();
  const listed = new Set(facts.data?.map((f) => f.id));
  const relatedShown = (related.data ?? []).map((hit) => hit.fact).filter((f) => !listed.has(f.id));

  const onSaved = (fact: Fact, existing: boolean) => {
    setCreating(false);
    setSelected(fact.id);
    setNotice(existing ? `This exact text was already saved in that scope as ${fact.id}.` : null);
  };

  const row = (fact: Fact, testPrefix?: string) => (
    <FactRow
      key={fact.id}
      fact={fact}
      teams={teams}
      agents={agents}
      selected={fact.id === selected}
      onOpen={setSelected}
      onRestore={(id) => restore.mutate(id)}
      testPrefix={testPrefix}
    />
  );

  return (
    <div className={`memory-facts ${selected ? "has-detail" : ""}`}>
      <div className="memory-facts__main">
        <div className="memory-toolbar">
          <input
            type="search"
            className="memory-toolbar__search"
            placeholder="Search facts"
            aria-label="Search facts"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            data-testid="memory-search"
          />
          <select
            value={scope}
            onChange={(e) => setScope(e.target.value)}
            aria-label="Scope"
            data-testid="memory-filter-scope"
          >
            <option value="all">All scopes</option>
            <ScopeOptions teams={teams} agents={agents} />
          </select>
          <select
            value={author}
            onChange={(e) => setAuthor(e.target.value)}
            aria-label="Author"
            data-testid="memory-filter-author"
          >
            <option value="all">Anyone</option>
            <option value="user">You</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                @{a.handle}
              </option>
            ))}
          </select>
          <label className="memory-toolbar__toggle">
            <input
              type="checkbox"
              checked={showDeleted}
              onChange={(e) => setShowDeleted(e.target.checked)}
              data-testid="memory-show-deleted"
            />
            Show deleted
          </label>
          <button
            type="button"
            className="button button--primary"
            onClick={() => setCreating(true)}
            disabled={creating}
            data-testid="memory-new-fact"
          >
            + New fact
          </button>
        </div>

        {creating && <NewFactForm teams={teams} agents={agents} onSaved={onSaved} onCancel={() => setCreating(false)} />}
        {notice && (
          <p className="banner memory-notice" data-testid="memory-notice">
            {notice}
          </p>
        )}
        <ErrorMessage message={facts.error ? errorMessage(facts.error) : restore.error ? errorMessage(restore.error) : null} />

        {facts.isPending ? (
          <p className="muted">Loading…</p>
        ) : facts.data && facts.data.length === 0 ? (
          <p className="muted memory-empty" data-testid="memory-facts-empty">
            {searched || scope !== "all" || author !== "all"
              ? "No fact matches."
              : "No facts yet. Agents save them with memory_save; you can add one here."}
          </p>
        ) : (
          <ul className="memory-list" data-testid="memory-fact-list">
            {facts.data?.map((fact) => row(fact))}
          </ul>
        )}

        {relatedShown.length > 0 && (
          <section className="memory-related" data-testid="memory-related">
            <h3 className="memory-detail__section">Related (shares tags with the best matches)</h3>
            <ul className="memory-list">{relatedShown.map((fact) => row(fact, "memory-related"))}</ul>
          </section>
        )}
      </div>
      {selected && <FactDetailPanel key={selected} id={selected} teams={teams} agents={agents} onClose={() => setSelected(null)} />}
    </div>
  );
}
