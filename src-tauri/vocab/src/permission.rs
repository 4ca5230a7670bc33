//! A permission question a running turn asks, and its answer: the runtimes ask, attention (the
//! user's Inbox and the approval rules) answers.

use tokio::sync::oneshot;

/// The user's (or a rule's) answer to a permission question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PermissionAnswer {
    pub allow: bool,
}

/// A permission question waiting for the user.
pub struct PendingPermission {
    pub request_id: String,
    /// What is asked, as in the run's `PermissionRequest` event: for the approval.
    pub tool: String,
    pub input: serde_json::Value,
    pub description: String,
    pub reply: oneshot::Sender<PermissionAnswer>,
}
