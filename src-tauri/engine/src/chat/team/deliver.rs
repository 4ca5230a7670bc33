//! Starting a delivery as a run (its context assembled, placed for its runtime and stored), and
//! what happens when the run ends: the reply in the room, the result of a hand-off back to the
//! agent that made it (batched), hand-offs written as `@handle` in the reply.

use std::path::PathBuf;
use std::sync::Arc;

use super::placement::{self, Placed};
use super::store::{self as team_store, NewHandoff, NewRoomMessage};
use super::types::{Placement, RoomMessageKind, RunContext, TeamTurnKind};
use super::{mentions, Deliver, Delivery, LiveTeamRun, MAX_CHAIN_DEPTH, MAX_HANDOFFS_PER_TURN};
use crate::agents::{Agent, RuntimeKind};
use crate::chat::files::{self, AgentFilesForRun};
use crate::chat::recall::RecallRequest;
use crate::chat::setup::{self, Plan};
use crate::chat::store::{self as chat_store, Conversation};
use crate::chat::{lock, Chat, ChatRole, RunStatus, RunSummary};
use crate::context::files::{FilePlan, FileSession};
use crate::context::{self, Assembled, Member, TaskResult, ToolName, TurnKind, TurnMessage, WaitingItem};
use crate::error::{Error, Result};
use crate::events::EngineEvent;
use crate::run::{Policies, Recorder, Reservation, Slot, Turn};
use crate::runtimes::home::RuntimeHomes;
use crate::runtimes::{
    Capabilities, HistoryMode, RunEvent, RunResult, Runtime, TranscriptTurn, TurnHistory, TurnInput,
};
use crate::teams::{Room, Team};
use crate::vocab::clock::now_ms;

/// A task text or hand-off longer than this is refused (the model sees why).
pub const MAX_TASK_CHARS: usize = 16_000;

/// What a delivery gives its agent to do (see [`Chat::delivery_message`]).
struct DeliveryMessage {
    kind: TurnKind,
    message: TurnMessage,
    /// How deep in a hand-off chain the turn is.
    depth: u32,
    /// The hand-off this turn carries out, and who made it.
    handoff_id: Option<String>,
    from_agent_id: Option<String>,
    /// The hand-offs whose results this turn delivers.
    result_ids: Vec<String>,
    routine: Option<crate::vocab::routine::RoutineTag>,
}

/// What starting a team run wrote, in one transaction (see [`Chat::start_delivery`]).
struct RecordedTurn {
    conversation: Conversation,
    run: RunSummary,
    transcript: Vec<(String, String)>,
    plan: Plan,
    placed: Placed,
    /// The hand-off card now showing this run, and the room's batch card of results.
    changed_card: Option<crate::vocab::RoomMessage>,
    batch_card: Option<crate::vocab::RoomMessage>,
    recalled: Option<crate::chat::recall::Recall>,
    recall_failed: Option<String>,
    file_plan: FilePlan,
    /// The steady sections' fingerprint, stored with the session the run leaves.
    fingerprint: String,
    message_text: String,
}

/// What a prepared team run needs to be driven (see [`Chat::drive_team_run`]).
struct Launch {
    input: TurnInput,
    runtime: Arc<dyn crate::runtimes::Runtime>,
    /// The agent's run slot, released at the end.
    slot: Slot,
    /// How deep in a hand-off chain the turn is.
    depth: u32,
    /// Warnings the run's Activity opens with (a new session, scratch notes, connectors).
    notices: Vec<String>,
    recalled: Option<crate::chat::recall::Recall>,
}

/// Everything fixed when a team run starts, kept for its end.
struct Started {
    delivery: Delivery,
    agent: Agent,
    conversation: Conversation,
    history: TurnHistory,
    fingerprint: String,
    /// The workspace-file references this run delivers, recorded if it completes.
    pending: files::PendingDeliveries,
    run: RunSummary,
    handoff_id: Option<String>,
    /// The handle of whoever handed this task out (its reply must not hand work back to them).
    from_agent_id: Option<String>,
}

/// Everything a delivery's turn is built from, read when its run starts (see
/// [`Chat::team_turn_parts`]).
struct TeamTurnParts {
    team: Team,
    room: Room,
    agent: Agent,
    what: DeliveryMessage,
    routine_note: Option<context::RoutineNote>,
    runtime: Arc<dyn Runtime>,
    capabilities: Capabilities,
    program: Option<PathBuf>,
    history: TurnHistory,
    placement: Placement,
    /// The waiting inbox items and unseen peer posts, by id, and as the context shows them.
    inbox_ids: Vec<String>,
    post_ids: Vec<String>,
    waiting: Vec<WaitingItem>,
    peer_posts: Vec<context::PeerPost>,
    tools: Vec<ToolName>,
    agent_files: AgentFilesForRun,
    members: Vec<Member>,
    rules: Vec<String>,
    connectors_slot: Option<context::Connectors>,
}

