//! A loopback fake model server: Anthropic Messages, OpenAI Chat Completions and OpenAI Responses,
//! streaming and not, with scripted replies and a log of every request it received.
//!
//! Point an agent CLI (or the engine) at [`FakeModelServer::base_url`] and script what the "model"
//! answers with a [`Behavior`]: plain text, one tool call followed by an answer, a slow stream (for
//! cancel tests) or an HTTP 500. The log ([`FakeModelServer::requests`]) is how a test proves what
//! the agent really sent. It binds 127.0.0.1 only, and never talks to anything else.

mod anthropic;
mod chat;
mod http;
mod plan;
mod responses;
mod rules;

pub use rules::{last_user_text, Rule};

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinSet;

/// The paths that count as a model turn in [`FakeModelServer::model_requests`].
pub const MODEL_PATHS: [&str; 3] = ["/v1/messages", "/v1/chat/completions", "/v1/responses"];

/// One HTTP request the server received, logged before it was answered.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub method: String,
    /// The path without its query, e.g. "/v1/messages". A proxied request for a host other than
    /// this server keeps its absolute form ("http://example.com/x", or "example.com:443" for CONNECT).
    pub path: String,
    /// The query string without the "?" ("beta=true"), empty when there is none.
    pub query: String,
    /// Header names as sent, in order.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON, `Null` when it is not JSON.
    pub body: serde_json::Value,
    pub raw_body: String,
}

impl RecordedRequest {
    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Whether this is a POST to one of the model endpoints ([`MODEL_PATHS`]).
    pub fn is_model_request(&self) -> bool {
        self.method == "POST" && MODEL_PATHS.contains(&self.path.as_str())
    }
}

/// What the fake model answers.
#[derive(Debug, Clone)]
pub struct Behavior {
    /// Reply when the last input item is the user's text.
    pub on_user: Reply,
    /// Reply when the last input item is a tool result.
    pub on_tool_result: Reply,
    /// Replies chosen by what the turn's message says; tried first (see [`Rule`]).
    pub rules: Vec<Rule>,
}

#[derive(Debug, Clone)]
pub enum Reply {
    Text(String),
    /// Ask for one tool call. `name` is used as given unless it is "*": then use the first tool the
    /// request offers whose name matches one of Bash / exec_command / terminal / exec / shell /
    /// run_shell_command (case-insensitive), else the first tool. "~suffix" picks the first
    /// offered tool whose name ends with `suffix`, whatever a runtime prefixes it with
    /// (`mcp__clawboo__peer_post`, `clawboo__peer_post`, Codex's namespace `mcp__clawboo` +
    /// `peer_post`); when a Responses request offers no such tool but a client `tool_search`
    /// (Codex's deferred namespaces), the model calls `tool_search` first.
    ToolCall {
        name: String,
        input: serde_json::Value,
    },
    /// Stream `text` in `chunks` pieces, waiting `delay` between pieces (for cancel tests).
    Slow {
        text: String,
        chunks: u32,
        delay: Duration,
    },
    /// Answer with HTTP 500 and a JSON error body {"error":{"type":"api_error","message": msg}}.
    ServerError(String),
    /// Answer every request, whatever its path, with HTTP 307 to this location (for tests that a
    /// client never follows a redirect with a key).
    Redirect(String),
}

impl Behavior {
    /// Always answer `text`.
    pub fn text(text: impl Into<String>) -> Self {
        let reply = Reply::Text(text.into());
        Self { on_user: reply.clone(), on_tool_result: reply, rules: Vec::new() }
    }

    /// Adds a rule: when the turn's message contains `needle`, answer with `steps` (the first to
    /// the message, the next to each tool result after it). Rules are tried in the order added.
    pub fn when(mut self, needle: impl Into<String>, steps: Vec<Reply>) -> Self {
        self.rules.push(Rule { contains: needle.into(), steps });
        self
    }

    /// Ask for one call of tool `name` with `input`, then answer `answer` once its result comes back.
    pub fn tool_then_answer(name: impl Into<String>, input: serde_json::Value, answer: impl Into<String>) -> Self {
        Self {
            on_user: Reply::ToolCall { name: name.into(), input },
            on_tool_result: Reply::Text(answer.into()),
            rules: Vec::new(),
        }
    }

    /// Always stream `text` in `chunks` pieces, `delay` apart.
    pub fn slow(text: impl Into<String>, chunks: u32, delay: Duration) -> Self {
        let reply = Reply::Slow { text: text.into(), chunks, delay };
        Self { on_user: reply.clone(), on_tool_result: reply, rules: Vec::new() }
    }

