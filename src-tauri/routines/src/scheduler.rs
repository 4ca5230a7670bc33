//! The scheduler: [`Routines::tick`] makes every decision at the time it is given; the loop
//! on the engine's runtime calls it when something may be due.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast;

use super::schedule;
use super::store;
use super::types::*;
use super::{propose, RoutineTag, Routines, COARSE_CHECK, UNSTARTED_AFTER_MS};

/// The loop waits at least this long between ticks (ms).
const MIN_WAIT_MS: i64 = 200;
use clawboo_attention::{RequestKind, Source};
use clawboo_board::{CardOrigin, CardRunStatus, CardStatus, NewCard};
use clawboo_store::events::{EngineEvent, EventReceiver};
use clawboo_teams::Teams;
use clawboo_vocab::error::{Error, Result};
use clawboo_vocab::RunStatus;

impl Routines {
    /// Every decision, at `now`: runs going checked, due slots fired (or skipped for overlap,
    /// or run once for missed ones), retries made. Returns how many runs were recorded.
    pub fn tick(&self, now: i64) -> Result<usize> {
        let _tick = self.ticking.lock().unwrap_or_else(|p| p.into_inner());
        self.tick_locked(now)
    }

    /// A tick at the clock's time, read once the tick may run: a time read earlier could come
    /// from a clock replaced meanwhile (see `use_clock`).
    fn tick_on_clock(&self) -> Result<usize> {
        let _tick = self.ticking.lock().unwrap_or_else(|p| p.into_inner());
        self.tick_locked(self.now())
    }

    fn tick_locked(&self, now: i64) -> Result<usize> {
        self.ticks.fetch_add(1, Ordering::Relaxed);
        let mut recorded = self.check_running(now)?;
        for routine in self.parts.store.read(|c| store::due(c, now))? {
            recorded += self.due(&routine, now)?;
        }
        if recorded > 0 {
            self.parts.events.publish(EngineEvent::RoutinesChanged);
        }
        Ok(recorded)
    }

    fn due(&self, routine: &Routine, now: i64) -> Result<usize> {
        let busy = self.parts.store.read(|c| store::has_running(c, &routine.id))?;
        match routine.next_fire_at.filter(|at| *at <= now) {
            Some(slot) => {
                let (count, next) = schedule::due_through(&routine.schedule, slot, now, MAX_COUNTED_MISSES)?;
                let late = count > 1 || now - slot > LATE_AFTER_MS;
                // The slot replaces a retry still waiting: one run either way.
                self.parts.store.write(|tx| store::set_slots(tx, &routine.id, next, None, now))?;
                if busy {
                    let note = if late {
                        format!("{} while the previous run was still going.", missed_words(count))
                    } else {
                        "Skipped: the previous run was still going.".to_owned()
                    };
                    self.record_skip(routine, slot, now, &note)?;
                    return Ok(1);
                }
                let (trigger, missed) = if late { (RunTrigger::CatchUp, count) } else { (RunTrigger::Schedule, 0) };
                self.fire(routine, trigger, slot, missed, now)?;
                Ok(1)
            }
            None => {
                // A retry is due.
                self.parts.store.write(|tx| store::set_slots(tx, &routine.id, routine.next_fire_at, None, now))?;
                if busy {
                    return Ok(0); // a run going (run now) stands for the retry
                }
                let at = routine.retry_at.unwrap_or(now);
                self.fire(routine, RunTrigger::Retry, at, 0, now)?;
                Ok(1)
            }
        }
    }

    fn record_skip(&self, routine: &Routine, slot: i64, now: i64, note: &str) -> Result<()> {
        let id = new_run_id();
        self.parts.store.write(|tx| {
            store::insert_run(
                tx,
                &store::NewRun {
                    id: &id,
                    routine_id: &routine.id,
                    scheduled_for: slot,
                    started_at: now,
                    outcome: RoutineOutcome::SkippedOverlap,
                    trigger: RunTrigger::Schedule,
                    missed: 0,
                    note: Some(note),
                },
            )
        })
    }

