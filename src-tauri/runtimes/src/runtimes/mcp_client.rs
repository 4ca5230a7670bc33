//! Clawboo's MCP client for a run's connectors, whatever the runtime: each one started (stdio,
//! through the engine's [`Spawner`] with the command of [`server_command`], so the server is its
//! own process group, recorded for the sweep) or reached (streamable HTTP) when the run starts,
//! its tools listed and offered as `<connector>__<tool>` (to Native in-process, to the CLIs through
//! the run's tools bridge), called by Clawboo, and stopped when the run ends or is cancelled.
//! A connector that does not start is a warning on the run, never a failed turn.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, Tool, ToolAnnotations};
use rmcp::service::{RoleClient, RunningService};
use serde_json::Value;
use tokio::io::AsyncReadExt;

use crate::connectors::{RunConnector, RunTransport};
use crate::runtimes::process::{ChildControl, CommandSpec, Spawner};

/// How long a connector may take to start and list its tools.
const START_LIMIT: Duration = Duration::from_secs(20);
/// How long one tool call may take.
const CALL_LIMIT: Duration = Duration::from_secs(300);
/// The tail of a server's stderr kept to explain a failed start.
const STDERR_TAIL: usize = 600;
/// Model APIs accept tool names of at most 64 characters of `[a-zA-Z0-9_-]`.
const MAX_TOOL_NAME: usize = 64;
/// A tool result the model gets at most, in characters.
const MAX_RESULT_CHARS: usize = 64 * 1024;

/// A tool of a connector, as offered to the model.
#[derive(Debug, Clone)]
pub struct OfferedTool {
    /// `<connector>__<tool>`, made safe for model APIs.
    pub name: String,
    pub description: String,
    pub schema: Value,
    /// The server's hints, passed on as given (informational: Clawboo decides by `read_only`).
    pub annotations: Option<ToolAnnotations>,
    /// May run under the read-only policy: its server says it only reads (`readOnlyHint: true`)
    /// and reaches no open world (`openWorldHint: false`; a missing hint counts as open).
    pub read_only: bool,
}

/// Whether a tool's hints let it run under the read-only policy (see [`OfferedTool::read_only`]).
pub fn reads_only(annotations: Option<&ToolAnnotations>) -> bool {
    annotations.is_some_and(|a| a.read_only_hint == Some(true) && a.open_world_hint == Some(false))
}

struct Connected {
    service: RunningService<RoleClient, ()>,
    /// The stdio server's process group; None for HTTP. (Behind a lock: the session is shared
    /// across the run's awaits, and a process handle is not `Sync`.)
    process: Mutex<Option<Box<dyn ChildControl>>>,
}

/// The connectors of one run, started.
#[derive(Default)]
pub struct Session {
    connected: Vec<Connected>,
    offered: Vec<OfferedTool>,
    /// Offered name → (connected index, the server's own tool name).
    routes: HashMap<String, (usize, String)>,
}

impl Session {
    /// Starts every connector; `warnings` gets one line per connector that did not start.
    pub async fn start(
        connectors: &[RunConnector],
        spawner: &Arc<dyn Spawner>,
        cwd: &std::path::Path,
        client: &reqwest::Client,
    ) -> (Session, Vec<String>) {
        let mut session = Session::default();
        let mut warnings = Vec::new();
        for connector in connectors {
            // Its own task, owning what it uses: dropped on a timeout, it takes the server's
            // process with it (killed on drop).
            let task = tokio::spawn(connect(connector.clone(), spawner.clone(), cwd.to_owned(), client.clone()));
            // Aborted if this start is dropped (the run was cancelled) or times out.
            let abort = AbortOnDrop(task.abort_handle());
            match tokio::time::timeout(START_LIMIT, task).await {
                Ok(Ok(Ok((connected, tools)))) => session.add(&connector.name, connected, tools),
                Ok(Ok(Err(why))) => warnings.push(format!("Connector '{}' did not start: {why}", connector.name)),
                Ok(Err(e)) => warnings.push(format!("Connector '{}' did not start: {e}", connector.name)),
                Err(_) => {
                    drop(abort);
                    warnings.push(format!(
                        "Connector '{}' did not start: no answer within {} s.",
                        connector.name,
                        START_LIMIT.as_secs()
                    ));
                }
            }
        }
        (session, warnings)
    }

