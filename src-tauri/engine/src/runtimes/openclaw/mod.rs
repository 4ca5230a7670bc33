//! Adapter: OpenClaw (`openclaw`), one process per turn:
//! `openclaw agent --local --session-id ID --message-file FILE --json [--timeout S]`.
//!
//! Why this interface: it is the simplest robust one. `--local` runs OpenClaw's embedded agent
//! in the process itself (no Gateway to start, authenticate and keep alive between turns, no
//! port), keeps a persistent session under the id we choose, and prints one JSON envelope at
//! the end. The costs, and what the Gateway (`openclaw gateway run` + its WebSocket protocol, or
//! `openclaw acp` bridging it to ACP) would add:
//! - streaming: none. The reply arrives whole (`Message`), with token usage; tool calls and
//!   results are read back from the session transcript OpenClaw just wrote, because the
//!   envelope only counts them. The Gateway streams `chat` deltas.
//! - cancel: SIGINT (and SIGTERM) end the process with 143 right away; the supervisor's signal
//!   ladder is the whole cancel, and the run is reported cancelled.
//! - approvals: a headless turn cannot ask anybody, so the agent's policy is applied in
//!   `openclaw.json` up front: "allow all" runs commands freely (`tools.exec.mode: full`);
//!   "read only" and "ask" refuse file edits and any command outside OpenClaw's allowlist.
//!   Asking per call needs the Gateway's exec-approval events.
//! - start-up: ~13 s per turn (Node loads OpenClaw and its database each time).
//!
//! Persona: OpenClaw builds its system prompt from the files of its agent workspace, so this is
//! an `OwnSetup` runtime: before each turn the agent's SOUL.md, AGENTS.md, IDENTITY.md and
//! USER.md are copied (when changed) into the workspace under the agent's OpenClaw home, and
//! OpenClaw injects them once into the system prompt of every request. They are never part of
//! the stored conversation. Tools run in the agent's own folder (`agents.defaults.cwd`).
//!
//! Isolation: `OPENCLAW_STATE_DIR`/`OPENCLAW_CONFIG_PATH`/`HOME` point into the agent's OpenClaw
//! home, the log goes there too, update checks, telemetry, Bonjour and channels are off, and the
//! model key reaches the process in an environment variable only.

mod config;
mod node;
mod protocol;
#[cfg(test)]
mod tests;
mod transcript;

use std::sync::Arc;
use std::time::Duration;

use crate::agents::RuntimeKind;
use crate::error::{Error, Result};
use crate::secrets::Provider;

use super::home::INHERITED_ENV;
use super::process::{CommandSpec, Spawner};
use super::supervise::{supervise, Timeouts};
use super::{
    Capabilities, EndpointSource, HistoryMode, PersonaDelivery, RunChannels, RunEvent, RunResult, Runtime, TurnInput,
};

pub use config::{api_for, Layout, WORKSPACE_FILES};
pub use node::{node_problem, MIN_NODE};
pub use protocol::EnvelopeProtocol;
pub use transcript::{message_events, session_exists, tool_events};

/// Switches that keep OpenClaw off the network apart from the model endpoint (RUNTIMES.md).
const QUIET_ENV: &[(&str, &str)] = &[
    ("OPENCLAW_NO_AUTO_UPDATE", "1"),
    ("DO_NOT_TRACK", "1"),
    ("OPENCLAW_DISABLE_BONJOUR", "1"),
    ("OPENCLAW_SKIP_CHANNELS", "1"),
    ("NO_COLOR", "1"),
];

/// Without streaming, the silence limit is the whole turn's limit.
const DEFAULT_TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(30 * 60), grace: Duration::from_secs(3) };

pub struct OpenclawRuntime {
    spawner: Arc<dyn Spawner>,
    endpoints: Arc<dyn EndpointSource>,
    env: Vec<(String, String)>,
    timeouts: Timeouts,
}

/// One prepared turn: the command and what its protocol needs.
pub struct Prepared {
    pub spec: CommandSpec,
    pub session_id: String,
    pub layout: Layout,
    /// The file holding the user's message, removed after the turn.
    pub message_file: std::path::PathBuf,
}

impl OpenclawRuntime {
    pub fn new(spawner: Arc<dyn Spawner>, endpoints: Arc<dyn EndpointSource>) -> Self {
        Self { spawner, endpoints, env: Vec::new(), timeouts: DEFAULT_TIMEOUTS }
    }

    /// Extra variables for the process (set last, so they win).
    pub fn with_env(mut self, env: Vec<(String, String)>) -> Self {
        self.env = env;
        self
    }

    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Writes the agent's OpenClaw configuration and builds the command for one turn. Fails
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
        let endpoint = self.endpoints.endpoint(provider)?;
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
        let config = config::openclaw_json(&layout, provider, &base_url, model, &input.workspace, input.approval);
        config::prepare(&layout, &config, &input.workspace)?;

        let session_id = input.resume_session.clone().unwrap_or_else(|| format!("clawboo-{}", uuid::Uuid::new_v4()));
        let message_file = tmp.join(format!("openclaw-message-{}.txt", input.run_id));
        std::fs::write(&message_file, &input.message)
            .map_err(|e| Error::io(format!("Cannot write {}", message_file.display()), e))?;

        let path = |p: &std::path::Path| p.to_string_lossy().into_owned();
        // OpenClaw's own deadline, inside ours, so it can end the turn itself.
        let deadline = self.timeouts.silence.as_secs().saturating_sub(30).max(60);
        let args = vec![
            "agent".into(),
            "--local".into(),
            "--session-id".into(),
            session_id.clone(),
            "--message-file".into(),
            path(&message_file),
            "--json".into(),
            "--timeout".into(),
            deadline.to_string(),
        ];
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
        env.extend(QUIET_ENV.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        env.extend(self.env.iter().cloned());
        let spec = CommandSpec {
            program,
            args,
            env,
            inherit_env: INHERITED_ENV.iter().map(|s| (*s).to_owned()).collect(),
            cwd: input.workspace.clone(),
            piped_stdin: false,
        };
        Ok(Prepared { spec, session_id, layout, message_file })
    }

    async fn run_turn(&self, input: TurnInput, channels: RunChannels) -> Result<RunResult> {
        let prepared = self.prepare(&input)?;
        let path_var = prepared.spec.env.iter().rev().find(|(k, _)| k == "PATH").map(|(_, v)| v.into());
        let path_var = path_var.or_else(|| std::env::var_os("PATH"));
        if let Some(problem) = node::node_problem(path_var.as_deref()).await {
            let _ = std::fs::remove_file(&prepared.message_file);
            return Err(Error::RuntimeFailed(problem));
        }
        let database = prepared.layout.database();
        if let Some(session) = &input.resume_session {
            if !transcript::session_exists(&database, session) {
                let _ = std::fs::remove_file(&prepared.message_file);
                let mut result = RunResult::failed(format!("OpenClaw no longer has session {session}."));
                result.session_missing = true;
                return Ok(result);
            }
        }
        channels.emit(RunEvent::SessionStarted { session_id: prepared.session_id.clone() });
        let protocol = EnvelopeProtocol::new(prepared.session_id.clone(), Some(database));
        let result = supervise(
            self.spawner.as_ref(),
            &prepared.spec,
            Box::new(protocol),
            channels,
            input.approval,
            self.timeouts,
        )
        .await;
        let _ = std::fs::remove_file(&prepared.message_file);
        result
    }
}

impl Runtime for OpenclawRuntime {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Openclaw
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            streams_text: false,
            context_window: None,
            history: HistoryMode::RuntimeSession,
            persona: PersonaDelivery::OwnSetup,
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