    /// Starts a run of `routine`: a card run for an agent, a message to the leader for a team.
    /// A run that cannot start is recorded as failed (and counted as a failure).
    pub(super) fn fire(
        &self,
        routine: &Routine,
        trigger: RunTrigger,
        slot: i64,
        missed: u32,
        now: i64,
    ) -> Result<String> {
        let id = new_run_id();
        let note = (trigger == RunTrigger::CatchUp).then(|| format!("{}; ran once to catch up.", missed_words(missed)));
        self.parts.store.write(|tx| {
            store::insert_run(
                tx,
                &store::NewRun {
                    id: &id,
                    routine_id: &routine.id,
                    scheduled_for: slot,
                    started_at: now,
                    outcome: RoutineOutcome::Running,
                    trigger,
                    missed,
                    note: note.as_deref(),
                },
            )
        })?;
        let started = match (&routine.agent_id, &routine.team_id) {
            (Some(agent_id), _) => self.fire_card(routine, agent_id, &id, trigger),
            (None, Some(team_id)) => self.fire_team(routine, team_id, &id),
            (None, None) => Err(Error::Internal("a routine without an owner".into())),
        };
        if let Err(e) = started {
            let why = format!("It could not start: {e}");
            self.ended(routine, &id, RoutineOutcome::Failed, Some(&why), now)?;
        }
        Ok(id)
    }

    fn fire_card(&self, routine: &Routine, agent_id: &str, run_id: &str, trigger: RunTrigger) -> Result<()> {
        let board = &self.parts.board;
        // A retry runs the failed run's card again (its earlier attempt is on it); anything
        // else is a new card.
        let reuse = if trigger == RunTrigger::Retry {
            self.parts.store.read(|c| store::last_card(c, &routine.id))?.and_then(|id| board.get(&id).ok())
        } else {
            None
        };
        let card = match reuse {
            Some(card) => {
                if matches!(card.status, CardStatus::Blocked | CardStatus::InReview | CardStatus::Done) {
                    board.move_card(clawboo_board::Actor::Clawboo, &card.id, CardStatus::Todo, None, None)?;
                }
                card
            }
            None => board.create_for_routine(
                NewCard {
                    title: routine.name.clone(),
                    description: routine.prompt.clone(),
                    assignee_id: Some(agent_id.to_owned()),
                    team_id: self.reporting_team(routine, agent_id),
                    status: Some(CardStatus::Todo),
                    priority: None,
                    depends_on: Vec::new(),
                    check_command: None,
                    project_folder: None,
                },
                CardOrigin::Routine { routine_id: routine.id.clone(), routine_run_id: run_id.to_owned() },
            )?,
        };
        self.parts.store.write(|tx| store::set_run_card(tx, run_id, &card.id, None))?;
        let started = self.parts.work.start_card(&card.id)?;
        self.parts.store.write(|tx| store::set_run_card(tx, run_id, &card.id, Some(&started)))
    }

    /// The team an agent routine's new card belongs to: the one it reports to, while the agent
    /// is still a member and the team is not archived (else the card is the agent's alone, as
    /// if it reported nowhere). A team card's result goes to the team's leader, and its runs
    /// work in the team's project folder when the card names none.
    fn reporting_team(&self, routine: &Routine, agent_id: &str) -> Option<String> {
        let team = self.parts.teams.get(routine.reports_to_team_id.as_deref()?).ok()?;
        (team.is_member(agent_id) && !team.archived).then_some(team.id)
    }

    fn fire_team(&self, routine: &Routine, team_id: &str, run_id: &str) -> Result<()> {
        let tag =
            RoutineTag { name: routine.name.clone(), routine_run_id: run_id.to_owned(), agent_id: None, card_id: None };
        let room_id = general_room(&self.parts.teams, team_id)?;
        // Before its message is sent: the end of the run it starts wakes the scheduler.
        self.team_runs_going.store(true, Ordering::Relaxed);
        self.parts.store.write(|tx| store::set_run_room(tx, run_id, team_id, &room_id))?;
        self.parts.work.send_to_team(&room_id, &routine.prompt, tag)
    }

