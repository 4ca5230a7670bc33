//! SQL for rooms: their messages, each agent's private conversation per room, hand-offs, the
//! inbox, the peer room and what each run was given.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};

use super::types::{PeerPost, Placement, RoomMessage, RoomMessageKind, RoomRoutine, RunContext, TeamTurnKind};
use crate::chat::RunSummary;
use crate::context::Section;
use crate::error::{Error, Result};
use crate::run::prepare::conversation::{checked_run, conversation_from_row, run_from_row, Conversation, RUN_COLUMNS};
use crate::vocab::routine::RoutineTag;

fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The agent's own conversation in a room (its runtime session and carried transcript).
pub fn room_conversation(tx: &Transaction, room_id: &str, agent_id: &str, now: i64) -> Result<Conversation> {
    tx.prepare_cached(
        "INSERT INTO conversations (id, agent_id, kind, room_id, created_at) VALUES (?1, ?2, 'room', ?3, ?4)
         ON CONFLICT (room_id, agent_id) WHERE kind = 'room' DO NOTHING",
    )?
    .execute(params![new_id(), agent_id, room_id, now])?;
    tx.prepare_cached(
        "SELECT id, agent_id, session_id, session_runtime, epoch, session_setup FROM conversations
         WHERE kind = 'room' AND room_id = ?1 AND agent_id = ?2",
    )?
    .query_row(params![room_id, agent_id], conversation_from_row)
    .map_err(Into::into)
}

/// The epoch of a conversation now (a `/reset` during a run bumps it).
pub fn epoch(conn: &Connection, conversation_id: &str) -> Result<i64> {
    Ok(conn
        .prepare_cached("SELECT epoch FROM conversations WHERE id = ?1")?
        .query_row([conversation_id], |r| r.get(0))?)
}

/// `/reset` in a room: every agent's conversation there forgets its session and starts a new epoch.
pub fn reset_room(tx: &Transaction, room_id: &str) -> Result<()> {
    tx.prepare_cached(
        "UPDATE conversations SET session_id = NULL, session_runtime = NULL, session_setup = NULL, epoch = epoch + 1
         WHERE kind = 'room' AND room_id = ?1",
    )?
    .execute([room_id])?;
    Ok(())
}

/// A room message's columns (`m`), with its routine's (`x`) when it is a routine's.
const MESSAGE_COLUMNS: &str = "m.id, m.room_id, m.seq, m.kind, m.author_id, m.target_id, m.content, m.run_id, \
     m.handoff_id, m.created_at, x.name, x.agent_id, x.card_id";
const MESSAGES: &str = "room_messages m LEFT JOIN room_message_routines x ON x.message_id = m.id";

fn message_from_row(r: &Row<'_>) -> rusqlite::Result<(String, RoomMessage)> {
    let routine = r.get::<_, Option<String>>(10)?.map(|name| -> rusqlite::Result<RoomRoutine> {
        Ok(RoomRoutine { name, agent_id: r.get(11)?, card_id: r.get(12)? })
    });
    Ok((
        r.get(3)?,
        RoomMessage {
            id: r.get(0)?,
            room_id: r.get(1)?,
            seq: r.get(2)?,
            kind: RoomMessageKind::Notice,
            author_id: r.get(4)?,
            target_id: r.get(5)?,
            content: r.get(6)?,
            run_id: r.get(7)?,
            handoff_id: r.get(8)?,
            created_at: r.get(9)?,
            routine: routine.transpose()?,
        },
    ))
}

fn checked_message((kind, mut message): (String, RoomMessage)) -> Result<RoomMessage> {
    message.kind =
        RoomMessageKind::parse(&kind).ok_or_else(|| Error::Internal(format!("unknown room message kind {kind}")))?;
    Ok(message)
}

pub struct NewRoomMessage<'a> {
    pub kind: RoomMessageKind,
    pub author_id: Option<&'a str>,
    pub target_id: Option<&'a str>,
    pub content: &'a str,
    pub run_id: Option<&'a str>,
    pub handoff_id: Option<&'a str>,
}

