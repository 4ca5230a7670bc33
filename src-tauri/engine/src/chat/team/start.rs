//! Starting a delivery as a run, in named steps: what its turn is built from
//! ([`TeamTurnParts`], in [`super::turn`]), its context assembled once ([`AssembledTurn`]), the
//! turn recorded in one transaction with its session decided, its context placed for its runtime
//! and the inbox it carries claimed ([`RecordedTurn`]), and the run ready to drive ([`Launch`],
//! [`Started`]).

use std::sync::Arc;

use super::inbox::{self, Claimed};
use super::placement::{self, Placed};
use super::store::{self as team_store, NewRoomMessage};
use super::turn::{AssembledTurn, DeliveryMessage, TeamTurnParts};
use super::types::{RoomMessageKind, RunContext, TeamTurnKind};
use super::{Deliver, Delivery, LiveTeamRun};
use crate::agents::Agent;
use crate::chat::files;
use crate::chat::recall::RecallRequest;
use crate::chat::setup::{self, Plan};
use crate::chat::store::{self as chat_store, Conversation};
use crate::chat::{lock, Chat, ChatRole, RunSummary};
use crate::context;
use crate::error::Result;
use crate::events::EngineEvent;
use crate::guard::RunScope;
use crate::run::prepare::{AgentRuntime, PreparedRun, SessionAsk, TurnSession};
use crate::run::{Reservation, Slot};
use crate::runtimes::{HistoryMode, TurnHistory, TurnInput};
use crate::vocab::clock::now_ms;

/// What starting a team run wrote, in one transaction (see [`Chat::start_delivery`]).
struct RecordedTurn {
    /// How the session goes on, in the room's conversation, with the agent's files placed.
    session: TurnSession,
    run: RunSummary,
    placed: Placed,
    /// The hand-off card now showing this run, and the room's batch card of results.
    changed_card: Option<crate::vocab::RoomMessage>,
    batch_card: Option<crate::vocab::RoomMessage>,
    recalled: Option<crate::chat::recall::Recall>,
    recall_failed: Option<String>,
    /// The steady sections' fingerprint, stored with the session the run leaves.
    fingerprint: String,
    message_text: String,
    /// What of the inbox the turn carries (released if the run never really starts).
    claimed: Claimed,
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
    /// The run that worked on the hand-off before, when this turn continues it (a chain).
    pub(super) continues_run: Option<String>,
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
    /// What of the inbox the turn carried (given back if the run never really started).
    pub(super) claimed: Claimed,
}

