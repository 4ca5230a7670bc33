//! An agent's chats as a catalog: made, renamed, pinned, archived, deleted (soft, so Undo can
//! bring one back within seconds; purged after) and restored. Each chat is its own conversation
//! with its own runtime session; what a turn sends is in [`super::direct`].

use std::sync::Arc;
use std::time::Duration;

use rusqlite::{params, OptionalExtension};

use super::{now_ms, store, Chat};
use crate::error::{Error, Result};
use crate::history::chats::{self, ChatSummary};

/// How long a deleted chat can be brought back before it is purged.
pub const UNDO_WINDOW: Duration = Duration::from_secs(10);

/// The longest title the user may give a chat.
pub const MAX_TITLE_CHARS: usize = 200;

impl Chat {
    /// The agent's chats (archived ones too, deleted ones not): pinned first, then the most
    /// recently used.
    pub fn chats(&self, agent_id: &str) -> Result<Vec<ChatSummary>> {
        let agent = self.agents.get(agent_id)?;
        self.store.read(|c| chats::of_agent(c, &agent.id))
    }

    /// A new, empty chat: its first message starts a runtime session of its own, with the
    /// agent's saved notes.
    pub fn new_chat(&self, agent_id: &str) -> Result<ChatSummary> {
        let agent = self.agents.get(agent_id)?;
        let now = now_ms();
        self.store.write(|tx| {
            let chat = store::new_chat(tx, &agent.id, now)?;
            summary(tx, &chat.id)
        })
    }

    /// Names the chat; its first message no longer does. An empty title gives naming back to it.
    pub fn rename_chat(&self, chat_id: &str, title: &str) -> Result<ChatSummary> {
        let title = store::title_from(title);
        if title.chars().count() > MAX_TITLE_CHARS {
            return Err(Error::InvalidInput(format!("A chat's title is at most {MAX_TITLE_CHARS} characters.")));
        }
        self.store.write(|tx| {
            let (title, set_by_user) = if title.is_empty() {
                let first: Option<String> = tx
                    .query_row(
                        "SELECT content FROM messages WHERE conversation_id = ?1 AND role = 'user' ORDER BY seq LIMIT 1",
                        [chat_id],
                        |r| r.get(0),
                    )
                    .optional()?;
                (first.map(|text| store::title_from(&text)), false)
            } else {
                (Some(title), true)
            };
            let changed = tx.execute(
                "UPDATE conversations SET title = ?2, title_set_by_user = ?3
                 WHERE id = ?1 AND kind = 'direct' AND deleted_at IS NULL",
                params![chat_id, title, set_by_user],
            )?;
            found(changed, chat_id)?;
            summary(tx, chat_id)
        })
    }

    /// Pins the chat on top of its list, or unpins it.
    pub fn pin_chat(&self, chat_id: &str, pinned: bool) -> Result<ChatSummary> {
        self.store.write(|tx| {
            let changed = tx.execute(
                "UPDATE conversations SET pinned = ?2 WHERE id = ?1 AND kind = 'direct' AND deleted_at IS NULL",
                params![chat_id, pinned],
            )?;
            found(changed, chat_id)?;
            summary(tx, chat_id)
        })
    }

    /// Moves the chat to the Archived section, or back to the list.
    pub fn archive_chat(&self, chat_id: &str, archived: bool) -> Result<ChatSummary> {
        let now = now_ms();
        self.store.write(|tx| {
            let changed = tx.execute(
                "UPDATE conversations SET archived_at = CASE WHEN ?2 THEN ?3 END
                 WHERE id = ?1 AND kind = 'direct' AND deleted_at IS NULL",
                params![chat_id, archived, now],
            )?;
            found(changed, chat_id)?;
            summary(tx, chat_id)
        })
    }

    /// Deletes the chat, undoable for [`UNDO_WINDOW`]: it leaves every list, search and export
    /// at once and is purged (its messages and runs with it) when the window has passed. A chat
    /// whose run is going is stopped first by the user, not deleted under it.
    pub fn delete_chat(self: &Arc<Self>, chat_id: &str) -> Result<()> {
        let now = now_ms();
        self.store.write(|tx| {
            if store::latest_run(tx, chat_id)?.is_some_and(|run| run.status == super::RunStatus::Running) {
                return Err(Error::InvalidInput("This chat's agent is still replying: stop it first.".into()));
            }
            let changed = tx.execute(
                "UPDATE conversations SET deleted_at = ?2 WHERE id = ?1 AND kind = 'direct' AND deleted_at IS NULL",
                params![chat_id, now],
            )?;
            found(changed, chat_id)
        })?;
        self.carried.forget(chat_id);
        let chat = Arc::clone(self);
        self.handle.spawn(async move {
            tokio::time::sleep(UNDO_WINDOW).await;
            let _ = tokio::task::spawn_blocking(move || {
                if let Err(e) = chat.purge_deleted_chats(now_ms() - UNDO_WINDOW.as_millis() as i64) {
                    tracing::warn!(error = %e, "could not purge deleted chats");
                }
            })
            .await;
        });
        Ok(())
    }

    /// Undo: brings a deleted chat back as it was, while it has not been purged.
    pub fn restore_chat(&self, chat_id: &str) -> Result<ChatSummary> {
        self.store.write(|tx| {
            let changed = tx.execute(
                "UPDATE conversations SET deleted_at = NULL WHERE id = ?1 AND kind = 'direct' AND deleted_at IS NOT NULL",
                [chat_id],
            )?;
            if changed == 0 {
                return Err(Error::NotFound(format!("Deleted chat {chat_id} (it may have been purged already)")));
            }
            summary(tx, chat_id)
        })
    }

    /// Purges the chats deleted at or before `deleted_before` (ms): their messages, runs, run
    /// events and deliveries go with them (foreign keys cascade; the message index follows by its
    /// triggers). Also called at start for those a quit left behind. Returns how many.
    pub fn purge_deleted_chats(&self, deleted_before: i64) -> Result<usize> {
        self.store.write(|tx| {
            Ok(tx.execute(
                "DELETE FROM conversations WHERE kind = 'direct' AND deleted_at IS NOT NULL AND deleted_at <= ?1",
                [deleted_before],
            )?)
        })
    }
}

fn summary(conn: &rusqlite::Connection, chat_id: &str) -> Result<ChatSummary> {
    chats::one(conn, chat_id)?.ok_or_else(|| Error::NotFound(format!("Chat {chat_id}")))
}

fn found(changed: usize, chat_id: &str) -> Result<()> {
    if changed == 0 {
        return Err(Error::NotFound(format!("Chat {chat_id}")));
    }
    Ok(())
}
