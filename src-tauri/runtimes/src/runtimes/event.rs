//! How a run ended. The events a run reports (`RunEvent`) are shared vocabulary (`crate::vocab`).

pub use crate::vocab::{RunEvent, RunOutcome};

/// How a run ended, with the text to store as the reply and the session to resume next time.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    pub outcome: RunOutcome,
    pub message: Option<String>,
    /// The session asked for with resume no longer exists on the runtime's side: the caller
    /// starts a fresh one and says so.
    pub session_missing: bool,
    /// The run stopped at the runtime's own limit of turns (Native's model calls) before it
    /// finished: the task runner continues it in a fresh session rather than failing it.
    pub turn_limit: bool,
    /// The runtime compacted its session's conversation during the run (Claude Code's
    /// `compact_boundary`, Codex's `thread/compacted`): what was delivered into the session
    /// (BOOTSTRAP.md, scratch notes) may be gone from it, so the next turn sends it again.
    pub compacted: bool,
}

impl RunResult {
    pub fn succeeded() -> Self {
        Self {
            outcome: RunOutcome::Succeeded,
            message: None,
            session_missing: false,
            turn_limit: false,
            compacted: false,
        }
    }

    pub fn failed(message: impl Into<String>) -> Self {
        Self {
            outcome: RunOutcome::Failed,
            message: Some(message.into()),
            session_missing: false,
            turn_limit: false,
            compacted: false,
        }
    }

    /// Stopped by the user, said as every runtime says it.
    pub fn stopped_by_user() -> Self {
        Self::with_outcome(RunOutcome::Cancelled, "Stopped by the user.")
    }

    pub fn with_outcome(outcome: RunOutcome, message: impl Into<String>) -> Self {
        Self { outcome, message: Some(message.into()), session_missing: false, turn_limit: false, compacted: false }
    }

    pub fn to_event(&self) -> RunEvent {
        RunEvent::Finished { outcome: self.outcome, message: self.message.clone() }
    }
}
