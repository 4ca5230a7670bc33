//! SQL for conversations, messages, runs and run events.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};

use super::types::{ChatMessage, ChatRole, RunEventRecord, RunStatus, RunSummary};
use crate::agents::RuntimeKind;
use crate::error::{Error, Result};
use crate::runtimes::RunEvent;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversation {
    pub id: String,
    pub agent_id: String,
    pub session_id: Option<String>,
    pub session_runtime: Option<RuntimeKind>,
    /// The fingerprint of the setup `session_id` started with (see `super::setup`).
    pub session_setup: Option<String>,
    pub epoch: i64,
}

pub fn conversation(tx: &Transaction, agent_id: &str, now: i64) -> Result<Conversation> {
    tx.execute(
        "INSERT INTO conversations (id, agent_id, kind, created_at) VALUES (?1, ?2, 'direct', ?3)
         ON CONFLICT (agent_id) WHERE kind = 'direct' DO NOTHING",
        params![uuid::Uuid::new_v4().to_string(), agent_id, now],
    )?;
    find_conversation(tx, agent_id)?.ok_or_else(|| Error::Internal("conversation vanished".into()))
}

pub fn find_conversation(conn: &Connection, agent_id: &str) -> Result<Option<Conversation>> {
    Ok(conn
        .query_row(
            "SELECT id, agent_id, session_id, session_runtime, epoch, session_setup FROM conversations
             WHERE agent_id = ?1 AND kind = 'direct'",
            [agent_id],
            |r| {
                let runtime: Option<String> = r.get(3)?;
                Ok(Conversation {
                    id: r.get(0)?,
                    agent_id: r.get(1)?,
                    session_id: r.get(2)?,
                    session_runtime: runtime.as_deref().and_then(RuntimeKind::parse),
                    epoch: r.get(4)?,
                    session_setup: r.get(5)?,
                })
            },
        )
        .optional()?)
}

/// The runtime session the next turn resumes, with the fingerprint of the setup it has.
pub fn set_session(tx: &Transaction, conversation_id: &str, session: Option<(&str, RuntimeKind, &str)>) -> Result<()> {
    tx.execute(
        "UPDATE conversations SET session_id = ?2, session_runtime = ?3, session_setup = ?4 WHERE id = ?1",
        params![conversation_id, session.map(|s| s.0), session.map(|s| s.1.as_str()), session.map(|s| s.2)],
    )?;
    Ok(())
}

/// `/reset`: forget the runtime session and start a new transcript epoch.
pub fn reset(tx: &Transaction, conversation_id: &str) -> Result<i64> {
    tx.execute(
        "UPDATE conversations SET session_id = NULL, session_runtime = NULL, session_setup = NULL, epoch = epoch + 1
         WHERE id = ?1",
        [conversation_id],
    )?;
    Ok(tx.query_row("SELECT epoch FROM conversations WHERE id = ?1", [conversation_id], |r| r.get(0))?)
}

pub fn add_message(
    tx: &Transaction,
    conversation: &Conversation,
    role: ChatRole,
    content: &str,
    run_id: Option<&str>,
    epoch: i64,
    now: i64,
) -> Result<ChatMessage> {
    let id = uuid::Uuid::new_v4().to_string();
    tx.execute(
        "INSERT INTO messages (id, conversation_id, seq, role, content, run_id, epoch, created_at)
         VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE conversation_id = ?2), ?3, ?4, ?5, ?6, ?7)",
        params![id, conversation.id, role.as_str(), content, run_id, epoch, now],
    )?;
    Ok(ChatMessage {
        id,
        agent_id: conversation.agent_id.clone(),
        role,
        content: content.to_owned(),
        run_id: run_id.map(str::to_owned),
        created_at: now,
    })
}

pub fn messages(conn: &Connection, agent_id: &str) -> Result<Vec<ChatMessage>> {
    let mut stmt = conn.prepare_cached(
        "SELECT m.id, c.agent_id, m.role, m.content, m.run_id, m.created_at FROM messages m
         JOIN conversations c ON c.id = m.conversation_id
         WHERE c.agent_id = ?1 ORDER BY m.seq",
    )?;
    let rows = stmt.query_map([agent_id], |r| {
        let role: String = r.get(2)?;
        Ok((
            role,
            ChatMessage {
                id: r.get(0)?,
                agent_id: r.get(1)?,
                role: ChatRole::User,
                content: r.get(3)?,
                run_id: r.get(4)?,
                created_at: r.get(5)?,
            },
        ))
    })?;
    rows.map(|row| {
        let (role, mut message) = row?;
        message.role = ChatRole::parse(&role).ok_or_else(|| Error::Internal(format!("unknown role {role}")))?;
        Ok(message)
    })
    .collect()
}

