//! SQLite store: one writer connection and a few pooled readers over the same WAL database.

pub mod migrations;
pub mod settings;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

use clawboo_vocab::error::{Error, Result};

const READERS: usize = 2;
/// Prepared statements kept per connection (rusqlite keeps 16 by default). A team message alone
/// runs ~50 distinct statements: with 16 kept, each send parsed most of them again.
const STATEMENT_CACHE: usize = 256;

pub struct Store {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and migrates it to the newest schema.
    pub fn open(path: &Path) -> Result<Self> {
        Self::open_with(path, migrations::MIGRATIONS)
    }

    pub(crate) fn open_with(path: &Path, migrations: &[migrations::Migration]) -> Result<Self> {
        let mut writer = Connection::open(path)?;
        configure(&writer)?;
        // WAL lets readers run while the writer writes; it persists in the file.
        let mode: String = writer.pragma_update_and_check(None, "journal_mode", "wal", |r| r.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::Internal(format!("SQLite refused WAL mode (got {mode})")));
        }
        migrations::migrate(&mut writer, migrations)?;

        let readers = (0..READERS)
            .map(|_| {
                let conn = Connection::open_with_flags(
                    path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                configure(&conn)?;
                Ok(Mutex::new(conn))
            })
            .collect::<Result<Vec<_>>>()?;

        Ok(Self { path: path.to_owned(), writer: Mutex::new(writer), readers })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` on a read-only connection.
    pub fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = self.reader();
        f(&conn)
    }

    /// Runs `f` in a write transaction, committed only when `f` succeeds.
    pub fn write<T>(&self, f: impl FnOnce(&Transaction) -> Result<T>) -> Result<T> {
        let mut conn = lock(&self.writer);
        let tx = conn.transaction()?;
        let value = f(&tx)?;
        tx.commit()?;
        Ok(value)
    }

    /// Like [`Store::write`], but takes SQLite's write lock when the transaction begins
    /// (`BEGIN IMMEDIATE`), so a transaction that reads before it writes cannot be overtaken by
    /// another connection to the same file: it waits (busy timeout) instead of failing.
    pub fn write_immediate<T>(&self, f: impl FnOnce(&Transaction) -> Result<T>) -> Result<T> {
        let mut conn = lock(&self.writer);
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let value = f(&tx)?;
        tx.commit()?;
        Ok(value)
    }

    /// Gives back each connection's page cache (`PRAGMA shrink_memory`); queries fill it again
    /// as they need. For after a burst of reading nobody repeats at idle, such as the engine's
    /// open (migrations, recoveries, backfills): up to SQLite's 2 MiB per connection.
    pub fn release_memory(&self) -> Result<()> {
        for conn in std::iter::once(&self.writer).chain(&self.readers) {
            lock(conn).execute_batch("PRAGMA shrink_memory")?;
        }
        Ok(())
    }

    fn reader(&self) -> MutexGuard<'_, Connection> {
        self.readers.iter().find_map(|r| r.try_lock().ok()).unwrap_or_else(|| lock(&self.readers[0]))
    }
}

fn configure(conn: &Connection) -> Result<()> {
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    // Plans never depend on a bound value (the query planner stability guarantee). Without it
    // SQLite marks a bound LIMIT, or a `column = ?` no index serves, as a value that may change
    // the plan, and a statement given back to the cache (its bindings cleared) expires: every
    // use of a cached statement was parsed and planned again (`sqlite3Reprepare`).
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(())
}

/// A poisoned lock only means another thread panicked mid-call; SQLite's own transaction
/// rollback keeps the connection consistent, so keep using it.
fn lock(m: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_many_chats;
