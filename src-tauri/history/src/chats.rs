//! An agent's one-to-one chats as they are listed (today one per agent; each has its own
//! conversation id, so the list stays right when an agent has many).

use rusqlite::{named_params, Connection};
use serde::Serialize;

use clawboo_vocab::error::Result;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ChatSummary {
    /// The conversation's id.
    pub id: String,
    pub agent_id: String,
    pub created_at: i64,
    pub messages: i64,
    /// When its last message was stored (none yet: `None`).
    pub last_message_at: Option<i64>,
}

/// `agent_id`'s one-to-one chats, the most recently active first.
pub fn of_agent(conn: &Connection, agent_id: &str) -> Result<Vec<ChatSummary>> {
    let mut stmt = conn.prepare_cached(
        "SELECT c.id, c.agent_id, c.created_at,
                (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id),
                (SELECT max(created_at) FROM messages m WHERE m.conversation_id = c.id) AS last
         FROM conversations c WHERE c.agent_id = :agent AND c.kind = 'direct'
         ORDER BY coalesce(last, c.created_at) DESC, c.id",
    )?;
    let rows = stmt.query_map(named_params! {":agent": agent_id}, |r| {
        Ok(ChatSummary {
            id: r.get(0)?,
            agent_id: r.get(1)?,
            created_at: r.get(2)?,
            messages: r.get(3)?,
            last_message_at: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
