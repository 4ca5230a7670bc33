//! The guards' tables (migration 26): paused scopes, budgets, and what each of their Inbox
//! requests is about. Reads tables others own, only to count: `runs` (an agent's runs in the
//! last hour), `handoffs` (a room's in the last ten minutes), `routine_runs` to find the routine
//! a run belongs to, and the spend's per-day totals (`clawboo_spend::totals`), which budgets are
//! checked against: one count of every dollar and token, kept as usage is recorded.

use rusqlite::{params, Connection, OptionalExtension};

use clawboo_spend::{Date, SpendScope};

use super::budgets::{period_days, Budget, BudgetInput, BudgetPeriod, BudgetScope, BudgetUnit};
use super::{Breaker, PausedScope, ScopeKind};
use crate::error::{Error, Result};

/// The scope currently paused among `scopes`, if any (the first found).
pub fn paused_among(conn: &Connection, scopes: &[(ScopeKind, &str)]) -> Result<Option<PausedScope>> {
    let mut statement = conn.prepare_cached(
        "SELECT breaker, reason, paused_at, request_id FROM paused_scopes
         WHERE scope_kind = ?1 AND scope_id = ?2 AND resumed_at IS NULL",
    )?;
    for (kind, id) in scopes {
        let found = statement
            .query_row(params![kind.as_str(), id], |r| {
                Ok(PausedScope {
                    scope: *kind,
                    scope_id: (*id).to_owned(),
                    breaker: Breaker::parse(&r.get::<_, String>(0)?).unwrap_or(Breaker::RunsPerHour),
                    reason: r.get(1)?,
                    paused_at: r.get(2)?,
                    request_id: r.get(3)?,
                })
            })
            .optional()?;
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// When the scope was last resumed after a pause (its breaker counts from then on).
pub fn resumed_at(conn: &Connection, kind: ScopeKind, id: &str) -> Result<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT resumed_at FROM paused_scopes WHERE scope_kind = ?1 AND scope_id = ?2")?
        .query_row(params![kind.as_str(), id], |r| r.get::<_, Option<i64>>(0))
        .optional()?
        .flatten())
}

pub fn pause(conn: &Connection, scope: &PausedScope) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO paused_scopes (scope_kind, scope_id, breaker, reason, paused_at, request_id, resumed_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL)
         ON CONFLICT (scope_kind, scope_id) DO UPDATE SET breaker = excluded.breaker, reason = excluded.reason,
             paused_at = excluded.paused_at, request_id = excluded.request_id, resumed_at = NULL",
    )?
    .execute(params![
        scope.scope.as_str(),
        scope.scope_id,
        scope.breaker.as_str(),
        scope.reason,
        scope.paused_at,
        scope.request_id
    ])?;
    Ok(())
}

pub fn set_pause_request(conn: &Connection, kind: ScopeKind, id: &str, request_id: &str) -> Result<()> {
    conn.prepare_cached("UPDATE paused_scopes SET request_id = ?3 WHERE scope_kind = ?1 AND scope_id = ?2")?
        .execute(params![kind.as_str(), id, request_id])?;
    Ok(())
}

/// Resumes a paused scope; false when it was not paused.
pub fn resume(conn: &Connection, kind: ScopeKind, id: &str, now: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "UPDATE paused_scopes SET resumed_at = ?3 WHERE scope_kind = ?1 AND scope_id = ?2 AND resumed_at IS NULL",
        )?
        .execute(params![kind.as_str(), id, now])?
        == 1)
}

/// Every scope paused now, newest first.
pub fn paused(conn: &Connection) -> Result<Vec<PausedScope>> {
    let mut statement = conn.prepare_cached(
        "SELECT scope_kind, scope_id, breaker, reason, paused_at, request_id FROM paused_scopes
         WHERE resumed_at IS NULL ORDER BY paused_at DESC",
    )?;
    let rows = statement.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, i64>(4)?,
            r.get::<_, Option<String>>(5)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (kind, scope_id, breaker, reason, paused_at, request_id) = row?;
        out.push(PausedScope {
            scope: ScopeKind::parse(&kind).unwrap_or(ScopeKind::Agent),
            scope_id,
            breaker: Breaker::parse(&breaker).unwrap_or(Breaker::RunsPerHour),
            reason,
            paused_at,
            request_id,
        });
    }
    Ok(out)
}