impl TeamTurnParts {
    /// The turn's context with the agent's files placed as `files` says. Pure.
    fn assemble(&self, files: &FilePlan) -> Assembled {
        let (team, room, agent) = (&self.team, &self.room, &self.agent);
        context::team_turn(&context::TeamTurn {
            runtime: agent.runtime,
            files,
            rules: &self.rules,
            about_you: &team.about_you,
            team_name: &team.name,
            room_name: if room.is_general { "General" } else { &room.name },
            is_general: room.is_general,
            me: &agent.handle,
            members: &self.members,
            kind: self.what.kind.clone(),
            tools: &self.tools,
            routine: self.routine_note.as_ref(),
            connectors: self.connectors_slot.as_ref(),
            waiting: &self.waiting,
            peer_posts: &self.peer_posts,
            message: &self.what.message,
        })
    }

    /// The turn's context, assembled once, as a new session would get it: its steady sections'
    /// fingerprint decides how the session goes on; what it delivers does not depend on the
    /// session (see [`context::team_turn_with_files`]).
    fn assemble_turn(&self) -> Result<AssembledTurn> {
        // What a session starts with does not depend on the session: its budgets are checked
        // here, and the steady sections are fingerprinted from it.
        let new_session_files = self.agent_files.plan(&FileSession::New)?;
        let assembled = self.assemble(&new_session_files);
        let fingerprint = placement::fingerprint(&assembled, &new_session_files);
        let delivered = |ids: &[String]| -> Vec<String> {
            ids.iter().filter(|id| assembled.delivered.contains(id)).cloned().collect()
        };
        let (delivered_inbox, delivered_posts) = (delivered(&self.inbox_ids), delivered(&self.post_ids));
        let message_text = assembled.message_text();
        Ok(AssembledTurn { assembled, new_session_files, fingerprint, delivered_inbox, delivered_posts, message_text })
    }
}

/// A team turn's context, assembled once (see [`TeamTurnParts::assemble_turn`]).
struct AssembledTurn {
    /// As a new session gets it; placed for the turn's own session in [`Chat::record_team_turn`].
    assembled: Assembled,
    new_session_files: FilePlan,
    fingerprint: String,
    delivered_inbox: Vec<String>,
    delivered_posts: Vec<String>,
    message_text: String,
}

/// How the turn's session goes on, decided in the transaction that records it.
struct TurnSession {
    conversation: Conversation,
    plan: Plan,
    transcript: Vec<(String, String)>,
    file_plan: FilePlan,
    /// The turn goes on in the room's carried conversation (its messages are stored there).
    continues: bool,
    /// The resumed session already holds the steady sections (same fingerprint).
    session_has_steady: bool,
}

