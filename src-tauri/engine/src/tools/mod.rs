//! Clawboo's own tools, for every runtime: served over a loopback MCP server (streamable HTTP)
//! to the CLIs and in-process to Native. Each run gets its own token, which binds the caller
//! (agent, team, room, run): the server knows who calls from the token alone, and the token dies
//! with its run.
//!
//! CONTRACT (types fixed; server in `server.rs`): the tools module knows nothing of chat or
//! teams. What a tool does is the [`ToolHost`]'s business (the chat service implements it).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

pub use crate::context::ToolName;

/// Who is calling: bound to the run's token when it was granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub run_id: String,
    pub agent_id: String,
    pub agent_handle: String,
    pub team_id: String,
    pub room_id: String,
    /// The tools this run may see and call; anything else is unknown to it.
    pub tools: Vec<ToolName>,
}

/// What a tool call returns to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub text: String,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn ok(text: impl Into<String>) -> Self {
        Self { text: text.into(), is_error: false }
    }

    pub fn error(text: impl Into<String>) -> Self {
        Self { text: text.into(), is_error: true }
    }
}

pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = ToolOutput> + Send + 'a>>;

/// Does what the tools ask, for a bound caller. Arguments are untrusted model output: validate.
pub trait ToolHost: Send + Sync {
    fn call<'a>(&'a self, caller: &'a Caller, tool: ToolName, args: Value) -> ToolFuture<'a>;
}

/// A tool as offered to a model (name, description, JSON schema of its arguments).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: ToolName,
    pub description: &'static str,
    pub input_schema: Value,
}

/// A run's access to Clawboo's tools, handed to its runtime adapter in `TurnInput`.
#[derive(Clone)]
pub struct ToolGrant {
    /// `http://127.0.0.1:P/mcp/<token>`: for CLIs (the token also goes in `Authorization: Bearer`).
    pub url: String,
    pub token: String,
    /// Only the tools this run may use.
    pub specs: Vec<ToolSpec>,
    /// In-process calls for Native, bound to the same caller as the token.
    pub invoker: Arc<dyn Fn(ToolName, Value) -> ToolFuture<'static> + Send + Sync>,
}

impl std::fmt::Debug for ToolGrant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a credential: never printed.
        f.debug_struct("ToolGrant").field("specs", &self.specs.iter().map(|s| s.name).collect::<Vec<_>>()).finish()
    }
}
