//! An agent's one-to-one chats as they are listed: pinned first, then the most recently used.

use rusqlite::{named_params, Connection, OptionalExtension};
use serde::Serialize;

use clawboo_vocab::error::Result;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ChatSummary {
    /// The conversation's id.
    pub id: String,
    pub agent_id: String,
    /// From its first message unless the user named it; `None` until it has one ("New chat").
    pub title: Option<String>,
    /// The user named it: its first message no longer does.
    pub title_set_by_user: bool,
    pub pinned: bool,
    /// When it was archived (listed apart, restorable); `None`: in the list.
    pub archived_at: Option<i64>,
    pub created_at: i64,
    /// When it last had a message (or was made).
    pub last_activity_at: i64,
    pub messages: i64,
    /// When its last message was stored (none yet: `None`).
    pub last_message_at: Option<i64>,
}

const SUMMARY: &str = "SELECT c.id, c.agent_id, c.title, c.title_set_by_user, c.pinned, c.archived_at, c.created_at,
        coalesce(c.last_activity_at, c.created_at),
        (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id),
        (SELECT max(created_at) FROM messages m WHERE m.conversation_id = c.id)
     FROM conversations c";

fn summary(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChatSummary> {
    Ok(ChatSummary {
        id: r.get(0)?,
        agent_id: r.get(1)?,
        title: r.get(2)?,
        title_set_by_user: r.get(3)?,
        pinned: r.get(4)?,
        archived_at: r.get(5)?,
        created_at: r.get(6)?,
        last_activity_at: r.get(7)?,
        messages: r.get(8)?,
        last_message_at: r.get(9)?,
    })
}

/// `agent_id`'s one-to-one chats (archived ones included, deleted ones not): pinned first, then
/// the most recently used.
pub fn of_agent(conn: &Connection, agent_id: &str) -> Result<Vec<ChatSummary>> {
    let mut stmt = conn.prepare_cached(&format!(
        "{SUMMARY} WHERE c.agent_id = :agent AND c.kind = 'direct' AND c.deleted_at IS NULL
         ORDER BY c.pinned DESC, coalesce(c.last_activity_at, c.created_at) DESC, c.rowid DESC"
    ))?;
    let rows = stmt.query_map(named_params! {":agent": agent_id}, summary)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// One chat as it is listed; `None` when there is no such chat (or it was deleted).
pub fn one(conn: &Connection, chat_id: &str) -> Result<Option<ChatSummary>> {
    Ok(conn
        .prepare_cached(&format!("{SUMMARY} WHERE c.id = ?1 AND c.kind = 'direct' AND c.deleted_at IS NULL"))?
        .query_row([chat_id], summary)
        .optional()?)
}

/// The most messages `GET /api/chats/{id}/messages` returns: the newest ones.
pub const MESSAGES_LIMIT: i64 = 500;

/// A chat's newest [`MESSAGES_LIMIT`] messages, oldest first, and whether older ones exist;
/// `None` when there is no such chat.
pub fn messages(conn: &Connection, chat_id: &str) -> Result<Option<(Vec<clawboo_vocab::ChatMessage>, bool)>> {
    let Some(chat) = one(conn, chat_id)? else { return Ok(None) };
    let mut stmt = conn.prepare_cached(
        "SELECT id, seq, role, content, run_id, created_at, superseded_at IS NOT NULL FROM messages
         WHERE conversation_id = ?1 ORDER BY seq DESC LIMIT ?2",
    )?;
    let rows = stmt.query_map(rusqlite::params![chat_id, MESSAGES_LIMIT + 1], |r| {
        let role: String = r.get(2)?;
        Ok(clawboo_vocab::ChatMessage {
            id: r.get(0)?,
            chat_id: chat.id.clone(),
            agent_id: chat.agent_id.clone(),
            seq: r.get(1)?,
            role: clawboo_vocab::ChatRole::parse(&role).unwrap_or(clawboo_vocab::ChatRole::Notice),
            content: r.get(3)?,
            run_id: r.get(4)?,
            created_at: r.get(5)?,
            superseded: r.get(6)?,
        })
    })?;
    let mut messages = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    let has_older = messages.len() as i64 > MESSAGES_LIMIT;
    messages.truncate(MESSAGES_LIMIT as usize);
    messages.reverse();
    Ok(Some((messages, has_older)))
}
