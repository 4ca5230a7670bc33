//! One-to-one chats: each message starts a run on the agent's runtime, continuing the session
//! the previous turn saved. Every event of the run is stored (the Activity card replays them)
//! and published live; the reply is stored when the run ends.

mod boo_zero;
pub(crate) mod files;
mod recall;
pub(crate) mod recorder;
mod setup;
mod slots;
mod store;
pub mod team;
mod types;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, watch};

pub use files::ChatRunContext;
pub use types::{ChatMessage, ChatPage, ChatRole, RunEventRecord, RunStatus, RunSummary, SendOutcome};

use self::recorder::Recorder;
use self::setup::Plan;
use self::store::Conversation;
use crate::agents::{Agent, Agents, RuntimeKind};
use crate::context::files::FileSession;
use crate::error::{Error, Result};
use crate::events::{EngineEvent, EventBus};
use crate::runtimes::catalog::RuntimeCatalog;
use crate::runtimes::home::RuntimeHomes;
use crate::runtimes::{
    HistoryMode, PendingPermission, PersonaDelivery, RunChannels, RunEvent, RunResult, Runtime, RuntimeRegistry,
    TranscriptTurn, TurnInput,
};
use crate::store::Store;

/// The most messages one page of history may hold.
pub const MAX_PAGE: u32 = 500;

struct ActiveRun {
    /// Set once the run's row exists; empty while the slot is only reserved.
    run_id: String,
    /// Tells this run's entry from a later run's of the same agent.
    slot: u64,
    cancel: watch::Sender<bool>,
    done: watch::Receiver<bool>,
}

pub struct Chat {
    store: Arc<Store>,
    agents: Arc<Agents>,
    runtimes: RuntimeRegistry,
    catalog: Arc<RuntimeCatalog>,
    events: EventBus,
    handle: tokio::runtime::Handle,
    /// Runs in progress, by agent (one at a time per agent).
    active: Mutex<HashMap<String, ActiveRun>>,
    /// Agents being deleted: no new run may start. Locked only while `active` is held.
    closing: Mutex<HashSet<String>>,
    next_slot: std::sync::atomic::AtomicU64,
    /// Its run tokens end with the run.
    relay: Option<Arc<crate::relay::Relay>>,
    /// Teams, for team chat (see [`team`]).
    teams: Option<Arc<crate::teams::Teams>>,
    /// Clawboo's tools for team runs; a run's token ends with the run.
    tools: Option<Arc<crate::tools::Tools>>,
    /// Shared memory: what turns recall, and what the memory tools act on (without it they
    /// answer a tool error).
    memory: Option<Arc<crate::memory::Memory>>,
    /// The Board: a hand-off makes a card there, and the Board tools act on it (without it
    /// hand-offs make no card and the tools answer a tool error).
    board: Option<Arc<crate::board::Board>>,
    /// Where runs' permission questions and agents' questions for the user go (without it a
    /// permission question is denied: nobody could answer it).
    attention: Option<Arc<crate::attention::Attention>>,
    /// The user's connectors: each run gets those shared with its agent.
    connectors: Option<Arc<crate::connectors::Connectors>>,
    /// Team chat's queues, pending batches and live team runs.
    team: Mutex<team::TeamState>,
    /// Set when the app quits: runs stopped from then on were cut off by the quit, not stopped
    /// by the user.
    quitting: std::sync::atomic::AtomicBool,
}

impl Chat {
    pub fn new(
        store: Arc<Store>,
        agents: Arc<Agents>,
        runtimes: RuntimeRegistry,
        catalog: Arc<RuntimeCatalog>,
        events: EventBus,
        handle: tokio::runtime::Handle,
    ) -> Self {
        Self {
            store,
            agents,
            runtimes,
            catalog,
            events,
            handle,
            active: Mutex::new(HashMap::new()),
            closing: Mutex::default(),
            next_slot: Default::default(),
            relay: None,
            teams: None,
            tools: None,
            memory: None,
            board: None,
            attention: None,
            connectors: None,
            team: Mutex::default(),
            quitting: Default::default(),
        }
    }

