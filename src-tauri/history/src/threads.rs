//! Full-text search over what was said: one-to-one chats (`messages` of `direct`
//! conversations) and team rooms (`room_messages`), through the FTS5 index of migration 24.
//!
//! A search ranks by bm25 among the newest [`RANKED_WINDOW`] matches: a word in
//! most messages ("the", a project's name) would otherwise have every one of them scored on
//! each keystroke; a rarer word has fewer matches than that and is ranked over all of them.
//! Snippets are cut by FTS5 around the matched words, which come marked ([`SnippetPart`]).

use std::collections::HashMap;

use rusqlite::{named_params, Connection};
use serde::Serialize;

use crate::query::{match_expression, Words};
use clawboo_vocab::error::Result;

/// At most this many of the newest matches are ranked.
pub const RANKED_WINDOW: usize = 2_000;

/// The newest matches in scope with their bm25, for `:expr`, `:agent` (none: the user's
/// scope), `:run` (left out) and `:window`.
pub const RANKING_SQL: &str = "SELECT s.rowid, bm25(message_search), d.source, d.message_id
     FROM message_search s JOIN message_search_docs d ON d.doc = s.rowid
     LEFT JOIN messages m ON d.source = 'chat' AND m.id = d.message_id
     LEFT JOIN conversations c ON c.id = m.conversation_id
     LEFT JOIN room_messages r ON d.source = 'room' AND r.id = d.message_id
     WHERE message_search MATCH :expr
       AND ((d.source = 'chat' AND c.kind = 'direct' AND c.deleted_at IS NULL
             AND (:agent IS NULL OR c.agent_id = :agent)
             AND (:run IS NULL OR m.run_id IS NULL OR m.run_id != :run))
         OR (d.source = 'room' AND (:agent IS NULL
             OR r.room_id IN (SELECT room_id FROM room_members WHERE agent_id = :agent))
             AND (:run IS NULL OR r.run_id IS NULL OR r.run_id != :run)))
     ORDER BY s.rowid DESC LIMIT :window";

/// Marks FTS5 puts around a matched word in a snippet (control characters a message's text
/// does not carry in practice); split into [`SnippetPart`]s before anything leaves this crate.
const HIT_START: char = '\u{2}';
const HIT_END: char = '\u{3}';

/// Whose messages a search may return. Never widened by what the query says: an agent's scope
/// comes from its run's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<'a> {
    /// The user: every one-to-one chat and every room.
    Everything,
    /// An agent: its own one-to-one chats and the rooms it is a member of. Never another
    /// agent's one-to-one chat.
    Agent(&'a str),
}

/// Where a message was said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ThreadKind {
    /// A one-to-one chat with an agent (a conversation).
    Chat,
    /// A team room.
    Room,
}

/// The chat or room a message is in: enough to open it (and, with the message's id, to scroll
/// to the message).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Thread {
    pub kind: ThreadKind,
    /// The conversation's id (a chat) or the room's id.
    pub id: String,
    /// A chat's agent.
    pub agent_id: Option<String>,
    /// A room's team.
    pub team_id: Option<String>,
    /// "Ada" for a chat with Ada; "#general · Launch team" for a room.
    pub title: String,
}

/// A piece of a snippet: matched words are `hit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct SnippetPart {
    pub text: String,
    pub hit: bool,
}

/// One message found.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct MessageHit {
    pub message_id: String,
    pub thread: Thread,
    /// Who said it: "You", the agent's name, or "Clawboo" for a notice.
    pub author: String,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    pub snippet: Vec<SnippetPart>,
    /// bm25 (lower is better), comparable within one search.
    pub score: f64,
}

/// What to search for.
#[derive(Debug, Clone, Copy)]
pub struct MessageQuery<'a> {
    pub text: &'a str,
    pub scope: Scope<'a>,
    pub words: Words,
    /// The last word is still being typed: it matches as a prefix.
    pub typing: bool,
    pub limit: usize,
    /// About how many words a snippet shows around the matches (FTS5 caps it at 64).
    pub snippet_words: u32,
    /// Leaves out the messages of this run (an agent's search: the message that asked it to
    /// search is no answer).
    pub exclude_run: Option<&'a str>,
}

/// The messages matching `query`, best first, at most `query.limit`. Text with no word in it
/// finds nothing.
pub fn search(conn: &Connection, query: &MessageQuery) -> Result<Vec<MessageHit>> {
    let Some(expr) = match_expression(query.text, query.words, query.typing) else { return Ok(Vec::new()) };
    if query.limit == 0 {
        return Ok(Vec::new());
    }
    let agent = match query.scope {
        Scope::Everything => None,
        Scope::Agent(id) => Some(id),
    };
    let mut ranked: Vec<(f64, i64, String, String)> = Vec::new();
    let mut stmt = conn.prepare_cached(RANKING_SQL)?;
    let params =
        named_params! {":expr": expr, ":agent": agent, ":run": query.exclude_run, ":window": RANKED_WINDOW as i64};
    for row in stmt.query_map(params, |r| Ok((r.get(1)?, r.get(0)?, r.get(2)?, r.get(3)?)))? {
        ranked.push(row?);
    }
    // Best score first; a tie goes to the newer message (indexed later).
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
    ranked.truncate(query.limit);
    let mut snippets = snippets(conn, &expr, ranked.iter().map(|r| r.1), query.snippet_words)?;
    ranked
        .into_iter()
        .map(|(score, doc, source, id)| {
            let snippet = snippets.remove(&doc).unwrap_or_default();
            if source == "room" {
                room_hit(conn, &id, score, snippet)
            } else {
                chat_hit(conn, &id, score, snippet)
            }
        })
        .collect()
}

