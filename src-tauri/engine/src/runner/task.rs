//! One task, from its claim to its card's release: its runs (the first, fresh sessions when it
//! runs out of room, a fix round when the check fails), each driven, recorded and judged.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::begin::{Begun, Next, Task};
use super::check::{run_check, CheckOutcome};
use super::{store, Runner};
use super::{
    StartOptions, CHECK_OUTPUT_BYTES, CHECK_TIMEOUT, CONTEXT_FILL_PERCENT, MAX_CHECK_ATTEMPTS, MAX_ROTATIONS,
    REASON_TAIL_CHARS,
};
use crate::board::{self, Actor, CardRunKind, CardRunStatus, CardStatus, CommentKind};
use crate::chat::{RunStatus, RunSummary};
use crate::context::{self, PROGRESS_NOTE_CHARS};
use crate::error::{Error, Result};
use crate::run::{ContextFull, Driven, Policies, Recorder, RunServices, Stop, Turn, TurnLimit};
use crate::runtimes::{RunEvent, RunOutcome};
use crate::vocab::clock::now_ms;

/// Why a card goes back to To do when Clawboo stopped (quit or crash) during its run.
pub(super) const CUT_OFF: &str = "Cut off when Clawboo stopped; the next run is told to check what it did";
/// Why a card goes back to To do when the user stopped its run.
const STOPPED: &str = "Stopped by the user";
/// A run's error when it was cut off by a quit.
const CUT_OFF_RUN: &str = "Clawboo quit while this run was in progress; it was cut off.";

/// A task the scheduler started.
pub(super) struct Job {
    pub card_id: String,
    pub claim: String,
    pub options: StartOptions,
    /// Becomes true when the user stops the task (or the app quits).
    pub cancel: watch::Receiver<bool>,
}

/// How one run ended, for the task.
enum Ending {
    /// The agent finished; `check` is the check command's verdict when the card has one.
    Succeeded {
        check: Option<CheckOutcome>,
    },
    OutOfRoom {
        why: String,
        progress: String,
    },
    Failed {
        why: String,
        status: RunStatus,
    },
    Stopped,
    CutOff,
}

impl Runner {
    pub(super) async fn execute(self: &Arc<Self>, job: Job) {
        let runner = Arc::clone(self);
        let (card_id, claim, options) = (job.card_id.clone(), job.claim.clone(), job.options);
        let prepared = blocking(move || runner.prepare(&card_id, &claim, options)).await;
        let task = match prepared {
            Ok(Some(task)) => Arc::new(task),
            // The claim is gone (the card was moved meanwhile): nothing to run.
            Ok(None) => return,
            Err(e) => {
                let why = format!("The run could not start: {e}");
                return self.release(&job.card_id, &job.claim, CardStatus::Blocked, Some(why)).await;
            }
        };
        let mut next = Next { kind: CardRunKind::Run, first: true, handoff_note: None, failed_check: None };
        let (mut rotations, mut checks) = (0, 0);
        let (to, reason) = loop {
            let ending = match self.attempt(&task, &next, &job).await {
                Ok(ending) => ending,
                Err(e) => break (CardStatus::Blocked, Some(format!("The run could not start: {e}"))),
            };
            next.first = false;
            match ending {
                Ending::Stopped => break (CardStatus::Todo, Some(STOPPED.to_owned())),
                Ending::CutOff => break (CardStatus::Todo, Some(CUT_OFF.to_owned())),
                Ending::Failed { why, .. } => break (CardStatus::Blocked, Some(why)),
                Ending::OutOfRoom { why, progress } => {
                    if rotations >= MAX_ROTATIONS {
                        let why = format!(
                            "Ran out of room {} times (the last: {why}); continue it yourself or split the task.",
                            MAX_ROTATIONS + 1
                        );
                        break (CardStatus::Blocked, Some(why));
                    }
                    rotations += 1;
                    next.kind = CardRunKind::Rotation;
                    next.handoff_note = Some(progress_note(&progress));
                }
                // Without a check, a person judges the work; a passing check has judged it. A
                // run that asked the user something waits for the answer, which runs it again.
                Ending::Succeeded { check: None } => match self.open_question(&task.card.id) {
                    Some(question) => break (CardStatus::Blocked, Some(question)),
                    None => break (CardStatus::InReview, None),
                },
                Ending::Succeeded { check: Some(check) } if check.passed() => break (CardStatus::Done, None),
                Ending::Succeeded { check: Some(check) } => {
                    checks += 1;
                    let command = task.card.check_command.clone().unwrap_or_default();
                    if checks >= MAX_CHECK_ATTEMPTS {
                        break (CardStatus::Blocked, Some(check_failed(&command, &check, checks)));
                    }
                    next.kind = CardRunKind::Fix;
                    next.handoff_note = None;
                    next.failed_check = Some((command, check));
                }
            }
            // Between runs: the user may have stopped the task, or moved the card (the claim ends).
            if *job.cancel.borrow() {
                let why = if self.is_quitting() { CUT_OFF } else { STOPPED };
                break (CardStatus::Todo, Some(why.to_owned()));
            }
            let board = self.parts.board.clone();
            let card_id = task.card.id.clone();
            let held = blocking(move || board.get(&card_id)).await.map(|c| c.claimed_by_run);
            if held.ok().flatten().as_deref() != Some(task.claim.as_str()) {
                return;
            }
        };
        self.release(&task.card.id, &task.claim, to, reason).await;
    }

