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
//! - With the user's own sign-in (see [`super::signin`]) the agent's provider is not used:
//!   `config.yaml` names no provider and no endpoint, so Hermes takes the one the user signed in
//!   to (`active_provider` of `auth.json`, linked from the user's Hermes folder, never copied),
//!   and no key is in its environment. Its requests go straight to that provider, not through
//!   the relay, so its usage counts as tokens "on your subscription".
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
use super::signin::{self, AccessSource, KeyOnly, Resolved};
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
    access: Arc<dyn AccessSource>,
    /// Where the signed-in provider's requests go instead of its own host (tests: the fake
    /// server); `None` in the app.
    sign_in_base_url: Option<String>,
}

impl HermesRuntime {
    pub fn new(spawner: Arc<dyn Spawner>, endpoints: Arc<dyn EndpointSource>) -> Self {
        Self {
            spawner,
            endpoints,
            extra_env: Vec::new(),
            timeouts: Timeouts::default(),
            access: Arc::new(KeyOnly),
            sign_in_base_url: None,
        }
    }

    /// Decides per turn between the user's own sign-in and a key (the runtime catalog).
    pub fn with_access(mut self, access: Arc<dyn AccessSource>) -> Self {
        self.access = access;
        self
    }

    /// Sends the signed-in provider's requests to `url` (Hermes' own overrides for Nous Portal
    /// and ChatGPT, `NOUS_INFERENCE_BASE_URL` / `HERMES_CODEX_BASE_URL`): tests only.
    pub fn with_sign_in_base_url(mut self, url: Option<String>) -> Self {
        self.sign_in_base_url = url;
        self
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
        // A key counts when the agent's provider is one Hermes can use and can serve the run.
        let key_set = match input.agent.provider {
            Some(p) if p != Provider::Anthropic => self.endpoints.can_serve(p)?,
            _ => false,
        };
        if let Resolved::OwnSignIn(sign_in) = self.access.resolve(RuntimeKind::Hermes, key_set)? {
            return self.prepare_signed_in(input, program, &sign_in);
        }
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
        let (home, hermes_home) = hermes_homes(input)?;
        signin::unlink_hermes_auth(&hermes_home)?;
        let model = if input.agent.model.trim().is_empty() { DEFAULT_MODEL } else { input.agent.model.trim() };
        let config = config_yaml(model, &endpoint.base_url, endpoint.api_key.is_some());
        write_setup(input, &program, &hermes_home, config)?;

        let mut env = base_env(input, &home, &hermes_home)?;
        if let Some(key) = &endpoint.api_key {
            env.push((API_KEY_ENV.to_owned(), key.clone()));
            if provider == Provider::OpenRouter {
                // Hermes takes an openrouter.ai key from here, not from the config.
                env.push(("OPENROUTER_API_KEY".to_owned(), key.clone()));
            }
        }
        env.extend(self.extra_env.iter().cloned());
        let confine = super::sandbox::turn_confinement(input, RuntimeKind::Hermes, &[&endpoint.base_url])?;
        Ok(acp_command(input, program, env, confine))
    }
}

impl HermesRuntime {
    /// The turn on the user's own sign-in: no provider, endpoint or key of Clawboo's; the
    /// user's `auth.json` and its lock linked in, its shared Nous store named, and the sandbox
    /// lets Hermes write just those of the user's and reach its sign-in providers' hosts.
    fn prepare_signed_in(
        &self,
        input: &TurnInput,
        program: std::path::PathBuf,
        sign_in: &signin::OwnSignIn,
    ) -> Result<CommandSpec> {
        let (home, hermes_home) = hermes_homes(input)?;
        let writable = signin::link_hermes_auth(&hermes_home, sign_in)?;
        write_setup(input, &program, &hermes_home, signed_in_config_yaml(input.agent.model.trim()))?;
        let mut env = base_env(input, &home, &hermes_home)?;
        env.push((signin::HERMES_SHARED_AUTH_ENV.to_owned(), path_str(&signin::hermes_shared_dir(sign_in))));
        if let Some(url) = &self.sign_in_base_url {
            env.push(("NOUS_INFERENCE_BASE_URL".to_owned(), url.clone()));
            env.push(("HERMES_CODEX_BASE_URL".to_owned(), url.clone()));
        }
        env.extend(self.extra_env.iter().cloned());
        let sign_in_url = self.sign_in_base_url.clone().unwrap_or_default();
        let mut confine = super::sandbox::turn_confinement(input, RuntimeKind::Hermes, &[&sign_in_url])?;
        super::sandbox::allow_own_sign_in(&mut confine, sign_in.file.as_deref(), signin::HERMES_HOSTS);
        if let Some(c) = confine.as_mut() {
            c.writable.extend(writable.into_iter().filter(|f| Some(f.as_path()) != sign_in.file.as_deref()));
        }
        Ok(acp_command(input, program, env, confine))
    }
}