    /// The user's connectors, given to the runs of the agents they are shared with.
    pub fn with_connectors(mut self, connectors: Arc<crate::connectors::Connectors>) -> Self {
        self.connectors = Some(connectors);
        self
    }

    /// The connectors a run of this agent gets, and warnings for those left out.
    pub(crate) fn run_connectors(&self, agent_id: &str) -> crate::connectors::RunConnectors {
        self.connectors.as_ref().map(|c| c.for_run(agent_id)).unwrap_or_default()
    }

    /// The context's connectors slot for this agent (turns the user reads).
    pub(crate) fn connectors_slot(&self, agent_id: &str) -> Option<crate::context::Connectors> {
        self.connectors.as_ref().and_then(|c| c.context_for(agent_id))
    }

    /// Permission questions and questions for the user become attention requests.
    pub fn with_attention(mut self, attention: Arc<crate::attention::Attention>) -> Self {
        self.attention = Some(attention);
        self
    }

    /// Team chat over these teams.
    pub fn with_teams(mut self, teams: Arc<crate::teams::Teams>) -> Self {
        self.teams = Some(teams);
        self
    }

    /// Revokes each run's relay tokens when the run ends.
    pub fn with_relay(mut self, relay: Arc<crate::relay::Relay>) -> Self {
        self.relay = Some(relay);
        self
    }

