//! What a team turn is built from, read when its run starts: what the delivery gives the agent
//! to do ([`DeliveryMessage`]), the room, the waiting inbox, and the run prepared by the run
//! layer for its tools ([`TeamTurnParts`]), and its context assembled once ([`AssembledTurn`]).
//! How its session goes on is the run layer's (`run::prepare::session`); recording and
//! launching it: [`super::start`].

use super::batch::{self, BatchResults};
use super::inbox::{self, Claimed};
use super::placement;
use super::store as team_store;
use super::{Deliver, Delivery, MAX_CHAIN_DEPTH};
use crate::agents::Agent;
use crate::chat::Chat;
use crate::context::files::FilePlan;
use crate::context::{self, Assembled, Member, TaskResult, TurnKind, TurnMessage, WaitingItem};
use crate::error::{Error, Result};
use crate::run::prepare::{InRoom, PreparedRun, RunFolder, RunKind, RunRequest, RunRole};
use crate::runtimes::TurnHistory;
use crate::teams::{Room, Team};

/// What a delivery gives its agent to do (see [`Chat::delivery_message`]).
pub(super) struct DeliveryMessage {
    pub(super) kind: TurnKind,
    pub(super) message: TurnMessage,
    /// How deep in a hand-off chain the turn is.
    pub(super) depth: u32,
    /// The hand-off this turn carries out, and who made it.
    pub(super) handoff_id: Option<String>,
    pub(super) from_agent_id: Option<String>,
    /// The turn continues that hand-off with the results of the work its agent handed out for
    /// it: the run that worked on it before (its card is not claimed again).
    pub(super) continues_run: Option<String>,
    /// The hand-offs whose results this turn delivers as its message.
    pub(super) result_ids: Vec<String>,
    pub(super) routine: Option<crate::vocab::routine::RoutineTag>,
}

/// Everything a delivery's turn is built from, read when its run starts (see
/// [`Chat::team_turn_parts`]).
pub(super) struct TeamTurnParts {
    pub(super) team: Team,
    pub(super) room: Room,
    pub(super) what: DeliveryMessage,
    pub(super) routine_note: Option<context::RoutineNote>,
    /// The run as the run layer prepared it: the agent, its runtime, tools and files.
    pub(super) prepared: PreparedRun,
    pub(super) history: TurnHistory,
    /// What waits in the inbox (alerts and notices, results no batch carried, unseen peer
    /// posts), by id, and as the context shows it.
    pub(super) waiting_ids: Claimed,
    pub(super) waiting: Vec<WaitingItem>,
    pub(super) peer_posts: Vec<context::PeerPost>,
    pub(super) members: Vec<Member>,
    pub(super) rules: Vec<String>,
    pub(super) connectors_slot: Option<context::Connectors>,
}

