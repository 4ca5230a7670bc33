//! The routines' rows: routines, their runs, and the attention requests about them.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::schedule::{self, Schedule};
use super::types::*;
use clawboo_vocab::error::{Error, Result};

const ROUTINE_COLUMNS: &str = "r.id, r.name, r.agent_id, r.team_id, r.prompt, r.schedule, r.heartbeat, r.state, \
     r.paused_reason, r.created_by, r.creator_agent_id, r.approval_id, r.next_fire_at, r.retry_at, \
     r.consecutive_failures, r.created_at, r.updated_at, COALESCE(a.name, t.name, ''), r.reports_to_team_id";

const ROUTINE_FROM: &str = "routines r LEFT JOIN agents a ON a.id = r.agent_id LEFT JOIN teams t ON t.id = r.team_id";

const RUN_COLUMNS: &str =
    "rr.id, rr.routine_id, rr.scheduled_for, rr.started_at, rr.ended_at, rr.outcome, rr.trigger, \
     rr.missed, rr.card_id, c.number, rr.team_id, rr.room_id, rr.run_id, rr.note";

const RUN_FROM: &str = "routine_runs rr LEFT JOIN cards c ON c.id = rr.card_id";

fn routine_row(r: &Row) -> rusqlite::Result<Routine> {
    let schedule: String = r.get(5)?;
    let schedule: Schedule = serde_json::from_str(&schedule)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(5, rusqlite::types::Type::Text, Box::new(e)))?;
    let created_by: String = r.get(9)?;
    Ok(Routine {
        id: r.get(0)?,
        name: r.get(1)?,
        agent_id: r.get(2)?,
        team_id: r.get(3)?,
        prompt: r.get(4)?,
        schedule_text: schedule::describe(&schedule),
        schedule,
        heartbeat: r.get(6)?,
        state: RoutineState::parse(&r.get::<_, String>(7)?),
        paused_reason: r.get(8)?,
        created_by: if created_by == "agent" { CreatedBy::Agent } else { CreatedBy::User },
        creator_agent_id: r.get(10)?,
        approval_id: r.get(11)?,
        next_fire_at: r.get(12)?,
        retry_at: r.get(13)?,
        consecutive_failures: r.get(14)?,
        created_at: r.get(15)?,
        updated_at: r.get(16)?,
        owner_name: r.get(17)?,
        reports_to_team_id: r.get(18)?,
        last_run: None,
    })
}

fn run_row(r: &Row) -> rusqlite::Result<RoutineRun> {
    let trigger = RunTrigger::parse(&r.get::<_, String>(6)?);
    Ok(RoutineRun {
        id: r.get(0)?,
        routine_id: r.get(1)?,
        scheduled_for: r.get(2)?,
        started_at: r.get(3)?,
        ended_at: r.get(4)?,
        outcome: RoutineOutcome::parse(&r.get::<_, String>(5)?),
        catch_up: trigger == RunTrigger::CatchUp,
        trigger,
        missed: r.get(7)?,
        card_id: r.get(8)?,
        card_number: r.get(9)?,
        team_id: r.get(10)?,
        room_id: r.get(11)?,
        run_id: r.get(12)?,
        note: r.get(13)?,
    })
}

pub(crate) struct NewRoutine<'a> {
    pub id: &'a str,
    pub input: &'a RoutineInput,
    pub created_by: CreatedBy,
    pub creator_agent_id: Option<&'a str>,
    pub approval_id: Option<&'a str>,
    pub next_fire_at: Option<i64>,
    pub now: i64,
}

pub(crate) fn insert(conn: &Connection, new: &NewRoutine) -> Result<()> {
    let schedule = serde_json::to_string(&new.input.schedule).map_err(|e| Error::Internal(e.to_string()))?;
    conn.execute(
        "INSERT INTO routines (id, name, agent_id, team_id, prompt, schedule, heartbeat, state, created_by, \
         creator_agent_id, approval_id, next_fire_at, created_at, updated_at, reports_to_team_id) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'active', ?8, ?9, ?10, ?11, ?12, ?12, ?13)",
        params![
            new.id,
            new.input.name,
            new.input.agent_id,
            new.input.team_id,
            new.input.prompt,
            schedule,
            new.input.heartbeat,
            if new.created_by == CreatedBy::Agent { "agent" } else { "user" },
            new.creator_agent_id,
            new.approval_id,
            new.next_fire_at,
            new.now,
            new.input.reports_to_team_id,
        ],
    )?;
    Ok(())
}

/// Writes what the user may edit; the schedule's next slot starts over.
pub(crate) fn update(
    conn: &Connection,
    id: &str,
    input: &RoutineInput,
    next_fire_at: Option<i64>,
    now: i64,
) -> Result<()> {
    let schedule = serde_json::to_string(&input.schedule).map_err(|e| Error::Internal(e.to_string()))?;
    let changed = conn.execute(
        "UPDATE routines SET name = ?2, agent_id = ?3, team_id = ?4, prompt = ?5, schedule = ?6, heartbeat = ?7, \
         next_fire_at = CASE WHEN state = 'active' THEN ?8 ELSE NULL END, retry_at = NULL, updated_at = ?9, \
         reports_to_team_id = ?10 WHERE id = ?1",
        params![
            id,
            input.name,
            input.agent_id,
            input.team_id,
            input.prompt,
            schedule,
            input.heartbeat,
            next_fire_at,
            now,
            input.reports_to_team_id
        ],
    )?;
    if changed == 0 {
        return Err(Error::NotFound(format!("Routine {id}")));
    }
    Ok(())
}

