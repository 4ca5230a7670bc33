//! One task, from its claim to its card's release: its runs (the first, fresh sessions when it
//! runs out of room, a fix round when the check fails), each driven, recorded and judged.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::check::{run_check, CheckOutcome};
use super::{lock, store, Answers, Runner};
use super::{
    RunnerSettings, StartOptions, TaskRunContext, CHECK_OUTPUT_BYTES, CHECK_TIMEOUT, CONTEXT_FILL_PERCENT,
    MAX_CHECK_ATTEMPTS, MAX_ROTATIONS, REASON_TAIL_CHARS,
};
use crate::agents::{Agent, AgentFileName, RuntimeKind};
use crate::board::{self, Actor, Card, CardRunKind, CardRunStatus, CardStatus, CommentKind};
use crate::chat::recorder::Recorder;
use crate::chat::team::placement;
use crate::chat::{now_ms, RunStatus, RunSummary};
use crate::context::{self, BlockFact, FailedCheck, MemoryBlock, TaskRun, ToolName, PROGRESS_NOTE_CHARS};
use crate::error::{Error, Result};
use crate::memory::Visibility;
use crate::runtimes::home::RuntimeHomes;
use crate::runtimes::{Capabilities, RunChannels, RunEvent, RunOutcome, RunResult, Runtime, TurnInput};

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
    pub answers: Answers,
    /// The run going now, for permission answers.
    pub run_id: Arc<Mutex<String>>,
}

/// Fixed for the whole task. The steady tier is built from these alone, so it is byte-identical
/// across the task's runs even if the card is edited meanwhile.
struct Task {
    card: Card,
    claim: String,
    agent: Agent,
    runtime: Arc<dyn Runtime>,
    capabilities: Capabilities,
    program: Option<PathBuf>,
    persona: String,
    tools: Vec<ToolName>,
    conversation_id: String,
    workspace: PathBuf,
    /// Where the check command runs: the card's project folder, else the agent's workspace.
    check_folder: PathBuf,
    options: StartOptions,
    /// The card's previous run was cut off by a quit or crash.
    cut_off: bool,
    /// What the card's previous run wrote last.
    resume: Option<String>,
    settings: RunnerSettings,
}

/// What the next run is told beyond the task.
#[derive(Clone)]
struct Next {
    kind: CardRunKind,
    first: bool,
    handoff_note: Option<String>,
    failed_check: Option<(String, CheckOutcome)>,
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

/// Why the runner stopped a run itself.
#[derive(Debug, Clone, Copy)]
enum Stop {
    User,
    Silence(Duration),
    WallClock(Duration),
    ContextFull { used: u64, window: u32 },
}

struct Driven {
    result: RunResult,
    stop: Option<Stop>,
}

/// A run ready to go.
struct Begun {
    run: RunSummary,
    input: TurnInput,
    /// Recorded before the runtime's own events (memory facts given, warnings).
    notes: Vec<RunEvent>,
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
                Ending::Succeeded { check: None } => break (CardStatus::InReview, None),
                Ending::Succeeded { check: Some(check) } if check.passed() => break (CardStatus::InReview, None),
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

    /// Everything fixed for the task, read once; `None` when the claim is no longer held.
    fn prepare(&self, card_id: &str, claim: &str, options: StartOptions) -> Result<Option<Task>> {
        let parts = &self.parts;
        let card = parts.board.get(card_id)?;
        if card.claimed_by_run.as_deref() != Some(claim) {
            return Ok(None);
        }
        let agent_id = card
            .assignee_id
            .clone()
            .ok_or_else(|| Error::InvalidInput(format!("#{} has no assignee any more.", card.number)))?;
        let agent = parts.agents.get(&agent_id)?;
        let runtime = parts.runtimes.get(agent.runtime).ok_or_else(|| {
            Error::RuntimeNotFound(format!("No adapter for {} in this build.", agent.runtime.as_str()))
        })?;
        let program = match agent.runtime {
            RuntimeKind::Native => None,
            kind => Some(parts.catalog.locate(kind)?),
        };
        let persona = parts.agents.read_file(&agent.id, AgentFileName::Soul.as_str())?.content;
        let earlier = parts.board.runs(&card.id)?;
        let last = earlier.iter().rev().find(|r| r.run_id != claim);
        let cut_off = last.is_some_and(|r| r.status == CardRunStatus::Interrupted);
        let resume = match last {
            Some(run) => Some(parts.store.read(|c| store::run_text(c, &run.run_id))?),
            None => None,
        }
        .map(|text| tail(text.trim(), PROGRESS_NOTE_CHARS))
        .filter(|text| !text.is_empty());
        let conversation_id = parts.store.write(|tx| store::task_conversation(tx, &card.id, &agent.id, now_ms()))?;
        let workspace = parts.agents.workspaces().dir(&agent.id);
        let check_folder = card.project_folder.as_ref().map_or_else(|| workspace.clone(), PathBuf::from);
        Ok(Some(Task {
            tools: self.tools_for(&agent, &card),
            capabilities: runtime.capabilities(),
            settings: self.settings()?,
            claim: claim.to_owned(),
            card,
            agent,
            runtime,
            program,
            persona,
            conversation_id,
            workspace,
            check_folder,
            options,
            cut_off,
            resume,
        }))
    }

