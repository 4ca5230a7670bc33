//! Clawboo's own tools, for every runtime: served over a loopback MCP server (streamable HTTP)
//! to the CLIs and in-process to Native. Each run gets its own token, which binds the caller
//! (agent, team, room, run): the server knows who calls from the token alone, and the token dies
//! with its run. Beside them the server lists and calls the tools a run *hosts* ([`HostedTools`]:
//! the user's connectors, which Clawboo runs itself), so a CLI reaches a connector only through
//! its run's token, never its config, secrets or process.
//!
//! Each tool's arguments are a struct (`specs.rs` is the table): the schema a model is sent is
//! derived from it, and a call's arguments are parsed into it before anything runs (`args.rs`).
//! What a tool does is the [`ToolHost`]'s business: the one [`Dispatcher`], with its
//! [`Services`]. The tools know nothing of chat: team chat is reached through [`Handoffs`] and
//! [`PeerRooms`], which it implements.
//!
//! The tools that raise something for the user or the team ([`RATE_LIMITED_TOOLS`]: a question,
//! a peer post, a routine proposal) are bounded per run: at most [`RAISED_PER_MINUTE`] calls of
//! each in any minute. A call past that gets a tool error saying how long to wait, and never
//! reaches the host (nothing is stored).

mod args;
pub mod board;
mod dispatch;
mod fields;
pub mod memory;
pub mod routine;
mod server;
pub mod specs;
pub mod team;
pub mod threads;

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use serde_json::Value;

pub use self::dispatch::{Dispatcher, Services};
pub use self::specs::ToolCall;
pub use self::team::{Handoffs, PeerNote, PeerRooms};
pub use crate::context::ToolName;
use crate::error::{Error, Result};
use crate::loopback::ServerLimits;
use crate::vocab::{Clock, RateLimiter, SystemClock};

/// Who is calling: bound to the run's token when it was granted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub run_id: String,
    pub agent_id: String,
    pub agent_handle: String,
    /// Empty outside team chat (a one-to-one chat).
    pub team_id: String,
    pub room_id: String,
    /// The conversation the run belongs to: the session scope of scratch notes.
    pub conversation_id: String,
    /// The tools this run may see and call; anything else is unknown to it.
    pub tools: Vec<ToolName>,
}

/// What a tool call returns to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub text: String,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn ok(text: impl Into<String>) -> Self {
        Self { text: text.into(), is_error: false }
    }

    pub fn error(text: impl Into<String>) -> Self {
        Self { text: text.into(), is_error: true }
    }
}

pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = ToolOutput> + Send + 'a>>;

/// Does what the tools ask, for a bound caller: a call whose arguments were parsed and checked
/// ([`ToolCall`]). The engine's is the [`Dispatcher`].
pub trait ToolHost: Send + Sync {
    fn call<'a>(&'a self, caller: &'a Caller, call: ToolCall) -> ToolFuture<'a>;
}

/// A tool the bridge serves for one run beside Clawboo's own: a connector's, named
/// `<connector>__<tool>`, hosted by Clawboo for the run.
#[derive(Debug, Clone, PartialEq)]
pub struct HostedSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// The server's hints, passed on as given.
    pub annotations: Option<rmcp::model::ToolAnnotations>,
}

/// The tools a run hosts, served by the bridge under the run's token. The host applies the
/// agent's approval policy to every call (the CLI's own permission step does not see them).
pub trait HostedTools: Send + Sync {
    fn specs(&self) -> Vec<HostedSpec>;
    /// Runs one call of a tool from [`HostedTools::specs`]; an error is a tool error.
    fn call<'a>(&'a self, name: &'a str, args: Value) -> ToolFuture<'a>;
}

/// A tool as offered to a model (name, description, JSON schema of its arguments).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: ToolName,
    pub description: &'static str,
    pub input_schema: Value,
}