/// The marked snippets of the indexed messages `docs` around the words of `expr`, in one pass
/// over the index: a snippet per message would expand a prefix (`"depl"*`) once per message,
/// which for a common prefix costs as much as the whole search each time.
fn snippets(
    conn: &Connection,
    expr: &str,
    docs: impl Iterator<Item = i64>,
    words: u32,
) -> Result<HashMap<i64, Vec<SnippetPart>>> {
    let docs: Vec<i64> = docs.collect();
    let (Some(&low), Some(&high)) = (docs.iter().min(), docs.iter().max()) else { return Ok(HashMap::new()) };
    // Integers only, so listing them in the SQL is safe; `+rowid` keeps the list a filter (the
    // index walks the range once) rather than one index lookup per id.
    let list = docs.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    let mut stmt = conn.prepare(&format!(
        "SELECT rowid, snippet(message_search, 0, char(2), char(3), '…', :words)
         FROM message_search WHERE message_search MATCH :expr AND rowid BETWEEN :low AND :high AND +rowid IN ({list})"
    ))?;
    let rows = stmt
        .query_map(named_params! {":expr": expr, ":low": low, ":high": high, ":words": words.min(64)}, |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?;
    let mut out = HashMap::new();
    for row in rows {
        let (doc, marked) = row?;
        out.insert(doc, snippet_parts(&marked));
    }
    Ok(out)
}

fn chat_hit(conn: &Connection, id: &str, score: f64, snippet: Vec<SnippetPart>) -> Result<MessageHit> {
    let mut stmt = conn.prepare_cached(
        "SELECT m.role, m.created_at, c.id, c.agent_id, a.name
         FROM messages m JOIN conversations c ON c.id = m.conversation_id JOIN agents a ON a.id = c.agent_id
         WHERE m.id = ?1",
    )?;
    Ok(stmt.query_row([id], |r| {
        let role: String = r.get(0)?;
        let agent_name: String = r.get(4)?;
        Ok(MessageHit {
            message_id: id.to_owned(),
            author: match role.as_str() {
                "user" => "You".to_owned(),
                "assistant" => agent_name.clone(),
                _ => "Clawboo".to_owned(),
            },
            created_at: r.get(1)?,
            thread: Thread {
                kind: ThreadKind::Chat,
                id: r.get(2)?,
                agent_id: Some(r.get(3)?),
                team_id: None,
                title: agent_name,
            },
            snippet,
            score,
        })
    })?)
}

fn room_hit(conn: &Connection, id: &str, score: f64, snippet: Vec<SnippetPart>) -> Result<MessageHit> {
    let mut stmt = conn.prepare_cached(
        "SELECT m.kind, m.created_at, m.room_id, r.name, t.id, t.name, a.name
         FROM room_messages m JOIN rooms r ON r.id = m.room_id JOIN teams t ON t.id = r.team_id
         LEFT JOIN agents a ON a.id = m.author_id
         WHERE m.id = ?1",
    )?;
    Ok(stmt.query_row([id], |r| {
        let kind: String = r.get(0)?;
        let room: String = r.get(3)?;
        let team: String = r.get(5)?;
        let agent: Option<String> = r.get(6)?;
        Ok(MessageHit {
            message_id: id.to_owned(),
            author: match kind.as_str() {
                "user" => "You".to_owned(),
                "notice" => "Clawboo".to_owned(),
                // An agent since deleted keeps its words, without its name.
                _ => agent.unwrap_or_else(|| "A deleted agent".to_owned()),
            },
            created_at: r.get(1)?,
            thread: Thread {
                kind: ThreadKind::Room,
                id: r.get(2)?,
                agent_id: None,
                team_id: Some(r.get(4)?),
                title: format!("#{room} · {team}"),
            },
            snippet,
            score,
        })
    })?)
}

/// FTS5's marked snippet as plain parts (the marks themselves never leave).
fn snippet_parts(marked: &str) -> Vec<SnippetPart> {
    let mut parts: Vec<SnippetPart> = Vec::new();
    let mut hit = false;
    let mut text = String::new();
    let flush = |text: &mut String, hit: bool, parts: &mut Vec<SnippetPart>| {
        if !text.is_empty() {
            parts.push(SnippetPart { text: std::mem::take(text), hit });
        }
    };
    for c in marked.chars() {
        match c {
            HIT_START => {
                flush(&mut text, hit, &mut parts);
                hit = true;
            }
            HIT_END => {
                flush(&mut text, hit, &mut parts);
                hit = false;
            }
            // Line breaks inside a snippet read as spaces in one line.
            '\n' | '\r' | '\t' => text.push(' '),
            c => text.push(c),
        }
    }
    flush(&mut text, hit, &mut parts);
    parts
}

/// A snippet as one line of text, its matched words between `«` and `»`.
pub fn snippet_text(parts: &[SnippetPart]) -> String {
    parts.iter().map(|p| if p.hit { format!("«{}»", p.text) } else { p.text.clone() }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_split_at_the_marks_and_keep_one_line() {
        let parts = snippet_parts("…ship the \u{2}invoice\u{3} fix\ntoday…");
        assert_eq!(
            parts,
            [
                SnippetPart { text: "…ship the ".into(), hit: false },
                SnippetPart { text: "invoice".into(), hit: true },
                SnippetPart { text: " fix today…".into(), hit: false },
            ]
        );
        assert_eq!(snippet_text(&parts), "…ship the «invoice» fix today…");
    }
}
