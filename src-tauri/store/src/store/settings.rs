//! The `settings` table: plain, non-secret key/value settings (keys live in the keychain).
//! One reader and writer for every service that keeps a setting there.

use rusqlite::{Connection, OptionalExtension};

use clawboo_vocab::error::Result;

/// The value stored under `key`, if any.
pub fn get(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn.query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| r.get(0)).optional()?)
}

/// Stores `value` under `key`; `None` removes it (back to the default).
pub fn put(conn: &Connection, key: &str, value: Option<&str>) -> Result<()> {
    match value {
        Some(value) => conn.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [key, value],
        )?,
        None => conn.execute("DELETE FROM settings WHERE key = ?1", [key])?,
    };
    Ok(())
}

/// Marks `key` as set; true only the first time (a flag for what is said once).
pub fn set_once(conn: &Connection, key: &str) -> Result<bool> {
    Ok(conn.execute("INSERT OR IGNORE INTO settings (key, value) VALUES (?1, '1')", [key])? == 1)
}
