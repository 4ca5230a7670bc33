//! Driving one run: every event recorded as it comes; the run stopped when the user asks, when it
//! is silent or past its wall-clock limit, or when it reports its context window nearly full.

use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::begin::Task;
use super::{Runner, CONTEXT_FILL_PERCENT};
use crate::chat::recorder::Recorder;
use crate::runtimes::{RunChannels, RunEvent, RunResult, TurnInput};

/// Why the runner stopped a run itself.
#[derive(Debug, Clone, Copy)]
pub(super) enum Stop {
    User,
    Silence(Duration),
    WallClock(Duration),
    ContextFull { used: u64, window: u32 },
}

pub(super) struct Driven {
    pub(super) result: RunResult,
    pub(super) stop: Option<Stop>,
}

impl Runner {
    /// Runs the runtime to its end, recording every event; stops it when the user asks, when it
    /// is silent or past its wall-clock limit, or when it reports its context window nearly full.
    pub(super) async fn drive(
        &self,
        task: &Task,
        input: TurnInput,
        mut user_cancel: watch::Receiver<bool>,
        source: &crate::attention::Source,
        recorder: &mut Recorder,
    ) -> Driven {
        let (events_tx, mut events) = mpsc::unbounded_channel();
        let (permissions_tx, mut permissions) = mpsc::unbounded_channel();
        // The runtime's own stop signal: the user's, or the runner's for its own reasons.
        let (stop_tx, stop_rx) = watch::channel(false);
        let channels = RunChannels { events: events_tx, permissions: permissions_tx, cancel: stop_rx };
        let silence = Duration::from_secs(u64::from(task.settings.silence_secs));
        let wall_clock = Duration::from_secs(u64::from(task.settings.wall_clock_secs));
        let mut stop = None;
        if *user_cancel.borrow_and_update() {
            stop = Some(Stop::User);
            let _ = stop_tx.send(true);
        }
        let running = task.runtime.run(input, channels);
        tokio::pin!(running);
        let wall_deadline = tokio::time::sleep(wall_clock);
        tokio::pin!(wall_deadline);
        let quiet = tokio::time::sleep(silence);
        tokio::pin!(quiet);
        let mut was_asking = false;
        let mut flush = tokio::time::interval(Duration::from_millis(50));
        let result = loop {
            tokio::select! {
                biased;
                Some(event) = events.recv() => {
                    quiet.as_mut().reset(Instant::now() + silence);
                    if stop.is_none() {
                        stop = context_full(&event, task.capabilities.context_window);
                        if stop.is_some() {
                            let _ = stop_tx.send(true);
                        }
                    }
                    recorder.record(event);
                }
                Some(pending) = permissions.recv() => {
                    // Asked and answered between two ticks still counts as having waited.
                    was_asking = true;
                    // Dropping the reply on failure denies: nobody could answer it.
                    if let Err(e) = self.parts.attention.ask_permission(source, pending) {
                        recorder.record(RunEvent::Warning {
                            message: format!("The permission question could not be kept, so it was denied: {e}"),
                        });
                    }
                }
                result = &mut running => break result,
                changed = user_cancel.changed(), if stop.is_none() => {
                    if changed.is_err() || *user_cancel.borrow() {
                        stop = Some(Stop::User);
                        let _ = stop_tx.send(true);
                    }
                }
                _ = &mut wall_deadline, if stop.is_none() => {
                    stop = Some(Stop::WallClock(wall_clock));
                    let _ = stop_tx.send(true);
                }
                _ = &mut quiet, if stop.is_none() => {
                    // A run whose permission question waits for the user is not silent: the user
                    // may be away (the question has its own expiry; Stop and the wall clock hold).
                    // Answered since the last look: its silence counts from now, so a run answered
                    // just before this tick still has a whole period to go on.
                    let asking = source.run_id.as_deref().is_some_and(|run| self.parts.attention.waits_for_user(run));
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
        while let Ok(event) = events.try_recv() {
            recorder.record(event);
        }
        Driven { result: result.unwrap_or_else(|e| RunResult::failed(e.to_string())), stop }
    }
}

/// The stop a usage report calls for: more than [`CONTEXT_FILL_PERCENT`] of the window used.
fn context_full(event: &RunEvent, window: Option<u32>) -> Option<Stop> {
    let RunEvent::Usage { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, .. } = event else {
        return None;
    };
    let window = window?;
    let used = input_tokens + output_tokens + cache_read_tokens + cache_write_tokens;
    (used * 100 > u64::from(window) * CONTEXT_FILL_PERCENT).then_some(Stop::ContextFull { used, window })
}

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
        assert!(context_full(&usage(170_000), Some(200_000)).is_none(), "exactly 85% is not over");
        assert!(matches!(context_full(&usage(170_001), Some(200_000)), Some(Stop::ContextFull { used: 170_001, .. })));
        assert!(context_full(&usage(1_000_000), None).is_none(), "no window, no rule");
    }
}
