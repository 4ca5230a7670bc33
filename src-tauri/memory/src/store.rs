//! SQL for facts: rows to values, the checks that need the store (scopes exist, duplicates),
//! history and citations.

use rusqlite::{named_params, params, Connection, OptionalExtension, Row, Transaction};
use serde::{de::DeserializeOwned, Serialize};

use super::search;
use super::types::{Author, Citation, Fact, FactChange, FactVersion, Scope, ScratchScope};
use clawboo_vocab::error::{Error, Result};

/// The columns `fact_from_row` reads, from `memory_facts f`.
pub(super) const FACT_COLUMNS: &str =
    "f.id, f.text, f.tags, f.scope_kind, f.scope_id, f.author, f.created_at, f.updated_at, f.deleted, f.version";

/// Facts `:viewer` may read (every fact when `:viewer` is NULL): global ones, its teams' and its own.
pub(super) const VISIBLE: &str = "(:viewer IS NULL OR f.scope_kind = 'global'
     OR (f.scope_kind = 'agent' AND f.scope_id = :viewer)
     OR (f.scope_kind = 'team' AND f.scope_id IN (SELECT team_id FROM team_members WHERE agent_id = :viewer)))";

pub(super) fn to_json<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Internal(format!("memory: cannot encode a value: {e}")))
}

/// A JSON column, with a decoding failure reported as a column error (the row is broken).
pub(super) fn json_column<T: DeserializeOwned>(r: &Row<'_>, index: usize) -> rusqlite::Result<T> {
    let raw: String = r.get(index)?;
    serde_json::from_str(&raw)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e)))
}

fn bad_column(index: usize, what: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, format!("unknown {what}").into())
}

pub(super) fn scope_parts(scope: &Scope) -> (&'static str, &str) {
    match scope {
        Scope::Global => ("global", ""),
        Scope::Team { team_id } => ("team", team_id),
        Scope::Agent { agent_id } => ("agent", agent_id),
    }
}

pub(super) fn scope_from(kind: &str, id: String, index: usize) -> rusqlite::Result<Scope> {
    match kind {
        "global" => Ok(Scope::Global),
        "team" => Ok(Scope::Team { team_id: id }),
        "agent" => Ok(Scope::Agent { agent_id: id }),
        _ => Err(bad_column(index, "scope")),
    }
}

pub(super) fn scratch_scope_parts(scope: &ScratchScope) -> (&'static str, &str) {
    match scope {
        ScratchScope::Session { conversation_id } => ("session", conversation_id),
        ScratchScope::Team { team_id } => ("team", team_id),
        ScratchScope::Global => ("global", ""),
    }
}

pub(super) fn scratch_scope_from(kind: &str, id: String, index: usize) -> rusqlite::Result<ScratchScope> {
    match kind {
        "session" => Ok(ScratchScope::Session { conversation_id: id }),
        "team" => Ok(ScratchScope::Team { team_id: id }),
        "global" => Ok(ScratchScope::Global),
        _ => Err(bad_column(index, "scratch scope")),
    }
}

pub(super) fn author_agent(author: &Author) -> Option<&str> {
    match author {
        Author::User => None,
        Author::Agent { agent_id, .. } => Some(agent_id),
    }
}

pub(super) fn fact_from_row(r: &Row<'_>) -> rusqlite::Result<Fact> {
    fact_from_row_at(r, 0)
}

/// A fact and its FTS rowid.
pub(super) fn find(conn: &Connection, id: &str) -> Result<Option<(i64, Fact)>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT f.seq, {FACT_COLUMNS} FROM memory_facts f WHERE f.id = ?1"))?;
    Ok(stmt.query_row([id], |r| Ok((r.get(0)?, fact_from_row_at(r, 1)?))).optional()?)
}

pub(super) fn load(conn: &Connection, id: &str) -> Result<Fact> {
    find(conn, id)?.map(|(_, f)| f).ok_or_else(|| not_found(id))
}

pub(super) fn not_found(id: &str) -> Error {
    Error::NotFound(format!("The fact {id}"))
}

pub(super) fn by_seq(conn: &Connection, seq: i64) -> Result<Fact> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {FACT_COLUMNS} FROM memory_facts f WHERE f.seq = ?1"))?;
    Ok(stmt.query_row([seq], fact_from_row)?)
}

