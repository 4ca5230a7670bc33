//! What a connector is, as the UI sees it and sends it, and what a run receives.

use serde::{Deserialize, Serialize};

/// How Clawboo reaches a connector's MCP server.
#[derive(Serialize, Deserialize, specta::Type, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub enum ConnectorKind {
    /// A command started for the run, speaking MCP over its stdin/stdout.
    Stdio,
    /// A streamable-HTTP MCP endpoint.
    Http,
}

impl ConnectorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ConnectorKind::Stdio => "stdio",
            ConnectorKind::Http => "http",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Stdio, Self::Http].into_iter().find(|k| k.as_str() == s)
    }
}

/// An env variable (stdio) or a header (HTTP). A secret's value never leaves the keychain:
/// the UI sees only whether it is set.
#[derive(Serialize, specta::Type, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ConnectorEntry {
    pub key: String,
    /// The plain value; always None for a secret.
    pub value: Option<String>,
    pub secret: bool,
    /// A plain entry is always set; a secret is set when the keychain holds its value.
    pub is_set: bool,
}

#[derive(Serialize, specta::Type, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Connector {
    pub id: String,
    /// Its name: its tools are offered as `<name>__<tool>` (behind Clawboo's server on the CLIs:
    /// `mcp__clawboo__<name>__<tool>` on Claude Code and Hermes).
    pub name: String,
    pub kind: ConnectorKind,
    /// stdio: the program to start.
    pub command: String,
    pub args: Vec<String>,
    /// HTTP: the endpoint.
    pub url: String,
    /// Env (stdio) or headers (HTTP), in the order given.
    pub entries: Vec<ConnectorEntry>,
    pub enabled: bool,
    /// The agents it is shared with.
    pub shared_with: Vec<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    pub updated_at: i64,
}

/// An entry as the user sends it. A secret's `value`: Some sets it in the keychain; None keeps
/// the stored one (or leaves it unset).
#[derive(Deserialize, specta::Type, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ConnectorEntryInput {
    pub key: String,
    pub value: Option<String>,
    pub secret: bool,
}

/// A connector as the user sends it (create and update).
#[derive(Deserialize, specta::Type, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ConnectorInput {
    pub name: String,
    pub kind: ConnectorKind,
    #[serde(default)]
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub entries: Vec<ConnectorEntryInput>,
    pub enabled: bool,
}

/// A well-known MCP server the user could add (the context's "suggested" list and the UI).
#[derive(Serialize, specta::Type, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct SuggestedConnector {
    pub name: &'static str,
    pub description: &'static str,
}

/// A connector as a run receives it: secrets resolved from the keychain. Its values reach
/// the MCP server only (the env of the process Clawboo starts, or the headers Clawboo sends),
/// never a runtime, argv, a file, logs or events; `Debug` prints none of them.
#[derive(Clone, PartialEq, Eq)]
pub struct RunConnector {
    pub name: String,
    pub transport: RunTransport,
}

#[derive(Clone, PartialEq, Eq)]
pub enum RunTransport {
    Stdio { command: String, args: Vec<String>, env: Vec<(String, String)> },
    Http { url: String, headers: Vec<(String, String)> },
}

impl std::fmt::Debug for RunConnector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.transport {
            RunTransport::Stdio { .. } => "stdio",
            RunTransport::Http { .. } => "http",
        };
        f.debug_struct("RunConnector").field("name", &self.name).field("kind", &kind).finish()
    }
}

/// The connectors a run gets, and what kept some of them out (shown on the run as warnings).
#[derive(Debug, Clone, Default)]
pub struct RunConnectors {
    pub connectors: Vec<RunConnector>,
    pub warnings: Vec<String>,
}