    fn add(&mut self, connector: &str, connected: Connected, tools: Vec<Tool>) {
        let index = self.connected.len();
        self.connected.push(connected);
        for tool in tools {
            let name = offered_name(connector, &tool.name);
            if self.routes.contains_key(&name) {
                continue; // two tools that read the same once made safe: the first wins
            }
            self.routes.insert(name.clone(), (index, tool.name.to_string()));
            self.offered.push(OfferedTool {
                name,
                description: tool.description.as_deref().unwrap_or("").chars().take(2_000).collect(),
                schema: Value::Object((*tool.input_schema).clone()),
                read_only: reads_only(tool.annotations.as_ref()),
                annotations: tool.annotations,
            });
        }
    }

    /// The tools to offer the model.
    pub fn offered(&self) -> &[OfferedTool] {
        &self.offered
    }

    /// The offered tool a call names, if a connector's.
    pub fn tool(&self, name: &str) -> Option<&OfferedTool> {
        self.routes.get(name).and_then(|_| self.offered.iter().find(|t| t.name == name))
    }

    /// Calls a connector's tool. `Err` is a tool error for the model.
    pub fn call(&self, name: &str, input: &Value) -> ToolCallFuture {
        let Some((index, tool)) = self.routes.get(name) else {
            let missing = format!("There is no tool named {name}.");
            return Box::pin(async move { Err(missing) });
        };
        let mut params = CallToolRequestParams::new(tool.clone());
        params.arguments = match input {
            Value::Object(map) => Some(map.clone()),
            Value::Null => None,
            _ => {
                let wrong = format!("{name} takes an object of arguments.");
                return Box::pin(async move { Err(wrong) });
            }
        };
        // An owned handle: the call's future borrows nothing of the run.
        let peer = self.connected[*index].service.peer().clone();
        Box::pin(call_tool(peer, params))
    }

    /// Stops every connector: the MCP session closes, then each server's process group is
    /// killed (nothing outlives its run).
    pub fn stop(self) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        Box::pin(self.stop_all())
    }

    async fn stop_all(mut self) {
        for mut connected in self.connected.drain(..) {
            let _ = tokio::time::timeout(Duration::from_secs(2), connected.service.close()).await;
            let process = connected.process.get_mut().ok().and_then(Option::take);
            if let Some(mut process) = process {
                let _ = process.kill();
                let _ = tokio::time::timeout(Duration::from_secs(2), process.wait()).await;
            }
        }
    }
}

/// What [`Session::call`] returns: owned, so a run can hold it across its awaits.
pub type ToolCallFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Result<String, String>> + Send>>;

async fn call_tool(peer: rmcp::service::Peer<RoleClient>, params: CallToolRequestParams) -> Result<String, String> {
    let result = match tokio::time::timeout(CALL_LIMIT, call_on(&peer, params)).await {
        Ok(Ok(result)) => result,
        Ok(Err(e)) => return Err(format!("The connector failed: {e}")),
        Err(_) => return Err(format!("The connector did not answer within {} s.", CALL_LIMIT.as_secs())),
    };
    let mut text: String =
        result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.as_str())).collect::<Vec<_>>().join("\n");
    if text.is_empty() {
        if let Some(structured) = &result.structured_content {
            text = structured.to_string();
        }
    }
    if text.chars().count() > MAX_RESULT_CHARS {
        text = text.chars().take(MAX_RESULT_CHARS).collect::<String>() + "\n[cut: the result was longer]";
    }
    if result.is_error == Some(true) {
        Err(text)
    } else {
        Ok(text)
    }
}

/// Aborts a task when dropped: its server process goes with it (killed on drop).
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // A run dropped without `stop` (a panic, an abort) still leaves no process behind.
        for connected in &mut self.connected {
            if let Some(process) = connected.process.get_mut().ok().and_then(Option::as_mut) {
                let _ = process.kill();
            }
        }
    }
}

