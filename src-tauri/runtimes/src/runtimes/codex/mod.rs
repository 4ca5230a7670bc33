//! Adapter: Codex. Drives `codex app-server --listen stdio://` (JSON-RPC over stdio, one
//! process per turn) rather than `codex exec --json`, because the app server streams the reply
//! token by token (`item/agentMessage/delta`), asks before commands and file changes
//! (`item/*/requestApproval`, answered on stdin), and has a protocol interrupt
//! (`turn/interrupt`). The exec mode prints whole messages, cannot ask, and can only be
//! stopped by a signal.
//!
//! The model endpoint is a custom provider in `$CODEX_HOME/config.toml` (Codex ignores
//! `OPENAI_BASE_URL`); the key travels in an environment variable named by `env_key`, never
//! in the file. The persona goes in the thread's `developerInstructions`: Codex sends it as a
//! developer message once per request. A resumed thread keeps the instructions it started
//! with, so after an edit of SOUL.md the chat service starts a fresh thread that carries the
//! conversation forward (`SetupChange::FreshSession`; see `protocol`).

mod config;
mod items;
mod protocol;
#[cfg(test)]
mod tests;
mod text;

use std::sync::Arc;

pub use protocol::{AppServerProtocol, ThreadSetup};

use super::home::INHERITED_ENV;
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

const AGENTS_MD: &str = "AGENTS.md";

/// The model when the agent names none.
pub const DEFAULT_MODEL: &str = "gpt-5.5";

/// The variable that carries the provider key to Codex (`env_key` in its config).
pub const KEY_ENV: &str = "CLAWBOO_OPENAI_API_KEY";

pub struct CodexRuntime {
    spawner: Arc<dyn Spawner>,
    endpoints: Arc<dyn EndpointSource>,
    access: Arc<dyn AccessSource>,
    /// Where the built-in `openai` provider sends a signed-in user's requests (`openai_base_url`);
    /// None: Codex's own choice (the ChatGPT backend). Tests point it at the fake server.
    sign_in_base_url: Option<String>,
    env: Vec<(String, String)>,
    timeouts: Timeouts,
}

impl CodexRuntime {
    pub fn new(spawner: Arc<dyn Spawner>, endpoints: Arc<dyn EndpointSource>) -> Self {
        Self {
            spawner,
            endpoints,
            access: Arc::new(KeyOnly),
            sign_in_base_url: None,
            env: Vec::new(),
            timeouts: Timeouts::default(),
        }
    }

    /// Decides per turn between the user's own sign-in and the key (default: the key only).
    pub fn with_access(mut self, access: Arc<dyn AccessSource>) -> Self {
        self.access = access;
        self
    }

    pub fn with_sign_in_base_url(mut self, url: Option<String>) -> Self {
        self.sign_in_base_url = url;
        self
    }

    /// Extra environment for the CLI (tests point the proxy variables at the fake server).
    pub fn with_env(mut self, env: Vec<(String, String)>) -> Self {
        self.env = env;
        self
    }

    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// The command and the protocol for one turn; writes the config into the agent's Codex home.
    pub fn prepare(&self, input: &TurnInput) -> Result<(CommandSpec, AppServerProtocol)> {
        let program = input
            .program
            .clone()
            .ok_or_else(|| Error::RuntimeFailed("Codex is not installed: install it, then try again.".into()))?;
        // Decide the sign-in before asking for a grant: a grant counts the run as relayed, and a
        // run on the user's own sign-in must count its tokens on their subscription.
        let access = self.access.resolve(RuntimeKind::Codex, self.endpoints.can_serve(Provider::OpenAi)?)?;
        let endpoint = match access {
            Resolved::ApiKey => super::keyed_endpoint(self.endpoints.as_ref(), Provider::OpenAi, &input.run_id)?,
            Resolved::OwnSignIn(_) => None,
        };
        let model = match input.agent.model.trim() {
            "" => DEFAULT_MODEL.to_owned(),
            model => model.to_owned(),
        };
        let home = input.homes.home(RuntimeKind::Codex)?;
        let tmp = input.homes.tmp()?;

        let mut env = vec![
            ("HOME".to_owned(), home.display().to_string()),
            ("CODEX_HOME".to_owned(), home.display().to_string()),
            ("TMPDIR".to_owned(), tmp.display().to_string()),
        ];
        // Own sign-in vs key. Own sign-in: the built-in `openai` provider with the user's
        // auth.json, linked (never copied) into the agent's home; no key in the environment.
        let permissions = config::Permissions {
            policy: input.approval,
            workspace: &input.workspace,
            program: &program,
            network: input.agent.sandbox.network != super::sandbox::NetworkAccess::ClawbooOnly,
        };
        let endpoint_url = endpoint.as_ref().map(|e| e.base_url.clone()).unwrap_or_default();
        let sign_in_url = self.sign_in_base_url.clone().unwrap_or_default();
        let mut confine = super::sandbox::turn_confinement(input, RuntimeKind::Codex, &[&endpoint_url, &sign_in_url])?;
        match access {
            Resolved::OwnSignIn(sign_in) => {
                super::sandbox::allow_own_sign_in(&mut confine, sign_in.file.as_deref(), signin::CODEX_HOSTS);
                signin::link_codex_auth(&home, &sign_in)?;
                config::write_signed_in(&home, &model, self.sign_in_base_url.as_deref(), &permissions)?;
            }
            Resolved::ApiKey => {
                let endpoint = endpoint.ok_or_else(|| {
                    Error::MissingApiKey("Codex needs an OpenAI API key: add one in Settings > API keys.".into())
                })?;
                signin::unlink_codex_auth(&home)?;
                config::write(&home, &endpoint.base_url, &model, &permissions)?;
                env.push((KEY_ENV.to_owned(), endpoint.api_key.unwrap_or_default()));
            }
        }
        // The agent's AGENTS.md as Codex's own (home-level) AGENTS.md: Codex reads a project's
        // only when the project is trusted, and the agent's folder stays untrusted so its
        // `.codex/config.toml`, hooks and rules (which the agent could write) are never loaded.
        super::home::mirror_file(&input.homes.agent_dir().join(AGENTS_MD), &home.join(AGENTS_MD))?;
        if let Some(grant) = &input.tools {
            env.push((crate::tools::TOKEN_ENV.to_owned(), grant.token.clone()));
        }
        env.extend(self.env.iter().cloned());
        let spec = CommandSpec {
            program,
            args: vec!["app-server".into(), "--listen".into(), "stdio://".into()],
            env,
            inherit_env: INHERITED_ENV.iter().map(|s| (*s).to_owned()).collect(),
            cwd: input.workspace.clone(),
            piped_stdin: true,
            confine,
        };
        let (approval_policy, sandbox) = modes(input.approval);
        let setup = ThreadSetup {
            cwd: input.workspace.display().to_string(),
            model,
            approval_policy,
            sandbox,
            developer_instructions: input.persona.clone().filter(|p| !p.trim().is_empty()),
            config: thread_config(input),
        };
        let protocol = AppServerProtocol::new(setup, input.resume_session.clone(), input.text_to_send())
            .carrying(input.transcript.clone());
        Ok((spec, protocol))
    }
}

