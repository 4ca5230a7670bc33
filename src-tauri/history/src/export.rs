//! Exports: a one-to-one chat, a team room, or a card's runs, as Markdown to read or as JSON
//! with the exact stored events (each event's stored JSON, byte for byte).
//!
//! What an export holds is read from what the store keeps of a conversation: messages, runs and
//! their normalised events. It never reads the relay's recorded requests, the settings or the
//! keychain, and keys are never stored in what it reads (`tests/keys_nowhere_stored.rs` scans
//! exports too), so an export never carries a key.

use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use clawboo_vocab::error::{Error, Result};

/// What to export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum ExportTarget {
    /// A one-to-one chat: its conversation.
    Chat { id: String },
    /// An agent's one-to-one chat (today each agent has one; with many, [`ExportTarget::Chat`]
    /// names which).
    AgentChat { agent_id: String },
    /// A team room.
    Room { id: String },
    /// Every run of a Board card.
    Card { id: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Markdown,
    Json,
}

/// A rendered export and the file name to offer in the save dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Export {
    pub file_name: String,
    pub contents: String,
}

/// The version of the JSON export's shape.
const JSON_VERSION: u32 = 1;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    format: &'static str,
    version: u32,
    exported_at: i64,
    title: &'a str,
    about: &'a Value,
    messages: &'a [MessageRecord],
    runs: &'a [RunRecord],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StoredEvent {
    seq: i64,
    at: i64,
    event: Box<RawValue>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunRecord {
    id: String,
    agent_id: String,
    agent_name: Option<String>,
    runtime: String,
    status: String,
    error: Option<String>,
    started_at: i64,
    finished_at: Option<i64>,
    /// A card's run: its attempt and kind (run, fix, rotation, handoff).
    #[serde(skip_serializing_if = "Option::is_none")]
    attempt: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    card_run_kind: Option<String>,
    events: Vec<StoredEvent>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageRecord {
    id: String,
    seq: i64,
    /// A chat: user, assistant, notice. A room: user, reply, handoff, batch, notice.
    kind: String,
    author_id: Option<String>,
    author: String,
    content: String,
    run_id: Option<String>,
    created_at: i64,
}

/// Renders `target` as `format`. `now_ms`: when, for the heading and the file name.
pub fn export(conn: &Connection, target: &ExportTarget, format: ExportFormat, now_ms: i64) -> Result<Export> {
    let (title, slug, header, messages, runs) = match target {
        ExportTarget::Chat { id } => chat(conn, id)?,
        ExportTarget::AgentChat { agent_id } => {
            let id: String = conn
                .query_row(
                    "SELECT id FROM conversations WHERE agent_id = ?1 AND kind = 'direct' AND deleted_at IS NULL
                     ORDER BY last_activity_at DESC, rowid DESC LIMIT 1",
                    [agent_id],
                    |r| r.get(0),
                )
                .optional()?
                .ok_or_else(|| Error::NotFound("That agent's chat".into()))?;
            chat(conn, &id)?
        }
        ExportTarget::Room { id } => room(conn, id)?,
        ExportTarget::Card { id } => card(conn, id)?,
    };
    let stamp = date_time(now_ms);
    let day = stamp.get(..10).unwrap_or("").to_owned();
    let (extension, contents) = match format {
        ExportFormat::Json => {
            // Serialised as a struct, not through `Value`: the events' raw JSON goes in verbatim.
            let doc = Document {
                format: "clawboo-export",
                version: JSON_VERSION,
                exported_at: now_ms,
                title: &title,
                about: &header,
                messages: &messages,
                runs: &runs,
            };
            ("json", serde_json::to_string_pretty(&doc).map_err(|e| Error::Internal(e.to_string()))? + "\n")
        }
        ExportFormat::Markdown => ("md", markdown(&title, &stamp, &messages, &runs)),
    };
    Ok(Export { file_name: format!("{slug}-{day}.{extension}"), contents })
}

type Parts = (String, String, Value, Vec<MessageRecord>, Vec<RunRecord>);

fn chat(conn: &Connection, id: &str) -> Result<Parts> {
    let (agent_id, agent_name, created_at): (String, String, i64) = conn
        .query_row(
            "SELECT a.id, a.name, c.created_at FROM conversations c JOIN agents a ON a.id = c.agent_id
             WHERE c.id = ?1 AND c.kind = 'direct' AND c.deleted_at IS NULL",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?
        .ok_or_else(|| Error::NotFound("That chat".into()))?;
    let mut stmt = conn.prepare(
        "SELECT id, seq, role, content, run_id, created_at FROM messages WHERE conversation_id = ?1 ORDER BY seq",
    )?;
    let messages = stmt
        .query_map([id], |r| {
            let role: String = r.get(2)?;
            Ok(MessageRecord {
                id: r.get(0)?,
                seq: r.get(1)?,
                author_id: (role == "assistant").then(|| agent_id.clone()),
                author: author_of_chat(&role, &agent_name),
                kind: role,
                content: r.get(3)?,
                run_id: r.get(4)?,
                created_at: r.get(5)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let runs = runs(conn, "WHERE r.conversation_id = ?1", id)?;
    let header = serde_json::json!({"kind": "chat", "conversationId": id, "agentId": agent_id,
        "agentName": agent_name, "createdAt": created_at});
    Ok((format!("Chat with {agent_name}"), slug(&format!("chat-{agent_name}")), header, messages, runs))
}

fn author_of_chat(role: &str, agent: &str) -> String {
    match role {
        "user" => "You".into(),
        "assistant" => agent.into(),
        _ => "Clawboo".into(),
    }
}

fn room(conn: &Connection, id: &str) -> Result<Parts> {
    let (room_name, team_id, team_name): (String, String, String) = conn
        .query_row(
            "SELECT r.name, t.id, t.name FROM rooms r JOIN teams t ON t.id = r.team_id WHERE r.id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?
        .ok_or_else(|| Error::NotFound("That room".into()))?;
    let mut stmt = conn.prepare(
        "SELECT m.id, m.seq, m.kind, m.author_id, a.name, m.content, m.run_id, m.created_at
         FROM room_messages m LEFT JOIN agents a ON a.id = m.author_id WHERE m.room_id = ?1 ORDER BY m.seq",
    )?;
    let messages = stmt
        .query_map([id], |r| {
            let kind: String = r.get(2)?;
            let name: Option<String> = r.get(4)?;
            Ok(MessageRecord {
                id: r.get(0)?,
                seq: r.get(1)?,
                author_id: r.get(3)?,
                author: match kind.as_str() {
                    "user" => "You".into(),
                    "notice" => "Clawboo".into(),
                    "handoff" => format!("{} (hand-off)", name.unwrap_or_else(|| "A deleted agent".into())),
                    "batch" => format!("Results for {}", name.unwrap_or_else(|| "a deleted agent".into())),
                    _ => name.unwrap_or_else(|| "A deleted agent".into()),
                },
                kind,
                content: r.get(5)?,
                run_id: r.get(6)?,
                created_at: r.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let runs =
        runs(conn, "JOIN conversations c ON c.id = r.conversation_id WHERE c.kind = 'room' AND c.room_id = ?1", id)?;
    let title = format!("#{room_name} · {team_name}");
    let header = serde_json::json!({"kind": "room", "roomId": id, "roomName": room_name, "teamId": team_id,
        "teamName": team_name});
    Ok((title, slug(&format!("{team_name}-{room_name}")), header, messages, runs))
}

fn card(conn: &Connection, id: &str) -> Result<Parts> {
    let (number, title, description, status): (i64, String, String, String) = conn
        .query_row("SELECT number, title, description, status FROM cards WHERE id = ?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .optional()?
        .ok_or_else(|| Error::NotFound("That card".into()))?;
    let runs = runs(conn, "JOIN card_runs cr ON cr.run_id = r.id WHERE cr.card_id = ?1", id)?;
    let header = serde_json::json!({"kind": "card", "cardId": id, "number": number, "title": title,
        "description": description, "status": status});
    Ok((format!("#{number} {title}"), slug(&format!("card-{number}-{title}")), header, Vec::new(), runs))
}

/// The runs matching `filter` (on `runs r`, with `?1`), oldest first, each with its events.
fn runs(conn: &Connection, filter: &str, id: &str) -> Result<Vec<RunRecord>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT r.id, r.agent_id, a.name, r.runtime, r.status, r.error, r.started_at, r.finished_at,
                (SELECT attempt FROM card_runs WHERE run_id = r.id), (SELECT kind FROM card_runs WHERE run_id = r.id)
         FROM runs r LEFT JOIN agents a ON a.id = r.agent_id {filter} ORDER BY r.started_at, r.id"
    ))?;
    let mut runs = stmt
        .query_map([id], |r| {
            Ok(RunRecord {
                id: r.get(0)?,
                agent_id: r.get(1)?,
                agent_name: r.get(2)?,
                runtime: r.get(3)?,
                status: r.get(4)?,
                error: r.get(5)?,
                started_at: r.get(6)?,
                finished_at: r.get(7)?,
                attempt: r.get(8)?,
                card_run_kind: r.get(9)?,
                events: Vec::new(),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut events = conn.prepare("SELECT seq, at, event FROM run_events WHERE run_id = ?1 ORDER BY seq")?;
    for run in &mut runs {
        let rows =
            events.query_map([&run.id], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?)))?;
        for row in rows {
            let (seq, at, event) = row?;
            // Stored by the engine as JSON; one that is not (it never is) goes in as a string.
            let event = RawValue::from_string(event.clone())
                .or_else(|_| RawValue::from_string(Value::String(event).to_string()))
                .map_err(|e| Error::Internal(e.to_string()))?;
            run.events.push(StoredEvent { seq, at, event });
        }
    }
    Ok(runs)
}

fn markdown(title: &str, stamp: &str, messages: &[MessageRecord], runs: &[RunRecord]) -> String {
    let mut out = format!("# {title}\n\nExported from Clawboo on {stamp} UTC.\n");
    for m in messages {
        out.push_str(&format!("\n## {} · {}\n\n{}\n", m.author, date_time(m.created_at), m.content.trim_end()));
    }
    if messages.is_empty() {
        for (n, run) in runs.iter().enumerate() {
            out.push_str(&run_markdown(n + 1, run));
        }
    }
    out
}

/// A card's run: its heading, then what the agent said and did, from its events.
fn run_markdown(n: usize, run: &RunRecord) -> String {
    let who = run.agent_name.as_deref().unwrap_or("A deleted agent");
    let kind = run.card_run_kind.as_deref().unwrap_or("run");
    let mut out = format!("\n## Run {n} ({kind}) · {who} · {} · started {}\n\n", run.status, date_time(run.started_at));
    let mut text = String::new();
    let flush = |text: &mut String, out: &mut String| {
        if !text.trim().is_empty() {
            out.push_str(text.trim_end());
            out.push_str("\n\n");
        }
        text.clear();
    };
    for stored in &run.events {
        let event: Value = serde_json::from_str(stored.event.get()).unwrap_or(Value::Null);
        let field = |name: &str| event.get(name).and_then(Value::as_str).unwrap_or("").to_owned();
        match event.get("type").and_then(Value::as_str).unwrap_or("") {
            "textDelta" => text.push_str(&field("text")),
            "message" => {
                flush(&mut text, &mut out);
                text.push_str(&field("text"));
                flush(&mut text, &mut out);
            }
            "toolCallStarted" => {
                flush(&mut text, &mut out);
                out.push_str(&format!("- Tool `{}`\n\n", field("name")));
            }
            "toolResult" if event.get("isError").and_then(Value::as_bool) == Some(true) => {
                flush(&mut text, &mut out);
                out.push_str("- The tool failed.\n\n");
            }
            "error" => {
                flush(&mut text, &mut out);
                out.push_str(&format!("> Error: {}\n\n", field("message")));
            }
            _ => {}
        }
    }
    flush(&mut text, &mut out);
    if let Some(error) = &run.error {
        out.push_str(&format!("> Ended: {error}\n\n"));
    }
    out
}

/// "2026-12-05 08:12" (UTC) for milliseconds since the epoch.
fn date_time(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.strftime("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_else(|_| ms.to_string())
}

/// A file name's stem: lowercase letters, digits and dashes, at most 60 characters.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out: String = out.trim_end_matches('-').chars().take(60).collect();
    if out.is_empty() {
        "clawboo-export".into()
    } else {
        out.trim_end_matches('-').to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_plain() {
        assert_eq!(slug("chat-Ada Lovelace"), "chat-ada-lovelace");
        assert_eq!(slug("Launch team-général"), "launch-team-général");
        assert_eq!(slug("../../etc/passwd"), "etc-passwd");
        assert_eq!(slug("***"), "clawboo-export");
    }
}