pub fn add_message(tx: &Transaction, room_id: &str, m: NewRoomMessage<'_>, now: i64) -> Result<RoomMessage> {
    let id = new_id();
    tx.prepare_cached("INSERT INTO room_messages (id, room_id, seq, kind, author_id, target_id, content, run_id, handoff_id, created_at)
         VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM room_messages WHERE room_id = ?2),
                 ?3, ?4, ?5, ?6, ?7, ?8, ?9)")?.execute(params![id, room_id, m.kind.as_str(), m.author_id, m.target_id, m.content, m.run_id, m.handoff_id, now])?;
    message(tx, &id)?.ok_or_else(|| Error::Internal("room message vanished".into()))
}

pub fn message(conn: &Connection, id: &str) -> Result<Option<RoomMessage>> {
    conn.prepare_cached(&format!("SELECT {MESSAGE_COLUMNS} FROM {MESSAGES} WHERE m.id = ?1"))?
        .query_row([id], message_from_row)
        .optional()?
        .map(checked_message)
        .transpose()
}

/// The user message `message_id` is `routine`'s: the room shows it as the routine's.
pub fn tag_routine(tx: &Transaction, message_id: &str, routine: &RoutineTag) -> Result<Option<RoomMessage>> {
    tx.prepare_cached(
        "INSERT INTO room_message_routines (message_id, routine_run_id, name, agent_id, card_id)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![message_id, routine.routine_run_id, routine.name, routine.agent_id, routine.card_id])?;
    message(tx, message_id)
}

/// The hand-off card of `handoff_id` now shows the teammate's run.
pub fn set_handoff_card_run(tx: &Transaction, handoff_id: &str, run_id: &str) -> Result<Option<RoomMessage>> {
    let id: Option<String> = tx
        .query_row("SELECT id FROM room_messages WHERE handoff_id = ?1 AND kind = 'handoff'", [handoff_id], |r| {
            r.get(0)
        })
        .optional()?;
    let Some(id) = id else { return Ok(None) };
    tx.prepare_cached("UPDATE room_messages SET run_id = ?2 WHERE id = ?1")?.execute(params![id, run_id])?;
    message(tx, &id)
}

/// Up to `limit` messages before `before_seq` (the newest when None), oldest first, and whether
/// older ones exist. One indexed range read, whatever the room's length.
pub fn page(conn: &Connection, room_id: &str, before_seq: Option<i64>, limit: u32) -> Result<(Vec<RoomMessage>, bool)> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {MESSAGE_COLUMNS} FROM {MESSAGES} WHERE m.room_id = ?1 AND m.seq < ?2 ORDER BY m.seq DESC LIMIT ?3"
    ))?;
    let rows =
        stmt.query_map(params![room_id, before_seq.unwrap_or(i64::MAX), i64::from(limit) + 1], message_from_row)?;
    let mut messages = rows.map(|r| checked_message(r?)).collect::<Result<Vec<_>>>()?;
    let has_older = messages.len() > limit as usize;
    messages.truncate(limit as usize);
    messages.reverse();
    Ok((messages, has_older))
}

pub fn runs_by_id(conn: &Connection, ids: &[&str]) -> Result<Vec<RunSummary>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"))?;
    let mut runs = Vec::new();
    for id in ids {
        if let Some(row) = stmt.query_row([id], run_from_row).optional()? {
            runs.push(checked_run(row)?);
        }
    }
    Ok(runs)
}

/// The newest `limit` runs of a room, oldest first (the room's Activity card).
pub fn room_runs(conn: &Connection, room_id: &str, limit: u32) -> Result<Vec<RunSummary>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RUN_COLUMNS} FROM runs WHERE conversation_id IN
           (SELECT id FROM conversations WHERE kind = 'room' AND room_id = ?1)
         ORDER BY started_at DESC LIMIT ?2"
    ))?;
    let mut runs =
        stmt.query_map(params![room_id, limit], run_from_row)?.map(|r| checked_run(r?)).collect::<Result<Vec<_>>>()?;
    runs.reverse();
    Ok(runs)
}

/// The room a run belongs to, when it is a team run.
pub fn room_of_run(conn: &Connection, run_id: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT c.room_id FROM runs r JOIN conversations c ON c.id = r.conversation_id WHERE r.id = ?1",
            [run_id],
            |r| r.get::<_, Option<String>>(0),
        )
        .optional()?
        .flatten())
}