impl Chat {
    /// Starts `delivery` as a run. `Err(RunNotActive)`: nothing is left to deliver (a batch
    /// whose results went out with an earlier one, a stopped hand-off).
    pub(super) fn start_delivery(self: &Arc<Self>, delivery: Delivery) -> Result<()> {
        // A paused agent or room, or a spent budget, refuses the run (said in the room).
        self.check_guard(&self.delivery_scope(&delivery))?;
        let parts = self.team_turn_parts(&delivery)?;
        let turn = parts.assemble_turn()?;
        // The agent's run slot, as for a one-to-one turn; busy: back to the front of its queue.
        let reservation = match self.slots.reserve(&parts.prepared.agent) {
            Ok(reservation) => reservation,
            Err(_) if !self.slots.is_closing(&parts.prepared.agent.id) => {
                lock(&self.team).queues.entry(parts.prepared.agent.id.clone()).or_default().push_front(delivery);
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
                    handoff_id: started.handoff_id.clone(),
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
        match (&started.handoff_id, &launch.continues_run) {
            (Some(id), Some(before)) => self.card_continued(id, before, &run_id),
            (Some(id), None) => self.card_claimed(id, &run_id),
            (None, _) => {}
        }
        self.handle.spawn(Arc::clone(self).drive_team_run(started, launch));
        Ok(())
    }

    /// Whose run a delivery starts, for the breakers and budgets.
    fn delivery_scope(&self, delivery: &Delivery) -> RunScope {
        let routine_id = match (&delivery.what, &self.guard) {
            (Deliver::User { routine: Some(tag), .. }, Some(guard)) => {
                guard.routine_of_routine_run(&tag.routine_run_id)
            }
            _ => None,
        };
        RunScope {
            agent_id: delivery.agent_id.clone(),
            team_id: Some(delivery.team_id.clone()),
            room_id: Some(delivery.room_id.clone()),
            routine_id,
        }
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
        let (team, room, prepared) = (&parts.team, &parts.room, &parts.prepared);
        let (agent, capabilities) = (&prepared.agent, &prepared.runtime.capabilities);
        let AssembledTurn { assembled, fingerprint, carried, message_text } = turn;
        let conversation = team_store::room_conversation(tx, &room.id, &agent.id, now)?;
        // The room's conversation as kept since the agent's last turn there: only what was
        // stored since is read (a room's messages are only appended within an epoch; a /reset
        // starts a new one, read afresh).
        let ask = SessionAsk {
            history: parts.history,
            fingerprint: &fingerprint,
            replaced: false,
            carried: Some(&self.carried),
        };
        let session = prepared.session(tx, conversation, ask)?;
        let (conversation, file_plan) = (&session.conversation, &session.file_plan);
        let continues = session.continues;
        let assembled = if *file_plan == prepared.new_session_files {
            assembled
        } else {
            context::team_turn_with_files(assembled, file_plan)
        };
        let mut placed = placement::place(prepared.runtime.placement, &assembled, session.session_has_steady);
        let slots = files::slots(
            agent.runtime,
            file_plan,
            placed.system.as_deref(),
            placed.preamble.as_deref(),
            &message_text,
        )?;
        // The scratch notes in scope go after Clawboo's sections, in front of the message.
        let recalled = self.recall(&RecallRequest {
            agent_id: &agent.id,
            conversation_id: &conversation.id,
            team_id: Some(&team.id),
            with_notes: false,
            request_only: continues && capabilities.history == HistoryMode::ClawbooTranscript,
            resumed: session.resume_session().as_deref(),
        });
        let (recalled, recall_failed) = match recalled {
            Ok(recalled) => (recalled, None),
            Err(e) => (None, Some(format!("Scratch notes could not be read, so none were sent: {e}"))),
        };
        if let Some(recalled) = &recalled {
            if !recalled.text.is_empty() {
                placed.preamble = Some(match placed.preamble.take() {
                    Some(preamble) => format!("{}\n\n{}", preamble.trim_end(), recalled.text),
                    None => recalled.text.clone(),
                });
            }
        }
        let run = chat_store::insert_run(tx, conversation, agent.runtime, now)?;
        let what = &parts.what;
        if let Some(tag) = &what.routine {
            crate::routines::store::link_team_run(tx, &tag.routine_run_id, &run.id)?;
        }
        inbox::claim(tx, &run.id, &agent.id, &carried)?;
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
                conversation,
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
                placement: prepared.runtime.placement,
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
            session,
            run,
            placed,
            changed_card,
            batch_card,
            recalled,
            recall_failed,
            fingerprint,
            message_text,
            claimed: carried,
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
        let TeamTurnParts { what, prepared, history, .. } = parts;
        let RecordedTurn {
            mut session, run, placed, recalled, recall_failed, fingerprint, message_text, claimed, ..
        } = recorded;
        let (transcript, carried) = session.take_transcript();
        let plan = &session.plan;
        let agent = &prepared.agent;
        let setup_notice = setup::notice(crate::runtimes::detect::label(agent.runtime), plan, carried);
        let Placed { system, preamble, .. } = placed;
        let connectors = self.run_connectors(&agent.id);
        let grant = prepared.grant(&run.id, &session.conversation.id, !connectors.connectors.is_empty());
        let input = TurnInput {
            connectors: connectors.connectors,
            setup: session.file_plan.setup_slot(),
            persona: system,
            preamble,
            resume_session: session.resume_session(),
            fork_session: matches!(plan, Plan::Fork { .. }),
            transcript,
            tools: grant,
            ..prepared.input(&run.id, message_text)
        };
        let pending = match history {
            TurnHistory::Fresh => files::PendingDeliveries::default(),
            _ => files::PendingDeliveries::new(
                prepared.runtime.capabilities.history,
                session.conversation.epoch,
                &session.file_plan,
            )
            .with_scratch(recalled.as_ref().and_then(|r| r.delivered_scratch())),
        };
        let PreparedRun { agent, runtime: AgentRuntime { runtime, .. }, .. } = prepared;
        let conversation = session.conversation;
        let DeliveryMessage { depth, handoff_id, from_agent_id, continues_run, .. } = what;
        let started = Started {
            delivery,
            agent,
            conversation,
            history,
            fingerprint,
            pending,
            run,
            handoff_id,
            from_agent_id,
            claimed,
        };
        let notices: Vec<String> = setup_notice.into_iter().chain(recall_failed).chain(connectors.warnings).collect();
        // The slot knows the run's id first, so a Stop that finds the run (once the caller
        // lists it) can cancel it.
        let slot = reservation.started(&started.run.id);
        let launch = Launch { input, runtime, slot, depth, notices, recalled, continues_run };
        (started, launch)
    }
}
