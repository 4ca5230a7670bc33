//! The task runner: runs a Board card for its assignee. `start` claims the card (one atomic
//! claim however many race for it), then the task runs when a slot is free: at most
//! `maxConcurrent` at once (default 4), the rest waiting urgent first, then oldest card.
//!
//! A task is one or more runs, each a real run (its events, relay requests and exact context
//! stored) in a fresh runtime session with the three tiers of `context::task_tiers` (the
//! comments made on the card since its last run are its waiting items):
//! - the run ends well: its final reply becomes the card's report; the card's check command,
//!   when it has one, judges the work (failing: one fix round told why, then Blocked; passing:
//!   Done); without a check the card goes to In review (a person judges what an agent did);
//! - it fails (the runtime's error, silence, the wall-clock limit): Blocked, saying why;
//! - it runs out of room (turn limit, or more than 85% of the context window used): it goes on
//!   in a fresh session with a hand-off note on its last progress, at most 3 times, then Blocked;
//! - the user stops it: back to To do; Clawboo quits or crashes: the run is marked cut off, the
//!   card goes back to To do, and its next run is warned to check what the cut-off one did.
//!
//! The first run's id is the card's claim: it is taken before the run can start, and held by
//! the task through its fix rounds and fresh sessions (each run recorded on the card with its
//! attempt number and why it exists).
//!
//! A card's project folder (`worktree`): a git repository is worked in through the card's own
//! worktree and branch, never the user's checkout; a plain folder in place, one run at a time.

mod begin;
pub mod card_comments;
pub mod check;
mod folders;
mod git;
mod store;
mod task;
mod traces;
mod types;
pub mod worktree;

use std::cmp::Reverse;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{broadcast, watch};

pub use check::CheckOutcome;
pub use traces::{TaskTrace, MAX_TRACES};
pub use types::*;

use crate::agents::Agents;
use crate::board::{Board, CardStatus, Priority};
use crate::error::{Error, Result};
use crate::events::{EngineEvent, EventBus};
use crate::memory::Memory;
use crate::run::TaskRuns;
use crate::runtimes::catalog::RuntimeCatalog;
use crate::runtimes::process::Spawner;
use crate::runtimes::RuntimeRegistry;
use crate::store::Store;

/// Why a card goes back to To do when the user stops its queued task.
const STOPPED_BEFORE_START: &str = "Stopped by the user before its run started";
/// Why a queued card goes back to To do when Clawboo quits or crashed.
const QUEUED_AT_QUIT: &str = "Clawboo stopped before its run started";

/// What the runner is built on (the engine's services).
pub struct RunnerParts {
    pub store: Arc<Store>,
    pub agents: Arc<Agents>,
    pub board: Arc<Board>,
    pub memory: Arc<Memory>,
    pub runtimes: RuntimeRegistry,
    pub catalog: Arc<RuntimeCatalog>,
    pub events: EventBus,
    pub handle: tokio::runtime::Handle,
    pub spawner: Arc<dyn Spawner>,
    pub relay: Option<Arc<crate::relay::Relay>>,
    pub tools: Option<Arc<crate::tools::Tools>>,
    /// The user's connectors: each run gets those shared with its agent.
    pub connectors: Option<Arc<crate::connectors::Connectors>>,
    /// Where runs' permission questions go.
    pub attention: Arc<crate::attention::Attention>,
    /// The circuit breakers and budgets every task run is checked against.
    pub guard: Option<Arc<crate::guard::Guard>>,
    /// For a team's project folder (a card on a team that names none of its own works there).
    pub teams: Arc<crate::teams::Teams>,
    /// Where the cards' git worktrees go (`<data dir>/worktrees`).
    pub worktrees: PathBuf,
}

pub struct Runner {
    parts: RunnerParts,
    /// The queue; held while a task moves from it to `runs`.
    state: Mutex<State>,
    /// Tasks going, by claim.
    runs: TaskRuns,
    /// Set when the app quits: runs stopped from then on were cut off, not stopped by the user.
    quitting: AtomicBool,
    /// Held while a worktree is removed: a card's close is seen by the Board watch and by its
    /// run's end, and one removal at a time is enough.
    tidying: Mutex<()>,
}

#[derive(Default)]
struct State {
    /// Tasks claimed and waiting for a slot.
    queue: Vec<Queued>,
    next_seq: u64,
}

#[derive(Debug, Clone)]
struct Queued {
    card_id: String,
    agent_id: String,
    claim: String,
    priority: Priority,
    created_at: i64,
    seq: u64,
    options: StartOptions,
    /// The plain (non-git) project folder it will work in, one run at a time.
    exclusive: Option<PathBuf>,
}

