//! What a task run starts from: everything fixed for the task (read once, so the steady tier is
//! byte-identical across its runs), and each run's context, row, record on the card and tools.

use super::card_comments;
use super::check::CheckOutcome;
use super::task::tail;
use super::{store, Runner, RunnerSettings, StartOptions, TaskRunContext};
use crate::board::{Card, CardOrigin, CardRun, CardRunKind, CardRunStatus, Comment, CommentKind};
use crate::chat::{RunStatus, RunSummary};
use crate::context::{self, BlockFact, FailedCheck, MemoryBlock, TaskRun, WaitingItem, PROGRESS_NOTE_CHARS};
use crate::error::{Error, Result};
use crate::guard::RunScope;
use crate::memory::Visibility;
use crate::run::prepare::{placement, PreparedRun, RunFolder, RunKind, RunRequest, RunRole};
use crate::runtimes::{RunEvent, TurnInput};
use crate::vocab::clock::now_ms;

/// Fixed for the whole task. The steady tier is built from these alone, so it is byte-identical
/// across the task's runs even if the card is edited meanwhile.
pub(super) struct Task {
    pub(super) card: Card,
    pub(super) claim: String,
    /// The run as the run layer prepared it, once for the task: the agent, its runtime and
    /// tools, and its files (every run of the task starts a new session, so they go as
    /// `new_session_files`). Its `folder` is where the runtime works and the check command
    /// runs: the card's worktree (a project folder in a git repository), its project folder
    /// (any other), else the agent's workspace.
    pub(super) run: PreparedRun,
    pub(super) conversation_id: String,
    pub(super) options: StartOptions,
    /// The card's previous run was cut off by a quit or crash.
    pub(super) cut_off: bool,
    /// What the card's previous run wrote last.
    pub(super) resume: Option<String>,
    /// The routine whose run this card is.
    pub(super) routine: Option<context::RoutineNote>,
    pub(super) settings: RunnerSettings,
}

/// What the next run is told beyond the task.
#[derive(Clone)]
pub(super) struct Next {
    pub(super) kind: CardRunKind,
    pub(super) first: bool,
    pub(super) handoff_note: Option<String>,
    pub(super) failed_check: Option<(String, CheckOutcome)>,
}

/// A run ready to go.
pub(super) struct Begun {
    pub(super) run: RunSummary,
    pub(super) input: TurnInput,
    /// Recorded before the runtime's own events (memory facts given, warnings).
    pub(super) notes: Vec<RunEvent>,
}

impl Runner {
    /// Everything fixed for the task, read once; `None` when the claim is no longer held.
    pub(super) fn prepare(&self, card_id: &str, claim: &str, options: StartOptions) -> Result<Option<Task>> {
        let parts = &self.parts;
        let card = self.with_folder(parts.board.get(card_id)?);
        if card.claimed_by_run.as_deref() != Some(claim) {
            return Ok(None);
        }
        let agent_id = card
            .assignee_id
            .clone()
            .ok_or_else(|| Error::InvalidInput(format!("#{} has no assignee any more.", card.number)))?;
        let agent = parts.agents.get(&agent_id)?;
        // Before anything is written or a worktree made: a runtime that cannot run stops here.
        let preparer = self.preparer();
        let runtime = preparer.runtime(&agent)?;
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
        check_project_folder(&card)?;
        let folder = self.work_folder(&card)?.map_or(RunFolder::AgentWorkspace, RunFolder::Project);
        let role = RunRole::Card { team_id: card.team_id.clone() };
        // A routine's card: its runs carry the routine note (and HEARTBEAT.md, for a heartbeat).
        let routine = match &card.origin {
            CardOrigin::Routine { routine_id, .. } => {
                parts.store.read(|c| crate::routines::store::note_of(c, routine_id))?
            }
            _ => None,
        };
        let heartbeat = routine.as_ref().is_some_and(|(_, heartbeat)| *heartbeat);
        let kind = if routine.is_some() { RunKind::Routine } else { RunKind::CardTask };
        let routine = routine.map(|(routine_name, _)| context::RoutineNote { routine_name });
        let run = preparer.prepare_on(RunRequest { kind, agent, folder, role, heartbeat }, runtime)?;
        Ok(Some(Task {
            run,
            settings: self.settings()?,
            claim: claim.to_owned(),
            card,
            conversation_id,
            options,
            cut_off,
            resume,
            routine,
        }))
    }

