//! A one-to-one turn: the user's message and the run's row stored with what the run is given
//! (a [`PreparedTurn`]), the run driven by the run layer, and its end stored — the reply, the
//! session it leaves — before anyone hears of it.

use std::sync::Arc;

use super::files::{self, Slots};
use super::recall::{self, Recall};
use super::setup::{self, Plan};
use super::store::{self, Conversation};
use super::{now_ms, Chat, ChatMessage, ChatRole, RunStatus, RunSummary, SendOutcome};
use crate::agents::Agent;
use crate::error::{Error, Result};
use crate::events::EngineEvent;
use crate::run::prepare::carried::CarriedTurns;
use crate::run::prepare::{
    AgentRuntime, PreparedRun, RunFolder, RunKind, RunRequest, RunRole, SessionAsk, TurnSession,
};
use crate::run::{Policies, Recorder, Slot, Turn};
use crate::runtimes::{
    Capabilities, HistoryMode, PersonaDelivery, RunEvent, RunResult, Runtime, SetupChange, TurnHistory, TurnInput,
};

/// What starting a one-to-one turn wrote, in one transaction, and what it decided there.
struct PreparedTurn {
    /// How the session goes on (resumed, forked, fresh with carried turns, new), in which
    /// conversation, with the agent's files placed for it.
    session: TurnSession,
    /// The user's message, stored.
    message: ChatMessage,
    run: RunSummary,
    /// No reply in this conversation yet: saved notes are recalled with this turn.
    first_turn: bool,
    /// The messages a retry or an edit replaced (empty for a plain send).
    superseded: Vec<String>,
    /// The runtime's instruction slot, when Clawboo fills it.
    system: Option<String>,
    slots: Slots,
}

/// What the run is given in front of the message for this request only (never carried), and the
/// warnings for what could not be read.
struct RequestContext {
    recalled: Option<Recall>,
    recall_failed: Option<String>,
    boo_zero: Option<crate::context::boo_zero::BooZeroContext>,
    boo_zero_failed: Option<String>,
}

/// A one-to-one run ready to drive.
struct DirectRun {
    agent: Agent,
    conversation: Conversation,
    run: RunSummary,
    input: TurnInput,
    runtime: Arc<dyn Runtime>,
    slot: Slot,
    /// What the run's Activity opens with (warnings, then the context added).
    opening: Vec<RunEvent>,
    session_end: SessionEnd,
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

impl Chat {
    /// Sends the user's message to the agent's most recently used chat (see [`Self::send_in`]).
    pub fn send(self: &Arc<Self>, agent_id: &str, text: &str) -> Result<SendOutcome> {
        self.send_in(agent_id, None, text)
    }

    /// Sends the user's message in one of the agent's chats (`None`: its most recently used one,
    /// made if it has none). `/reset` ends that chat's carried session instead; `/new` starts a
    /// new chat, with its own runtime session.
    pub fn send_in(self: &Arc<Self>, agent_id: &str, chat_id: Option<&str>, text: &str) -> Result<SendOutcome> {
        let text = text.trim();
        if text.is_empty() {
            return Err(Error::InvalidInput("The message is empty.".into()));
        }
        let agent = self.agents.get(agent_id)?;
        if let Some(chat_id) = chat_id {
            // Checked before anything is reserved: a message never lands in another agent's chat.
            self.store.read(|c| store::chat(c, &agent.id, chat_id))?;
        }
        match text {
            "/reset" => return self.reset(&agent, chat_id),
            "/new" => return self.start_new_chat(&agent),
            _ => {}
        }
        self.start_turn(agent, chat_id, text, None)
    }

