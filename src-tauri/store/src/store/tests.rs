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