    /// "Waiting for your answer: …" when an agent asked the user about this card and the
    /// question is still open.
    fn open_question(&self, card_id: &str) -> Option<String> {
        let open = self.parts.attention.open().ok()?;
        let asked = open
            .iter()
            .find(|r| r.kind == crate::attention::RequestKind::Question && r.card_id.as_deref() == Some(card_id))?;
        let question: String = asked.text.chars().take(300).collect();
        Some(format!("Waiting for your answer (in the inbox): {question}"))
    }

    /// One run of the task: started, driven to its end, checked, recorded.
    async fn attempt(self: &Arc<Self>, task: &Arc<Task>, next: &Next, job: &Job) -> Result<Ending> {
        let (runner, shared, told) = (Arc::clone(self), Arc::clone(task), next.clone());
        let Begun { run, input, notes } = blocking(move || runner.begin(&shared, &told)).await?;
        let mut recorder = Recorder::new(self.parts.store.clone(), self.parts.events.clone(), &run);
        for note in notes {
            recorder.record(note);
        }
        let source = crate::attention::Source {
            agent_id: task.run.agent.id.clone(),
            team_id: task.card.team_id.clone(),
            run_id: Some(run.id.clone()),
            card_id: Some(task.card.id.clone()),
            ..Default::default()
        };
        let services = RunServices {
            attention: Some(&self.parts.attention),
            relay: self.parts.relay.as_deref(),
            tools: self.parts.tools.as_deref(),
            guard: self.parts.guard.as_deref(),
        };
        let turn = Turn {
            runtime: task.run.runtime.runtime.as_ref(),
            input,
            cancel: job.cancel.clone(),
            source: &source,
            policies: policies(task),
        };
        // Every task run is a fresh session: there is no lost one to retry without.
        let driven = crate::run::drive(turn, &services, &mut recorder, || {}).await;
        services.end_grants(&run.id);
        let mut ending = self.ending_of(&driven, &recorder.reply());
        if let (Ending::Succeeded { .. }, Some(command)) = (&ending, &task.card.check_command) {
            ending = if self.is_quitting() {
                // The check cannot run while the app quits: the next run is told to check.
                Ending::CutOff
            } else {
                let outcome = self.check(task, command, &mut recorder, job.cancel.clone()).await;
                match (&outcome.stopped, *job.cancel.borrow()) {
                    (Some(_), true) if self.is_quitting() => Ending::CutOff,
                    (Some(_), true) => Ending::Stopped,
                    _ => Ending::Succeeded { check: Some(outcome) },
                }
            };
        }
        let (runner, shared) = (Arc::clone(self), Arc::clone(task));
        blocking(move || {
            runner.finish(&shared, &run, &driven, &ending, recorder);
            Ok(ending)
        })
        .await
    }