// --- hand-offs ---------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handoff {
    pub id: String,
    pub room_id: String,
    pub from_agent_id: String,
    pub from_run_id: String,
    pub to_agent_id: String,
    pub task: String,
    pub depth: u32,
    pub status: String,
    pub run_id: Option<String>,
    pub result: Option<String>,
    /// The hand-off its maker was working on when it made this one (a chain): this result goes
    /// back to the maker as part of that task.
    pub parent_handoff_id: Option<String>,
}

const HANDOFF_COLUMNS: &str =
    "id, room_id, from_agent_id, from_run_id, to_agent_id, task, depth, status, run_id, result, parent_handoff_id";

fn handoff_from_row(r: &Row<'_>) -> rusqlite::Result<Handoff> {
    Ok(Handoff {
        id: r.get(0)?,
        room_id: r.get(1)?,
        from_agent_id: r.get(2)?,
        from_run_id: r.get(3)?,
        to_agent_id: r.get(4)?,
        task: r.get(5)?,
        depth: r.get(6)?,
        status: r.get(7)?,
        run_id: r.get(8)?,
        result: r.get(9)?,
        parent_handoff_id: r.get(10)?,
    })
}

pub struct NewHandoff<'a> {
    pub room_id: &'a str,
    pub from_agent_id: &'a str,
    pub from_run_id: &'a str,
    pub to_agent_id: &'a str,
    pub task: &'a str,
    pub depth: u32,
    pub parent_handoff_id: Option<&'a str>,
}

pub fn insert_handoff(tx: &Transaction, h: NewHandoff<'_>, now: i64) -> Result<Handoff> {
    let id = new_id();
    tx.prepare_cached(&format!(
        "INSERT INTO handoffs ({HANDOFF_COLUMNS}, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'queued', NULL, NULL, ?8, ?9)"
    ))?
    .execute(params![
        id,
        h.room_id,
        h.from_agent_id,
        h.from_run_id,
        h.to_agent_id,
        h.task,
        h.depth,
        h.parent_handoff_id,
        now
    ])?;
    handoff(tx, &id)?.ok_or_else(|| Error::Internal("hand-off vanished".into()))
}

pub fn handoff(conn: &Connection, id: &str) -> Result<Option<Handoff>> {
    Ok(conn
        .query_row(&format!("SELECT {HANDOFF_COLUMNS} FROM handoffs WHERE id = ?1"), [id], handoff_from_row)
        .optional()?)
}

/// Hand-offs made by a run (its count bounds a turn).
pub fn handoffs_of_run(conn: &Connection, run_id: &str) -> Result<u32> {
    Ok(conn
        .prepare_cached("SELECT COUNT(*) FROM handoffs WHERE from_run_id = ?1")?
        .query_row([run_id], |r| r.get(0))?)
}

/// Hand-offs of a run that are still queued or running.
pub fn pending_handoffs_of_run(conn: &Connection, run_id: &str) -> Result<u32> {
    Ok(conn
        .prepare_cached("SELECT COUNT(*) FROM handoffs WHERE from_run_id = ?1 AND status IN ('queued', 'running')")?
        .query_row([run_id], |r| r.get(0))?)
}

pub fn start_handoff(tx: &Transaction, id: &str, run_id: &str) -> Result<()> {
    tx.prepare_cached("UPDATE handoffs SET status = 'running', run_id = ?2 WHERE id = ?1")?
        .execute(params![id, run_id])?;
    Ok(())
}

pub fn finish_handoff(tx: &Transaction, id: &str, status: &str, result: &str, now: i64) -> Result<()> {
    tx.prepare_cached("UPDATE handoffs SET status = ?2, result = ?3, finished_at = ?4 WHERE id = ?1")?
        .execute(params![id, status, result, now])?;
    Ok(())
}

/// Ends hand-off `id` with its result, and reads it back. When its team was stopped since the
/// work started (`stopped`), the result goes to nobody: dropped in the same transaction, so
/// nothing that sees the hand-off ended can find its result still waiting for a batch.
pub fn end_handoff(
    tx: &Transaction,
    id: &str,
    status: &str,
    result: &str,
    now: i64,
    stopped: bool,
) -> Result<Option<Handoff>> {
    finish_handoff(tx, id, status, result, now)?;
    if stopped {
        mark_results_delivered(tx, &[id.to_owned()], "stopped")?;
    }
    handoff(tx, id)
}