impl Queued {
    /// Urgent first, then the oldest card, then the first queued.
    fn order(&self) -> (Reverse<Priority>, i64, u64) {
        (Reverse(self.priority), self.created_at, self.seq)
    }
}

impl Runner {
    pub fn new(parts: RunnerParts) -> Self {
        Self {
            parts,
            state: Mutex::default(),
            runs: TaskRuns::default(),
            quitting: AtomicBool::new(false),
            tidying: Mutex::new(()),
        }
    }

    /// Claims card `card_id` for a run of its assignee, and starts it (or queues it while
    /// `maxConcurrent` runs are going). Refused, changing nothing, when the card has no
    /// assignee, its agent's runtime is missing, or the claim is refused (held by a run,
    /// closed, waiting on other cards).
    pub fn start(self: &Arc<Self>, card_id: &str, options: StartOptions) -> Result<TaskStart> {
        if self.quitting.load(Ordering::SeqCst) {
            return Err(Error::RunNotActive("Clawboo is quitting; no new run starts.".into()));
        }
        let card = self.with_folder(self.parts.board.get(card_id)?);
        let assignee = card.assignee_id.as_deref().ok_or_else(|| {
            Error::InvalidInput(format!("#{} has no assignee: assign it to an agent before running it.", card.number))
        })?;
        let agent = self.parts.agents.get(assignee)?;
        if self.parts.runtimes.get(agent.runtime).is_none() {
            return Err(Error::RuntimeNotFound(format!("No adapter for {} in this build.", agent.runtime.as_str())));
        }
        if agent.runtime != crate::agents::RuntimeKind::Native {
            self.parts.catalog.locate(agent.runtime)?;
        }
        begin::check_project_folder(&card)?;
        let exclusive = match card.project_folder.as_deref().map(|f| worktree::detect(f.as_ref())).transpose()? {
            Some(worktree::Folder::Plain(folder)) => Some(folder),
            _ => None,
        };
        let claim = uuid::Uuid::new_v4().to_string();
        let card = self.parts.board.claim(&card.id, &claim)?;
        let queued = {
            let mut state = lock(&self.state);
            let seq = state.next_seq;
            state.next_seq += 1;
            state.queue.push(Queued {
                card_id: card.id.clone(),
                agent_id: agent.id.clone(),
                claim: claim.clone(),
                priority: card.priority,
                created_at: card.created_at,
                seq,
                options,
                exclusive,
            });
            drop(state);
            self.pump();
            lock(&self.state).queue.iter().any(|q| q.claim == claim)
        };
        Ok(TaskStart { card, run_id: claim, queued })
    }

    /// Stops the card's task: a waiting one leaves the queue, a running one is stopped (its
    /// card goes back to To do when the run has ended, with the stop in its activity).
    pub fn cancel(&self, card_id: &str) -> Result<()> {
        let mut state = lock(&self.state);
        if self.runs.stop_card(card_id) {
            return Ok(());
        }
        let Some(at) = state.queue.iter().position(|q| q.card_id == card_id) else {
            let number = self.parts.board.get(card_id).map(|c| format!("#{}", c.number));
            return Err(Error::RunNotActive(format!(
                "{} has no run going or waiting.",
                number.unwrap_or_else(|_| "This card".into())
            )));
        };
        let queued = state.queue.remove(at);
        drop(state);
        self.parts.board.release(
            &queued.card_id,
            &queued.claim,
            CardStatus::Todo,
            Some(STOPPED_BEFORE_START.into()),
        )?;
        Ok(())
    }

    /// Card ids whose task is running now, and those waiting, in the order they will start.
    pub fn active(&self) -> (Vec<String>, Vec<String>) {
        let state = lock(&self.state);
        let mut queue = state.queue.clone();
        queue.sort_by_key(Queued::order);
        let mut running: Vec<String> = self.runs.cards().into_iter().map(|(card_id, _)| card_id).collect();
        running.sort();
        running.dedup();
        (running, queue.into_iter().map(|q| q.card_id).collect())
    }

