use super::migrations::{schema_version, Migration, MIGRATIONS};
use super::*;
use clawboo_vocab::error::ErrorCode;

fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clawboo.db");
    (dir, path)
}

#[test]
fn fresh_database_is_migrated_with_wal_and_foreign_keys() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let latest = MIGRATIONS.last().unwrap().version;
    store
        .read(|c| {
            assert_eq!(schema_version(c)?, latest);
            let mode: String = c.pragma_query_value(None, "journal_mode", |r| r.get(0))?;
            assert_eq!(mode, "wal");
            let fk: i64 = c.pragma_query_value(None, "foreign_keys", |r| r.get(0))?;
            assert_eq!(fk, 1);
            Ok(())
        })
        .unwrap();
}

#[test]
fn reopening_keeps_data_and_does_not_rerun_migrations() {
    let (_dir, path) = temp_db();
    Store::open(&path)
        .unwrap()
        .write(|tx| Ok(tx.execute("INSERT INTO settings (key, value) VALUES ('k', 'v')", [])?))
        .unwrap();
    let store = Store::open(&path).unwrap();
    let value: String =
        store.read(|c| Ok(c.query_row("SELECT value FROM settings WHERE key = 'k'", [], |r| r.get(0))?)).unwrap();
    assert_eq!(value, "v");
}

#[test]
fn a_failing_migration_is_reported_and_rolled_back_whole() {
    let (_dir, path) = temp_db();
    let broken = [MIGRATIONS[0], Migration::new(2, "broken", "CREATE TABLE half_done (x); THIS IS NOT SQL;")];
    let err = Store::open_with(&path, &broken).err().expect("a broken migration must fail");
    assert!(matches!(err, Error::Migration { version: 2, .. }), "{err}");
    assert_eq!(err.code(), ErrorCode::Store);
    assert!(err.to_string().contains("broken"), "{err}");

    let conn = Connection::open(&path).unwrap();
    assert_eq!(schema_version(&conn).unwrap(), 1, "version stays at the last good migration");
    let half: i64 =
        conn.query_row("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'", [], |r| r.get(0)).unwrap();
    assert_eq!(half, 0, "nothing of the failed migration remains");
}

#[test]
fn a_database_from_a_newer_app_is_refused() {
    let (_dir, path) = temp_db();
    Connection::open(&path).unwrap().pragma_update(None, "user_version", 999).unwrap();
    let err = Store::open(&path).err().expect("must refuse");
    assert!(matches!(err, Error::StoreTooNew { found: 999, .. }), "{err}");
}

#[test]
fn migrations_out_of_order_are_refused() {
    let (_dir, path) = temp_db();
    let unordered = [Migration::new(2, "b", ""), Migration::new(1, "a", "")];
    assert!(Store::open_with(&path, &unordered).is_err());
}

#[test]
fn shipped_migrations_are_ordered() {
    let mut conn = Connection::open_in_memory().unwrap();
    assert_eq!(migrations::migrate(&mut conn, MIGRATIONS).unwrap(), MIGRATIONS.last().unwrap().version);
}