/// `fact_from_row` for columns starting at `offset` (after a leading seq or score).
fn fact_from_row_at(r: &Row<'_>, offset: usize) -> rusqlite::Result<Fact> {
    let kind: String = r.get(offset + 3)?;
    Ok(Fact {
        id: r.get(offset)?,
        text: r.get(offset + 1)?,
        tags: json_column(r, offset + 2)?,
        scope: scope_from(&kind, r.get(offset + 4)?, offset + 3)?,
        author: json_column(r, offset + 5)?,
        created_at: r.get(offset + 6)?,
        updated_at: r.get(offset + 7)?,
        deleted: r.get(offset + 8)?,
        version: r.get(offset + 9)?,
    })
}

/// A team or agent scope must name one that exists.
pub(super) fn check_scope(conn: &Connection, scope: &Scope) -> Result<()> {
    let (table, id, what) = match scope {
        Scope::Global => return Ok(()),
        Scope::Team { team_id } => ("teams", team_id, "team"),
        Scope::Agent { agent_id } => ("agents", agent_id, "agent"),
    };
    if exists(conn, table, id)? {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!("There is no {what} {id} to keep this in; choose another scope.")))
    }
}

/// `table` is one of ours ("teams", "agents", "conversations"), never input.
pub(super) fn exists(conn: &Connection, table: &str, id: &str) -> Result<bool> {
    Ok(conn
        .prepare_cached(&format!("SELECT 1 FROM {table} WHERE id = ?1"))?
        .query_row([id], |_| Ok(()))
        .optional()?
        .is_some())
}

/// The live fact with exactly this text in this scope.
pub(super) fn live_duplicate(conn: &Connection, scope: &Scope, text: &str) -> Result<Option<Fact>> {
    let (kind, scope_id) = scope_parts(scope);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {FACT_COLUMNS} FROM memory_facts f
         WHERE f.scope_kind = :kind AND f.scope_id = :scope AND substr(f.text, 1, 32) = substr(:text, 1, 32)
           AND f.text = :text AND f.deleted = 0
         LIMIT 1"
    ))?;
    Ok(stmt.query_row(named_params! {":kind": kind, ":scope": scope_id, ":text": text}, fact_from_row).optional()?)
}

pub(super) fn insert(tx: &Transaction, fact: &Fact) -> Result<i64> {
    let (kind, scope_id) = scope_parts(&fact.scope);
    tx.prepare_cached(
        "INSERT INTO memory_facts (id, text, tags, scope_kind, scope_id, author, author_agent, created_at, updated_at,
                                   deleted, version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        fact.id,
        fact.text,
        to_json(&fact.tags)?,
        kind,
        scope_id,
        to_json(&fact.author)?,
        author_agent(&fact.author),
        fact.created_at,
        fact.updated_at,
        fact.deleted,
        fact.version,
    ])?;
    let seq = tx.last_insert_rowid();
    set_tags(tx, seq, &fact.tags)?;
    count_terms(tx, "word", &[], &search::fact_words(fact))?;
    count_terms(tx, "tag", &[], &fact.tags)?;
    Ok(seq)
}

/// Writes `after` over `before` (same fact): text, tags, deleted flag, version and time.
pub(super) fn update(tx: &Transaction, seq: i64, before: &Fact, after: &Fact) -> Result<()> {
    tx.prepare_cached(
        "UPDATE memory_facts SET text = ?2, tags = ?3, deleted = ?4, version = ?5, updated_at = ?6 WHERE seq = ?1",
    )?
    .execute(params![seq, after.text, to_json(&after.tags)?, after.deleted, after.version, after.updated_at])?;
    if before.tags != after.tags {
        tx.prepare_cached("DELETE FROM memory_fact_tags WHERE seq = ?1")?.execute([seq])?;
        set_tags(tx, seq, &after.tags)?;
        count_terms(tx, "tag", &before.tags, &after.tags)?;
    }
    if before.text != after.text || before.tags != after.tags {
        count_terms(tx, "word", &search::fact_words(before), &search::fact_words(after))?;
    }
    Ok(())
}

fn set_tags(tx: &Transaction, seq: i64, tags: &[String]) -> Result<()> {
    let mut insert = tx.prepare_cached("INSERT INTO memory_fact_tags (tag, seq) VALUES (?1, ?2)")?;
    for tag in tags {
        insert.execute(params![tag, seq])?;
    }
    Ok(())
}