    /// Starts a run of `text` in the chat `chat_id` (`None`: the agent's most recently used).
    /// `replacing`: the user's last message, which this turn replaces with everything after it
    /// (a retry or an edit; see `actions.rs`).
    pub(super) fn start_turn(
        self: &Arc<Self>,
        agent: Agent,
        chat_id: Option<&str>,
        text: &str,
        replacing: Option<&str>,
    ) -> Result<SendOutcome> {
        // A paused agent or a spent budget refuses the run before anything is stored.
        self.check_guard(&crate::guard::RunScope::agent(&agent.id))?;
        // An agent that cannot run now (its CLI missing, its Gateway lost) says so before its
        // slot is asked for: a run cut off by a lost Gateway may hold the slot a moment longer
        // while its runtime tears down, and "still answering" would hide the real reason.
        let runtime = self.preparer().runtime(&agent)?;
        // Reserved before anything is stored, in the same lock as the check: of two quick sends,
        // exactly one gets the slot. Released on any early return.
        let reservation = self.slots.reserve(&agent)?;
        let request = RunRequest {
            kind: RunKind::Message,
            agent,
            folder: RunFolder::AgentWorkspace,
            role: RunRole::Solo,
            heartbeat: false,
        };
        // What the session starts with does not depend on the session: checked (budgets) before
        // anything is stored.
        let prepared = self.preparer().prepare_on(request, runtime)?;
        let fingerprint = setup::files_fingerprint(&prepared.new_session_files);
        let now = now_ms();
        let turn = self.store.write(|tx| {
            let conversation = match chat_id {
                Some(chat_id) => store::chat(tx, &prepared.agent.id, chat_id)?,
                None => store::current_chat(tx, &prepared.agent.id, now)?,
            };
            let continuing = Continuing { fingerprint: &fingerprint, carried: &self.carried };
            prepare_turn(tx, conversation, &prepared, &continuing, text, replacing, now)
        })?;
        let PreparedTurn { mut session, message, run, first_turn, superseded, system, slots } = turn;
        let (agent, capabilities) = (&prepared.agent, &prepared.runtime.capabilities);
        let (transcript, carried) = session.take_transcript();
        let label = crate::runtimes::detect::label(agent.runtime);
        let runtime_session = capabilities.history == HistoryMode::RuntimeSession;
        let setup_notice = match replacing {
            Some(_) => setup::replaced_notice(label, runtime_session, carried),
            None => setup::notice(label, &session.plan, carried),
        };
        // A fresh session after a retry or an edit: a runtime that takes carried turns of its own
        // (Codex) gets them as turns; the others get them as text in front of the message.
        let carries_as_text =
            replacing.is_some() && runtime_session && capabilities.setup_change != SetupChange::FreshSession;
        let carried_text = if carries_as_text { setup::carried_text(&transcript) } else { String::new() };

        let resume_session = session.resume_session();
        let own_session_new = capabilities.persona == PersonaDelivery::OwnSetup
            && capabilities.history == HistoryMode::RuntimeSession
            && resume_session.is_none();
        let file_plan = &session.file_plan;
        let own_session_instructions = if own_session_new { file_plan.instructions.as_str() } else { "" };
        let conversation = &session.conversation;
        let request = self.request_context(agent, conversation, capabilities, text, first_turn, &resume_session);
        let preamble = files::join_nonempty(&[
            own_session_instructions,
            &carried_text,
            &file_plan.references,
            request.recalled.as_ref().map_or("", |r| r.text.as_str()),
            request.boo_zero.as_ref().map_or("", |b| b.text.as_str()),
        ]);
        self.store.write(|tx| {
            let sections = request.boo_zero.as_ref().map(|b| b.sections.clone()).unwrap_or_default();
            let context = files::ChatRunContext {
                run_id: run.id.clone(),
                system_text: slots.shown_system,
                preamble: preamble.clone(),
                files: file_plan.files.clone(),
                sections,
                created_at: now,
            };
            files::insert_context(tx, &context)
        })?;
        let pending = files::PendingDeliveries::new(capabilities.history, conversation.epoch, file_plan)
            .with_scratch(request.recalled.as_ref().and_then(|r| r.delivered_scratch()));
        let connectors = self.run_connectors(&agent.id);
        let grant = prepared.grant(&run.id, &conversation.id, !connectors.connectors.is_empty());
        let input = TurnInput {
            connectors: connectors.connectors,
            setup: slots.setup,
            persona: system,
            resume_session,
            fork_session: matches!(session.plan, Plan::Fork { .. }),
            preamble,
            tools: grant,
            transcript,
            ..prepared.input(&run.id, text.to_owned())
        };
        let opening = opening_events(setup_notice, request, connectors.warnings);
        // After the commit above, so whoever hears of them can read them back; before the run
        // starts, so its end is never heard before its start.
        self.publish_turn_start(&agent.id, &conversation.id, &message, &run, superseded);

        let slot = reservation.started(&run.id);
        let session_end = SessionEnd { fingerprint, pending };
        let PreparedRun { agent, runtime: AgentRuntime { runtime, .. }, .. } = prepared;
        let conversation = session.conversation;
        let direct = DirectRun { agent, conversation, run: run.clone(), input, runtime, slot, opening, session_end };
        self.handle.spawn(Arc::clone(self).run_direct(direct));
        Ok(SendOutcome { message, run: Some(run) })
    }

