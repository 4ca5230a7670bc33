//! Versioned schema migrations. Each runs in its own transaction together with the bump of
//! `PRAGMA user_version`, so a failure leaves the database at the previous version and the error
//! reaches the caller: nothing is swallowed.

use rusqlite::Connection;

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub version: u32,
    pub name: &'static str,
    pub sql: &'static str,
}

/// The app's migrations, in order. Append only: never edit one that has shipped.
pub const MIGRATIONS: &[Migration] = &[
    Migration { version: 1, name: "agents and settings", sql: include_str!("migrations/0001_agents.sql") },
    Migration { version: 2, name: "chats, runs and run events", sql: include_str!("migrations/0002_chat.sql") },
    Migration { version: 3, name: "model relay requests", sql: include_str!("migrations/0003_run_requests.sql") },
    Migration { version: 4, name: "session setup fingerprint", sql: include_str!("migrations/0004_session_setup.sql") },
    Migration {
        version: 5,
        name: "an OpenClaw agent's existing Gateway",
        sql: include_str!("migrations/0005_openclaw_gateway.sql"),
    },
    Migration { version: 6, name: "teams, their rules and rooms", sql: include_str!("migrations/0006_teams.sql") },
];

pub fn schema_version(conn: &Connection) -> Result<u32> {
    Ok(conn.pragma_query_value(None, "user_version", |row| row.get(0))?)
}

/// Brings the database up to the newest version in `migrations`; returns that version.
pub fn migrate(conn: &mut Connection, migrations: &[Migration]) -> Result<u32> {
    check_ordered(migrations)?;
    let known = migrations.last().map_or(0, |m| m.version);
    let found = schema_version(conn)?;
    if found > known {
        return Err(Error::StoreTooNew { found, known });
    }
    for migration in migrations.iter().filter(|m| m.version > found) {
        let failed = |source| Error::Migration { version: migration.version, name: migration.name, source };
        let tx = conn.transaction().map_err(failed)?;
        tx.execute_batch(migration.sql).map_err(failed)?;
        tx.pragma_update(None, "user_version", migration.version).map_err(failed)?;
        tx.commit().map_err(failed)?;
    }
    Ok(known.max(found))
}

fn check_ordered(migrations: &[Migration]) -> Result<()> {
    let mut previous = 0;
    for m in migrations {
        if m.version <= previous {
            return Err(Error::Internal(format!("migration versions must increase: {} follows {previous}", m.version)));
        }
        previous = m.version;
    }
    Ok(())
}
