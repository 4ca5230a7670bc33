//! Spend per run (`run_spend`): what the Activity card, a run's JSON and the Spend page's CSV
//! show.

use rusqlite::types::Value;
use rusqlite::{params_from_iter, Connection, OptionalExtension};
use serde::Serialize;

use super::totals::SpendFilter;
use super::{Billing, Date};
use clawboo_vocab::error::Result;

/// One run's spend. `cost_micros` is `None` when nothing of it was priced (see `billing` for
/// why: a subscription, or no known price).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunSpend {
    pub run_id: String,
    /// The local day its first usage was counted.
    pub day: String,
    /// Unix ms of its first counted usage.
    pub at: i64,
    pub agent_id: String,
    pub team_id: String,
    pub routine_id: String,
    pub card_id: String,
    pub runtime: String,
    pub provider: String,
    pub model: String,
    pub billing: Billing,
    pub requests: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    pub cost_micros: Option<i64>,
    pub unpriced_tokens: u64,
}

impl RunSpend {
    pub fn tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens
    }
}

const COLUMNS: &str = "run_id, day, at, agent_id, team_id, routine_id, card_id, runtime, provider, model, billing,
     requests, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_micros, unpriced_tokens";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunSpend> {
    let n = |i: usize| r.get::<_, i64>(i).map(|v| v.max(0) as u64);
    Ok(RunSpend {
        run_id: r.get(0)?,
        day: r.get(1)?,
        at: r.get(2)?,
        agent_id: r.get(3)?,
        team_id: r.get(4)?,
        routine_id: r.get(5)?,
        card_id: r.get(6)?,
        runtime: r.get(7)?,
        provider: r.get(8)?,
        model: r.get(9)?,
        billing: Billing::parse(&r.get::<_, String>(10)?),
        requests: n(11)?,
        input_tokens: n(12)?,
        output_tokens: n(13)?,
        cache_read_tokens: n(14)?,
        cache_write_tokens: n(15)?,
        cost_micros: r.get(16)?,
        unpriced_tokens: n(17)?,
    })
}

/// Run `run_id`'s spend; `None` before any usage of it was counted.
pub fn run_spend(conn: &Connection, run_id: &str) -> Result<Option<RunSpend>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM run_spend WHERE run_id = ?1"))?;
    Ok(stmt.query_row([run_id], from_row).optional()?)
}

/// The spend of several runs at once (a list of runs); runs without any are left out.
pub fn runs_spend(conn: &Connection, run_ids: &[String]) -> Result<Vec<RunSpend>> {
    let mut out = Vec::with_capacity(run_ids.len());
    for id in run_ids {
        out.extend(run_spend(conn, id)?);
    }
    Ok(out)
}

/// The runs first counted from `from` to `to` (local days, included), oldest first: the rows
/// behind the Spend page, for its CSV.
pub fn runs_between(conn: &Connection, from: Date, to: Date, filter: &SpendFilter) -> Result<Vec<RunSpend>> {
    let mut values = vec![Value::Text(from.to_string()), Value::Text(to.to_string())];
    let clauses = filter.clauses(&mut values);
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM run_spend WHERE day BETWEEN ?1 AND ?2{clauses} ORDER BY at, run_id"
    ))?;
    let rows = stmt.query_map(params_from_iter(values), from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The summed spend of every run of card `card_id` (its runs, fix rounds and hand-offs).
pub fn card_runs(conn: &Connection, card_id: &str) -> Result<Vec<RunSpend>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM run_spend WHERE card_id = ?1 ORDER BY at"))?;
    let rows = stmt.query_map([card_id], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