impl Chat {
    /// Starts `delivery` as a run. `Err(RunNotActive)`: nothing is left to deliver (a batch
    /// whose results went out with an earlier one, a stopped hand-off).
    pub(super) fn start_delivery(self: &Arc<Self>, delivery: Delivery) -> Result<()> {
        let parts = self.team_turn_parts(&delivery)?;
        let turn = parts.assemble_turn()?;
        // The agent's run slot, as for a one-to-one turn; busy: back to the front of its queue.
        let reservation = match self.slots.reserve(&parts.agent) {
            Ok(reservation) => reservation,
            Err(_) if !self.slots.is_closing(&parts.agent.id) => {
                lock(&self.team).queues.entry(parts.agent.id.clone()).or_default().push_front(delivery);
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let now = now_ms();
        let recorded = self.store.write(|tx| self.record_team_turn(tx, &parts, turn, now))?;
        for card in recorded.changed_card.iter().chain(recorded.batch_card.iter()) {
            self.publish_room_message(&parts.team.id, card);
        }
        self.events.publish(EngineEvent::RoomRunChanged {
            team_id: parts.team.id.clone(),
            room_id: parts.room.id.clone(),
            run: recorded.run.clone(),
        });
        let (started, launch) = self.team_launch(parts, recorded, delivery, reservation);
        let run_id = started.run.id.clone();
        let stopped_meanwhile = {
            let mut state = lock(&self.team);
            state.runs.insert(
                run_id.clone(),
                LiveTeamRun {
                    team_id: started.delivery.team_id.clone(),
                    room_id: started.delivery.room_id.clone(),
                    agent_id: started.agent.id.clone(),
                    depth: launch.depth,
                    handoffs: 0,
                    generation: started.delivery.generation,
                },
            );
            // A Stop since this delivery left its queue found no run to end (it was being set
            // up): it ends now, before its runtime does anything.
            state.generation(&started.delivery.team_id) > started.delivery.generation
        };
        if stopped_meanwhile {
            let _ = self.cancel(&run_id);
        }
        // Once Stop can find the run (above), before it can end (below).
        if let Some(id) = &started.handoff_id {
            self.card_claimed(id, &run_id);
        }
        self.handle.spawn(Arc::clone(self).drive_team_run(started, launch));
        Ok(())
    }

    /// What `delivery`'s turn is built from: the room and its members, what the agent is to do,
    /// its runtime, the waiting items, its tools and files.
    fn team_turn_parts(&self, delivery: &Delivery) -> Result<TeamTurnParts> {
        let (team, room) = self.teams()?.room(&delivery.room_id)?;
        let agent = self.agents.get(&delivery.agent_id)?;
        let members = self.room_members(&room)?;
        if !members.iter().any(|m| m.id == agent.id) {
            return Err(Error::InvalidInput(format!("@{} is no longer a member here.", agent.handle)));
        }
        let is_leader = room.leader_id.as_deref() == Some(agent.id.as_str());
        let handle_of = |id: &str| {
            members
                .iter()
                .find(|m| m.id == id)
                .map(|m| m.handle.clone())
                .or_else(|| self.agents.get(id).ok().map(|a| a.handle))
                .unwrap_or_else(|| "former-member".to_owned())
        };
        let what = self.delivery_message(delivery, &room.id, is_leader, &handle_of)?;
        let routine_note = what.routine.as_ref().map(|tag| context::RoutineNote { routine_name: tag.name.clone() });
        let runtime = self.runtimes.get(agent.runtime).ok_or_else(|| {
            Error::RuntimeNotFound(format!("No adapter for {} in this build.", agent.runtime.as_str()))
        })?;
        let capabilities = runtime.capabilities();
        let program = match agent.runtime {
            RuntimeKind::Native => None,
            kind => Some(self.catalog.locate(kind)?),
        };
        let history = match what.kind {
            // Each routine run is a fresh conversation; the room's own goes on untouched.
            _ if what.routine.is_some() => TurnHistory::Fresh,
            TurnKind::Teammate { .. } => capabilities.team_history.teammate,
            _ => capabilities.team_history.leader,
        };
        let placement = placement::of(&capabilities);
        // Waiting items are read now, when the run starts, not when they were queued.
        let (inbox, posts) = self.store.read(|c| {
            Ok((team_store::waiting_inbox(c, &room.id, &agent.id)?, team_store::unseen_posts(c, &team.id, &agent.id)?))
        })?;
        let waiting: Vec<WaitingItem> = inbox
            .iter()
            .map(|(item, from)| WaitingItem { from: from.as_deref().map(&handle_of), ..item.clone() })
            .collect();
        let peer_posts: Vec<context::PeerPost> = posts
            .iter()
            .map(|p| context::PeerPost { id: p.id.clone(), author: p.author_handle.clone(), text: p.text.clone() })
            .collect();
        let mut tools = self.team_tools_for(&agent, what.depth);
        // A leader may propose routines (the user approves each); a routine's own run never.
        if is_leader && what.routine.is_none() && self.attention.is_some() && !tools.is_empty() {
            tools.push(ToolName::RoutineCreate);
        }
        let agent_files = AgentFilesForRun::read(&self.agents, &agent, true, &tools)?;
        let context_members = context_members(&team, &room, &members);
        let rules: Vec<String> = team.rules.iter().map(|r| r.text.clone()).collect();
        // Seed item 7: shown only on turns the user reads (the assembler decides which).
        // Read only for those turns: a teammate's task turn would throw it away.
        let connectors_slot = what.kind.user_reads().then(|| self.connectors_slot(&agent.id)).flatten();
        Ok(TeamTurnParts {
            inbox_ids: inbox.iter().map(|(i, _)| i.id.clone()).collect(),
            post_ids: posts.iter().map(|p| p.id.clone()).collect(),
            team,
            room,
            agent,
            what,
            routine_note,
            runtime,
            capabilities,
            program,
            history,
            placement,
            waiting,
            peer_posts,
            tools,
            agent_files,
            members: context_members,
            rules,
            connectors_slot,
        })
    }

    /// How the turn's session goes on: resumed, forked or fresh (with the room's turns carried
    /// where its runtime needs them), and where the agent's files go in it.
    fn turn_session(
        &self,
        tx: &rusqlite::Transaction,
        parts: &TeamTurnParts,
        fingerprint: &str,
        now: i64,
    ) -> Result<TurnSession> {
        let (agent, capabilities, history) = (&parts.agent, &parts.capabilities, parts.history);
        let conversation = team_store::room_conversation(tx, &parts.room.id, &agent.id, now)?;
        let resumable = conversation.session_id.is_some() && conversation.session_runtime == Some(agent.runtime);
        let plan = match history {
            TurnHistory::Fresh => Plan::New,
            TurnHistory::ContinueRoom | TurnHistory::OwnSession => {
                setup::plan(capabilities.setup_change, resumable, conversation.session_setup.as_deref(), fingerprint)
            }
        };
        let continues = history == TurnHistory::ContinueRoom;
        let carried = match (continues, capabilities.history, &plan) {
            (true, HistoryMode::ClawbooTranscript, _) | (true, _, Plan::Fresh { .. }) => {
                chat_store::transcript(tx, &conversation)?
            }
            _ => Vec::new(),
        };
        // A session that already holds the steady sections (same fingerprint) is not sent
        // them again.
        let session_has_steady =
            matches!(plan, Plan::Resume) && conversation.session_setup.as_deref() == Some(fingerprint);
        // What the session this turn continues holds of the agent's files.
        let resumed = conversation.session_id.as_deref().filter(|_| matches!(plan, Plan::Resume));
        let file_session = match history {
            TurnHistory::Fresh => FileSession::New,
            _ => files::turn_session(tx, &conversation, capabilities.history, resumed, &carried)?,
        };
        let file_plan = parts.agent_files.plan(&file_session)?;
        let transcript: Vec<(String, String)> = carried.into_iter().map(|t| (t.user, t.assistant)).collect();
        Ok(TurnSession { conversation, plan, transcript, file_plan, continues, session_has_steady })
    }

    /// Records the turn in one transaction: its session decided, its context placed for its
    /// runtime with the scratch notes recalled, its run, what it delivers marked delivered, its
    /// cards, its messages in the carried conversation, and exactly what it was given.
    fn record_team_turn(
        &self,
        tx: &rusqlite::Transaction,
        parts: &TeamTurnParts,
        turn: AssembledTurn,
        now: i64,
    ) -> Result<RecordedTurn> {
        let (team, room, agent, capabilities) = (&parts.team, &parts.room, &parts.agent, &parts.capabilities);
        let AssembledTurn { assembled, new_session_files, fingerprint, delivered_inbox, delivered_posts, message_text } =
            turn;
        let session = self.turn_session(tx, parts, &fingerprint, now)?;
        let TurnSession { conversation, plan, transcript, file_plan, continues, session_has_steady } = session;
        let assembled = if file_plan == new_session_files {
            assembled
        } else {
            context::team_turn_with_files(assembled, &file_plan)
        };
        let mut placed = placement::place(parts.placement, &assembled, session_has_steady);
        let slots = files::slots(&file_plan, placed.system.as_deref(), placed.preamble.as_deref(), &message_text)?;
        // The scratch notes in scope go after Clawboo's sections, in front of the message.
        let recalled = self.recall(&RecallRequest {
            agent_id: &agent.id,
            conversation_id: &conversation.id,
            epoch: conversation.epoch,
            team_id: Some(&team.id),
            with_notes: false,
            request_only: continues && capabilities.history == HistoryMode::ClawbooTranscript,
            new_session: !matches!(plan, Plan::Resume | Plan::Fork { .. }),
        });
        let (recalled, recall_failed) = match recalled {
            Ok(recalled) => (recalled, None),
            Err(e) => (None, Some(format!("Scratch notes could not be read, so none were sent: {e}"))),
        };
        if let Some(recalled) = &recalled {
            Chat::record_recall(tx, &conversation.id, conversation.epoch, recalled, now)?;
            if !recalled.text.is_empty() {
                placed.preamble = Some(match placed.preamble.take() {
                    Some(preamble) => format!("{}\n\n{}", preamble.trim_end(), recalled.text),
                    None => recalled.text.clone(),
                });
            }
        }
        let run = chat_store::insert_run(tx, &conversation, agent.runtime, now)?;
        let what = &parts.what;
        if let Some(tag) = &what.routine {
            crate::routines::store::link_team_run(tx, &tag.routine_run_id, &run.id)?;
        }
        team_store::mark_inbox_delivered(tx, &delivered_inbox, &run.id)?;
        team_store::mark_posts_seen(tx, &team.id, &agent.id, &delivered_posts)?;
        team_store::mark_results_delivered(tx, &what.result_ids, &run.id)?;
        let mut changed_card = None;
        if let Some(id) = &what.handoff_id {
            team_store::start_handoff(tx, id, &run.id)?;
            changed_card = team_store::set_handoff_card_run(tx, id, &run.id)?;
        }
        let batch_card = if what.result_ids.is_empty() {
            None
        } else {
            Some(team_store::add_message(
                tx,
                &room.id,
                NewRoomMessage {
                    kind: RoomMessageKind::Batch,
                    author_id: Some(&agent.id),
                    target_id: None,
                    content: &message_text,
                    run_id: Some(&run.id),
                    handoff_id: None,
                },
                now,
            )?)
        };
        if continues {
            let user = chat_store::add_message(
                tx,
                &conversation,
                ChatRole::User,
                &message_text,
                Some(&run.id),
                conversation.epoch,
                now,
            )?;
            if capabilities.history == HistoryMode::ClawbooTranscript && !file_plan.references.is_empty() {
                chat_store::set_carried(tx, &user.id, &file_plan.references)?;
            }
        }
        team_store::insert_run_context(
            tx,
            &RunContext {
                run_id: run.id.clone(),
                room_id: room.id.clone(),
                turn_kind: TeamTurnKind::of(&what.kind),
                placement: parts.placement,
                system_text: slots.shown_system.clone(),
                preamble: placed.preamble.clone(),
                sections: assembled.sections.clone(),
                steady_in_session: placed.steady_in_session,
                deferred: assembled.deferred.clone(),
                files: file_plan.files.clone(),
                created_at: now,
            },
        )?;
        Ok(RecordedTurn {
            conversation,
            run,
            transcript,
            plan,
            placed,
            changed_card,
            batch_card,
            recalled,
            recall_failed,
            file_plan,
            fingerprint,
            message_text,
        })
    }

    /// The recorded turn as a run ready to drive (its input, tokens and opening notices), and
    /// what its end needs.
    fn team_launch(
        &self,
        parts: TeamTurnParts,
        recorded: RecordedTurn,
        delivery: Delivery,
        reservation: Reservation<'_>,
    ) -> (Started, Launch) {
        let TeamTurnParts { team, room, agent, what, runtime, capabilities, program, history, tools, .. } = parts;
        let RecordedTurn {
            conversation,
            run,
            transcript,
            plan,
            placed,
            recalled,
            recall_failed,
            file_plan,
            fingerprint,
            message_text,
            ..
        } = recorded;
        let (transcript, carried) = match &plan {
            Plan::Fresh { .. } => setup::carry_forward(transcript, setup::CARRY_BUDGET_CHARS),
            _ => (transcript.into_iter().map(|(user, assistant)| TranscriptTurn { user, assistant }).collect(), (0, 0)),
        };
        let setup_notice = setup::notice(crate::runtimes::detect::label(agent.runtime), &plan, carried);
        let grant = self.grant_team_tools(&team.id, &room.id, &agent, &conversation.id, &run.id, &tools);
        let workspace = self.agents.workspaces().dir(&agent.id);
        let Placed { system, preamble, .. } = placed;
        let connectors = self.run_connectors(&agent.id);
        let input = TurnInput {
            connectors: connectors.connectors,
            run_id: run.id.clone(),
            homes: RuntimeHomes::for_agent_dir(&workspace),
            workspace,
            message: message_text,
            setup: file_plan.setup_slot(),
            persona: system,
            preamble,
            resume_session: conversation
                .session_id
                .clone()
                .filter(|_| matches!(plan, Plan::Resume | Plan::Fork { .. })),
            fork_session: matches!(plan, Plan::Fork { .. }),
            transcript,
            approval: agent.approval_policy,
            program,
            agent: agent.clone(),
            tools: grant,
        };
        let pending = match history {
            TurnHistory::Fresh => files::PendingDeliveries::default(),
            _ => files::PendingDeliveries::new(capabilities.history, conversation.epoch, &file_plan),
        };
        let DeliveryMessage { depth, handoff_id, from_agent_id, .. } = what;
        let started =
            Started { delivery, agent, conversation, history, fingerprint, pending, run, handoff_id, from_agent_id };
        let notices: Vec<String> = setup_notice.into_iter().chain(recall_failed).chain(connectors.warnings).collect();
        // The slot knows the run's id first, so a Stop that finds the run (once the caller
        // lists it) can cancel it.
        let slot = reservation.started(&started.run.id);
        let launch = Launch { input, runtime, slot, depth, notices, recalled };
        (started, launch)
    }

    /// A team run from its start to its end: the notices first, then the runtime driven to its
    /// result, its tokens revoked, the end recorded and the agent's next delivery started.
    async fn drive_team_run(self: Arc<Self>, started: Started, launch: Launch) {
        let Launch { input, runtime, slot, notices, recalled, .. } = launch;
        let mut recorder = Recorder::new(self.store.clone(), self.events.clone(), &started.run);
        for message in notices {
            recorder.record(RunEvent::Warning { message });
        }
        if let Some(recalled) = recalled.filter(|r| !r.text.is_empty()) {
            recorder.record(RunEvent::ContextAdded { summary: recalled.summary, text: recalled.text });
        }
        let source = crate::attention::Source {
            agent_id: started.agent.id.clone(),
            team_id: Some(started.delivery.team_id.clone()),
            room_id: Some(started.delivery.room_id.clone()),
            run_id: Some(started.run.id.clone()),
            ..Default::default()
        };
        let services = self.run_services();
        let turn = Turn {
            runtime: runtime.as_ref(),
            input,
            cancel: slot.cancel.clone(),
            source: &source,
            policies: Policies::CHAT,
        };
        let conversation_id = started.conversation.id.clone();
        let forget_session = || {
            let _ = self.store.write(|tx| chat_store::set_session(tx, &conversation_id, None));
        };
        let driven = crate::run::drive(turn, &services, &mut recorder, forget_session).await;
        services.end_grants(&started.run.id);
        let agent_id = started.agent.id.clone();
        // Store writes and the next delivery's start block; keep them off the async workers.
        let _ = tokio::task::spawn_blocking(move || {
            self.finish_team_run(started, driven.result, recorder);
            self.slots.release(slot);
            self.pump(&agent_id);
        })
        .await;
    }

    /// What a delivery gives its agent to do, read when its run starts: the user's message, a
    /// teammate's task (still waiting), or the results that came back. `Err(RunNotActive)`:
    /// nothing is left to deliver.
    fn delivery_message(
        &self,
        delivery: &Delivery,
        room_id: &str,
        is_leader: bool,
        handle_of: &dyn Fn(&str) -> String,
    ) -> Result<DeliveryMessage> {
        let mut depth = delivery.depth;
        let mut handoff_id = None;
        let mut from_agent_id = None;
        let mut result_ids = Vec::new();
        let routine = match &delivery.what {
            Deliver::User { routine: Some(tag), .. } => Some(tag.clone()),
            _ => None,
        };
        let (kind, message) = match &delivery.what {
            Deliver::User { text, mentioned, .. } => {
                (if *mentioned { TurnKind::Mentioned } else { TurnKind::Leader }, TurnMessage::User(text.clone()))
            }
            Deliver::Task { handoff_id: id } => {
                let handoff = self
                    .store
                    .read(|c| team_store::handoff(c, id))?
                    .filter(|h| h.status == "queued")
                    .ok_or_else(|| Error::RunNotActive("That task is no longer waiting.".into()))?;
                depth = handoff.depth;
                handoff_id = Some(handoff.id.clone());
                from_agent_id = Some(handoff.from_agent_id.clone());
                (TurnKind::Teammate { from: handle_of(&handoff.from_agent_id) }, TurnMessage::Task(handoff.task))
            }
            Deliver::Batch => {
                let results = self.store.read(|c| team_store::waiting_results(c, room_id, &delivery.agent_id))?;
                if results.is_empty() {
                    return Err(Error::RunNotActive("No results are waiting.".into()));
                }
                depth = results.iter().map(|h| h.depth).max().unwrap_or(0);
                result_ids = results.iter().map(|h| h.id.clone()).collect();
                let results = results
                    .into_iter()
                    .map(|h| TaskResult {
                        from: handle_of(&h.to_agent_id),
                        failed: h.status != "done",
                        task: h.task,
                        reply: h.result.unwrap_or_default(),
                    })
                    .collect();
                (if is_leader { TurnKind::Leader } else { TurnKind::Mentioned }, TurnMessage::Results(results))
            }
        };
        Ok(DeliveryMessage { kind, message, depth, handoff_id, from_agent_id, result_ids, routine })
    }

    /// The Clawboo tools a team run gets: hand-off while the reply chain has room, the peer
    /// room, memory (facts, notes, scratchpad) and the Board when the engine has them. None
    /// when the engine has no tools bridge or the runtime cannot be given it.
    pub(super) fn team_tools_for(&self, agent: &Agent, depth: u32) -> Vec<ToolName> {
        if !self.can_serve_tools(agent) {
            return Vec::new();
        }
        let mut tools = Vec::new();
        if depth < MAX_CHAIN_DEPTH {
            tools.push(ToolName::Handoff);
        }
        tools.extend([ToolName::PeerPost, ToolName::PeerRead]);
        if self.memory.is_some() {
            tools.extend(crate::tools::specs::MEMORY_TOOLS);
        }
        if self.board.is_some() {
            tools.extend(crate::tools::specs::BOARD_TOOLS);
        }
        if self.attention.is_some() {
            tools.push(ToolName::AskUser);
        }
        tools
    }

    fn finish_team_run(self: &Arc<Self>, started: Started, result: RunResult, mut recorder: Recorder) {
        recorder.finish(&result);
        let status = RunStatus::of(result.outcome);
        let reply = recorder.reply().trim().to_owned();
        let session = recorder.session_id().map(str::to_owned);
        let Started { delivery, agent, conversation, history, fingerprint, pending, run, handoff_id, from_agent_id } =
            started;
        let now = now_ms();
        let failure = (status != RunStatus::Succeeded).then(|| {
            let why = result.message.clone().unwrap_or_else(|| status.as_str().replace('_', " "));
            format!("@{}'s run ended without a reply ({}): {why}", agent.handle, status.as_str().replace('_', " "))
        });
        let stored = self.store.write(|tx| {
            chat_store::finish_run(tx, &run.id, status, result.message.as_deref(), now)?;
            if history != TurnHistory::Fresh {
                if let Some(session) = &session {
                    chat_store::set_session(tx, &conversation.id, Some((session, agent.runtime, &fingerprint)))?;
                }
                if status == RunStatus::Succeeded {
                    pending.record(tx, &conversation.id, session.as_deref(), &run.id, now)?;
                }
            }
            if history == TurnHistory::ContinueRoom && !reply.is_empty() {
                // The epoch the turn started in: a /reset meanwhile keeps the pair out of what is carried.
                chat_store::add_message(
                    tx,
                    &conversation,
                    ChatRole::Assistant,
                    &reply,
                    Some(&run.id),
                    conversation.epoch,
                    now,
                )?;
            }
            let mut added = Vec::new();
            if !reply.is_empty() {
                added.push(team_store::add_message(
                    tx,
                    &delivery.room_id,
                    NewRoomMessage {
                        kind: RoomMessageKind::Reply,
                        author_id: Some(&agent.id),
                        target_id: None,
                        content: &reply,
                        run_id: Some(&run.id),
                        handoff_id: handoff_id.as_deref(),
                    },
                    now,
                )?);
            }
            if let Some(failure) = &failure {
                added.push(team_store::add_message(
                    tx,
                    &delivery.room_id,
                    NewRoomMessage {
                        kind: RoomMessageKind::Notice,
                        author_id: Some(&agent.id),
                        target_id: None,
                        content: failure,
                        run_id: Some(&run.id),
                        handoff_id: handoff_id.as_deref(),
                    },
                    now,
                )?);
            }
            let mut handoff = None;
            if let Some(id) = &handoff_id {
                let (state, text) = match (&failure, status) {
                    (None, _) if !reply.is_empty() => ("done", reply.clone()),
                    (None, _) => ("failed", format!("@{} finished without a reply.", agent.handle)),
                    (Some(_), RunStatus::Cancelled) => ("stopped", failure.clone().unwrap_or_default()),
                    (Some(f), _) => ("failed", f.clone()),
                };
                team_store::finish_handoff(tx, id, state, &text, now)?;
                handoff = team_store::handoff(tx, id)?;
            }
            Ok((added, handoff))
        });
        let (added, handoff) = match stored {
            Ok(stored) => stored,
            Err(e) => {
                tracing::error!(run_id = %run.id, error = %e, "could not store the end of a team run");
                (Vec::new(), None)
            }
        };
        for message in &added {
            self.publish_room_message(&delivery.team_id, message);
        }
        if status == RunStatus::Succeeded {
            let message = added.iter().find(|m| m.kind == RoomMessageKind::Reply);
            self.ask_user_in_reply(&agent.id, &delivery.team_id, &delivery.room_id, &run.id, &reply, message);
        }
        if let Ok(Some(summary)) = self.store.read(|c| chat_store::run(c, &run.id)) {
            self.events.publish(EngineEvent::RoomRunChanged {
                team_id: delivery.team_id.clone(),
                room_id: delivery.room_id.clone(),
                run: summary,
            });
        }
        if let Some(handoff) = handoff {
            self.card_finished(&handoff, &agent, &reply);
            self.schedule_batch(&delivery.team_id, &handoff, delivery.generation);
        }
        if status == RunStatus::Succeeded {
            self.handoffs_in_reply(&run.id, &agent, from_agent_id.as_deref(), &reply);
        }
        lock(&self.team).runs.remove(&run.id);
    }

    /// `@handle task` at the start of a line of the reply hands that task to the member.
    fn handoffs_in_reply(self: &Arc<Self>, run_id: &str, agent: &Agent, from_agent_id: Option<&str>, reply: &str) {
        let Some(live) = lock(&self.team).runs.get(run_id).cloned() else { return };
        let Ok((_, room)) = self.teams().and_then(|t| t.room(&live.room_id)) else { return };
        let Ok(members) = self.room_members(&room) else { return };
        let others: Vec<&str> = members
            .iter()
            .filter(|m| m.id != agent.id && Some(m.id.as_str()) != from_agent_id)
            .map(|m| m.handle.as_str())
            .collect();
        let tasks = mentions::line_tasks(reply, &others);
        if tasks.is_empty() {
            return;
        }
        if live.depth >= MAX_CHAIN_DEPTH {
            let names: Vec<String> = tasks.iter().map(|(h, _)| format!("@{h}")).collect();
            let _ = self.notice(
                &live.team_id,
                &live.room_id,
                &format!(
                    "The reply chain reached its bound ({MAX_CHAIN_DEPTH} hand-offs deep), so @{}'s request to {} was not delivered.",
                    agent.handle,
                    names.join(", ")
                ),
            );
            return;
        }
        for (handle, task) in tasks {
            if let Err(e) = self.hand_off(run_id, handle, &task) {
                let _ = self.notice(
                    &live.team_id,
                    &live.room_id,
                    &format!("@{}'s hand-off to @{handle}: {e}", agent.handle),
                );
            }
        }
    }

    /// Hands `task` to the member `to` (a handle) on behalf of the live run `run_id`.
    pub(super) fn hand_off(self: &Arc<Self>, run_id: &str, to: &str, task: &str) -> Result<String> {
        let live = lock(&self.team)
            .runs
            .get(run_id)
            .cloned()
            .ok_or_else(|| Error::RunNotActive("This run is over; it can no longer hand off work.".into()))?;
        if live.depth >= MAX_CHAIN_DEPTH {
            return Err(Error::InvalidInput(format!(
                "The reply chain is at its bound ({MAX_CHAIN_DEPTH} hand-offs deep): do the work yourself."
            )));
        }
        let task = task.trim();
        if task.is_empty() {
            return Err(Error::InvalidInput("The task text is empty: say what the teammate should do.".into()));
        }
        if task.chars().count() > MAX_TASK_CHARS {
            return Err(Error::InvalidInput(format!("A task has at most {MAX_TASK_CHARS} characters.")));
        }
        let (team, room) = self.teams()?.room(&live.room_id)?;
        let members = self.room_members(&room)?;
        let to = to.trim().trim_start_matches('@');
        let target = members.iter().find(|m| m.handle.eq_ignore_ascii_case(to)).ok_or_else(|| {
            let names: Vec<String> =
                members.iter().filter(|m| m.id != live.agent_id).map(|m| format!("@{}", m.handle)).collect();
            Error::InvalidInput(format!("@{to} is not a member here. Teammates: {}.", names.join(", ")))
        })?;
        if target.id == live.agent_id {
            return Err(Error::InvalidInput("You cannot hand work to yourself.".into()));
        }
        {
            let mut state = lock(&self.team);
            let entry = state
                .runs
                .get_mut(run_id)
                .ok_or_else(|| Error::RunNotActive("This run is over; it can no longer hand off work.".into()))?;
            if entry.handoffs >= MAX_HANDOFFS_PER_TURN {
                return Err(Error::InvalidInput(format!(
                    "At most {MAX_HANDOFFS_PER_TURN} hand-offs per turn; this one was not made."
                )));
            }
            entry.handoffs += 1;
        }
        let now = now_ms();
        let (handoff, card) = self.store.write(|tx| {
            let handoff = team_store::insert_handoff(
                tx,
                NewHandoff {
                    room_id: &room.id,
                    from_agent_id: &live.agent_id,
                    from_run_id: run_id,
                    to_agent_id: &target.id,
                    task,
                    depth: live.depth + 1,
                },
                now,
            )?;
            let card = team_store::add_message(
                tx,
                &room.id,
                NewRoomMessage {
                    kind: RoomMessageKind::Handoff,
                    author_id: Some(&live.agent_id),
                    target_id: Some(&target.id),
                    content: task,
                    run_id: None,
                    handoff_id: Some(&handoff.id),
                },
                now,
            )?;
            Ok((handoff, card))
        })?;
        self.publish_room_message(&team.id, &card);
        self.card_for_handoff(&team.id, &handoff);
        self.enqueue(Delivery {
            room_id: room.id.clone(),
            team_id: team.id.clone(),
            agent_id: target.id.clone(),
            what: Deliver::Task { handoff_id: handoff.id },
            depth: live.depth + 1,
            generation: live.generation,
        });
        Ok(format!(
            "Handed to @{}. Its final reply comes back to you with any other results in one batch; do not wait for it in this turn.",
            target.handle
        ))
    }
}

/// The room's members as the context shows them: each one's role on the team (else their
/// description), and who leads.
fn context_members(team: &Team, room: &Room, members: &[Agent]) -> Vec<Member> {
    members
        .iter()
        .map(|m| Member {
            handle: m.handle.clone(),
            name: m.name.clone(),
            runtime: m.runtime,
            role: team
                .members
                .iter()
                .find(|tm| tm.agent_id == m.id)
                .map(|tm| tm.role.trim().to_owned())
                .filter(|r| !r.is_empty())
                .unwrap_or_else(|| m.description.clone()),
            is_leader: room.leader_id.as_deref() == Some(m.id.as_str()),
        })
        .collect()
}