    /// A turn's start, heard: the messages it replaced, the user's message, its run.
    fn publish_turn_start(
        &self,
        agent_id: &str,
        chat_id: &str,
        message: &ChatMessage,
        run: &RunSummary,
        superseded: Vec<String>,
    ) {
        let agent_id = agent_id.to_owned();
        if !superseded.is_empty() {
            self.events
                .publish(EngineEvent::ChatMessagesSuperseded { agent_id: agent_id.clone(), message_ids: superseded });
        }
        self.events.publish(EngineEvent::ChatMessageAdded { agent_id: agent_id.clone(), message: message.clone() });
        self.events.publish(EngineEvent::RunChanged { agent_id, chat_id: chat_id.to_owned(), run: run.clone() });
    }

    /// The scratch and saved notes recalled, and Boo Zero's rules and the teams this message
    /// names: request-only, never carried.
    fn request_context(
        &self,
        agent: &Agent,
        conversation: &Conversation,
        capabilities: &Capabilities,
        text: &str,
        first_turn: bool,
        resume_session: &Option<String>,
    ) -> RequestContext {
        let recalled = self.recall(&recall::RecallRequest {
            agent_id: &agent.id,
            conversation_id: &conversation.id,
            team_id: None,
            with_notes: first_turn,
            request_only: capabilities.history == HistoryMode::ClawbooTranscript,
            resumed: resume_session.as_deref(),
        });
        let (recalled, recall_failed) = match recalled {
            Ok(recalled) => (recalled, None),
            Err(e) => (None, Some(format!("Saved and scratch notes could not be read, so none were sent: {e}"))),
        };
        let (boo_zero, boo_zero_failed) = match self.boo_zero_context(&agent.id, text) {
            Ok(context) => (context, None),
            Err(e) => {
                (None, Some(format!("Boo Zero's rules and team context could not be read, so none were sent: {e}")))
            }
        };
        RequestContext { recalled, recall_failed, boo_zero, boo_zero_failed }
    }