/// Terms (distinct in each list) a fact no longer has count one fact fewer; new ones one more.
fn count_terms(tx: &Transaction, kind: &str, before: &[String], after: &[String]) -> Result<()> {
    let mut add = tx.prepare_cached(
        "INSERT INTO memory_term_counts (kind, term, facts) VALUES (?1, ?2, 1)
         ON CONFLICT (kind, term) DO UPDATE SET facts = facts + 1",
    )?;
    for term in after.iter().filter(|t| !before.contains(t)) {
        add.execute(params![kind, term])?;
    }
    let mut remove =
        tx.prepare_cached("UPDATE memory_term_counts SET facts = facts - 1 WHERE kind = ?1 AND term = ?2")?;
    for term in before.iter().filter(|t| !after.contains(t)) {
        remove.execute(params![kind, term])?;
    }
    Ok(())
}

/// How many facts have each of `terms`, in order (0 for an unknown one).
pub(super) fn term_counts(conn: &Connection, kind: &str, terms: &[String]) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare_cached("SELECT facts FROM memory_term_counts WHERE kind = ?1 AND term = ?2")?;
    terms.iter().map(|term| Ok(stmt.query_row(params![kind, term], |r| r.get(0)).optional()?.unwrap_or(0))).collect()
}

/// Records the fact as it is now, after `change`.
pub(super) fn add_version(tx: &Transaction, fact: &Fact, change: FactChange, by: &Author) -> Result<()> {
    let (kind, scope_id) = scope_parts(&fact.scope);
    tx.prepare_cached(
        "INSERT INTO memory_versions (fact_id, version, change, text, tags, scope_kind, scope_id, by_author, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        fact.id,
        fact.version,
        change_name(change),
        fact.text,
        to_json(&fact.tags)?,
        kind,
        scope_id,
        to_json(by)?,
        fact.updated_at,
    ])?;
    Ok(())
}

fn change_name(change: FactChange) -> &'static str {
    match change {
        FactChange::Created => "created",
        FactChange::Edited => "edited",
        FactChange::Deleted => "deleted",
        FactChange::Restored => "restored",
    }
}

pub(super) fn versions(conn: &Connection, id: &str) -> Result<Vec<FactVersion>> {
    let mut stmt = conn.prepare_cached(
        "SELECT version, change, text, tags, scope_kind, scope_id, by_author, at FROM memory_versions
         WHERE fact_id = ?1 ORDER BY version",
    )?;
    let rows = stmt.query_map([id], |r| {
        let change: String = r.get(1)?;
        let kind: String = r.get(4)?;
        Ok(FactVersion {
            version: r.get(0)?,
            change: match change.as_str() {
                "created" => FactChange::Created,
                "edited" => FactChange::Edited,
                "deleted" => FactChange::Deleted,
                "restored" => FactChange::Restored,
                _ => return Err(bad_column(1, "change")),
            },
            text: r.get(2)?,
            tags: json_column(r, 3)?,
            scope: scope_from(&kind, r.get(5)?, 4)?,
            by: json_column(r, 6)?,
            at: r.get(7)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub(super) fn citations(conn: &Connection, id: &str) -> Result<Vec<Citation>> {
    let mut stmt = conn.prepare_cached(
        "SELECT run_id, agent_id, agent_handle, at FROM memory_citations WHERE fact_id = ?1
         ORDER BY at DESC, run_id",
    )?;
    let rows = stmt.query_map([id], |r| {
        Ok(Citation { run_id: r.get(0)?, agent_id: r.get(1)?, agent_handle: r.get(2)?, at: r.get(3)? })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Records (fact, run) once; returns whether it is new.
pub(super) fn cite(
    tx: &Transaction,
    fact_id: &str,
    run_id: &str,
    agent_id: &str,
    handle: &str,
    at: i64,
) -> Result<bool> {
    let added = tx
        .prepare_cached(
            "INSERT OR IGNORE INTO memory_citations (fact_id, run_id, agent_id, agent_handle, at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![fact_id, run_id, agent_id, handle, at])?;
    Ok(added == 1)
}

pub(super) fn agent_handle(conn: &Connection, agent_id: &str) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached("SELECT handle FROM agents WHERE id = ?1")?
        .query_row([agent_id], |r| r.get(0))
        .optional()?)
}

/// Whether `agent_id` may read `fact` (see `VISIBLE`).
pub(super) fn visible_to(conn: &Connection, fact: &Fact, agent_id: &str) -> Result<bool> {
    Ok(match &fact.scope {
        Scope::Global => true,
        Scope::Agent { agent_id: owner } => owner == agent_id,
        Scope::Team { team_id } => conn
            .prepare_cached("SELECT 1 FROM team_members WHERE team_id = ?1 AND agent_id = ?2")?
            .query_row(params![team_id, agent_id], |_| Ok(()))
            .optional()?
            .is_some(),
    })
}
