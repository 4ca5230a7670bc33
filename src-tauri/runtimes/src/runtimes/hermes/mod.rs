//! Adapter: Hermes (`hermes-agent`, PyPI, pinned 0.19.0).
//!
//! Drives `hermes acp`, the Agent Client Protocol over stdio (JSON-RPC 2.0, one message a
//! line), rather than the one-shot `hermes chat -q`: ACP streams the reply as it is written
//! (`agent_message_chunk`), reports tool calls and their results, asks permission through a
//! server request (`session/request_permission`) that the user can answer, cancels politely
//! (`session/cancel`), and says how the turn ended (`stopReason`). The one-shot mode prints
//! only the final text and exits 0 even when the model API failed.
//!
//! Each turn starts one process: `initialize`, then `session/new` (or `session/load` to resume,
//! whose replayed history is not re-emitted; or `session/fork` when SOUL.md changed since the
//! session started, as a loaded session keeps its first system prompt), one `session/prompt`,
//! and stdin is closed.
//!
//! Approvals: Hermes asks (`session/request_permission`) only for commands its own check deems
//! dangerous (`rm -rf`, …) and, in its default mode, for file edits; `approvals.mode: manual`
//! makes it ask the user rather than a model first. Plain commands run without a question, so
//! the read-only policy cannot stop a harmless-looking write such as `touch`.
//!
//! Configuration lives in the agent's private `HERMES_HOME`:
//! - `config.yaml` points Hermes at the agent's provider as a `custom` OpenAI-compatible
//!   endpoint (Chat Completions). The API key is not written there: the file says `api_key: "${CLAWBOO_HERMES_API_KEY}"`
//!   and Hermes expands `${VAR}` from its environment when it loads the config, so the key only
//!   lives in the process's environment. `context_length` and the `security` keys stop it from
//!   fetching model metadata and installing tools from the internet.
//! - `SOUL.md` is Hermes' own identity slot: the first part of its system prompt. The persona is
//!   written there before each turn, so it reaches the model once per request, in the system
//!   prompt, and never enters the conversation history.

mod protocol;
pub mod read_only;

use std::path::Path;
use std::sync::Arc;

use serde_json::json;

pub use protocol::AcpProtocol;

use super::home::{write_private, INHERITED_ENV};
use super::hosted::{self, Reach};
use super::process::{CommandSpec, Spawner};
use super::supervise::{supervise_with, Timeouts};
use super::{
    ApprovalPolicy, Capabilities, EndpointSource, HistoryMode, PersonaDelivery, RunChannels, RunResult, Runtime,
    TurnInput,
};
use crate::agents::RuntimeKind;
use crate::error::{Error, Result};
use crate::secrets::Provider;

/// The variable `config.yaml` takes the API key from.
pub const API_KEY_ENV: &str = "CLAWBOO_HERMES_API_KEY";
/// The model name written when the agent names none.
const DEFAULT_MODEL: &str = "some-model";
/// Hermes asks the endpoint for the window unless told; 128k fits every model it is likely to use.
const CONTEXT_LENGTH: u32 = 128_000;

pub struct HermesRuntime {
    spawner: Arc<dyn Spawner>,
    endpoints: Arc<dyn EndpointSource>,
    extra_env: Vec<(String, String)>,
    timeouts: Timeouts,
}

impl HermesRuntime {
    pub fn new(spawner: Arc<dyn Spawner>, endpoints: Arc<dyn EndpointSource>) -> Self {
        Self { spawner, endpoints, extra_env: Vec::new(), timeouts: Timeouts::default() }
    }

    /// Extra environment for the process (tests point proxies at the fake server).
    pub fn with_env(mut self, env: Vec<(String, String)>) -> Self {
        self.extra_env = env;
        self
    }

    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Writes the agent's Hermes home and returns the command for this turn.
    pub fn prepare(&self, input: &TurnInput) -> Result<CommandSpec> {
        let program = input
            .program
            .clone()
            .ok_or_else(|| Error::RuntimeNotFound("Hermes is not installed (no `hermes` program found).".into()))?;
        let provider = match input.agent.provider {
            None => {
                return Err(Error::InvalidInput(
                    "Pick a provider for this agent on its profile: Hermes can use OpenAI, OpenRouter or a Custom \
                     (OpenAI-compatible) endpoint."
                        .into(),
                ))
            }
            // Hermes' Messages API client needs the `anthropic` Python package, which the
            // `hermes-agent[acp]` install lacks (and lazy installs are off: no internet).
            Some(Provider::Anthropic) => {
                return Err(Error::InvalidInput(
                    "Hermes can use OpenAI, OpenRouter or a Custom (OpenAI-compatible) provider, not Anthropic: \
                     pick one of those on the agent's profile."
                        .into(),
                ))
            }
            Some(p) => p,
        };
        let endpoint = self.endpoints.endpoint(provider, &input.run_id)?;
        let home = input.homes.home(RuntimeKind::Hermes)?;
        let hermes_home = home.join(".hermes");
        crate::config::create_private_dir(&hermes_home)
            .map_err(|e| Error::io(format!("Cannot create {}", hermes_home.display()), e))?;
        let model = if input.agent.model.trim().is_empty() { DEFAULT_MODEL } else { input.agent.model.trim() };
        let mut config = config_yaml(model, &endpoint.base_url, endpoint.api_key.is_some());
        if input.approval == ApprovalPolicy::ReadOnly {
            // Hermes has no read-only mode: Clawboo's guard and deny rule make one. The tools
            // its bridge serves pass (the connectors' ones are held to the policy by the bridge).
            let clawboo_tools = mcp_tool_names(input.tools.as_ref());
            config = read_only::merge(
                &config,
                &read_only::install(&hermes_home, &program, &input.workspace, &clawboo_tools)?,
            );
        }
        write_private(&hermes_home.join("config.yaml"), &config)?;
        // An empty SOUL.md keeps Hermes' built-in identity (and stops it seeding its own file).
        write_private(&hermes_home.join("SOUL.md"), input.persona.as_deref().unwrap_or(""))?;

        let mut env = vec![
            ("HOME".to_owned(), path_str(&home)),
            ("HERMES_HOME".to_owned(), path_str(&hermes_home)),
            ("TMPDIR".to_owned(), path_str(&input.homes.tmp()?)),
            ("HERMES_DISABLE_LAZY_INSTALLS".to_owned(), "1".to_owned()),
            ("PYTHONUNBUFFERED".to_owned(), "1".to_owned()),
        ];
        if let Some(key) = &endpoint.api_key {
            env.push((API_KEY_ENV.to_owned(), key.clone()));
            if provider == Provider::OpenRouter {
                // Hermes takes an openrouter.ai key from here, not from the config.
                env.push(("OPENROUTER_API_KEY".to_owned(), key.clone()));
            }
        }
        env.extend(self.extra_env.iter().cloned());
        let confine = super::sandbox::turn_confinement(input, RuntimeKind::Hermes, &[&endpoint.base_url])?;
        Ok(CommandSpec {
            program,
            args: vec!["acp".to_owned()],
            env,
            inherit_env: INHERITED_ENV.iter().map(|s| (*s).to_owned()).collect(),
            cwd: input.workspace.clone(),
            piped_stdin: true,
            confine,
        })
    }
}