pub(crate) fn get(conn: &Connection, id: &str) -> Result<Routine> {
    let sql = format!("SELECT {ROUTINE_COLUMNS} FROM {ROUTINE_FROM} WHERE r.id = ?1");
    let mut routine =
        conn.query_row(&sql, [id], routine_row).optional()?.ok_or_else(|| Error::NotFound(format!("Routine {id}")))?;
    routine.last_run = runs(conn, id, 1)?.pop();
    Ok(routine)
}

/// Every routine, by name.
pub(crate) fn list(conn: &Connection) -> Result<Vec<Routine>> {
    let sql = format!("SELECT {ROUTINE_COLUMNS} FROM {ROUTINE_FROM} ORDER BY r.name COLLATE NOCASE, r.created_at");
    let mut stmt = conn.prepare(&sql)?;
    let mut routines = stmt.query_map([], routine_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    for routine in &mut routines {
        routine.last_run = runs(conn, &routine.id, 1)?.pop();
    }
    Ok(routines)
}

/// Active routines with a slot or a retry due at `now`.
pub(crate) fn due(conn: &Connection, now: i64) -> Result<Vec<Routine>> {
    let sql = format!(
        "SELECT {ROUTINE_COLUMNS} FROM {ROUTINE_FROM} WHERE r.state = 'active' \
         AND (r.next_fire_at <= ?1 OR r.retry_at <= ?1) ORDER BY MIN(COALESCE(r.next_fire_at, ?1), COALESCE(r.retry_at, ?1)), r.id"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([now], routine_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The earliest time any active routine is due (a slot or a retry).
pub(crate) fn earliest_due(conn: &Connection) -> Result<Option<i64>> {
    Ok(conn.query_row(
        "SELECT MIN(MIN(COALESCE(next_fire_at, retry_at), COALESCE(retry_at, next_fire_at))) FROM routines \
         WHERE state = 'active'",
        [],
        |r| r.get(0),
    )?)
}

/// Whether any routine is active (it will run on its own) or has a run going.
pub(crate) fn any_active(conn: &Connection) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM routines WHERE state = 'active' AND (next_fire_at IS NOT NULL OR retry_at IS NOT NULL)) \
         OR EXISTS (SELECT 1 FROM routine_runs WHERE outcome = 'running')",
        [],
        |r| r.get(0),
    )?)
}

pub(crate) fn set_slots(
    conn: &Connection,
    id: &str,
    next_fire_at: Option<i64>,
    retry_at: Option<i64>,
    now: i64,
) -> Result<()> {
    conn.execute(
        "UPDATE routines SET next_fire_at = ?2, retry_at = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, next_fire_at, retry_at, now],
    )?;
    Ok(())
}

pub(crate) fn set_failures(conn: &Connection, id: &str, failures: u32, retry_at: Option<i64>, now: i64) -> Result<()> {
    conn.execute(
        "UPDATE routines SET consecutive_failures = ?2, retry_at = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, failures, retry_at, now],
    )?;
    Ok(())
}

pub(crate) fn pause(conn: &Connection, id: &str, reason: Option<&str>, now: i64) -> Result<()> {
    conn.execute(
        "UPDATE routines SET state = 'paused', paused_reason = ?2, next_fire_at = NULL, retry_at = NULL, \
         updated_at = ?3 WHERE id = ?1",
        params![id, reason, now],
    )?;
    Ok(())
}

pub(crate) fn resume(conn: &Connection, id: &str, next_fire_at: Option<i64>, now: i64) -> Result<()> {
    conn.execute(
        "UPDATE routines SET state = 'active', paused_reason = NULL, consecutive_failures = 0, retry_at = NULL, \
         next_fire_at = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, next_fire_at, now],
    )?;
    Ok(())
}

pub(crate) fn delete(conn: &Connection, id: &str) -> Result<bool> {
    Ok(conn.execute("DELETE FROM routines WHERE id = ?1", [id])? > 0)
}

// --- Runs ---------------------------------------------------------------------------------------

pub(crate) struct NewRun<'a> {
    pub id: &'a str,
    pub routine_id: &'a str,
    pub scheduled_for: i64,
    pub started_at: i64,
    pub outcome: RoutineOutcome,
    pub trigger: RunTrigger,
    pub missed: u32,
    pub note: Option<&'a str>,
}

