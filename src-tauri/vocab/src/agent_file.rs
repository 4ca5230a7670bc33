//! The names of the files in an agent's workspace that the app reads and writes.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, specta::Type)]
pub enum AgentFileName {
    #[serde(rename = "SOUL.md")]
    Soul,
    #[serde(rename = "AGENTS.md")]
    Agents,
    #[serde(rename = "IDENTITY.md")]
    Identity,
    #[serde(rename = "USER.md")]
    User,
    #[serde(rename = "MEMORY.md")]
    Memory,
    #[serde(rename = "BOOTSTRAP.md")]
    Bootstrap,
    #[serde(rename = "HEARTBEAT.md")]
    Heartbeat,
}

impl AgentFileName {
    /// In the order the editor shows them.
    pub const ALL: [AgentFileName; 7] = [
        AgentFileName::Soul,
        AgentFileName::Agents,
        AgentFileName::Identity,
        AgentFileName::User,
        AgentFileName::Memory,
        AgentFileName::Bootstrap,
        AgentFileName::Heartbeat,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AgentFileName::Soul => "SOUL.md",
            AgentFileName::Agents => "AGENTS.md",
            AgentFileName::Identity => "IDENTITY.md",
            AgentFileName::User => "USER.md",
            AgentFileName::Memory => "MEMORY.md",
            AgentFileName::Bootstrap => "BOOTSTRAP.md",
            AgentFileName::Heartbeat => "HEARTBEAT.md",
        }
    }

    /// Parses a name coming from outside (the UI, a watcher path). Exact match only.
    pub fn parse(name: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == name).ok_or_else(|| Error::ForbiddenFileName(name.to_owned()))
    }
}

impl std::fmt::Display for AgentFileName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
