//! Scratch notes in three scopes (a session, a team, everyone) and promotions: an agent asks
//! to copy one of its session notes, exactly, to a team or global scope; the user decides
//! once. A copy never moves or merges: the original stays as it is.

use rusqlite::{named_params, params, Connection, OptionalExtension, Row, Transaction};

use super::store::{exists, json_column, scratch_scope_from, scratch_scope_parts, to_json};
use super::types::{Author, Promotion, PromotionStatus, ScratchNote, ScratchScope, MAX_NOTE_CHARS};
use super::{checks, ids};
use clawboo_vocab::error::{Error, Result};

const NOTE_COLUMNS: &str = "id, scope_kind, scope_id, text, author, promoted_from, created_at, updated_at";
const PROMOTION_COLUMNS: &str =
    "id, note_id, text, to_kind, to_id, requested_by, status, created_at, decided_at, copy_id";

fn note_from_row(r: &Row<'_>) -> rusqlite::Result<ScratchNote> {
    let kind: String = r.get(1)?;
    Ok(ScratchNote {
        id: r.get(0)?,
        scope: scratch_scope_from(&kind, r.get(2)?, 1)?,
        text: r.get(3)?,
        author: json_column(r, 4)?,
        promoted_from: r.get(5)?,
        created_at: r.get(6)?,
        updated_at: r.get(7)?,
    })
}

fn promotion_from_row(r: &Row<'_>) -> rusqlite::Result<Promotion> {
    let kind: String = r.get(3)?;
    let status: String = r.get(6)?;
    Ok(Promotion {
        id: r.get(0)?,
        note_id: r.get(1)?,
        text: r.get(2)?,
        to: scratch_scope_from(&kind, r.get(4)?, 3)?,
        requested_by: json_column(r, 5)?,
        status: match status.as_str() {
            "pending" => PromotionStatus::Pending,
            "approved" => PromotionStatus::Approved,
            _ => PromotionStatus::Rejected,
        },
        created_at: r.get(7)?,
        decided_at: r.get(8)?,
        copy_id: r.get(9)?,
    })
}

/// The scope must name a conversation or team that exists.
fn check_scope(conn: &Connection, scope: &ScratchScope) -> Result<()> {
    let (table, id, what) = match scope {
        ScratchScope::Global => return Ok(()),
        ScratchScope::Session { conversation_id } => ("conversations", conversation_id, "conversation"),
        ScratchScope::Team { team_id } => ("teams", team_id, "team"),
    };
    if exists(conn, table, id)? {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!("There is no {what} {id} to keep this scratch note in.")))
    }
}

pub(super) fn insert(
    tx: &Transaction,
    scope: ScratchScope,
    text: &str,
    author: Author,
    promoted_from: Option<String>,
    now: i64,
) -> Result<ScratchNote> {
    let text = checks::text("The scratch note", text, MAX_NOTE_CHARS)?;
    check_scope(tx, &scope)?;
    let note = ScratchNote {
        id: ids::issue(tx, ids::SCRATCH)?,
        scope,
        text,
        author,
        promoted_from,
        created_at: now,
        updated_at: now,
    };
    let (kind, scope_id) = scratch_scope_parts(&note.scope);
    tx.prepare_cached(
        "INSERT INTO scratch_notes (id, scope_kind, scope_id, text, author, promoted_from, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)",
    )?
    .execute(params![note.id, kind, scope_id, note.text, to_json(&note.author)?, note.promoted_from, now])?;
    Ok(note)
}

pub(super) fn find(conn: &Connection, id: &str) -> Result<ScratchNote> {
    conn.prepare_cached(&format!("SELECT {NOTE_COLUMNS} FROM scratch_notes WHERE id = ?1"))?
        .query_row([id], note_from_row)
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("The scratch note {id}")))
}

/// The user's edit: team and global notes only (a session note is its agent's).
pub(super) fn edit(tx: &Transaction, id: &str, text: &str, now: i64) -> Result<ScratchNote> {
    let text = checks::text("The scratch note", text, MAX_NOTE_CHARS)?;
    let mut note = find(tx, id)?;
    if matches!(note.scope, ScratchScope::Session { .. }) {
        return Err(Error::InvalidInput(
            "A session's scratch notes are its agent's own and cannot be edited; delete it instead.".into(),
        ));
    }
    tx.prepare_cached("UPDATE scratch_notes SET text = ?2, updated_at = ?3 WHERE id = ?1")?
        .execute(params![id, text, now])?;
    note.text = text;
    note.updated_at = now;
    Ok(note)
}

pub(super) fn delete(tx: &Transaction, id: &str) -> Result<()> {
    if tx.prepare_cached("DELETE FROM scratch_notes WHERE id = ?1")?.execute([id])? == 0 {
        return Err(Error::NotFound(format!("The scratch note {id}")));
    }
    Ok(())
}