pub(crate) fn insert_run(conn: &Connection, run: &NewRun) -> Result<()> {
    let ended = (run.outcome != RoutineOutcome::Running).then_some(run.started_at);
    conn.execute(
        "INSERT INTO routine_runs (id, routine_id, scheduled_for, started_at, ended_at, outcome, trigger, missed, note) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            run.id,
            run.routine_id,
            run.scheduled_for,
            run.started_at,
            ended,
            run.outcome.as_str(),
            run.trigger.as_str(),
            run.missed,
            run.note
        ],
    )?;
    Ok(())
}

pub(crate) fn set_run_card(conn: &Connection, id: &str, card_id: &str, run_id: Option<&str>) -> Result<()> {
    conn.execute("UPDATE routine_runs SET card_id = ?2, run_id = ?3 WHERE id = ?1", params![id, card_id, run_id])?;
    Ok(())
}

pub(crate) fn set_run_room(conn: &Connection, id: &str, team_id: &str, room_id: &str) -> Result<()> {
    conn.execute("UPDATE routine_runs SET team_id = ?2, room_id = ?3 WHERE id = ?1", params![id, team_id, room_id])?;
    Ok(())
}

pub(crate) fn finish_run(
    conn: &Connection,
    id: &str,
    outcome: RoutineOutcome,
    note: Option<&str>,
    now: i64,
) -> Result<()> {
    conn.execute(
        "UPDATE routine_runs SET outcome = ?2, note = COALESCE(?3, note), ended_at = ?4 WHERE id = ?1 AND outcome = 'running'",
        params![id, outcome.as_str(), note, now],
    )?;
    Ok(())
}

/// A run still going, with what tells how it ended.
pub(crate) struct Going {
    pub run: RoutineRun,
    pub start_error: Option<String>,
}

pub(crate) fn running(conn: &Connection) -> Result<Vec<Going>> {
    let sql = format!(
        "SELECT {RUN_COLUMNS}, rr.start_error FROM {RUN_FROM} WHERE rr.outcome = 'running' ORDER BY rr.started_at"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map([], |r| Ok(Going { run: run_row(r)?, start_error: r.get(14)? }))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub(crate) fn has_running(conn: &Connection, routine_id: &str) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM routine_runs WHERE routine_id = ?1 AND outcome = 'running')",
        [routine_id],
        |r| r.get(0),
    )?)
}

/// The newest `limit` runs of a routine, newest first.
pub(crate) fn runs(conn: &Connection, routine_id: &str, limit: u32) -> Result<Vec<RoutineRun>> {
    let sql = format!(
        "SELECT {RUN_COLUMNS} FROM {RUN_FROM} WHERE rr.routine_id = ?1 ORDER BY rr.started_at DESC, rr.rowid DESC LIMIT ?2"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params![routine_id, limit], run_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The last run (of any outcome but a skip) that had a card, for a retry to run it again.
pub(crate) fn last_card(conn: &Connection, routine_id: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT card_id FROM routine_runs WHERE routine_id = ?1 AND card_id IS NOT NULL \
             ORDER BY started_at DESC, rowid DESC LIMIT 1",
            [routine_id],
            |r| r.get(0),
        )
        .optional()?)
}

// --- Attention requests about routines ------------------------------------------------------

pub(crate) fn insert_request(
    conn: &Connection,
    request_id: &str,
    kind: &str,
    routine_id: Option<&str>,
    proposal: Option<&str>,
    now: i64,
) -> Result<()> {
    conn.execute(
        "INSERT INTO routine_requests (request_id, kind, routine_id, proposal, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![request_id, kind, routine_id, proposal, now],
    )?;
    Ok(())
}

/// What an attention request about a routine is about.
pub(crate) struct RequestAbout {
    /// `proposal` or `paused`.
    pub kind: String,
    pub routine_id: Option<String>,
    /// A proposal's routine, as JSON.
    pub proposal: Option<String>,
}

pub(crate) fn request(conn: &Connection, request_id: &str) -> Result<Option<RequestAbout>> {
    Ok(conn
        .query_row("SELECT kind, routine_id, proposal FROM routine_requests WHERE request_id = ?1", [request_id], |r| {
            Ok(RequestAbout { kind: r.get(0)?, routine_id: r.get(1)?, proposal: r.get(2)? })
        })
        .optional()?)
}

// --- A team routine's message (recorded by team chat)

/// The leader's run of a team routine's message started (called by team chat).
pub fn link_team_run(conn: &Connection, routine_run_id: &str, run_id: &str) -> Result<()> {
    conn.execute("UPDATE routine_runs SET run_id = ?2 WHERE id = ?1", params![routine_run_id, run_id])?;
    Ok(())
}

/// A team routine's message could not start a run (called by team chat).
pub fn team_run_not_started(conn: &Connection, routine_run_id: &str, why: &str) -> Result<()> {
    conn.execute(
        "UPDATE routine_runs SET start_error = ?2 WHERE id = ?1 AND run_id IS NULL",
        params![routine_run_id, why],
    )?;
    Ok(())
}

/// The name and heartbeat flag of a routine, for its card's task run.
pub fn note_of(conn: &Connection, routine_id: &str) -> Result<Option<(String, bool)>> {
    Ok(conn
        .query_row("SELECT name, heartbeat FROM routines WHERE id = ?1", [routine_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}
