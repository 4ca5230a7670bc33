//! Totals from the per-day table: per scope ([`totals`], what budgets are checked against), per
//! day and agent or team (the Spend page's chart, [`by_day`]), and the top spenders ([`top`]).

use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection};
use serde::{Deserialize, Serialize};

use super::Date;
use clawboo_vocab::error::Result;

/// What a total is of. Named `SpendScope` for the UI's bindings (memory has a `Scope`);
/// [`Scope`] is the name Rust callers use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum SpendScope {
    All,
    Agent(String),
    Team(String),
    Routine(String),
    Card(String),
}

/// What a total is of: all, or one agent, team, routine or card.
pub type Scope = SpendScope;

impl SpendScope {
    /// The `spend_days` column a scope is kept under (`None`: every row).
    fn column(&self) -> Option<(&'static str, &str)> {
        match self {
            Scope::All => None,
            Scope::Agent(id) => Some(("agent_id", id)),
            Scope::Team(id) => Some(("team_id", id)),
            Scope::Routine(id) => Some(("routine_id", id)),
            Scope::Card(id) => Some(("card_id", id)),
        }
    }
}

/// Tokens and money over some days.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Model calls (relayed requests) and CLI usage reports.
    pub requests: u64,
    /// Input tokens not read from the cache.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    /// Micro-USD of every priced request (0 when none was priced).
    pub cost_micros: i64,
    /// Tokens through Clawboo's keys whose model had no known price: not in `cost_micros`.
    pub unpriced_tokens: u64,
    /// Tokens on the user's own CLI sign-in ("on your subscription"): never money.
    pub subscription_tokens: u64,
}

impl Totals {
    /// Every token once.
    pub fn tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens
    }

    /// These totals and one run's.
    pub fn plus_run(mut self, run: &crate::RunSpend) -> Self {
        self.requests += run.requests;
        self.input_tokens += run.input_tokens;
        self.output_tokens += run.output_tokens;
        self.cache_read_tokens += run.cache_read_tokens;
        self.cache_write_tokens += run.cache_write_tokens;
        self.cost_micros += run.cost_micros.unwrap_or(0);
        self.unpriced_tokens += run.unpriced_tokens;
        if run.billing == crate::Billing::Subscription {
            self.subscription_tokens += run.tokens();
        }
        self
    }

    /// The share of prompt tokens read from the cache, 0..=1 (0 without prompt tokens).
    pub fn cache_read_share(&self) -> f64 {
        let prompt = self.input_tokens + self.cache_read_tokens + self.cache_write_tokens;
        if prompt == 0 {
            0.0
        } else {
            self.cache_read_tokens as f64 / prompt as f64
        }
    }
}

const SUMS: &str = "COALESCE(SUM(requests), 0), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0),
     COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_write_tokens), 0), COALESCE(SUM(cost_micros), 0),
     COALESCE(SUM(unpriced_tokens), 0),
     COALESCE(SUM(CASE WHEN billing = 'subscription'
                  THEN input_tokens + output_tokens + cache_read_tokens + cache_write_tokens ELSE 0 END), 0)";

fn totals_from(r: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Totals> {
    let n = |i: usize| r.get::<_, i64>(first + i).map(|v| v.max(0) as u64);
    Ok(Totals {
        requests: n(0)?,
        input_tokens: n(1)?,
        output_tokens: n(2)?,
        cache_read_tokens: n(3)?,
        cache_write_tokens: n(4)?,
        cost_micros: r.get(first + 5)?,
        unpriced_tokens: n(6)?,
        subscription_tokens: n(7)?,
    })
}

/// Every day's total (`spend_all_days`), summed: the same columns as [`SUMS`] gives.
const ALL_SUMS: &str = "COALESCE(SUM(requests), 0), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0),
     COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_write_tokens), 0), COALESCE(SUM(cost_micros), 0),
     COALESCE(SUM(unpriced_tokens), 0), COALESCE(SUM(subscription_tokens), 0)";

