//! Routines through the engine, on a real SQLite store, with the scheduler on a manual clock and
//! a scripted runtime playing the agents:
//! - `scheduler`: slots fire, missed slots run once to catch up, overlapping slots are skipped,
//!   failures retry with back-off and then pause the routine (an attention request says why),
//!   daily runs across daylight-saving changes in two zones, bad schedules refused.
//! - `firing`: an agent routine end to end through the real task runner (the card's report, the
//!   routine note in the run's stored context, HEARTBEAT.md on heartbeat runs), a team routine
//!   reaching the leader with the note.
//! - `native`: a Native agent's routine on the fake model server: the model's request carries
//!   the routine note (run under scripts/with-test-keyring on Linux).
//! - `propose`: `routine_create` raises an approval; the routine exists only on Allow.
//! - `spend`: a routine's run counts for it; its spent budget refuses its next run.

#[path = "../common/mod.rs"]
mod common;
mod firing;
mod native;
mod propose;
mod scheduler;
mod spend;

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::board::{Card, CardStatus};
use clawboo_engine::context::ToolName;
use clawboo_engine::routines::{ManualClock, Routine, RoutineInput, RoutineRun, Schedule};
use clawboo_engine::runtimes::{Capabilities, RunChannels, RunEvent, RunOutcome, RunResult, Runtime, TurnInput};
use clawboo_engine::Engine;
use clawboo_testkit::wait_for;

/// How long a test waits for something asynchronous before it fails (never a measurement).
pub const LIMIT: Duration = Duration::from_secs(30);
pub const MINUTE: i64 = 60_000;
pub const HOUR: i64 = 60 * MINUTE;
pub const DAY: i64 = 24 * HOUR;

/// Plays every agent by its message (a routine card's title, or a team routine's prompt):
/// - "fail…"    → fails with "the model refused";
/// - "wait…"    → waits to be stopped;
/// - "propose <json>" → calls `routine_create` with `<json>` (in process, as Native does) and
///   says what it returned; "ask <question>" → calls `ask_user` the same way;
/// - anything else → answers "Done: <message>".
#[derive(Default)]
pub struct Scripted {
    pub inputs: Mutex<Vec<TurnInput>>,
}

impl Scripted {
    pub fn inputs_for(&self, message: &str) -> Vec<TurnInput> {
        self.inputs.lock().unwrap().iter().filter(|i| i.message == message).cloned().collect()
    }
}

impl Runtime for Scripted {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> Capabilities {
        clawboo_engine::runtimes::native::CAPABILITIES
    }

    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> Pin<Box<dyn std::future::Future<Output = clawboo_engine::Result<RunResult>> + Send + '_>> {
        self.inputs.lock().unwrap().push(input.clone());
        Box::pin(async move {
            let say = |text: &str| channels.emit(RunEvent::TextDelta { text: text.to_owned() });
            let message = input.message.as_str();
            if message.starts_with("fail") {
                return Ok(RunResult::failed("the model refused"));
            }
            if message.starts_with("wait") {
                say("Started; waiting.");
                let mut cancel = channels.cancel.clone();
                let _ = cancel.wait_for(|c| *c).await;
                return Ok(RunResult::with_outcome(RunOutcome::Cancelled, "Stopped."));
            }
            let call = match message.strip_prefix("propose ") {
                Some(json) => Some((ToolName::RoutineCreate, serde_json::from_str(json).unwrap())),
                None => message.strip_prefix("ask ").map(|q| (ToolName::AskUser, serde_json::json!({"question": q}))),
            };
            if let Some((tool, args)) = call {
                let out = match &input.tools {
                    Some(grant) => {
                        let out = (grant.invoker)(tool, args).await;
                        format!("{}{}", if out.is_error { "ERROR: " } else { "" }, out.text)
                    }
                    None => "ERROR: no tools".into(),
                };
                say(&out);
                return Ok(RunResult::succeeded());
            }
            say(&format!("Done: {message}"));
            Ok(RunResult::succeeded())
        })
    }
}

