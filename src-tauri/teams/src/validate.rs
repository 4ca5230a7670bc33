//! Checks on what the user sends, each failing with a message that says what to do.

use std::collections::HashSet;

use rusqlite::Connection;

use super::store;
use super::types::{Team, GENERAL_ROOM_NAME, MAX_RULES_CHARS, MAX_TEAM_NAME_CHARS};
use clawboo_vocab::error::{Error, Result};
use clawboo_vocab::thousands;

/// A team's or room's name: trimmed, non-empty, at most [`MAX_TEAM_NAME_CHARS`] characters.
pub(super) fn name(raw: &str, what: &str) -> Result<String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(Error::InvalidInput(format!("A {what} needs a name.")));
    }
    let chars = name.chars().count();
    if chars > MAX_TEAM_NAME_CHARS {
        return Err(Error::InvalidInput(format!(
            "A {what}'s name has at most {MAX_TEAM_NAME_CHARS} characters; this one has {chars}."
        )));
    }
    Ok(name.to_owned())
}

/// A named room's name: also unique in its team (ignoring case) and not "General".
pub(super) fn room_name(raw: &str, team: &Team, except_room: Option<&str>) -> Result<String> {
    let name = name(raw, "room")?;
    let folded = name.to_lowercase();
    if folded == GENERAL_ROOM_NAME.to_lowercase() {
        return Err(Error::InvalidInput(format!(
            "“{GENERAL_ROOM_NAME}” is the room with the whole team; choose another name."
        )));
    }
    if team.rooms.iter().any(|r| Some(r.id.as_str()) != except_room && r.name.to_lowercase() == folded) {
        return Err(Error::InvalidInput(format!("This team already has a room called “{name}”.")));
    }
    Ok(name)
}

/// Free text bounded in characters (not bytes), trimmed.
pub(super) fn bounded_text(raw: &str, max: usize, what: &str) -> Result<String> {
    let text = raw.trim();
    let chars = text.chars().count();
    if chars > max {
        return Err(Error::InvalidInput(format!(
            "{what} has at most {} characters; this has {}.",
            thousands(max),
            thousands(chars)
        )));
    }
    Ok(text.to_owned())
}

/// Existing agents, each once, at least one. `what`: "team" or "room".
pub(super) fn members(conn: &Connection, ids: &[String], what: &str) -> Result<Vec<String>> {
    if ids.is_empty() {
        return Err(Error::InvalidInput(format!("A {what} needs at least one member.")));
    }
    let mut seen = HashSet::new();
    for id in ids {
        if !store::agent_exists(conn, id)? {
            return Err(Error::NotFound(format!("Agent {id}")));
        }
        if !seen.insert(id.as_str()) {
            return Err(Error::InvalidInput(format!("{} is listed twice.", store::mention(conn, id)?)));
        }
    }
    Ok(ids.to_vec())
}

/// A leader chosen among `members`; none chosen: the first member.
pub(super) fn leader(conn: &Connection, chosen: Option<&str>, members: &[String], what: &str) -> Result<String> {
    match chosen {
        None => members.first().cloned().ok_or_else(|| Error::InvalidInput(format!("A {what} needs a member."))),
        Some(id) if members.iter().any(|m| m == id) => Ok(id.to_owned()),
        Some(id) => Err(Error::InvalidInput(format!(
            "{} is not a member of this {what}; only a member can lead it.",
            store::mention(conn, id)?
        ))),
    }
}

/// A rule's text, and that all rules together stay within [`MAX_RULES_CHARS`].
pub(super) fn rule(raw: &str, team: &Team) -> Result<String> {
    let text = raw.trim();
    if text.is_empty() {
        return Err(Error::InvalidInput("A rule needs some text.".into()));
    }
    let total = team.rules_chars() + text.chars().count();
    if total > MAX_RULES_CHARS {
        return Err(Error::InvalidInput(format!(
            "Team rules have at most {} characters in all; with this one they would have {}. Shorten or remove a rule.",
            thousands(MAX_RULES_CHARS),
            thousands(total)
        )));
    }
    Ok(text.to_owned())
}
