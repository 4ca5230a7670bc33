//! Team chat: the user talks to a room (General or a named room); a message without a mention
//! goes to the room's leader, `@handle` addresses a member. An agent hands work to a teammate
//! with the `handoff` tool or by `@handle` in its final reply; the teammate works on the task
//! text alone and its final reply goes back, with the others of the same turn, as one batch the
//! moment the last of them ends. A teammate that hands work out gets its results as part of its
//! task, and its reply then goes up to the one who asked it (a chain that returns). What happens
//! meanwhile waits in each agent's inbox (`inbox`, `notices`). Every turn's context is assembled by `crate::context` and stored with the run
//! ("What this agent saw").
//!
//! An agent runs one turn at a time, whatever the chat: deliveries to a busy agent wait in its
//! queue and start when its run ends.

mod batch;
mod cards;
mod deliver;
pub mod inbox;
mod mentions;
pub mod notices;
mod start;
pub mod store;
mod tools;
mod turn;
pub mod types;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

pub use self::notices::TeamInbox;
pub use self::tools::TeamChat;
pub use self::types::{
    PeerPost, Placement, RoomMessage, RoomMessageKind, RoomPage, RoomRoutine, RunContext, TeamSendOutcome, TeamTurnKind,
};

use self::store::NewRoomMessage;
use super::{lock, now_ms, Chat};
use crate::agents::Agent;
use crate::error::{Error, Result};
use crate::events::EngineEvent;
use crate::run::prepare::placement;
use crate::teams::{Room, Team};

/// Agent-to-agent hops after the user's message: a hand-off made on a handed-off task counts.
pub const MAX_CHAIN_DEPTH: u32 = 3;
/// Hand-offs one turn may make (tool calls and `@handle` in the reply together).
pub const MAX_HANDOFFS_PER_TURN: u32 = crate::context::MAX_HANDOFFS_PER_TURN as u32;
/// Messages per page of a room.
pub const MAX_PAGE: u32 = 500;

/// Work waiting for an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Delivery {
    pub room_id: String,
    pub team_id: String,
    pub agent_id: String,
    pub what: Deliver,
    pub depth: u32,
    /// The team's stop generation when it was queued: a Stop drops it.
    pub generation: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Deliver {
    /// The user's message, to the leader or a member the user @mentioned; or a team
    /// routine's message to the leader (`routine`: a fresh conversation with the routine note).
    User { text: String, mentioned: bool, routine: Option<crate::vocab::routine::RoutineTag> },
    /// A task handed to this agent.
    Task { handoff_id: String },
    /// The results of work this agent handed out.
    Batch,
}

/// What the team service keeps in memory: queues, live team runs.
#[derive(Default)]
pub(crate) struct TeamState {
    queues: HashMap<String, VecDeque<Delivery>>,
    /// Bumped by Stop: deliveries and batches of an older generation are dropped.
    generations: HashMap<String, u64>,
    /// Team runs in progress, by run id.
    pub(crate) runs: HashMap<String, LiveTeamRun>,
}

#[derive(Debug, Clone)]
pub(crate) struct LiveTeamRun {
    pub team_id: String,
    pub room_id: String,
    pub agent_id: String,
    pub depth: u32,
    pub handoffs: u32,
    pub generation: u64,
    /// The hand-off this run works on: hand-offs it makes belong to it (a chain).
    pub handoff_id: Option<String>,
}

impl TeamState {
    fn generation(&self, team_id: &str) -> u64 {
        self.generations.get(team_id).copied().unwrap_or(0)
    }
}

/// Whether team deliveries wait to start.
pub(in crate::chat) fn has_queued(chat: &Chat) -> bool {
    lock(&chat.team).queues.values().any(|q| !q.is_empty())
}

impl Chat {
    fn teams(&self) -> Result<&Arc<crate::teams::Teams>> {
        self.teams.as_ref().ok_or_else(|| Error::Internal("team chat is not available in this engine".into()))
    }

    /// Sends the user's message to a room. `/reset` and `/new` end what the agents carry from
    /// the room; `/rule` lists the team rules, `/rule <text>` adds one, `/rule remove <n>` removes one.
    /// A message of the user clears the team's open questions (Mobius: a human reply in that
    /// chat answers them); approvals stay, they take a decision.
    pub fn send_team(self: &Arc<Self>, room_id: &str, text: &str) -> Result<TeamSendOutcome> {
        self.send_team_message(room_id, text, SendAs { clears_questions: true, routine: None, alert: None })
    }

