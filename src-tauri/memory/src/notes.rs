//! Each agent's own saved notes. They have no history: deleting one removes it (its id stays
//! issued, never reused); an agent's notes go with the agent.

use rusqlite::{params, Connection, OptionalExtension, Row, Transaction};

use super::store::{exists, json_column, to_json};
use super::types::{Author, SavedNote, MAX_NOTE_CHARS};
use super::{checks, ids};
use clawboo_vocab::error::{Error, Result};

const COLUMNS: &str = "id, agent_id, text, author, created_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<SavedNote> {
    Ok(SavedNote {
        id: r.get(0)?,
        agent_id: r.get(1)?,
        text: r.get(2)?,
        author: json_column(r, 3)?,
        created_at: r.get(4)?,
    })
}

/// The new note, or the agent's note with exactly this text (`false`: nothing changed).
pub(super) fn save(tx: &Transaction, agent_id: &str, text: &str, by: &Author, now: i64) -> Result<(SavedNote, bool)> {
    let text = checks::text("The note", text, MAX_NOTE_CHARS)?;
    if !exists(tx, "agents", agent_id)? {
        return Err(Error::NotFound(format!("The agent {agent_id}")));
    }
    let existing = tx
        .prepare_cached(&format!("SELECT {COLUMNS} FROM memory_notes WHERE agent_id = ?1 AND text = ?2 LIMIT 1"))?
        .query_row(params![agent_id, text], from_row)
        .optional()?;
    if let Some(note) = existing {
        return Ok((note, false));
    }
    let note = SavedNote {
        id: ids::issue(tx, ids::NOTE)?,
        agent_id: agent_id.to_owned(),
        text,
        author: by.clone(),
        created_at: now,
    };
    tx.execute(
        "INSERT INTO memory_notes (id, agent_id, text, author, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![note.id, note.agent_id, note.text, to_json(&note.author)?, note.created_at],
    )?;
    Ok((note, true))
}

pub(super) fn newest(conn: &Connection, agent_id: &str, limit: usize) -> Result<Vec<SavedNote>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM memory_notes WHERE agent_id = ?1 ORDER BY created_at DESC, rowid DESC LIMIT ?2"
    ))?;
    let rows = stmt.query_map(params![agent_id, limit as i64], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub(super) fn delete(tx: &Transaction, id: &str) -> Result<()> {
    if tx.execute("DELETE FROM memory_notes WHERE id = ?1", [id])? == 0 {
        return Err(Error::NotFound(format!("The note {id}")));
    }
    Ok(())
}
