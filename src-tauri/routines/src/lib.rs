//! `clawboo-routines`: routines — work on a schedule, their runs, proposals and the scheduler.
//! It may use `clawboo-vocab`, `clawboo-store` and the domain crates below it (agents, board,
//! teams, attention); the work itself (a card's run, a team's message) is started through the
//! [`RoutineWork`] trait the engine implements. The engine re-exports it as
//! `clawboo_engine::routines`.
//!
//! Work on a schedule. A routine belongs to an agent (each run a Board card for it,
//! run by the task runner) or to a team (each run a message to its leader in General). Every
//! run is a fresh conversation carrying the routine note (context section 6: the user may be
//! away; make assumptions and state them).
//!
//! One deterministic [`Routines::tick`] makes every decision, at a time it is given (a
//! [`Clock`] seam: the real clock in the app, a manual one in tests):
//! - runs going are checked first: a card that went to In review or Done, a leader that
//!   replied, succeeded; a card Blocked, a run that failed, failed (retried after 1, then
//!   5 minutes; [`MAX_CONSECUTIVE_FAILURES`] in a row pause the routine, and an attention
//!   request tells the user why);
//! - a slot that is due fires, unless the routine's previous run is still going: then the slot
//!   is recorded as skipped (overlap), never queued;
//! - slots missed while the app was closed (or the machine asleep) are not replayed one by one:
//!   one catch-up run, its history saying how many were missed.
//!
//! The scheduler loop on the engine's runtime calls `tick` when the earliest slot comes, when
//! routines or the runs they watch change, and at least every [`COARSE_CHECK`] (a suspended
//! machine's clock jump is caught).

pub mod propose;
pub mod schedule;
mod scheduler;
pub mod store;
pub mod types;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tokio::sync::Notify;

pub use clawboo_vocab::clock::{Clock, ManualClock, SystemClock};
pub use schedule::Schedule;
pub use types::*;

use clawboo_agents::Agents;
use clawboo_attention::Attention;
use clawboo_board::Board;
use clawboo_store::events::{EngineEvent, EventBus};
use clawboo_store::store::Store;
use clawboo_teams::Teams;
use clawboo_vocab::error::{Error, Result};
use clawboo_vocab::RunStatus;

/// The scheduler looks at least this often, whatever the next slot.
pub const COARSE_CHECK: Duration = Duration::from_secs(60);
/// A team routine's message that has not started a run after this long, and waits in no
/// queue, was dropped (the team stopped): its run failed.
const UNSTARTED_AFTER_MS: i64 = 60_000;

pub use clawboo_vocab::routine::RoutineTag;

/// What the routines are built on (the engine's services).
pub struct RoutinesParts {
    pub store: Arc<Store>,
    pub events: EventBus,
    pub agents: Arc<Agents>,
    pub teams: Arc<Teams>,
    pub board: Arc<Board>,
    pub attention: Arc<Attention>,
    /// How a routine's work is run: the task runner and team chat, above this module.
    pub work: Arc<dyn RoutineWork>,
}

/// What the scheduler needs from the parts that run work (the task runner for an agent's
/// routine, team chat for a team's), given by the engine: routines sit below both.
pub trait RoutineWork: Send + Sync {
    /// Starts the task run of a routine's card; its run id.
    fn start_card(&self, card_id: &str) -> Result<String>;
    /// Sends a team routine's prompt to the team's room as the user's message.
    fn send_to_team(&self, room_id: &str, prompt: &str, tag: RoutineTag) -> Result<()>;
    /// A run's status and error, if the run is known.
    fn run_status(&self, run_id: &str) -> Option<(RunStatus, Option<String>)>;
    /// Whether a team routine's message (its routine run) still waits in a queue.
    fn team_message_waiting(&self, routine_run_id: &str) -> bool;
}

pub struct Routines {
    parts: RoutinesParts,
    clock: RwLock<Arc<dyn Clock>>,
    /// Wakes the scheduler loop (a routine changed).
    wake: Arc<Notify>,
    /// One tick at a time.
    ticking: Mutex<()>,
    /// Whether a team routine's message may still have a run going: only then can a room run's
    /// end make a tick worth it (a team message that is no routine's wakes nothing).
    team_runs_going: Arc<AtomicBool>,
    /// Ticks so far, for tests: what wakes the scheduler.
    ticks: Arc<AtomicU64>,
}