/// A run's access to Clawboo's tools, handed to its runtime adapter in `TurnInput`.
#[derive(Clone)]
pub struct ToolGrant {
    /// `http://127.0.0.1:P/mcp/<token>`: for clients that can only take a URL.
    pub url: String,
    /// `http://127.0.0.1:P/mcp` (no token): for CLIs, which send the token in
    /// `Authorization: Bearer` read from their env (`CLAWBOO_TOKEN`), so it is never in argv.
    pub endpoint: String,
    pub token: String,
    /// Only the tools this run may use.
    pub specs: Vec<ToolSpec>,
    /// Of `specs`, those a turn of this run's kind uses now and then: a runtime that builds its
    /// own requests (Native) lists them by name only and sends their definitions once the model
    /// asks (`load_tools`), so every request does not carry them. The CLIs list every granted
    /// tool (their own tool search, where they have one, decides). Set by the run's preparation.
    pub on_request: Vec<ToolName>,
    /// In-process calls for Native, bound to the same caller as the token.
    pub invoker: Arc<dyn Fn(ToolName, Value) -> ToolFuture<'static> + Send + Sync>,
    /// The bridge and the run, for the tools the run hosts ([`ToolGrant::host`]).
    bridge: Arc<Shared>,
    run_id: String,
    agent_id: String,
}

impl ToolGrant {
    /// Serves `tools` beside Clawboo's own to this run's token (and the agent's lasting token
    /// while this run is its live one), until [`ToolGrant::unhost`] or the run's revoke. A
    /// name of Clawboo's own tools stays Clawboo's.
    pub fn host(&self, tools: Arc<dyn HostedTools>) {
        let specs = tools.specs();
        let mut grants = self.bridge.grants();
        let live = grants.by_token.values().any(|b| matches!(b, Binding::Run(c) if c.run_id == self.run_id));
        if !live {
            return; // the run was revoked already: nothing to serve
        }
        grants.hosted.insert(self.run_id.clone(), tools);
        grants.agents.entry(self.agent_id.clone()).or_default().last_hosted = specs;
    }

    /// Stops serving this run's hosted tools (they were stopped).
    pub fn unhost(&self) {
        self.bridge.grants().hosted.remove(&self.run_id);
    }

    /// The agent's lasting token on this bridge (see [`Tools::grant_lasting`]): for a process
    /// that outlives the run (an OpenClaw Gateway).
    pub fn lasting_token(&self) -> String {
        lasting_token(&self.bridge, &self.agent_id)
    }

    /// The tools this run hosts, as the bridge lists them.
    pub fn hosted(&self) -> Vec<HostedSpec> {
        self.bridge.hosted(&self.run_id).map(|h| h.specs()).unwrap_or_default()
    }
}

impl std::fmt::Debug for ToolGrant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is a credential: never printed.
        f.debug_struct("ToolGrant").field("specs", &self.specs.iter().map(|s| s.name).collect::<Vec<_>>()).finish()
    }
}

/// The env var a CLI reads its run's token from (`Bearer ${CLAWBOO_TOKEN}`).
pub const TOKEN_ENV: &str = "CLAWBOO_TOKEN";
/// The MCP server's name in every CLI's configuration (tools appear as `mcp__clawboo__…`).
pub const SERVER_NAME: &str = "clawboo";

/// The tools whose calls are bounded per run (see [`RAISED_PER_MINUTE`]).
pub const RATE_LIMITED_TOOLS: [ToolName; 3] = [ToolName::AskUser, ToolName::PeerPost, ToolName::RoutineCreate];
/// Calls of each of [`RATE_LIMITED_TOOLS`] one run may make in any minute.
pub const RAISED_PER_MINUTE: usize = 10;
const MINUTE_MS: i64 = 60_000;

/// What a token is bound to.
#[derive(Clone)]
enum Binding {
    /// One run's caller; dies with the run.
    Run(Caller),
    /// A process that outlives runs (an OpenClaw Gateway): resolves to the agent's live run.
    Lasting { agent_id: String },
}

/// Who a request is from, as its token says (put in the request's extensions for the handler).
#[derive(Clone)]
pub(crate) enum Access {
    Run(Caller),
    Lasting { agent_id: String },
}

#[derive(Default)]
struct AgentRuns {
    /// The caller of the agent's run in progress, if it holds a grant.
    live: Option<Caller>,
    /// The tools of its latest run: what a lasting token lists between runs.
    last_tools: Vec<ToolName>,
    /// The hosted tools of its latest run that hosted any, listed the same way.
    last_hosted: Vec<HostedSpec>,
}

#[derive(Default)]
struct Grants {
    by_token: HashMap<String, Binding>,
    /// An agent's lasting token.
    lasting: HashMap<String, String>,
    agents: HashMap<String, AgentRuns>,
    /// The tools each run hosts, by run id.
    hosted: HashMap<String, Arc<dyn HostedTools>>,
}