    fn ending_of(&self, driven: &Driven, reply: &str) -> Ending {
        let result = &driven.result;
        let quitting = self.is_quitting();
        if result.outcome == RunOutcome::Succeeded {
            // Finished, even if asked to stop meanwhile. A check cannot run while the app quits.
            return Ending::Succeeded { check: None };
        }
        let said = || result.message.clone().filter(|m| !m.trim().is_empty());
        match driven.stop {
            Some(Stop::User) if quitting => Ending::CutOff,
            Some(Stop::User) => Ending::Stopped,
            Some(Stop::ContextFull { used, window }) => Ending::OutOfRoom {
                why: format!("it used {used} of its {window}-token context window (over {CONTEXT_FILL_PERCENT}%)"),
                progress: reply.to_owned(),
            },
            Some(Stop::WallClock(limit)) => Ending::Failed {
                why: format!("The run went on past its limit of {} and was stopped.", minutes(limit)),
                status: RunStatus::TimedOut,
            },
            Some(Stop::Silence(limit)) => Ending::Failed {
                why: format!("The run reported nothing for {} s and was stopped.", limit.as_secs()),
                status: RunStatus::TimedOut,
            },
            // Ended by a budget or a circuit breaker: the note says which (the drive loop set it).
            Some(Stop::Budget | Stop::RepeatedToolCall { .. }) => Ending::Failed {
                why: said().unwrap_or_else(|| "Stopped by a limit.".into()),
                status: RunStatus::Cancelled,
            },
            None if driven.out_of_turns => Ending::OutOfRoom {
                why: said().unwrap_or_else(|| "it reached its turn limit".into()).trim_end_matches('.').to_owned(),
                progress: reply.to_owned(),
            },
            None if quitting => Ending::CutOff,
            None => Ending::Failed {
                why: said()
                    .unwrap_or_else(|| format!("The run ended ({}) without saying why.", result.outcome.as_str())),
                status: RunStatus::of(result.outcome),
            },
        }
    }

    /// Runs the card's check command, recorded in the run's activity as a step of the run.
    async fn check(
        &self,
        task: &Task,
        command: &str,
        recorder: &mut Recorder,
        cancel: watch::Receiver<bool>,
    ) -> CheckOutcome {
        let call_id = format!("check-{}", uuid::Uuid::new_v4());
        let folder = task.run.folder.display().to_string();
        recorder.record(RunEvent::ToolCallStarted {
            call_id: call_id.clone(),
            name: "check_command".into(),
            input: serde_json::json!({ "command": command, "folder": folder }),
        });
        recorder.flush();
        let spawner = self.parts.spawner.clone();
        let outcome =
            run_check(spawner.as_ref(), command, &task.run.folder, CHECK_TIMEOUT, CHECK_OUTPUT_BYTES, cancel).await;
        let status = match (&outcome.stopped, outcome.exit_code) {
            (Some(why), _) => why.clone(),
            (None, Some(code)) => format!("Exit code {code}."),
            (None, None) => "Ended by a signal.".to_owned(),
        };
        recorder.record(RunEvent::ToolResult {
            call_id,
            output: format!("{status}\n{}", tail(&outcome.output, context::FAILURE_TAIL_CHARS)),
            is_error: !outcome.passed(),
        });
        outcome
    }

    /// Records how the run ended: its last events, its row, its record on the card, and its
    /// final reply as the card's report when it finished.
    fn finish(&self, task: &Task, run: &RunSummary, driven: &Driven, ending: &Ending, mut recorder: Recorder) {
        let parts = &self.parts;
        let reply = recorder.reply();
        let (status, error, card_status) = match ending {
            Ending::Succeeded { .. } => (RunStatus::Succeeded, None, CardRunStatus::Succeeded),
            Ending::OutOfRoom { why, .. } => (
                RunStatus::Failed,
                Some(format!("Out of room: {why}. The task goes on in a fresh session when it may.")),
                CardRunStatus::Failed,
            ),
            // A run a budget or a breaker ended was stopped cleanly, not failed: its card says so too.
            Ending::Failed { why, status: RunStatus::Cancelled } => {
                (RunStatus::Cancelled, Some(why.clone()), CardRunStatus::Cancelled)
            }
            Ending::Failed { why, status } => (*status, Some(why.clone()), CardRunStatus::Failed),
            Ending::Stopped => (RunStatus::Cancelled, Some(format!("{STOPPED}.")), CardRunStatus::Cancelled),
            Ending::CutOff => (RunStatus::Interrupted, Some(CUT_OFF_RUN.to_owned()), CardRunStatus::Interrupted),
        };
        if let (Some(why), Some(_)) = (&error, driven.stop) {
            recorder.record(RunEvent::Warning { message: why.clone() });
        }
        recorder.record(driven.result.to_event());
        recorder.flush();
        if let Err(e) = parts.store.write(|tx| store::finish_run(tx, &run.id, status, error.as_deref(), now_ms())) {
            tracing::error!(run_id = %run.id, error = %e, "could not store the end of a task run");
        }
        if matches!(ending, Ending::Succeeded { .. }) && !reply.trim().is_empty() {
            let author = Actor::Agent {
                agent_id: task.run.agent.id.clone(),
                handle: task.run.agent.handle.clone(),
                run_id: Some(run.id.clone()),
            };
            let posted =
                parts.board.comment(author, &task.card.id, CommentKind::Report, &report(&reply), Some(run.id.clone()));
            if let Err(e) = posted {
                tracing::warn!(run_id = %run.id, card = task.card.number, error = %e, "could not post a run's report");
            }
        }
        let reason = error.map(|e| board::cut(&e, board::MAX_REASON_CHARS));
        if let Err(e) = parts.board.finish_run(&run.id, card_status, reason) {
            tracing::error!(run_id = %run.id, card = task.card.number, error = %e, "could not record the end of a run on its card");
        }
    }

