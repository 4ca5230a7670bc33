//! OpenClaw's session transcript, read from its agent database
//! (`<state>/agents/main/agent/openclaw-agent.sqlite`, table `transcript_events`: one JSON event
//! per row, `message` events tagged with the run that wrote them). The `--json` envelope only
//! counts tool calls; the transcript has each call and its result. Read-only, after the turn.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde_json::Value;

use crate::runtimes::RunEvent;

fn open(db: &Path) -> rusqlite::Result<Connection> {
    let connection =
        Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    connection.busy_timeout(Duration::from_secs(3))?;
    Ok(connection)
}

/// Whether OpenClaw still has a transcript for `session_id` (false when the database is gone).
pub fn session_exists(db: &Path, session_id: &str) -> bool {
    if !db.exists() {
        return false;
    }
    let found = open(db).and_then(|c| {
        c.query_row("SELECT 1 FROM transcript_events WHERE session_id = ?1 LIMIT 1", [session_id], |_| Ok(()))
            .optional()
    });
    matches!(found, Ok(Some(())))
}

/// The tool calls and results run `run_id` recorded in `session_id`, in order.
pub fn tool_events(db: &Path, session_id: &str, run_id: &str) -> Result<Vec<RunEvent>, String> {
    let connection = open(db).map_err(|e| e.to_string())?;
    // `instr` only narrows the rows; each one is parsed and its run id compared.
    let mut statement = connection
        .prepare(
            "SELECT event_json FROM transcript_events \
             WHERE session_id = ?1 AND event_json IS NOT NULL AND instr(event_json, ?2) > 0 ORDER BY seq",
        )
        .map_err(|e| e.to_string())?;
    let rows = statement.query_map([session_id, run_id], |row| row.get::<_, String>(0)).map_err(|e| e.to_string())?;
    let mut events = Vec::new();
    for row in rows {
        let json = row.map_err(|e| e.to_string())?;
        let Ok(event) = serde_json::from_str::<Value>(&json) else { continue };
        events.extend(message_events(&event, run_id));
    }
    Ok(events)
}

/// The tool events of one transcript event, if it is a message of run `run_id`.
pub fn message_events(event: &Value, run_id: &str) -> Vec<RunEvent> {
    let message = &event["message"];
    if event["type"] != "message" || message["__openclaw"]["runId"] != run_id {
        return Vec::new();
    }
    match message["role"].as_str() {
        Some("assistant") => message["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|part| part["type"] == "toolCall")
            .map(|part| RunEvent::ToolCallStarted {
                call_id: part["id"].as_str().unwrap_or_default().to_owned(),
                name: part["name"].as_str().unwrap_or("tool").to_owned(),
                input: part["arguments"].clone(),
            })
            .collect(),
        Some("toolResult") => vec![RunEvent::ToolResult {
            call_id: message["toolCallId"].as_str().unwrap_or_default().to_owned(),
            output: text_of(&message["content"]),
            is_error: message["isError"] == Value::Bool(true),
        }],
        _ => Vec::new(),
    }
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}
