//! Each agent's one run slot (one-to-one and team runs): taking it, freeing it, and stopping what
//! holds it (on delete and on exit), so nothing runs in a folder that is going away.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::watch;

use crate::agents::Agent;
use crate::error::{Error, Result};

/// The runs going, one per agent, and the agents being deleted.
pub struct AgentSlots {
    /// Runs in progress, by agent (one at a time per agent).
    active: Mutex<HashMap<String, ActiveRun>>,
    /// Agents being deleted: no new run may start. Locked only while `active` is held.
    closing: Mutex<HashSet<String>>,
    next_slot: AtomicU64,
    handle: tokio::runtime::Handle,
}

struct ActiveRun {
    /// Set once the run's row exists; empty while the slot is only reserved.
    run_id: String,
    /// Tells this run's entry from a later run's of the same agent.
    slot: u64,
    cancel: watch::Sender<bool>,
    done: watch::Receiver<bool>,
}

/// A reserved run slot: released when dropped, unless the run started.
pub struct Reservation<'a> {
    slots: &'a AgentSlots,
    /// Taken when the run starts.
    slot: Option<Slot>,
}

/// A started run's hold on its agent's slot, given back with [`AgentSlots::end`] or
/// [`AgentSlots::release`].
pub struct Slot {
    agent_id: String,
    id: u64,
    /// Becomes true when the run is to stop (the user's Stop, the agent's delete, quitting).
    pub cancel: watch::Receiver<bool>,
    /// Set once the run has ended and its slot is free.
    done: watch::Sender<bool>,
}

impl AgentSlots {
    pub fn new(handle: tokio::runtime::Handle) -> Self {
        Self { active: Mutex::default(), closing: Mutex::default(), next_slot: AtomicU64::new(0), handle }
    }

    /// Takes the agent's run slot, or says why not.
    pub fn reserve(&self, agent: &Agent) -> Result<Reservation<'_>> {
        let mut active = self.lock_active();
        if lock(&self.closing).contains(&agent.id) {
            return Err(Error::InvalidInput(format!("@{} is being deleted.", agent.handle)));
        }
        if active.contains_key(&agent.id) {
            return Err(Error::InvalidInput(format!("@{} is still answering. Wait, or stop it first.", agent.handle)));
        }
        let slot = self.next_slot.fetch_add(1, Ordering::Relaxed);
        let (cancel_tx, cancel) = watch::channel(false);
        let (done, done_rx) = watch::channel(false);
        active.insert(agent.id.clone(), ActiveRun { run_id: String::new(), slot, cancel: cancel_tx, done: done_rx });
        Ok(Reservation { slots: self, slot: Some(Slot { agent_id: agent.id.clone(), id: slot, cancel, done }) })
    }

    /// Stops the run `run_id`.
    pub fn cancel(&self, run_id: &str) -> Result<()> {
        let active = self.lock_active();
        let run = active
            .values()
            .find(|r| r.run_id == run_id)
            .ok_or_else(|| Error::RunNotActive("That run has already finished.".into()))?;
        let _ = run.cancel.send(true);
        Ok(())
    }

    /// Whether the agent has a run going (or being set up).
    pub fn is_busy(&self, agent_id: &str) -> bool {
        self.lock_active().contains_key(agent_id)
    }

    /// Whether no run is going.
    pub fn is_empty(&self) -> bool {
        self.lock_active().is_empty()
    }

    pub fn is_closing(&self, agent_id: &str) -> bool {
        lock(&self.closing).contains(agent_id)
    }

    /// The agent is about to be deleted: no new run of it may start while the returned guard
    /// lives; its run (if any) is stopped and awaited (up to `limit`). Err, the agent open
    /// again, when the run did not stop in time.
    pub fn close(&self, agent_id: &str, limit: Duration) -> Result<Closing<'_>> {
        let running = {
            let active = self.lock_active();
            lock(&self.closing).insert(agent_id.to_owned());
            active.get(agent_id).map(|run| {
                let _ = run.cancel.send(true);
                (run.slot, run.done.clone())
            })
        };
        let closing = Closing { slots: self, agent_id: agent_id.to_owned() };
        if let Some((slot, done)) = running {
            wait_done(&self.handle, vec![done], limit);
            if self.lock_active().get(agent_id).is_some_and(|run| run.slot == slot) {
                return Err(Error::RuntimeFailed(format!(
                    "The agent's run did not stop within {} s, so the agent was not deleted. Try again.",
                    limit.as_secs()
                )));
            }
        }
        Ok(closing)
    }

    /// Stops every run and waits (up to `limit`) for them to end.
    pub fn stop_all(&self, limit: Duration) {
        let waits: Vec<_> = self
            .lock_active()
            .values()
            .map(|r| {
                let _ = r.cancel.send(true);
                r.done.clone()
            })
            .collect();
        wait_done(&self.handle, waits, limit);
    }

    /// Runs `commit` (what stores the run's end) and frees the agent's slot in one hold of the
    /// slot lock, so whoever sees that end (in the store, or in the news after it) and sends
    /// again finds the slot free; then the run is done. `commit` must not take the slot lock.
    pub fn end<T>(&self, slot: Slot, commit: impl FnOnce() -> T) -> T {
        let committed = self.commit_and_release(&slot.agent_id, slot.id, commit);
        let _ = slot.done.send(true);
        committed
    }

    /// Frees the agent's slot (if it still holds this run); the run is done.
    pub fn release(&self, slot: Slot) {
        self.end(slot, || ());
    }

    fn commit_and_release<T>(&self, agent_id: &str, slot: u64, commit: impl FnOnce() -> T) -> T {
        let mut active = self.lock_active();
        let committed = commit();
        if active.get(agent_id).is_some_and(|run| run.slot == slot) {
            active.remove(agent_id);
        }
        committed
    }

    fn lock_active(&self) -> MutexGuard<'_, HashMap<String, ActiveRun>> {
        lock(&self.active)
    }
}

impl Reservation<'_> {
    /// The run exists: its id goes in the slot, which the run's end now releases.
    pub fn started(mut self, run_id: &str) -> Slot {
        let slot = self.slot.take().expect("a reservation starts once");
        if let Some(run) = self.slots.lock_active().get_mut(&slot.agent_id).filter(|r| r.slot == slot.id) {
            run.run_id = run_id.to_owned();
        }
        slot
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            self.slots.release(slot);
        }
    }
}

/// An agent being deleted: open again when dropped.
pub struct Closing<'a> {
    slots: &'a AgentSlots,
    agent_id: String,
}

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        lock(&self.slots.closing).remove(&self.agent_id);
    }
}

/// Blocks this (non-async) thread until the runs behind `waits` have ended, or `limit`; whether
/// they all ended.
pub fn wait_done(handle: &tokio::runtime::Handle, waits: Vec<watch::Receiver<bool>>, limit: Duration) -> bool {
    if waits.is_empty() {
        return true;
    }
    let wait_all = async move {
        for mut done in waits {
            let _ = done.wait_for(|d| *d).await;
        }
    };
    let handle = handle.clone();
    // On the engine's runtime, from a thread of its own: the timer needs the runtime's clock.
    std::thread::spawn(move || handle.block_on(async move { tokio::time::timeout(limit, wait_all).await.is_ok() }))
        .join()
        .unwrap_or(false)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
