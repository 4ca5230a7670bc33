//! The search everything palette (⌘/Ctrl+K): agents, teams, rooms, chats, Board cards,
//! routines, memory facts and messages, for one query. Names are matched anywhere in them
//! (case-insensitive, the query as typed: no syntax at all); facts and messages by their words
//! through their FTS5 indexes (escaped, see [`crate::query`]).
//!
//! The names are read straight from their tables (a few hundred rows at most): the palette only
//! reads, and each table's owner still does every write.

use rusqlite::{named_params, Connection};
use serde::Serialize;

use crate::query::{match_expression, Words};
use crate::threads::{self, MessageHit, MessageQuery, Scope};
use clawboo_vocab::error::Result;

/// At most this many of each kind of thing, messages apart.
pub const PER_KIND: usize = 5;
/// At most this many messages.
pub const MESSAGES: usize = 20;
/// A query's text is cut to this many characters (a paste into the palette stays a query).
pub const MAX_QUERY_CHARS: usize = 200;
/// Words of a message's snippet in the palette.
const SNIPPET_WORDS: u32 = 16;

/// One thing the palette found; `kind` says what it is, and how to open it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Found {
    Agent(NamedItem),
    Team(NamedItem),
    /// `parentId`: the room's team.
    Room(NamedItem),
    /// A one-to-one chat (an agent has many): `id` is the conversation, `parentId` its agent.
    Chat(NamedItem),
    /// `detail`: "#12 · In progress".
    Card(NamedItem),
    Routine(NamedItem),
    /// `name`: the fact's text.
    Fact(NamedItem),
    Message(MessageHit),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NamedItem {
    pub id: String,
    pub name: String,
    /// A second line: a handle, a team's name, a card's number and column.
    pub detail: String,
    /// What it belongs to, to open it (a room's team, a chat's agent, a card's number).
    pub parent_id: Option<String>,
}

/// Everything found for `text`: things by name first (agents, teams, rooms, chats, cards,
/// routines, facts), then messages, best first. An empty query finds nothing (the palette shows
/// its recent items then).
pub fn search(conn: &Connection, text: &str) -> Result<Vec<Found>> {
    let text: String = text.chars().take(MAX_QUERY_CHARS).collect();
    let needle = text.trim().to_lowercase();
    if needle.is_empty() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    let named = |sql: &str, found: &mut Vec<Found>, wrap: fn(NamedItem) -> Found| -> Result<()> {
        let mut stmt = conn.prepare_cached(sql)?;
        let rows = stmt.query_map(named_params! {":needle": needle, ":limit": PER_KIND as i64}, |r| {
            Ok(NamedItem { id: r.get(0)?, name: r.get(1)?, detail: r.get(2)?, parent_id: r.get(3)? })
        })?;
        for row in rows {
            found.push(wrap(row?));
        }
        Ok(())
    };
    named(
        "SELECT id, name, '@' || handle, NULL FROM agents
         WHERE instr(lower(name), :needle) OR instr(lower(handle), ltrim(:needle, '@'))
         ORDER BY instr(lower(name), :needle) = 1 DESC, lower(name) LIMIT :limit",
        &mut found,
        Found::Agent,
    )?;
    named(
        "SELECT id, name, CASE WHEN archived_at IS NULL THEN 'Team' ELSE 'Archived team' END, NULL FROM teams
         WHERE instr(lower(name), :needle)
         ORDER BY archived_at IS NOT NULL, instr(lower(name), :needle) = 1 DESC, lower(name) LIMIT :limit",
        &mut found,
        Found::Team,
    )?;
    named(
        "SELECT r.id, '#' || r.name, t.name, t.id FROM rooms r JOIN teams t ON t.id = r.team_id
         WHERE t.archived_at IS NULL AND instr(lower(r.name), ltrim(:needle, '#'))
         ORDER BY instr(lower(r.name), ltrim(:needle, '#')) = 1 DESC, lower(r.name) LIMIT :limit",
        &mut found,
        Found::Room,
    )?;
    named(
        "SELECT c.id, coalesce(c.title, 'New chat'),
                'Chat with ' || a.name || ' · ' || (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id)
                    || ' messages', a.id
         FROM conversations c JOIN agents a ON a.id = c.agent_id
         WHERE c.kind = 'direct' AND c.deleted_at IS NULL
           AND (instr(lower(coalesce(c.title, '')), :needle) OR instr(lower(a.name), :needle)
                OR instr('chat with ' || lower(a.name), :needle))
         ORDER BY c.pinned DESC, c.last_activity_at DESC LIMIT :limit",
        &mut found,
        Found::Chat,
    )?;
    named(
        "SELECT id, title, '#' || number || ' · ' || status, CAST(number AS TEXT) FROM cards
         WHERE instr(lower(title), :needle) OR '#' || number = :needle OR CAST(number AS TEXT) = :needle
         ORDER BY status IN ('done', 'cancelled'), updated_at DESC LIMIT :limit",
        &mut found,
        Found::Card,
    )?;
    named(
        "SELECT id, name, CASE state WHEN 'active' THEN 'Routine' ELSE 'Paused routine' END, NULL FROM routines
         WHERE instr(lower(name), :needle) OR instr(lower(prompt), :needle)
         ORDER BY instr(lower(name), :needle) = 0, lower(name) LIMIT :limit",
        &mut found,
        Found::Routine,
    )?;
    if let Some(expr) = match_expression(&text, Words::All, true) {
        let mut stmt = conn.prepare_cached(
            "SELECT f.id, f.text, f.scope_kind, NULL FROM memory_fts JOIN memory_facts f ON f.seq = memory_fts.rowid
             WHERE memory_fts MATCH :expr AND f.deleted = 0
             ORDER BY bm25(memory_fts, 4.0, 1.0), f.seq DESC LIMIT :limit",
        )?;
        let rows = stmt.query_map(named_params! {":expr": expr, ":limit": PER_KIND as i64}, |r| {
            let scope: String = r.get(2)?;
            Ok(NamedItem { id: r.get(0)?, name: r.get(1)?, detail: format!("Memory · {scope}"), parent_id: r.get(3)? })
        })?;
        for row in rows {
            found.push(Found::Fact(row?));
        }
    }
    let messages = threads::search(
        conn,
        &MessageQuery {
            text: &text,
            scope: Scope::Everything,
            words: Words::All,
            typing: true,
            limit: MESSAGES,
            snippet_words: SNIPPET_WORDS,
            exclude_run: None,
        },
    )?;
    found.extend(messages.into_iter().map(Found::Message));
    Ok(found)
}
