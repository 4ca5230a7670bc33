//! The one drive loop: a runtime run to its end, every event recorded as it comes (stored every
//! 50 ms or in full batches), its permission questions sent to attention, and the run stopped
//! when the user asks or when one of its [`Policies`] calls for it.

use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::{Recorder, RunServices};
use crate::attention::Source;
use crate::guard::{Halt, RunScope, RunWatch};
use crate::runtimes::{PendingPermission, RunChannels, RunEvent, RunOutcome, RunResult, Runtime, TurnInput};

/// How often recorded events are written while a run goes.
const FLUSH_EVERY: Duration = Duration::from_millis(50);

/// When the layer stops a run by itself, and what it makes of the runtime's own stops. `None`
/// turns a rule off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policies {
    /// Stopped after this long without an event — never while a permission question of the run
    /// waits for the user (the question has its own expiry).
    pub silence: Option<Duration>,
    /// Stopped once it has gone on this long.
    pub wall_clock: Option<Duration>,
    /// Stopped when a usage report says its context window is nearly full.
    pub context_window: Option<ContextFull>,
    /// A run that was to resume a session the runtime no longer has is run again in a fresh
    /// one (saying so).
    pub retry_without_lost_session: bool,
    /// What a run that stopped at its runtime's own turn limit means.
    pub turn_limit: TurnLimit,
}

impl Policies {
    /// A chat turn (one-to-one or team): the user watches it and stops it; no timer stops it.
    pub const CHAT: Policies = Policies {
        silence: None,
        wall_clock: None,
        context_window: None,
        retry_without_lost_session: true,
        turn_limit: TurnLimit::Ends,
    };
}

/// "Nearly full": more than `percent` of a `window`-token context window used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextFull {
    pub window: u32,
    pub percent: u64,
}

/// What a run that reached its runtime's own turn limit (Native's model calls) means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnLimit {
    /// It ended as its result says.
    Ends,
    /// It ran out of room: the work goes on in a fresh session (the task runner).
    OutOfRoom,
}

/// Why the layer stopped a run itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    User,
    Silence(Duration),
    WallClock(Duration),
    ContextFull {
        used: u64,
        window: u32,
    },
    /// A budget of its scope was spent by its last model call (see `crate::guard`).
    Budget,
    /// It made the same tool call with the same input this many times: a loop.
    RepeatedToolCall {
        times: u32,
    },
}

impl From<Halt> for Stop {
    fn from(halt: Halt) -> Self {
        match halt {
            Halt::Budget => Stop::Budget,
            Halt::RepeatedToolCall { times } => Stop::RepeatedToolCall { times },
        }
    }
}

/// How a driven run ended.
#[derive(Debug, Clone)]
pub struct Driven {
    pub result: RunResult,
    /// Set when the layer stopped it (the user's Stop, or a policy).
    pub stop: Option<Stop>,
    /// It did not finish, stopped by nobody but its runtime's turn limit, under
    /// [`TurnLimit::OutOfRoom`].
    pub out_of_turns: bool,
}

/// One run to drive: what the runtime is given and the rules it runs under.
pub struct Turn<'a> {
    pub runtime: &'a dyn Runtime,
    pub input: TurnInput,
    /// Becomes true when the user stops the run (or the app quits).
    pub cancel: watch::Receiver<bool>,
    /// Who asks, for the permission questions.
    pub source: &'a Source,
    pub policies: Policies,
}

/// Runs `turn` to its end, recording every event. When the runtime lost the session it was to
/// resume and the policies allow, `forget_session` is called and the turn runs again fresh.
pub async fn drive(
    turn: Turn<'_>,
    services: &RunServices<'_>,
    recorder: &mut Recorder,
    forget_session: impl FnOnce(),
) -> Driven {
    let Turn { runtime, input, cancel, source, policies } = turn;
    let retry = (policies.retry_without_lost_session && input.resume_session.is_some()).then(|| input.clone());
    let driven = drive_once(runtime, input, cancel.clone(), source, &policies, services, recorder).await;
    match retry {
        Some(input) if driven.result.session_missing => {
            recorder.record(RunEvent::Warning {
                message: "The runtime no longer had the earlier session; starting a fresh one.".into(),
            });
            forget_session();
            let fresh = TurnInput { resume_session: None, fork_session: false, ..input };
            drive_once(runtime, fresh, cancel, source, &policies, services, recorder).await
        }
        _ => driven,
    }
}

