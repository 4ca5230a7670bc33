//! The runtime layer: one adapter per runtime behind the [`Runtime`] trait, all speaking
//! [`RunEvent`]. CLI runtimes run as supervised processes (see [`process`] and [`supervise`]);
//! Native runs in-process (see `native`).

pub mod catalog;
pub mod claude_code;
pub mod codex;
pub mod confine;
pub mod detect;
mod event;
pub mod hermes;
pub mod home;
pub mod hosted;
mod identify;
pub mod lines;
pub mod mcp_client;
pub mod native;
pub mod openclaw;
pub mod orphans;
pub mod process;
pub mod sandbox;
pub mod signin;
pub mod supervise;

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::{mpsc, watch};

pub use crate::vocab::ApprovalPolicy;
pub use event::{RunEvent, RunOutcome, RunResult};

use crate::agents::{Agent, RuntimeKind};
use crate::error::Result;

/// How a runtime keeps the conversation between turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryMode {
    /// The runtime stores it; Clawboo resumes by session id.
    RuntimeSession,
    /// Clawboo carries the transcript and sends it with each request (Native).
    ClawbooTranscript,
}

/// Whether Clawboo must send the persona (SOUL.md) or the runtime carries it in its own setup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PersonaDelivery {
    SentByClawboo,
    OwnSetup,
}

/// What a resumed runtime session does when the session setup (the persona now; later the
/// rules, About you, membership) changed since the session started. The chat service keeps a
/// fingerprint of the setup each session started with and decides by this, per runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetupChange {
    /// Every turn is built from the setup of now, resumed or not: keep resuming (Claude Code
    /// with its system-prompt snapshot off, OpenClaw, Native).
    AppliedOnResume,
    /// A resumed session keeps its start-time setup, but the runtime can branch it into a new
    /// session that is built from the setup of now and keeps the whole history (Hermes'
    /// `session/fork`). The turn gets [`TurnInput::fork_session`].
    Fork,
    /// A resumed session keeps its start-time setup: start a fresh session and carry the
    /// conversation forward from Clawboo's store in [`TurnInput::transcript`] (Codex).
    FreshSession,
}

/// Which conversation a team-chat turn continues (seed "Conversation history").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnHistory {
    /// The agent's own conversation in this room (General and each room apart): Clawboo's
    /// carried transcript or the runtime's session, resumed.
    ContinueRoom,
    /// Each turn starts without earlier conversation.
    Fresh,
    /// The runtime keeps its own session (an OpenClaw Gateway); Clawboo resumes it.
    OwnSession,
}

/// How a runtime's team turns keep history: as the room's leader (or a member the user
/// @mentioned) and as a teammate on a handed-off task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeamHistory {
    pub leader: TurnHistory,
    pub teammate: TurnHistory,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    pub streams_text: bool,
    /// Tokens, when the runtime reports a window (Claude Code and Native: 200,000).
    pub context_window: Option<u32>,
    pub history: HistoryMode,
    pub persona: PersonaDelivery,
    pub setup_change: SetupChange,
    pub team_history: TeamHistory,
}

/// One turn of a conversation, as Clawboo hands it to a runtime.
#[derive(Debug, Clone)]
pub struct TurnInput {
    pub run_id: String,
    pub agent: Agent,
    /// The agent's workspace folder: the runtime's working directory.
    pub workspace: PathBuf,
    /// The agent's private homes and temp folder for CLIs.
    pub homes: home::RuntimeHomes,
    /// The message of this turn, exactly as the user (or the agent handing out a task) wrote it.
    pub message: String,
    /// What goes in the runtime's own system/developer slot for this run: SOUL.md (within its
    /// budget) in a one-to-one chat, for runtimes that need Clawboo to send it; a team turn's
    /// steady context (persona where sent, rules, About you, teammates, how to work), which
    /// Native adds after its own system prompt.
    pub persona: Option<String>,
    /// Native's own system prompt, built from the agent's files (persona layer and
    /// instructions; see `context::files`), before its date line. None for other runtimes.
    pub setup: Option<String>,
    /// Clawboo's context placed in front of the message for this request only (see
    /// [`TurnInput::text_to_send`]). Native adds it at request time and never stores it in the
    /// carried transcript, so the steady prefix stays byte-identical turn to turn.
    pub preamble: Option<String>,
    /// Clawboo's own tools for this run (team chat), bound to this run's caller.
    pub tools: Option<crate::tools::ToolGrant>,
    /// The user's connectors (MCP servers) shared with this agent, enabled, secrets resolved.
    /// Every adapter hosts them through [`hosted::start`]: never handed to a CLI.
    pub connectors: Vec<crate::connectors::RunConnector>,
    /// The runtime session to continue, if the conversation has one.
    pub resume_session: Option<String>,
    /// Branch `resume_session` into a new session built from the setup of now, because the
    /// setup changed since it started ([`SetupChange::Fork`]).
    pub fork_session: bool,
    /// Earlier turns Clawboo carries: every turn for runtimes whose history it keeps (Native);
    /// for a session runtime, only when a fresh session must continue the conversation
    /// ([`SetupChange::FreshSession`]).
    pub transcript: Transcript,
    pub approval: ApprovalPolicy,
    /// The CLI to start, as located by detection (None for Native).
    pub program: Option<PathBuf>,
}

