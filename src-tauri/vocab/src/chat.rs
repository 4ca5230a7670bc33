//! What a chat is made of, as the services and the UI see it: messages and runs.

use serde::Serialize;

use super::RuntimeKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ChatRole {
    User,
    Assistant,
    /// Said by Clawboo, not by either side ("Conversation reset").
    Notice,
}

impl ChatRole {
    pub fn as_str(self) -> &'static str {
        match self {
            ChatRole::User => "user",
            ChatRole::Assistant => "assistant",
            ChatRole::Notice => "notice",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::User, Self::Assistant, Self::Notice].into_iter().find(|r| r.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ChatMessage {
    pub id: String,
    pub agent_id: String,
    /// Its place in the conversation: 1, 2, 3… A page of history is a range of these.
    pub seq: i64,
    pub role: ChatRole,
    pub content: String,
    pub run_id: Option<String>,
    pub created_at: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Succeeded,
    Failed,
    Cancelled,
    TimedOut,
    /// Clawboo stopped (quit, crash) while the run was going.
    Interrupted,
}

impl RunStatus {
    /// How a finished run is recorded.
    pub fn of(outcome: super::RunOutcome) -> Self {
        match outcome {
            super::RunOutcome::Succeeded => RunStatus::Succeeded,
            super::RunOutcome::Failed => RunStatus::Failed,
            super::RunOutcome::Cancelled => RunStatus::Cancelled,
            super::RunOutcome::TimedOut => RunStatus::TimedOut,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Succeeded => "succeeded",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::TimedOut => "timed_out",
            RunStatus::Interrupted => "interrupted",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Running, Self::Succeeded, Self::Failed, Self::Cancelled, Self::TimedOut, Self::Interrupted]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub id: String,
    pub agent_id: String,
    pub runtime: RuntimeKind,
    pub status: RunStatus,
    pub error: Option<String>,
    pub started_at: i64,
    pub finished_at: Option<i64>,
}