/// A paused routine: its id, name, why, when it was last changed, and the open Inbox request
/// that offers to resume it (a routine that paused itself; none when the user paused it).
pub type PausedRoutine = (String, String, Option<String>, i64, Option<String>);

/// The routines paused now (by their own failures-in-a-row rule or by the user), shown beside
/// the scopes the breakers paused.
pub fn paused_routines(conn: &Connection) -> Result<Vec<PausedRoutine>> {
    let mut statement = conn.prepare_cached(
        "SELECT r.id, r.name, r.paused_reason, r.updated_at,
                (SELECT q.request_id FROM routine_requests q JOIN attention_requests a ON a.id = q.request_id
                 WHERE q.routine_id = r.id AND q.kind = 'paused' AND a.status = 'open'
                 ORDER BY q.created_at DESC LIMIT 1)
         FROM routines r WHERE r.state = 'paused' ORDER BY r.updated_at DESC",
    )?;
    let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// How many runs the agent started since `since` (ms).
pub fn runs_since(conn: &Connection, agent_id: &str, since: i64) -> Result<u32> {
    Ok(conn
        .prepare_cached("SELECT COUNT(*) FROM runs WHERE agent_id = ?1 AND started_at > ?2")?
        .query_row(params![agent_id, since], |r| r.get(0))?)
}

/// How many hand-offs were made in the room since `since` (ms).
pub fn handoffs_since(conn: &Connection, room_id: &str, since: i64) -> Result<u32> {
    Ok(conn
        .prepare_cached("SELECT COUNT(*) FROM handoffs WHERE room_id = ?1 AND created_at > ?2")?
        .query_row(params![room_id, since], |r| r.get(0))?)
}

/// The routine a run belongs to: a team routine's run (linked by its run), or a routine's card
/// (every run of that card). None for anything else.
pub fn routine_of_run(conn: &Connection, run_id: &str, card_id: Option<&str>) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached(
            "SELECT routine_id FROM routine_runs WHERE run_id = ?1 OR (?2 IS NOT NULL AND card_id = ?2)
             ORDER BY started_at DESC LIMIT 1",
        )?
        .query_row(params![run_id, card_id], |r| r.get(0))
        .optional()?)
}

/// The routine a team routine's message belongs to, by its routine run.
pub fn routine_of_routine_run(conn: &Connection, routine_run_id: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT routine_id FROM routine_runs WHERE id = ?1")?
        .query_row([routine_run_id], |r| r.get(0))
        .optional()?)
}

/// What the scope spent from `from` to `to` (local days, both included), in `unit`: tokens of
/// every kind and billing, or the micro-dollars of priced model calls.
pub fn spent(conn: &Connection, scope: BudgetScope, id: &str, from: Date, to: Date, unit: BudgetUnit) -> Result<u64> {
    let of = match scope {
        BudgetScope::Overall => SpendScope::All,
        BudgetScope::Agent => SpendScope::Agent(id.to_owned()),
        BudgetScope::Team => SpendScope::Team(id.to_owned()),
        BudgetScope::Routine => SpendScope::Routine(id.to_owned()),
    };
    let totals = clawboo_spend::totals(conn, &of, from, to)?;
    Ok(match unit {
        BudgetUnit::Tokens => totals.tokens(),
        BudgetUnit::Usd => u64::try_from(totals.cost_micros).unwrap_or(0),
    })
}

/// A stored budget and its once-per-period marks.
pub struct StoredBudget {
    pub budget: Budget,
    pub warned_period: Option<i64>,
    pub reached_period: Option<i64>,
}

const BUDGET_COLUMNS: &str = "scope_kind, scope_id, period, unit, amount, allowed_until, warned_period, reached_period";

/// A budget's row as stored: scope kind and id, period, unit, amount, allowed until, and the
/// periods its 80% and 100% notices were raised for.
type BudgetRow = (String, String, String, String, i64, Option<i64>, Option<i64>, Option<i64>);

fn budget_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<BudgetRow> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?))
}