async fn drive_once(
    runtime: &dyn Runtime,
    input: TurnInput,
    mut user_cancel: watch::Receiver<bool>,
    source: &Source,
    policies: &Policies,
    services: &RunServices<'_>,
    recorder: &mut Recorder,
) -> Driven {
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let (permissions_tx, mut permissions) = mpsc::unbounded_channel();
    // The runtime's own stop signal: the user's, or the layer's for a policy.
    let (stop_tx, stop_rx) = watch::channel(false);
    // Each model call the relay records for this run is told here, for the budgets (kept open
    // all the run: without a relay nothing is sent on it).
    let (recorded_tx, mut recorded) = mpsc::unbounded_channel();
    // The relay's retries of this run's model requests are said in its Activity.
    if let (Some(relay), Some(run_id)) = (services.relay, source.run_id.as_deref()) {
        relay.report_retries_to(run_id, events_tx.clone());
        relay.report_recorded_to(run_id, recorded_tx.clone());
    }
    let channels = RunChannels { events: events_tx, permissions: permissions_tx, cancel: stop_rx };
    let mut stop = None;
    if *user_cancel.borrow_and_update() {
        stop = Some(Stop::User);
        let _ = stop_tx.send(true);
    }
    let running = runtime.run(input, channels);
    tokio::pin!(running);
    let wall_deadline = tokio::time::sleep(policies.wall_clock.unwrap_or(Duration::MAX));
    tokio::pin!(wall_deadline);
    let quiet = tokio::time::sleep(policies.silence.unwrap_or(Duration::MAX));
    tokio::pin!(quiet);
    let mut was_asking = false;
    let mut flush = tokio::time::interval(FLUSH_EVERY);
    // The guards' watch: repeated tool calls, and usage counted against the budgets.
    let mut watch = services.guard.map(|guard| RunWatch::new(guard, run_scope(guard, source)));
    // Why the guards ended the run, said in the run after the event that tripped them.
    let mut halt_note: Option<String> = None;
    let result = loop {
        // Biased, events first: the runtime is polled only once every event it sent is taken,
        // which is what `RunChannels::settle` relies on.
        tokio::select! {
            biased;
            Some(event) = events.recv() => {
                if let Some(silence) = policies.silence {
                    quiet.as_mut().reset(Instant::now() + silence);
                }
                if stop.is_none() {
                    stop = context_full(&event, policies.context_window);
                    if stop.is_some() {
                        let _ = stop_tx.send(true);
                    }
                }
                let halted = record_event(event, recorder, watch.as_mut());
                halt(&mut stop, &stop_tx, recorder, &mut halt_note, halted);
            }
            Some(call) = recorded.recv() => {
                // The relay recorded (and the spend counted) one of its model calls; the run's
                // next call waits until `call` is dropped, so a spent budget refuses it first.
                let halted = watch.as_mut().and_then(RunWatch::model_call_recorded);
                if let (Some((_, note)), Some(relay), Some(run_id)) =
                    (&halted, services.relay, source.run_id.as_deref())
                {
                    relay.refuse_calls(run_id, note.clone());
                }
                halt(&mut stop, &stop_tx, recorder, &mut halt_note, halted);
                drop(call);
            }
            Some(pending) = permissions.recv() => {
                // Asked and answered between two ticks still counts as having waited.
                was_asking = true;
                ask_permission(services, source, pending, recorder);
            }
            result = &mut running => break result,
            changed = user_cancel.changed(), if stop.is_none() => {
                if changed.is_err() || *user_cancel.borrow() {
                    stop = Some(Stop::User);
                    let _ = stop_tx.send(true);
                }
            }
            _ = &mut wall_deadline, if stop.is_none() && policies.wall_clock.is_some() => {
                stop = policies.wall_clock.map(Stop::WallClock);
                let _ = stop_tx.send(true);
            }
            _ = &mut quiet, if stop.is_none() && policies.silence.is_some() => {
                let silence = policies.silence.unwrap_or(Duration::MAX);
                // A run whose permission question waits for the user is not silent: the user
                // may be away (the question has its own expiry; Stop and the wall clock hold).
                // Answered since the last look: its silence counts from now, so a run answered
                // just before this tick still has a whole period to go on.
                let asking = waits_for_user(services, source);
                if asking || was_asking {
                    was_asking = asking;
                    quiet.as_mut().reset(Instant::now() + silence);
                } else {
                    stop = Some(Stop::Silence(silence));
                    let _ = stop_tx.send(true);
                }
            }
            _ = flush.tick() => recorder.flush(),
        }
    };
    record_late_events(&mut events, recorder, watch.as_mut());
    drop(recorded_tx);
    let mut result = result.unwrap_or_else(|e| RunResult::failed(e.to_string()));
    // Stopped by the user or the guards: that is how it ended, even when the runtime met the
    // stop as a failure first (its next model call refused by the relay for the same budget,
    // its process ended by the stop's signal), whichever of the two reached it first.
    if result.outcome == RunOutcome::Failed {
        match stop {
            Some(Stop::User) => {
                let RunResult { outcome, message, .. } = RunResult::stopped_by_user();
                (result.outcome, result.message) = (outcome, message);
            }
            // The guards' stops get their note below.
            Some(Stop::Budget | Stop::RepeatedToolCall { .. }) => result.outcome = RunOutcome::Cancelled,
            _ => {}
        }
    }
    // Ended by the guards, not by the user: its end says so (the runtime says "stopped").
    if let Some(note) = halt_note.filter(|_| result.outcome != RunOutcome::Succeeded) {
        result.message = Some(note);
    }
    let out_of_turns = policies.turn_limit == TurnLimit::OutOfRoom
        && result.turn_limit
        && result.outcome != RunOutcome::Succeeded
        && stop.is_none();
    Driven { result, stop, out_of_turns }
}