/// Finished hand-offs of `agent_id` in a room whose results it has not received yet, oldest first.
pub fn waiting_results(conn: &Connection, room_id: &str, agent_id: &str) -> Result<Vec<Handoff>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {HANDOFF_COLUMNS} FROM handoffs WHERE room_id = ?1 AND from_agent_id = ?2
         AND delivered_run_id IS NULL AND status NOT IN ('queued', 'running') ORDER BY finished_at, created_at"
    ))?;
    let rows = stmt.query_map(params![room_id, agent_id], handoff_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether a hand-off is still open: queued, running, or waiting for the results of the work its
/// teammate handed out for it.
pub fn is_open(conn: &Connection, id: &str) -> Result<bool> {
    Ok(conn
        .query_row("SELECT status IN ('queued', 'running') FROM handoffs WHERE id = ?1", [id], |r| r.get(0))
        .optional()?
        .unwrap_or(false))
}

/// Running hand-offs of these rooms (at Stop, those whose run has ended wait for results).
pub fn running_handoffs(conn: &Connection, room_ids: &[String]) -> Result<Vec<Handoff>> {
    let mut stmt = conn
        .prepare_cached(&format!("SELECT {HANDOFF_COLUMNS} FROM handoffs WHERE room_id = ?1 AND status = 'running'"))?;
    let mut found = Vec::new();
    for room in room_ids {
        found.extend(stmt.query_map([room], handoff_from_row)?.collect::<rusqlite::Result<Vec<_>>>()?);
    }
    Ok(found)
}

/// Results given to a run as inbox items go back to waiting when that run never really started.
pub fn release_results(tx: &Transaction, ids: &[String], run_id: &str) -> Result<()> {
    let mut stmt =
        tx.prepare_cached("UPDATE handoffs SET delivered_run_id = NULL WHERE id = ?1 AND delivered_run_id = ?2")?;
    for id in ids {
        stmt.execute(params![id, run_id])?;
    }
    Ok(())
}

pub fn mark_results_delivered(tx: &Transaction, ids: &[String], run_id: &str) -> Result<()> {
    let mut stmt = tx.prepare_cached("UPDATE handoffs SET delivered_run_id = ?2 WHERE id = ?1")?;
    for id in ids {
        stmt.execute(params![id, run_id])?;
    }
    Ok(())
}

/// Queued hand-offs of a team that never started: stopped (with the Stop button) — returns them.
pub fn stop_queued_handoffs(tx: &Transaction, room_ids: &[String], now: i64) -> Result<Vec<Handoff>> {
    let mut stopped = Vec::new();
    for room in room_ids {
        let mut stmt = tx.prepare_cached(&format!(
            "SELECT {HANDOFF_COLUMNS} FROM handoffs WHERE room_id = ?1 AND status = 'queued'"
        ))?;
        let rows: Vec<Handoff> = stmt.query_map([room], handoff_from_row)?.collect::<rusqlite::Result<_>>()?;
        for h in rows {
            finish_handoff(tx, &h.id, "stopped", "Stopped by the user before it started.", now)?;
            stopped.push(h);
        }
    }
    Ok(stopped)
}

/// Hand-offs still queued or running (at start: what a previous process left unfinished).
pub fn unfinished_handoffs(conn: &Connection) -> Result<Vec<Handoff>> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {HANDOFF_COLUMNS} FROM handoffs WHERE status IN ('queued', 'running')"))?;
    let rows = stmt.query_map([], handoff_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Hand-offs a previous process left queued or running: cut off. Returns how many.
pub fn mark_handoffs_interrupted(tx: &Transaction, now: i64) -> Result<usize> {
    Ok(tx
        .prepare_cached(
            "UPDATE handoffs SET status = 'interrupted', finished_at = ?1,
         result = 'Clawboo stopped before this task finished; it was cut off.', delivered_run_id = 'interrupted'
         WHERE status IN ('queued', 'running')",
        )?
        .execute([now])?)
}

// --- peer room ---------------------------------------------------------------------------------

const POST_COLUMNS: &str = "id, team_id, seq, author_id, author_handle, run_id, text, created_at";

pub(super) fn post_from_row(r: &Row<'_>) -> rusqlite::Result<PeerPost> {
    Ok(PeerPost {
        id: r.get(0)?,
        team_id: r.get(1)?,
        seq: r.get(2)?,
        author_id: r.get(3)?,
        author_handle: r.get(4)?,
        run_id: r.get(5)?,
        text: r.get(6)?,
        created_at: r.get(7)?,
    })
}

/// A post in the team's peer room. Its author's own view of the room does not move: posts by
/// others that were held back for the author's next turn still wait for it.
pub fn add_peer_post(
    tx: &Transaction,
    team_id: &str,
    author_id: &str,
    author_handle: &str,
    run_id: &str,
    text: &str,
    now: i64,
) -> Result<PeerPost> {
    let id = new_id();
    tx.prepare_cached(&format!(
        "INSERT INTO peer_posts ({POST_COLUMNS}) VALUES
             (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM peer_posts WHERE team_id = ?2), ?3, ?4, ?5, ?6, ?7)"
    ))?
    .execute(params![id, team_id, author_id, author_handle, run_id, text, now])?;
    Ok(tx
        .prepare_cached(&format!("SELECT {POST_COLUMNS} FROM peer_posts WHERE id = ?1"))?
        .query_row([&id], post_from_row)?)
}

/// Up to `limit` posts before `before_seq` (newest when None), oldest first, and whether older exist.
pub fn peer_page(
    conn: &Connection,
    team_id: &str,
    before_seq: Option<i64>,
    limit: u32,
) -> Result<(Vec<PeerPost>, bool)> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {POST_COLUMNS} FROM peer_posts WHERE team_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3"
    ))?;
    let rows = stmt.query_map(params![team_id, before_seq.unwrap_or(i64::MAX), i64::from(limit) + 1], post_from_row)?;
    let mut posts: Vec<PeerPost> = rows.collect::<rusqlite::Result<_>>()?;
    let has_older = posts.len() > limit as usize;
    posts.truncate(limit as usize);
    posts.reverse();
    Ok((posts, has_older))
}

