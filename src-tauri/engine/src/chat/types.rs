//! What the chat service hands the UI.

use serde::Serialize;

use crate::agents::RuntimeKind;
pub use crate::vocab::RunEventRecord;

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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ChatPage {
    /// Oldest first.
    pub messages: Vec<ChatMessage>,
    /// Whether messages older than the first of this page exist.
    pub has_older: bool,
    /// The runs these messages refer to, in the order first referred to.
    pub runs: Vec<RunSummary>,
    /// The conversation's run in progress, whichever page it falls on.
    pub active_run: Option<RunSummary>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SendOutcome {
    /// The stored user message, or the notice for `/reset` and `/new`.
    pub message: ChatMessage,
    pub run: Option<RunSummary>,
}