/// The thread's `config`: Clawboo's tools server, the only MCP server Codex is given. The
/// user's connectors are behind it, hosted by Clawboo: no connector config, secret or process
/// reaches Codex.
fn thread_config(input: &TurnInput) -> Option<serde_json::Value> {
    let grant = input.tools.as_ref()?;
    Some(mcp_config(&grant.endpoint, !grant.hosted().is_empty()))
}

/// The thread's `config` override giving it Clawboo's tools: the endpoint, the token read by
/// Codex from `CLAWBOO_TOKEN` and sent as `Authorization: Bearer`, and the tools approved
/// up front: Clawboo's own, and the connectors' it hosts, whose every call the bridge holds to
/// the agent's policy itself (asking the user under "ask"), so Codex need not ask again.
/// While connectors are hosted a call may wait for the user's answer: Codex's 60 s limit on a
/// tool call is lifted (the run's own limits and the approval's expiry still hold).
fn mcp_config(endpoint: &str, hosts_connectors: bool) -> serde_json::Value {
    let mut server = serde_json::json!({
        "url": endpoint,
        "bearer_token_env_var": crate::tools::TOKEN_ENV,
        "default_tools_approval_mode": "approve",
    });
    if hosts_connectors {
        server["tool_timeout_sec"] = serde_json::json!(HOSTED_CALL_LIMIT_SECS);
    }
    serde_json::json!({"mcp_servers": {crate::tools::SERVER_NAME: server}})
}

/// How long Codex waits for one call of Clawboo's server while it hosts connectors: a day.
const HOSTED_CALL_LIMIT_SECS: f64 = 86_400.0;

/// Codex's approval policy and sandbox for an agent's policy. "untrusted" makes Codex ask
/// before any command it does not know to be safe, so the supervisor can apply the policy.
/// Read-only names no sandbox mode: a sandbox mode would override the permission profile
/// (`config::READ_ONLY_PROFILE`) that confines reads to the workspace.
pub fn modes(policy: ApprovalPolicy) -> (&'static str, Option<&'static str>) {
    match policy {
        ApprovalPolicy::Ask => ("untrusted", Some("workspace-write")),
        ApprovalPolicy::AllowAll => ("never", Some("workspace-write")),
        ApprovalPolicy::ReadOnly => ("untrusted", None),
    }
}

impl Runtime for CodexRuntime {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Codex
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            streams_text: true,
            context_window: None,
            history: HistoryMode::RuntimeSession,
            persona: PersonaDelivery::SentByClawboo,
            setup_change: super::SetupChange::FreshSession,
            team_history: super::TeamHistory {
                leader: super::TurnHistory::ContinueRoom,
                teammate: super::TurnHistory::Fresh,
            },
        }
    }

    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<RunResult>> + Send + '_>> {
        Box::pin(async move {
            // The connectors run before Codex starts, so its first listing has their tools.
            let Some(connectors) = hosted::start(&input, &channels, &self.spawner, Reach::Bridge).await else {
                return Ok(hosted::cancelled());
            };
            let (spec, protocol) = self.prepare(&input)?;
            let (spawner, policy, asking) = (self.spawner.as_ref(), input.approval, connectors.asking());
            let ended =
                supervise_with(spawner, &spec, Box::new(protocol), channels, policy, self.timeouts, asking).await;
            connectors.stop().await;
            ended
        })
    }
}