/// Budgets of the given scopes (or every budget, for `None`), each with what its period spent
/// up to local day `today`.
pub fn budgets(conn: &Connection, scopes: Option<&[(BudgetScope, &str)]>, today: Date) -> Result<Vec<StoredBudget>> {
    let mut rows = Vec::new();
    match scopes {
        None => {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {BUDGET_COLUMNS} FROM budgets ORDER BY scope_kind, scope_id, period"
            ))?;
            for row in statement.query_map([], budget_row)? {
                rows.push(row?);
            }
        }
        Some(scopes) => {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {BUDGET_COLUMNS} FROM budgets WHERE scope_kind = ?1 AND scope_id = ?2"
            ))?;
            for (kind, id) in scopes {
                for row in statement.query_map(params![kind.as_str(), id], budget_row)? {
                    rows.push(row?);
                }
            }
        }
    }
    let mut out = Vec::with_capacity(rows.len());
    for (kind, scope_id, period, unit, amount, allowed_until, warned_period, reached_period) in rows {
        let (Some(scope), Some(period), Some(unit)) =
            (BudgetScope::parse(&kind), BudgetPeriod::parse(&period), BudgetUnit::parse(&unit))
        else {
            return Err(Error::Internal(format!("a budget stored as {kind}/{period}/{unit}")));
        };
        let (from, to, _) = period_days(period, today);
        let spent = spent(conn, scope, &scope_id, from, to, unit)?;
        out.push(StoredBudget {
            budget: Budget {
                scope,
                scope_id,
                period,
                unit,
                amount: u64::try_from(amount).unwrap_or(0),
                spent,
                allowed_until,
            },
            warned_period,
            reached_period,
        });
    }
    Ok(out)
}

/// Sets a budget (a new figure clears an earlier "allow until tomorrow" and the notices, which
/// are raised again at the new figure's 80% and 100%).
pub fn set_budget(conn: &Connection, input: &BudgetInput, now: i64) -> Result<()> {
    conn.prepare_cached("INSERT INTO budgets (scope_kind, scope_id, period, unit, amount, allowed_until, warned_period, reached_period, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, NULL, NULL, NULL, ?6)
         ON CONFLICT (scope_kind, scope_id, period) DO UPDATE SET unit = excluded.unit, amount = excluded.amount,
             allowed_until = NULL, warned_period = NULL, reached_period = NULL, updated_at = excluded.updated_at")?.execute(params![input.scope.as_str(), input.scope_id, input.period.as_str(), input.unit.as_str(), to_i64(input.amount), now])?;
    Ok(())
}

pub fn remove_budget(conn: &Connection, scope: BudgetScope, id: &str, period: BudgetPeriod) -> Result<bool> {
    Ok(conn
        .prepare_cached("DELETE FROM budgets WHERE scope_kind = ?1 AND scope_id = ?2 AND period = ?3")?
        .execute(params![scope.as_str(), id, period.as_str()])?
        == 1)
}

pub fn mark_warned(conn: &Connection, budget: &Budget, period_number: i64) -> Result<()> {
    mark(conn, budget, "warned_period", period_number)
}

pub fn mark_reached(conn: &Connection, budget: &Budget, period_number: i64) -> Result<()> {
    mark(conn, budget, "reached_period", period_number)
}

fn mark(conn: &Connection, budget: &Budget, column: &str, period_number: i64) -> Result<()> {
    conn.prepare_cached(&format!(
        "UPDATE budgets SET {column} = ?4 WHERE scope_kind = ?1 AND scope_id = ?2 AND period = ?3"
    ))?
    .execute(params![budget.scope.as_str(), budget.scope_id, budget.period.as_str(), period_number])?;
    Ok(())
}

pub fn allow_until(conn: &Connection, scope: BudgetScope, id: &str, period: BudgetPeriod, until: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "UPDATE budgets SET allowed_until = ?4 WHERE scope_kind = ?1 AND scope_id = ?2 AND period = ?3",
        )?
        .execute(params![scope.as_str(), id, period.as_str(), until])?
        == 1)
}

/// What a guard's Inbox request is about.
pub struct GuardRequest {
    pub kind: String,
    pub scope_kind: String,
    pub scope_id: String,
    pub period: Option<String>,
}

pub fn insert_request(conn: &Connection, request_id: &str, about: &GuardRequest) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO guard_requests (request_id, kind, scope_kind, scope_id, period) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![request_id, about.kind, about.scope_kind, about.scope_id, about.period])?;
    Ok(())
}

pub fn request(conn: &Connection, request_id: &str) -> Result<Option<GuardRequest>> {
    Ok(conn
        .query_row(
            "SELECT kind, scope_kind, scope_id, period FROM guard_requests WHERE request_id = ?1",
            [request_id],
            |r| Ok(GuardRequest { kind: r.get(0)?, scope_kind: r.get(1)?, scope_id: r.get(2)?, period: r.get(3)? }),
        )
        .optional()?)
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