/// The spend of `scope` from `from` to `to`, both local days included. One indexed range read
/// of a per-day table (for "all", of the days' totals: a row a day): cheap enough to check
/// before every run.
pub fn totals(conn: &Connection, scope: &Scope, from: Date, to: Date) -> Result<Totals> {
    let (from, to) = (from.to_string(), to.to_string());
    let found = match scope.column() {
        None => conn
            .prepare_cached(&format!("SELECT {ALL_SUMS} FROM spend_all_days WHERE day BETWEEN ?1 AND ?2"))?
            .query_row([&from, &to], |r| totals_from(r, 0))?,
        Some((column, id)) => conn
            .prepare_cached(&format!("SELECT {SUMS} FROM spend_days WHERE {column} = ?1 AND day BETWEEN ?2 AND ?3"))?
            .query_row([id, &from, &to], |r| totals_from(r, 0))?,
    };
    Ok(found)
}

/// What the Spend page narrows to (every set field must match).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SpendFilter {
    pub runtime: Option<String>,
    pub agent_id: Option<String>,
    pub team_id: Option<String>,
}

impl SpendFilter {
    /// ` AND …` clauses and their values, after the values already bound.
    pub(crate) fn clauses(&self, values: &mut Vec<Value>) -> String {
        let mut sql = String::new();
        for (column, value) in [("runtime", &self.runtime), ("agent_id", &self.agent_id), ("team_id", &self.team_id)] {
            if let Some(value) = value {
                values.push(Value::Text(value.clone()));
                sql.push_str(&format!(" AND {column} = ?{}", values.len()));
            }
        }
        sql
    }
}

/// What the chart stacks by, and the top lists rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    Agent,
    Team,
    Routine,
}

impl GroupBy {
    fn column(self) -> &'static str {
        match self {
            GroupBy::Agent => "agent_id",
            GroupBy::Team => "team_id",
            GroupBy::Routine => "routine_id",
        }
    }
}

/// One bar segment: a day and one agent's (or team's) spend in it. `key` is "" for none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DaySpend {
    pub day: String,
    pub key: String,
    pub totals: Totals,
}

/// Spend per day and group, oldest first.
pub fn by_day(conn: &Connection, from: Date, to: Date, group: GroupBy, filter: &SpendFilter) -> Result<Vec<DaySpend>> {
    let mut values = vec![Value::Text(from.to_string()), Value::Text(to.to_string())];
    let clauses = filter.clauses(&mut values);
    let column = group.column();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT day, {column}, {SUMS} FROM spend_days WHERE day BETWEEN ?1 AND ?2{clauses}
         GROUP BY day, {column} ORDER BY day, {column}"
    ))?;
    let rows = stmt.query_map(params_from_iter(values), |r| {
        Ok(DaySpend { day: r.get(0)?, key: r.get(1)?, totals: totals_from(r, 2)? })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One of the top spenders.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TopSpend {
    pub key: String,
    pub totals: Totals,
}

/// The `limit` biggest spenders by `group` (money first, then tokens); "none" is left out.
pub fn top(
    conn: &Connection,
    from: Date,
    to: Date,
    group: GroupBy,
    filter: &SpendFilter,
    limit: u32,
) -> Result<Vec<TopSpend>> {
    let mut values = vec![Value::Text(from.to_string()), Value::Text(to.to_string())];
    let clauses = filter.clauses(&mut values);
    let column = group.column();
    values.push(Value::Integer(i64::from(limit)));
    let limit_at = values.len();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {column}, {SUMS} FROM spend_days WHERE day BETWEEN ?1 AND ?2 AND {column} != ''{clauses}
         GROUP BY {column}
         ORDER BY COALESCE(SUM(cost_micros), 0) DESC,
                  SUM(input_tokens + output_tokens + cache_read_tokens + cache_write_tokens) DESC, {column}
         LIMIT ?{limit_at}"
    ))?;
    let rows =
        stmt.query_map(params_from_iter(values), |r| Ok(TopSpend { key: r.get(0)?, totals: totals_from(r, 1)? }))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Totals over days, narrowed by `filter` (the Spend page's today / week / month).
pub fn filtered(conn: &Connection, from: Date, to: Date, filter: &SpendFilter) -> Result<Totals> {
    let mut values = vec![Value::Text(from.to_string()), Value::Text(to.to_string())];
    let clauses = filter.clauses(&mut values);
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {SUMS} FROM spend_days WHERE day BETWEEN ?1 AND ?2{clauses}"))?;
    Ok(stmt.query_row(params_from_iter(values), |r| totals_from(r, 0))?)
}
