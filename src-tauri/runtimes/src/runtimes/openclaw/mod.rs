//! Adapter: OpenClaw (`openclaw`), over its Gateway and the Agent Client Protocol.
//!
//! Interface: a long-lived `openclaw gateway run --allow-unconfigured --bind loopback --auth
//! token` per agent (its OpenClaw home), on a free loopback port with a random token, and per
//! turn one `openclaw acp --url ws://127.0.0.1:PORT --token-file F --no-prefix-cwd`: the bridge
//! from the Gateway to ACP over stdio, driven exactly like Hermes' ACP (see
//! [`crate::runtimes::hermes::AcpProtocol`]): `initialize`, `session/new` (or `session/load` to
//! resume), one `session/prompt`, stdin closed.
//!
//! Why: `openclaw agent --local --json`, used before, printed one envelope at the end: no
//! streaming, no questions, and ~13 s of start-up every turn. Over the Gateway and ACP:
//! - streaming: the reply arrives as `agent_message_chunk`s, tool calls and their results as
//!   `tool_call`/`tool_call_update` while they happen.
//! - cancel: `session/cancel`; the bridge answers `stopReason: cancelled` at once and the
//!   Gateway aborts the run. The bridge's process group is then ended by the supervisor; the
//!   Gateway stays up for the next turn.
//! - approvals: under the "ask" policy `tools.exec.mode` is `ask`, so a command outside
//!   OpenClaw's allowlist becomes a Gateway exec approval, which the bridge relays as
//!   `session/request_permission` (options `allow-once`/`deny`); the user answers it. File
//!   tools (write, edit, apply_patch) have no approval step in OpenClaw, so they are denied
//!   unless the policy is "allow all": edits go through commands, which ask. "read only" refuses
//!   commands outside the allowlist without asking.
//! - what ACP leaves out: token usage, and why a turn failed (a failed model call ends the
//!   prompt with a plain `end_turn` and no text). Both are read back from OpenClaw's transcript
//!   after the prompt's answer (see [`transcript`]).
//! - start-up: the Gateway takes ~10–20 s once per agent and app session; each turn's bridge
//!   ~6 s.
//!
//! The Gateway is restarted when it died or when its configuration (provider, model, policy,
//! key, environment) changed, and every Gateway is stopped (its process group, and the spawn
//! broker it starts in a session of its own) when the runtime is dropped, which the engine does
//! on exit. Its heartbeat is off and finished background commands start no turns, so an idle
//! Gateway makes no model calls.
//!
//! An agent may instead name a Gateway the user already runs, here or on another machine (its
//! `openclaw_gateway_url`, the token in the keychain): then no Gateway is started or stopped for
//! it and each turn is only the bridge, connected there, running as a Gateway agent of the
//! Clawboo agent's own with its policy's tool rules (see [`remote`], [`remote_agent`]).
//!
//! Persona: OpenClaw builds its system prompt from the files of its agent workspace, so this is
//! an `OwnSetup` runtime: before each turn the agent's SOUL.md, AGENTS.md, IDENTITY.md and
//! USER.md are copied (when changed) into the workspace under the agent's OpenClaw home, and
//! OpenClaw injects them once into the system prompt of every request. They are never part of
//! the stored conversation. Tools run in the agent's own folder (`agents.defaults.cwd`).
//!
//! Isolation: `OPENCLAW_STATE_DIR`/`OPENCLAW_CONFIG_PATH`/`HOME` point into the agent's OpenClaw
//! home, the log goes there too, update checks, telemetry, Bonjour and channels are off, the
//! Gateway listens on loopback only and wants its token, and the model key and the token reach
//! the processes in environment variables or a private file only, never on a command line.

mod acp;
mod config;
mod device;
mod gateway;
pub mod gateway_health;
mod gateway_node;
mod node;
mod remote;
mod remote_agent;
mod remote_files;
mod remote_tools;
#[cfg(test)]
mod tests;
mod transcript;

use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::agents::RuntimeKind;
use crate::error::{Error, Result};
use crate::secrets::Provider;

use super::home::{write_private, INHERITED_ENV};
use super::hosted::{self, Reach};
use super::process::{CommandSpec, Spawner};
use super::supervise::{supervise_with, Timeouts};
use super::{Capabilities, EndpointSource, HistoryMode, PersonaDelivery, RunChannels, RunResult, Runtime, TurnInput};

