//! The health of Clawboo's long-lived connection to an OpenClaw Gateway the user runs (on this
//! machine or another), per agent that runs there: what the team's member list and the agent's
//! profile show, and what decides that a turn there is refused or cut off. Never a token.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum GatewayLinkState {
    /// The first connection since the app started (or since the agent's Gateway changed) is
    /// being made.
    Connecting,
    /// Connected; the last ping was answered.
    Connected,
    /// The connection closed, a ping went unanswered, or the Gateway could not be reached:
    /// Clawboo tries again at `retry_at`.
    Lost,
}

impl GatewayLinkState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Connecting => "connecting",
            Self::Connected => "connected",
            Self::Lost => "lost",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct GatewayHealth {
    pub agent_id: String,
    /// The Gateway's address (as the agent's profile has it).
    pub url: String,
    pub state: GatewayLinkState,
    /// The round trip of the last answered ping (or of `connect` before the first ping).
    pub latency_ms: Option<u32>,
    /// The OpenClaw version the Gateway gave when the link connected.
    pub version: Option<String>,
    /// When the link entered `state` (ms since the epoch).
    pub since: i64,
    /// Why the link was last lost or refused.
    pub last_error: Option<String>,
    /// When lost: when Clawboo tries again (ms since the epoch).
    pub retry_at: Option<i64>,
}