// --- what each run was given -------------------------------------------------------------------

/// What `run_contexts.sections` holds.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredContext {
    sections: Vec<Section>,
    preamble: Option<String>,
    steady_in_session: bool,
    #[serde(default)]
    files: Vec<crate::context::files::FileDelivery>,
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Internal(e.to_string()))
}

pub fn insert_run_context(tx: &Transaction, context: &RunContext) -> Result<()> {
    let stored = StoredContext {
        sections: context.sections.clone(),
        preamble: context.preamble.clone(),
        steady_in_session: context.steady_in_session,
        files: context.files.clone(),
    };
    tx.prepare_cached(
        "INSERT INTO run_contexts (run_id, room_id, turn_kind, system_text, sections, placement, deferred, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        context.run_id,
        context.room_id,
        context.turn_kind.as_str(),
        context.system_text,
        to_json(&stored)?,
        context.placement.as_str(),
        to_json(&context.deferred)?,
        context.created_at,
    ])?;
    Ok(())
}

pub fn run_context(conn: &Connection, run_id: &str) -> Result<Option<RunContext>> {
    let row = conn
        .query_row(
            "SELECT room_id, turn_kind, system_text, sections, placement, deferred, created_at FROM run_contexts
             WHERE run_id = ?1",
            [run_id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, i64>(6)?,
                ))
            },
        )
        .optional()?;
    let Some((room_id, kind, system_text, sections, placement, deferred, created_at)) = row else { return Ok(None) };
    let bad = |what: &str| Error::Internal(format!("the stored context of run {run_id} has a bad {what}"));
    let stored: StoredContext = serde_json::from_str(&sections).map_err(|_| bad("section list"))?;
    Ok(Some(RunContext {
        run_id: run_id.to_owned(),
        room_id,
        turn_kind: TeamTurnKind::parse(&kind).ok_or_else(|| bad("turn kind"))?,
        placement: Placement::parse(&placement).ok_or_else(|| bad("placement"))?,
        system_text,
        preamble: stored.preamble,
        sections: stored.sections,
        steady_in_session: stored.steady_in_session,
        deferred: serde_json::from_str(&deferred).map_err(|_| bad("deferred list"))?,
        files: stored.files,
        created_at,
    }))
}
