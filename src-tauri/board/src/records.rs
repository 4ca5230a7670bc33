//! SQL for what is recorded about a card: comments, activity and runs.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};

use super::store::{from_json, to_json};
use super::types::*;
use clawboo_vocab::error::{Error, Result};
use clawboo_vocab::RunErrorCode;

pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

pub fn add_activity(tx: &Transaction, card_id: &str, actor: &Actor, activity: &ActivityKind, at: i64) -> Result<()> {
    tx.prepare_cached("INSERT INTO card_activity (id, card_id, actor, activity, at) VALUES (?1, ?2, ?3, ?4, ?5)")?
        .execute(params![new_id(), card_id, to_json(actor)?, to_json(activity)?, at])?;
    Ok(())
}

/// A card's activity, oldest first (in the order recorded).
pub fn activity(conn: &Connection, card_id: &str) -> Result<Vec<Activity>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, card_id, actor, activity, at FROM card_activity WHERE card_id = ?1 ORDER BY at, rowid",
    )?;
    let rows = stmt.query_map([card_id], |r| {
        let (actor, activity): (String, String) = (r.get(2)?, r.get(3)?);
        Ok(Activity {
            id: r.get(0)?,
            card_id: r.get(1)?,
            actor: from_json("actor", &actor)?,
            activity: from_json("activity", &activity)?,
            at: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn kind_str(kind: CommentKind) -> &'static str {
    match kind {
        CommentKind::Comment => "comment",
        CommentKind::Report => "report",
    }
}

pub fn add_comment(tx: &Transaction, comment: &Comment) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO card_comments (id, card_id, author, kind, text, run_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        comment.id,
        comment.card_id,
        to_json(&comment.author)?,
        kind_str(comment.kind),
        comment.text,
        comment.run_id,
        comment.created_at,
    ])?;
    Ok(())
}

/// A card's comments, oldest first.
pub fn comments(conn: &Connection, card_id: &str) -> Result<Vec<Comment>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, card_id, author, kind, text, run_id, created_at FROM card_comments WHERE card_id = ?1
         ORDER BY created_at, rowid",
    )?;
    let rows = stmt.query_map([card_id], |r| {
        let (author, kind): (String, String) = (r.get(2)?, r.get(3)?);
        Ok(Comment {
            id: r.get(0)?,
            card_id: r.get(1)?,
            author: from_json("comment author", &author)?,
            kind: if kind == "report" { CommentKind::Report } else { CommentKind::Comment },
            text: r.get(4)?,
            run_id: r.get(5)?,
            created_at: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

// --- runs ----------------------------------------------------------------------------------------

fn run_kind_str(kind: CardRunKind) -> &'static str {
    match kind {
        CardRunKind::Run => "run",
        CardRunKind::Fix => "fix",
        CardRunKind::Rotation => "rotation",
        CardRunKind::Handoff => "handoff",
    }
}

fn run_status_str(status: CardRunStatus) -> &'static str {
    match status {
        CardRunStatus::Running => "running",
        CardRunStatus::Succeeded => "succeeded",
        CardRunStatus::Failed => "failed",
        CardRunStatus::Cancelled => "cancelled",
        CardRunStatus::Interrupted => "interrupted",
    }
}

/// A `card_runs` row, its columns in [`RUN_COLUMNS`] order from the first.
pub fn run_from_row(r: &Row<'_>) -> rusqlite::Result<CardRun> {
    let (kind, status): (String, String) = (r.get(3)?, r.get(4)?);
    let kinds = [CardRunKind::Run, CardRunKind::Fix, CardRunKind::Rotation, CardRunKind::Handoff];
    let statuses = [
        CardRunStatus::Running,
        CardRunStatus::Succeeded,
        CardRunStatus::Failed,
        CardRunStatus::Cancelled,
        CardRunStatus::Interrupted,
    ];
    let unknown = |what: &str, value: &str| {
        rusqlite::Error::FromSqlConversionFailure(
            0,
            rusqlite::types::Type::Text,
            format!("the Board has an unknown run {what}: {value}").into(),
        )
    };
    let mut run = CardRun {
        run_id: r.get(0)?,
        card_id: r.get(1)?,
        attempt: r.get(2)?,
        kind: kinds.into_iter().find(|k| run_kind_str(*k) == kind).ok_or_else(|| unknown("kind", &kind))?,
        status: statuses
            .into_iter()
            .find(|s| run_status_str(*s) == status)
            .ok_or_else(|| unknown("status", &status))?,
        started_at: r.get(5)?,
        finished_at: r.get(6)?,
        reason: r.get(7)?,
        error_code: r.get::<_, Option<String>>(8)?.as_deref().and_then(RunErrorCode::parse),
    };
    // A run that ended before codes were recorded has its code read from its reason.
    if run.error_code.is_none() {
        run.error_code = card_run_code(run.status, run.reason.as_deref());
    }
    Ok(run)
}

pub const RUN_COLUMNS: &str = "run_id, card_id, attempt, kind, status, started_at, finished_at, reason, error_code";

/// A card run's error code: a failure's read from its reason (see [`RunErrorCode::of_message`]).
fn card_run_code(status: CardRunStatus, reason: Option<&str>) -> Option<RunErrorCode> {
    match status {
        CardRunStatus::Failed => Some(reason.map_or(RunErrorCode::RunFailed, RunErrorCode::of_message)),
        CardRunStatus::Interrupted => Some(RunErrorCode::Interrupted),
        CardRunStatus::Running | CardRunStatus::Succeeded | CardRunStatus::Cancelled => None,
    }
}

pub fn record_run(
    tx: &Transaction,
    card_id: &str,
    run_id: &str,
    attempt: u32,
    kind: CardRunKind,
    now: i64,
) -> Result<CardRun> {
    let added = tx
        .prepare_cached(
            "INSERT INTO card_runs (run_id, card_id, attempt, kind, status, started_at) VALUES (?1, ?2, ?3, ?4, 'running', ?5)
             ON CONFLICT (run_id) DO NOTHING",
        )?
        .execute(params![run_id, card_id, attempt, run_kind_str(kind), now])?;
    if added == 0 {
        return Err(Error::InvalidInput(format!("The run {run_id} is already recorded on a card.")));
    }
    run(tx, run_id)?.ok_or_else(|| Error::Internal("card run vanished".into()))
}

pub fn finish_run(
    tx: &Transaction,
    run_id: &str,
    status: CardRunStatus,
    reason: Option<&str>,
    now: i64,
) -> Result<CardRun> {
    let changed = tx
        .prepare_cached(
            "UPDATE card_runs SET status = ?2, reason = ?3, finished_at = ?4, error_code = ?5 WHERE run_id = ?1",
        )?
        .execute(params![
            run_id,
            run_status_str(status),
            reason,
            now,
            card_run_code(status, reason).map(RunErrorCode::as_str)
        ])?;
    if changed == 0 {
        return Err(Error::NotFound(format!("The card run {run_id}")));
    }
    run(tx, run_id)?.ok_or_else(|| Error::Internal("card run vanished".into()))
}

pub fn run(conn: &Connection, run_id: &str) -> Result<Option<CardRun>> {
    Ok(conn
        .prepare_cached(&format!("SELECT {RUN_COLUMNS} FROM card_runs WHERE run_id = ?1"))?
        .query_row([run_id], run_from_row)
        .optional()?)
}

/// A card's runs, oldest first.
pub fn runs(conn: &Connection, card_id: &str) -> Result<Vec<CardRun>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RUN_COLUMNS} FROM card_runs WHERE card_id = ?1 ORDER BY started_at, attempt, rowid"
    ))?;
    let rows = stmt.query_map([card_id], run_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
