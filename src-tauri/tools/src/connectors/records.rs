//! The connectors' rows (migration 0016). Entries are stored as JSON with their key, whether
//! they are secret, and a plain entry's value; a secret's value is never written here.

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

use super::types::{ConnectorInput, ConnectorKind};
use crate::error::{Error, Result};

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct StoredEntry {
    pub key: String,
    /// None for a secret.
    pub value: Option<String>,
    pub secret: bool,
}

#[derive(Debug, Clone)]
pub struct Row {
    pub id: String,
    pub name: String,
    pub kind: ConnectorKind,
    pub command: String,
    pub args: Vec<String>,
    pub url: String,
    pub entries: Vec<StoredEntry>,
    pub enabled: bool,
    pub shared_with: Vec<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

const COLUMNS: &str = "id, name, kind, command, args, url, entries, enabled, created_at, updated_at";

fn row(conn: &Connection, r: &rusqlite::Row<'_>) -> Result<Row> {
    let id: String = r.get(0)?;
    let kind: String = r.get(2)?;
    let args: String = r.get(4)?;
    let entries: String = r.get(6)?;
    let corrupt = |what: &str| Error::Internal(format!("connector {id}: stored {what} cannot be read"));
    Ok(Row {
        name: r.get(1)?,
        kind: ConnectorKind::parse(&kind).ok_or_else(|| corrupt("kind"))?,
        command: r.get(3)?,
        args: serde_json::from_str(&args).map_err(|_| corrupt("arguments"))?,
        url: r.get(5)?,
        entries: serde_json::from_str(&entries).map_err(|_| corrupt("entries"))?,
        enabled: r.get(7)?,
        shared_with: shares(conn, &id)?,
        created_at: r.get(8)?,
        updated_at: r.get(9)?,
        id,
    })
}

fn shares(conn: &Connection, id: &str) -> Result<Vec<String>> {
    let mut stmt =
        conn.prepare_cached("SELECT agent_id FROM connector_shares WHERE connector_id = ?1 ORDER BY agent_id")?;
    let ids = stmt.query_map([id], |r| r.get(0))?.collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(ids)
}

fn query(conn: &Connection, sql: &str, args: impl rusqlite::Params) -> Result<Vec<Row>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query(args)?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(row(conn, r)?);
    }
    Ok(out)
}

pub fn all(conn: &Connection) -> Result<Vec<Row>> {
    query(conn, &format!("SELECT {COLUMNS} FROM connectors ORDER BY name"), [])
}

pub fn one(conn: &Connection, id: &str) -> Result<Row> {
    query(conn, &format!("SELECT {COLUMNS} FROM connectors WHERE id = ?1"), [id])?
        .pop()
        .ok_or_else(|| Error::NotFound("That connector no longer exists.".into()))
}

/// The enabled connectors shared with an agent, by name.
pub fn shared_with(conn: &Connection, agent_id: &str) -> Result<Vec<Row>> {
    let sql = format!(
        "SELECT {COLUMNS} FROM connectors WHERE enabled = 1 AND id IN \
         (SELECT connector_id FROM connector_shares WHERE agent_id = ?1) ORDER BY name"
    );
    query(conn, &sql, [agent_id])
}

fn stored_entries(input: &ConnectorInput) -> String {
    let entries: Vec<StoredEntry> = input
        .entries
        .iter()
        .map(|e| StoredEntry {
            key: e.key.clone(),
            value: if e.secret { None } else { e.value.clone() },
            secret: e.secret,
        })
        .collect();
    serde_json::to_string(&entries).unwrap_or_else(|_| "[]".into())
}

fn name_taken(tx: &Transaction, name: &str, except: &str) -> Result<()> {
    let taken: Option<String> = tx
        .query_row("SELECT id FROM connectors WHERE name = ?1 AND id <> ?2", [name, except], |r| r.get(0))
        .optional()?;
    match taken {
        Some(_) => Err(Error::Conflict(format!("A connector named \"{name}\" already exists."))),
        None => Ok(()),
    }
}

pub fn insert(tx: &Transaction, id: &str, input: &ConnectorInput, now: i64) -> Result<()> {
    name_taken(tx, &input.name, id)?;
    tx.prepare_cached(
        "INSERT INTO connectors (id, name, kind, command, args, url, entries, enabled, created_at, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
    )?
    .execute(params![
        id,
        input.name,
        input.kind.as_str(),
        input.command,
        serde_json::to_string(&input.args).unwrap_or_else(|_| "[]".into()),
        input.url,
        stored_entries(input),
        input.enabled,
        now,
    ])?;
    Ok(())
}

pub fn update(tx: &Transaction, id: &str, input: &ConnectorInput, now: i64) -> Result<()> {
    name_taken(tx, &input.name, id)?;
    let changed = tx
        .prepare_cached(
            "UPDATE connectors SET name = ?2, kind = ?3, command = ?4, args = ?5, url = ?6, entries = ?7, \
         enabled = ?8, updated_at = ?9 WHERE id = ?1",
        )?
        .execute(params![
            id,
            input.name,
            input.kind.as_str(),
            input.command,
            serde_json::to_string(&input.args).unwrap_or_else(|_| "[]".into()),
            input.url,
            stored_entries(input),
            input.enabled,
            now,
        ])?;
    if changed == 0 {
        return Err(Error::NotFound("That connector no longer exists.".into()));
    }
    Ok(())
}

pub fn delete(tx: &Transaction, id: &str) -> Result<()> {
    tx.prepare_cached("DELETE FROM connectors WHERE id = ?1")?.execute([id])?;
    Ok(())
}

fn exists(tx: &Transaction, id: &str) -> Result<()> {
    let found: Option<i64> =
        tx.prepare_cached("SELECT 1 FROM connectors WHERE id = ?1")?.query_row([id], |r| r.get(0)).optional()?;
    found.map(drop).ok_or_else(|| Error::NotFound("That connector no longer exists.".into()))
}

fn agent_exists(tx: &Transaction, agent_id: &str) -> Result<()> {
    let found: Option<i64> =
        tx.prepare_cached("SELECT 1 FROM agents WHERE id = ?1")?.query_row([agent_id], |r| r.get(0)).optional()?;
    found.map(drop).ok_or_else(|| Error::NotFound(format!("No agent with id {agent_id}.")))
}

pub fn set_shares(tx: &Transaction, id: &str, agent_ids: &[String]) -> Result<()> {
    exists(tx, id)?;
    tx.prepare_cached("DELETE FROM connector_shares WHERE connector_id = ?1")?.execute([id])?;
    for agent_id in agent_ids {
        agent_exists(tx, agent_id)?;
        tx.prepare_cached("INSERT OR IGNORE INTO connector_shares (connector_id, agent_id) VALUES (?1, ?2)")?
            .execute([id, agent_id])?;
    }
    Ok(())
}

pub fn share(tx: &Transaction, id: &str, agent_id: &str, shared: bool) -> Result<()> {
    exists(tx, id)?;
    agent_exists(tx, agent_id)?;
    if shared {
        tx.prepare_cached("INSERT OR IGNORE INTO connector_shares (connector_id, agent_id) VALUES (?1, ?2)")?
            .execute([id, agent_id])?;
    } else {
        tx.prepare_cached("DELETE FROM connector_shares WHERE connector_id = ?1 AND agent_id = ?2")?
            .execute([id, agent_id])?;
    }
    Ok(())
}
