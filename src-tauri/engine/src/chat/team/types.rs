//! What team chat hands the UI.

use serde::Serialize;

use crate::chat::RunSummary;
use crate::context::{Section, TurnKind};
pub use crate::run::prepare::placement::Placement;
pub use crate::vocab::{PeerPost, RoomMessage, RoomMessageKind, RoomRoutine};

/// A page of a room, oldest first, with the runs its messages refer to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RoomPage {
    pub messages: Vec<RoomMessage>,
    pub has_older: bool,
    pub runs: Vec<RunSummary>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TeamSendOutcome {
    /// The stored user message, or the notice (for `/reset`, `/rule`).
    pub message: RoomMessage,
    /// The runs started (or queued behind a run already going) for it.
    pub addressed: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum TeamTurnKind {
    Leader,
    Mentioned,
    Teammate,
}

impl TeamTurnKind {
    pub fn of(kind: &TurnKind) -> Self {
        match kind {
            TurnKind::Leader => Self::Leader,
            TurnKind::Mentioned => Self::Mentioned,
            TurnKind::Teammate { .. } => Self::Teammate,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Leader => "leader",
            Self::Mentioned => "mentioned",
            Self::Teammate => "teammate",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Leader, Self::Mentioned, Self::Teammate].into_iter().find(|k| k.as_str() == s)
    }
}

/// Exactly what a team run was given ("What this agent saw").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunContext {
    pub run_id: String,
    pub room_id: String,
    pub turn_kind: TeamTurnKind,
    pub placement: Placement,
    /// The runtime's system/developer slot, when Clawboo filled it.
    pub system_text: Option<String>,
    /// The text placed before the message (sent with it), when any.
    pub preamble: Option<String>,
    /// Every section, in order, with its size and budget; the last is the message.
    pub sections: Vec<Section>,
    /// Whether steady sections were left out because the runtime's session already had them.
    pub steady_in_session: bool,
    /// Items that did not fit and waited for the next turn.
    pub deferred: Vec<String>,
    /// Where each agent file went and whether this run carried it (empty for runs from before
    /// it was kept).
    pub files: Vec<crate::context::files::FileDelivery>,
    pub created_at: i64,
}
