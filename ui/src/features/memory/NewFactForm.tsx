import { useState, type FormEvent } from "react";
import type { Agent, Fact, Team } from "../../bindings";
import { errorMessage } from "../../errors";
import { useSaveFact } from "./memoryQueries";
import { MAX_FACT_CHARS, parseTags, scopeFromKey } from "./memoryLabels";
import { ErrorMessage } from "../../components/ErrorMessage";
import { CharCounter, charCount } from "../../components/CharCounter";
import { ScopeOptions } from "./ScopeOptions";

type Props = {
  teams: Team[];
  agents: Agent[];
  /** The saved fact, or the one that already had this text in this scope. */
  onSaved: (fact: Fact, existing: boolean) => void;
  onCancel: () => void;
};

/** A fact by the user. The engine's refusal (a secret, too long) shows here and keeps the text. */
export function NewFactForm({ teams, agents, onSaved, onCancel }: Props) {
  const [text, setText] = useState("");
  const [scope, setScope] = useState("global");
  const [tags, setTags] = useState("");
  const save = useSaveFact();
  const [problem, setProblem] = useState<string | null>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!text.trim()) {
      setProblem("Write the fact first.");
      return;
    }
    setProblem(null);
    const input = { text, scope: scopeFromKey(scope) ?? { kind: "global" as const }, tags: parseTags(tags) };
    save.mutate(input, { onSuccess: ({ fact, existing }) => onSaved(fact, existing) });
  };

  return (
    <form className="card memory-new" onSubmit={submit} data-testid="memory-new-form">
      <h2 className="card__title">New fact</h2>
      <label className="field">
        <span className="field__label">Text</span>
        <textarea
          value={text}
          onChange={(e) => setText(e.target.value)}
          rows={3}
          placeholder="Something every agent in this scope should know"
          data-testid="memory-new-text"
          data-autofocus
        />
        <CharCounter count={charCount(text.trim())} max={MAX_FACT_CHARS} />
      </label>
      <div className="memory-new__row">
        <label className="field">
          <span className="field__label">Who can read it</span>
          <select value={scope} onChange={(e) => setScope(e.target.value)} data-testid="memory-new-scope">
            <ScopeOptions teams={teams} agents={agents} />
          </select>
        </label>
        <label className="field">
          <span className="field__label">Tags (comma-separated)</span>
          <input value={tags} onChange={(e) => setTags(e.target.value)} data-testid="memory-new-tags" />
        </label>
      </div>
      <ErrorMessage message={problem ?? (save.error ? errorMessage(save.error) : null)} />
      <div className="memory-new__actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button--primary" disabled={save.isPending} data-testid="memory-new-save">
          {save.isPending ? "Saving…" : "Save fact"}
        </button>
      </div>
    </form>
  );
}
