//! Which runtime drives an agent, and what it may do without asking.

use serde::{Deserialize, Serialize};

/// Which runtime drives the agent. Only stored for now; the runtime layer reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "kebab-case")]
pub enum RuntimeKind {
    ClaudeCode,
    Codex,
    Hermes,
    Openclaw,
    Native,
}

impl RuntimeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RuntimeKind::ClaudeCode => "claude-code",
            RuntimeKind::Codex => "codex",
            RuntimeKind::Hermes => "hermes",
            RuntimeKind::Openclaw => "openclaw",
            RuntimeKind::Native => "native",
        }
    }

    /// The runtime's name as people (and agents) read it.
    pub fn label(self) -> &'static str {
        match self {
            RuntimeKind::ClaudeCode => "Claude Code",
            RuntimeKind::Codex => "Codex",
            RuntimeKind::Hermes => "Hermes",
            RuntimeKind::Openclaw => "OpenClaw",
            RuntimeKind::Native => "Native (built in)",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::ClaudeCode, Self::Codex, Self::Hermes, Self::Openclaw, Self::Native]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// What an agent may do without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalPolicy {
    /// Ask the user before anything that changes files or runs commands.
    Ask,
    /// Allow every tool call.
    AllowAll,
    /// Allow reading; deny everything else without asking.
    ReadOnly,
}

impl ApprovalPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalPolicy::Ask => "ask",
            ApprovalPolicy::AllowAll => "allow_all",
            ApprovalPolicy::ReadOnly => "read_only",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Ask, Self::AllowAll, Self::ReadOnly].into_iter().find(|p| p.as_str() == s)
    }
}