impl TurnInput {
    /// The text a CLI receives as the user's message: the preamble, a blank line, the message.
    pub fn text_to_send(&self) -> String {
        match self.preamble.as_deref().map(str::trim_end).filter(|p| !p.is_empty()) {
            Some(preamble) => format!("{preamble}\n\n{}", self.message),
            None => self.message.clone(),
        }
    }
}

/// A carried turn. A text is never whitespace alone: a blank one is empty (so a runtime that
/// needs a stand-in for it tells by its length, without reading every carried text on every send).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptTurn {
    pub user: Arc<str>,
    pub assistant: Arc<str>,
    /// The run the user's message started (the run layer tells by it which turns a trimmed
    /// history still holds); nothing a runtime sends.
    pub run_id: Option<Arc<str>>,
}

impl TranscriptTurn {
    pub fn new(user: impl Into<Arc<str>>, assistant: impl Into<Arc<str>>) -> Self {
        Self { user: user.into(), assistant: assistant.into(), run_id: None }
    }
}

/// A conversation's carried turns, oldest first, shared whole: the run layer keeps them between
/// turns and hands every send the same ones, so a send of a 1,000-exchange chat touches none of
/// its thousands of texts (each a separate allocation) until it writes them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript(Arc<Vec<TranscriptTurn>>);

impl Transcript {
    /// The turns as shared (the run layer appends to them in place once no run holds them).
    pub fn shared(turns: Arc<Vec<TranscriptTurn>>) -> Self {
        Self(turns)
    }

    /// Whether both are the same turns (shared), not copies.
    pub fn is_shared_with(&self, other: &Transcript) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl From<Vec<TranscriptTurn>> for Transcript {
    fn from(turns: Vec<TranscriptTurn>) -> Self {
        Self(Arc::new(turns))
    }
}

impl std::ops::Deref for Transcript {
    type Target = [TranscriptTurn];

    fn deref(&self) -> &[TranscriptTurn] {
        &self.0
    }
}

pub use crate::vocab::permission::{PendingPermission, PermissionAnswer};

/// Where a running turn reports, and how its owner steers it.
pub struct RunChannels {
    pub events: mpsc::UnboundedSender<RunEvent>,
    /// Permission questions go out here; the owner answers through the oneshot.
    pub permissions: mpsc::UnboundedSender<PendingPermission>,
    /// Becomes `true` when the user asks to stop (or the run's guards end it).
    pub cancel: watch::Receiver<bool>,
}

impl RunChannels {
    pub fn emit(&self, event: RunEvent) {
        // The receiver only goes away when the owner has given up on the run.
        let _ = self.events.send(event);
    }

    /// Lets the run's owner take every event sent so far, then says whether the run is to stop:
    /// a stop they call for (a tool call repeated once too often, a spent budget) is in `cancel`
    /// by then. A runtime that does its own work in-process (Native) settles before each tool
    /// and each further model call: a future may complete without ever waiting (a fast reply, a
    /// busy machine), so without this a run could go several rounds before its owner saw the
    /// first.
    ///
    /// How it works: the owner's drive loop polls the runtime in the same task, after its queue
    /// of events is empty (`run::drive`, a biased select); one yield hands the task back to it.
    pub async fn settle(&self) -> bool {
        tokio::task::yield_now().await;
        *self.cancel.borrow()
    }
}

/// One adapter per runtime.
pub trait Runtime: Send + Sync {
    fn kind(&self) -> RuntimeKind;
    fn capabilities(&self) -> Capabilities;
    /// Runs one turn to the end, reporting through `channels`. Always returns how it ended;
    /// an `Err` means the turn could not start at all (for example the CLI is missing).
    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<RunResult>> + Send + '_>>;
    /// Stops anything the adapter keeps running between turns (OpenClaw's Gateways). Called
    /// when the app quits, where destructors may never run.
    fn shutdown(&self) {}
    /// Whether `agent` can start a run now, asked before anything of the run is stored: an
    /// OpenClaw agent on a Gateway whose link is lost is refused at once (`GatewayUnreachable`).
    fn ready(&self, _agent: &crate::agents::Agent) -> Result<()> {
        Ok(())
    }
    /// The long-lived links this adapter keeps to servers its agents use (OpenClaw's Gateways
    /// that users run), which the engine starts and stops as agents change.
    fn gateway_health(&self) -> Option<&openclaw::gateway_health::HealthBoard> {
        None
    }
    /// Forgets what the adapter keeps only to make a conversation's next turn cheaper, for the
    /// conversations no turn used since `cutoff`: the bytes given back.
    fn forget_unused_since(&self, _cutoff: std::time::Instant) -> usize {
        0
    }
}

/// Where a provider's requests go and the credential they carry. In the engine this is the
/// model relay's loopback URL and a token for one run, never the key itself (see `crate::relay`).
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// e.g. "http://127.0.0.1:PORT/anthropic" (the relay), "https://api.anthropic.com" or
    /// "http://127.0.0.1:11434/v1".
    pub base_url: String,
    pub api_key: Option<String>,
}

