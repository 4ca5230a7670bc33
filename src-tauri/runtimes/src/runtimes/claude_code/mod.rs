//! Adapter: Claude Code (`claude`), driven in its long-lived duplex mode, one process per turn:
//! `claude -p --input-format stream-json --output-format stream-json --verbose
//! --permission-prompt-tool stdio --include-partial-messages --system-prompt-snapshot off
//! [--resume ID] [--model M] --append-system-prompt-file PERSONA_FILE`.
//!
//! Why this interface rather than the one-shot `claude -p "<prompt>"`:
//! - streaming: `--include-partial-messages` gives the model's tokens as `stream_event` lines
//!   (text deltas), not just whole messages;
//! - approvals: with `--permission-prompt-tool stdio` every tool use Claude would ask about
//!   arrives as a `can_use_tool` control request on stdout and is answered on stdin, so the
//!   agent's approval policy (and the user, under "ask") decides; no bypass mode is needed
//!   (which, as root, would also need `IS_SANDBOX`);
//! - cancel: an `interrupt` control request ends the turn cleanly with a `result` line and a
//!   transcript Claude can resume; signals remain the supervisor's fallback.
//!
//! After the `result` line stdin is closed and Claude exits. The persona goes in
//! `--append-system-prompt-file` (off the command line, where `ps` would show it): appended to Claude's own system prompt, once per request, never
//! as a message of the resumable transcript. `--system-prompt-snapshot off` keeps Claude from
//! recording the first turn's system prompt and replaying it on resume (the default in
//! 2.1.332), so each turn carries the SOUL.md of now.

mod protocol;
mod settings;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::agents::RuntimeKind;
use crate::error::{Error, Result};
use crate::secrets::Provider;

use super::detect::{self, Help};
use super::home::INHERITED_ENV;
use super::hosted::{self, Reach};
use super::process::{CommandSpec, Spawner};
use super::sandbox;
use super::signin::{self, AccessSource, KeyOnly, Resolved};
use super::supervise::{supervise_with, Timeouts};
use super::{Capabilities, EndpointSource, HistoryMode, PersonaDelivery, RunChannels, RunResult, Runtime, TurnInput};

pub use protocol::{is_read_only, DuplexProtocol};
pub use settings::{READ_ONLY_BUILTINS, READ_ONLY_REMOVED};

const MISSING_KEY: &str = "Add an Anthropic API key in Settings > API keys: Claude Code runs with it.";

/// Switches that keep Claude Code off the network apart from the model endpoint, and quick to
/// fail (RUNTIMES.md).
const QUIET_ENV: &[(&str, &str)] = &[
    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
    ("DISABLE_AUTOUPDATER", "1"),
    ("DISABLE_TELEMETRY", "1"),
    ("DISABLE_ERROR_REPORTING", "1"),
    ("CLAUDE_CODE_MAX_RETRIES", "1"),
];

pub struct ClaudeCodeRuntime {
    spawner: Arc<dyn Spawner>,
    endpoints: Arc<dyn EndpointSource>,
    access: Arc<dyn AccessSource>,
    env: Vec<(String, String)>,
    timeouts: Timeouts,
}

impl ClaudeCodeRuntime {
    pub fn new(spawner: Arc<dyn Spawner>, endpoints: Arc<dyn EndpointSource>) -> Self {
        Self { spawner, endpoints, access: Arc::new(KeyOnly), env: Vec::new(), timeouts: Timeouts::default() }
    }