    /// The run from its start to its end: its opening events, the runtime driven, its grants
    /// given back, its end stored with the slot freed, then published.
    async fn run_direct(self: Arc<Self>, direct: DirectRun) {
        let DirectRun { agent, conversation, run, input, runtime, slot, opening, session_end } = direct;
        let mut recorder = Recorder::new(self.store.clone(), self.events.clone(), &run);
        for event in opening {
            recorder.record(event);
        }
        let source =
            crate::attention::Source { agent_id: agent.id.clone(), run_id: Some(run.id.clone()), ..Default::default() };
        let services = self.run_services();
        let turn = Turn {
            runtime: runtime.as_ref(),
            input,
            cancel: slot.cancel.clone(),
            source: &source,
            policies: Policies::CHAT,
        };
        let forget_session = || {
            let _ = self.store.write(|tx| store::set_session(tx, &conversation.id, None));
        };
        let driven = crate::run::drive(turn, &services, &mut recorder, forget_session).await;
        services.end_grants(&run.id);
        // The end is stored and the slot freed together, before anyone hears the run ended:
        // a send made on that news, or on the stored status, finds the agent free.
        let stored =
            self.slots.end(slot, || self.finish(&agent, &conversation, &session_end, &run, driven.result, recorder));
        self.publish_stored(&agent.id, &conversation.id, stored);
        // Team work that waited for this agent starts now.
        let worker = Arc::clone(&self);
        let _ = tokio::task::spawn_blocking(move || worker.pump(&agent.id)).await;
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
        recorder.finish(&result);
        let status = RunStatus::of(result.outcome);
        let reply = recorder.reply();
        let session = recorder.session_id().map(str::to_owned);
        let now = now_ms();
        let stored = self.store.write(|tx| {
            store::finish_run(tx, &run.id, status, result.message.as_deref(), now)?;
            if let Some(session) = &session {
                store::set_session(tx, &conversation.id, Some((session, agent.runtime, &setup.fingerprint)))?;
            }
            if result.compacted {
                files::forget_deliveries(tx, &conversation.id)?;
            } else if status == RunStatus::Succeeded {
                setup.pending.record(tx, &conversation.id, session.as_deref(), &run.id, now)?;
            }
            let reply = if reply.trim().is_empty() {
                None
            } else {
                // Re-read the epoch: a /reset during the run must not pull this reply back in.
                let epoch = store::epoch(tx, &conversation.id)?.unwrap_or(conversation.epoch);
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
    fn publish_stored(&self, agent_id: &str, chat_id: &str, stored: Stored) {
        if let Some(message) = stored.reply {
            self.events.publish(EngineEvent::ChatMessageAdded { agent_id: agent_id.to_owned(), message });
        }
        if let Some(run) = stored.run {
            self.events.publish(EngineEvent::RunChanged {
                agent_id: agent_id.to_owned(),
                chat_id: chat_id.to_owned(),
                run,
            });
        }
    }
}

/// How a one-to-one turn continues its chat: the setup's fingerprint now, and the chat's turns
/// read before (a turn reads only what is new since).
struct Continuing<'a> {
    fingerprint: &'a str,
    carried: &'a CarriedTurns,
}

/// What a one-to-one run's Activity opens with: its warnings (the session's notice, what could
/// not be read), then the context added for this request.
fn opening_events(setup_notice: Option<String>, request: RequestContext, connectors: Vec<String>) -> Vec<RunEvent> {
    let warnings = setup_notice
        .into_iter()
        .chain(request.recall_failed)
        .chain(request.boo_zero_failed)
        .chain(connectors)
        .map(|message| RunEvent::Warning { message });
    let added = request.recalled.filter(|r| !r.text.is_empty()).map(|r| (r.summary, r.text));
    let added = added.into_iter().chain(request.boo_zero.map(|b| (b.summary, b.text)));
    warnings.chain(added.map(|(summary, text)| RunEvent::ContextAdded { summary, text })).collect()
}

/// Stores the user's message and the run's row, and decides how the session goes on and where
/// the agent's files go (the budgets were checked before). `replacing`: the user's last message,
/// superseded here with everything after it; the runtime session that held them is forgotten,
/// so the turn starts a fresh one carrying the conversation without them.
fn prepare_turn(
    tx: &rusqlite::Transaction,
    mut conversation: Conversation,
    prepared: &PreparedRun,
    continuing: &Continuing<'_>,
    text: &str,
    replacing: Option<&str>,
    now: i64,
) -> Result<PreparedTurn> {
    let (agent, capabilities) = (&prepared.agent, &prepared.runtime.capabilities);
    let mut superseded = Vec::new();
    if let Some(message_id) = replacing {
        let last = store::last_user_message(tx, &conversation)?.filter(|m| m.id == message_id).ok_or_else(|| {
            Error::Conflict("Only your last message can be retried or edited, and this one no longer is.".into())
        })?;
        superseded = store::supersede_from(tx, &conversation.id, last.seq, now)?;
        // What was kept of the conversation held the replaced messages.
        continuing.carried.forget(&conversation.id);
        store::set_session(tx, &conversation.id, None)?;
        conversation.session_id = None;
        conversation.session_runtime = None;
        conversation.session_setup = None;
    }
    let ask = SessionAsk {
        history: TurnHistory::ContinueRoom,
        fingerprint: continuing.fingerprint,
        replaced: replacing.is_some(),
        carried: Some(continuing.carried),
    };
    let session = prepared.session(tx, conversation, ask)?;
    let (conversation, file_plan) = (&session.conversation, &session.file_plan);
    // The instruction slot: the persona and instructions where Clawboo sends them; Native
    // builds its system prompt from the setup; OpenClaw reads the persona files itself and
    // gets the instructions once per session, in front of the message (counted there).
    let system = match capabilities.persona {
        PersonaDelivery::SentByClawboo => files::join_nonempty(&[&file_plan.persona, &file_plan.instructions]),
        PersonaDelivery::OwnSetup => None,
    };
    let in_front =
        files::join_nonempty(&[if system.is_none() { &file_plan.instructions } else { "" }, &file_plan.references]);
    let slots = files::slots(agent.runtime, file_plan, system.as_deref(), in_front.as_deref(), text)?;
    let first_turn = !store::has_reply(tx, conversation)?;
    let run = store::insert_run(tx, conversation, agent.runtime, now)?;
    let message = store::add_message(tx, conversation, ChatRole::User, text, Some(&run.id), conversation.epoch, now)?;
    if capabilities.history == HistoryMode::ClawbooTranscript && !file_plan.references.is_empty() {
        store::set_carried(tx, &message.id, &file_plan.references)?;
    }
    Ok(PreparedTurn { session, message, run, first_turn, superseded, system, slots })
}
