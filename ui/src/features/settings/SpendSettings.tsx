// Settings > Spend: the price per million tokens of each model (the bundled table, dated, and the
// user's own over it), and a price for any model: a custom endpoint's, or "free" for a local model.
// A model with no price here is shown in tokens with "no price known", never a guessed cost.
import { useState, type FormEvent } from "react";
import type { Price, PriceEntry } from "../../bindings";
import { ErrorMessage } from "../../components/ErrorMessage";
import { errorMessage } from "../../errors";
import { usePrices, useRemovePrice, useSetPrice } from "../spend/spendQueries";

const PROVIDERS = [
  ["anthropic", "Anthropic"],
  ["openai", "OpenAI"],
  ["openrouter", "OpenRouter"],
  ["custom", "Custom endpoint"],
] as const;

/** Micro-dollars per million tokens as dollars, cents always shown: `3000000` → `$3.00`,
 *  `500000` → `$0.50` (not `$0.5`), `75000` → `$0.075`. */
function perMillion(micros: number): string {
  return `$${(micros / 1_000_000).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 6 })}`;
}

/** Dollars typed by the user to micro-dollars, or null when it is not a price. */
function toMicros(text: string): number | null {
  const value = Number(text.trim().replace(/^\$/, ""));
  if (text.trim() === "" || !Number.isFinite(value) || value < 0) return null;
  return Math.round(value * 1_000_000);
}

function PriceRow({ entry, onEdit, onRemove }: { entry: PriceEntry; onEdit: () => void; onRemove: () => void }) {
  const p = entry.price;
  return (
    <tr data-testid="price-row" data-model={entry.model}>
      <td>{PROVIDERS.find(([id]) => id === entry.provider)?.[1] ?? entry.provider}</td>
      <td>
        <code>{entry.model}</code>
      </td>
      {p.free ? (
        <td colSpan={4}>Free (local model)</td>
      ) : (
        <>
          <td>{perMillion(p.inputMicros)}</td>
          <td>{perMillion(p.outputMicros)}</td>
          <td>{perMillion(p.cacheWriteMicros)}</td>
          <td>{perMillion(p.cacheReadMicros)}</td>
        </>
      )}
      <td>{entry.source === "yours" ? (entry.overridesBundled ? "Yours (over bundled)" : "Yours") : "Bundled"}</td>
      <td className="price-row__actions">
        <button type="button" className="button button--small" onClick={onEdit} data-testid="price-edit">
          Edit
        </button>
        {entry.source === "yours" && (
          <button type="button" className="button button--small" onClick={onRemove} data-testid="price-remove">
            Remove
          </button>
        )}
      </td>
    </tr>
  );
}

type Draft = { provider: string; model: string; input: string; output: string; cacheWrite: string; cacheRead: string; free: boolean };
const EMPTY: Draft = { provider: "custom", model: "", input: "", output: "", cacheWrite: "", cacheRead: "", free: false };

function draftOf(entry: PriceEntry): Draft {
  const d = (m: number) => String(m / 1_000_000);
  const p = entry.price;
  return {
    provider: entry.provider,
    model: entry.model,
    input: d(p.inputMicros),
    output: d(p.outputMicros),
    cacheWrite: d(p.cacheWriteMicros),
    cacheRead: d(p.cacheReadMicros),
    free: p.free,
  };
}

export function SpendSettings() {
  const prices = usePrices();
  const setPrice = useSetPrice();
  const removePrice = useRemovePrice();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [problem, setProblem] = useState<string | null>(null);

  const save = (e: FormEvent) => {
    e.preventDefault();
    const parts = [draft.input, draft.output, draft.cacheWrite, draft.cacheRead].map(toMicros);
    if (!draft.model.trim()) return setProblem("Name the model, as the provider spells it.");
    if (!draft.free && parts.some((p) => p === null)) {
      return setProblem("Enter each price in dollars per million tokens (0 is a price), or mark the model free.");
    }
    const [inputMicros, outputMicros, cacheWriteMicros, cacheReadMicros] = parts.map((p) => p ?? 0);
    const price: Price = { inputMicros, outputMicros, cacheWriteMicros, cacheReadMicros, free: draft.free };
    setProblem(null);
    setPrice.mutate({ provider: draft.provider, model: draft.model.trim(), price }, { onSuccess: () => setDraft(EMPTY) });
  };
  const field = (key: "input" | "output" | "cacheWrite" | "cacheRead", label: string) => (
    <label className="price-form__field">
      {label}
      <input
        inputMode="decimal"
        value={draft[key]}
        disabled={draft.free}
        placeholder="$ per 1M"
        onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
        data-testid={`price-${key}`}
      />
    </label>
  );

  return (
    <section className="card" aria-label="Spend" data-testid="spend-settings">
      <h2 className="card__title">Spend</h2>
      <p className="muted">
        What each model costs, in dollars per million tokens. Runs on a key Clawboo holds are priced with these when
        each model call is recorded; runs on your own CLI sign-in show tokens, “on your subscription”. A model with no
        price here shows its tokens and “no price known”.
      </p>
      <ErrorMessage message={prices.error ? errorMessage(prices.error) : null} />
      {prices.data && (
        <p className="muted" data-testid="prices-taken">
          Bundled prices taken {prices.data.taken}. {prices.data.note}
        </p>
      )}
      <form className="price-form" onSubmit={save} data-testid="price-form">
        <label className="price-form__field">
          Provider
          <select value={draft.provider} onChange={(e) => setDraft({ ...draft, provider: e.target.value })} data-testid="price-provider">
            {PROVIDERS.map(([id, name]) => (
              <option key={id} value={id}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="price-form__field">
          Model
          <input value={draft.model} onChange={(e) => setDraft({ ...draft, model: e.target.value })} data-testid="price-model" />
        </label>
        {field("input", "Input")}
        {field("output", "Output")}
        {field("cacheWrite", "Cache write")}
        {field("cacheRead", "Cache read")}
        <label className="price-form__free">
          <input type="checkbox" checked={draft.free} onChange={(e) => setDraft({ ...draft, free: e.target.checked })} data-testid="price-free" />
          Free (a local model)
        </label>
        <button type="submit" className="button button--primary button--small" disabled={setPrice.isPending} data-testid="price-save">
          Save price
        </button>
      </form>
      <ErrorMessage message={problem ?? (setPrice.error ? errorMessage(setPrice.error) : null)} />
      <ErrorMessage message={removePrice.error ? errorMessage(removePrice.error) : null} />
      {prices.data && (
        <div className="price-table__wrap">
          <table className="price-table" data-testid="price-table">
            <thead>
              <tr>
                <th>Provider</th>
                <th>Model</th>
                <th>Input</th>
                <th>Output</th>
                <th>Cache write</th>
                <th>Cache read</th>
                <th>Price from</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {prices.data.entries.map((entry) => (
                <PriceRow
                  key={`${entry.provider}/${entry.model}`}
                  entry={entry}
                  onEdit={() => setDraft(draftOf(entry))}
                  onRemove={() => removePrice.mutate({ provider: entry.provider, model: entry.model })}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
