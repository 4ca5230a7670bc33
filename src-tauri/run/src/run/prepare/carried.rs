//! The conversation Clawboo carries for a runtime (Native), kept between turns so that a turn
//! reads only the messages stored since the one before, not the whole chat again: a chat of
//! 1,000 exchanges costs a send what a chat of 10 does.
//!
//! Messages are only ever appended to a conversation's epoch, with one exception: a retry or an
//! edit replaces the user's last message and what follows it. That turn reads the whole
//! conversation afresh and forgets what was kept ([`CarriedTurns::forget`]), and so does a
//! deleted chat. A `/reset` starts a new epoch, which is read afresh too. Appends made by anyone
//! (the task runner, another connection) are found by their `seq`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rusqlite::Connection;

use super::conversation::{self as store, CarriedTurn, Conversation};
use crate::error::Result;
use crate::runtimes::Transcript;

/// Conversations kept at once; the least recently used goes first. Each holds its epoch's
/// turns (a long chat: a few hundred KiB), so only the chats in use are kept.
const KEPT_CONVERSATIONS: usize = 16;

/// What was read of one conversation's epoch.
#[derive(Clone)]
struct Kept {
    epoch: i64,
    /// The highest `seq` read: the next read starts after it.
    last_seq: i64,
    /// Shared with the turn that read them last (its run holds them for a moment): appended to
    /// in place once it is done with them.
    turns: Arc<Vec<CarriedTurn>>,
    /// A user message read without its reply yet (and the run it started).
    pending_user: Option<(String, Option<String>)>,
    /// When it was last used, for eviction ...
    used: u64,
    /// ... and to forget it once unused for a while.
    used_at: Instant,
}

#[derive(Default)]
pub struct CarriedTurns {
    kept: Mutex<(HashMap<String, Kept>, u64)>,
}

impl CarriedTurns {
    /// The conversation's carried turns (as [`store::transcript`] reads them), reading only the
    /// messages stored since the last call for it. They are what is kept, shared: a send
    /// touches no turn it read before (each turn's text and run are separate allocations; a
    /// long chat's thousands of them, touched per send, cost more than the rest of its turn).
    /// Call it inside the transaction that stores the turn's message, so no append is missed in
    /// between.
    pub fn read(&self, conn: &Connection, conversation: &Conversation) -> Result<Transcript> {
        let mut guard = lock(&self.kept);
        let (kept, clock) = &mut *guard;
        *clock += 1;
        let mut entry = match kept.remove(&conversation.id) {
            Some(entry) if entry.epoch == conversation.epoch => entry,
            _ => Kept {
                epoch: conversation.epoch,
                last_seq: 0,
                turns: Arc::default(),
                pending_user: None,
                used: 0,
                used_at: Instant::now(),
            },
        };
        let rows = store::carried_rows_after(conn, conversation, entry.last_seq)?;
        if let Some(last) = rows.last() {
            entry.last_seq = last.seq;
        }
        if !rows.is_empty() {
            store::pair_carried(rows, Arc::make_mut(&mut entry.turns), &mut entry.pending_user);
        }
        entry.used = *clock;
        entry.used_at = Instant::now();
        let turns = Transcript::shared(Arc::clone(&entry.turns));
        if kept.len() >= KEPT_CONVERSATIONS {
            let oldest = kept.iter().min_by_key(|(_, k)| k.used).map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                kept.remove(&oldest);
            }
        }
        kept.insert(conversation.id.clone(), entry);
        Ok(turns)
    }

    /// Forgets the conversations no turn read since `cutoff` (the next turn reads its epoch
    /// afresh): the bytes of their messages' text given back.
    pub fn forget_unused_since(&self, cutoff: Instant) -> usize {
        let mut guard = lock(&self.kept);
        let mut given_back = 0;
        guard.0.retain(|_, kept| {
            let keep = kept.used_at >= cutoff;
            if !keep {
                given_back += kept.turns.iter().map(|turn| turn.user.len() + turn.assistant.len()).sum::<usize>();
            }
            keep
        });
        given_back
    }

    /// Drops what was kept of the conversation: its messages were replaced or it was deleted.
    pub fn forget(&self, conversation_id: &str) {
        lock(&self.kept).0.remove(conversation_id);
    }
}