    /// Runs going: how did each end, if it has?
    fn check_running(&self, now: i64) -> Result<usize> {
        let going = self.parts.store.read(store::running)?;
        let mut ended = 0;
        let mut team_runs_going = false;
        for going in going {
            let Some((outcome, note)) = self.outcome_of(&going, now) else {
                team_runs_going |= going.run.team_id.is_some();
                continue;
            };
            let routine = match self.get(&going.run.routine_id) {
                Ok(routine) => routine,
                Err(Error::NotFound(_)) => continue,
                Err(e) => return Err(e),
            };
            self.ended(&routine, &going.run.id, outcome, note.as_deref(), now)?;
            ended += 1;
        }
        // Under the tick's lock, as every `fire_team` is: none is set between the read and this.
        self.team_runs_going.store(team_runs_going, Ordering::Relaxed);
        Ok(ended)
    }

    fn outcome_of(&self, going: &store::Going, now: i64) -> Option<(RoutineOutcome, Option<String>)> {
        let run = &going.run;
        if let Some(card_id) = &run.card_id {
            let card = match self.parts.board.get(card_id) {
                Ok(card) => card,
                Err(_) => return Some((RoutineOutcome::Failed, Some("Its card was deleted.".into()))),
            };
            if card.claimed_by_run.is_some() {
                return None;
            }
            let cut_off = self
                .parts
                .board
                .runs(card_id)
                .ok()
                .and_then(|runs| runs.last().map(|r| r.status == CardRunStatus::Interrupted))
                .unwrap_or(false);
            return match card.status {
                CardStatus::InReview | CardStatus::Done => Some((RoutineOutcome::Succeeded, None)),
                CardStatus::Blocked => {
                    let reason = card.blocked_reason.clone().unwrap_or_else(|| "Blocked.".into());
                    let asked = self.parts.attention.open().ok().is_some_and(|open| {
                        open.iter().any(|r| r.kind == RequestKind::Question && r.card_id.as_deref() == Some(card_id))
                    });
                    Some((if asked { RoutineOutcome::NeedsYou } else { RoutineOutcome::Failed }, Some(reason)))
                }
                CardStatus::Todo | CardStatus::Backlog if cut_off => {
                    Some((RoutineOutcome::Failed, Some("Cut off: Clawboo stopped while it ran.".into())))
                }
                CardStatus::Todo | CardStatus::Backlog | CardStatus::Cancelled => {
                    Some((RoutineOutcome::Stopped, Some("Stopped: its card was taken back.".into())))
                }
                CardStatus::InProgress => None,
            };
        }
        if let Some(why) = &going.start_error {
            return Some((RoutineOutcome::Failed, Some(format!("It could not start: {why}"))));
        }
        match &run.run_id {
            Some(run_id) => {
                let status = self.parts.work.run_status(run_id)?;
                match status.0 {
                    RunStatus::Running => None,
                    RunStatus::Succeeded => Some((RoutineOutcome::Succeeded, None)),
                    RunStatus::Cancelled => Some((RoutineOutcome::Stopped, Some("Stopped.".into()))),
                    RunStatus::Failed | RunStatus::TimedOut | RunStatus::Interrupted => Some((
                        RoutineOutcome::Failed,
                        Some(status.1.unwrap_or_else(|| status.0.as_str().replace('_', " "))),
                    )),
                }
            }
            // A team message not started yet: waiting its turn, unless it was dropped.
            None if run.team_id.is_some() => {
                let waiting = self.parts.work.team_message_waiting(&run.id);
                (!waiting && now - run.started_at > UNSTARTED_AFTER_MS).then(|| {
                    // Dropped from the queue: the user stopped the team (Stop), not a failure.
                    (RoutineOutcome::Stopped, Some("Its message never started a run: the team was stopped.".into()))
                })
            }
            None => None,
        }
    }