    /// A team routine's message to the room's leader: shown in the room as the routine's, run
    /// in a fresh conversation with the routine note, never read as a command.
    pub(crate) fn send_routine(
        self: &Arc<Self>,
        room_id: &str,
        text: &str,
        routine: crate::vocab::routine::RoutineTag,
    ) -> Result<()> {
        self.send_team_message(room_id, text, SendAs { clears_questions: false, routine: Some(routine), alert: None })
            .map(|_| ())
    }

    /// Whether a team routine's message (its routine run `routine_run_id`) waits in a queue.
    pub(crate) fn routine_waiting(&self, routine_run_id: &str) -> bool {
        lock(&self.team).queues.values().flatten().any(
            |d| matches!(&d.what, Deliver::User { routine: Some(tag), .. } if tag.routine_run_id == routine_run_id),
        )
    }

    /// The user's answer to `agent_id`'s question, from the inbox: their message to that agent
    /// in the room it asked in (the team's General room when that room is gone, no mention when
    /// the agent is no longer in it). Other agents' open questions stay open.
    /// The agent finds the answer in its inbox too (*Addressed to you*), with its question.
    pub fn answer_in_team(
        self: &Arc<Self>,
        team_id: &str,
        room_id: Option<&str>,
        agent_id: &str,
        question: &str,
        text: &str,
    ) -> Result<()> {
        let team = self.teams()?.get(team_id)?;
        let room = room_id
            .and_then(|id| team.rooms.iter().find(|r| r.id == id))
            .or_else(|| team.rooms.first())
            .ok_or_else(|| Error::NotFound(format!("A room of {}", team.name)))?;
        let members = self.room_members(room)?;
        let (message, alert) = match members.iter().find(|m| m.id == agent_id) {
            Some(agent) => (format!("@{} {text}", agent.handle), notices::answered(question, None)),
            None => (text.to_owned(), notices::answered(question, Some(text))),
        };
        // A deleted agent has no inbox: its answer still reaches the room.
        let alert = self.agents.get(agent_id).is_ok().then(|| notices::Item {
            room_id: room.id.clone(),
            agent_id: agent_id.to_owned(),
            kind: crate::context::WaitingKind::Alert,
            from_agent_id: None,
            text: alert,
        });
        let send = SendAs { clears_questions: false, routine: None, alert };
        self.send_team_message(&room.id, &message, send).map(|_| ())
    }

    fn send_team_message(self: &Arc<Self>, room_id: &str, text: &str, send: SendAs) -> Result<TeamSendOutcome> {
        let SendAs { clears_questions, routine, alert } = send;
        let text = text.trim();
        if text.is_empty() {
            return Err(Error::InvalidInput("The message is empty.".into()));
        }
        let (team, room) = self.teams()?.room(room_id)?;
        if team.archived {
            return Err(Error::InvalidInput(format!("{} is archived. Restore it to chat with it.", team.name)));
        }
        if routine.is_none() {
            if let Some(outcome) = self.team_command(&team, &room, text)? {
                return Ok(outcome);
            }
        }
        if team.about_you.trim().is_empty() {
            return Err(Error::InvalidInput(format!(
                "Introduce yourself to {} first (About you): the agents you talk to read it.",
                team.name
            )));
        }
        let members = self.room_members(&room)?;
        if members.is_empty() {
            return Err(Error::InvalidInput(format!("{} has no members to talk to.", room_label(&room))));
        }
        let targets = match &routine {
            // A routine's message goes to the leader alone, whatever it mentions.
            Some(_) => {
                let leader =
                    room.leader_id.as_deref().and_then(|id| members.iter().find(|m| m.id == id)).ok_or_else(|| {
                        Error::InvalidInput(format!("{} has no leader to run the routine.", room_label(&room)))
                    })?;
                vec![(leader.clone(), false)]
            }
            None => addressed(text, &room, &members)?,
        };
        let shown = match &routine {
            Some(tag) => format!("Routine \"{}\": {text}", tag.name),
            None => text.to_owned(),
        };
        let message = self.store.write(|tx| {
            if let Some(alert) = &alert {
                let item = inbox::NewItem {
                    room_id: &alert.room_id,
                    agent_id: &alert.agent_id,
                    kind: alert.kind,
                    from_agent_id: None,
                    text: &alert.text,
                };
                inbox::add_item(tx, &item, now_ms())?;
            }
            let message = store::add_message(
                tx,
                &room.id,
                NewRoomMessage {
                    kind: RoomMessageKind::User,
                    author_id: None,
                    target_id: None,
                    content: &shown,
                    run_id: None,
                    handoff_id: None,
                },
                now_ms(),
            )?;
            match &routine {
                Some(tag) => Ok(store::tag_routine(tx, &message.id, tag)?.unwrap_or(message)),
                None => Ok(message),
            }
        })?;
        self.publish_room_message(&team.id, &message);
        // Cleared before any agent hears the message: a question raised in reply to it is new.
        if let Some(attention) = self.attention.as_ref().filter(|_| clears_questions) {
            if let Err(e) = attention.clear_team_questions(&team.id) {
                tracing::warn!(team_id = %team.id, error = %e, "the user's message cleared no question");
            }
        }
        let generation = lock(&self.team).generation(&team.id);
        for (agent, mentioned) in &targets {
            self.enqueue(Delivery {
                room_id: room.id.clone(),
                team_id: team.id.clone(),
                agent_id: agent.id.clone(),
                what: Deliver::User { text: text.to_owned(), mentioned: *mentioned, routine: routine.clone() },
                depth: 0,
                generation,
            });
        }
        Ok(TeamSendOutcome { message, addressed: targets.iter().map(|(a, _)| a.id.clone()).collect() })
    }

