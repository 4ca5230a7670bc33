import { useState } from "react";
import type { Budget, BudgetPeriod, BudgetScope, BudgetUnit } from "../../bindings";
import { useBudgets, useRemoveBudget, useSetBudget } from "./limitsQueries";
import { amountText, figure, parseAmount, PERIOD_LABELS, PERIOD_NOW, percentSpent } from "./budgets";
import { errorMessage } from "../../errors";
import { ErrorMessage } from "../../components/ErrorMessage";

const PERIODS: BudgetPeriod[] = ["day", "month"];

type Props = {
  scope: BudgetScope;
  /** The agent, team or routine; "" for the overall budget. */
  scopeId: string;
  /** What the budgets cap, said once above them ("Every run", "@scout's runs"). */
  what: string;
};

/** A scope's daily and monthly budgets: each set or not, what its period spent so far, and an
 *  editor (tokens or dollars). At 80% the Inbox says so; at 100% new runs there stop. */
export function BudgetEditor({ scope, scopeId, what }: Props) {
  const budgets = useBudgets();
  const mine = (budgets.data ?? []).filter((b) => b.scope === scope && b.scopeId === scopeId);
  return (
    <div className="budget-editor" data-testid={`budgets-${scope}`}>
      <p className="muted">
        {what}. At 80% the Inbox tells you; at 100% new runs stop and a run going ends after its current model
        call (nothing is lost). Days and months are your local calendar, as on the Spend page.
      </p>
      <p className="muted" data-testid="budget-subscription-note">
        Runs on your subscription count toward token budgets only: a dollar budget counts what runs through
        Clawboo&apos;s keys cost.
      </p>
      <ErrorMessage message={budgets.error ? errorMessage(budgets.error) : null} />
      <ul className="budget-list">
        {PERIODS.map((period) => (
          <BudgetRow
            key={period}
            scope={scope}
            scopeId={scopeId}
            period={period}
            budget={mine.find((b) => b.period === period) ?? null}
          />
        ))}
      </ul>
    </div>
  );
}

type RowProps = { scope: BudgetScope; scopeId: string; period: BudgetPeriod; budget: Budget | null };

function BudgetRow({ scope, scopeId, period, budget }: RowProps) {
  const save = useSetBudget();
  const remove = useRemoveBudget();
  const [editing, setEditing] = useState(false);
  const [unit, setUnit] = useState<BudgetUnit>(budget?.unit ?? "tokens");
  const [text, setText] = useState(budget ? amountText(budget.unit, budget.amount) : "");
  const amount = parseAmount(unit, text);
  const id = `budget-${scope}-${period}`;

  const start = () => {
    setUnit(budget?.unit ?? "tokens");
    setText(budget ? amountText(budget.unit, budget.amount) : "");
    save.reset();
    setEditing(true);
  };
  // Not a <form>: the editor sits inside others (the agent's profile).
  const submit = () => {
    if (amount === null) return;
    save.mutate({ scope, scopeId, period, unit, amount }, { onSuccess: () => setEditing(false) });
  };

  const percent = budget ? percentSpent(budget) : 0;
  const state = !budget ? "" : percent >= 100 ? " is-spent" : percent >= 80 ? " is-warning" : "";
  return (
    <li className={`budget-row${state}`} data-testid={id}>
      <span className="budget-row__period">{PERIOD_LABELS[period]}</span>
      {editing ? (
        <div className="budget-row__form" role="group" aria-label={`${PERIOD_LABELS[period]} budget`}>
          <label className="visually-hidden" htmlFor={`${id}-amount`}>
            {PERIOD_LABELS[period]} budget
          </label>
          <input
            id={`${id}-amount`}
            inputMode="decimal"
            value={text}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                submit();
              }
            }}
            placeholder={unit === "tokens" ? "1000000" : "5.00"}
            aria-invalid={text !== "" && amount === null}
            data-testid={`${id}-amount`}
          />
          <label className="visually-hidden" htmlFor={`${id}-unit`}>
            Unit
          </label>
          <select id={`${id}-unit`} value={unit} onChange={(e) => setUnit(e.target.value as BudgetUnit)} data-testid={`${id}-unit`}>
            <option value="tokens">tokens</option>
            <option value="usd">US dollars</option>
          </select>
          <button
            type="button"
            className="button button--small button--primary"
            onClick={submit}
            disabled={amount === null || save.isPending}
            data-testid={`${id}-save`}
          >
            Save
          </button>
          <button type="button" className="button button--small" onClick={() => setEditing(false)}>
            Cancel
          </button>
          <ErrorMessage message={save.error ? errorMessage(save.error) : null} />
        </div>
      ) : budget ? (
        <>
          <span className="budget-row__figure" data-testid={`${id}-figure`}>
            {figure(budget.unit, budget.spent)} of {figure(budget.unit, budget.amount)} {PERIOD_NOW[period]}
            {budget.allowedUntil !== null && budget.allowedUntil > Date.now() && (
              <span className="muted"> · allowed past it until tomorrow</span>
            )}
          </span>
          <span
            className="budget-meter"
            role="meter"
            aria-label={`${PERIOD_LABELS[period]} budget spent`}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Math.min(percent, 100)}
          >
            <span className="budget-meter__fill" style={{ width: `${Math.min(percent, 100)}%` }} />
          </span>
          <span className="budget-row__actions">
            <button type="button" className="button button--small" onClick={start} data-testid={`${id}-edit`}>
              {percent >= 100 ? "Raise" : "Edit"}
            </button>
            <button
              type="button"
              className="button button--small button--danger-subtle"
              onClick={() => remove.mutate({ scope, scopeId, period })}
              disabled={remove.isPending}
              data-testid={`${id}-remove`}
            >
              Remove
            </button>
          </span>
        </>
      ) : (
        <>
          <span className="muted budget-row__figure">No {period === "day" ? "daily" : "monthly"} budget</span>
          <span className="budget-row__actions">
            <button type="button" className="button button--small" onClick={start} data-testid={`${id}-set`}>
              Set a budget
            </button>
          </span>
        </>
      )}
      <ErrorMessage message={remove.error ? errorMessage(remove.error) : null} />
    </li>
  );
}