/// The lock, even after a panic elsewhere: what is kept is only a cache of the store.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl std::fmt::Debug for CarriedTurns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CarriedTurns").field("conversations", &lock(&self.kept).0.len()).finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::store::Store;
    use crate::vocab::ChatRole;

    fn exchange(store: &Store, conversation: &Conversation, n: usize) {
        store
            .write(|tx| {
                store::add_message(tx, conversation, ChatRole::User, &format!("question {n}"), None, 0, 1)?;
                store::add_message(tx, conversation, ChatRole::Assistant, &format!("answer {n}"), None, 0, 1)?;
                Ok(())
            })
            .unwrap();
    }

    /// A store with one agent's chat (the folder holds the database: keep it while in use).
    fn one_chat() -> (tempfile::TempDir, Store, Conversation) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("clawboo.db")).unwrap();
        let conversation = store
            .write(|tx| {
                tx.execute(
                    "INSERT INTO agents (id, name, handle, tint, runtime, created_at, updated_at)
                     VALUES ('a', 'Pip', 'pip', 'mint', 'native', 1, 1)",
                    [],
                )?;
                store::new_chat(tx, "a", 1)
            })
            .unwrap();
        (dir, store, conversation)
    }

    #[test]
    fn a_send_shares_the_kept_text_instead_of_copying_it() {
        let (_dir, store, conversation) = one_chat();
        let kept = CarriedTurns::default();
        exchange(&store, &conversation, 1);
        let first = store.read(|c| kept.read(c, &conversation)).unwrap();
        exchange(&store, &conversation, 2);
        let second = store.read(|c| kept.read(c, &conversation)).unwrap();

        let texts: Vec<_> = second.iter().map(|t| (&*t.user, &*t.assistant)).collect();
        assert_eq!(texts, [("question 1", "answer 1"), ("question 2", "answer 2")]);
        // The turn read by the first send is the same text in the second: a long chat's kept
        // turns are not copied per send.
        assert!(Arc::ptr_eq(&first[0].user, &second[0].user) && Arc::ptr_eq(&first[0].assistant, &second[0].assistant));
    }

    #[test]
    fn turns_read_before_are_shared_whole_and_grown_in_place() {
        let (_dir, store, conversation) = one_chat();
        let kept = CarriedTurns::default();
        exchange(&store, &conversation, 1);
        let first = store.read(|c| kept.read(c, &conversation)).unwrap();
        let again = store.read(|c| kept.read(c, &conversation)).unwrap();
        assert!(first.is_shared_with(&again), "nothing new: the same turns, not a copy of each");
        drop((first, again));
        exchange(&store, &conversation, 2);
        let grown = store.read(|c| kept.read(c, &conversation)).unwrap();
        assert_eq!(grown.len(), 2);
        let next = store.read(|c| kept.read(c, &conversation)).unwrap();
        assert!(next.is_shared_with(&grown), "the grown turns, shared in turn");
    }

    #[test]
    fn a_conversation_left_unused_is_forgotten_and_read_afresh_the_same() {
        let (_dir, store, conversation) = one_chat();
        let kept = CarriedTurns::default();
        exchange(&store, &conversation, 1);
        let before_read = Instant::now();
        let first = store.read(|c| kept.read(c, &conversation)).unwrap();
        assert_eq!(kept.forget_unused_since(before_read), 0, "read since");
        assert_eq!(kept.forget_unused_since(Instant::now()), "question 1answer 1".len());
        assert_eq!(kept.forget_unused_since(Instant::now()), 0, "nothing left");

        exchange(&store, &conversation, 2);
        let again = store.read(|c| kept.read(c, &conversation)).unwrap();
        let texts: Vec<_> = again.iter().map(|t| (&*t.user, &*t.assistant)).collect();
        assert_eq!(texts, [("question 1", "answer 1"), ("question 2", "answer 2")], "the whole epoch read afresh");
        assert!(!Arc::ptr_eq(&first[0].user, &again[0].user), "not what was kept before");
    }
}