    /// Stops the tasks of agent `agent_id` (queued ones go back to To do) and waits up to `limit`
    /// for their runs to end: the agent is about to be deleted. Err when one did not end in time.
    pub fn stop_agent(&self, agent_id: &str, limit: Duration) -> Result<()> {
        let (waits, queued) = {
            let mut state = lock(&self.state);
            let waits = self.runs.stop(Some(agent_id));
            let (theirs, others) = std::mem::take(&mut state.queue).into_iter().partition(|q| q.agent_id == agent_id);
            state.queue = others;
            (waits, theirs)
        };
        for q in queued {
            self.parts.board.release(&q.card_id, &q.claim, CardStatus::Todo, Some(STOPPED_BEFORE_START.into()))?;
        }
        if !self.wait_done(waits, limit) {
            return Err(Error::RuntimeFailed(format!(
                "A task run of the agent did not stop within {} s, so the agent was not deleted. Try again.",
                limit.as_secs()
            )));
        }
        Ok(())
    }

    /// Stops a task whose card the user took back while it ran (moved to To do, Backlog or
    /// Cancelled; the move ended the claim): nothing keeps working on a card nobody wants
    /// worked on. A card the agent itself moved on (In review, Done, Blocked) lets its run finish
    /// its reply. A card closed (Done, Cancelled) with no run going loses its worktree. Watches the
    /// Board's changes from the engine's start.
    pub fn watch_board(self: &Arc<Self>) {
        let runner = Arc::downgrade(self);
        let mut events = self.parts.events.subscribe();
        self.parts.handle.spawn(async move {
            loop {
                let changed = match events.recv().await {
                    Ok(EngineEvent::BoardChanged { card_id }) => card_id,
                    Ok(_) => continue,
                    // Missed some: look at every card being worked on.
                    Err(broadcast::error::RecvError::Lagged(_)) => None,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                let Some(runner) = runner.upgrade() else { return };
                if let Some(card_id) = changed.clone() {
                    // Not awaited: removing a worktree never delays stopping a run taken back.
                    let tidy = Arc::clone(&runner);
                    drop(tokio::task::spawn_blocking(move || tidy.tidy_worktree(&card_id)));
                }
                let watched: Vec<_> = runner
                    .runs
                    .cards()
                    .into_iter()
                    .filter(|(card_id, _)| changed.as_ref().is_none_or(|c| c == card_id))
                    .collect();
                if watched.is_empty() {
                    continue;
                }
                let board = runner.parts.board.clone();
                let taken_back = tokio::task::spawn_blocking(move || {
                    watched
                        .into_iter()
                        .filter(|(card_id, claim)| {
                            board.get(card_id).is_ok_and(|card| {
                                card.claimed_by_run.as_deref() != Some(claim.as_str())
                                    && matches!(
                                        card.status,
                                        CardStatus::Todo | CardStatus::Backlog | CardStatus::Cancelled
                                    )
                            })
                        })
                        .collect::<Vec<_>>()
                })
                .await
                .unwrap_or_default();
                for (card_id, claim) in taken_back {
                    runner.runs.stop_claim(&claim, &card_id);
                }
            }
        });
    }

    /// Exactly what the task run `run_id` was given.
    pub fn run_context(&self, run_id: &str) -> Result<TaskRunContext> {
        self.parts
            .store
            .read(|c| store::context(c, run_id))?
            .ok_or_else(|| Error::NotFound(format!("The context of task run {run_id}")))
    }

    /// The newest task runs, for Settings > Observability (at most [`MAX_TRACES`]).
    pub fn traces(&self, limit: u32) -> Result<Vec<TaskTrace>> {
        self.parts.store.read(|c| traces::traces(c, limit))
    }

    pub fn settings(&self) -> Result<RunnerSettings> {
        self.parts.store.read(store::settings)
    }

    /// Stores new settings (checked); a higher limit starts waiting tasks at once.
    pub fn set_settings(self: &Arc<Self>, settings: RunnerSettings) -> Result<RunnerSettings> {
        if !(1..=MAX_CONCURRENT_LIMIT).contains(&settings.max_concurrent) {
            return Err(Error::InvalidInput(format!(
                "Runs at once is a number from 1 to {MAX_CONCURRENT_LIMIT}, not {}.",
                settings.max_concurrent
            )));
        }
        if settings.wall_clock_secs < 1 || settings.silence_secs < 1 {
            return Err(Error::InvalidInput("Time limits are at least one second.".into()));
        }
        self.parts.store.write(|tx| store::put_settings(tx, &settings))?;
        self.pump();
        Ok(settings)
    }

    /// At start: tasks a previous process left claimed are over. A run that was going is marked
    /// cut off (the run itself was marked by the chat service, which marks every run left
    /// running), and its card goes back to To do; the next run of the card is warned. Cards a
    /// team hand-off holds are the chat service's. Returns how many cards were released.
    pub fn recover_cut_off(&self) -> Result<usize> {
        let board = &self.parts.board;
        let mut released = 0;
        for (card_id, claim) in board.claimed_cards()? {
            let runs = board.runs(&card_id)?;
            if runs.iter().any(|r| r.run_id == claim && r.kind == crate::board::CardRunKind::Handoff) {
                continue;
            }
            let going: Vec<_> =
                runs.iter().filter(|r| r.status == crate::board::CardRunStatus::Running).cloned().collect();
            let reason = if going.is_empty() { QUEUED_AT_QUIT } else { task::CUT_OFF };
            for run in going {
                board.finish_run(&run.run_id, crate::board::CardRunStatus::Interrupted, Some(task::CUT_OFF.into()))?;
            }
            match board.release(&card_id, &claim, CardStatus::Todo, Some(reason.into())) {
                Ok(_) => released += 1,
                Err(e) => tracing::warn!(%card_id, error = %e, "could not release a card after a restart"),
            }
        }
        Ok(released)
    }

    /// Stops every task (marked cut off, their cards back in To do) and waits up to `limit`
    /// for their runs to end. Waiting tasks go back to To do. Called when the app quits.
    pub fn shutdown(&self, limit: Duration) {
        self.quitting.store(true, Ordering::SeqCst);
        let (waits, queued) = {
            let mut state = lock(&self.state);
            (self.runs.stop(None), std::mem::take(&mut state.queue))
        };
        for q in queued {
            let _ = self.parts.board.release(&q.card_id, &q.claim, CardStatus::Todo, Some(QUEUED_AT_QUIT.into()));
        }
        self.wait_done(waits, limit);
    }

    /// Blocks this (non-async) thread until the runs behind `waits` have ended, or `limit`;
    /// whether they all ended.
    fn wait_done(&self, waits: Vec<watch::Receiver<bool>>, limit: Duration) -> bool {
        crate::run::wait_done(&self.parts.handle, waits, limit)
    }

    /// Starts waiting tasks while slots are free, best first; a task whose plain project folder
    /// another run works in waits for it.
    fn pump(self: &Arc<Self>) {
        if self.quitting.load(Ordering::SeqCst) {
            return;
        }
        let limit = self.settings().map_or(DEFAULT_MAX_CONCURRENT, |s| s.max_concurrent) as usize;
        let mut state = lock(&self.state);
        while self.runs.len() < limit {
            let busy = |q: &Queued| q.exclusive.as_ref().is_some_and(|f| self.runs.works_in(f));
            let Some(best) =
                (0..state.queue.len()).filter(|&i| !busy(&state.queue[i])).min_by_key(|&i| state.queue[i].order())
            else {
                break;
            };
            let next = state.queue.remove(best);
            let slot = self.runs.start(&next.claim, &next.agent_id, &next.card_id, next.exclusive.clone());
            let job = task::Job {
                card_id: next.card_id.clone(),
                claim: next.claim.clone(),
                options: next.options,
                cancel: slot.cancel.clone(),
            };
            let runner = Arc::clone(self);
            self.parts.handle.spawn(async move {
                let card_id = job.card_id.clone();
                runner.execute(job).await;
                runner.runs.end(slot);
                let pump = Arc::clone(&runner);
                let _ = tokio::task::spawn_blocking(move || {
                    // A card closed while its run went on: its worktree goes now.
                    pump.tidy_worktree(&card_id);
                    pump.pump();
                })
                .await;
            });
        }
    }

    fn is_quitting(&self) -> bool {
        self.quitting.load(Ordering::SeqCst)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queued(priority: Priority, created_at: i64, seq: u64) -> Queued {
        Queued {
            card_id: format!("{priority:?}-{created_at}-{seq}"),
            agent_id: String::new(),
            claim: String::new(),
            priority,
            created_at,
            seq,
            options: StartOptions::default(),
            exclusive: None,
        }
    }

    #[test]
    fn the_queue_takes_urgent_first_then_the_oldest_card() {
        let mut queue = [
            queued(Priority::Low, 1, 0),
            queued(Priority::Urgent, 9, 1),
            queued(Priority::High, 5, 2),
            queued(Priority::Urgent, 3, 3),
            queued(Priority::High, 5, 4),
        ];
        queue.sort_by_key(Queued::order);
        let order: Vec<u64> = queue.iter().map(|q| q.seq).collect();
        assert_eq!(order, [3, 1, 2, 4, 0]);
    }
}
