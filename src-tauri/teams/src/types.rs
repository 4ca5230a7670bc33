//! What a team is, as the UI and the chat see it, and what the user may send to change one.

use serde::{Deserialize, Serialize};

/// All rules of a team together, in characters (not bytes).
pub const MAX_RULES_CHARS: usize = 4_000;
/// The user's introduction to a team, in characters.
pub const MAX_ABOUT_YOU_CHARS: usize = 4_000;
/// The team brief, in characters. The brief is never sent to agents (seed: left out), so its
/// bound only keeps the row and the dialog reasonable: twice the rules' budget.
pub const MAX_BRIEF_CHARS: usize = 8_000;
/// A team's or a room's name, in characters.
pub const MAX_TEAM_NAME_CHARS: usize = 80;
/// A member's role in a team ("researcher", "reviews the code"), in characters.
pub const MAX_ROLE_CHARS: usize = 200;
/// The name of every team's first room; no other room may take it.
pub const GENERAL_ROOM_NAME: &str = "General";

#[derive(Serialize, specta::Type, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Team {
    pub id: String,
    pub name: String,
    pub brief: String,
    pub about_you: String,
    /// Where runs of the team's cards work when a card names no project folder of its own (a git
    /// repository: one worktree per card).
    pub project_folder: Option<String>,
    /// The effective leader: the stored one if still a member, else the first member; None if
    /// no members.
    pub leader_id: Option<String>,
    pub archived: bool,
    /// In position order.
    pub members: Vec<TeamMember>,
    /// In the order they were added.
    pub rules: Vec<TeamRule>,
    /// General first, then named rooms in the order they were made.
    pub rooms: Vec<Room>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    pub updated_at: i64,
}

impl Team {
    pub fn member_ids(&self) -> Vec<String> {
        self.members.iter().map(|m| m.agent_id.clone()).collect()
    }

    pub fn is_member(&self, agent_id: &str) -> bool {
        self.members.iter().any(|m| m.agent_id == agent_id)
    }

    /// The General room (every team has exactly one).
    pub fn general(&self) -> Option<&Room> {
        self.rooms.iter().find(|r| r.is_general)
    }

    /// All rules' text together, in characters: what counts against [`MAX_RULES_CHARS`].
    pub fn rules_chars(&self) -> usize {
        self.rules.iter().map(|r| r.text.chars().count()).sum()
    }
}

#[derive(Serialize, specta::Type, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TeamMember {
    pub agent_id: String,
    /// What the member does in this team; empty when not set.
    pub role: String,
}

#[derive(Serialize, specta::Type, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct TeamRule {
    pub id: String,
    pub text: String,
    pub created_at: i64,
}

#[derive(Serialize, specta::Type, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Room {
    pub id: String,
    pub team_id: String,
    pub name: String,
    pub is_general: bool,
    /// Effective leader as for [`Team`] (General: always the team's leader).
    pub leader_id: Option<String>,
    /// General: always the team's members (derived, never stored separately). A named room
    /// whose members all left the team has none until the user picks new ones.
    pub member_ids: Vec<String>,
}

#[derive(Deserialize, specta::Type, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct NewTeam {
    pub name: String,
    pub member_ids: Vec<String>,
    /// Default: the first member.
    pub leader_id: Option<String>,
}

#[derive(Deserialize, specta::Type, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct NewRoom {
    pub name: String,
    /// A subset of the team's members.
    pub member_ids: Vec<String>,
    /// Default: the first member.
    pub leader_id: Option<String>,
}

/// Fields left `None` keep their value.
#[derive(Deserialize, specta::Type, Clone, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct RoomPatch {
    pub name: Option<String>,
    pub member_ids: Option<Vec<String>>,
    pub leader_id: Option<String>,
}
