//! OpenClaw's session store, read from its agent database
//! (`<state>/agents/main/agent/openclaw-agent.sqlite`). ACP does not report token usage, and a
//! failed model call ends the prompt with a plain `end_turn`: both are read here, from the
//! transcript (`transcript_events`, one JSON event per row) of the session behind the ACP one
//! (`session_nodes`: session key → current session id). Read-only.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde_json::Value;

/// The Gateway session key the ACP bridge files an ACP session under.
pub fn session_key(acp_session: &str) -> String {
    format!("agent:main:acp-bridge:{acp_session}")
}

/// Where a session's transcript stood: its current session id and last event number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub session_id: String,
    pub seq: i64,
}

/// What the transcript says about one turn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnSummary {
    /// Input, output, cache-read and cache-write tokens over the turn's model calls.
    pub usage: Option<[u64; 4]>,
    /// The model call's error, when the turn's last answer was one.
    pub error: Option<String>,
}

fn open(db: &Path) -> rusqlite::Result<Connection> {
    let connection =
        Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)?;
    connection.busy_timeout(Duration::from_secs(3))?;
    Ok(connection)
}

/// The transcript's current position for an ACP session, or None when OpenClaw has no such
/// session (or no database).
pub fn mark(db: &Path, acp_session: &str) -> Option<Mark> {
    if !db.exists() {
        return None;
    }
    let connection = open(db).ok()?;
    let session_id: String = connection
        .query_row(
            "SELECT current_session_id FROM session_nodes WHERE session_key = ?1",
            [session_key(acp_session)],
            |row| row.get(0),
        )
        .optional()
        .ok()
        .flatten()?;
    let seq: Option<i64> = connection
        .query_row("SELECT max(seq) FROM transcript_events WHERE session_id = ?1", [&session_id], |row| row.get(0))
        .ok()
        .flatten();
    Some(Mark { session_id, seq: seq.unwrap_or(0) })
}

/// The events an ACP session's transcript gained after `since` (from its start when None, or
/// when the session has moved to a new transcript since).
pub fn events_since(db: &Path, acp_session: &str, since: Option<&Mark>) -> Result<Vec<Value>, String> {
    let now = mark(db, acp_session).ok_or_else(|| format!("OpenClaw has no session {acp_session}"))?;
    let after = since.filter(|m| m.session_id == now.session_id).map_or(0, |m| m.seq);
    let connection = open(db).map_err(|e| e.to_string())?;
    let mut statement = connection
        .prepare(
            "SELECT event_json FROM transcript_events \
             WHERE session_id = ?1 AND seq > ?2 AND event_json IS NOT NULL ORDER BY seq",
        )
        .map_err(|e| e.to_string())?;
    let rows = statement
        .query_map(rusqlite::params![now.session_id, after], |row| row.get::<_, String>(0))
        .map_err(|e| e.to_string())?;
    let mut events = Vec::new();
    for row in rows {
        if let Ok(event) = serde_json::from_str::<Value>(&row.map_err(|e| e.to_string())?) {
            events.push(event);
        }
    }
    Ok(events)
}

/// Sums the usage of the assistant messages and finds whether the last one was an error.
pub fn summarize<'a>(events: impl IntoIterator<Item = &'a Value>) -> TurnSummary {
    let mut summary = TurnSummary::default();
    for event in events {
        let message = &event["message"];
        if event["type"] != "message" || message["role"] != "assistant" {
            continue;
        }
        let usage = &message["usage"];
        if usage.is_object() {
            let n = |k: &str| usage[k].as_u64().unwrap_or(0);
            let total = summary.usage.get_or_insert([0; 4]);
            for (slot, key) in total.iter_mut().zip(["input", "output", "cacheRead", "cacheWrite"]) {
                // A transcript's counts are the runtime's word: an absurd one saturates, never
                // overflows (the fuzz test found u64::MAX in a usage).
                *slot = slot.saturating_add(n(key));
            }
        }
        summary.error = (message["stopReason"] == "error").then(|| error_text(message));
    }
    if summary.usage == Some([0; 4]) {
        summary.usage = None;
    }
    summary
}

/// "500 fake overload" with code "500" → "The model request failed (HTTP 500): fake overload".
fn error_text(message: &Value) -> String {
    let text = message["errorMessage"].as_str().unwrap_or("").trim();
    let code = message["errorCode"]
        .as_str()
        .map(str::to_owned)
        .or_else(|| message["errorCode"].as_u64().map(|c| c.to_string()));
    match code.filter(|c| !c.is_empty() && c.chars().all(|ch| ch.is_ascii_digit())) {
        Some(code) => {
            let rest = text.strip_prefix(code.as_str()).unwrap_or(text).trim();
            let rest = if rest.is_empty() { "no details" } else { rest };
            format!("The model request failed (HTTP {code}): {rest}")
        }
        None if text.is_empty() => "The model request failed.".to_owned(),
        None => format!("The model request failed: {text}"),
    }
}