/// The shared fixture's engine on the scripted runtime, with the routines' manual clock.
pub struct Fixture {
    pub data: common::Fixture,
    pub engine: Engine,
    pub runtime: Arc<Scripted>,
    pub clock: Arc<ManualClock>,
    pub agent_id: String,
}

/// An engine with one Native agent (`worker`), the routines on a manual clock set to `now`.
pub fn fixture(now: i64) -> Fixture {
    let data = common::Fixture::new();
    let runtime = Arc::new(Scripted::default());
    let engine = data.open_with(vec![runtime.clone()]);
    let clock = Arc::new(ManualClock::new(now));
    engine.routines().use_clock(clock.clone());
    let agent_id = common::add_agent(&engine, agent("worker"));
    Fixture { data, engine, runtime, clock, agent_id }
}

pub fn agent(handle: &str) -> NewAgent {
    NewAgent {
        name: handle.to_uppercase(),
        description: format!("{handle} does the work"),
        model: "some-model".into(),
        ..common::new_agent(handle, RuntimeKind::Native)
    }
}

/// Epoch ms of an RFC 3339 time.
pub fn ms(text: &str) -> i64 {
    text.parse::<jiff::Timestamp>().unwrap().as_millisecond()
}

pub fn cron(expr: &str, tz: &str) -> Schedule {
    Schedule::Cron { expr: expr.into(), tz: tz.into() }
}

impl Fixture {
    /// An agent routine of `worker`.
    pub fn agent_routine(&self, name: &str, schedule: Schedule) -> Routine {
        self.engine
            .routines()
            .create(RoutineInput {
                name: name.into(),
                agent_id: Some(self.agent_id.clone()),
                team_id: None,
                prompt: format!("Please {name}, and say what you assumed."),
                schedule,
                heartbeat: false,
                reports_to_team_id: None,
            })
            .unwrap()
    }

    /// Sets the clock to `now` and ticks.
    pub fn tick_at(&self, now: i64) {
        self.clock.set(now);
        self.engine.routines().tick(now).unwrap();
    }

    pub fn routine(&self, id: &str) -> Routine {
        self.engine.routines().get(id).unwrap()
    }

    /// Newest first.
    pub fn runs(&self, id: &str) -> Vec<RoutineRun> {
        self.engine.routines().detail(id, 100).unwrap().runs
    }

    /// Waits until the card's task is over.
    pub fn settled(&self, card_id: &str) -> Card {
        wait_for("the card to settle", LIMIT, || {
            let card = self.engine.board().get(card_id).unwrap();
            let (running, queued) = self.engine.runner().active();
            let idle = !running.iter().any(|c| c == card_id) && !queued.iter().any(|c| c == card_id);
            (card.status != CardStatus::InProgress && card.claimed_by_run.is_none() && idle).then_some(card)
        })
    }

    /// Waits until none of the routine's runs is going, and returns the newest that ran (ticking at the clock's time so the
    /// scheduler sees how), and returns it.
    pub fn ended(&self, routine_id: &str) -> RoutineRun {
        wait_for("the routine's run to end", LIMIT, || {
            self.engine.routines().tick(self.clock_now()).unwrap();
            use clawboo_engine::routines::RoutineOutcome;
            let runs = self.runs(routine_id);
            if runs.iter().any(|r| r.outcome == RoutineOutcome::Running) {
                return None;
            }
            runs.into_iter().find(|r| r.outcome != RoutineOutcome::SkippedOverlap)
        })
    }

    pub fn clock_now(&self) -> i64 {
        use clawboo_engine::routines::Clock;
        self.clock.now()
    }

    /// A team of `worker` (leading) and `helper`, introduced; (team id, General room id, helper id).
    pub fn team(&self) -> (String, String, String) {
        let helper = common::add_agent(&self.engine, agent("helper"));
        let members = [self.agent_id.clone(), helper.clone()];
        let common::ChatTeam { team, general } =
            common::chat_team(&self.engine, "Shop", &members, "I am Ada, I run a small shop.");
        (team.id, general, helper)
    }
}
