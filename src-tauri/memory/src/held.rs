//! Facts held for the user's approval: an agent's `memory_save` to a wider scope than its own
//! (global, or a team its run is not in) is checked, held under its attention request, and
//! saved exactly as held only in the transaction that records the user's "Allow".

use rusqlite::{params, OptionalExtension, Transaction};

use super::store::{json_column, scope_from, scope_parts, to_json};
use super::{Author, FactInput, Saved};
use clawboo_vocab::error::{Error, Result};

pub(super) fn insert(tx: &Transaction, request_id: &str, input: &FactInput, by: &Author, at: i64) -> Result<()> {
    let (kind, scope_id) = scope_parts(&input.scope);
    tx.execute(
        "INSERT INTO memory_save_requests (request_id, text, tags, scope_kind, scope_id, author, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![request_id, input.text, to_json(&input.tags)?, kind, scope_id, to_json(by)?, at],
    )?;
    Ok(())
}

/// The fact held under `request_id`, its author, and the fact it already became (if it did).
pub(super) fn get(tx: &Transaction, request_id: &str) -> Result<(FactInput, Author, Option<String>)> {
    tx.query_row(
        "SELECT text, tags, scope_kind, scope_id, author, fact_id FROM memory_save_requests WHERE request_id = ?1",
        [request_id],
        |r| {
            let kind: String = r.get(2)?;
            let input =
                FactInput { text: r.get(0)?, tags: json_column(r, 1)?, scope: scope_from(&kind, r.get(3)?, 2)? };
            Ok((input, json_column(r, 4)?, r.get(5)?))
        },
    )
    .optional()?
    .ok_or_else(|| Error::NotFound(format!("The fact held for request {request_id}")))
}

pub(super) fn mark_saved(tx: &Transaction, request_id: &str, saved: &Saved) -> Result<()> {
    tx.execute(
        "UPDATE memory_save_requests SET fact_id = ?2 WHERE request_id = ?1",
        params![request_id, saved.fact.id],
    )?;
    Ok(())
}