    /// Always answer HTTP 307 pointing at `location`.
    pub fn redirect(location: impl Into<String>) -> Self {
        let reply = Reply::Redirect(location.into());
        Self { on_user: reply.clone(), on_tool_result: reply, rules: Vec::new() }
    }

    /// Always fail with HTTP 500 carrying `message`.
    pub fn server_error(message: impl Into<String>) -> Self {
        let reply = Reply::ServerError(message.into());
        Self { on_user: reply.clone(), on_tool_result: reply, rules: Vec::new() }
    }
}

/// The state the connection handlers share.
pub(crate) struct Shared {
    pub(crate) behavior: Behavior,
    pub(crate) addr: SocketAddr,
    pub(crate) log: Mutex<Vec<RecordedRequest>>,
    /// Whether requests are logged at all (see [`FakeModelServer::stop_logging`]).
    pub(crate) logging: std::sync::atomic::AtomicBool,
    pub(crate) next_id: std::sync::atomic::AtomicU64,
    /// Input tokens every answer reports (0: a rough count of the request).
    pub(crate) reported_input_tokens: std::sync::atomic::AtomicU64,
    /// Cache reads and writes every Anthropic answer reports (0 unless a test sets them).
    pub(crate) reported_cache_tokens: [std::sync::atomic::AtomicU64; 2],
    /// Model requests still to answer with a transient failure (see [`FakeModelServer::fail_next`]).
    pub(crate) failing: std::sync::atomic::AtomicU32,
    /// The HTTP status those failures carry (503 unless [`FakeModelServer::fail_next_with`]).
    pub(crate) failing_status: std::sync::atomic::AtomicU16,
    /// When set, only a turn whose message contains this fails (`"only"` of `/testkit/fail-next`):
    /// another agent's request arriving meanwhile (a routine firing) is answered as usual.
    pub(crate) failing_only: Mutex<Option<String>>,
    /// Distinguishes this server's ids from another's: a resumed session replays the ids of
    /// earlier turns, and Claude Code treats a repeated tool_use id as an interrupted tool use.
    pub(crate) nonce: String,
}

impl Shared {
    /// A fresh id with this prefix, unique across servers.
    pub(crate) fn id(&self, prefix: &str) -> String {
        let n = self.next_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        format!("{prefix}{}{n:04}", self.nonce)
    }
}

/// A fake model server on 127.0.0.1 with a random port. Dropping it shuts it down.
pub struct FakeModelServer {
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeModelServer {
    /// Starts the server on the current tokio runtime.
    pub async fn start(behavior: Behavior) -> FakeModelServer {
        let (listener, shared) = bind(behavior).await;
        let (stop, stopped) = oneshot::channel();
        tokio::spawn(serve(listener, Arc::clone(&shared), stopped));
        FakeModelServer { shared, stop: Some(stop), thread: None }
    }

    /// Starts the server on `ip` (a test's own network namespace address, say) with a random port.
    pub async fn start_at(ip: std::net::IpAddr, behavior: Behavior) -> FakeModelServer {
        let (listener, shared) = bind_at(ip, behavior).await;
        let (stop, stopped) = oneshot::channel();
        tokio::spawn(serve(listener, Arc::clone(&shared), stopped));
        FakeModelServer { shared, stop: Some(stop), thread: None }
    }

    /// Starts the server on a thread of its own with its own tokio runtime, for sync tests.
    pub fn start_blocking(behavior: Behavior) -> FakeModelServer {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = oneshot::channel();
        let thread = std::thread::Builder::new()
            .name("fake-model-server".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("build the fake model server's runtime");
                runtime.block_on(async move {
                    let (listener, shared) = bind(behavior).await;
                    ready_tx.send(Arc::clone(&shared)).expect("report the fake model server's address");
                    serve(listener, shared, stopped).await;
                });
            })
            .expect("spawn the fake model server's thread");
        let shared = ready_rx.recv().expect("the fake model server started");
        FakeModelServer { shared, stop: Some(stop), thread: Some(thread) }
    }