/// The one command a stdio connector's server is started with, for every runtime: the program
/// and arguments the user gave, an environment built from scratch (the user's entries, secrets
/// included, plus the few variables every process inherits: never the agent's, never argv), in
/// the agent's folder. Its process is Clawboo's child, outside any agent's process tree.
///
/// It runs in Clawboo's sandbox: the agent's folder, an empty home and temp, and the network
/// through Clawboo's proxy (a connector reaches its own service), never the user's files.
pub fn server_command(command: &str, args: Vec<String>, mut env: Vec<(String, String)>, cwd: PathBuf) -> CommandSpec {
    use crate::runtimes::sandbox;
    let confine = sandbox::os_supported().then(|| sandbox::folder_view(&cwd, sandbox::NetworkAccess::Any));
    if confine.is_some() {
        env.extend(sandbox::FOLDER_VIEW_ENV.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    }
    CommandSpec {
        program: command.into(),
        args,
        env,
        inherit_env: crate::runtimes::home::INHERITED_ENV.iter().map(|s| (*s).to_owned()).collect(),
        cwd,
        piped_stdin: true,
        confine,
    }
}

/// The HTTP client that reaches HTTP connectors: one for the process, no redirects.
pub fn http_client() -> reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(10))
                .redirect(reqwest::redirect::Policy::none())
                .user_agent(concat!("Clawboo/", env!("CARGO_PKG_VERSION")))
                .build()
                .expect("the HTTP client can be built (TLS backend available)")
        })
        .clone()
}

/// `<connector>__<tool>`, with characters model APIs refuse replaced by `_`, at most 64.
pub fn offered_name(connector: &str, tool: &str) -> String {
    let safe = |c: char| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' };
    format!("{connector}__{tool}").chars().map(safe).take(MAX_TOOL_NAME).collect()
}

async fn connect(
    connector: RunConnector,
    spawner: Arc<dyn Spawner>,
    cwd: PathBuf,
    client: reqwest::Client,
) -> Result<(Connected, Vec<Tool>), String> {
    match connector.transport {
        RunTransport::Stdio { command, args, env } => {
            let spec = server_command(&command, args, env, cwd);
            let mut child = spawner.spawn(&spec).map_err(|e| format!("{command} could not be started ({e})."))?;
            let stdin = child.stdin.take().ok_or("no stdin pipe")?;
            let stderr = drain_stderr(child.stderr);
            let mut process = Some(child.control);
            let started = async {
                let service = serve(child.stdout, stdin).await.map_err(|e| e.to_string())?;
                let tools = list_tools(&service).await.map_err(|e| e.to_string())?;
                Ok::<_, String>((service, tools))
            }
            .await;
            match started {
                Ok((service, tools)) => Ok((Connected { service, process: Mutex::new(process) }, tools)),
                Err(why) => {
                    if let Some(mut p) = process.take() {
                        let _ = p.kill();
                        let _ = tokio::time::timeout(Duration::from_secs(2), p.wait()).await;
                    }
                    let said = stderr.lock().map(|s| s.trim().to_owned()).unwrap_or_default();
                    Err(if said.is_empty() { why } else { format!("{why}; it said: {said}") })
                }
            }
        }
        RunTransport::Http { url, headers } => {
            use rmcp::transport::streamable_http_client::{
                StreamableHttpClientTransport, StreamableHttpClientTransportConfig,
            };
            let mut custom = HashMap::new();
            for (key, value) in &headers {
                let name = hyper::http::HeaderName::try_from(key.as_str()).map_err(|e| format!("header {key}: {e}"))?;
                let value = hyper::http::HeaderValue::try_from(value.as_str())
                    .map_err(|_| format!("header {key}: bad value"))?;
                custom.insert(name, value);
            }
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
            let transport = StreamableHttpClientTransport::with_client(client.clone(), config);
            let service = serve_http(transport).await.map_err(|e| e.to_string())?;
            let tools = list_tools(&service).await.map_err(|e| e.to_string())?;
            Ok((Connected { service, process: Mutex::new(None) }, tools))
        }
    }
}

// rmcp's client futures, boxed as `Send` where their lifetimes are concrete: the compiler
// cannot prove them `Send` for every lifetime inside an async fn.
type Boxed<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;
type Client = RunningService<RoleClient, ()>;