pub(crate) struct Shared {
    host: OnceLock<Arc<dyn ToolHost>>,
    grants: Mutex<Grants>,
    /// The latest requests' shapes, for diagnostics (see [`Tools::recent_requests`]).
    recent: Mutex<std::collections::VecDeque<String>>,
    /// Calls of [`RATE_LIMITED_TOOLS`] by (run, tool). Kept past the run's end (dropped lazily):
    /// `@user` in a run's last reply counts after its tokens are gone.
    raised: RateLimiter<(String, ToolName)>,
    clock: RwLock<Arc<dyn Clock>>,
}

/// How many request shapes [`Tools::recent_requests`] keeps.
const RECENT_REQUESTS: usize = 64;

impl Shared {
    fn grants(&self) -> MutexGuard<'_, Grants> {
        // A panic elsewhere while holding the lock leaves the maps themselves consistent.
        self.grants.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Keeps the shape of a request: HTTP method, JSON-RPC method, protocol version (the header,
    /// or `initialize`'s), tool name. Never arguments, never the token.
    pub(crate) fn note(&self, parts: &hyper::http::request::Parts, body: &[u8]) {
        let message: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let header = parts.headers.get("mcp-protocol-version").and_then(|v| v.to_str().ok());
        let version = header.or(message["params"]["protocolVersion"].as_str()).unwrap_or("-");
        let mut line = format!("{} {} {version}", parts.method, message["method"].as_str().unwrap_or("-"));
        if let Some(tool) = message["params"]["name"].as_str().filter(|_| message["method"] == "tools/call") {
            line.push(' ');
            line.push_str(&tool.chars().take(64).collect::<String>());
        }
        let mut recent = self.recent.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if recent.len() == RECENT_REQUESTS {
            recent.pop_front();
        }
        recent.push_back(line);
    }

    pub(crate) fn resolve(&self, token: &str) -> Option<Access> {
        Some(match self.grants().by_token.get(token)? {
            Binding::Run(caller) => Access::Run(caller.clone()),
            Binding::Lasting { agent_id } => Access::Lasting { agent_id: agent_id.clone() },
        })
    }

    /// The caller a call acts for: a lasting token's is its agent's live run.
    pub(crate) fn caller(&self, access: &Access) -> std::result::Result<Caller, String> {
        match access {
            Access::Run(caller) => Ok(caller.clone()),
            Access::Lasting { agent_id } => {
                self.grants().agents.get(agent_id).and_then(|a| a.live.clone()).ok_or_else(|| {
                    "No run in progress for this agent: Clawboo's tools work only during one of its turns.".into()
                })
            }
        }
    }

    /// The tools a request's caller sees listed.
    pub(crate) fn visible_tools(&self, access: &Access) -> Vec<ToolName> {
        match access {
            Access::Run(caller) => caller.tools.clone(),
            Access::Lasting { agent_id } => {
                self.grants().agents.get(agent_id).map_or_else(Vec::new, |a| match &a.live {
                    Some(caller) => caller.tools.clone(),
                    None => a.last_tools.clone(),
                })
            }
        }
    }

    fn hosted(&self, run_id: &str) -> Option<Arc<dyn HostedTools>> {
        self.grants().hosted.get(run_id).cloned()
    }

    /// The hosted tools a request's caller sees listed: its run's, or for a lasting token its
    /// agent's live run's (between runs, the latest run's).
    pub(crate) fn visible_hosted(&self, access: &Access) -> Vec<HostedSpec> {
        let run_id = match access {
            Access::Run(caller) => caller.run_id.clone(),
            Access::Lasting { agent_id } => {
                let grants = self.grants();
                let Some(runs) = grants.agents.get(agent_id) else { return Vec::new() };
                match &runs.live {
                    Some(caller) => caller.run_id.clone(),
                    None => return runs.last_hosted.clone(),
                }
            }
        };
        self.hosted(&run_id).map(|h| h.specs()).unwrap_or_default()
    }

    /// Runs tool `name` for `caller`: only a tool it was granted, with checked arguments, or
    /// one its run hosts. `Err` when it has no such tool (the protocol's "unknown tool").
    pub(crate) async fn call(
        &self,
        caller: &Caller,
        name: &str,
        args: Value,
    ) -> std::result::Result<ToolOutput, String> {
        if let Some(tool) = specs::parse(name).filter(|t| caller.tools.contains(t)) {
            return Ok(self.call_tool(caller, tool, args).await);
        }
        match self.hosted(&caller.run_id).filter(|h| h.specs().iter().any(|s| s.name == name)) {
            Some(hosted) => Ok(hosted.call(name, args).await),
            None => Err(not_offered(caller, name)),
        }
    }

    async fn call_tool(&self, caller: &Caller, tool: ToolName, args: Value) -> ToolOutput {
        if !caller.tools.contains(&tool) {
            return ToolOutput::error(not_offered(caller, tool.as_str()));
        }
        let call = match ToolCall::parse(tool, args) {
            Ok(call) => call,
            Err(message) => return ToolOutput::error(message),
        };
        let Some(host) = self.host.get() else {
            return ToolOutput::error("Clawboo's tools are not ready yet; try again in a moment.");
        };
        if let Err(message) = self.admit(&caller.run_id, tool) {
            return ToolOutput::error(message);
        }
        host.call(caller, call).await
    }

    /// Counts a call of `tool` by run `run_id` when it is one of [`RATE_LIMITED_TOOLS`]; past the
    /// bound, the message the agent sees.
    fn admit(&self, run_id: &str, tool: ToolName) -> std::result::Result<(), String> {
        if !RATE_LIMITED_TOOLS.contains(&tool) {
            return Ok(());
        }
        let now = self.clock.read().unwrap_or_else(|poisoned| poisoned.into_inner()).now();
        self.raised.take((run_id.to_owned(), tool), now).map_err(|wait_ms| {
            format!(
                "Rate limit: at most {RAISED_PER_MINUTE} {} calls a minute per run; wait {} s.",
                tool.as_str(),
                (wait_ms + 999) / 1000
            )
        })
    }
}

/// The tools bridge: a loopback MCP server for the CLIs, in-process calls for Native, one
/// token per run.
pub struct Tools {
    addr: SocketAddr,
    shared: Arc<Shared>,
    /// Dropped with the bridge: the server stops, its connections end.
    _stop: tokio::sync::watch::Sender<bool>,
}

impl Tools {
    /// Binds 127.0.0.1 on a free port and serves on `handle`'s runtime, with the default bounds.
    pub fn start(handle: &tokio::runtime::Handle) -> Result<Arc<Self>> {
        Self::start_with(handle, ServerLimits::default())
    }

