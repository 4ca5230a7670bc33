//! What a team room is made of, as the services and the UI see it.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RoomMessageKind {
    /// The user's message.
    User,
    /// An agent's final reply.
    Reply,
    /// A hand-off card: `content` is the exact task text the teammate received.
    Handoff,
    /// A batch card: `content` is the exact message of results the agent received.
    Batch,
    /// Said by Clawboo (a reset, a rule added, the reply chain stopped…).
    Notice,
}

impl RoomMessageKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Reply => "reply",
            Self::Handoff => "handoff",
            Self::Batch => "batch",
            Self::Notice => "notice",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::User, Self::Reply, Self::Handoff, Self::Batch, Self::Notice].into_iter().find(|k| k.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RoomMessage {
    pub id: String,
    pub room_id: String,
    pub seq: i64,
    pub kind: RoomMessageKind,
    /// The agent that wrote it (reply), handed the work out (handoff) or received the batch.
    pub author_id: Option<String>,
    /// The teammate a hand-off is for.
    pub target_id: Option<String>,
    pub content: String,
    /// Reply: the run that wrote it. Hand-off: the teammate's run on it (once started). Batch: the
    /// run that received it.
    pub run_id: Option<String>,
    pub handoff_id: Option<String>,
    pub created_at: i64,
    /// A user message that is a routine's (its prompt, or a member routine's result): which.
    pub routine: Option<RoomRoutine>,
}

/// The routine behind a room message, for the room to show it as the routine's, not the user's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RoomRoutine {
    pub name: String,
    /// The member that ran it; None for a team's own routine (its leader runs it next).
    pub agent_id: Option<String>,
    /// The card it ran on, when it had one.
    pub card_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PeerPost {
    pub id: String,
    pub team_id: String,
    pub seq: i64,
    pub author_id: Option<String>,
    /// The handle bound to the poster's token when it posted.
    pub author_handle: String,
    pub run_id: Option<String>,
    pub text: String,
    pub created_at: i64,
}
