//! Budgets as the user sets them and as they are read: per agent, team, routine or overall, per
//! local day or month, in tokens or money; and the periods they count over — the same local
//! days the spend is kept by (`clawboo_spend::day_of`), so a budget and the Spend page agree.

use clawboo_spend::{day_of, day_start_ms, Date};
use serde::{Deserialize, Serialize};

/// Whose spend a budget caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum BudgetScope {
    /// Every run.
    Overall,
    Agent,
    Team,
    Routine,
}

impl BudgetScope {
    pub fn as_str(self) -> &'static str {
        match self {
            BudgetScope::Overall => "overall",
            BudgetScope::Agent => "agent",
            BudgetScope::Team => "team",
            BudgetScope::Routine => "routine",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [BudgetScope::Overall, BudgetScope::Agent, BudgetScope::Team, BudgetScope::Routine]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum BudgetPeriod {
    /// The local day.
    Day,
    /// The local calendar month.
    Month,
}

impl BudgetPeriod {
    pub fn as_str(self) -> &'static str {
        match self {
            BudgetPeriod::Day => "day",
            BudgetPeriod::Month => "month",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [BudgetPeriod::Day, BudgetPeriod::Month].into_iter().find(|k| k.as_str() == s)
    }

    /// "today" / "this month".
    pub fn now_words(self) -> &'static str {
        match self {
            BudgetPeriod::Day => "today",
            BudgetPeriod::Month => "this month",
        }
    }

    /// "daily" / "monthly".
    pub fn adjective(self) -> &'static str {
        match self {
            BudgetPeriod::Day => "daily",
            BudgetPeriod::Month => "monthly",
        }
    }
}

/// What a budget counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum BudgetUnit {
    /// Every token a model call reports: input, output, cache reads and writes — through
    /// Clawboo's keys or on the user's own CLI sign-in.
    Tokens,
    /// US dollars, counted in micro-dollars: what the priced model calls through the relay cost.
    /// Runs on the user's own sign-in cost no money here (they count toward token budgets only).
    Usd,
}

impl BudgetUnit {
    pub fn as_str(self) -> &'static str {
        match self {
            BudgetUnit::Tokens => "tokens",
            BudgetUnit::Usd => "usd",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [BudgetUnit::Tokens, BudgetUnit::Usd].into_iter().find(|k| k.as_str() == s)
    }

    /// An amount in this unit as people read it: "12,345 tokens", "$1.50".
    pub fn figure(self, amount: u64) -> String {
        match self {
            BudgetUnit::Tokens if amount == 1 => "1 token".to_owned(),
            BudgetUnit::Tokens => format!("{} tokens", thousands(amount)),
            BudgetUnit::Usd => format!("${}.{:02}", thousands(amount / 1_000_000), (amount % 1_000_000) / 10_000),
        }
    }
}

/// A budget as the user set it, with what its period has spent so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    pub scope: BudgetScope,
    /// The agent, team or routine; empty for the overall budget.
    pub scope_id: String,
    pub period: BudgetPeriod,
    pub unit: BudgetUnit,
    /// Tokens, or micro-dollars.
    pub amount: u64,
    /// Spent in the current period, in the same unit.
    pub spent: u64,
    /// Runs past the budget are allowed until then (ms; "Allow until tomorrow").
    pub allowed_until: Option<i64>,
}

impl Budget {
    /// Whether its period's spend has reached its figure and nobody allowed more for now.
    pub fn exhausted(&self, now: i64) -> bool {
        self.spent >= self.amount && self.allowed_until.is_none_or(|until| until <= now)
    }

    /// Whether its period's spend reached 80% of its figure.
    pub fn at_warning(&self) -> bool {
        self.spent.saturating_mul(100) >= self.amount.saturating_mul(WARN_PERCENT)
    }
}

/// The share of a budget at which the user is told (a notification and an Inbox line).
pub const WARN_PERCENT: u64 = 80;

/// A budget to set: `amount` in tokens or micro-dollars.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct BudgetInput {
    pub scope: BudgetScope,
    pub scope_id: String,
    pub period: BudgetPeriod,
    pub unit: BudgetUnit,
    pub amount: u64,
}

/// The local days of the period holding `today`, first and last (today: the rest has not
/// happened yet), and the period's own number, which its once-per-period notices are keyed by
/// (the day as `yyyymmdd`, or the month as `year * 12 + month - 1`).
pub fn period_days(period: BudgetPeriod, today: Date) -> (Date, Date, i64) {
    let (year, month) = (i64::from(today.year()), i64::from(today.month()));
    match period {
        BudgetPeriod::Day => (today, today, year * 10_000 + month * 100 + i64::from(today.day())),
        BudgetPeriod::Month => (today.first_of_month(), today, year * 12 + month - 1),
    }
}

/// When the period holding `today` ends (ms): the next local midnight, or the first of next
/// month's. Where a budget's Inbox line stops standing.
pub fn period_end(period: BudgetPeriod, today: Date) -> i64 {
    let last = match period {
        BudgetPeriod::Day => today,
        BudgetPeriod::Month => today.last_of_month(),
    };
    day_start_ms(last.tomorrow().unwrap_or(last))
}

/// The start of the next local day after `now` (ms): where "until tomorrow" ends.
pub fn next_day_start(now: i64) -> i64 {
    period_end(BudgetPeriod::Day, day_of(now))
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_period_is_its_local_days_up_to_today() {
        let today = jiff::civil::date(2026, 12, 5);
        assert_eq!(period_days(BudgetPeriod::Day, today), (today, today, 20_261_205));
        assert_eq!(period_days(BudgetPeriod::Month, today), (jiff::civil::date(2026, 12, 1), today, 2026 * 12 + 11));
        let new_year = day_start_ms(jiff::civil::date(2027, 1, 1));
        assert_eq!(period_end(BudgetPeriod::Month, today), new_year);
        assert_eq!(period_end(BudgetPeriod::Day, jiff::civil::date(2026, 12, 31)), new_year);
        assert_eq!(next_day_start(new_year - 1), new_year, "the last millisecond of a year");
        assert_eq!(next_day_start(new_year), day_start_ms(jiff::civil::date(2027, 1, 2)));
    }

    #[test]
    fn figures_read_as_people_write_them() {
        assert_eq!(BudgetUnit::Tokens.figure(1_234_567), "1,234,567 tokens");
        assert_eq!(BudgetUnit::Tokens.figure(12), "12 tokens");
        assert_eq!(BudgetUnit::Tokens.figure(1), "1 token");
        assert_eq!(BudgetUnit::Usd.figure(1_500_000), "$1.50");
        assert_eq!(BudgetUnit::Usd.figure(2_345_678_901), "$2,345.67");
    }

    #[test]
    fn a_budget_is_exhausted_at_its_figure_unless_allowed_for_now() {
        let mut budget = Budget {
            scope: BudgetScope::Overall,
            scope_id: String::new(),
            period: BudgetPeriod::Day,
            unit: BudgetUnit::Tokens,
            amount: 1_000,
            spent: 799,
            allowed_until: None,
        };
        assert!(!budget.at_warning() && !budget.exhausted(0));
        budget.spent = 800;
        assert!(budget.at_warning() && !budget.exhausted(0));
        budget.spent = 1_000;
        assert!(budget.exhausted(0));
        budget.allowed_until = Some(10);
        assert!(!budget.exhausted(9) && budget.exhausted(10));
    }
}