    /// [`Tools::start`] with the server's bounds (the header timeout, connections at once).
    pub fn start_with(handle: &tokio::runtime::Handle, limits: ServerLimits) -> Result<Arc<Self>> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
            .map_err(|e| Error::io("Cannot open Clawboo's tools server on 127.0.0.1", e))?;
        listener.set_nonblocking(true).map_err(|e| Error::io("Cannot set up Clawboo's tools server", e))?;
        let addr = listener.local_addr().map_err(|e| Error::io("Cannot set up Clawboo's tools server", e))?;
        let shared = Arc::new(Shared {
            host: OnceLock::new(),
            grants: Mutex::default(),
            recent: Mutex::default(),
            raised: RateLimiter::new(RAISED_PER_MINUTE, MINUTE_MS),
            clock: RwLock::new(Arc::new(SystemClock)),
        });
        let (stop, stopped) = tokio::sync::watch::channel(false);
        handle.spawn(server::serve(listener, shared.clone(), limits, stopped));
        Ok(Arc::new(Self { addr, shared, _stop: stop }))
    }

    /// Who does what the tools ask (the engine's [`Dispatcher`]); set once, when the chat
    /// service exists. Calls before that get a tool error; a second host is ignored.
    pub fn set_host(&self, host: Arc<dyn ToolHost>) {
        let _ = self.shared.host.set(host);
    }

    /// Reads the time of the rate limits from `clock` from now on (tests: a manual clock).
    pub fn use_clock(&self, clock: Arc<dyn Clock>) {
        *self.shared.clock.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = clock;
    }

    /// Counts one `tool` action of run `run_id` against the run's bound, for an action raised
    /// other than by calling the tool (`@user` in a reply is an `ask_user`). `Err`: over the
    /// bound, with the message saying so; the action must not happen.
    pub fn admit(&self, run_id: &str, tool: ToolName) -> std::result::Result<(), String> {
        self.shared.admit(run_id, tool)
    }

