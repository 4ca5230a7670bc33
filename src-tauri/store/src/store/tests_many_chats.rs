//! Migration 25: a store made at migration 24 with `/reset`s becomes one chat per epoch, with
//! nothing lost.

use rusqlite::Connection;

use super::migrations::{self, Migration, MIGRATIONS};
use super::Store;

/// What the one-chat code wrote for an agent that reset twice: three epochs of messages (each
/// reset's notice opening the next), a run per user message with its events, the runtime
/// session on the conversation, and a second agent that never reset.
const THREE_EPOCHS: &str = "
    INSERT INTO agents (id, name, handle, tint, runtime, created_at, updated_at) VALUES
        ('a', 'Ada', 'ada', '#000', 'claude-code', 0, 0), ('b', 'Bo', 'bo', '#000', 'native', 0, 0);
    INSERT INTO conversations (id, agent_id, kind, session_id, session_runtime, epoch, created_at)
        VALUES ('c', 'a', 'direct', 'sess-3', 'claude-code', 2, 1),
               ('cb', 'b', 'direct', NULL, NULL, 0, 1);
    INSERT INTO runs (id, conversation_id, agent_id, runtime, status, started_at, finished_at) VALUES
        ('r1', 'c', 'a', 'claude-code', 'succeeded', 10, 11), ('r2', 'c', 'a', 'claude-code', 'succeeded', 20, 21),
        ('r3', 'c', 'a', 'claude-code', 'failed', 30, 31), ('r4', 'c', 'a', 'claude-code', 'succeeded', 40, 41),
        ('rb', 'cb', 'b', 'native', 'succeeded', 50, 51);
    INSERT INTO run_events (run_id, seq, at, event) VALUES
        ('r1', 1, 10, '{}'), ('r1', 2, 11, '{}'), ('r2', 1, 20, '{}'), ('r4', 1, 40, '{}'), ('rb', 1, 50, '{}');
    INSERT INTO messages (id, conversation_id, seq, role, content, run_id, epoch, created_at) VALUES
        ('m1', 'c', 1, 'user', 'Plan the walrus
migration', 'r1', 0, 10),
        ('m2', 'c', 2, 'assistant', 'Walrus plan ready.', 'r1', 0, 11),
        ('m3', 'c', 3, 'user', 'And the tests?', 'r2', 0, 20),
        ('m4', 'c', 4, 'assistant', 'Tests too.', 'r2', 0, 21),
        ('m5', 'c', 5, 'notice', 'Conversation reset: the agent starts fresh from the next message. Earlier messages stay here.', NULL, 1, 25),
        ('m6', 'c', 6, 'user', 'Pelican question', 'r3', 1, 30),
        ('m7', 'c', 7, 'notice', 'Conversation reset: the agent starts fresh from the next message. Earlier messages stay here.', NULL, 2, 35),
        ('m8', 'c', 8, 'user', 'Narwhal time', 'r4', 2, 40),
        ('m9', 'c', 9, 'assistant', 'Narwhal answer', 'r4', 2, 41),
        ('mb', 'cb', 1, 'user', 'Hello Bo', 'rb', 0, 50);
";

/// One chat after the migration: id, epoch, its message ids, title, runtime session, last activity.
type ChatRow = (String, i64, String, Option<String>, Option<String>, i64);

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn each_reset_epoch_becomes_its_own_chat_with_nothing_lost() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clawboo.db");
    let before: Vec<Migration> = MIGRATIONS.iter().copied().filter(|m| m.version < 25).collect();
    {
        let mut conn = Connection::open(&path).unwrap();
        migrations::migrate(&mut conn, &before).unwrap();
        conn.execute_batch(THREE_EPOCHS).unwrap();
        assert_eq!(count(&conn, "SELECT count(*) FROM messages"), 10);
        assert_eq!(count(&conn, "SELECT count(*) FROM runs"), 5);
    }
    let store = Store::open(&path).unwrap();
    store
        .read(|c| {
            assert_eq!(count(c, "SELECT count(*) FROM messages"), 10, "no message lost");
            assert_eq!(count(c, "SELECT count(*) FROM runs"), 5, "no run lost");
            assert_eq!(count(c, "SELECT count(*) FROM run_events"), 5, "no event lost");
            assert_eq!(count(c, "SELECT count(*) FROM conversations WHERE agent_id = 'a' AND kind = 'direct'"), 3);
            assert_eq!(count(c, "SELECT count(*) FROM conversations WHERE agent_id = 'b' AND kind = 'direct'"), 1);
            // Each chat holds exactly one epoch, its runs with it.
            let per_chat: Vec<ChatRow> = c
                .prepare(
                    "SELECT c.id, c.epoch, group_concat(m.id, ','), c.title, c.session_id, c.last_activity_at
                     FROM conversations c JOIN messages m ON m.conversation_id = c.id
                     WHERE c.agent_id = 'a' GROUP BY c.id ORDER BY c.epoch",
                )?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?
                .collect::<rusqlite::Result<_>>()?;
            let ids: Vec<&str> = per_chat.iter().map(|p| p.2.as_str()).collect();
            assert_eq!(ids, ["m1,m2,m3,m4", "m5,m6", "m7,m8,m9"]);
            let titles: Vec<Option<&str>> = per_chat.iter().map(|p| p.3.as_deref()).collect();
            assert_eq!(titles, [Some("Plan the walrus migration"), Some("Pelican question"), Some("Narwhal time")]);
            // The newest epoch keeps the conversation and its runtime session; the others start none.
            assert_eq!(per_chat[2].0, "c");
            assert_eq!(per_chat[2].4.as_deref(), Some("sess-3"));
            assert!(per_chat[0].4.is_none() && per_chat[1].4.is_none());
            assert_eq!(per_chat.iter().map(|p| p.5).collect::<Vec<_>>(), [21, 30, 41]);
            for (id, epoch, ..) in &per_chat {
                let runs_elsewhere = count(
                    c,
                    &format!(
                        "SELECT count(*) FROM messages m JOIN runs r ON r.id = m.run_id
                         WHERE m.conversation_id = '{id}' AND r.conversation_id != '{id}'"
                    ),
                );
                assert_eq!(runs_elsewhere, 0, "epoch {epoch}: its runs moved with it");
            }
            assert_eq!(count(c, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
            // The message index still finds every message, now in its own chat.
            let found = count(
                c,
                "SELECT count(*) FROM message_search JOIN message_search_docs d ON d.doc = message_search.rowid
                 WHERE message_search MATCH 'walrus'",
            );
            assert_eq!(found, 2);
            Ok(())
        })
        .unwrap();
    store
        .write(|tx| {
            tx.execute_batch("INSERT INTO message_search (message_search, rank) VALUES ('integrity-check', 1);")?;
            Ok(())
        })
        .unwrap();
}

/// A second chat for the same agent can be made once the one-per-agent index is gone.
#[test]
fn an_agent_may_have_many_chats() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("clawboo.db")).unwrap();
    store
        .write(|tx| {
            tx.execute_batch(
                "INSERT INTO agents (id, name, handle, tint, runtime, created_at, updated_at) VALUES ('a', 'A', 'a', '#000', 'native', 0, 0);
                 INSERT INTO conversations (id, agent_id, kind, epoch, created_at) VALUES ('c1', 'a', 'direct', 0, 0), ('c2', 'a', 'direct', 0, 1);",
            )?;
            Ok(())
        })
        .unwrap();
}
