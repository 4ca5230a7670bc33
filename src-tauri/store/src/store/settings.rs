//! The `settings` table: plain, non-secret key/value settings (keys live in the keychain).
//! One reader and writer for every service that keeps a setting there.

use rusqlite::{Connection, OptionalExtension};

use clawboo_vocab::error::Result;

/// The value stored under `key`, if any.
pub fn get(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn.prepare_cached("SELECT value FROM settings WHERE key = ?1")?.query_row([key], |r| r.get(0)).optional()?)
}

/// Stores `value` under `key`; `None` removes it (back to the default).
pub fn put(conn: &Connection, key: &str, value: Option<&str>) -> Result<()> {
    match value {
        Some(value) => conn.prepare_cached("INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value")?.execute([key, value])?,
        None => conn.prepare_cached("DELETE FROM settings WHERE key = ?1")?.execute([key])?,
    };
    Ok(())
}

/// Marks `key` as set; true only the first time (a flag for what is said once).
pub fn set_once(conn: &Connection, key: &str) -> Result<bool> {
    Ok(conn.prepare_cached("INSERT OR IGNORE INTO settings (key, value) VALUES (?1, '1')")?.execute([key])? == 1)
}
