//! What the chat service hands the UI.

use serde::Serialize;

pub use crate::vocab::{ChatMessage, ChatRole, RunErrorCode, RunEventRecord, RunStatus, RunSummary};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ChatPage {
    /// The conversation these messages are of (none before the first message): what its read
    /// mark and its actions are keyed by.
    pub conversation_id: Option<String>,
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
