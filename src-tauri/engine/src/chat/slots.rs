//! Each agent's one run slot: taking it, freeing it, and stopping what holds it (on delete and on
//! exit), so nothing runs in a folder that is going away.

use std::collections::HashMap;
use std::time::Duration;

use tokio::sync::watch;

use super::{lock, ActiveRun, Chat};
use crate::agents::Agent;
use crate::error::{Error, Result};

impl Chat {
    /// Deletes the agent: its run (if any) is cancelled and awaited (up to `limit`) first, and
    /// no new run can start meanwhile, so nothing runs in a folder that is going away.
    pub fn delete_agent(&self, agent_id: &str, limit: Duration) -> Result<()> {
        let running = {
            let active = self.lock_active();
            lock(&self.closing).insert(agent_id.to_owned());
            active.get(agent_id).map(|run| {
                let _ = run.cancel.send(true);
                (run.slot, run.done.clone())
            })
        };
        if let Some((slot, done)) = running {
            self.wait_done(vec![done], limit);
            if self.lock_active().get(agent_id).is_some_and(|run| run.slot == slot) {
                lock(&self.closing).remove(agent_id);
                return Err(Error::RuntimeFailed(format!(
                    "The agent's run did not stop within {} s, so the agent was not deleted. Try again.",
                    limit.as_secs()
                )));
            }
        }
        let deleted = self.agents.delete(agent_id);
        if deleted.is_ok() {
            // A Gateway's lasting relay token goes with its agent.
            if let Some(relay) = &self.relay {
                relay.release(agent_id);
            }
            // So does its lasting tools token.
            if let Some(tools) = &self.tools {
                tools.release(agent_id);
            }
        }
        lock(&self.closing).remove(agent_id);
        deleted
    }

    /// Stops every run and waits (up to `limit`) for their processes to be gone, then whatever
    /// the adapters keep between turns. Called on exit.
    pub fn shutdown(&self, limit: Duration) {
        self.quitting.store(true, std::sync::atomic::Ordering::SeqCst);
        self.stop_runs(limit);
        self.runtimes.shutdown();
    }

    pub(super) fn stop_runs(&self, limit: Duration) {
        let waits: Vec<_> = self
            .lock_active()
            .values()
            .map(|r| {
                let _ = r.cancel.send(true);
                r.done.clone()
            })
            .collect();
        self.wait_done(waits, limit);
    }

    /// Blocks this (non-async) thread until the runs behind `waits` have ended, or `limit`.
    pub(super) fn wait_done(&self, waits: Vec<watch::Receiver<bool>>, limit: Duration) {
        if waits.is_empty() {
            return;
        }
        let handle = self.handle.clone();
        let wait_all = async move {
            for mut done in waits {
                let _ = done.wait_for(|d| *d).await;
            }
        };
        // Block this (non-async) thread on the engine's runtime until the runs have ended.
        // The timer is made inside the runtime: it needs the runtime's clock.
        let _ = std::thread::spawn(move || handle.block_on(async move { tokio::time::timeout(limit, wait_all).await }))
            .join();
    }

    pub(super) fn lock_active(&self) -> std::sync::MutexGuard<'_, HashMap<String, ActiveRun>> {
        lock(&self.active)
    }

    pub(super) fn is_closing(&self, agent_id: &str) -> bool {
        lock(&self.closing).contains(agent_id)
    }

    /// Takes the agent's run slot, or says why not.
    pub(super) fn reserve(&self, agent: &Agent, mut run: ActiveRun) -> Result<Reservation<'_>> {
        let mut active = self.lock_active();
        if lock(&self.closing).contains(&agent.id) {
            return Err(Error::InvalidInput(format!("@{} is being deleted.", agent.handle)));
        }
        if active.contains_key(&agent.id) {
            return Err(Error::InvalidInput(format!("@{} is still answering. Wait, or stop it first.", agent.handle)));
        }
        run.slot = self.next_slot.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let slot = run.slot;
        active.insert(agent.id.clone(), run);
        Ok(Reservation { chat: self, agent_id: agent.id.clone(), slot, started: false })
    }

    /// Frees the agent's slot if it still holds this run.
    pub(super) fn release(&self, agent_id: &str, slot: u64) {
        self.commit_and_release(agent_id, slot, || ());
    }

    /// Runs `commit` (what stores the run's end) and frees the agent's slot in one hold of the
    /// slot lock, so whoever sees that end (in the store, or in the news after it) and sends
    /// again finds the slot free. `commit` must not take the slot lock itself.
    pub(super) fn commit_and_release<T>(&self, agent_id: &str, slot: u64, commit: impl FnOnce() -> T) -> T {
        let mut active = self.lock_active();
        let committed = commit();
        if active.get(agent_id).is_some_and(|run| run.slot == slot) {
            active.remove(agent_id);
        }
        committed
    }
}

/// A reserved run slot: released when dropped, unless the run started.
pub(super) struct Reservation<'a> {
    chat: &'a Chat,
    agent_id: String,
    slot: u64,
    started: bool,
}

impl Reservation<'_> {
    /// The run exists: its id goes in the slot, which the run's task now releases.
    pub(super) fn started(mut self, run_id: &str) -> u64 {
        if let Some(run) = self.chat.lock_active().get_mut(&self.agent_id).filter(|r| r.slot == self.slot) {
            run.run_id = run_id.to_owned();
        }
        self.started = true;
        self.slot
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if !self.started {
            self.chat.release(&self.agent_id, self.slot);
        }
    }
}
