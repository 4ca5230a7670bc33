//! Which of Clawboo's tools a run is offered, and its grant: decided here, once, from what the
//! run is ([`RunKind`]), where the agent sits in it ([`RunRole`]) and what the engine can serve
//! ([`ToolServices`]); callers never pick tools themselves. A tool that is not offered is left
//! out of the run's list (the context contract: "a tool that is off is left out rather than
//! refused"), and a call of it anyway is refused by the bridge as a tool the run does not have.
//!
//! What each role gets, and why (`shared/seeds/clawboo-what-an-agent-sees.md`):
//! - **Solo** (a one-to-one chat): memory, notes and the scratchpad, the Board (its own cards),
//!   `ask_user`, `routine_create` (a routine for itself, the user approves), `search_threads`.
//!   No `handoff` or peer room: it has no team here.
//! - **Leader** (a room's leader on a team turn): `handoff` (while the reply chain has room and
//!   the room holds a teammate), the peer room, memory, the Board, `ask_user` (the user reads its
//!   reply), `search_threads`, and `routine_create` (it may propose a routine for a member; never
//!   on a routine's own run).
//! - **Member** (a member the user mentioned, or one its results came back to): the leader's,
//!   without `routine_create` (proposing the team's routines is the leader's).
//! - **Teammate** (on a task handed to it): no `ask_user` — "nobody can answer its questions
//!   mid-task", it assumes and says so — and no `routine_create`. `handoff` only when someone is
//!   left to hand to: not the one who handed it the task (its reply goes back there anyway).
//! - **Card** (a card's task, or a routine's card): the Board and memory, `ask_user` (the user
//!   reads the card), and the peer room only when the card is on a team's Board.

use std::sync::Arc;

use super::RunKind;
use crate::context::ToolName;
use crate::tools::specs::{BOARD_TOOLS, MEMORY_TOOLS};
use crate::tools::Tools;

/// What the engine can serve a run: the tools bridge, and the services behind each group of
/// tools (without one, its tools are not offered).
#[derive(Clone, Copy, Default)]
pub struct ToolServices<'a> {
    /// None: no tools at all (a user's own OpenClaw Gateway gets them through its node).
    pub bridge: Option<&'a Arc<Tools>>,
    pub memory: bool,
    pub board: bool,
    /// Requests for the user: `ask_user` and `routine_create` raise one.
    pub attention: bool,
}

/// Where the agent sits in a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunRole {
    /// Alone with the user: a one-to-one chat.
    Solo,
    /// A card's task; `team_id` when the card is on a team's Board.
    Card { team_id: Option<String> },
    /// The room's leader on a team turn.
    Leader(InRoom),
    /// A member the user mentioned, or one the results of its hand-offs came back to.
    Member(InRoom),
    /// A teammate on a task handed to it.
    Teammate(InRoom),
}

/// A run in a team's room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InRoom {
    pub team_id: String,
    pub room_id: String,
    /// Another hand-off fits in the reply chain.
    pub chain_has_room: bool,
    /// The agents it could hand work to: the room's other members, less the one who handed it
    /// its task.
    pub can_hand_to: usize,
}

impl RunRole {
    fn room(&self) -> Option<&InRoom> {
        match self {
            Self::Leader(room) | Self::Member(room) | Self::Teammate(room) => Some(room),
            Self::Solo | Self::Card { .. } => None,
        }
    }

    /// The team a run's tools act for (empty outside one).
    pub fn team_id(&self) -> &str {
        match self {
            Self::Card { team_id } => team_id.as_deref().unwrap_or_default(),
            _ => self.room().map_or("", |r| r.team_id.as_str()),
        }
    }

    /// The room a run's tools act in (empty outside one).
    pub fn room_id(&self) -> &str {
        self.room().map_or("", |r| r.room_id.as_str())
    }
}

/// Of the tools a run of `role` is offered, those its turns use now and then, which a runtime
/// that lists tools itself may send only once the model asks for them (Native's `load_tools`):
/// the Board's and routines' tools, notes, the scratchpad, a fact by id, and past chats. A card's
/// run keeps the Board at hand (its task is a card). Hand-offs, the peer room, `memory_search`,
/// `memory_save` and `ask_user` are always sent: the turn's instructions lead with them.
pub fn on_request(role: &RunRole) -> &'static [ToolName] {
    const OCCASIONAL: [ToolName; 9] = [
        ToolName::MemoryGet,
        ToolName::NoteSave,
        ToolName::ScratchWrite,
        ToolName::ScratchPromote,
        ToolName::BoardList,
        ToolName::BoardUpdate,
        ToolName::BoardComment,
        ToolName::SearchThreads,
        ToolName::RoutineCreate,
    ];
    match role {
        RunRole::Card { .. } => &OCCASIONAL[..4],
        RunRole::Solo | RunRole::Leader(_) | RunRole::Member(_) | RunRole::Teammate(_) => &OCCASIONAL,
    }
}