    /// What preparing a run reads from (`run::prepare`).
    fn preparer(&self) -> crate::run::prepare::Preparer<'_> {
        let parts = &self.parts;
        crate::run::prepare::Preparer {
            agents: &parts.agents,
            runtimes: &parts.runtimes,
            catalog: &parts.catalog,
            tools: crate::run::prepare::ToolServices {
                bridge: parts.tools.as_ref(),
                memory: true,
                board: true,
                attention: true,
            },
        }
    }

    /// The run's context and row, its record on the card, its tools: ready to drive.
    pub(super) fn begin(&self, task: &Task, next: &Next) -> Result<Begun> {
        let parts = &self.parts;
        let card = &task.card;
        let prepared = &task.run;
        let agent = &prepared.agent;
        // A paused agent or a spent budget refuses the run before anything is stored (the card
        // is blocked with the reason).
        if let Some(guard) = &parts.guard {
            let routine_id = match &card.origin {
                CardOrigin::Routine { routine_id, .. } => Some(routine_id.clone()),
                _ => None,
            };
            let scope =
                RunScope { agent_id: agent.id.clone(), team_id: card.team_id.clone(), room_id: None, routine_id };
            guard.check_start(&scope)?;
        }
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
        let earlier = parts.board.runs(&card.id)?;
        let waiting = waiting_comments(&parts.board.detail(&card.id)?.comments, &earlier);
        let tiers = context::task_tiers(&TaskRun {
            runtime: agent.runtime,
            files: &prepared.new_session_files,
            number: card.number,
            title: &card.title,
            description: &card.description,
            tools: &prepared.tools,
            streams_text: prepared.runtime.capabilities.streams_text,
            resume: task.resume.as_deref().filter(|_| next.first),
            cut_off: task.cut_off,
            failed_check: failed.as_ref(),
            handoff_note: next.handoff_note.as_deref(),
            waiting: &waiting,
            memory: memory.as_ref(),
            routine: task.routine.as_ref(),
        });
        let placement = prepared.runtime.placement;
        // Every run is a fresh session: it never holds the steady tier yet.
        let placed = placement::place(placement, &tiers.assembled, false);
        let slots = crate::run::prepare::files::slots(
            agent.runtime,
            &prepared.new_session_files,
            placed.system.as_deref(),
            placed.preamble.as_deref(),
            &tiers.assembled.message_text(),
        )?;
        let attempt = earlier.len() as u32 + 1;
        let run_id = if next.first { task.claim.clone() } else { uuid::Uuid::new_v4().to_string() };
        let now = now_ms();
        let context = TaskRunContext {
            run_id: run_id.clone(),
            card_id: card.id.clone(),
            attempt,
            kind: next.kind,
            placement,
            system_text: slots.shown_system,
            preamble: placed.preamble.clone(),
            message: tiers.assembled.message_text(),
            sections: tiers.assembled.sections.clone(),
            files: prepared.new_session_files.files.clone(),
            project_file: prepared.new_session_files.project.clone(),
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
        let connectors = parts.connectors.as_ref().map(|c| c.for_run(&agent.id)).unwrap_or_default();
        let tools = prepared.grant(&run.id, &task.conversation_id, false);
        notes.extend(connectors.warnings.into_iter().map(|message| RunEvent::Warning { message }));
        // Every run is a fresh session: nothing to resume, no turns carried.
        let input = TurnInput {
            connectors: connectors.connectors,
            setup: slots.setup,
            persona: placed.system,
            preamble: placed.preamble,
            tools,
            ..prepared.input(&run.id, context.message.clone())
        };
        Ok(Begun { run, input, notes })
    }
}

/// What was said on the card since its last run started (all of it before its first run), as
/// [`card_comments::waiting_item`] words it. Reports and the card's own runs' comments are left
/// out.
fn waiting_comments(comments: &[Comment], runs: &[CardRun]) -> Vec<WaitingItem> {
    let since = runs.last().map(|r| r.started_at);
    let own = |run_id: &Option<String>| run_id.as_ref().is_some_and(|id| runs.iter().any(|r| r.run_id == *id));
    comments
        .iter()
        .filter(|c| c.kind == CommentKind::Comment && since.is_none_or(|t| c.created_at >= t) && !own(&c.run_id))
        .map(|c| card_comments::waiting_item(&c.id, &c.author, &c.text))
        .collect()
}

/// A card's project folder (its own or its team's), when it has one, must be a folder on this
/// machine.
pub(super) fn check_project_folder(card: &Card) -> Result<()> {
    match &card.project_folder {
        Some(folder) if !std::path::Path::new(folder).is_dir() => Err(Error::InvalidInput(format!(
            "#{}'s project folder {folder} is not a folder on this machine: fix it on the card (or its team) first.",
            card.number
        ))),
        _ => Ok(()),
    }
}

/// The memory block as the run's activity shows it.
fn memory_note(block: &MemoryBlock) -> RunEvent {
    let n = block.given.len();
    RunEvent::ContextAdded {
        summary: format!("{n} memory fact{} for the task: {}", if n == 1 { "" } else { "s" }, block.given.join(", ")),
        text: block.text.clone(),
    }
}