impl TeamTurnParts {
    /// The turn's context with the agent's files placed as `files` says. Pure.
    pub(super) fn assemble(&self, files: &FilePlan) -> Assembled {
        let (team, room, agent) = (&self.team, &self.room, &self.prepared.agent);
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
            tools: &self.prepared.tools,
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
    pub(super) fn assemble_turn(&self) -> Result<AssembledTurn> {
        // What a session starts with does not depend on the session: its budgets were checked
        // when the run was prepared, and the steady sections are fingerprinted from it.
        let new_session_files = &self.prepared.new_session_files;
        let assembled = self.assemble(new_session_files);
        let fingerprint = placement::fingerprint(&assembled, new_session_files);
        let delivered = |ids: &[String]| -> Vec<String> {
            ids.iter().filter(|id| assembled.delivered.contains(id)).cloned().collect()
        };
        let carried = Claimed {
            items: delivered(&self.waiting_ids.items),
            results: delivered(&self.waiting_ids.results),
            posts: delivered(&self.waiting_ids.posts),
        };
        let message_text = assembled.message_text();
        Ok(AssembledTurn { assembled, fingerprint, carried, message_text })
    }
}

/// A team turn's context, assembled once (see [`TeamTurnParts::assemble_turn`]).
pub(super) struct AssembledTurn {
    /// As a new session gets it (with the prepared run's `new_session_files`); placed for the
    /// turn's own session in `record_team_turn`.
    pub(super) assembled: Assembled,
    pub(super) fingerprint: String,
    /// What of the inbox the turn carries (the rest waits for the next turn).
    pub(super) carried: Claimed,
    pub(super) message_text: String,
}

impl Chat {
    /// What `delivery`'s turn is built from: the room and its members, what the agent is to do,
    /// its runtime, the waiting items, its tools and files.
    pub(super) fn team_turn_parts(&self, delivery: &Delivery) -> Result<TeamTurnParts> {
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
        // Waiting items are read now, when the run starts, not when they were queued. Results
        // no batch carried come first (a batch turn's results are its message). A routine's
        // fresh conversation neither carries nor uses them up: they wait for the room's own.
        let (results, items, posts) = if what.routine.is_some() {
            (Vec::new(), Vec::new(), Vec::new())
        } else {
            self.store.read(|c| {
                let results = match delivery.what {
                    Deliver::Batch => Vec::new(),
                    _ => inbox::waiting_results(c, &room.id, &agent.id)?,
                };
                Ok((
                    results,
                    inbox::waiting_items(c, &room.id, &agent.id)?,
                    inbox::unseen_posts(c, &team.id, &agent.id)?,
                ))
            })?
        };
        let waiting_ids = Claimed {
            items: items.iter().map(|(i, _)| i.id.clone()).collect(),
            results: results.iter().map(|h| h.id.clone()).collect(),
            posts: posts.iter().map(|p| p.id.clone()).collect(),
        };
        let waiting: Vec<WaitingItem> = results
            .iter()
            .map(|h| inbox::result_item(h, handle_of(&h.to_agent_id)))
            .chain(
                items.iter().map(|(item, from)| WaitingItem { from: from.as_deref().map(&handle_of), ..item.clone() }),
            )
            .collect();
        let peer_posts: Vec<context::PeerPost> = posts
            .iter()
            .map(|p| context::PeerPost { id: p.id.clone(), author: p.author_handle.clone(), text: p.text.clone() })
            .collect();
        let kind = match what.kind {
            _ if what.routine.is_some() => RunKind::Routine,
            TurnKind::Teammate { .. } => RunKind::Handoff,
            _ => RunKind::TeamTurn,
        };
        let role = run_role(&team, &room, &members, &agent, &what, is_leader);
        let request = RunRequest { kind, agent, folder: RunFolder::AgentWorkspace, role, heartbeat: false };
        let prepared = self.preparer().prepare(request)?;
        let team_history = &prepared.runtime.capabilities.team_history;
        let history = match what.kind {
            // Each routine run is a fresh conversation; the room's own goes on untouched.
            _ if what.routine.is_some() => TurnHistory::Fresh,
            TurnKind::Teammate { .. } => team_history.teammate,
            _ => team_history.leader,
        };
        let context_members = context_members(&team, &room, &members);
        let rules: Vec<String> = team.rules.iter().map(|r| r.text.clone()).collect();
        // Seed item 7: shown only on turns the user reads (the assembler decides which).
        // Read only for those turns: a teammate's task turn would throw it away.
        let connectors_slot = what.kind.user_reads().then(|| self.connectors_slot(&prepared.agent.id)).flatten();
        Ok(TeamTurnParts {
            waiting_ids,
            team,
            room,
            what,
            routine_note,
            prepared,
            history,
            waiting,
            peer_posts,
            members: context_members,
            rules,
            connectors_slot,
        })
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
        let routine = match &delivery.what {
            Deliver::User { routine: Some(tag), .. } => Some(tag.clone()),
            _ => None,
        };
        let mut what = DeliveryMessage {
            kind: TurnKind::Leader,
            message: TurnMessage::User(String::new()),
            depth: delivery.depth,
            handoff_id: None,
            from_agent_id: None,
            continues_run: None,
            result_ids: Vec::new(),
            routine,
        };
        match &delivery.what {
            Deliver::User { text, mentioned, .. } => {
                what.kind = if *mentioned { TurnKind::Mentioned } else { TurnKind::Leader };
                what.message = TurnMessage::User(text.clone());
            }
            Deliver::Task { handoff_id: id } => {
                let handoff = self
                    .store
                    .read(|c| team_store::handoff(c, id))?
                    .filter(|h| h.status == "queued")
                    .ok_or_else(|| Error::RunNotActive("That task is no longer waiting.".into()))?;
                what.depth = handoff.depth;
                what.handoff_id = Some(handoff.id.clone());
                what.from_agent_id = Some(handoff.from_agent_id.clone());
                what.kind = TurnKind::Teammate { from: handle_of(&handoff.from_agent_id) };
                what.message = TurnMessage::Task(handoff.task);
            }
            Deliver::Batch => {
                let BatchResults { results, continues } =
                    self.store.read(|c| batch::next_batch(c, room_id, &delivery.agent_id))?;
                if results.is_empty() {
                    return Err(Error::RunNotActive("No results are waiting.".into()));
                }
                what.depth = results.iter().map(|h| h.depth).max().unwrap_or(0);
                what.result_ids = results.iter().map(|h| h.id.clone()).collect();
                let results: Vec<TaskResult> = results
                    .into_iter()
                    .map(|h| TaskResult {
                        from: handle_of(&h.to_agent_id),
                        failed: h.status != "done",
                        task: h.task,
                        reply: h.result.unwrap_or_default(),
                    })
                    .collect();
                match continues {
                    // A chain: the agent's own task goes on with the results, its reply goes up.
                    Some(task) => {
                        what.kind = TurnKind::Teammate { from: handle_of(&task.from_agent_id) };
                        what.message = TurnMessage::TaskResults { task: task.task, results };
                        what.from_agent_id = Some(task.from_agent_id);
                        what.continues_run = task.run_id;
                        what.handoff_id = Some(task.id);
                    }
                    None => {
                        what.kind = if is_leader { TurnKind::Leader } else { TurnKind::Mentioned };
                        what.message = TurnMessage::Results(results);
                    }
                }
            }
        }
        Ok(what)
    }
}

/// Where the agent sits in its turn, which decides its tools (`run::prepare::offer`): a
/// teammate on a task, the room's leader, or a member the user (or its results) addressed. It
/// can hand work to the room's other members while the reply chain has room, but not to the one
/// who handed it its task: its reply goes back there anyway.
fn run_role(
    team: &Team,
    room: &Room,
    members: &[Agent],
    agent: &Agent,
    what: &DeliveryMessage,
    is_leader: bool,
) -> RunRole {
    let can_hand_to =
        members.iter().filter(|m| m.id != agent.id && what.from_agent_id.as_deref() != Some(m.id.as_str())).count();
    let in_room = InRoom {
        team_id: team.id.clone(),
        room_id: room.id.clone(),
        chain_has_room: what.depth < MAX_CHAIN_DEPTH,
        can_hand_to,
    };
    match what.kind {
        TurnKind::Teammate { .. } => RunRole::Teammate(in_room),
        _ if is_leader => RunRole::Leader(in_room),
        _ => RunRole::Member(in_room),
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
