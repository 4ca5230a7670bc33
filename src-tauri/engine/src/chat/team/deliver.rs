//! A team run from its start to its end (driven by the run layer), and what happens when it
//! ends: the reply in the room, the result of a hand-off back to the agent that made it
//! (batched, see [`super::batch`]), hand-offs written as `@handle` in the reply, a task kept open
//! while the work its teammate handed out comes back. Starting one: [`super::start`].

use std::sync::Arc;

use super::start::{Launch, Started};
use super::store::{self as team_store, NewHandoff, NewRoomMessage};
use super::types::RoomMessageKind;
use super::{inbox, mentions, notices, Deliver, Delivery, LiveTeamRun, MAX_CHAIN_DEPTH, MAX_HANDOFFS_PER_TURN};
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
        let team_id = started.delivery.team_id.clone();
        let (room_id, generation) = (started.delivery.room_id.clone(), started.delivery.generation);
        let (run_id, agent) = (started.run.id.clone(), started.agent.clone());
        // A task whose teammate hands work out stays open: the results come back to it, and its
        // reply to them finishes it (a chain that returns).
        let reply_tasks = match status {
            RunStatus::Succeeded => self.reply_tasks(&run_id, &agent, started.from_agent_id.as_deref(), &reply),
            _ => ReplyTasks::default(),
        };
        let hands_out = status == RunStatus::Succeeded
            && (!reply_tasks.tasks.is_empty() && reply_tasks.refused.is_none()
                || self.store.read(|c| team_store::handoffs_of_run(c, &run_id)).is_ok_and(|n| n > 0));
        // Stopped since it started: its hand-off's result is dropped in the transaction that ends
        // the run (a later round's batch took it when the end's later steps were slow under load).
        let stopped = generation < lock(&self.team).generation(&team_id);
        let ended = RunEnd { status, result: &result, reply: &reply, session: session.as_deref(), hands_out, stopped };
        let (added, handoff) = match self.store.write(|tx| store_run_end(tx, &started, &ended)) {
            Ok(stored) => stored,
            Err(e) => {
                tracing::error!(%run_id, error = %e, "could not store the end of a team run");
                (Vec::new(), None)
            }
        };
        for message in &added {
            self.publish_room_message(&team_id, message);
        }
        if status == RunStatus::Succeeded {
            let message = added.iter().find(|m| m.kind == RoomMessageKind::Reply);
            self.ask_user_in_reply(&agent.id, &team_id, &room_id, &run_id, &reply, message);
        }
        if let Ok(Some(summary)) = self.store.read(|c| chat_store::run(c, &run_id)) {
            self.events.publish(EngineEvent::RoomRunChanged {
                team_id: team_id.clone(),
                room_id: room_id.clone(),
                run: summary,
            });
        }
        if let Some(handoff) = handoff {
            self.card_finished(&handoff, Some(&agent), &reply);
            self.result_back(&team_id, &handoff, generation);
        }
        self.handoffs_in_reply(&run_id, &agent, reply_tasks);
        if let Some(id) = started.handoff_id.as_deref().filter(|_| hands_out) {
            self.close_if_nothing_handed_out(id, &run_id, &agent, &reply, &team_id, generation);
        }
        // Gone from the live runs before the batch check: a result that ends meanwhile then
        // finds no live run, and sends the batch itself.
        lock(&self.team).runs.remove(&run_id);
        self.batch_if_due(&team_id, &room_id, &agent.id, generation);
    }

    /// A task kept open for the work its teammate handed out, but none was made after all (every
    /// hand-off in the reply was refused): it ends with the reply.
    fn close_if_nothing_handed_out(
        self: &Arc<Self>,
        handoff_id: &str,
        run_id: &str,
        agent: &Agent,
        reply: &str,
        team_id: &str,
        generation: u64,
    ) {
        let stopped = generation < lock(&self.team).generation(team_id);
        let closed = self.store.write(|tx| {
            if team_store::handoffs_of_run(tx, run_id)? > 0 {
                return Ok(None);
            }
            let (state, text) = handoff_outcome(agent, RunStatus::Succeeded, None, reply);
            team_store::end_handoff(tx, handoff_id, state, &text, now_ms(), stopped)
        });
        if let Ok(Some(handoff)) = closed {
            self.card_finished(&handoff, Some(agent), reply);
            self.result_back(team_id, &handoff, generation);
        }
    }

    /// The `@handle task` lines of a reply, and why they cannot be handed out when they cannot.
    fn reply_tasks(&self, run_id: &str, agent: &Agent, from_agent_id: Option<&str>, reply: &str) -> ReplyTasks {
        let Some(live) = lock(&self.team).runs.get(run_id).cloned() else { return ReplyTasks::default() };
        let Ok((_, room)) = self.teams().and_then(|t| t.room(&live.room_id)) else { return ReplyTasks::default() };
        let Ok(members) = self.room_members(&room) else { return ReplyTasks::default() };
        let others: Vec<&str> = members
            .iter()
            .filter(|m| m.id != agent.id && Some(m.id.as_str()) != from_agent_id)
            .map(|m| m.handle.as_str())
            .collect();
        let tasks: Vec<(String, String)> =
            mentions::line_tasks(reply, &others).into_iter().map(|(h, t)| (h.to_owned(), t)).collect();
        let refused = (!tasks.is_empty() && live.depth >= MAX_CHAIN_DEPTH)
            .then(|| format!("the reply chain reached its bound ({MAX_CHAIN_DEPTH} hand-offs deep)"));
        ReplyTasks { tasks, refused, live: Some(live) }
    }

    /// `@handle task` at the start of a line of the reply hands that task to the member. One
    /// that cannot be made is said in the room, and waits in the agent's inbox as an alert.
    fn handoffs_in_reply(self: &Arc<Self>, run_id: &str, agent: &Agent, reply: ReplyTasks) {
        let ReplyTasks { tasks, refused, live } = reply;
        let Some(live) = live.filter(|_| !tasks.is_empty()) else { return };
        let mut alerts = Vec::new();
        let alert = |to: &str, why: &str| notices::Item {
            room_id: live.room_id.clone(),
            agent_id: agent.id.clone(),
            kind: crate::context::WaitingKind::Alert,
            from_agent_id: None,
            text: notices::handoff_not_made(to, why),
        };
        if let Some(why) = refused {
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
            alerts.extend(tasks.iter().map(|(handle, _)| alert(handle, &why)));
        } else {
            for (handle, task) in tasks {
                if let Err(e) = self.hand_off(run_id, &handle, &task) {
                    let _ = self.notice(
                        &live.team_id,
                        &live.room_id,
                        &format!("@{}'s hand-off to @{handle}: {e}", agent.handle),
                    );
                    alerts.push(alert(&handle, &e.to_string()));
                }
            }
        }
        self.add_inbox_items(&alerts);
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
        // A task handed back to whoever handed this run its own would only loop: the run's
        // final reply goes to them anyway.
        if let Some(id) = &live.handoff_id {
            let from = self.store.read(|c| team_store::handoff(c, id))?.map(|h| h.from_agent_id);
            if from.as_deref() == Some(target.id.as_str()) {
                return Err(Error::InvalidInput(format!(
                    "@{} handed you this task and gets your final reply: put what you need from them there \
                     instead of handing them a task.",
                    target.handle
                )));
            }
        }
        // A room paused by its breaker takes no hand-off; one too many in ten minutes pauses it.
        if let Some(guard) = &self.guard {
            guard.check_handoff(&crate::guard::RunScope {
                agent_id: live.agent_id.clone(),
                team_id: Some(team.id.clone()),
                room_id: Some(room.id.clone()),
                routine_id: None,
            })?;
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
                    parent_handoff_id: live.handoff_id.as_deref(),
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

/// The `@handle task` lines of a reply (see [`Chat::reply_tasks`]).
#[derive(Default)]
struct ReplyTasks {
    tasks: Vec<(String, String)>,
    /// Why none of them can be handed out (the chain's bound).
    refused: Option<String>,
    live: Option<LiveTeamRun>,
}

/// How a team run ended, as its end is stored.
struct RunEnd<'a> {
    status: RunStatus,
    result: &'a RunResult,
    reply: &'a str,
    session: Option<&'a str>,
    /// Its task stays open for the work it handed out.
    hands_out: bool,
    /// Its team was stopped since it started: its hand-off's result goes to nobody.
    stopped: bool,
}

/// Stores the end of a team run in one transaction: the run, its session, its reply in the
/// carried conversation and the room, a notice when it failed, the inbox it carried given back
/// when it never really started, and its hand-off ended (unless kept open for the work it
/// handed out). Returns the room messages added and the hand-off as it ended.
fn store_run_end(
    tx: &rusqlite::Transaction,
    started: &Started,
    end: &RunEnd<'_>,
) -> Result<(Vec<crate::vocab::RoomMessage>, Option<team_store::Handoff>)> {
    let Started { delivery, agent, conversation, history, fingerprint, pending, run, handoff_id, claimed, .. } =
        started;
    let RunEnd { status, result, reply, session, hands_out, stopped } = *end;
    let now = now_ms();
    let failure = (status != RunStatus::Succeeded).then(|| run_end_notice(&agent.handle, status, result, reply));
    chat_store::finish_run(tx, &run.id, status, result.message.as_deref(), now)?;
    if *history != TurnHistory::Fresh {
        if let Some(session) = session {
            chat_store::set_session(tx, &conversation.id, Some((session, agent.runtime, fingerprint)))?;
        }
        if result.compacted {
            crate::chat::files::forget_deliveries(tx, &conversation.id)?;
        } else if status == RunStatus::Succeeded {
            pending.record(tx, &conversation.id, session, &run.id, now)?;
        }
    }
    // Nothing came of it (no reply, no session, no success): what it carried was never read.
    if status != RunStatus::Succeeded && reply.is_empty() && session.is_none() {
        inbox::release_run(tx, &run.id, claimed)?;
    }
    if *history == TurnHistory::ContinueRoom && !reply.is_empty() {
        // The epoch the turn started in: a /reset meanwhile keeps the pair out of what is carried.
        chat_store::add_message(tx, conversation, ChatRole::Assistant, reply, Some(&run.id), conversation.epoch, now)?;
    }
    let mut added = Vec::new();
    for (kind, content) in [(RoomMessageKind::Reply, Some(reply)), (RoomMessageKind::Notice, failure.as_deref())] {
        let Some(content) = content.filter(|c| !c.is_empty()) else { continue };
        added.push(team_store::add_message(
            tx,
            &delivery.room_id,
            NewRoomMessage {
                kind,
                author_id: Some(&agent.id),
                target_id: None,
                content,
                run_id: Some(&run.id),
                handoff_id: handoff_id.as_deref(),
            },
            now,
        )?);
    }
    let mut handoff = None;
    if let Some(id) = handoff_id.as_deref().filter(|_| !hands_out) {
        let (state, text) = handoff_outcome(agent, status, failure.as_deref(), reply);
        handoff = team_store::end_handoff(tx, id, state, &text, now, stopped)?;
    }
    Ok((added, handoff))
}

/// How a hand-off ends with its run, and the result its maker gets.
fn handoff_outcome(agent: &Agent, status: RunStatus, failure: Option<&str>, reply: &str) -> (&'static str, String) {
    match (failure, status) {
        (None, _) if !reply.is_empty() => ("done", reply.to_owned()),
        (None, _) => ("failed", format!("@{} finished without a reply.", agent.handle)),
        (Some(f), RunStatus::Cancelled) => ("stopped", f.to_owned()),
        (Some(f), _) => ("failed", f.to_owned()),
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