fn serve(
    stdout: Box<dyn tokio::io::AsyncRead + Send + Unpin>,
    stdin: Box<dyn tokio::io::AsyncWrite + Send + Unpin>,
) -> Boxed<'static, Result<Client, rmcp::service::ClientInitializeError>> {
    Box::pin(rmcp::serve_client((), (stdout, stdin)))
}

fn serve_http(
    transport: rmcp::transport::StreamableHttpClientTransport<reqwest::Client>,
) -> Boxed<'static, Result<Client, rmcp::service::ClientInitializeError>> {
    Box::pin(rmcp::serve_client((), transport))
}

fn list_tools(service: &Client) -> Boxed<'_, Result<Vec<Tool>, rmcp::ServiceError>> {
    Box::pin(service.list_all_tools())
}

fn call_on(
    peer: &rmcp::service::Peer<RoleClient>,
    params: CallToolRequestParams,
) -> Boxed<'_, Result<rmcp::model::CallToolResult, rmcp::ServiceError>> {
    Box::pin(peer.call_tool(params))
}

/// Reads a server's stderr so it never blocks on a full pipe; keeps its tail.
fn drain_stderr(mut stderr: Box<dyn tokio::io::AsyncRead + Send + Unpin>) -> Arc<Mutex<String>> {
    let tail = Arc::new(Mutex::new(String::new()));
    let kept = tail.clone();
    tokio::spawn(async move {
        let mut buf = [0u8; 1024];
        while let Ok(n) = stderr.read(&mut buf).await {
            if n == 0 {
                break;
            }
            if let Ok(mut t) = kept.lock() {
                t.push_str(&String::from_utf8_lossy(&buf[..n]));
                let len = t.chars().count();
                if len > STDERR_TAIL {
                    *t = t.chars().skip(len - STDERR_TAIL).collect();
                }
            }
        }
    });
    tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offered_names_are_prefixed_and_safe_for_model_apis() {
        assert_eq!(offered_name("docs", "lookup"), "docs__lookup");
        assert_eq!(offered_name("web", "search.v2 now"), "web__search_v2_now");
        assert_eq!(offered_name("x", &"a".repeat(100)).len(), MAX_TOOL_NAME);
    }

    #[test]
    fn read_only_takes_a_read_only_hint_and_a_closed_world() {
        let hints = |read_only: Option<bool>, open_world: Option<bool>| {
            let mut a = ToolAnnotations::default();
            a.read_only_hint = read_only;
            a.open_world_hint = open_world;
            a
        };
        assert!(reads_only(Some(&hints(Some(true), Some(false)))));
        assert!(!reads_only(Some(&hints(Some(true), None))), "a missing openWorldHint counts as open");
        assert!(!reads_only(Some(&hints(Some(true), Some(true)))));
        assert!(!reads_only(Some(&hints(None, Some(false)))));
        assert!(!reads_only(Some(&hints(Some(false), Some(false)))));
        assert!(!reads_only(None));
    }

    #[test]
    fn a_servers_values_go_to_its_env_alone() {
        let spec = server_command(
            "fs-server",
            vec!["--root".into(), "/data".into()],
            vec![("TOKEN".into(), "s3cret".into())],
            "/work/agent".into(),
        );
        assert_eq!(spec.program, PathBuf::from("fs-server"));
        assert_eq!(spec.args, ["--root", "/data"]);
        // The user's values, then (confined) the sandbox's empty home and temp.
        assert_eq!(spec.env[0], ("TOKEN".to_owned(), "s3cret".to_owned()));
        let rest: Vec<_> = spec.env[1..].iter().map(|(k, v)| format!("{k}={v}")).collect();
        if spec.confine.is_some() {
            assert_eq!(rest, ["HOME=/tmp", "TMPDIR=/tmp"]);
        } else {
            assert!(rest.is_empty(), "{rest:?}");
        }
        assert!(spec.inherit_env.iter().all(|name| name != "TOKEN" && name != "HOME"), "{:?}", spec.inherit_env);
        assert!(spec.piped_stdin);
    }
}