#[test]
fn fts5_is_available() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    store
        .write(|tx| {
            tx.execute_batch(
                "CREATE VIRTUAL TABLE notes USING fts5(body);
                 INSERT INTO notes (body) VALUES ('the quick brown fox'), ('lazy dogs sleep');",
            )?;
            let hit: String =
                tx.query_row("SELECT body FROM notes WHERE notes MATCH 'fox' ORDER BY bm25(notes)", [], |r| r.get(0))?;
            assert_eq!(hit, "the quick brown fox");
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_failed_write_commits_nothing() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    let result: Result<()> = store.write(|tx| {
        tx.execute("INSERT INTO settings (key, value) VALUES ('a', '1')", [])?;
        Err(Error::InvalidInput("stop".into()))
    });
    assert!(result.is_err());
    let count: i64 = store.read(|c| Ok(c.query_row("SELECT count(*) FROM settings", [], |r| r.get(0))?)).unwrap();
    assert_eq!(count, 0);
}

/// The ids of the messages whose text matches `query` in the message index, oldest first.
fn indexed(conn: &Connection, query: &str) -> Vec<String> {
    let mut stmt = conn
        .prepare(
            "SELECT d.message_id FROM message_search JOIN message_search_docs d ON d.doc = message_search.rowid
             WHERE message_search MATCH ?1 ORDER BY d.doc",
        )
        .unwrap();
    stmt.query_map([query], |r| r.get(0)).unwrap().collect::<rusqlite::Result<_>>().unwrap()
}

/// FTS5's own check that the index agrees with its content (a command, so written).
fn integrity_check(store: &Store) {
    store
        .write(|tx| {
            tx.execute_batch("INSERT INTO message_search (message_search, rank) VALUES ('integrity-check', 1);")?;
            Ok(())
        })
        .unwrap();
}

const ONE_CHAT_AND_ROOM: &str = "
    INSERT INTO agents (id, name, handle, tint, runtime, created_at, updated_at) VALUES ('a', 'A', 'a', '#000', 'native', 0, 0);
    INSERT INTO conversations (id, agent_id, kind, epoch, created_at) VALUES ('c', 'a', 'direct', 0, 0);
    INSERT INTO teams (id, name, created_at, updated_at) VALUES ('t', 'T', 0, 0);
    INSERT INTO rooms (id, team_id, name, is_general, position, created_at) VALUES ('r', 't', 'General', 1, 0, 0);
    INSERT INTO conversations (id, agent_id, kind, room_id, epoch, created_at) VALUES ('rc', 'a', 'room', 'r', 0, 0);
";

/// A store made before the index exists gets its chat and room messages indexed by the
/// migration, oldest first; an agent's private transcript of a room is not indexed.
#[test]
fn the_message_index_is_filled_from_an_existing_store() {
    let (_dir, path) = temp_db();
    let before: Vec<Migration> = MIGRATIONS.iter().copied().filter(|m| m.version < 24).collect();
    {
        let mut conn = Connection::open(&path).unwrap();
        migrations::migrate(&mut conn, &before).unwrap();
        conn.execute_batch(ONE_CHAT_AND_ROOM).unwrap();
        conn.execute_batch(
            "INSERT INTO messages (id, conversation_id, seq, role, content, epoch, created_at)
                 VALUES ('m2', 'c', 2, 'assistant', 'The invoice is in the billing folder.', 0, 5),
                        ('m1', 'c', 1, 'user', 'Where is the invoice template?', 0, 1),
                        ('private', 'rc', 1, 'user', 'invoice in a private room transcript', 0, 2);
             INSERT INTO room_messages (id, room_id, seq, kind, content, created_at)
                 VALUES ('rm1', 'r', 1, 'user', 'Ship the invoice fix today', 3);",
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    store
        .read(|c| {
            assert_eq!(indexed(c, "invoice"), ["m1", "rm1", "m2"]);
            assert_eq!(indexed(c, "billing"), ["m2"]);
            Ok(())
        })
        .unwrap();
    integrity_check(&store);
}

/// Inserts, edits and deletes (also those cascading from a deleted agent or team) change the
/// index in the same transaction.
#[test]
fn the_message_index_follows_every_change() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    store
        .write(|tx| {
            tx.execute_batch(ONE_CHAT_AND_ROOM)?;
            tx.execute_batch(
                "INSERT INTO messages (id, conversation_id, seq, role, content, epoch, created_at)
                     VALUES ('m1', 'c', 1, 'user', 'the walrus plan', 0, 1),
                            ('m2', 'c', 2, 'assistant', 'a pelican plan', 0, 2),
                            ('private', 'rc', 1, 'user', 'a walrus plan in private', 0, 2);
                 INSERT INTO room_messages (id, room_id, seq, kind, content, created_at)
                     VALUES ('rm1', 'r', 1, 'user', 'walrus in the room', 3);",
            )?;
            Ok(())
        })
        .unwrap();
    store
        .read(|c| {
            assert_eq!(indexed(c, "plan"), ["m1", "m2"]);
            assert_eq!(indexed(c, "walrus"), ["m1", "rm1"]);
            Ok(())
        })
        .unwrap();
    integrity_check(&store);
    store
        .write(|tx| {
            tx.execute("UPDATE messages SET content = 'the narwhal plan' WHERE id = 'm1'", [])?;
            tx.execute("UPDATE messages SET content = 'narwhal too' WHERE id = 'private'", [])?;
            tx.execute("DELETE FROM messages WHERE id = 'm2'", [])?;
            Ok(())
        })
        .unwrap();
    store
        .read(|c| {
            assert_eq!(indexed(c, "walrus"), ["rm1"]);
            assert_eq!(indexed(c, "narwhal"), ["m1"]);
            assert!(indexed(c, "pelican").is_empty());
            Ok(())
        })
        .unwrap();
    integrity_check(&store);
    // Deleting the agent deletes its conversations and their messages; the team its rooms.
    store
        .write(|tx| {
            tx.execute("DELETE FROM agents WHERE id = 'a'", [])?;
            tx.execute("DELETE FROM teams WHERE id = 't'", [])?;
            Ok(())
        })
        .unwrap();
    store
        .read(|c| {
            assert!(indexed(c, "narwhal OR plan OR walrus").is_empty());
            let left: i64 = c.query_row("SELECT count(*) FROM message_search_docs", [], |r| r.get(0))?;
            assert_eq!(left, 0, "no deleted message stays indexed");
            Ok(())
        })
        .unwrap();
    integrity_check(&store);
}

#[test]
fn releasing_memory_keeps_every_connection_working() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    store.write(|tx| Ok(tx.execute("INSERT INTO settings (key, value) VALUES ('k', 'v')", [])?)).unwrap();
    store.release_memory().unwrap();
    let value: String =
        store.read(|c| Ok(c.query_row("SELECT value FROM settings WHERE key = 'k'", [], |r| r.get(0))?)).unwrap();
    assert_eq!(value, "v");
    store.write(|tx| Ok(tx.execute("UPDATE settings SET value = 'w' WHERE key = 'k'", [])?)).unwrap();
}

/// What SQLite's planner says it does for `sql` (its `detail` lines).
fn plan(conn: &Connection, sql: &str) -> String {
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let unbound = rusqlite::params_from_iter(vec![rusqlite::types::Null; stmt.parameter_count()]);
    let details = stmt.query_map(unbound, |r| r.get::<_, String>(3)).unwrap();
    details.collect::<rusqlite::Result<Vec<_>>>().unwrap().join("; ")
}

#[test]
fn a_chats_current_epoch_is_read_by_its_index_not_through_the_epochs_before_it() {
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    // The send path's reads of the current epoch (`clawboo-run`'s conversation rows): whether it
    // has a reply, its last user message, the carried messages after a point.
    let reads = [
        "SELECT EXISTS (SELECT 1 FROM messages WHERE conversation_id = ?1 AND epoch = ?2 AND role = 'assistant' \
         AND superseded_at IS NULL)",
        "SELECT id, seq, content FROM messages WHERE conversation_id = ?1 AND epoch = ?2 AND role = 'user' \
         AND superseded_at IS NULL ORDER BY seq DESC LIMIT 1",
        "SELECT seq, role, content, carried, run_id FROM messages WHERE conversation_id = ?1 AND seq > ?3 \
         AND epoch = ?2 AND role != 'notice' AND superseded_at IS NULL ORDER BY seq",
    ];
    store
        .read(|c| {
            for sql in reads {
                let plan = plan(c, sql);
                assert!(plan.contains("USING INDEX messages_by_epoch (conversation_id=? AND epoch=?"), "{sql}: {plan}");
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_cached_statement_is_not_prepared_again_on_every_use() {
    use rusqlite::StatementStatus;
    let (_dir, path) = temp_db();
    let store = Store::open(&path).unwrap();
    store
        .write(|tx| {
            for n in 0..5 {
                tx.execute("INSERT INTO settings (key, value) VALUES (?1, ?2)", rusqlite::params![format!("k{n}"), n])?;
            }
            Ok(())
        })
        .unwrap();
    // A bound LIMIT and a filter on a column no index serves: SQLite marks both parameters as
    // ones whose value may change the plan, and a statement given back to rusqlite's cache has
    // its bindings cleared, which expired it: every use parsed and planned it again.
    for reader in [true, false] {
        let uses = |conn: &Connection| -> Result<i32> {
            for n in 0..4 {
                let mut stmt = conn.prepare_cached("SELECT key FROM settings WHERE value = ?1 LIMIT ?2")?;
                let keys = stmt.query_map(rusqlite::params![n, n + 1], |r| r.get::<_, String>(0))?;
                assert_eq!(keys.collect::<rusqlite::Result<Vec<_>>>()?, [format!("k{n}")]);
                if n == 3 {
                    return Ok(stmt.get_status(StatementStatus::RePrepare));
                }
            }
            unreachable!()
        };
        let reprepared = if reader { store.read(uses) } else { store.write(|tx| uses(tx)) }.unwrap();
        assert_eq!(reprepared, 0, "prepared again on reuse (reader: {reader})");
    }
}
