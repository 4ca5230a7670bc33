//! SQL of the task runner: a card's task conversation, its runs (rows of the shared `runs`
//! table, so events, relay requests and the Activity card work for them), each run's exact
//! context, and the runner's settings.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::types::{RunnerSettings, TaskRunContext};
use crate::board::CardRunKind;
use crate::chat::{RunErrorCode, RunStatus, RunSummary};
use crate::context::Section;
use crate::error::{Error, Result};
use crate::run::prepare::placement::Placement;
use crate::run::recorder::add_to_reply;
use crate::runtimes::RunEvent;
use crate::vocab::RuntimeKind;

/// The conversation that holds `agent_id`'s runs of card `card_id` (made on first use).
pub fn task_conversation(tx: &Transaction, card_id: &str, agent_id: &str, now: i64) -> Result<String> {
    tx.execute(
        "INSERT INTO conversations (id, agent_id, kind, card_id, created_at) VALUES (?1, ?2, 'task', ?3, ?4)
         ON CONFLICT (card_id, agent_id) WHERE kind = 'task' DO NOTHING",
        params![uuid::Uuid::new_v4().to_string(), agent_id, card_id, now],
    )?;
    Ok(tx.query_row(
        "SELECT id FROM conversations WHERE card_id = ?1 AND agent_id = ?2 AND kind = 'task'",
        params![card_id, agent_id],
        |r| r.get(0),
    )?)
}

/// A run row with the id the runner chose (the first run's id is the card's claim, taken
/// before the run could start).
pub fn insert_run(
    tx: &Transaction,
    run_id: &str,
    conversation_id: &str,
    agent_id: &str,
    runtime: RuntimeKind,
    now: i64,
) -> Result<RunSummary> {
    tx.execute(
        "INSERT INTO runs (id, conversation_id, agent_id, runtime, status, error, started_at, finished_at)
         VALUES (?1, ?2, ?3, ?4, 'running', NULL, ?5, NULL)",
        params![run_id, conversation_id, agent_id, runtime.as_str(), now],
    )?;
    Ok(RunSummary {
        id: run_id.to_owned(),
        agent_id: agent_id.to_owned(),
        runtime,
        status: RunStatus::Running,
        error: None,
        error_code: None,
        started_at: now,
        finished_at: None,
    })
}

pub fn finish_run(tx: &Transaction, run_id: &str, status: RunStatus, error: Option<&str>, now: i64) -> Result<()> {
    tx.execute(
        "UPDATE runs SET status = ?2, error = ?3, finished_at = ?4, error_code = ?5 WHERE id = ?1 AND status = 'running'",
        params![run_id, status.as_str(), error, now, RunErrorCode::of(status, error).map(RunErrorCode::as_str)],
    )?;
    Ok(())
}

/// What a run wrote as its reply, rebuilt from its stored events the way the recorder gathers
/// it live (`add_to_reply`).
pub fn run_text(conn: &Connection, run_id: &str) -> Result<String> {
    let mut stmt = conn.prepare_cached("SELECT event FROM run_events WHERE run_id = ?1 ORDER BY seq")?;
    let rows = stmt.query_map([run_id], |r| r.get::<_, String>(0))?;
    let mut text = String::new();
    for row in rows {
        if let Ok(event) = serde_json::from_str::<RunEvent>(&row?) {
            add_to_reply(&mut text, &event);
        }
    }
    Ok(text)
}

/// What `task_run_contexts.sections` holds.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredSections {
    sections: Vec<Section>,
    #[serde(default)]
    files: Vec<crate::context::files::FileDelivery>,
    #[serde(default)]
    project_file: Option<crate::context::files::ProjectFileDelivery>,
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Internal(e.to_string()))
}

pub fn insert_context(tx: &Transaction, context: &TaskRunContext) -> Result<()> {
    tx.execute(
        "INSERT INTO task_run_contexts
            (run_id, card_id, attempt, kind, placement, system_text, preamble, message, sections, cited, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            context.run_id,
            context.card_id,
            context.attempt,
            to_json(&context.kind)?,
            context.placement.as_str(),
            context.system_text,
            context.preamble,
            context.message,
            to_json(&StoredSections {
                sections: context.sections.clone(),
                files: context.files.clone(),
                project_file: context.project_file.clone(),
            })?,
            to_json(&context.cited)?,
            context.created_at,
        ],
    )?;
    Ok(())
}

pub fn context(conn: &Connection, run_id: &str) -> Result<Option<TaskRunContext>> {
    let row = conn
        .query_row(
            "SELECT card_id, attempt, kind, placement, system_text, preamble, message, sections, cited, created_at
             FROM task_run_contexts WHERE run_id = ?1",
            [run_id],
            |r| {
                Ok((
                    (r.get::<_, String>(0)?, r.get::<_, u32>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?),
                    (r.get::<_, Option<String>>(4)?, r.get::<_, Option<String>>(5)?, r.get::<_, String>(6)?),
                    (r.get::<_, String>(7)?, r.get::<_, String>(8)?, r.get::<_, i64>(9)?),
                ))
            },
        )
        .optional()?;
    let Some(((card_id, attempt, kind, placement), (system_text, preamble, message), (sections, cited, created_at))) =
        row
    else {
        return Ok(None);
    };
    let bad = |what: &str| Error::Internal(format!("the stored context of task run {run_id} has a bad {what}"));
    let kind: CardRunKind = serde_json::from_str(&kind).map_err(|_| bad("kind"))?;
    let stored: StoredSections = serde_json::from_str(&sections).map_err(|_| bad("section list"))?;
    Ok(Some(TaskRunContext {
        run_id: run_id.to_owned(),
        card_id,
        attempt,
        kind,
        placement: Placement::parse(&placement).ok_or_else(|| bad("placement"))?,
        system_text,
        preamble,
        message,
        sections: stored.sections,
        files: stored.files,
        project_file: stored.project_file,
        cited: serde_json::from_str(&cited).map_err(|_| bad("list of cited facts"))?,
        created_at,
    }))
}

