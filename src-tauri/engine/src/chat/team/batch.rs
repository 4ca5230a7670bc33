//! Results going back: a hand-off's result reaches whoever handed the work out, with the other
//! results of the same turn, as one batch — the moment the turn that made them has ended and
//! none of them is still queued or running (no timer). A result made on a teammate's own task
//! (a chain) goes back as part of that task: the teammate's batch turn continues it, and its
//! reply then finishes that task and goes up in turn.

use std::sync::Arc;

use rusqlite::Connection;

use super::store::{self as team_store, Handoff};
use super::{Deliver, Delivery};
use crate::chat::{lock, Chat};
use crate::error::Result;

/// The results of one batch: of one turn's hand-offs, or of a task the agent is working on.
pub(super) struct BatchResults {
    pub results: Vec<Handoff>,
    /// The agent's own hand-off these results continue (its reply finishes it), when a chain.
    pub continues: Option<Handoff>,
}

/// Results waiting for `agent_id` in a room that are due: no hand-off made by the same run is
/// still queued or running. Oldest first.
pub(super) fn due_results(conn: &Connection, room_id: &str, agent_id: &str) -> Result<Vec<Handoff>> {
    let mut results = team_store::waiting_results(conn, room_id, agent_id)?;
    let mut runs: Vec<(String, bool)> = Vec::new();
    for h in &results {
        if !runs.iter().any(|(run, _)| *run == h.from_run_id) {
            let due = team_store::pending_handoffs_of_run(conn, &h.from_run_id)? == 0;
            runs.push((h.from_run_id.clone(), due));
        }
    }
    results.retain(|h| runs.iter().any(|(run, due)| *run == h.from_run_id && *due));
    Ok(results)
}

/// The next batch for `agent_id` in a room: the due results of the oldest one's group (the same
/// open task of the agent's, or none).
pub(super) fn next_batch(conn: &Connection, room_id: &str, agent_id: &str) -> Result<BatchResults> {
    let results = due_results(conn, room_id, agent_id)?;
    let mut groups: Vec<(String, Option<Handoff>)> = Vec::with_capacity(results.len());
    for h in &results {
        let open = match &h.parent_handoff_id {
            Some(parent) => team_store::handoff(conn, parent)?.filter(|p| p.status == "running"),
            None => None,
        };
        groups.push((h.id.clone(), open));
    }
    let Some((_, first)) = groups.first().cloned() else {
        return Ok(BatchResults { results: Vec::new(), continues: None });
    };
    let key = first.as_ref().map(|p| p.id.clone());
    let same: Vec<&String> =
        groups.iter().filter(|(_, open)| open.as_ref().map(|p| p.id.clone()) == key).map(|(id, _)| id).collect();
    let results = results.into_iter().filter(|h| same.contains(&&h.id)).collect();
    Ok(BatchResults { results, continues: first })
}

impl Chat {
    /// A hand-off ended with `handoff` as stored: once the turn that made it has ended and none
    /// of its siblings is still queued or running, its maker gets the batch at once. While that
    /// turn still runs, its end sends the batch ([`Chat::batch_if_due`]).
    pub(crate) fn result_back(self: &Arc<Self>, team_id: &str, handoff: &Handoff, generation: u64) {
        if generation < lock(&self.team).generation(team_id) {
            // Stopped: this result must not ride along with a later batch either (the hand-off's
            // end dropped it already, unless the stop came just after).
            let stale = [handoff.id.clone()];
            let _ = self.store.write(|tx| team_store::mark_results_delivered(tx, &stale, "stopped"));
            return;
        }
        if self.store.read(|c| team_store::pending_handoffs_of_run(c, &handoff.from_run_id)).is_ok_and(|n| n > 0) {
            return; // the last of them sends the batch
        }
        if lock(&self.team).runs.contains_key(&handoff.from_run_id) {
            return; // the turn that made it is still going: its end sends the batch
        }
        self.enqueue_batch(team_id, &handoff.room_id, &handoff.from_agent_id, generation);
    }

    /// A run of `agent_id` in a room ended: results that wait for it and are due (its own
    /// hand-offs, all ended; or what an earlier batch left) go to it now.
    pub(super) fn batch_if_due(self: &Arc<Self>, team_id: &str, room_id: &str, agent_id: &str, generation: u64) {
        if generation < lock(&self.team).generation(team_id) {
            return;
        }
        match self.store.read(|c| due_results(c, room_id, agent_id)) {
            Ok(due) if !due.is_empty() => self.enqueue_batch(team_id, room_id, agent_id, generation),
            Ok(_) => {}
            Err(e) => tracing::warn!(%room_id, %agent_id, error = %e, "waiting results could not be read"),
        }
    }

    /// Queues a batch for the agent, unless one already waits in its queue for that room.
    fn enqueue_batch(self: &Arc<Self>, team_id: &str, room_id: &str, agent_id: &str, generation: u64) {
        let queued = lock(&self.team)
            .queues
            .get(agent_id)
            .is_some_and(|q| q.iter().any(|d| d.what == Deliver::Batch && d.room_id == room_id));
        if queued {
            return;
        }
        self.enqueue(Delivery {
            room_id: room_id.to_owned(),
            team_id: team_id.to_owned(),
            agent_id: agent_id.to_owned(),
            what: Deliver::Batch,
            depth: 0, // set from the results when it starts
            generation,
        });
    }
}