impl ToolServices<'_> {
    /// The tools a run of `kind` by an agent in `role` is offered, in the order they are listed.
    pub fn offered(&self, kind: RunKind, role: &RunRole) -> Vec<ToolName> {
        if self.bridge.is_none() {
            return Vec::new();
        }
        let mut tools = Vec::new();
        let memory = if self.memory { &MEMORY_TOOLS[..] } else { &[] };
        let board = if self.board { &BOARD_TOOLS[..] } else { &[] };
        match role {
            RunRole::Solo => {
                tools.extend(memory.iter().chain(board));
                if self.attention {
                    tools.extend([ToolName::AskUser, ToolName::RoutineCreate]);
                }
                tools.push(ToolName::SearchThreads);
            }
            RunRole::Card { team_id } => {
                // A card run is served whatever the engine holds: its host answers a tool error
                // for a service it lacks.
                tools.extend(BOARD_TOOLS.iter().chain(&MEMORY_TOOLS));
                if team_id.is_some() {
                    tools.extend([ToolName::PeerPost, ToolName::PeerRead]);
                }
                tools.push(ToolName::AskUser);
            }
            RunRole::Leader(room) | RunRole::Member(room) | RunRole::Teammate(room) => {
                if room.chain_has_room && room.can_hand_to > 0 {
                    tools.push(ToolName::Handoff);
                }
                tools.extend([ToolName::PeerPost, ToolName::PeerRead]);
                tools.extend(memory.iter().chain(board));
                let teammate = matches!(role, RunRole::Teammate(_));
                if self.attention && !teammate {
                    tools.push(ToolName::AskUser);
                }
                tools.push(ToolName::SearchThreads);
                let leads = matches!(role, RunRole::Leader(_));
                if leads && self.attention && kind != RunKind::Routine {
                    tools.push(ToolName::RoutineCreate);
                }
            }
        }
        tools
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn room(chain_has_room: bool, can_hand_to: usize) -> InRoom {
        InRoom { team_id: "t".into(), room_id: "r".into(), chain_has_room, can_hand_to }
    }

    /// Every service there; the bridge itself is only checked for presence.
    fn offered(kind: RunKind, role: RunRole) -> Vec<ToolName> {
        let handle = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let bridge = Tools::start(handle.handle()).unwrap();
        let services = ToolServices { bridge: Some(&bridge), memory: true, board: true, attention: true };
        services.offered(kind, &role)
    }

    #[test]
    fn a_one_to_one_run_has_no_team_tools() {
        let tools = offered(RunKind::Message, RunRole::Solo);
        for tool in [ToolName::Handoff, ToolName::PeerPost, ToolName::PeerRead] {
            assert!(!tools.contains(&tool), "{}", tool.as_str());
        }
        assert!(tools.contains(&ToolName::RoutineCreate) && tools.contains(&ToolName::AskUser));
    }

    #[test]
    fn a_leader_keeps_what_it_uses() {
        let tools = offered(RunKind::TeamTurn, RunRole::Leader(room(true, 2)));
        for tool in [ToolName::Handoff, ToolName::PeerPost, ToolName::AskUser, ToolName::RoutineCreate] {
            assert!(tools.contains(&tool), "{}", tool.as_str());
        }
        // A routine's own run proposes no routine.
        let routine = offered(RunKind::Routine, RunRole::Leader(room(true, 2)));
        assert!(!routine.contains(&ToolName::RoutineCreate));
        // Nobody to hand to, or no room left in the chain: no hand-off.
        assert!(!offered(RunKind::TeamTurn, RunRole::Leader(room(true, 0))).contains(&ToolName::Handoff));
        assert!(!offered(RunKind::TeamTurn, RunRole::Leader(room(false, 2))).contains(&ToolName::Handoff));
    }

    #[test]
    fn a_teammate_on_a_hand_off_cannot_ask_or_propose() {
        let tools = offered(RunKind::Handoff, RunRole::Teammate(room(true, 1)));
        assert!(!tools.contains(&ToolName::AskUser), "nobody can answer its questions mid-task");
        assert!(!tools.contains(&ToolName::RoutineCreate));
        assert!(tools.contains(&ToolName::Handoff) && tools.contains(&ToolName::PeerPost));
        // Only the one who handed it the task is left: its reply goes there anyway.
        assert!(!offered(RunKind::Handoff, RunRole::Teammate(room(true, 0))).contains(&ToolName::Handoff));
    }

    #[test]
    fn a_mentioned_member_proposes_no_routine() {
        let tools = offered(RunKind::TeamTurn, RunRole::Member(room(true, 1)));
        assert!(!tools.contains(&ToolName::RoutineCreate));
        assert!(tools.contains(&ToolName::AskUser) && tools.contains(&ToolName::Handoff));
    }

    #[test]
    fn a_card_run_has_peer_tools_only_on_a_team() {
        let own = offered(RunKind::CardTask, RunRole::Card { team_id: None });
        assert!(!own.contains(&ToolName::PeerPost) && !own.contains(&ToolName::PeerRead));
        assert!(!own.contains(&ToolName::Handoff) && !own.contains(&ToolName::RoutineCreate));
        let team = offered(RunKind::CardTask, RunRole::Card { team_id: Some("t".into()) });
        assert!(team.contains(&ToolName::PeerPost) && team.contains(&ToolName::PeerRead));
        assert!(!team.contains(&ToolName::Handoff));
    }

    #[test]
    fn occasional_tools_wait_to_be_asked_for_and_a_card_run_keeps_the_board() {
        let leader = RunRole::Leader(room(true, 2));
        let offered_now = offered(RunKind::TeamTurn, leader.clone());
        let later = on_request(&leader);
        assert!(later.contains(&ToolName::RoutineCreate) && later.contains(&ToolName::BoardList));
        for tool in [ToolName::Handoff, ToolName::PeerPost, ToolName::MemorySearch, ToolName::AskUser] {
            assert!(offered_now.contains(&tool) && !later.contains(&tool), "{}", tool.as_str());
        }
        let card = on_request(&RunRole::Card { team_id: None });
        assert!(card.iter().all(|t| !BOARD_TOOLS.contains(t)), "{card:?}");
        assert!(card.contains(&ToolName::NoteSave));
    }

    #[test]
    fn without_a_bridge_nothing_is_offered() {
        let services = ToolServices { bridge: None, memory: true, board: true, attention: true };
        assert!(services.offered(RunKind::Message, &RunRole::Solo).is_empty());
    }
}