const MAX_CONCURRENT_KEY: &str = "runner.max_concurrent";
const WALL_CLOCK_KEY: &str = "runner.wall_clock_secs";
const SILENCE_KEY: &str = "runner.silence_secs";

/// The stored settings; a missing or unreadable value is its default.
pub fn settings(conn: &Connection) -> Result<RunnerSettings> {
    let read = |key: &str| -> Result<Option<u32>> {
        Ok(crate::store::settings::get(conn, key)?.and_then(|v| v.trim().parse().ok()))
    };
    let defaults = RunnerSettings::default();
    Ok(RunnerSettings {
        max_concurrent: read(MAX_CONCURRENT_KEY)?.unwrap_or(defaults.max_concurrent),
        wall_clock_secs: read(WALL_CLOCK_KEY)?.unwrap_or(defaults.wall_clock_secs),
        silence_secs: read(SILENCE_KEY)?.unwrap_or(defaults.silence_secs),
    })
}

pub fn put_settings(tx: &Transaction, settings: &RunnerSettings) -> Result<()> {
    for (key, value) in [
        (MAX_CONCURRENT_KEY, settings.max_concurrent),
        (WALL_CLOCK_KEY, settings.wall_clock_secs),
        (SILENCE_KEY, settings.silence_secs),
    ] {
        crate::store::settings::put(tx, key, Some(&value.to_string()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::migrations::{migrate, MIGRATIONS};

    #[test]
    fn migration_11_keeps_every_conversation_and_its_runs_and_adds_task_conversations() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open(dir.path().join("clawboo.db")).unwrap();
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();
        let before: Vec<_> = MIGRATIONS.iter().copied().filter(|m| m.version < 11).collect();
        migrate(&mut conn, &before).unwrap();
        conn.execute_batch(
            "INSERT INTO agents (id, name, handle, tint, runtime, created_at, updated_at)
                 VALUES ('a', 'A', 'a', '#000', 'native', 0, 0);
             INSERT INTO conversations (id, agent_id, kind, session_id, epoch, created_at, session_setup)
                 VALUES ('c', 'a', 'direct', 's-1', 2, 5, 'fp');
             INSERT INTO runs (id, conversation_id, agent_id, runtime, status, started_at)
                 VALUES ('r', 'c', 'a', 'native', 'succeeded', 6);
             INSERT INTO messages (id, conversation_id, seq, role, content, run_id, epoch, created_at)
                 VALUES ('m', 'c', 1, 'user', 'hi', 'r', 2, 6);",
        )
        .unwrap();
        migrate(&mut conn, MIGRATIONS).unwrap();
        let kept: (String, String, Option<String>, i64, Option<String>) = conn
            .query_row(
                "SELECT agent_id, kind, session_id, epoch, session_setup FROM conversations WHERE id = 'c'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap();
        assert_eq!(kept, ("a".into(), "direct".into(), Some("s-1".into()), 2, Some("fp".into())));
        let runs: i64 =
            conn.query_row("SELECT COUNT(*) FROM runs WHERE conversation_id = 'c'", [], |r| r.get(0)).unwrap();
        assert_eq!(runs, 1);
        let err = conn
            .execute("INSERT INTO conversations (id, agent_id, kind, created_at) VALUES ('c2', 'a', 'direct', 0)", []);
        assert!(err.is_ok(), "many direct chats per agent since migration 25");
        let err =
            conn.execute("INSERT INTO conversations (id, agent_id, kind, created_at) VALUES ('t', 'a', 'task', 0)", []);
        assert!(err.is_err(), "a task conversation names its card");
        conn.execute_batch(
            "INSERT INTO card_numbers (id, last) VALUES (1, 0) ON CONFLICT DO NOTHING;
             INSERT INTO cards (id, number, title, status, origin, position, created_at, updated_at)
                 VALUES ('k', 1, 'T', 'todo', '{\"kind\":\"user\"}', 1, 0, 0);",
        )
        .unwrap();
        let tx = conn.transaction().unwrap();
        let first = task_conversation(&tx, "k", "a", 1).unwrap();
        assert_eq!(task_conversation(&tx, "k", "a", 2).unwrap(), first, "one per card and agent");
        tx.commit().unwrap();
        conn.execute("DELETE FROM cards WHERE id = 'k'", []).unwrap();
        let left: i64 =
            conn.query_row("SELECT COUNT(*) FROM conversations WHERE kind = 'task'", [], |r| r.get(0)).unwrap();
        assert_eq!(left, 0, "a card's task conversation goes with it");
    }
}