    /// "http://127.0.0.1:PORT" (no trailing slash, no /v1).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.shared.addr)
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.shared.addr
    }

    /// Every request so far, in the order they arrived.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests_from(0)
    }

    /// The requests from the `start`-th on (0-based), copying only those.
    pub fn requests_from(&self, start: usize) -> Vec<RecordedRequest> {
        self.shared.log.lock().expect("request log").iter().skip(start).cloned().collect()
    }

    /// Only the POSTs to /v1/messages, /v1/chat/completions and /v1/responses.
    pub fn model_requests(&self) -> Vec<RecordedRequest> {
        self.model_requests_from(0)
    }

    /// How many model requests so far (nothing copied: for benches, whose own garbage between
    /// two sends would be charged to the next one).
    pub fn model_request_count(&self) -> usize {
        self.shared.log.lock().expect("request log").iter().filter(|r| r.is_model_request()).count()
    }

    /// The last model request's body as received, copying only it (not its parsed JSON: a
    /// bench's own garbage between two sends would be charged to the next one).
    pub fn last_model_body(&self) -> Option<String> {
        let log = self.shared.log.lock().expect("request log");
        log.iter().rev().find(|r| r.is_model_request()).map(|r| r.raw_body.clone())
    }

    /// Forgets the requests logged so far (a bench's thousands of long bodies would otherwise
    /// pile up, parsed, in the server's memory).
    pub fn forget_requests(&self) {
        self.shared.log.lock().expect("request log").clear();
    }

    /// Logs no request from now on (a bench's thousands of long bodies, answered and dropped).
    pub fn stop_logging(&self) {
        self.shared.logging.store(false, std::sync::atomic::Ordering::Relaxed);
        self.forget_requests();
    }

    /// The model requests from the `start`-th on (0-based), copying only those.
    pub fn model_requests_from(&self, start: usize) -> Vec<RecordedRequest> {
        let log = self.shared.log.lock().expect("request log");
        log.iter().filter(|r| r.is_model_request()).skip(start).cloned().collect()
    }

    /// The next `count` model requests are answered HTTP 503 ("overloaded"), as a busy provider
    /// does; the ones after get the behaviour's answers. For retry tests.
    pub fn fail_next(&self, count: u32) {
        self.fail_next_with(count, 503);
    }

    /// [`FakeModelServer::fail_next`] with another status (500: a server error). A running
    /// server (the example, for end-to-end tests) takes the same as
    /// `POST /testkit/fail-next {"count": N, "status": S}` (with `"only": "text"`, only turns whose
    /// message contains the text fail).
    pub fn fail_next_with(&self, count: u32, status: u16) {
        set_failing(&self.shared, count, status, None);
    }

    /// Every answer from now on reports `tokens` input tokens (0: a rough count of the request),
    /// e.g. to fill a runtime's context window.
    pub fn report_input_tokens(&self, tokens: u64) {
        self.shared.reported_input_tokens.store(tokens, std::sync::atomic::Ordering::SeqCst);
    }

    /// Every Anthropic answer from now on reports `read` tokens read from the cache and `write`
    /// written to it (spend tests price them apart).
    pub fn report_cache_tokens(&self, read: u64, write: u64) {
        self.shared.reported_cache_tokens[0].store(read, std::sync::atomic::Ordering::SeqCst);
        self.shared.reported_cache_tokens[1].store(write, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for FakeModelServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The next `count` model requests (of the turn whose message contains `only`, when set) fail
/// with HTTP `status`.
pub(crate) fn set_failing(shared: &Shared, count: u32, status: u16, only: Option<String>) {
    *shared.failing_only.lock().expect("failing_only") = only;
    shared.failing_status.store(status, std::sync::atomic::Ordering::SeqCst);
    shared.failing.store(count, std::sync::atomic::Ordering::SeqCst);
}

async fn bind(behavior: Behavior) -> (TcpListener, Arc<Shared>) {
    bind_at(std::net::Ipv4Addr::LOCALHOST.into(), behavior).await
}

async fn bind_at(ip: std::net::IpAddr, behavior: Behavior) -> (TcpListener, Arc<Shared>) {
    let listener = TcpListener::bind((ip, 0)).await.expect("bind the fake model server");
    let addr = listener.local_addr().expect("fake model server address");
    let nonce = format!("{:08x}", (crate::nanos() as u32) ^ (u32::from(addr.port()) << 16));
    let shared = Arc::new(Shared {
        behavior,
        addr,
        log: Mutex::new(Vec::new()),
        logging: std::sync::atomic::AtomicBool::new(true),
        next_id: Default::default(),
        reported_input_tokens: Default::default(),
        reported_cache_tokens: Default::default(),
        failing: Default::default(),
        failing_status: std::sync::atomic::AtomicU16::new(503),
        failing_only: Mutex::new(None),
        nonce,
    });
    (listener, shared)
}

/// Accepts connections until `stopped` fires; then every open connection is dropped too.
async fn serve(listener: TcpListener, shared: Arc<Shared>, mut stopped: oneshot::Receiver<()>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut stopped => break,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    connections.spawn(http::handle_connection(stream, Arc::clone(&shared)));
                }
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    connections.shutdown().await;
}
