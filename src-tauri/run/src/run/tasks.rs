//! The task runner's live runs, by claim: a card's task that just ended may still be finishing
//! when the card's next one starts, so a card can have two for a moment. Each can be stopped,
//! and waited for (up to a limit) through [`super::wait_done`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use tokio::sync::watch;

/// Tasks going, by claim.
#[derive(Default)]
pub struct TaskRuns {
    running: Mutex<HashMap<String, LiveTask>>,
}

struct LiveTask {
    /// The agent it runs for (the card's assignee when it started).
    agent_id: String,
    card_id: String,
    cancel: watch::Sender<bool>,
    done: watch::Receiver<bool>,
    /// The plain (non-git) project folder it works in: no other run starts there meanwhile.
    exclusive: Option<PathBuf>,
}

/// A started task's hold on its entry: its stop signal, and its end to tell.
pub struct TaskSlot {
    pub claim: String,
    /// Becomes true when the user stops the task (or the app quits).
    pub cancel: watch::Receiver<bool>,
    done: watch::Sender<bool>,
}

impl TaskRuns {
    /// Lists a task as going.
    pub fn start(&self, claim: &str, agent_id: &str, card_id: &str, exclusive: Option<PathBuf>) -> TaskSlot {
        let (cancel_tx, cancel) = watch::channel(false);
        let (done, done_rx) = watch::channel(false);
        let live = LiveTask {
            agent_id: agent_id.to_owned(),
            card_id: card_id.to_owned(),
            cancel: cancel_tx,
            done: done_rx,
            exclusive,
        };
        self.lock().insert(claim.to_owned(), live);
        TaskSlot { claim: claim.to_owned(), cancel, done }
    }

    /// The task has ended: it is no longer listed, then whoever waits for it hears so.
    pub fn end(&self, slot: TaskSlot) {
        self.lock().remove(&slot.claim);
        let _ = slot.done.send(true);
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Whether a task going works in this plain project folder.
    pub fn works_in(&self, folder: &Path) -> bool {
        self.lock().values().any(|live| live.exclusive.as_deref() == Some(folder))
    }

    /// The cards with a task going (a card once per task), and each task's claim.
    pub fn cards(&self) -> Vec<(String, String)> {
        self.lock().iter().map(|(claim, live)| (live.card_id.clone(), claim.clone())).collect()
    }

    /// Whether a task of the card is going.
    pub fn runs_card(&self, card_id: &str) -> bool {
        self.lock().values().any(|live| live.card_id == card_id)
    }

    /// Stops the card's tasks; whether it had one.
    pub fn stop_card(&self, card_id: &str) -> bool {
        let running = self.lock();
        let mut stopped = false;
        for live in running.values().filter(|live| live.card_id == card_id) {
            let _ = live.cancel.send(true);
            stopped = true;
        }
        stopped
    }

    /// Stops the task holding `claim` if it still runs for `card_id`.
    pub fn stop_claim(&self, claim: &str, card_id: &str) {
        if let Some(live) = self.lock().get(claim).filter(|live| live.card_id == card_id) {
            let _ = live.cancel.send(true);
        }
    }

    /// Stops the tasks of an agent (every task when `None`); what to wait on for their ends.
    pub fn stop(&self, agent_id: Option<&str>) -> Vec<watch::Receiver<bool>> {
        self.lock()
            .values()
            .filter(|live| agent_id.is_none_or(|id| live.agent_id == id))
            .map(|live| {
                let _ = live.cancel.send(true);
                live.done.clone()
            })
            .collect()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, LiveTask>> {
        self.running.lock().unwrap_or_else(|p| p.into_inner())
    }
}
