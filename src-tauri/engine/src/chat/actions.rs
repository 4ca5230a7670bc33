//! What the user does to a chat besides sending: retry the last reply, edit and resend the last
//! message (both replace the last exchange, which stays in the store, superseded; see
//! `direct.rs` for what it does to the runtime session), and the read marks behind the unread
//! dots of chats and rooms, keyed by conversation and room.

use std::sync::Arc;

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

use super::{store, Chat, SendOutcome};
use crate::error::{Error, Result};
use crate::events::EngineEvent;

/// A thread the user reads: a one-to-one conversation or a team room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ReadThreadKind {
    Chat,
    Room,
}

impl ReadThreadKind {
    fn as_str(self) -> &'static str {
        match self {
            ReadThreadKind::Chat => "chat",
            ReadThreadKind::Room => "room",
        }
    }
}

/// A thread with replies the user has not read: the agent's or the team's, by id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct UnreadThread {
    pub kind: ReadThreadKind,
    /// The conversation's or the room's id.
    pub id: String,
    /// The agent of a one-to-one conversation.
    pub agent_id: Option<String>,
    /// The team of a room.
    pub team_id: Option<String>,
    /// Replies after the read mark.
    pub count: u32,
}

impl Chat {
    /// A new run with the user's last message, `message_id`; its reply (if any) is superseded.
    pub fn retry(self: &Arc<Self>, message_id: &str) -> Result<SendOutcome> {
        let (agent, chat_id, last) = self.replaceable(message_id)?;
        self.start_turn(agent, Some(&chat_id), &last.content, Some(message_id))
    }

    /// The user's last message, `message_id`, replaced by `text` and sent; it and its reply are
    /// superseded.
    pub fn edit_and_resend(self: &Arc<Self>, message_id: &str, text: &str) -> Result<SendOutcome> {
        let text = text.trim();
        if text.is_empty() {
            return Err(Error::InvalidInput("The message is empty.".into()));
        }
        if matches!(text, "/reset" | "/new") {
            return Err(Error::InvalidInput("A command cannot replace a message; send it on its own.".into()));
        }
        let (agent, chat_id, _) = self.replaceable(message_id)?;
        self.start_turn(agent, Some(&chat_id), text, Some(message_id))
    }

    /// The agent whose conversation holds `message_id`, and that message, when it is the
    /// user's last (checked again, in the turn's transaction).
    /// Returns the agent, the chat and the message.
    fn replaceable(&self, message_id: &str) -> Result<(crate::agents::Agent, String, store::LastUserMessage)> {
        let not_found = || Error::NotFound(format!("Message {message_id}"));
        let (conversation_id, agent_id) =
            self.store.read(|c| store::message_thread(c, message_id))?.ok_or_else(not_found)?;
        let agent = self.agents.get(&agent_id)?;
        let last = self.store.read(|c| {
            // A chat deleted (not yet purged) is not found: nothing in it is retried.
            match store::chat(c, &agent_id, &conversation_id) {
                Ok(conversation) => store::last_user_message(c, &conversation),
                Err(Error::NotFound(_)) => Ok(None),
                Err(e) => Err(e),
            }
        })?;
        let last = last.filter(|m| m.id == message_id).ok_or_else(|| {
            Error::Conflict("Only your last message can be retried or edited, and this one no longer is.".into())
        })?;
        Ok((agent, conversation_id, last))
    }

    /// Marks a conversation or a room read up to its newest message.
    pub fn mark_read(&self, kind: ReadThreadKind, id: &str) -> Result<()> {
        let changed = self.store.write(|tx| mark_read(tx, kind, id))?;
        if changed {
            self.events.publish(EngineEvent::ReadMarksChanged);
        }
        Ok(())
    }

    /// Every conversation and room with replies after its read mark.
    pub fn unread(&self) -> Result<Vec<UnreadThread>> {
        self.store.read(unread)
    }
}

/// Moves the thread's mark to its newest message; whether it moved.
fn mark_read(tx: &Transaction, kind: ReadThreadKind, id: &str) -> Result<bool> {
    let newest: Option<Option<i64>> = match kind {
        ReadThreadKind::Chat => tx
            .query_row(
                "SELECT (SELECT max(seq) FROM messages WHERE conversation_id = c.id) FROM conversations c
                 WHERE c.id = ?1 AND c.kind = 'direct'",
                [id],
                |r| r.get(0),
            )
            .optional()?,
        ReadThreadKind::Room => tx
            .query_row(
                "SELECT (SELECT max(seq) FROM room_messages WHERE room_id = r.id) FROM rooms r WHERE r.id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()?,
    };
    let Some(newest) = newest else {
        return Err(Error::NotFound(format!("{} {id}", if kind == ReadThreadKind::Chat { "Chat" } else { "Room" })));
    };
    let changed = tx.execute(
        "INSERT INTO read_marks (kind, thread_id, seq) VALUES (?1, ?2, ?3)
         ON CONFLICT (kind, thread_id) DO UPDATE SET seq = excluded.seq WHERE excluded.seq > read_marks.seq",
        params![kind.as_str(), id, newest.unwrap_or(0)],
    )?;
    Ok(changed > 0)
}

/// Replies after each thread's mark (a thread never opened counts from its start). One walk of
/// each thread's (id, seq) index from its mark.
fn unread(conn: &Connection) -> Result<Vec<UnreadThread>> {
    let mut out = Vec::new();
    let mut chats = conn.prepare_cached(
        "SELECT c.id, c.agent_id, count(*) FROM conversations c
         JOIN messages m ON m.conversation_id = c.id
             AND m.seq > coalesce((SELECT seq FROM read_marks WHERE kind = 'chat' AND thread_id = c.id), 0)
         WHERE c.kind = 'direct' AND m.role = 'assistant' AND m.superseded_at IS NULL
         GROUP BY c.id ORDER BY c.id",
    )?;
    let rows = chats.query_map([], |r| {
        Ok(UnreadThread {
            kind: ReadThreadKind::Chat,
            id: r.get(0)?,
            agent_id: Some(r.get(1)?),
            team_id: None,
            count: r.get(2)?,
        })
    })?;
    for row in rows {
        out.push(row?);
    }
    let mut rooms = conn.prepare_cached(
        "SELECT r.id, r.team_id, count(*) FROM rooms r
         JOIN room_messages m ON m.room_id = r.id
             AND m.seq > coalesce((SELECT seq FROM read_marks WHERE kind = 'room' AND thread_id = r.id), 0)
         WHERE m.kind = 'reply'
         GROUP BY r.id ORDER BY r.id",
    )?;
    let rows = rooms.query_map([], |r| {
        Ok(UnreadThread {
            kind: ReadThreadKind::Room,
            id: r.get(0)?,
            agent_id: None,
            team_id: Some(r.get(1)?),
            count: r.get(2)?,
        })
    })?;
    for row in rows {
        out.push(row?);
    }
    Ok(out)
}