pub use acp::OpenclawAcp;
pub use config::{api_for, Layout, WORKSPACE_FILES};
pub use gateway::Address;
pub use gateway::IDLE_STOP as GATEWAY_IDLE_STOP;
pub use node::{node_problem, MIN_NODE};
pub use remote::{bridge_layout, GatewayTokens};
pub use transcript::{session_key, summarize, Mark, TurnSummary};

/// Switches that keep OpenClaw off the network apart from the model endpoint (RUNTIMES.md),
/// and OpenClaw's embedding preset (its docs, gateway/embedding.md) for a host that owns the
/// process and its environment.
const QUIET_ENV: &[(&str, &str)] = &[
    ("OPENCLAW_NO_AUTO_UPDATE", "1"),
    ("DO_NOT_TRACK", "1"),
    ("OPENCLAW_DISABLE_BONJOUR", "1"),
    ("OPENCLAW_SKIP_CHANNELS", "1"),
    ("NO_COLOR", "1"),
    // Commands run with the environment Clawboo gives the Gateway, not one captured from a
    // login shell (a `bash -l`, a `bash -i` and a `node -e` at each Gateway's first command).
    ("OPENCLAW_EXEC_SHELL_SNAPSHOT", "0"),
    // Without this flag every `openclaw` command (a turn's `acp` bridge) starts Node, then
    // starts it again with the flag: one Node start per turn for nothing. The user's own
    // NODE_OPTIONS never reach an agent (not in INHERITED_ENV), so nothing is overridden.
    ("NODE_OPTIONS", "--disable-warning=ExperimentalWarning"),
];

/// How long a starting Gateway may go without printing before it is given up (it takes ~10–20 s
/// to be ready; a start still printing is waited for longer: see `gateway::Launch`).
const GATEWAY_READY: Duration = Duration::from_secs(60);

pub struct OpenclawRuntime {
    spawner: Arc<dyn Spawner>,
    endpoints: Arc<dyn EndpointSource>,
    env: Vec<(String, String)>,
    timeouts: Timeouts,
    gateways: gateway::Gateways,
    /// Tokens of the Gateways users run themselves (see [`remote`]).
    gateway_tokens: Option<Arc<dyn GatewayTokens>>,
    /// Which agents' persona files went to Gateways the user runs in this app session (see
    /// [`remote_files`]).
    remote_personas: remote_files::Holders,
    /// Which tool rules each agent's own Gateway agent got in this app session (see
    /// [`remote_agent`]).
    remote_rules: remote_agent::Applied,
    /// The long-lived links to the Gateways users run, per agent (see [`gateway_health`]): the
    /// engine decides which exist; a turn there is refused while its link is lost, and cut off
    /// when it is lost mid-run.
    health: gateway_health::HealthBoard,
}

/// One prepared turn: the Gateway to have running and the bridge to start.
pub struct Prepared {
    pub gateway: CommandSpec,
    /// Changes whenever the Gateway must be restarted.
    pub fingerprint: u64,
    /// The bridge, without `--url` (the Gateway's port is known once it runs).
    pub bridge: CommandSpec,
    pub layout: Layout,
    /// The file the bridge reads the Gateway's token from.
    pub token_file: std::path::PathBuf,
}

impl OpenclawRuntime {
    pub fn new(spawner: Arc<dyn Spawner>, endpoints: Arc<dyn EndpointSource>) -> Self {
        Self {
            spawner,
            endpoints,
            env: Vec::new(),
            timeouts: Timeouts::default(),
            gateways: Default::default(),
            gateway_tokens: None,
            remote_personas: Default::default(),
            remote_rules: Default::default(),
            health: Default::default(),
        }
    }

    /// The links' board, shared with whoever starts and stops the links (tests set its timing).
    pub fn with_gateway_health(mut self, board: gateway_health::HealthBoard) -> Self {
        self.health = board;
        self
    }

    /// Where the tokens of agents' existing Gateways come from (the keychain, in the app).
    pub fn with_gateway_tokens(mut self, tokens: Arc<dyn GatewayTokens>) -> Self {
        self.gateway_tokens = Some(tokens);
        self
    }