    /// A run ended: recorded, and what follows (the failure count, a retry, a pause).
    fn ended(
        &self,
        routine: &Routine,
        run_id: &str,
        outcome: RoutineOutcome,
        note: Option<&str>,
        now: i64,
    ) -> Result<()> {
        let routine = self.get(&routine.id)?; // fresh: counts may have moved
        let failures = match outcome {
            RoutineOutcome::Failed => routine.consecutive_failures + 1,
            RoutineOutcome::Succeeded | RoutineOutcome::NeedsYou => 0,
            _ => routine.consecutive_failures,
        };
        let pause = failures >= MAX_CONSECUTIVE_FAILURES && routine.state == RoutineState::Active;
        let retry_at =
            (outcome == RoutineOutcome::Failed && !pause && routine.state == RoutineState::Active).then(|| {
                now + RETRY_BACKOFF_MINUTES[(failures as usize - 1).min(RETRY_BACKOFF_MINUTES.len() - 1)] * 60_000
            });
        let reason = pause.then(|| {
            format!("Paused after {failures} failed runs in a row. The last: {}", note.unwrap_or("it failed.").trim())
        });
        self.parts.store.write(|tx| {
            store::finish_run(tx, run_id, outcome, note, now)?;
            store::set_failures(tx, &routine.id, failures, retry_at, now)?;
            if let Some(reason) = &reason {
                store::pause(tx, &routine.id, Some(reason), now)?;
            }
            Ok(())
        })?;
        if let Some(reason) = reason {
            if let Err(e) = self.tell_paused(&routine, &reason) {
                tracing::warn!(routine_id = %routine.id, error = %e, "a routine paused itself, and the inbox could not be told");
            }
        }
        self.parts.events.publish(EngineEvent::RoutinesChanged);
        Ok(())
    }

    /// An attention request: the routine paused itself, and why. Allow resumes it.
    fn tell_paused(&self, routine: &Routine, reason: &str) -> Result<()> {
        let source = match (&routine.agent_id, &routine.team_id) {
            (Some(agent_id), _) => Source { agent_id: agent_id.clone(), ..Source::default() },
            (None, Some(team_id)) => {
                let team = self.parts.teams.get(team_id)?;
                let general = team.rooms.iter().find(|r| r.is_general).or(team.rooms.first());
                let leader = general
                    .and_then(|r| r.leader_id.clone())
                    .or_else(|| team.members.first().map(|m| m.agent_id.clone()))
                    .ok_or_else(|| Error::NotFound(format!("A member of {}", team.name)))?;
                Source {
                    agent_id: leader,
                    team_id: Some(team.id.clone()),
                    room_id: general.map(|r| r.id.clone()),
                    ..Source::default()
                }
            }
            (None, None) => return Ok(()),
        };
        let text = format!(
            "The routine \"{}\" stopped running. {reason} Allow resumes it; Deny leaves it paused.",
            routine.name
        );
        let now = self.now();
        self.parts.attention.raise_routine(&source, RequestKind::RoutinePaused, &text, None, |id| {
            self.parts.store.write(|tx| store::insert_request(tx, id, "paused", Some(&routine.id), None, now))
        })?;
        Ok(())
    }

    /// The user allowed a request about a routine: a proposal becomes a routine (created by its
    /// agent), a routine that paused itself resumes.
    pub fn approved(&self, request: &clawboo_attention::AttentionRequest) -> Result<()> {
        let Some(about) = self.parts.store.read(|c| store::request(c, &request.id))? else {
            return Err(Error::NotFound(format!("The routine of request {}", request.id)));
        };
        match (about.kind.as_str(), about.routine_id, about.proposal) {
            ("paused", Some(routine_id), _) => self.resume(&routine_id).map(|_| ()),
            ("proposal", _, Some(json)) => {
                let proposal: propose::Proposal =
                    serde_json::from_str(&json).map_err(|e| Error::Internal(format!("a stored proposal: {e}")))?;
                self.create_as(proposal.input, CreatedBy::Agent, Some(&proposal.creator_agent_id), Some(&request.id))
                    .map(|_| ())
            }
            _ => Err(Error::Internal(format!("request {} is about no routine", request.id))),
        }
    }

