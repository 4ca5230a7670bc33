//! The runtime layer: one adapter per runtime behind the [`Runtime`] trait, all speaking
//! [`RunEvent`]. CLI runtimes run as supervised processes (see [`process`] and [`supervise`]);
//! Native runs in-process (see `crate::native`).

pub mod catalog;
pub mod claude_code;
pub mod codex;
pub mod confine;
pub mod detect;
mod event;
pub mod hermes;
pub mod home;
pub mod openclaw;
pub mod process;
pub mod supervise;

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, oneshot, watch};

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    pub streams_text: bool,
    /// Tokens, when the runtime reports a window (Claude Code and Native: 200,000).
    pub context_window: Option<u32>,
    pub history: HistoryMode,
    pub persona: PersonaDelivery,
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

/// One turn of a conversation, as Clawboo hands it to a runtime.
#[derive(Debug, Clone)]
pub struct TurnInput {
    pub run_id: String,
    pub agent: Agent,
    /// The agent's workspace folder: the runtime's working directory.
    pub workspace: PathBuf,
    /// The agent's private homes and temp folder for CLIs.
    pub homes: home::RuntimeHomes,
    /// The user's message, exactly as typed.
    pub message: String,
    /// SOUL.md within the persona budget, for runtimes that need Clawboo to send it.
    pub persona: Option<String>,
    /// The runtime session to continue, if the conversation has one.
    pub resume_session: Option<String>,
    /// Earlier turns, for runtimes whose history Clawboo carries (Native).
    pub transcript: Vec<TranscriptTurn>,
    pub approval: ApprovalPolicy,
    /// The CLI to start, as located by detection (None for Native).
    pub program: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptTurn {
    pub user: String,
    pub assistant: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PermissionAnswer {
    pub allow: bool,
}

/// A permission question waiting for the user.
pub struct PendingPermission {
    pub request_id: String,
    pub reply: oneshot::Sender<PermissionAnswer>,
}

/// Where a running turn reports, and how its owner steers it.
pub struct RunChannels {
    pub events: mpsc::UnboundedSender<RunEvent>,
    /// Permission questions go out here; the owner answers through the oneshot.
    pub permissions: mpsc::UnboundedSender<PendingPermission>,
    /// Becomes `true` when the user asks to stop.
    pub cancel: watch::Receiver<bool>,
}

impl RunChannels {
    pub fn emit(&self, event: RunEvent) {
        // The receiver only goes away when the owner has given up on the run.
        let _ = self.events.send(event);
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
}

/// Where a provider's requests go and the key they carry (from the keychain).
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// As set in Settings, e.g. "https://api.anthropic.com" or "http://127.0.0.1:11434/v1".
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

/// Resolves a provider to its endpoint. The engine's source reads Settings and the keychain;
/// tests point it at the fake model server.
pub trait EndpointSource: Send + Sync {
    fn endpoint(&self, provider: crate::secrets::Provider) -> Result<Endpoint>;
}

impl EndpointSource for crate::secrets::Secrets {
    fn endpoint(&self, provider: crate::secrets::Provider) -> Result<Endpoint> {
        let base_url = self.base_url(provider)?.ok_or_else(|| {
            crate::Error::InvalidInput(format!("Set a base URL for {} in Settings > API keys.", provider.label()))
        })?;
        Ok(Endpoint { base_url, api_key: self.api_key(provider)? })
    }
}

/// Every adapter this build has.
pub fn adapters(secrets: Arc<crate::secrets::Secrets>) -> RuntimeRegistry {
    let spawner: Arc<dyn process::Spawner> = Arc::new(process::SystemSpawner);
    RuntimeRegistry::default()
        .with(Arc::new(claude_code::ClaudeCodeRuntime::new(spawner.clone(), secrets.clone())))
        .with(Arc::new(codex::CodexRuntime::new(spawner.clone(), secrets.clone())))
        .with(Arc::new(hermes::HermesRuntime::new(spawner.clone(), secrets.clone())))
        .with(Arc::new(openclaw::OpenclawRuntime::new(spawner, secrets.clone())))
        .with(Arc::new(crate::native::NativeRuntime::new(secrets)))
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
}