    /// Extra variables for the processes (set last, so they win).
    pub fn with_env(mut self, env: Vec<(String, String)>) -> Self {
        self.env = env;
        self
    }

    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// How long an agent's Gateway no turn uses keeps running ([`GATEWAY_IDLE_STOP`] unless set).
    pub fn with_gateway_idle_stop(mut self, idle: std::time::Duration) -> Self {
        self.gateways = gateway::Gateways::with_idle_stop(idle);
        self
    }

    /// The process id of the Gateway running for an agent home (tests).
    pub fn gateway_pid(&self, openclaw_home: &Path) -> Option<u32> {
        self.gateways.pid(openclaw_home)
    }

    /// Writes the agent's OpenClaw configuration and builds the commands for one turn. Fails
    /// before anything starts when the CLI, the provider or the model is missing.
    pub fn prepare(&self, input: &TurnInput) -> Result<Prepared> {
        let program = input
            .program
            .clone()
            .ok_or_else(|| Error::RuntimeNotFound("OpenClaw (`openclaw`) is not installed or was not found.".into()))?;
        let provider = input.agent.provider.ok_or_else(|| {
            Error::InvalidInput("Pick a model provider for this agent: OpenClaw calls the model with its key.".into())
        })?;
        let model = input.agent.model.trim();
        if model.is_empty() {
            return Err(Error::InvalidInput("Pick a model for this agent: OpenClaw needs one.".into()));
        }
        let endpoint = self.endpoints.lasting_endpoint(provider, &input.agent.id, &input.run_id)?;
        let layout = Layout::new(&input.homes.home(RuntimeKind::Openclaw)?);
        let tmp = input.homes.tmp()?;
        let base_url = match provider {
            // The Anthropic SDK appends `/v1/messages` itself.
            Provider::Anthropic => {
                let url = endpoint.base_url.trim().trim_end_matches('/');
                url.strip_suffix("/v1").unwrap_or(url).to_owned()
            }
            _ => endpoint.base_url.trim().to_owned(),
        };
        let mut config = config::openclaw_json(&layout, provider, &base_url, model, &input.workspace, input.approval);
        // A Gateway has one env for all its sessions: its agent's lasting token on the run's
        // bridge, which acts for the agent's run in progress (never the run's own token, which
        // dies with the run).
        let tools_token = input.tools.as_ref().map(|grant| {
            config::add_clawboo_tools(&mut config, &grant.endpoint);
            grant.lasting_token()
        });
        // The user's connectors are behind Clawboo's server, hosted by Clawboo: no connector
        // config, secret or process reaches OpenClaw. Their tools' names go in the fingerprint
        // below: a Gateway lists a server's tools when it connects, so a new set restarts it.
        let hosted: Vec<String> =
            input.tools.as_ref().map(|g| g.hosted().into_iter().map(|s| s.name).collect()).unwrap_or_default();
        config::prepare(&layout, &config, input.homes.agent_dir())?;

        let path = |p: &Path| p.to_string_lossy().into_owned();
        let mut env: Vec<(String, String)> = vec![
            ("HOME".into(), path(&layout.home)),
            ("OPENCLAW_STATE_DIR".into(), path(&layout.state)),
            ("OPENCLAW_CONFIG_PATH".into(), path(&layout.config)),
            ("TMPDIR".into(), path(&tmp)),
            (
                config::API_KEY_ENV.into(),
                endpoint.api_key.filter(|k| !k.trim().is_empty()).unwrap_or_else(|| "none".into()),
            ),
        ];
        if let Some(token) = tools_token {
            env.push((crate::tools::TOKEN_ENV.into(), token));
        }
        env.extend(QUIET_ENV.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        env.extend(self.env.iter().cloned());
        let confine = super::sandbox::turn_confinement(input, RuntimeKind::Openclaw, &[&base_url])?;
        let spec = |args: &[&str]| CommandSpec {
            program: program.clone(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: env.clone(),
            inherit_env: INHERITED_ENV.iter().map(|s| (*s).to_owned()).collect(),
            cwd: input.workspace.clone(),
            piped_stdin: false,
            confine: confine.clone(),
        };
        let gateway = spec(&["gateway", "run", "--allow-unconfigured", "--bind", "loopback", "--auth", "token"]);
        let token_file = layout.state.join("gateway.token");
        let mut bridge = spec(&["acp", "--token-file", &path(&token_file), "--no-prefix-cwd"]);
        bridge.piped_stdin = true;

        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (&gateway.program, &gateway.args, &gateway.env, &gateway.cwd, config.to_string(), hosted).hash(&mut hasher);
        Ok(Prepared { gateway, fingerprint: hasher.finish(), bridge, layout, token_file })
    }

    async fn run_turn(&self, input: TurnInput, channels: RunChannels) -> Result<RunResult> {
        // Before the Gateway is (re)started, so it lists their tools (a run on a Gateway the
        // user runs has no bridge: each connector is a warning).
        let Some(connectors) = hosted::start(&input, &channels, &self.spawner, Reach::Bridge).await else {
            return Ok(hosted::cancelled());
        };
        if let Some(url) = input.agent.openclaw_gateway_url.clone() {
            // A Gateway the user runs: Clawboo configures only this agent's own agent there.
            return self.run_on_existing_gateway(input, channels, &url).await;
        }
        let ended = self.run_on_own_gateway(&input, channels, connectors.asking()).await;
        connectors.stop().await;
        ended
    }

    async fn run_on_own_gateway(
        &self,
        input: &TurnInput,
        channels: RunChannels,
        asking: Option<tokio::sync::watch::Receiver<usize>>,
    ) -> Result<RunResult> {
        let prepared = self.prepare(input)?;
        let path_var = prepared.gateway.env.iter().rev().find(|(k, _)| k == "PATH").map(|(_, v)| v.into());
        let path_var = path_var.or_else(|| std::env::var_os("PATH"));
        if let Some(problem) = node::node_problem(path_var.as_deref()).await {
            return Err(Error::RuntimeFailed(problem));
        }
        let database = prepared.layout.database();
        // Loading an unknown ACP session would quietly start an empty one.
        let since = match &input.resume_session {
            Some(session) => match transcript::mark(&database, session) {
                Some(mark) => Some(mark),
                None => {
                    let mut result = RunResult::failed(format!("OpenClaw no longer has session {session}."));
                    result.session_missing = true;
                    return Ok(result);
                }
            },
            None => None,
        };
        let launch =
            gateway::Launch { spec: prepared.gateway, fingerprint: prepared.fingerprint, ready_within: GATEWAY_READY };
        let address = self.gateways.ensure(self.spawner.as_ref(), &prepared.layout.home, launch).await?;
        write_private(&prepared.token_file, &address.token)?;
        let mut bridge = prepared.bridge;
        bridge.args.extend(["--url".to_owned(), address.url()]);
        if let Some(c) = bridge.confine.as_mut() {
            c.allow_loopback_url(&address.url());
        }
        let protocol = OpenclawAcp::new(
            input.workspace.to_string_lossy().into_owned(),
            input.text_to_send(),
            input.resume_session.clone(),
            Some(database),
            since,
        );
        let (spawner, policy) = (self.spawner.as_ref(), input.approval);
        let _watching = self.gateways.watch(&prepared.layout.home, channels.events.clone());
        supervise_with(spawner, &bridge, Box::new(protocol), channels, policy, self.timeouts, asking).await
    }
}

impl Drop for OpenclawRuntime {
    /// No Gateway outlives its runtime.
    fn drop(&mut self) {
        self.gateways.stop_all();
    }
}

impl Runtime for OpenclawRuntime {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Openclaw
    }

    fn shutdown(&self) {
        self.gateways.stop_all();
        self.health.stop_all();
    }

    fn ready(&self, agent: &crate::agents::Agent) -> Result<()> {
        gateway_health::refuse_while_lost(&self.health, agent)
    }

    fn gateway_health(&self) -> Option<&gateway_health::HealthBoard> {
        Some(&self.health)
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            streams_text: true,
            context_window: None,
            history: HistoryMode::RuntimeSession,
            persona: PersonaDelivery::OwnSetup,
            setup_change: super::SetupChange::AppliedOnResume,
            team_history: super::TeamHistory {
                leader: super::TurnHistory::OwnSession,
                teammate: super::TurnHistory::OwnSession,
            },
        }
    }

    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<RunResult>> + Send + '_>> {
        Box::pin(self.run_turn(input, channels))
    }
}