    /// Ends every run of the team, drops what waits to start and the batches not yet sent.
    pub fn stop_team(&self, team_id: &str) -> Result<()> {
        let team = self.teams()?.get(team_id)?;
        let room_ids: Vec<String> = team.rooms.iter().map(|r| r.id.clone()).collect();
        let cancels: Vec<(String, String)> = {
            let mut state = lock(&self.team);
            *state.generations.entry(team.id.clone()).or_default() += 1;
            for queue in state.queues.values_mut() {
                queue.retain(|d| d.team_id != team.id);
            }
            state
                .runs
                .iter()
                .filter(|(_, r)| r.team_id == team.id)
                .map(|(id, r)| (id.clone(), r.room_id.clone()))
                .collect()
        };
        let now = now_ms();
        let live: Vec<&String> = cancels.iter().map(|(run_id, _)| run_id).collect();
        let (stopped, waiting) = self.store.write(|tx| {
            let stopped = store::stop_queued_handoffs(tx, &room_ids, now)?;
            // Hand-offs whose teammate handed work out and waits for it (no run going).
            let mut waiting = Vec::new();
            for h in store::running_handoffs(tx, &room_ids)? {
                if h.run_id.as_ref().is_some_and(|run| !live.contains(&run)) {
                    store::finish_handoff(tx, &h.id, "stopped", "Stopped by the user.", now)?;
                    waiting.extend(store::handoff(tx, &h.id)?);
                }
            }
            Ok((stopped, waiting))
        })?;
        for handoff in &stopped {
            self.card_not_run(&handoff.id, cards::STOPPED);
        }
        for handoff in &waiting {
            self.card_finished(handoff, None, "");
        }
        for (run_id, _) in &cancels {
            // Already over is fine: it raced the stop.
            let _ = self.cancel(run_id);
        }
        for room in &team.rooms {
            let ended = stopped.iter().chain(&waiting).any(|h| h.room_id == room.id);
            if ended || cancels.iter().any(|(_, r)| *r == room.id) {
                self.notice(&team.id, &room.id, "Stopped: every run of the team was ended; queued work was dropped.")?;
            }
        }
        Ok(())
    }

    /// A page of a room's messages, oldest first, with the runs they refer to.
    pub fn room_page(&self, room_id: &str, before_seq: Option<i64>, limit: u32) -> Result<RoomPage> {
        self.teams()?.room(room_id)?;
        let limit = limit.clamp(1, MAX_PAGE);
        self.store.read(|c| {
            let (messages, has_older) = store::page(c, room_id, before_seq, limit)?;
            let mut ids: Vec<&str> = messages.iter().filter_map(|m| m.run_id.as_deref()).collect();
            ids.sort_unstable();
            ids.dedup();
            let runs = store::runs_by_id(c, &ids)?;
            Ok(RoomPage { messages, has_older, runs })
        })
    }

    /// The newest runs of a room (its Activity card), oldest first.
    pub fn room_runs(&self, room_id: &str, limit: u32) -> Result<Vec<super::RunSummary>> {
        self.teams()?.room(room_id)?;
        self.store.read(|c| store::room_runs(c, room_id, limit.clamp(1, MAX_PAGE)))
    }