impl Routines {
    pub fn new(parts: RoutinesParts) -> Self {
        Self {
            parts,
            clock: RwLock::new(Arc::new(SystemClock)),
            wake: Arc::new(Notify::new()),
            ticking: Mutex::new(()),
            // Until the first tick has looked.
            team_runs_going: Arc::new(AtomicBool::new(true)),
            ticks: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Uses `clock` from now on (tests: a [`ManualClock`]).
    /// Returns once no tick on the old clock is under way: none decides with its time after this.
    pub fn use_clock(&self, clock: Arc<dyn Clock>) {
        *self.clock.write().unwrap_or_else(|p| p.into_inner()) = clock;
        drop(self.ticking.lock().unwrap_or_else(|p| p.into_inner()));
    }

    pub fn now(&self) -> i64 {
        self.clock.read().unwrap_or_else(|p| p.into_inner()).now()
    }

    /// How many ticks the scheduler has made (tests: which events wake it).
    pub fn ticks(&self) -> u64 {
        self.ticks.load(Ordering::Relaxed)
    }

    // --- The user's actions --------------------------------------------------------------

    pub fn list(&self) -> Result<Vec<Routine>> {
        self.parts.store.read(store::list)
    }

    pub fn get(&self, id: &str) -> Result<Routine> {
        self.parts.store.read(|c| store::get(c, id))
    }

    /// A routine with its newest `limit` runs (1..=200), newest first.
    pub fn detail(&self, id: &str, limit: u32) -> Result<RoutineDetail> {
        self.parts
            .store
            .read(|c| Ok(RoutineDetail { routine: store::get(c, id)?, runs: store::runs(c, id, limit.clamp(1, 200))? }))
    }

    /// A new routine, checked (its schedule included: an error before anything is saved).
    pub fn create(&self, input: RoutineInput) -> Result<Routine> {
        self.create_as(input, CreatedBy::User, None, None)
    }

    pub(crate) fn create_as(
        &self,
        input: RoutineInput,
        created_by: CreatedBy,
        creator_agent_id: Option<&str>,
        approval_id: Option<&str>,
    ) -> Result<Routine> {
        let now = self.now();
        let input = self.checked(input, now)?;
        let next = schedule::next_after(&input.schedule, now)?;
        let id = format!("rt-{}", &uuid::Uuid::new_v4().simple().to_string()[..10]);
        self.parts.store.write(|tx| {
            store::insert(
                tx,
                &store::NewRoutine {
                    id: &id,
                    input: &input,
                    created_by,
                    creator_agent_id,
                    approval_id,
                    next_fire_at: next,
                    now,
                },
            )
        })?;
        self.changed();
        self.get(&id)
    }

    /// Edits a routine: its next slot is computed again from now (a paused one stays paused).
    pub fn update(&self, id: &str, input: RoutineInput) -> Result<Routine> {
        let now = self.now();
        let input = self.checked(input, now)?;
        let next = schedule::next_after(&input.schedule, now)?;
        self.parts.store.write(|tx| store::update(tx, id, &input, next, now))?;
        self.changed();
        self.get(id)
    }

    pub fn delete(&self, id: &str) -> Result<()> {
        if !self.parts.store.write(|tx| store::delete(tx, id))? {
            return Err(Error::NotFound(format!("Routine {id}")));
        }
        self.changed();
        Ok(())
    }

    /// Pauses a routine: it runs no more until resumed (a run going finishes).
    pub fn pause(&self, id: &str) -> Result<Routine> {
        let now = self.now();
        self.get(id)?;
        self.parts.store.write(|tx| store::pause(tx, id, None, now))?;
        self.changed();
        self.get(id)
    }

    /// Resumes a routine from now: its next slot after now, no flood of the slots that passed
    /// while it was paused. A one-time routine whose time passed cannot resume (edit it).
    pub fn resume(&self, id: &str) -> Result<Routine> {
        let routine = self.get(id)?;
        let now = self.now();
        let next = schedule::next_after(&routine.schedule, now)?;
        if next.is_none() {
            return Err(Error::InvalidSchedule(
                "Its one-time run has passed, so it has nothing left to run: edit its time first.".into(),
            ));
        }
        self.parts.store.write(|tx| store::resume(tx, id, next, now))?;
        self.changed();
        self.get(id)
    }

    /// Runs a routine now, whatever its schedule (which stays as it is). Refused while its
    /// previous run is going.
    pub fn run_now(&self, id: &str) -> Result<RoutineRun> {
        let _tick = self.ticking.lock().unwrap_or_else(|p| p.into_inner());
        let routine = self.get(id)?;
        if self.parts.store.read(|c| store::has_running(c, id))? {
            return Err(Error::Conflict(format!("\"{}\" is still running; wait for its run to end.", routine.name)));
        }
        let now = self.now();
        let run_id = self.fire(&routine, RunTrigger::Manual, now, 0, now)?;
        self.changed();
        let runs = self.parts.store.read(|c| store::runs(c, id, 50))?;
        runs.into_iter().find(|r| r.id == run_id).ok_or_else(|| Error::Internal("the run just started is gone".into()))
    }

    /// The next fire times of a schedule being edited, or why it is invalid.
    pub fn preview(&self, schedule: &Schedule) -> Result<SchedulePreview> {
        let now = self.now();
        let schedule = schedule::normalized(schedule);
        schedule::validate(&schedule, now)?;
        Ok(SchedulePreview {
            text: schedule::describe(&schedule),
            next: schedule::next_n(&schedule, now, schedule::PREVIEW_COUNT)?,
        })
    }

    pub fn presets(&self) -> SchedulePresets {
        SchedulePresets { presets: schedule::presets(), default_time_zone: schedule::default_time_zone() }
    }

    /// Whether routines will do work on their own (one active with a slot or a retry to come,
    /// or a run going): closing the window then keeps Clawboo in the tray.
    pub fn has_work(&self) -> bool {
        self.parts.store.read(store::any_active).unwrap_or(false)
    }

    fn checked(&self, input: RoutineInput, now: i64) -> Result<RoutineInput> {
        let name = input.name.split_whitespace().collect::<Vec<_>>().join(" ");
        if name.is_empty() {
            return Err(Error::InvalidInput("A routine needs a name.".into()));
        }
        if name.chars().count() > MAX_NAME_CHARS {
            return Err(Error::InvalidInput(format!("A routine's name has at most {MAX_NAME_CHARS} characters.")));
        }
        let prompt = input.prompt.trim().to_owned();
        if prompt.is_empty() {
            return Err(Error::InvalidInput("A routine needs something to do (its prompt).".into()));
        }
        if prompt.chars().count() > MAX_PROMPT_CHARS {
            return Err(Error::InvalidInput(format!("A routine's prompt has at most {MAX_PROMPT_CHARS} characters.")));
        }
        let empty = |s: &Option<String>| s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
        let (agent_id, team_id) = (empty(&input.agent_id), empty(&input.team_id));
        let reports_to_team_id = empty(&input.reports_to_team_id);
        match (&agent_id, &team_id) {
            (Some(agent), None) => {
                let agent = self.parts.agents.get(agent)?;
                if let Some(team) = &reports_to_team_id {
                    let team = self.parts.teams.get(team)?;
                    if !team.is_member(&agent.id) {
                        return Err(Error::InvalidInput(format!(
                            "{} is not a member of {}, so its routine cannot report there.",
                            agent.name, team.name
                        )));
                    }
                    if team.archived {
                        return Err(Error::InvalidInput(format!("{} is archived.", team.name)));
                    }
                }
            }
            (None, Some(team)) => {
                let team = self.parts.teams.get(team)?;
                if reports_to_team_id.is_some() {
                    return Err(Error::InvalidInput(
                        "A team routine already reports to its team; only an agent's routine can be set to.".into(),
                    ));
                }
                if input.heartbeat {
                    return Err(Error::InvalidInput("A heartbeat routine belongs to an agent, not a team.".into()));
                }
                if team.archived {
                    return Err(Error::InvalidInput(format!("{} is archived.", team.name)));
                }
            }
            _ => return Err(Error::InvalidInput("A routine belongs to one agent or one team.".into())),
        }
        let schedule = schedule::normalized(&input.schedule);
        schedule::validate(&schedule, now)?;
        Ok(RoutineInput { name, agent_id, team_id, prompt, schedule, heartbeat: input.heartbeat, reports_to_team_id })
    }

    fn changed(&self) {
        self.parts.events.publish(EngineEvent::RoutinesChanged);
        self.wake.notify_one();
    }
}
