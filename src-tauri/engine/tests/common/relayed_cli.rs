//! The four CLI runtimes behind the model relay, as the key and sandbox tests drive them: each
//! CLI's kind, program, provider, shell tool argument and adapter, and the provider they reach.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::relay::{Relay, Upstream};
use clawboo_engine::runtimes::claude_code::ClaudeCodeRuntime;
use clawboo_engine::runtimes::codex::CodexRuntime;
use clawboo_engine::runtimes::hermes::HermesRuntime;
use clawboo_engine::runtimes::openclaw::OpenclawRuntime;
use clawboo_engine::runtimes::process::{Spawner, SystemSpawner};
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{Endpoint, Runtime};
use clawboo_engine::secrets::Provider;

/// The key Settings holds for the provider; no agent may ever see it.
pub const REAL_KEY: &str = "sk-REAL-PROVIDER-KEY-9d41c7e2";
pub const TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(180), grace: Duration::from_secs(3) };

/// The provider as Settings and the keychain have it: the fake server and the real key.
pub struct Provided(pub String);

impl Upstream for Provided {
    fn upstream(&self, provider: Provider) -> clawboo_engine::Result<Endpoint> {
        let base_url = match provider {
            Provider::Anthropic => self.0.clone(),
            _ => format!("{}/v1", self.0),
        };
        Ok(Endpoint { base_url, api_key: Some(REAL_KEY.into()) })
    }
}

#[derive(Debug, Clone, Copy)]
pub enum Cli {
    Claude,
    Codex,
    Hermes,
    Openclaw,
}

impl Cli {
    pub fn kind(self) -> RuntimeKind {
        match self {
            Cli::Claude => RuntimeKind::ClaudeCode,
            Cli::Codex => RuntimeKind::Codex,
            Cli::Hermes => RuntimeKind::Hermes,
            Cli::Openclaw => RuntimeKind::Openclaw,
        }
    }

    pub fn program(self) -> Option<PathBuf> {
        super::cli(match self {
            Cli::Claude => "claude",
            Cli::Codex => "codex",
            Cli::Hermes => "hermes",
            Cli::Openclaw => "openclaw",
        })
    }

    pub fn provider(self) -> Option<Provider> {
        match self {
            Cli::Claude => None,
            Cli::Codex | Cli::Hermes => Some(Provider::OpenAi),
            Cli::Openclaw => Some(Provider::Custom),
        }
    }

    /// The variable the CLI's token sits in, where its tools can see it (Hermes strips it from
    /// the tool's environment; the command still reads it from its parent's, on Linux).
    pub fn token_var(self) -> Option<&'static str> {
        match self {
            Cli::Claude => Some("ANTHROPIC_API_KEY"),
            Cli::Codex => Some("CLAWBOO_OPENAI_API_KEY"),
            Cli::Hermes => Some("CLAWBOO_HERMES_API_KEY"),
            // OpenClaw's exec tool runs with an environment of its own making, under a spawn
            // broker: neither shows the Gateway's variable (openclaw 2026.9.6).
            Cli::Openclaw => None,
        }
    }

    /// The shell tool's argument name.
    pub fn command_field(self) -> &'static str {
        match self {
            Cli::Codex => "cmd",
            _ => "command",
        }
    }

    pub fn runtime(self, relay: Arc<Relay>, env: Vec<(String, String)>) -> Arc<dyn Runtime> {
        let spawner: Arc<dyn Spawner> = Arc::new(SystemSpawner);
        match self {
            Cli::Claude => Arc::new(ClaudeCodeRuntime::new(spawner, relay).with_env(env).with_timeouts(TIMEOUTS)),
            Cli::Codex => Arc::new(CodexRuntime::new(spawner, relay).with_env(env).with_timeouts(TIMEOUTS)),
            Cli::Hermes => Arc::new(HermesRuntime::new(spawner, relay).with_env(env).with_timeouts(TIMEOUTS)),
            Cli::Openclaw => Arc::new(OpenclawRuntime::new(spawner, relay).with_env(env).with_timeouts(TIMEOUTS)),
        }
    }
}