    /// The team's peer room, a page at a time, oldest first.
    pub fn peer_posts(&self, team_id: &str, before_seq: Option<i64>, limit: u32) -> Result<(Vec<PeerPost>, bool)> {
        self.teams()?.get(team_id)?;
        self.store.read(|c| store::peer_page(c, team_id, before_seq, limit.clamp(1, MAX_PAGE)))
    }

    /// Exactly what a team run was given.
    pub fn run_context(&self, run_id: &str) -> Result<RunContext> {
        self.store
            .read(|c| store::run_context(c, run_id))?
            .ok_or_else(|| Error::NotFound(format!("The context of run {run_id}")))
    }

    /// Hand-offs a previous process left unfinished are marked cut off, and their cards blocked.
    /// Called once at start.
    pub(super) fn recover_team_work(&self) -> Result<usize> {
        let (unfinished, marked) = self.store.write(|tx| {
            let unfinished = store::unfinished_handoffs(tx)?;
            Ok((unfinished, store::mark_handoffs_interrupted(tx, now_ms())?))
        })?;
        for handoff in &unfinished {
            self.card_cut_off(handoff);
        }
        Ok(marked)
    }

    fn team_command(&self, team: &Team, room: &Room, text: &str) -> Result<Option<TeamSendOutcome>> {
        let notice = |content: String| -> Result<Option<TeamSendOutcome>> {
            let message = self.notice(&team.id, &room.id, &content)?;
            Ok(Some(TeamSendOutcome { message, addressed: Vec::new() }))
        };
        if matches!(text, "/reset" | "/new") {
            self.store.write(|tx| store::reset_room(tx, &room.id))?;
            return notice(format!(
                "Reset: the agents start fresh in {} from the next message. Earlier messages stay here.",
                room_label(room)
            ));
        }
        let Some(rest) = text.strip_prefix("/rule") else { return Ok(None) };
        if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
            return Ok(None);
        }
        let rest = rest.trim();
        if rest.is_empty() {
            return notice(rules_listing(team));
        }
        if let Some(which) = rest.strip_prefix("remove").filter(|w| w.is_empty() || w.starts_with(' ')) {
            let number: usize = which.trim().parse().map_err(|_| {
                Error::InvalidInput("Say which rule to remove by its number: /rule remove 2 (see /rule).".into())
            })?;
            let rule = number.checked_sub(1).and_then(|i| team.rules.get(i)).ok_or_else(|| {
                Error::InvalidInput(format!("There is no rule {number}; the team has {}.", team.rules.len()))
            })?;
            let updated = self.teams()?.remove_rule(&team.id, &rule.id)?;
            return notice(format!("Rule {number} removed. {}", rules_listing(&updated)));
        }
        self.teams()?.add_rule(&team.id, rest)?;
        let updated = self.teams()?.get(&team.id)?;
        notice(format!("Rule added; it applies from the next turn. {}", rules_listing(&updated)))
    }

    fn notice(&self, team_id: &str, room_id: &str, content: &str) -> Result<RoomMessage> {
        let message = self.store.write(|tx| {
            store::add_message(
                tx,
                room_id,
                NewRoomMessage {
                    kind: RoomMessageKind::Notice,
                    author_id: None,
                    target_id: None,
                    content,
                    run_id: None,
                    handoff_id: None,
                },
                now_ms(),
            )
        })?;
        self.publish_room_message(team_id, &message);
        Ok(message)
    }

    fn publish_room_message(&self, team_id: &str, message: &RoomMessage) {
        self.events.publish(EngineEvent::RoomMessageAdded { team_id: team_id.to_owned(), message: message.clone() });
    }

    /// The room's members as agents, in the room's order (agents deleted meanwhile left out).
    fn room_members(&self, room: &Room) -> Result<Vec<Agent>> {
        let mut members = Vec::new();
        for id in &room.member_ids {
            match self.agents.get(id) {
                Ok(agent) => members.push(agent),
                Err(Error::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(members)
    }

    /// Queues work for an agent and starts it when the agent is free.
    pub(crate) fn enqueue(self: &Arc<Self>, delivery: Delivery) {
        let agent_id = delivery.agent_id.clone();
        lock(&self.team).queues.entry(agent_id.clone()).or_default().push_back(delivery);
        self.pump(&agent_id);
    }

    /// Starts the agent's next queued delivery if it has no run going.
    pub(crate) fn pump(self: &Arc<Self>, agent_id: &str) {
        loop {
            if self.slots.is_busy(agent_id) {
                return;
            }
            let next = {
                let mut state = lock(&self.team);
                let generations = state.generations.clone();
                let queue = state.queues.entry(agent_id.to_owned()).or_default();
                loop {
                    match queue.pop_front() {
                        Some(d) if d.generation < generations.get(&d.team_id).copied().unwrap_or(0) => continue,
                        other => break other,
                    }
                }
            };
            let Some(delivery) = next else { return };
            match self.start_delivery(delivery.clone()) {
                Ok(()) => return,
                Err(Error::RunNotActive(_)) => continue, // nothing left to deliver: try the next
                Err(e) => self.delivery_failed(&delivery, &e),
            }
        }
    }

    /// A delivery that could not start: said in the room, and a hand-off gets a failed result.
    fn delivery_failed(self: &Arc<Self>, delivery: &Delivery, error: &Error) {
        let who = self.agents.get(&delivery.agent_id).map(|a| format!("@{}", a.handle)).unwrap_or_default();
        let text = format!("{who} could not start: {error}");
        let _ = self.notice(&delivery.team_id, &delivery.room_id, &text);
        if let Deliver::User { routine: Some(tag), .. } = &delivery.what {
            let why = error.to_string();
            let _ = self.store.write(|tx| crate::routines::store::team_run_not_started(tx, &tag.routine_run_id, &why));
        }
        if let Deliver::Task { handoff_id } = &delivery.what {
            let stopped = delivery.generation < lock(&self.team).generation(&delivery.team_id);
            let finished =
                self.store.write(|tx| store::end_handoff(tx, handoff_id, "failed", &text, now_ms(), stopped));
            self.card_not_run(handoff_id, &text);
            if let Ok(Some(handoff)) = finished {
                self.result_back(&delivery.team_id, &handoff, delivery.generation);
            }
        }
    }
}

/// How a message reaches a room (see [`Chat::send_team_message`]).
struct SendAs {
    /// The message is one the user typed in the chat (not an answer given in the inbox), so it
    /// clears the team's open questions.
    clears_questions: bool,
    /// A team routine's message to the leader.
    routine: Option<crate::vocab::routine::RoutineTag>,
    /// An item stored with the message (the user's answer to an agent's question).
    alert: Option<notices::Item>,
}

/// Who a user's message is for: the members it @mentions (in order), else the room's leader.
fn addressed(text: &str, room: &Room, members: &[Agent]) -> Result<Vec<(Agent, bool)>> {
    let handles: Vec<&str> = members.iter().map(|a| a.handle.as_str()).collect();
    let found = mentions::mentions(text, &handles);
    if let Some(unknown) = found.iter().find(|m| m.handle.is_none()) {
        let names = handles.iter().map(|h| format!("@{h}")).collect::<Vec<_>>().join(", ");
        return Err(Error::InvalidInput(format!(
            "@{} is not a member of {}. Members: {names}.",
            unknown.word,
            room_label(room)
        )));
    }
    let mut targets: Vec<(Agent, bool)> = Vec::new();
    for mention in &found {
        let agent = members.iter().find(|a| Some(a.handle.as_str()) == mention.handle).cloned();
        if let Some(agent) = agent.filter(|a| !targets.iter().any(|(t, _)| t.id == a.id)) {
            targets.push((agent, true));
        }
    }
    if targets.is_empty() {
        let leader = room
            .leader_id
            .as_deref()
            .and_then(|id| members.iter().find(|a| a.id == id))
            .or(members.first())
            .cloned()
            .ok_or_else(|| Error::InvalidInput(format!("{} has no leader.", room_label(room))))?;
        targets.push((leader, false));
    } else {
        // The leader, mentioned, is still answering as the leader.
        for (agent, mentioned) in &mut targets {
            if room.leader_id.as_deref() == Some(agent.id.as_str()) {
                *mentioned = false;
            }
        }
    }
    Ok(targets)
}

fn room_label(room: &Room) -> String {
    if room.is_general {
        "General".to_owned()
    } else {
        format!("the room {}", room.name)
    }
}

fn rules_listing(team: &Team) -> String {
    if team.rules.is_empty() {
        return "The team has no rules yet. Add one with /rule <text>.".to_owned();
    }
    let lines: Vec<String> = team.rules.iter().enumerate().map(|(i, r)| format!("{}. {}", i + 1, r.text)).collect();
    format!("Team rules:\n{}", lines.join("\n"))
}
