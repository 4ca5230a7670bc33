//! Versioned schema migrations. Each runs in its own transaction together with the bump of
//! `PRAGMA user_version`, so a failure leaves the database at the previous version and the error
//! reaches the caller: nothing is swallowed.

use rusqlite::Connection;

use clawboo_vocab::error::{Error, Result};

#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub version: u32,
    pub name: &'static str,
    pub sql: &'static str,
    /// Rebuilds tables that others reference (SQLite cannot alter a constraint): runs with
    /// foreign keys off, and commits only when `PRAGMA foreign_key_check` finds nothing wrong.
    pub rebuilds_tables: bool,
}

impl Migration {
    pub const fn new(version: u32, name: &'static str, sql: &'static str) -> Self {
        Self { version, name, sql, rebuilds_tables: false }
    }

    pub const fn rebuilding(version: u32, name: &'static str, sql: &'static str) -> Self {
        Self { version, name, sql, rebuilds_tables: true }
    }
}

/// The app's migrations, in order. Append only: never edit one that has shipped.
pub const MIGRATIONS: &[Migration] = &[
    Migration::new(1, "agents and settings", include_str!("migrations/0001_agents.sql")),
    Migration::new(2, "chats, runs and run events", include_str!("migrations/0002_chat.sql")),
    Migration::new(3, "model relay requests", include_str!("migrations/0003_run_requests.sql")),
    Migration::new(4, "session setup fingerprint", include_str!("migrations/0004_session_setup.sql")),
    Migration::new(5, "an OpenClaw agent's existing Gateway", include_str!("migrations/0005_openclaw_gateway.sql")),
    Migration::new(6, "teams, their rules and rooms", include_str!("migrations/0006_teams.sql")),
    Migration::rebuilding(7, "team chat", include_str!("migrations/0007_team_chat.sql")),
    Migration::new(8, "shared memory", include_str!("migrations/0008_memory.sql")),
    Migration::new(9, "context deliveries", include_str!("migrations/0009_context_deliveries.sql")),
    Migration::new(10, "the Board", include_str!("migrations/0010_board.sql")),
    Migration::rebuilding(11, "task runs", include_str!("migrations/0011_task_runs.sql")),
    Migration::new(12, "a team's project folder", include_str!("migrations/0012_team_project_folder.sql")),
    Migration::new(13, "attention requests, approvals and their audit", include_str!("migrations/0013_attention.sql")),
    Migration::new(
        14,
        "agent-file deliveries per runtime session",
        include_str!("migrations/0014_file_deliveries.sql"),
    ),
    Migration::new(15, "routines and their runs", include_str!("migrations/0015_routines.sql")),
    Migration::new(16, "connectors and their shares", include_str!("migrations/0016_connectors.sql")),
    Migration::new(17, "Boo Zero's sections of a run's context", include_str!("migrations/0017_boo_zero.sql")),
    Migration::new(18, "shell grants per command prefix", include_str!("migrations/0018_shell_grants.sql")),
    Migration::new(
        19,
        "memory saves waiting for the user's approval",
        include_str!("migrations/0019_memory_save_requests.sql"),
    ),
    Migration::new(20, "each agent's sandbox and network", include_str!("migrations/0020_agent_sandbox.sql")),
    Migration::new(21, "why a run failed, as a code", include_str!("migrations/0021_run_error_codes.sql")),
    Migration::new(
        22,
        "an agent routine reporting to a team",
        include_str!("migrations/0022_routine_reports_to_team.sql"),
    ),
    Migration::new(
        23,
        "peer posts delivered per run, hand-off chains",
        include_str!("migrations/0023_turn_deliveries.sql"),
    ),
    Migration::new(24, "full-text search over messages", include_str!("migrations/0024_message_search.sql")),
    Migration::new(25, "many chats per agent", include_str!("migrations/0025_many_chats.sql")),
    Migration::new(26, "circuit breakers and budgets", include_str!("migrations/0026_run_guards.sql")),
    Migration::new(27, "superseded messages, read marks", include_str!("migrations/0027_message_actions.sql")),
    Migration::new(28, "spend per day and per run, prices", include_str!("migrations/0028_spend.sql")),
    Migration::new(29, "whose routine a room message is", include_str!("migrations/0029_room_routines.sql")),
    Migration::new(30, "budgets read the spend", include_str!("migrations/0030_budgets_read_spend.sql")),
    Migration::new(31, "a chat's current epoch by index", include_str!("migrations/0031_messages_by_epoch.sql")),
    Migration::new(32, "requests stored as what they add", include_str!("migrations/0032_request_deltas.sql")),
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
        if migration.rebuilds_tables {
            // Only takes effect outside a transaction; dropping a referenced table with foreign
            // keys on would cascade into its children.
            conn.pragma_update(None, "foreign_keys", "OFF").map_err(failed)?;
        }
        let applied = apply(conn, migration);
        if migration.rebuilds_tables {
            conn.pragma_update(None, "foreign_keys", "ON").map_err(failed)?;
        }
        applied?;
    }
    Ok(known.max(found))
}

fn apply(conn: &mut Connection, migration: &Migration) -> Result<()> {
    let failed = |source| Error::Migration { version: migration.version, name: migration.name, source };
    let tx = conn.transaction().map_err(failed)?;
    tx.execute_batch(migration.sql).map_err(failed)?;
    if migration.rebuilds_tables {
        let broken: Vec<String> = tx
            .prepare("PRAGMA foreign_key_check")
            .and_then(|mut s| s.query_map([], |r| r.get::<_, String>(0))?.collect())
            .map_err(failed)?;
        if !broken.is_empty() {
            return Err(Error::Internal(format!(
                "Database migration {} ({}) would break references in: {}",
                migration.version,
                migration.name,
                broken.join(", ")
            )));
        }
    }
    tx.pragma_update(None, "user_version", migration.version).map_err(failed)?;
    tx.commit().map_err(failed)?;
    Ok(())
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