impl Runtime for HermesRuntime {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Hermes
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            streams_text: true,
            context_window: None,
            history: HistoryMode::RuntimeSession,
            persona: PersonaDelivery::SentByClawboo,
            setup_change: super::SetupChange::Fork,
            team_history: super::TeamHistory { leader: super::TurnHistory::Fresh, teammate: super::TurnHistory::Fresh },
        }
    }

    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<RunResult>> + Send + '_>> {
        Box::pin(async move {
            // The connectors run before Hermes starts, so its session lists their tools.
            let Some(connectors) = hosted::start(&input, &channels, &self.spawner, Reach::Bridge).await else {
                return Ok(hosted::cancelled());
            };
            let spec = self.prepare(&input)?;
            let protocol =
                AcpProtocol::new(path_str(&input.workspace), input.text_to_send(), input.resume_session.clone())
                    .forking(input.fork_session)
                    .with_mcp_servers(mcp_servers(input.tools.as_ref()));
            let (spawner, policy, asking) = (self.spawner.as_ref(), input.approval, connectors.asking());
            let ended =
                supervise_with(spawner, &spec, Box::new(protocol), channels, policy, self.timeouts, asking).await;
            connectors.stop().await;
            ended
        })
    }
}

/// How Hermes names the tools the run's bridge serves: `mcp__clawboo__<tool>` for Clawboo's
/// granted tools, then `mcp__clawboo__<connector>__<tool>` for the connectors' it hosts.
fn mcp_tool_names(grant: Option<&crate::tools::ToolGrant>) -> Vec<String> {
    let Some(grant) = grant else { return Vec::new() };
    let own = grant.specs.iter().map(|s| s.name.as_str().to_owned());
    let hosted = grant.hosted().into_iter().map(|s| s.name);
    own.chain(hosted).map(|name| format!("mcp__{}__{name}", crate::tools::SERVER_NAME)).collect()
}

/// ACP `mcpServers` for the session: Clawboo's server alone, its token in a header sent over
/// stdin (never argv, never a file). One `hermes acp` process per run, so the fixed name
/// `clawboo` never meets another run's connection (Hermes keys MCP connections by name per
/// process). The user's connectors are behind it, hosted by Clawboo.
fn mcp_servers(grant: Option<&crate::tools::ToolGrant>) -> serde_json::Value {
    let servers: Vec<serde_json::Value> = grant
        .map(|grant| {
            json!({
                "type": "http",
                "name": crate::tools::SERVER_NAME,
                "url": grant.endpoint,
                "headers": [{"name": "Authorization", "value": format!("Bearer {}", grant.token)}],
            })
        })
        .into_iter()
        .collect();
    serde_json::Value::Array(servers)
}

/// `config.yaml`, written as JSON (which YAML reads as flow style).
pub fn config_yaml(model: &str, base_url: &str, has_key: bool) -> String {
    let mut model_cfg = json!({
        "provider": "custom",
        "default": model,
        "base_url": base_url.trim().trim_end_matches('/'),
        "context_length": CONTEXT_LENGTH,
    });
    if has_key {
        model_cfg["api_key"] = json!(format!("${{{API_KEY_ENV}}}"));
    }
    let config = json!({
        "model": model_cfg,
        // The most of a context file (AGENTS.md of its folder) Hermes reads, fixed rather than
        // scaled by the window, so the limit Clawboo checks against is the one Hermes applies.
        "context_file_max_chars": crate::context::files::HERMES_CONTEXT_FILE_LIMIT,
        "security": {"tirith_enabled": false, "allow_lazy_installs": false},
        // Dangerous commands ask the user (the default, "smart", asks a model first).
        "approvals": {"mode": "manual"},
        // Hermes titles a new session with a model request of its own (a team turn is often a
        // new session): a request the user pays for and Clawboo never shows.
        "auxiliary": {"title_generation": {"enabled": false}},
    });
    let mut text = serde_json::to_string_pretty(&config).unwrap_or_default();
    text.push('\n');
    text
}

fn path_str(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
