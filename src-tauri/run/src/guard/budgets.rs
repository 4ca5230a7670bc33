//! Budgets as the user sets them and as they are read: per agent, team, routine or overall, per
//! day or month (UTC), in tokens or money; and the periods they count over.

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
    /// The UTC day.
    Day,
    /// The UTC calendar month.
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
    /// Every token a model call reports: input, output, cache reads and writes.
    Tokens,
    /// US dollars, counted in micro-dollars, from the cost a runtime reports with its usage.
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

const DAY_MS: i64 = 86_400_000;

/// The UTC day number of `ms` (days since 1970-01-01).
pub fn day_of(ms: i64) -> i64 {
    ms.div_euclid(DAY_MS)
}

/// The start of the next UTC day after `ms`, in ms: where "until tomorrow" ends.
pub fn next_day_start(ms: i64) -> i64 {
    (day_of(ms) + 1) * DAY_MS
}

/// The first day of the period holding `day`, and the period's own number (the day itself, or
/// the month as `year * 12 + month - 1`) that its once-per-period notices are keyed by.
pub fn period_start(period: BudgetPeriod, day: i64) -> (i64, i64) {
    match period {
        BudgetPeriod::Day => (day, day),
        BudgetPeriod::Month => {
            let (year, month, date) = civil_from_days(day);
            (day - (date - 1), year * 12 + (month - 1))
        }
    }
}

/// The proleptic Gregorian (year, month, day) of a day number (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let date = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, date)
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
    fn a_month_starts_on_its_first_day() {
        // 2026-12-05 is day 20_792; December 2026 began on day 20_788.
        assert_eq!(civil_from_days(20_792), (2026, 12, 5));
        assert_eq!(period_start(BudgetPeriod::Month, 20_792), (20_788, 2026 * 12 + 11));
        assert_eq!(period_start(BudgetPeriod::Day, 20_792), (20_792, 20_792));
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn figures_read_as_people_write_them() {
        assert_eq!(BudgetUnit::Tokens.figure(1_234_567), "1,234,567 tokens");
        assert_eq!(BudgetUnit::Tokens.figure(12), "12 tokens");
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
