//! The Waiting-for-you inbox of an agent in a room, as stored: alerts and notices
//! (`inbox_items`), results of the work it handed out that no batch carried (`handoffs`), and the
//! peer posts it has not been given yet (`peer_deliveries`).
//!
//! What a turn carries is marked with its run in the transaction that records the run, so no
//! other turn takes it; when that run never really started (no reply, no session, and it did not
//! succeed), [`release_run`] gives it all back for the agent's next turn. So an item is delivered
//! once, and a failed start loses nothing.

use rusqlite::{params, Connection, Transaction};

use super::store::{self as team_store, post_from_row, Handoff};
use super::types::PeerPost;
use crate::context::{WaitingItem, WaitingKind};
use crate::error::{Error, Result};

/// An alert or a notice for one agent in one room (results travel as hand-offs).
pub struct NewItem<'a> {
    pub room_id: &'a str,
    pub agent_id: &'a str,
    pub kind: WaitingKind,
    /// The agent it is from, when one (shown as `from @handle`).
    pub from_agent_id: Option<&'a str>,
    pub text: &'a str,
}

pub fn add_item(tx: &Transaction, item: &NewItem<'_>, now: i64) -> Result<()> {
    let kind = match item.kind {
        WaitingKind::Alert => "alert",
        WaitingKind::Notice => "notice",
        WaitingKind::Result => return Err(Error::Internal("results travel as hand-offs".into())),
    };
    tx.prepare_cached(
        "INSERT INTO inbox_items (id, room_id, agent_id, kind, from_agent_id, text, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        uuid::Uuid::new_v4().to_string(),
        item.room_id,
        item.agent_id,
        kind,
        item.from_agent_id,
        item.text,
        now
    ])?;
    Ok(())
}

/// Alerts and notices waiting for an agent in a room, oldest first, with the sender's agent id.
pub fn waiting_items(conn: &Connection, room_id: &str, agent_id: &str) -> Result<Vec<(WaitingItem, Option<String>)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, kind, from_agent_id, text FROM inbox_items
         WHERE agent_id = ?1 AND room_id = ?2 AND delivered_run_id IS NULL ORDER BY created_at, rowid",
    )?;
    let rows = stmt.query_map(params![agent_id, room_id], |r| {
        let kind: String = r.get(1)?;
        Ok((
            WaitingItem {
                id: r.get(0)?,
                kind: if kind == "alert" { WaitingKind::Alert } else { WaitingKind::Notice },
                from: None,
                text: r.get(3)?,
            },
            r.get::<_, Option<String>>(2)?,
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Due results of `agent_id`'s hand-offs in a room (see [`super::batch::due_results`]) that no
/// batch carried and that belong to no open task of its own (those go back to it as that task's
/// batch), oldest first.
pub fn waiting_results(conn: &Connection, room_id: &str, agent_id: &str) -> Result<Vec<Handoff>> {
    let mut results = super::batch::due_results(conn, room_id, agent_id)?;
    let mut open = Vec::new();
    for h in &results {
        if let Some(parent) = &h.parent_handoff_id {
            if team_store::is_open(conn, parent)? {
                open.push(h.id.clone());
            }
        }
    }
    results.retain(|h| !open.contains(&h.id));
    Ok(results)
}

/// A result as an inbox item: the task's first line, then the teammate's reply.
pub fn result_item(handoff: &Handoff, from_handle: String) -> WaitingItem {
    WaitingItem {
        id: handoff.id.clone(),
        kind: WaitingKind::Result,
        from: Some(from_handle),
        text: result_text(&handoff.task, handoff.result.as_deref().unwrap_or_default(), handoff.status != "done"),
    }
}

/// A result's text in the inbox: the first line of the task (cut as in a batch), then the reply
/// (said to have failed when the teammate's run did not succeed).
pub fn result_text(task: &str, reply: &str, failed: bool) -> String {
    let task = task.trim().lines().next().unwrap_or("");
    let task = crate::board::cut(task, crate::context::TASK_LINE_BUDGET);
    let reply = reply.trim();
    let reply = if reply.is_empty() { "(no reply)" } else { reply };
    format!("Task: {task}\n{}{reply}", if failed { "(failed) " } else { "" })
}

/// The turn of run `run_id` carries these items, results and posts.
pub fn claim(tx: &Transaction, run_id: &str, agent_id: &str, claimed: &Claimed) -> Result<()> {
    let mut stmt = tx.prepare_cached("UPDATE inbox_items SET delivered_run_id = ?2 WHERE id = ?1")?;
    for id in &claimed.items {
        stmt.execute(params![id, run_id])?;
    }
    team_store::mark_results_delivered(tx, &claimed.results, run_id)?;
    let mut stmt = tx.prepare_cached(
        "INSERT INTO peer_deliveries (post_id, agent_id, run_id) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
    )?;
    for id in &claimed.posts {
        stmt.execute(params![id, agent_id, run_id])?;
    }
    Ok(())
}

/// Run `run_id` never really started: what its turn carried waits for the agent's next turn.
pub fn release_run(tx: &Transaction, run_id: &str, claimed: &Claimed) -> Result<()> {
    tx.prepare_cached("UPDATE inbox_items SET delivered_run_id = NULL WHERE delivered_run_id = ?1")?
        .execute([run_id])?;
    team_store::release_results(tx, &claimed.results, run_id)?;
    tx.prepare_cached("DELETE FROM peer_deliveries WHERE run_id = ?1")?.execute([run_id])?;
    Ok(())
}

/// What one turn carried of the inbox, by id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Claimed {
    pub items: Vec<String>,
    pub results: Vec<String>,
    pub posts: Vec<String>,
}

/// Posts by others that the agent has not been given yet, oldest first (the cursor of older
/// data is the floor).
pub fn unseen_posts(conn: &Connection, team_id: &str, agent_id: &str) -> Result<Vec<PeerPost>> {
    let mut stmt = conn.prepare_cached(
        "SELECT p.id, p.team_id, p.seq, p.author_id, p.author_handle, p.run_id, p.text, p.created_at
         FROM peer_posts p WHERE p.team_id = ?1
         AND p.seq > COALESCE((SELECT seq FROM peer_cursors WHERE team_id = ?1 AND agent_id = ?2), 0)
         AND (p.author_id IS NULL OR p.author_id != ?2)
         AND NOT EXISTS (SELECT 1 FROM peer_deliveries d WHERE d.post_id = p.id AND d.agent_id = ?2)
         ORDER BY p.seq",
    )?;
    let rows = stmt.query_map(params![team_id, agent_id], post_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