    /// Clawboo's tools for a task run: the Board and shared memory always, the team's peer room
    /// when the card is on a team. None when the runtime cannot be given them (no tools bridge,
    /// or a user's own OpenClaw Gateway, which Clawboo does not configure).
    fn tools_for(&self, agent: &Agent, card: &Card) -> Vec<ToolName> {
        let own_gateway = agent.runtime == RuntimeKind::Openclaw && agent.openclaw_gateway_url.is_some();
        if self.parts.tools.is_none() || own_gateway {
            return Vec::new();
        }
        let mut tools = crate::tools::specs::BOARD_TOOLS.to_vec();
        tools.extend(crate::tools::specs::MEMORY_TOOLS);
        if card.team_id.is_some() {
            tools.extend([ToolName::PeerPost, ToolName::PeerRead]);
        }
        tools
    }

    /// One run of the task: started, driven to its end, checked, recorded.
    async fn attempt(self: &Arc<Self>, task: &Arc<Task>, next: &Next, job: &Job) -> Result<Ending> {
        let (runner, shared, told) = (Arc::clone(self), Arc::clone(task), next.clone());
        let Begun { run, input, notes } = blocking(move || runner.begin(&shared, &told)).await?;
        *lock(&job.run_id) = run.id.clone();
        let mut recorder = Recorder::new(self.parts.store.clone(), self.parts.events.clone(), &run);
        for note in notes {
            recorder.record(note);
        }
        let driven = self.drive(task, input, job.cancel.clone(), &job.answers, &mut recorder).await;
        if let Some(relay) = &self.parts.relay {
            relay.revoke(&run.id);
        }
        if let Some(tools) = &self.parts.tools {
            tools.revoke(&run.id);
        }
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

    /// The run's context and row, its record on the card, its tools: ready to drive.
    fn begin(&self, task: &Task, next: &Next) -> Result<Begun> {
        let parts = &self.parts;
        let card = &task.card;
        let agent = &task.agent;
        let mut notes = Vec::new();
        let memory = if task.options.disable_memory_auto_inject {
            None
        } else {
            let query = format!("{}\n{}", card.title, card.description);
            let visible = Visibility::Agent { agent_id: agent.id.clone() };
            match parts.memory.search(&query, &visible, context::MEMORY_TOP) {
                Ok(found) => {
                    let top: Vec<BlockFact> = found.top.iter().map(|h| BlockFact::from(&h.fact)).collect();
                    let related: Vec<BlockFact> = found.related.iter().map(|h| BlockFact::from(&h.fact)).collect();
                    Some(context::memory_block(&top, &related))
                }
                Err(e) => {
                    notes.push(RunEvent::Warning {
                        message: format!("Shared memory could not be searched, so no facts were added: {e}"),
                    });
                    None
                }
            }
        };
        let failed_output = next.failed_check.as_ref().map(|(_, check)| match &check.stopped {
            Some(why) if check.output.is_empty() => why.clone(),
            Some(why) => format!("{}\n{why}", check.output),
            None => check.output.clone(),
        });
        let failed = next.failed_check.as_ref().zip(failed_output.as_deref()).map(|((command, check), output)| {
            FailedCheck { command: command.as_str(), exit_code: check.exit_code, output }
        });
        let tiers = context::task_tiers(&TaskRun {
            runtime: agent.runtime,
            persona: &task.persona,
            number: card.number,
            title: &card.title,
            description: &card.description,
            tools: &task.tools,
            streams_text: task.capabilities.streams_text,
            resume: task.resume.as_deref().filter(|_| next.first),
            cut_off: task.cut_off,
            failed_check: failed.as_ref(),
            handoff_note: next.handoff_note.as_deref(),
            waiting: &[],
            memory: memory.as_ref(),
        });
        let placement = placement::of(&task.capabilities);
        // Every run is a fresh session: it never holds the steady tier yet.
        let placed = placement::place(placement, &tiers.assembled, false);
        let attempt = parts.board.runs(&card.id)?.len() as u32 + 1;
        let run_id = if next.first { task.claim.clone() } else { uuid::Uuid::new_v4().to_string() };
        let now = now_ms();
        let context = TaskRunContext {
            run_id: run_id.clone(),
            card_id: card.id.clone(),
            attempt,
            kind: next.kind,
            placement,
            system_text: placed.system.clone(),
            preamble: placed.preamble.clone(),
            message: tiers.assembled.message_text(),
            sections: tiers.assembled.sections.clone(),
            cited: tiers.cited.clone(),
            created_at: now,
        };
        let run = parts.store.write(|tx| {
            let run = store::insert_run(tx, &run_id, &task.conversation_id, &agent.id, agent.runtime, now)?;
            store::insert_context(tx, &context)?;
            Ok(run)
        })?;
        if let Err(e) = parts.board.record_run(&card.id, &run.id, attempt, next.kind) {
            let why = format!("The run could not be recorded on #{}: {e}", card.number);
            let _ = parts.store.write(|tx| store::finish_run(tx, &run.id, RunStatus::Failed, Some(&why), now_ms()));
            return Err(e);
        }
        if let Err(e) = parts.memory.cite(&run.id, &agent.id, &tiers.cited) {
            notes.push(RunEvent::Warning { message: format!("The facts given could not be recorded as cited: {e}") });
        }
        if let Some(block) = memory.as_ref().filter(|m| !m.given.is_empty()) {
            notes.push(memory_note(block));
        }
        let tools = parts.tools.as_ref().filter(|_| !task.tools.is_empty()).map(|bridge| {
            bridge.grant(crate::tools::Caller {
                run_id: run.id.clone(),
                agent_id: agent.id.clone(),
                agent_handle: agent.handle.clone(),
                team_id: card.team_id.clone().unwrap_or_default(),
                room_id: String::new(),
                conversation_id: task.conversation_id.clone(),
                tools: task.tools.clone(),
            })
        });
        let input = TurnInput {
            run_id: run.id.clone(),
            agent: agent.clone(),
            homes: RuntimeHomes::for_agent_dir(&task.workspace),
            workspace: task.workspace.clone(),
            message: context.message.clone(),
            persona: placed.system,
            preamble: placed.preamble,
            tools,
            resume_session: None,
            fork_session: false,
            transcript: Vec::new(),
            approval: agent.approval_policy,
            program: task.program.clone(),
        };
        Ok(Begun { run, input, notes })
    }

    /// Runs the runtime to its end, recording every event; stops it when the user asks, when it
    /// is silent or past its wall-clock limit, or when it reports its context window nearly full.
    async fn drive(
        &self,
        task: &Task,
        input: TurnInput,
        mut user_cancel: watch::Receiver<bool>,
        answers: &Answers,
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
                    lock(answers).insert(pending.request_id, pending.reply);
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
                    stop = Some(Stop::Silence(silence));
                    let _ = stop_tx.send(true);
                }
                _ = flush.tick() => recorder.flush(),
            }
        };
        while let Ok(event) = events.try_recv() {
            recorder.record(event);
        }
        Driven { result: result.unwrap_or_else(|e| RunResult::failed(e.to_string())), stop }
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
            None if result.turn_limit => Ending::OutOfRoom {
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
        let folder = task.check_folder.display().to_string();
        recorder.record(RunEvent::ToolCallStarted {
            call_id: call_id.clone(),
            name: "check_command".into(),
            input: serde_json::json!({ "command": command, "folder": folder }),
        });
        recorder.flush();
        let spawner = self.parts.spawner.clone();
        let outcome =
            run_check(spawner.as_ref(), command, &task.check_folder, CHECK_TIMEOUT, CHECK_OUTPUT_BYTES, cancel).await;
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
            eprintln!("clawboo: could not store the end of task run {}: {e}", run.id);
        }
        if matches!(ending, Ending::Succeeded { .. }) && !reply.trim().is_empty() {
            let author = Actor::Agent {
                agent_id: task.agent.id.clone(),
                handle: task.agent.handle.clone(),
                run_id: Some(run.id.clone()),
            };
            let posted =
                parts.board.comment(author, &task.card.id, CommentKind::Report, &report(&reply), Some(run.id.clone()));
            if let Err(e) = posted {
                eprintln!("clawboo: could not post the report of run {} on #{}: {e}", run.id, task.card.number);
            }
        }
        let reason = error.map(|e| board::cut(&e, board::MAX_REASON_CHARS));
        if let Err(e) = parts.board.finish_run(&run.id, card_status, reason) {
            eprintln!("clawboo: could not record the end of run {} on #{}: {e}", run.id, task.card.number);
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
            Err(e) => eprintln!("clawboo: a task run could not move its card to {}: {e}", to.label()),
        }
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

/// The memory block as the run's activity shows it.
fn memory_note(block: &MemoryBlock) -> RunEvent {
    let n = block.given.len();
    RunEvent::ContextAdded {
        summary: format!("{n} memory fact{} for the task: {}", if n == 1 { "" } else { "s" }, block.given.join(", ")),
        text: block.text.clone(),
    }
}

/// The last `max` chars of `text`, starting with `…` when it was longer.
fn tail(text: &str, max: usize) -> String {
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
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| Err(Error::Internal(format!("a task step failed: {e}"))))
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

    #[test]
    fn a_tail_keeps_the_end_and_says_it_was_cut() {
        assert_eq!(tail("short", 10), "short");
        assert_eq!(tail("abcdefghij", 4), "…hij");
        assert_eq!(tail("abcdefghij", 4).chars().count(), 4);
    }
}