/// `hermes acp` in the agent's workspace, with the turn's environment and confinement.
fn acp_command(
    input: &TurnInput,
    program: std::path::PathBuf,
    env: Vec<(String, String)>,
    confine: Option<super::sandbox::Confinement>,
) -> CommandSpec {
    CommandSpec {
        program,
        args: vec!["acp".to_owned()],
        env,
        inherit_env: INHERITED_ENV.iter().map(|s| (*s).to_owned()).collect(),
        cwd: input.workspace.clone(),
        piped_stdin: true,
        confine,
    }
}

/// The agent's home for Hermes and, in it, its private `HERMES_HOME`.
fn hermes_homes(input: &TurnInput) -> Result<(std::path::PathBuf, std::path::PathBuf)> {
    let home = input.homes.home(RuntimeKind::Hermes)?;
    let hermes_home = home.join(".hermes");
    crate::config::create_private_dir(&hermes_home)
        .map_err(|e| Error::io(format!("Cannot create {}", hermes_home.display()), e))?;
    Ok((home, hermes_home))
}

/// Writes `config.yaml` (with the read-only guard when the policy says so) and `SOUL.md`.
fn write_setup(input: &TurnInput, program: &Path, hermes_home: &Path, mut config: String) -> Result<()> {
    if input.approval == ApprovalPolicy::ReadOnly {
        // Hermes has no read-only mode: Clawboo's guard and deny rule make one. The tools
        // its bridge serves pass (the connectors' ones are held to the policy by the bridge).
        let clawboo_tools = mcp_tool_names(input.tools.as_ref());
        config =
            read_only::merge(&config, &read_only::install(hermes_home, program, &input.workspace, &clawboo_tools)?);
    }
    write_private(&hermes_home.join("config.yaml"), &config)?;
    // An empty SOUL.md keeps Hermes' built-in identity (and stops it seeding its own file).
    write_private(&hermes_home.join("SOUL.md"), input.persona.as_deref().unwrap_or(""))
}

/// The environment of every turn, key or sign-in.
fn base_env(input: &TurnInput, home: &Path, hermes_home: &Path) -> Result<Vec<(String, String)>> {
    Ok(vec![
        ("HOME".to_owned(), path_str(home)),
        ("HERMES_HOME".to_owned(), path_str(hermes_home)),
        ("TMPDIR".to_owned(), path_str(&input.homes.tmp()?)),
        ("HERMES_DISABLE_LAZY_INSTALLS".to_owned(), "1".to_owned()),
        ("PYTHONUNBUFFERED".to_owned(), "1".to_owned()),
    ])
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

/// `config.yaml` on the user's own sign-in: no provider (Hermes takes the signed-in one), no
/// endpoint and no key; the agent's model when it names one, else the provider's default.
pub fn signed_in_config_yaml(model: &str) -> String {
    let mut model_cfg = json!({ "context_length": CONTEXT_LENGTH });
    if !model.is_empty() {
        model_cfg["default"] = json!(model);
    }
    let config = json!({
        "model": model_cfg,
        "context_file_max_chars": crate::context::files::HERMES_CONTEXT_FILE_LIMIT,
        "security": {"tirith_enabled": false, "allow_lazy_installs": false},
        "approvals": {"mode": "manual"},
    });
    let mut text = serde_json::to_string_pretty(&config).unwrap_or_default();
    text.push('\n');
    text
}

fn path_str(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