    /// `http://127.0.0.1:P/mcp`.
    pub fn endpoint(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// The specs of `tools`, as offered to a model.
    pub fn specs(tools: &[ToolName]) -> Vec<ToolSpec> {
        specs::specs(tools)
    }

    /// A fresh token bound to `caller`, valid until [`Tools::revoke`] of its run.
    pub fn grant(&self, caller: Caller) -> ToolGrant {
        let token = new_token();
        {
            let mut grants = self.shared.grants();
            grants.by_token.insert(token.clone(), Binding::Run(caller.clone()));
            let runs = grants.agents.entry(caller.agent_id.clone()).or_default();
            runs.last_tools = caller.tools.clone();
            runs.last_hosted = Vec::new();
            runs.live = Some(caller.clone());
        }
        let (shared, bound) = (self.shared.clone(), token.clone());
        let invoker = Arc::new(move |tool: ToolName, args: Value| -> ToolFuture<'static> {
            let (shared, bound) = (shared.clone(), bound.clone());
            Box::pin(async move {
                // The same rule as over HTTP: the call acts for the token's caller while it lives.
                match shared.resolve(&bound) {
                    Some(Access::Run(caller)) => shared.call_tool(&caller, tool, args).await,
                    _ => ToolOutput::error("This run has ended; its tools are closed."),
                }
            })
        });
        ToolGrant {
            url: format!("{}/{token}", self.endpoint()),
            endpoint: self.endpoint(),
            token,
            specs: specs::specs(&caller.tools),
            on_request: Vec::new(),
            invoker,
            bridge: self.shared.clone(),
            run_id: caller.run_id.clone(),
            agent_id: caller.agent_id,
        }
    }

    /// Ends every token of run `run_id` (later calls: HTTP 401, or a tool error in-process) and
    /// the tools it hosted.
    pub fn revoke(&self, run_id: &str) {
        let mut grants = self.shared.grants();
        grants.by_token.retain(|_, binding| !matches!(binding, Binding::Run(c) if c.run_id == run_id));
        grants.hosted.remove(run_id);
        for runs in grants.agents.values_mut() {
            if runs.live.as_ref().is_some_and(|c| c.run_id == run_id) {
                runs.live = None;
            }
        }
    }

    /// The same token for `agent_id` every time, for a process that outlives runs (an OpenClaw
    /// Gateway): a call acts for the agent's run in progress, and fails between runs.
    pub fn grant_lasting(&self, agent_id: &str) -> String {
        lasting_token(&self.shared, agent_id)
    }

    /// Ends `agent_id`'s lasting token (its process is gone for good, or the agent is).
    pub fn release(&self, agent_id: &str) {
        let mut grants = self.shared.grants();
        if let Some(token) = grants.lasting.remove(agent_id) {
            grants.by_token.remove(&token);
        }
        if grants.agents.get(agent_id).is_some_and(|a| a.live.is_none()) {
            grants.agents.remove(agent_id);
        }
    }

    /// The shapes of the latest requests with a valid token, oldest first, e.g.
    /// "POST initialize 2025-11-25" or "POST tools/call 2025-06-18 peer_post" (diagnostics).
    pub fn recent_requests(&self) -> Vec<String> {
        self.shared.recent.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).iter().cloned().collect()
    }

    /// Whether run `run_id` still holds a token (ended runs hold none).
    pub fn has_grant(&self, run_id: &str) -> bool {
        self.shared.grants().by_token.values().any(|b| matches!(b, Binding::Run(c) if c.run_id == run_id))
    }
}

/// The refusal of a call of `name`, which `caller`'s run was not offered (or which does not
/// exist): the run's own tools named, so the model can pick one of them.
fn not_offered(caller: &Caller, name: &str) -> String {
    let name: String = name.chars().take(64).collect();
    let own: Vec<&str> = caller.tools.iter().map(|t| t.as_str()).collect();
    match specs::parse(&name) {
        Some(_) if own.is_empty() => format!("There is no tool named {name} in this run: it has none of Clawboo's."),
        Some(_) => format!("There is no tool named {name} in this run; its tools are {}.", own.join(", ")),
        None => format!("There is no tool named {name}."),
    }
}

/// `agent_id`'s lasting token, made on first use.
fn lasting_token(shared: &Shared, agent_id: &str) -> String {
    let mut grants = shared.grants();
    if let Some(token) = grants.lasting.get(agent_id) {
        return token.clone();
    }
    let token = new_token();
    grants.lasting.insert(agent_id.to_owned(), token.clone());
    grants.by_token.insert(token.clone(), Binding::Lasting { agent_id: agent_id.to_owned() });
    token
}

/// 256 random bits (two v4 UUIDs come from the OS's random source).
fn new_token() -> String {
    format!("clawboo-tools-{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}