    /// Ends the task's claim with its outcome. A card moved out of In progress meanwhile (by the
    /// user, or by the agent with `board_update`) keeps that move.
    async fn release(&self, card_id: &str, claim: &str, to: CardStatus, reason: Option<String>) {
        let board = self.parts.board.clone();
        let (card_id, claim) = (card_id.to_owned(), claim.to_owned());
        let reason = reason.map(|r| board::cut(r.trim(), board::MAX_REASON_CHARS));
        let released = blocking(move || board.release(&card_id, &claim, to, reason).map(|_| ())).await;
        match released {
            Ok(()) | Err(Error::Conflict(_)) => {}
            Err(e) => tracing::warn!(to = to.label(), error = %e, "a task run could not move its card"),
        }
    }
}

/// A task run's rules: stopped when silent or past its wall-clock limit (the runner's
/// settings), or when its context window is nearly full; its runtime's turn limit means it ran
/// out of room, so it goes on in a fresh session.
fn policies(task: &Task) -> Policies {
    Policies {
        silence: Some(Duration::from_secs(u64::from(task.settings.silence_secs))),
        wall_clock: Some(Duration::from_secs(u64::from(task.settings.wall_clock_secs))),
        context_window: task
            .run
            .runtime
            .capabilities
            .context_window
            .map(|window| ContextFull { window, percent: CONTEXT_FILL_PERCENT }),
        retry_without_lost_session: false,
        turn_limit: TurnLimit::OutOfRoom,
    }
}

/// The hand-off note for a fresh session: the end of what the last one wrote.
fn progress_note(progress: &str) -> String {
    let progress = progress.trim();
    if progress.is_empty() {
        return "The last session wrote nothing before it ran out of room: check the workspace and the card for what \
                it did."
            .to_owned();
    }
    tail(progress, PROGRESS_NOTE_CHARS)
}

/// Why a card is blocked when its check failed on every attempt: the exit code and the
/// output's tail.
fn check_failed(command: &str, check: &CheckOutcome, attempts: u32) -> String {
    let how = match (&check.stopped, check.exit_code) {
        (Some(why), _) => why.trim_end_matches('.').to_owned(),
        (None, Some(code)) => format!("exit code {code}"),
        (None, None) => "ended by a signal".to_owned(),
    };
    let output = check.output.trim();
    let shown = if output.is_empty() { "It printed nothing.".to_owned() } else { tail(output, REASON_TAIL_CHARS) };
    format!(
        "The check `{}` failed after {attempts} attempts ({how}). Its output ends:\n{shown}",
        board::cut(command.trim(), 200)
    )
}

/// A final reply as a report comment: whole when it fits, else its start and a note saying where
/// the rest is (never cut quietly).
fn report(reply: &str) -> String {
    const NOTE: &str = "\n\n[Cut to fit a card comment: the whole reply is in the run's activity.]";
    let reply = reply.trim();
    if reply.chars().count() <= board::MAX_COMMENT_CHARS {
        return reply.to_owned();
    }
    let kept = board::MAX_COMMENT_CHARS - NOTE.chars().count();
    format!("{}{NOTE}", reply.chars().take(kept).collect::<String>().trim_end())
}

/// The last `max` chars of `text`, starting with `…` when it was longer.
pub(super) fn tail(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().skip(count - max.saturating_sub(1)).collect();
    format!("…{kept}")
}

fn minutes(limit: Duration) -> String {
    match limit.as_secs() {
        s if s >= 60 && s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

/// Runs blocking store work off the async workers.
pub(super) async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| Err(Error::Internal(format!("a task step failed: {e}"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_keeps_the_end_and_says_it_was_cut() {
        assert_eq!(tail("short", 10), "short");
        assert_eq!(tail("abcdefghij", 4), "…hij");
        assert_eq!(tail("abcdefghij", 4).chars().count(), 4);
    }
}
