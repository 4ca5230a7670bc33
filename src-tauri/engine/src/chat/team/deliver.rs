//! A team run from its start to its end (driven by the run layer), and what happens when it
//! ends: the reply in the room, the result of a hand-off back to the agent that made it
//! (batched), hand-offs written as `@handle` in the reply. Starting one: [`super::start`].

use std::sync::Arc;

use super::start::{Launch, Started};
use super::store::{self as team_store, NewHandoff, NewRoomMessage};
use super::types::RoomMessageKind;
use super::{mentions, Deliver, Delivery, MAX_CHAIN_DEPTH, MAX_HANDOFFS_PER_TURN};
use crate::agents::Agent;
use crate::chat::store as chat_store;
use crate::chat::{lock, Chat, ChatRole, RunStatus};
use crate::error::{Error, Result};
use crate::events::EngineEvent;
use crate::run::{Policies, Recorder, Turn};
use crate::runtimes::{RunEvent, RunResult, TurnHistory};
use crate::vocab::clock::now_ms;

/// A task text or hand-off longer than this is refused (the model sees why).
pub const MAX_TASK_CHARS: usize = 16_000;

impl Chat {
    /// A team run from its start to its end: the notices first, then the runtime driven to its
    /// result, its tokens revoked, the end recorded and the agent's next delivery started.
    pub(super) async fn drive_team_run(self: Arc<Self>, started: Started, launch: Launch) {
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

    fn finish_team_run(self: &Arc<Self>, started: Started, result: RunResult, mut recorder: Recorder) {
        recorder.finish(&result);
        let status = RunStatus::of(result.outcome);
        let reply = recorder.reply().trim().to_owned();
        let session = recorder.session_id().map(str::to_owned);
        let Started { delivery, agent, conversation, history, fingerprint, pending, run, handoff_id, from_agent_id } =
            started;
        let now = now_ms();
        let failure = (status != RunStatus::Succeeded).then(|| run_end_notice(&agent.handle, status, &result, &reply));
        let stored = self.store.write(|tx| {
            chat_store::finish_run(tx, &run.id, status, result.message.as_deref(), now)?;
            if history != TurnHistory::Fresh {
                if let Some(session) = &session {
                    chat_store::set_session(tx, &conversation.id, Some((session, agent.runtime, &fingerprint)))?;
                }
                if result.compacted {
                    crate::chat::files::forget_deliveries(tx, &conversation.id)?;
                } else if status == RunStatus::Succeeded {
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

/// The room's notice for a run that did not succeed. With part of a reply above it, it says the
/// reply is partial rather than that there was none.
fn run_end_notice(handle: &str, status: RunStatus, result: &RunResult, reply: &str) -> String {
    let how = status.as_str().replace('_', " ");
    let why = result.message.clone().unwrap_or_else(|| how.clone());
    match (status, reply.is_empty()) {
        (RunStatus::Cancelled, false) => format!("@{handle} was stopped; its reply above is partial."),
        (_, false) => format!("@{handle}'s run ended before its reply was finished ({how}): {why}"),
        (_, true) => format!("@{handle}'s run ended without a reply ({how}): {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_run_with_part_of_a_reply_says_the_reply_is_partial() {
        let stopped = crate::runtimes::hosted::cancelled();
        assert_eq!(
            run_end_notice("ada", RunStatus::Cancelled, &stopped, "Half an"),
            "@ada was stopped; its reply above is partial."
        );
        assert_eq!(
            run_end_notice("ada", RunStatus::Cancelled, &stopped, ""),
            "@ada's run ended without a reply (cancelled): Stopped by the user."
        );
        let failed = RunResult::failed("HTTP 500");
        assert_eq!(
            run_end_notice("ada", RunStatus::Failed, &failed, "Half an"),
            "@ada's run ended before its reply was finished (failed): HTTP 500"
        );
    }
}
