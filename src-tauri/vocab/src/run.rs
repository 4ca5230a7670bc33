//! `RunEvent`: the one vocabulary every runtime's output is normalised into before anything
//! else (store, UI) sees it. The UI never sees a CLI's raw format.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum RunEvent {
    /// The runtime's own session id, stored so the next turn can resume it.
    SessionStarted {
        session_id: String,
    },
    /// A piece of the reply, as it streams.
    TextDelta {
        text: String,
    },
    /// A whole reply message, from runtimes that do not stream tokens.
    Message {
        text: String,
    },
    Thinking {
        text: String,
    },
    ToolCallStarted {
        call_id: String,
        name: String,
        input: serde_json::Value,
    },
    ToolResult {
        call_id: String,
        output: String,
        is_error: bool,
    },
    /// The runtime asks before using a tool; answered with allow or deny.
    PermissionRequest {
        request_id: String,
        tool: String,
        input: serde_json::Value,
        description: String,
    },
    PermissionResolved {
        request_id: String,
        allowed: bool,
    },
    Usage {
        input_tokens: u64,
        output_tokens: u64,
        cache_read_tokens: u64,
        cache_write_tokens: u64,
        cost_usd: Option<f64>,
    },
    /// What Clawboo put in front of the message for this turn beyond the message itself
    /// (recalled saved notes, scratch notes): `summary` is one line, `text` exactly what was sent.
    ContextAdded {
        summary: String,
        text: String,
    },
    /// Something odd that did not stop the run (an unparseable line, a resumed session that
    /// was gone and replaced).
    Warning {
        message: String,
    },
    /// The runtime reported an error; a `Finished` follows.
    Error {
        message: String,
    },
    Finished {
        outcome: RunOutcome,
        message: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    Succeeded,
    Failed,
    Cancelled,
    TimedOut,
}

impl RunOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            RunOutcome::Succeeded => "succeeded",
            RunOutcome::Failed => "failed",
            RunOutcome::Cancelled => "cancelled",
            RunOutcome::TimedOut => "timed_out",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunEventRecord {
    pub run_id: String,
    pub seq: u32,
    pub at: i64,
    pub event: RunEvent,
}
