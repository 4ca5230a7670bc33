//! Starting a delivery as a run, in named steps: what its turn is built from
//! ([`TeamTurnParts`]), its context assembled once ([`AssembledTurn`]), the turn recorded in one
//! transaction with its session decided and its context placed for its runtime
//! ([`RecordedTurn`]), and the run ready to drive ([`Launch`], [`Started`]).

use std::path::PathBuf;
use std::sync::Arc;

use super::placement::{self, Placed};
use super::store::{self as team_store, NewRoomMessage};
use super::types::{Placement, RoomMessageKind, RunContext, TeamTurnKind};
use super::{Deliver, Delivery, LiveTeamRun, MAX_CHAIN_DEPTH};
use crate::agents::{Agent, RuntimeKind};
use crate::chat::files::{self, AgentFilesForRun};
use crate::chat::recall::RecallRequest;
use crate::chat::setup::{self, Plan};
use crate::chat::store::{self as chat_store, Conversation};
use crate::chat::{lock, Chat, ChatRole, RunSummary};
use crate::context::files::{FilePlan, FileSession};
use crate::context::{self, Assembled, Member, TaskResult, ToolName, TurnKind, TurnMessage, WaitingItem};
use crate::error::{Error, Result};
use crate::events::EngineEvent;
use crate::run::{Reservation, Slot};
use crate::runtimes::home::RuntimeHomes;
use crate::runtimes::{Capabilities, HistoryMode, Runtime, TranscriptTurn, TurnHistory, TurnInput};
use crate::teams::{Room, Team};
use crate::vocab::clock::now_ms;

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
pub(super) struct Launch {
    pub(super) input: TurnInput,
    pub(super) runtime: Arc<dyn crate::runtimes::Runtime>,
    /// The agent's run slot, released at the end.
    pub(super) slot: Slot,
    /// How deep in a hand-off chain the turn is.
    pub(super) depth: u32,
    /// Warnings the run's Activity opens with (a new session, scratch notes, connectors).
    pub(super) notices: Vec<String>,
    pub(super) recalled: Option<crate::chat::recall::Recall>,
}

/// Everything fixed when a team run starts, kept for its end.
pub(super) struct Started {
    pub(super) delivery: Delivery,
    pub(super) agent: Agent,
    pub(super) conversation: Conversation,
    pub(super) history: TurnHistory,
    pub(super) fingerprint: String,
    /// The workspace-file references this run delivers, recorded if it completes.
    pub(super) pending: files::PendingDeliveries,
    pub(super) run: RunSummary,
    pub(super) handoff_id: Option<String>,
    /// The handle of whoever handed this task out (its reply must not hand work back to them).
    pub(super) from_agent_id: Option<String>,
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
    /// room, memory (facts, notes, scratchpad) and the Board when the engine has them, and
    /// `search_threads`. None
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
        // Its own past chats and the rooms it is in, found when it asks.
        tools.push(ToolName::SearchThreads);
        tools
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