impl std::fmt::Debug for Endpoint {
    // Never print a key, even in a debug log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "…"))
            .finish()
    }
}

/// Serves requests to an endpoint inside the app's own process: the model relay for Native,
/// which is the app's own code. The same token check, forwarding, recording and budgets as a
/// request over loopback, without moving each body through a socket twice.
pub trait InProcessRoute: Send + Sync {
    /// Sends `request` (its body is `body`, held apart so it is not copied). Always answers: a
    /// refusal is an error answer, as over HTTP.
    fn send(
        &self,
        request: reqwest::Request,
        body: bytes::Bytes,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = reqwest::Response> + Send + 'static>>;
}

/// Gives a run the endpoint for a provider. The engine's source is the model relay, which hands
/// out a token valid for that run only; tests may point straight at the fake model server.
pub trait EndpointSource: Send + Sync {
    /// The endpoint for the requests of run `run_id`.
    fn endpoint(&self, provider: crate::secrets::Provider, run_id: &str) -> Result<Endpoint>;

    /// A route inside this process to `endpoint` (one this source gave), for a client in the
    /// app's own process (Native); `None`: it is reached over HTTP.
    fn in_process(&self, _endpoint: &Endpoint) -> Option<Arc<dyn InProcessRoute>> {
        None
    }

    /// For a process that outlives runs (an OpenClaw Gateway, one per agent): the credential
    /// stays the same for `holder` while the process lives, so its configuration does not
    /// change every turn, and its requests count for `run_id`, the holder's latest run.
    fn lasting_endpoint(&self, provider: crate::secrets::Provider, _holder: &str, run_id: &str) -> Result<Endpoint> {
        self.endpoint(provider, run_id)
    }

    /// Whether `provider` could serve a run now (it has a key, or is a custom endpoint that needs
    /// none), without granting anything: a grant would count the run as relayed, and a run on
    /// the user's own sign-in never is. The default asks for an endpoint of no run.
    fn can_serve(&self, provider: crate::secrets::Provider) -> Result<bool> {
        Ok(keyed_endpoint(self, provider, "")?.is_some())
    }
}

/// The endpoint for run `run_id` when `provider` has a key, `None` when it has none (a CLI may
/// then use the user's own sign-in); other failures stay errors.
pub fn keyed_endpoint<E: EndpointSource + ?Sized>(
    endpoints: &E,
    provider: crate::secrets::Provider,
    run_id: &str,
) -> Result<Option<Endpoint>> {
    match endpoints.endpoint(provider, run_id) {
        Ok(endpoint) if endpoint.api_key.as_deref().is_some_and(|k| !k.trim().is_empty()) => Ok(Some(endpoint)),
        Ok(_) | Err(crate::Error::MissingApiKey(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Every adapter this build has, each reaching models through `endpoints` (the relay).
/// OpenClaw's Gateways get lasting tokens of Clawboo's tools from each run's grant. `access`
/// decides per turn whether Claude Code, Codex and Hermes use the user's own sign-in or a key (the
/// runtime catalog, which holds the choice).
pub fn adapters(
    endpoints: Arc<dyn EndpointSource>,
    access: Arc<dyn signin::AccessSource>,
    gateway_tokens: Arc<crate::secrets::Secrets>,
    spawner: Arc<dyn process::Spawner>,
) -> RuntimeRegistry {
    RuntimeRegistry::default()
        .with(Arc::new(
            claude_code::ClaudeCodeRuntime::new(spawner.clone(), endpoints.clone()).with_access(access.clone()),
        ))
        .with(Arc::new(codex::CodexRuntime::new(spawner.clone(), endpoints.clone()).with_access(access.clone())))
        .with(Arc::new(hermes::HermesRuntime::new(spawner.clone(), endpoints.clone()).with_access(access)))
        .with(Arc::new(
            openclaw::OpenclawRuntime::new(spawner.clone(), endpoints.clone()).with_gateway_tokens(gateway_tokens),
        ))
        .with(Arc::new(crate::runtimes::native::NativeRuntime::new(endpoints).with_spawner(spawner)))
}

/// The adapters available to the engine, by kind.
#[derive(Clone, Default)]
pub struct RuntimeRegistry {
    adapters: Vec<Arc<dyn Runtime>>,
}

impl RuntimeRegistry {
    pub fn with(mut self, runtime: Arc<dyn Runtime>) -> Self {
        self.adapters.retain(|r| r.kind() != runtime.kind());
        self.adapters.push(runtime);
        self
    }

    pub fn get(&self, kind: RuntimeKind) -> Option<Arc<dyn Runtime>> {
        self.adapters.iter().find(|r| r.kind() == kind).cloned()
    }

    pub fn shutdown(&self) {
        for adapter in &self.adapters {
            adapter.shutdown();
        }
    }

    /// See [`Runtime::forget_unused_since`]; the bytes given back by every adapter.
    pub fn forget_unused_since(&self, cutoff: std::time::Instant) -> usize {
        self.adapters.iter().map(|adapter| adapter.forget_unused_since(cutoff)).sum()
    }
}