    /// At start: a team routine's message that had not started a run when Clawboo stopped never
    /// will (the queue was in memory).
    pub fn recover(&self) -> Result<usize> {
        let mut count = 0;
        for going in self.parts.store.read(store::running)? {
            if going.run.card_id.is_none() && going.run.run_id.is_none() {
                let why = "Clawboo stopped before its message started a run.";
                self.parts.store.write(|tx| store::team_run_not_started(tx, &going.run.id, why))?;
                count += 1;
            }
        }
        Ok(count)
    }

    /// Starts the scheduler loop on `handle`: a tick at once, then whenever the earliest slot
    /// comes, a routine changes, a run it watches changes, or [`COARSE_CHECK`] passes.
    pub fn start(self: &Arc<Self>, handle: &tokio::runtime::Handle) {
        let routines = Arc::downgrade(self);
        let wake = self.wake.clone();
        let mut events = self.parts.events.subscribe();
        let team_runs_going = self.team_runs_going.clone();
        handle.spawn(async move {
            loop {
                let Some(this) = routines.upgrade() else { return };
                let worker = Arc::clone(&this);
                let wait = match tokio::task::spawn_blocking(move || {
                    if let Err(e) = worker.tick_on_clock() {
                        tracing::error!(error = %e, "the routines' scheduler failed a tick");
                    }
                    worker.parts.store.read(store::earliest_due)
                })
                .await
                {
                    Ok(Ok(Some(at))) => {
                        // Never a busy loop: a slot just past waits a moment, and the tick takes it.
                        let ms = (at - this.now()).clamp(MIN_WAIT_MS, COARSE_CHECK.as_millis() as i64);
                        Duration::from_millis(ms as u64)
                    }
                    _ => COARSE_CHECK,
                };
                drop(this);
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = wake.notified() => {}
                    event = next_relevant(&mut events, &team_runs_going) => if event.is_none() { return },
                }
            }
        });
    }
}
/// Waits for an event that may end a routine's run; `None` when the bus is gone. A room run
/// that starts, or ends while no team routine has a message going, cannot: the team's own
/// messages wake nothing.
async fn next_relevant(events: &mut EventReceiver, team_runs_going: &AtomicBool) -> Option<()> {
    loop {
        match events.recv().await {
            Ok(EngineEvent::BoardChanged { .. }) => return Some(()),
            Ok(EngineEvent::RoomRunChanged { run, .. }) => {
                if run.status != RunStatus::Running && team_runs_going.load(Ordering::Relaxed) {
                    return Some(());
                }
            }
            Ok(_) => continue,
            Err(broadcast::error::RecvError::Lagged(_)) => return Some(()),
            Err(broadcast::error::RecvError::Closed) => return None,
        }
    }
}

fn general_room(teams: &Teams, team_id: &str) -> Result<String> {
    let team = teams.get(team_id)?;
    team.rooms
        .iter()
        .find(|r| r.is_general)
        .or(team.rooms.first())
        .map(|r| r.id.clone())
        .ok_or_else(|| Error::NotFound(format!("The General room of {}", team.name)))
}

fn new_run_id() -> String {
    format!("rr-{}", &uuid::Uuid::new_v4().simple().to_string()[..12])
}

/// "Missed 3 runs" / "Missed 1 run" / "Missed more than 10000 runs".
fn missed_words(count: u32) -> String {
    match count {
        1 => "Missed 1 run".to_owned(),
        n if n >= MAX_COUNTED_MISSES => format!("Missed more than {MAX_COUNTED_MISSES} runs"),
        n => format!("Missed {n} runs"),
    }
}
