// How budgets read: figures in tokens or dollars, the share spent, and the amounts the editor
// takes (dollars typed, micro-dollars stored). Pure, so the words are tested once.
import type { Budget, BudgetPeriod, BudgetUnit } from "../../bindings";

export const PERIOD_LABELS: Record<BudgetPeriod, string> = { day: "Daily", month: "Monthly" };
export const PERIOD_NOW: Record<BudgetPeriod, string> = { day: "today", month: "this month" };

/** "12,345 tokens", "$1.50". */
export function figure(unit: BudgetUnit, amount: number): string {
  if (unit === "tokens") {
    const n = Math.round(amount);
    return `${n.toLocaleString("en-US")} ${n === 1 ? "token" : "tokens"}`;
  }
  return `$${(amount / 1_000_000).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** The share of a budget spent, 0 to 100 (more when over). */
export function percentSpent(budget: Pick<Budget, "spent" | "amount">): number {
  return budget.amount > 0 ? Math.floor((budget.spent * 100) / budget.amount) : 0;
}

/** What the user typed as a budget's amount, in the unit's stored form; null when it is not a
 *  positive number. Dollars may have cents; tokens are whole. */
export function parseAmount(unit: BudgetUnit, text: string): number | null {
  const value = Number(text.replace(/[,\s$]/g, ""));
  if (!Number.isFinite(value) || value <= 0) return null;
  return unit === "tokens" ? Math.round(value) : Math.round(value * 1_000_000);
}

/** An amount as the editor shows it to be edited. */
export function amountText(unit: BudgetUnit, amount: number): string {
  return unit === "tokens" ? String(amount) : (amount / 1_000_000).toFixed(2);
}