/// User/assistant pairs of the current epoch, oldest first, for runtimes whose history Clawboo
/// carries. A user message without a reply (a failed run) is left out.
pub fn transcript(conn: &Connection, conversation: &Conversation) -> Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT role, content FROM messages WHERE conversation_id = ?1 AND epoch = ?2 AND role != 'notice'
         ORDER BY seq",
    )?;
    let rows: Vec<(String, String)> = stmt
        .query_map(params![conversation.id, conversation.epoch], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut pairs = Vec::new();
    let mut pending_user: Option<String> = None;
    for (role, content) in rows {
        match role.as_str() {
            "user" => pending_user = Some(content),
            _ => {
                if let Some(user) = pending_user.take() {
                    pairs.push((user, content));
                }
            }
        }
    }
    Ok(pairs)
}

pub(super) const RUN_COLUMNS: &str = "id, agent_id, runtime, status, error, started_at, finished_at";

pub(super) fn run_from_row(r: &Row<'_>) -> rusqlite::Result<(String, String, RunSummary)> {
    let runtime: String = r.get(2)?;
    let status: String = r.get(3)?;
    Ok((
        runtime,
        status,
        RunSummary {
            id: r.get(0)?,
            agent_id: r.get(1)?,
            runtime: RuntimeKind::Native,
            status: RunStatus::Running,
            error: r.get(4)?,
            started_at: r.get(5)?,
            finished_at: r.get(6)?,
        },
    ))
}

pub(super) fn checked_run((runtime, status, mut run): (String, String, RunSummary)) -> Result<RunSummary> {
    run.runtime = RuntimeKind::parse(&runtime).ok_or_else(|| Error::Internal(format!("unknown runtime {runtime}")))?;
    run.status = RunStatus::parse(&status).ok_or_else(|| Error::Internal(format!("unknown run status {status}")))?;
    Ok(run)
}

pub fn insert_run(tx: &Transaction, conversation: &Conversation, runtime: RuntimeKind, now: i64) -> Result<RunSummary> {
    let run = RunSummary {
        id: uuid::Uuid::new_v4().to_string(),
        agent_id: conversation.agent_id.clone(),
        runtime,
        status: RunStatus::Running,
        error: None,
        started_at: now,
        finished_at: None,
    };
    tx.execute(
        &format!(
            "INSERT INTO runs (conversation_id, {RUN_COLUMNS}) VALUES (?1, ?2, ?3, ?4, 'running', NULL, ?5, NULL)"
        ),
        params![conversation.id, run.id, run.agent_id, runtime.as_str(), now],
    )?;
    Ok(run)
}

pub fn finish_run(tx: &Transaction, run_id: &str, status: RunStatus, error: Option<&str>, now: i64) -> Result<()> {
    tx.execute(
        "UPDATE runs SET status = ?2, error = ?3, finished_at = ?4 WHERE id = ?1",
        params![run_id, status.as_str(), error, now],
    )?;
    Ok(())
}

pub fn runs(conn: &Connection, agent_id: &str) -> Result<Vec<RunSummary>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RUN_COLUMNS} FROM runs WHERE agent_id = ?1
         AND conversation_id IN (SELECT id FROM conversations WHERE agent_id = ?1 AND kind = 'direct')
         ORDER BY started_at"
    ))?;
    let rows = stmt.query_map([agent_id], run_from_row)?;
    rows.map(|r| checked_run(r?)).collect()
}

pub fn run(conn: &Connection, run_id: &str) -> Result<Option<RunSummary>> {
    conn.query_row(&format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"), [run_id], run_from_row)
        .optional()?
        .map(checked_run)
        .transpose()
}

/// Runs left `running` by a previous process that stopped mid-run.
pub fn mark_interrupted(tx: &Transaction, now: i64) -> Result<Vec<String>> {
    let mut stmt = tx.prepare("SELECT id FROM runs WHERE status = 'running'")?;
    let ids: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    tx.execute(
        "UPDATE runs SET status = 'interrupted', finished_at = ?1,
         error = 'Clawboo stopped while this run was in progress; it was cut off.'
         WHERE status = 'running'",
        [now],
    )?;
    Ok(ids)
}

pub fn insert_events(tx: &Transaction, records: &[RunEventRecord]) -> Result<()> {
    let mut stmt = tx.prepare_cached("INSERT INTO run_events (run_id, seq, at, event) VALUES (?1, ?2, ?3, ?4)")?;
    for record in records {
        let json = serde_json::to_string(&record.event).map_err(|e| Error::Internal(e.to_string()))?;
        stmt.execute(params![record.run_id, record.seq, record.at, json])?;
    }
    Ok(())
}

pub fn events(conn: &Connection, run_id: &str) -> Result<Vec<RunEventRecord>> {
    let mut stmt = conn.prepare_cached("SELECT seq, at, event FROM run_events WHERE run_id = ?1 ORDER BY seq")?;
    let rows = stmt.query_map([run_id], |r| Ok((r.get::<_, u32>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?)))?;
    rows.map(|row| {
        let (seq, at, json) = row?;
        let event: RunEvent = serde_json::from_str(&json)
            .unwrap_or_else(|e| RunEvent::Warning { message: format!("An event could not be read back: {e}") });
        Ok(RunEventRecord { run_id: run_id.to_owned(), seq, at, event })
    })
    .collect()
}