/// Notes of one scope, newest first (`limit`: at most that many).
pub(super) fn of_scope(conn: &Connection, scope: &ScratchScope, limit: Option<usize>) -> Result<Vec<ScratchNote>> {
    let (kind, scope_id) = scratch_scope_parts(scope);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {NOTE_COLUMNS} FROM scratch_notes WHERE scope_kind = ?1 AND scope_id = ?2
         ORDER BY created_at DESC, rowid DESC LIMIT ?3"
    ))?;
    let rows = stmt.query_map(params![kind, scope_id, limit.map_or(-1, |l| l as i64)], note_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub(super) fn all(conn: &Connection, limit: usize) -> Result<Vec<ScratchNote>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {NOTE_COLUMNS} FROM scratch_notes ORDER BY created_at DESC, rowid DESC LIMIT ?1"
    ))?;
    let rows = stmt.query_map([limit as i64], note_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Session, then team, then global notes, newest first in each, whole notes only: a note that
/// does not fit in what is left is skipped and smaller ones after it still get their chance.
pub(super) fn projection(
    conn: &Connection,
    conversation_id: &str,
    team_id: Option<&str>,
    budget_chars: usize,
) -> Result<Vec<ScratchNote>> {
    let mut scopes = vec![ScratchScope::Session { conversation_id: conversation_id.to_owned() }];
    if let Some(team_id) = team_id.filter(|t| !t.is_empty()) {
        scopes.push(ScratchScope::Team { team_id: team_id.to_owned() });
    }
    scopes.push(ScratchScope::Global);
    let mut left = budget_chars;
    let mut out = Vec::new();
    for scope in &scopes {
        for note in of_scope(conn, scope, None)? {
            let size = note.text.chars().count();
            if size <= left {
                left -= size;
                out.push(note);
            }
        }
    }
    Ok(out)
}

pub(super) fn request_promotion(
    tx: &Transaction,
    conversation_id: &str,
    note_id: &str,
    to: ScratchScope,
    by: &Author,
    now: i64,
) -> Result<Promotion> {
    let note = find(tx, note_id)?;
    let own = matches!(&note.scope, ScratchScope::Session { conversation_id: c } if c == conversation_id);
    if !own {
        return Err(Error::InvalidInput(format!(
            "The scratch note {note_id} is not one of this session's notes; only those can be promoted."
        )));
    }
    if matches!(to, ScratchScope::Session { .. }) {
        return Err(Error::InvalidInput(
            "A scratch note can be promoted to its team or to global, not to a session.".into(),
        ));
    }
    check_scope(tx, &to)?;
    let (to_kind, to_id) = scratch_scope_parts(&to);
    let (to_kind, to_id) = (to_kind, to_id.to_owned());
    let pending = tx
        .prepare_cached(&format!(
            "SELECT {PROMOTION_COLUMNS} FROM scratch_promotions
             WHERE note_id = :note AND to_kind = :kind AND to_id = :to AND status = 'pending' LIMIT 1"
        ))?
        .query_row(named_params! {":note": note_id, ":kind": to_kind, ":to": to_id}, promotion_from_row)
        .optional()?;
    if let Some(pending) = pending {
        return Ok(pending);
    }
    let promotion = Promotion {
        id: ids::issue(tx, ids::PROMOTION)?,
        note_id: note.id,
        text: note.text,
        to,
        requested_by: by.clone(),
        status: PromotionStatus::Pending,
        created_at: now,
        decided_at: None,
        copy_id: None,
    };
    tx.prepare_cached(
        "INSERT INTO scratch_promotions (id, note_id, text, to_kind, to_id, requested_by, status, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7)",
    )?
    .execute(params![promotion.id, promotion.note_id, promotion.text, to_kind, to_id, to_json(by)?, now])?;
    Ok(promotion)
}

pub(super) fn promotions(conn: &Connection, limit: usize) -> Result<Vec<Promotion>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {PROMOTION_COLUMNS} FROM scratch_promotions
         ORDER BY status = 'pending' DESC, COALESCE(decided_at, created_at) DESC, rowid DESC LIMIT ?1"
    ))?;
    let rows = stmt.query_map([limit as i64], promotion_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Approving copies the exact text asked for into a new note of the target scope, recording
/// where it came from; the original note is untouched.
pub(super) fn decide(tx: &Transaction, id: &str, approve: bool, now: i64) -> Result<Promotion> {
    let mut promotion = tx
        .prepare_cached(&format!("SELECT {PROMOTION_COLUMNS} FROM scratch_promotions WHERE id = ?1"))?
        .query_row([id], promotion_from_row)
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("The promotion {id}")))?;
    if promotion.status != PromotionStatus::Pending {
        return Err(Error::InvalidInput(format!("The promotion {id} was already decided.")));
    }
    if approve {
        let copy = insert(
            tx,
            promotion.to.clone(),
            &promotion.text,
            promotion.requested_by.clone(),
            Some(promotion.note_id.clone()),
            now,
        )?;
        promotion.copy_id = Some(copy.id);
        promotion.status = PromotionStatus::Approved;
    } else {
        promotion.status = PromotionStatus::Rejected;
    }
    promotion.decided_at = Some(now);
    tx.prepare_cached("UPDATE scratch_promotions SET status = ?2, decided_at = ?3, copy_id = ?4 WHERE id = ?1")?
        .execute(params![id, if approve { "approved" } else { "rejected" }, now, promotion.copy_id])?;
    Ok(promotion)
}