    /// Clawboo's tools bridge: runs get a grant from it and lose it when they end.
    pub fn with_tools(mut self, tools: Arc<crate::tools::Tools>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Shared memory, which the memory tools act on.
    pub fn with_memory(mut self, memory: Arc<crate::memory::Memory>) -> Self {
        self.memory = Some(memory);
        self
    }

    /// The Board, where hand-offs make cards and the Board tools act.
    pub fn with_board(mut self, board: Arc<crate::board::Board>) -> Self {
        self.board = Some(board);
        self
    }

    /// Marks runs that a previous process left `running` as cut off. Called once at start.
    pub fn recover_interrupted(&self) -> Result<usize> {
        let runs = self.store.write(|tx| store::mark_interrupted(tx, now_ms()))?.len();
        self.recover_team_work()?;
        Ok(runs)
    }

    /// Up to `limit` messages before `before_seq` (the newest when `None`), oldest first, with
    /// the runs they refer to and the run in progress. Indexed reads only: the cost of a page
    /// does not grow with the chat.
    pub fn history_page(&self, agent_id: &str, before_seq: Option<i64>, limit: u32) -> Result<ChatPage> {
        if limit == 0 || limit > MAX_PAGE {
            return Err(Error::InvalidInput(format!("A page holds 1 to {MAX_PAGE} messages, not {limit}.")));
        }
        self.agents.get(agent_id)?;
        self.store.read(|c| {
            let Some(conversation) = store::find_conversation(c, agent_id)? else {
                return Ok(ChatPage { messages: Vec::new(), has_older: false, runs: Vec::new(), active_run: None });
            };
            let (messages, has_older) = store::page(c, &conversation, before_seq, limit)?;
            let mut runs: Vec<RunSummary> = Vec::new();
            for run_id in messages.iter().filter_map(|m| m.run_id.as_deref()) {
                if !runs.iter().any(|r| r.id == run_id) {
                    runs.extend(store::run(c, run_id)?);
                }
            }
            let active_run = store::latest_run(c, &conversation.id)?.filter(|run| run.status == RunStatus::Running);
            Ok(ChatPage { messages, has_older, runs, active_run })
        })
    }

    pub fn run(&self, run_id: &str) -> Result<RunSummary> {
        self.store.read(|c| store::run(c, run_id))?.ok_or_else(|| Error::NotFound(format!("Run {run_id}")))
    }

    /// Exactly what a one-to-one run was given ("What this agent saw"): its instruction slot,
    /// the text in front of the message, and where each agent file went.
    pub fn chat_run_context(&self, run_id: &str) -> Result<ChatRunContext> {
        self.store
            .read(|c| files::context(c, run_id))?
            .ok_or_else(|| Error::NotFound(format!("What run {run_id} was given")))
    }

    /// How each of the agent's files reaches its runtime in a one-to-one chat, with its budget
    /// (the editor's meter).
    pub fn file_routes(&self, agent_id: &str) -> Result<Vec<crate::context::files::FileRouteInfo>> {
        let agent = self.agents.get(agent_id)?;
        let tools = self.direct_tools(&agent);
        Ok(files::AgentFilesForRun::routes(&agent, true, &tools))
    }

    pub fn run_activity(&self, run_id: &str) -> Result<Vec<RunEventRecord>> {
        self.store.read(|c| {
            store::run(c, run_id)?.ok_or_else(|| Error::NotFound(format!("Run {run_id}")))?;
            store::events(c, run_id)
        })
    }

    /// Sends the user's message. `/reset` and `/new` end the carried session instead.
    pub fn send(self: &Arc<Self>, agent_id: &str, text: &str) -> Result<SendOutcome> {
        let text = text.trim();
        if text.is_empty() {
            return Err(Error::InvalidInput("The message is empty.".into()));
        }
        let agent = self.agents.get(agent_id)?;
        if matches!(text, "/reset" | "/new") {
            return self.reset(&agent);
        }
        // Reserved before anything else, in the same lock as the check: of two quick sends,
        // exactly one gets the slot. Released on any early return.
        let (cancel, cancel_rx) = watch::channel(false);
        let (done_tx, done) = watch::channel(false);
        let reservation = self.reserve(&agent, ActiveRun { run_id: String::new(), slot: 0, cancel, done })?;
        let program = match agent.runtime {
            RuntimeKind::Native => None,
            kind => Some(self.catalog.locate(kind)?),
        };
        let runtime = self.runtimes.get(agent.runtime).ok_or_else(|| {
            Error::RuntimeNotFound(format!("No adapter for {} in this build.", agent.runtime.as_str()))
        })?;
        let capabilities = runtime.capabilities();
        let workspace = self.agents.workspaces().dir(&agent.id);
        let tools = self.direct_tools(&agent);
        let agent_files = files::AgentFilesForRun::read(&self.agents, &agent, true, &tools)?;
        // What the session starts with does not depend on the session: checked (budgets) before
        // anything is stored.
        let fingerprint = setup::files_fingerprint(&agent_files.plan(&FileSession::New)?);

        let now = now_ms();
        let (conversation, message, run, transcript, plan, first_turn, file_plan, system, slots) =
            self.store.write(|tx| {
                let conversation = store::conversation(tx, &agent.id, now)?;
                let resumable =
                    conversation.session_id.is_some() && conversation.session_runtime == Some(agent.runtime);
                let plan = setup::plan(
                    capabilities.setup_change,
                    resumable,
                    conversation.session_setup.as_deref(),
                    &fingerprint,
                );
                let carried = match (capabilities.history, &plan) {
                    (HistoryMode::ClawbooTranscript, _) | (_, Plan::Fresh { .. }) => {
                        store::transcript(tx, &conversation)?
                    }
                    (HistoryMode::RuntimeSession, _) => Vec::new(),
                };
                // The session this turn continues, and what it holds of the agent's files.
                let resumed = conversation.session_id.as_deref().filter(|_| plan == Plan::Resume);
                let file_session = files::turn_session(tx, &conversation, capabilities.history, resumed, &carried)?;
                let transcript: Vec<(String, String)> = carried.into_iter().map(|t| (t.user, t.assistant)).collect();
                let file_plan = agent_files.plan(&file_session)?;
                // The instruction slot: the persona and instructions where Clawboo sends them; Native
                // builds its system prompt from the setup; OpenClaw reads the persona files itself and
                // gets the instructions once per session, in front of the message (counted there).
                let system = match capabilities.persona {
                    PersonaDelivery::SentByClawboo => {
                        files::join_nonempty(&[&file_plan.persona, &file_plan.instructions])
                    }
                    PersonaDelivery::OwnSetup => None,
                };
                let in_front = files::join_nonempty(&[
                    if system.is_none() { &file_plan.instructions } else { "" },
                    &file_plan.references,
                ]);
                let slots = files::slots(&file_plan, system.as_deref(), in_front.as_deref(), text)?;
                let first_turn = !store::has_reply(tx, &conversation)?;
                let run = store::insert_run(tx, &conversation, agent.runtime, now)?;
                let message = store::add_message(
                    tx,
                    &conversation,
                    ChatRole::User,
                    text,
                    Some(&run.id),
                    conversation.epoch,
                    now,
                )?;
                if capabilities.history == HistoryMode::ClawbooTranscript && !file_plan.references.is_empty() {
                    store::set_carried(tx, &message.id, &file_plan.references)?;
                }
                Ok((conversation, message, run, transcript, plan, first_turn, file_plan, system, slots))
            })?;
        let (transcript, carried) = match plan {
            Plan::Fresh { .. } => setup::carry_forward(transcript, setup::CARRY_BUDGET_CHARS),
            _ => (transcript.into_iter().map(|(user, assistant)| TranscriptTurn { user, assistant }).collect(), (0, 0)),
        };
        let setup_notice = setup::notice(crate::runtimes::detect::label(agent.runtime), &plan, carried);

        let resume_session =
            conversation.session_id.clone().filter(|_| matches!(plan, Plan::Resume | Plan::Fork { .. }));
        let own_session_new = capabilities.persona == PersonaDelivery::OwnSetup
            && capabilities.history == HistoryMode::RuntimeSession
            && resume_session.is_none();
        let own_session_instructions = if own_session_new { file_plan.instructions.as_str() } else { "" };
        let recalled = self.recall(&recall::RecallRequest {
            agent_id: &agent.id,
            conversation_id: &conversation.id,
            epoch: conversation.epoch,
            team_id: None,
            with_notes: first_turn,
            request_only: capabilities.history == HistoryMode::ClawbooTranscript,
            new_session: resume_session.is_none(),
        });
        let (recalled, recall_failed) = match recalled {
            Ok(recalled) => (recalled, None),
            Err(e) => (None, Some(format!("Saved and scratch notes could not be read, so none were sent: {e}"))),
        };
        // Boo Zero's rules and the teams this message names: request-only, never carried.
        let (boo_zero, boo_zero_failed) = match self.boo_zero_context(&agent.id, text) {
            Ok(context) => (context, None),
            Err(e) => {
                (None, Some(format!("Boo Zero's rules and team context could not be read, so none were sent: {e}")))
            }
        };
        let preamble = files::join_nonempty(&[
            own_session_instructions,
            &file_plan.references,
            recalled.as_ref().map_or("", |r| r.text.as_str()),
            boo_zero.as_ref().map_or("", |b| b.text.as_str()),
        ]);
        self.store.write(|tx| {
            if let Some(recalled) = &recalled {
                Self::record_recall(tx, &conversation.id, conversation.epoch, recalled, now)?;
            }
            files::insert_context(
                tx,
                &files::ChatRunContext {
                    run_id: run.id.clone(),
                    system_text: slots.shown_system,
                    preamble: preamble.clone(),
                    files: file_plan.files.clone(),
                    sections: boo_zero.as_ref().map(|b| b.sections.clone()).unwrap_or_default(),
                    created_at: now,
                },
            )
        })?;
        let pending = files::PendingDeliveries::new(capabilities.history, conversation.epoch, &file_plan);
        let connectors = self.run_connectors(&agent.id);
        let grant =
            self.grant_direct_tools(&agent, tools, !connectors.connectors.is_empty(), &conversation.id, &run.id);
        let input = TurnInput {
            connectors: connectors.connectors,
            run_id: run.id.clone(),
            homes: RuntimeHomes::for_agent_dir(&workspace),
            workspace,
            message: text.to_owned(),
            setup: slots.setup,
            persona: system,
            resume_session,
            fork_session: matches!(plan, Plan::Fork { .. }),
            preamble,
            tools: grant,
            transcript,
            approval: agent.approval_policy,
            program,
            agent: agent.clone(),
        };

        // After the commit above, so whoever hears of them can read them back; before the run
        // starts, so its end is never heard before its start.
        self.events.publish(EngineEvent::ChatMessageAdded { agent_id: agent.id.clone(), message: message.clone() });
        self.events.publish(EngineEvent::RunChanged { agent_id: agent.id.clone(), run: run.clone() });

        let slot = reservation.started(&run.id);
        let chat = Arc::clone(self);
        let summary = run.clone();
        self.handle.spawn(async move {
            let mut recorder = Recorder::new(chat.store.clone(), chat.events.clone(), &summary);
            for message in
                setup_notice.into_iter().chain(recall_failed).chain(boo_zero_failed).chain(connectors.warnings)
            {
                recorder.record(RunEvent::Warning { message });
            }
            if let Some(recalled) = recalled.filter(|r| !r.text.is_empty()) {
                recorder.record(RunEvent::ContextAdded { summary: recalled.summary, text: recalled.text });
            }
            if let Some(boo_zero) = boo_zero {
                recorder.record(RunEvent::ContextAdded { summary: boo_zero.summary, text: boo_zero.text });
            }
            let source = crate::attention::Source {
                agent_id: agent.id.clone(),
                run_id: Some(summary.id.clone()),
                ..Default::default()
            };
            let result = chat.drive(&conversation, input, runtime, cancel_rx, &source, &mut recorder).await;
            if let Some(relay) = &chat.relay {
                relay.revoke(&summary.id);
            }
            if let Some(tools) = &chat.tools {
                tools.revoke(&summary.id);
            }
            let session_setup = SessionEnd { fingerprint, pending };
            // The end is stored and the slot freed together, before anyone hears the run ended:
            // a send made on that news, or on the stored status, finds the agent free.
            let stored = chat.commit_and_release(&agent.id, slot, || {
                chat.finish(&agent, &conversation, &session_setup, &summary, result, recorder)
            });
            let _ = done_tx.send(true);
            chat.publish_stored(&agent.id, stored);
            // Team work that waited for this agent starts now.
            let worker = Arc::clone(&chat);
            let _ = tokio::task::spawn_blocking(move || worker.pump(&agent.id)).await;
        });
        Ok(SendOutcome { message, run: Some(run) })
    }

    pub fn cancel(&self, run_id: &str) -> Result<()> {
        let active = self.lock_active();
        let run = active
            .values()
            .find(|r| r.run_id == run_id)
            .ok_or_else(|| Error::RunNotActive("That run has already finished.".into()))?;
        let _ = run.cancel.send(true);
        Ok(())
    }

    /// Whether any chat run (one-to-one or team) is going, or team work waits to start.
    pub fn has_work(&self) -> bool {
        !self.lock_active().is_empty() || team::has_queued(self)
    }

    /// A run's permission question becomes an approval for the user (or is let through by an
    /// "Allow always"); without attention, or when it cannot be stored, it is denied.
    fn ask_permission(&self, source: &crate::attention::Source, pending: PendingPermission, recorder: &mut Recorder) {
        let Some(attention) = &self.attention else { return }; // dropping the reply denies
        if let Err(e) = attention.ask_permission(source, pending) {
            recorder.record(RunEvent::Warning {
                message: format!("The permission question could not be kept, so it was denied: {e}"),
            });
        }
    }

    /// The run of `source` ended: approvals it waited on are withdrawn.
    fn run_ended(&self, source: &crate::attention::Source) {
        if let (Some(attention), Some(run_id)) = (&self.attention, &source.run_id) {
            let _ = attention.run_ended(run_id);
        }
    }

    async fn drive(
        &self,
        conversation: &Conversation,
        input: TurnInput,
        runtime: Arc<dyn Runtime>,
        cancel: watch::Receiver<bool>,
        source: &crate::attention::Source,
        recorder: &mut Recorder,
    ) -> RunResult {
        let resumed = input.resume_session.is_some();
        let result = self.run_once(input.clone(), runtime.as_ref(), cancel.clone(), source, recorder).await;
        if resumed && result.session_missing {
            recorder.record(RunEvent::Warning {
                message: "The runtime no longer had the earlier session; starting a fresh one.".into(),
            });
            let _ = self.store.write(|tx| store::set_session(tx, &conversation.id, None));
            let fresh = TurnInput { resume_session: None, fork_session: false, ..input };
            let result = self.run_once(fresh, runtime.as_ref(), cancel, source, recorder).await;
            self.run_ended(source);
            return result;
        }
        self.run_ended(source);
        result
    }

    async fn run_once(
        &self,
        input: TurnInput,
        runtime: &dyn Runtime,
        cancel: watch::Receiver<bool>,
        source: &crate::attention::Source,
        recorder: &mut Recorder,
    ) -> RunResult {
        let (events_tx, mut events) = mpsc::unbounded_channel();
        let (permissions_tx, mut permissions) = mpsc::unbounded_channel();
        let channels = RunChannels { events: events_tx, permissions: permissions_tx, cancel };
        let running = runtime.run(input, channels);
        tokio::pin!(running);
        let mut flush = tokio::time::interval(Duration::from_millis(50));
        let outcome = loop {
            tokio::select! {
                biased;
                Some(event) = events.recv() => recorder.record(event),
                Some(pending) = permissions.recv() => self.ask_permission(source, pending, recorder),
                result = &mut running => break result,
                _ = flush.tick() => recorder.flush(),
            }
        };
        while let Ok(event) = events.try_recv() {
            recorder.record(event);
        }
        outcome.unwrap_or_else(|e| RunResult::failed(e.to_string()))
    }

    fn finish(
        &self,
        agent: &Agent,
        conversation: &Conversation,
        setup: &SessionEnd,
        run: &RunSummary,
        result: RunResult,
        mut recorder: Recorder,
    ) -> Stored {
        recorder.record(result.to_event());
        recorder.flush();
        let status = RunStatus::of(result.outcome);
        let reply = recorder.reply();
        let session = recorder.session_id().map(str::to_owned);
        let now = now_ms();
        let stored = self.store.write(|tx| {
            store::finish_run(tx, &run.id, status, result.message.as_deref(), now)?;
            if let Some(session) = &session {
                store::set_session(tx, &conversation.id, Some((session, agent.runtime, &setup.fingerprint)))?;
            }
            if status == RunStatus::Succeeded {
                setup.pending.record(tx, &conversation.id, session.as_deref(), &run.id, now)?;
            }
            let reply = if reply.trim().is_empty() {
                None
            } else {
                // Re-read the epoch: a /reset during the run must not pull this reply back in.
                let epoch = store::find_conversation(tx, &agent.id)?.map_or(conversation.epoch, |c| c.epoch);
                Some(store::add_message(
                    tx,
                    conversation,
                    ChatRole::Assistant,
                    reply.trim(),
                    Some(&run.id),
                    epoch,
                    now,
                )?)
            };
            Ok(Stored { reply, run: store::run(tx, &run.id)? })
        });
        stored.unwrap_or_else(|e| {
            tracing::error!(run_id = %run.id, error = %e, "could not store the end of a run");
            Stored { reply: None, run: None }
        })
    }

    /// Tells listeners what `finish` committed: the reply first, then the run's end, so a
    /// listener never sees a run over with its reply still missing.
    fn publish_stored(&self, agent_id: &str, stored: Stored) {
        if let Some(message) = stored.reply {
            self.events.publish(EngineEvent::ChatMessageAdded { agent_id: agent_id.to_owned(), message });
        }
        if let Some(run) = stored.run {
            self.events.publish(EngineEvent::RunChanged { agent_id: agent_id.to_owned(), run });
        }
    }

    fn reset(&self, agent: &Agent) -> Result<SendOutcome> {
        let now = now_ms();
        let message = self.store.write(|tx| {
            let conversation = store::conversation(tx, &agent.id, now)?;
            let epoch = store::reset(tx, &conversation.id)?;
            store::add_message(
                tx,
                &conversation,
                ChatRole::Notice,
                "Conversation reset: the agent starts fresh from the next message. Earlier messages stay here.",
                None,
                epoch,
                now,
            )
        })?;
        self.events.publish(EngineEvent::ChatMessageAdded { agent_id: agent.id.clone(), message: message.clone() });
        Ok(SendOutcome { message, run: None })
    }
}

/// What the end of a run committed, to publish once the run's slot is free.
struct Stored {
    reply: Option<ChatMessage>,
    run: Option<RunSummary>,
}

/// What a one-to-one run's session is left holding once it ends: the setup it started with, and
/// the workspace-file references it delivered (kept if the run completes).
struct SessionEnd {
    fingerprint: String,
    pending: files::PendingDeliveries,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub use crate::vocab::clock::now_ms;