    /// Decides per turn between the user's own sign-in and the key (default: the key only).
    pub fn with_access(mut self, access: Arc<dyn AccessSource>) -> Self {
        self.access = access;
        self
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

    /// The command for one turn. Fails before anything starts when the CLI or the key is missing,
    /// or when the CLI's `--help` cannot be read (RuntimeProbeFailed: without it, the flags that
    /// confine Claude cannot be chosen). Blocking: asks `claude --help` unless it answered before.
    pub fn command(&self, input: &TurnInput) -> Result<CommandSpec> {
        self.command_with(input, detect::help)
    }

    /// [`Self::command`], with `help` asked for the CLI's `--help` (once the key or sign-in is
    /// settled).
    fn command_with(
        &self,
        input: &TurnInput,
        help: impl FnOnce(&std::path::Path, &std::path::Path) -> std::result::Result<Help, String>,
    ) -> Result<CommandSpec> {
        let program = input.program.clone().ok_or_else(|| {
            Error::RuntimeNotFound("Claude Code (`claude`) is not installed or was not found.".into())
        })?;
        // Decide the sign-in before asking for a grant: a grant counts the run as relayed, and a
        // run on the user's own sign-in must count its tokens on their subscription.
        let access = self.access.resolve(RuntimeKind::ClaudeCode, self.endpoints.can_serve(Provider::Anthropic)?)?;
        let endpoint = match access {
            Resolved::ApiKey => super::keyed_endpoint(self.endpoints.as_ref(), Provider::Anthropic, &input.run_id)?,
            Resolved::OwnSignIn(_) => None,
        };
        let home = input.homes.home(RuntimeKind::ClaudeCode)?;
        let tmp = input.homes.tmp()?;
        let path = |p: &std::path::Path| p.to_string_lossy().into_owned();
        let endpoint_url = endpoint.as_ref().map(|e| e.base_url.clone()).unwrap_or_default();
        // Endpoints set in the adapter's own environment (an own sign-in's endpoint) too.
        let mut urls: Vec<&str> = vec![&endpoint_url];
        urls.extend(self.env.iter().map(|(_, v)| v.as_str()).filter(|v| v.contains("://")));
        let mut confine = sandbox::turn_confinement(input, RuntimeKind::ClaudeCode, &urls)?;
        let mut env: Vec<(String, String)> = vec![
            ("HOME".into(), path(&home)),
            ("CLAUDE_CONFIG_DIR".into(), path(&home)),
            ("TMPDIR".into(), path(&tmp)),
            ("CLAUDE_CODE_TMPDIR".into(), path(&tmp)),
        ];
        // Own sign-in vs key. Own sign-in: Claude reads and refreshes the user's credentials
        // where they live and calls its own endpoint; no key, no base URL from Settings.
        match access {
            Resolved::OwnSignIn(sign_in) => {
                sandbox::allow_own_sign_in(&mut confine, sign_in.file.as_deref(), signin::CLAUDE_HOSTS);
                env.push(signin::claude_env(&sign_in))
            }
            Resolved::ApiKey => {
                let endpoint = endpoint.ok_or_else(|| Error::MissingApiKey(MISSING_KEY.into()))?;
                env.push(("ANTHROPIC_BASE_URL".into(), base_url(&endpoint.base_url)));
                env.push(("ANTHROPIC_API_KEY".into(), endpoint.api_key.unwrap_or_default()));
            }
        }
        if let Some(grant) = &input.tools {
            env.push((crate::tools::TOKEN_ENV.into(), grant.token.clone()));
        }
        env.extend(QUIET_ENV.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        env.extend(self.env.iter().cloned());

        // Fails closed: the flags that confine Claude are chosen from its help.
        let help = help(&program, &home).map_err(|why| probe_failed(&program, &why))?;
        if !help.lists("--output-format") {
            return Err(probe_failed(
                &program,
                "its `--help` does not list --output-format, so it is not the help of a Claude Code Clawboo can drive",
            ));
        }

        let mut args: Vec<String> = [
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--permission-prompt-tool",
            "stdio",
        ]
        .map(str::to_owned)
        .into();
        // What Claude may load and do: Clawboo's settings only, rewritten every turn.
        settings::write_user_settings(&home, input.approval, &input.workspace)?;
        // Earlier versions gave Claude the connectors in this file (secrets included) for the
        // length of a run: one a crash left behind goes now.
        let _ = std::fs::remove_file(home.join(LEGACY_MCP_CONFIG));
        // Clawboo's own tools, then the connectors' tools its bridge serves for this run.
        let mut bridge_tools = mcp_tool_names(input.tools.as_ref());
        bridge_tools.extend(hosted_tool_names(input.tools.as_ref()));
        args.extend(settings::args(input.approval, &input.workspace, &bridge_tools, |flag| help.lists(flag)));
        if let Some(grant) = &input.tools {
            // One MCP server, Clawboo's: the endpoint only; the token travels in the env, never
            // in argv. The user's connectors are behind it, hosted by Clawboo (no connector
            // config, secret or process reaches Claude).
            let config =
                serde_json::json!({"mcpServers": {crate::tools::SERVER_NAME: clawboo_server(&grant.endpoint)}});
            args.extend(["--mcp-config".into(), config.to_string()]);
        }
        // Pre-allowed: Clawboo's own tools (as ever), and the connectors' tools by their exact
        // names, because the bridge applies the agent's policy to every call of theirs (ask:
        // a question in the Inbox; read-only: only read-only, closed-world tools). Claude's own
        // `can_use_tool` would be a second question about the same call, and under read-only
        // it would refuse every one of them (it cannot read the server's hints).
        if !bridge_tools.is_empty() {
            args.extend(["--allowedTools".into(), bridge_tools.join(",")]);
        }
        // Flags newer releases added: passed only to a `claude` that lists them in --help.
        if help.lists("--include-partial-messages") {
            args.push("--include-partial-messages".into()); // token streaming
        }
        if help.lists("--system-prompt-snapshot") {
            // Else the first turn's system prompt is recorded and replayed on every resume,
            // and an edited SOUL.md would never reach the model.
            args.extend(["--system-prompt-snapshot".into(), "off".into()]);
        }
        if let Some(session) = &input.resume_session {
            args.extend(["--resume".into(), session.clone()]);
        }
        let model = input.agent.model.trim();
        if !model.is_empty() {
            args.extend(["--model".into(), model.to_owned()]);
        }
        // The persona travels in a file in Claude's private home, rewritten every turn: on the
        // command line any process that can list processes would read it (`ps`).
        let persona_file = home.join(PERSONA_FILE);
        let _ = std::fs::remove_file(&persona_file);
        if let Some(persona) = input.persona.as_deref().filter(|p| !p.trim().is_empty()) {
            if help.lists("--append-system-prompt-file") || help.mentions("--append-system-prompt[-file]") {
                std::fs::write(&persona_file, persona)
                    .map_err(|e| Error::io(format!("Cannot write {}", persona_file.display()), e))?;
                args.extend(["--append-system-prompt-file".into(), path(&persona_file)]);
            } else {
                // Releases before the file flag: the only way in.
                args.extend(["--append-system-prompt".into(), persona.to_owned()]);
            }
        }

        Ok(CommandSpec {
            program,
            args,
            env,
            inherit_env: INHERITED_ENV.iter().map(|s| (*s).to_owned()).collect(),
            cwd: input.workspace.clone(),
            piped_stdin: true,
            confine,
        })
    }
}

/// The run refused because `claude --help` could not be read: what happened and how to fix it.
fn probe_failed(program: &std::path::Path, why: &str) -> Error {
    let program = program.display();
    Error::RuntimeProbeFailed(format!(
        "Claude Code ({program}) was not started: {why}. Clawboo reads `claude --help` to pass the flags that \
         confine it (--setting-sources \"\", --strict-mcp-config, and under read-only --restricted and --tools), and \
         does not run it without them. Check the install: run `{program} --help` in a terminal; if it fails or \
         hangs, reinstall it ({}) or set another path in Settings.",
        detect::install_hint(RuntimeKind::ClaudeCode)
    ))
}

/// How Claude names Clawboo's granted tools: `mcp__clawboo__<tool>`.
fn mcp_tool_names(grant: Option<&crate::tools::ToolGrant>) -> Vec<String> {
    let specs = grant.map(|g| g.specs.as_slice()).unwrap_or_default();
    specs.iter().map(|s| format!("mcp__{}__{}", crate::tools::SERVER_NAME, s.name.as_str())).collect()
}

/// The persona of this turn, in Claude's home (see `command`).
const PERSONA_FILE: &str = "clawboo-persona.md";

/// The per-run MCP config earlier versions wrote in Claude's home (see `command`).
const LEGACY_MCP_CONFIG: &str = "clawboo-mcp.json";

/// How Claude names the connectors' tools the run's bridge serves: `mcp__clawboo__<connector>__<tool>`.
fn hosted_tool_names(grant: Option<&crate::tools::ToolGrant>) -> Vec<String> {
    let hosted = grant.map(|g| g.hosted()).unwrap_or_default();
    hosted.iter().map(|s| format!("mcp__{}__{}", crate::tools::SERVER_NAME, s.name)).collect()
}

/// Clawboo's server in `--mcp-config`: over HTTP, the token read from the env by Claude
/// (`${CLAWBOO_TOKEN}`), and its tools sent to the model directly (`alwaysLoad`), not
/// deferred behind ToolSearch.
fn clawboo_server(endpoint: &str) -> serde_json::Value {
    serde_json::json!({
        "type": "http",
        "url": endpoint,
        "headers": {"Authorization": format!("Bearer ${{{}}}", crate::tools::TOKEN_ENV)},
        "alwaysLoad": true,
    })
}

/// Claude Code appends `/v1/messages` itself: a base URL set with `/v1` would double it.
fn base_url(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    url.strip_suffix("/v1").unwrap_or(url).to_owned()
}

impl Runtime for ClaudeCodeRuntime {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::ClaudeCode
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            streams_text: true,
            context_window: Some(200_000),
            history: HistoryMode::RuntimeSession,
            persona: PersonaDelivery::SentByClawboo,
            setup_change: super::SetupChange::AppliedOnResume,
            team_history: super::TeamHistory { leader: super::TurnHistory::Fresh, teammate: super::TurnHistory::Fresh },
        }
    }

    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<RunResult>> + Send + '_>> {
        Box::pin(async move {
            // `--help` on a blocking thread; its answer (or why there is none) goes to the command.
            let probed = match (&input.program, input.homes.home(RuntimeKind::ClaudeCode)) {
                (Some(program), Ok(home)) => Some(detect::probe_help(program.clone(), home).await),
                _ => None,
            };
            // The connectors run before Claude starts, so its first listing has their tools.
            let Some(connectors) = hosted::start(&input, &channels, &self.spawner, Reach::Bridge).await else {
                return Ok(hosted::cancelled());
            };
            let spec =
                self.command_with(&input, |program, home| probed.unwrap_or_else(|| detect::help(program, home)))?;
            let protocol = DuplexProtocol::new(input.text_to_send(), input.resume_session.is_some())
                .confined_to(input.workspace.clone());
            let (spawner, policy, asking) = (self.spawner.as_ref(), input.approval, connectors.asking());
            let ended =
                supervise_with(spawner, &spec, Box::new(protocol), channels, policy, self.timeouts, asking).await;
            connectors.stop().await;
            ended
        })
    }
}
