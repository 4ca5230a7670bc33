//! SQL of the task runner: a card's task conversation, its runs (rows of the shared `runs`
//! table, so events, relay requests and the Activity card work for them), each run's exact
//! context, and the runner's settings.

use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::types::{RunnerSettings, TaskRunContext};
use crate::board::CardRunKind;
use crate::chat::team::Placement;
use crate::chat::{RunStatus, RunSummary};
use crate::context::Section;
use crate::error::{Error, Result};
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
        started_at: now,
        finished_at: None,
    })
}

pub fn finish_run(tx: &Transaction, run_id: &str, status: RunStatus, error: Option<&str>, now: i64) -> Result<()> {
    tx.execute(
        "UPDATE runs SET status = ?2, error = ?3, finished_at = ?4 WHERE id = ?1 AND status = 'running'",
        params![run_id, status.as_str(), error, now],
    )?;
    Ok(())
}

/// What a run wrote as its reply, rebuilt from its stored events the way the recorder gathers
/// it (text deltas joined, whole messages set apart by a blank line).
pub fn run_text(conn: &Connection, run_id: &str) -> Result<String> {
    let mut stmt = conn.prepare_cached("SELECT event FROM run_events WHERE run_id = ?1 ORDER BY seq")?;
    let rows = stmt.query_map([run_id], |r| r.get::<_, String>(0))?;
    let mut text = String::new();
    for row in rows {
        match serde_json::from_str::<RunEvent>(&row?) {
            Ok(RunEvent::TextDelta { text: delta }) => text.push_str(&delta),
            Ok(RunEvent::Message { text: message }) => {
                if !text.is_empty() && !text.ends_with('\n') {
                    text.push_str("\n\n");
                }
                text.push_str(&message);
            }
            _ => {}
        }
    }
    Ok(text)
}

/// What `task_run_contexts.sections` holds.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredSections {
    sections: Vec<Section>,
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
            to_json(&StoredSections { sections: context.sections.clone() })?,
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
        let value: Option<String> =
            conn.query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| r.get(0)).optional()?;
        Ok(value.and_then(|v| v.trim().parse().ok()))
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
        tx.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![key, value.to_string()],
        )?;
    }
    Ok(())
}