/// Records one event of the run and shows it to the guards' watch; what the watch says when it
/// trips. Usage is counted even after a stop: those tokens were spent all the same. A usage
/// report is stored at once, so the spend counts it before the budgets are checked (a relayed
/// run's is counted by the relay instead, told on the `recorded` channel).
fn record_event(event: RunEvent, recorder: &mut Recorder, watch: Option<&mut RunWatch>) -> Option<(Halt, String)> {
    if matches!(event, RunEvent::Usage { .. }) {
        recorder.record(event.clone());
        recorder.flush();
        watch.and_then(|w| w.see(&event))
    } else {
        let halted = watch.and_then(|w| w.see(&event));
        recorder.record(event);
        halted
    }
}

/// The events the runtime sent as it ended, recorded after its result. Usage among them still
/// tells the budgets (an 80% line, a spent budget's request), once stored.
fn record_late_events(
    events: &mut mpsc::UnboundedReceiver<RunEvent>,
    recorder: &mut Recorder,
    mut watch: Option<&mut RunWatch>,
) {
    let mut late_usage = false;
    while let Ok(event) = events.try_recv() {
        late_usage |= matches!(event, RunEvent::Usage { .. });
        if let Some(w) = watch.as_deref_mut().filter(|_| !matches!(event, RunEvent::Usage { .. })) {
            w.see(&event);
        }
        recorder.record(event);
    }
    if let Some(w) = watch.filter(|_| late_usage) {
        recorder.flush();
        w.model_call_recorded();
    }
}

/// The guards ended the run (`halted`, unless it is stopping already): it stops after the call
/// that tripped them, saying why in its Activity.
fn halt(
    stop: &mut Option<Stop>,
    stop_tx: &watch::Sender<bool>,
    recorder: &mut Recorder,
    halt_note: &mut Option<String>,
    halted: Option<(Halt, String)>,
) {
    if let (None, Some((halt, note))) = (*stop, halted) {
        *stop = Some(halt.into());
        let _ = stop_tx.send(true);
        recorder.record(RunEvent::Warning { message: note.clone() });
        *halt_note = Some(note);
    }
}

/// A run's permission question becomes an approval for the user (or is let through by an
/// "Allow always"); without attention, or when it cannot be kept, it is denied — dropping the
/// reply denies: nobody could answer it.
fn ask_permission(services: &RunServices<'_>, source: &Source, pending: PendingPermission, recorder: &mut Recorder) {
    let Some(attention) = services.attention else { return };
    if let Err(e) = attention.ask_permission(source, pending) {
        recorder.record(RunEvent::Warning {
            message: format!("The permission question could not be kept, so it was denied: {e}"),
        });
    }
}

/// Whose run it is, for the guards: from its source, and the routine it belongs to.
fn run_scope(guard: &crate::guard::Guard, source: &Source) -> RunScope {
    let routine_id =
        source.run_id.as_deref().and_then(|run_id| guard.routine_of_run(run_id, source.card_id.as_deref()));
    RunScope {
        agent_id: source.agent_id.clone(),
        team_id: source.team_id.clone(),
        room_id: source.room_id.clone(),
        routine_id,
    }
}

/// Whether a permission question of this run waits for the user now.
fn waits_for_user(services: &RunServices<'_>, source: &Source) -> bool {
    let (Some(attention), Some(run_id)) = (services.attention, source.run_id.as_deref()) else { return false };
    attention.waits_for_user(run_id)
}

/// The stop a usage report calls for: more than the policy's percent of the window used.
fn context_full(event: &RunEvent, policy: Option<ContextFull>) -> Option<Stop> {
    let RunEvent::Usage { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, .. } = event else {
        return None;
    };
    let ContextFull { window, percent } = policy?;
    let used = input_tokens + output_tokens + cache_read_tokens + cache_write_tokens;
    (used * 100 > u64::from(window) * percent).then_some(Stop::ContextFull { used, window })
}

#[cfg(test)]
mod settle_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_over_85_percent_of_the_window_fills_it() {
        let usage = |input: u64| RunEvent::Usage {
            input_tokens: input,
            output_tokens: 0,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            cost_usd: None,
        };
        let policy = Some(ContextFull { window: 200_000, percent: 85 });
        assert!(context_full(&usage(170_000), policy).is_none(), "exactly 85% is not over");
        assert!(matches!(context_full(&usage(170_001), policy), Some(Stop::ContextFull { used: 170_001, .. })));
        assert!(context_full(&usage(1_000_000), None).is_none(), "no window, no rule");
    }
}
