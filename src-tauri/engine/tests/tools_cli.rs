//! Clawboo's tools on every runtime: a turn whose fake model calls `peer_post` reaches the
//! recording host through the bridge (MCP for the real CLIs, in-process for Native), bound to
//! that run's caller; the run's token is in no argv and in no file the CLI was given.
#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clawboo_engine::agents::{Agent, RuntimeKind};
use clawboo_engine::runtimes::process::CommandSpec;
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{
    ApprovalPolicy, Endpoint, RunChannels, RunEvent, RunOutcome, RunResult, Runtime, TurnInput,
};
use clawboo_engine::secrets::Provider;
use clawboo_engine::tools::{Caller, ToolGrant, ToolName, Tools};
use clawboo_testkit::{Behavior, FakeModelServer, RecordedRequest};
use common::tools::{caller, RecordingHost};
use common::{Fixed, SpecSpawner};
use serde_json::json;
use tokio::sync::{mpsc, watch};

const LIMIT: Duration = Duration::from_secs(180);
const TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(120), grace: Duration::from_secs(3) };
const POST: &str = "hello from the bridge";

/// A bridge with a recording host, a grant for one run, a scratch folder.
struct Bridge {
    tools: Arc<Tools>,
    host: Arc<RecordingHost>,
    caller: Caller,
    grant: ToolGrant,
    dir: tempfile::TempDir,
    agent_dir: PathBuf,
    workspace: PathBuf,
    started: Instant,
}

fn bridge(run_id: &str, agent_id: &str) -> Bridge {
    let tools = Tools::start(&tokio::runtime::Handle::current()).unwrap();
    let host = Arc::new(RecordingHost::default());
    tools.set_host(host.clone());
    let caller = caller(run_id, agent_id, "scout", &[ToolName::PeerPost, ToolName::PeerRead]);
    let grant = tools.grant(caller.clone());
    let dir = common::scratch_dir();
    let agent_dir = dir.path().join("agent");
    let workspace = dir.path().join("work");
    std::fs::create_dir_all(&workspace).unwrap();
    Bridge { tools, host, caller, grant, dir, agent_dir, workspace, started: Instant::now() }
}

fn agent(runtime: RuntimeKind, model: &str, provider: Option<Provider>, approval: ApprovalPolicy) -> Agent {
    Agent { model: model.into(), provider, ..common::agent_record(runtime, approval) }
}

impl Bridge {
    fn input(&self, mut agent: Agent, program: Option<PathBuf>) -> TurnInput {
        agent.id = self.caller.agent_id.clone();
        TurnInput {
            run_id: self.caller.run_id.clone(),
            persona: Some("You are Scout.".into()),
            tools: Some(self.grant.clone()),
            program,
            ..common::turn_input(agent, &self.workspace, &self.agent_dir, "Tell the team hello.")
        }
    }

    /// The host got exactly one `peer_post`, bound to this run's caller.
    fn assert_posted(&self, result: &RunResult, events: &[RunEvent]) {
        assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?}\n{events:#?}");
        let calls = self.host.calls();
        assert_eq!(calls.len(), 1, "one tool call reached the host: {calls:#?}\n{events:#?}");
        assert_eq!(calls[0].tool, ToolName::PeerPost);
        assert_eq!(calls[0].args, json!({"text": POST}));
        assert_eq!(calls[0].caller, self.caller, "bound to the run's caller");
    }

    /// The token is in no argv, and in no file under the run's folders; `in_env`: the CLI
    /// gets it in `CLAWBOO_TOKEN` (Hermes gets it over stdin instead).
    fn assert_token_kept_out(&self, specs: &[CommandSpec], in_env: bool) {
        self.assert_kept_out(specs, &self.grant.token, in_env);
    }

    fn assert_kept_out(&self, specs: &[CommandSpec], token: &str, in_env: bool) {
        assert!(!specs.is_empty());
        for spec in specs {
            assert!(!spec.args.iter().any(|a| a.contains(token)), "token in argv: {:?}", spec.args);
        }
        let has_env = specs.iter().any(|s| s.env.iter().any(|(k, v)| k == "CLAWBOO_TOKEN" && v == token));
        assert_eq!(has_env, in_env, "CLAWBOO_TOKEN in the env");
        let mut found = Vec::new();
        scan(self.dir.path(), token, &mut found);
        assert!(found.is_empty(), "token written to {found:?}");
    }

    fn report(&self, name: &str, server: &FakeModelServer) {
        let model = server.model_requests();
        eprintln!(
            "[tools_cli] {name}: {:.1} s, {} model requests, tools offered first: {:?}",
            self.started.elapsed().as_secs_f64(),
            model.len(),
            model.first().map(tool_names).unwrap_or_default()
        );
        if let Some(first) = model.first() {
            let tools = first.body["tools"].as_array().map_or(0, Vec::len);
            eprintln!("[tools_cli] {name}: the first request is {} bytes with {tools} tools", first.raw_body.len());
        }
        eprintln!("[tools_cli] {name}: MCP requests {:?}", self.tools.recent_requests());
    }
}

fn scan(dir: &Path, needle: &str, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            scan(&path, needle, found);
        } else if kind.is_file() {
            if let Ok(bytes) = std::fs::read(&path) {
                if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                    found.push(path);
                }
            }
        }
    }
}

/// The tool names a model request offers (Anthropic, Chat, Responses and namespaces).
fn tool_names(request: &RecordedRequest) -> Vec<String> {
    let mut names = Vec::new();
    for tool in request.body["tools"].as_array().into_iter().flatten() {
        let name = tool["name"].as_str().or(tool["function"]["name"].as_str()).or(tool["type"].as_str()).unwrap_or("?");
        match tool["tools"].as_array() {
            Some(inner) => names.extend(inner.iter().map(|t| format!("{name}/{}", t["name"].as_str().unwrap_or("?")))),
            None => names.push(name.to_owned()),
        }
    }
    names.retain(|n| n.contains("clawboo") || n.contains("peer_") || n.contains("handoff") || n.contains("search"));
    names
}

async fn run(runtime: Arc<dyn Runtime>, input: TurnInput) -> (RunResult, Vec<RunEvent>) {
    let (events_tx, mut events_rx) = mpsc::unbounded_channel();
    let (permissions_tx, _permissions) = mpsc::unbounded_channel();
    let (_cancel, cancel_rx) = watch::channel(false);
    let channels = RunChannels { events: events_tx, permissions: permissions_tx, cancel: cancel_rx };
    let task = tokio::spawn(async move { runtime.run(input, channels).await });
    let result = tokio::time::timeout(LIMIT, task).await.expect("the run ends in time").expect("no panic");
    let mut events = Vec::new();
    while let Ok(event) = events_rx.try_recv() {
        events.push(event);
    }
    (result.expect("the run starts"), events)
}

fn proxy_env(server: &FakeModelServer) -> Vec<(String, String)> {
    let base = server.base_url();
    let mut env: Vec<(String, String)> = ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"]
        .iter()
        .map(|n| ((*n).into(), base.clone()))
        .collect();
    env.push(("NO_PROXY".into(), "127.0.0.1,localhost".into()));
    env.push(("no_proxy".into(), "127.0.0.1,localhost".into()));
    env
}

fn behavior() -> Behavior {
    Behavior::tool_then_answer("~peer_post", json!({"text": POST}), "Posted.")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_calls_peer_post_in_process() {
    let server = FakeModelServer::start(behavior()).await;
    let b = bridge("run-native", "agent-native");
    let endpoint = Endpoint { base_url: server.base_url(), api_key: Some("k".into()) };
    let runtime = Arc::new(clawboo_engine::runtimes::native::NativeRuntime::new(Arc::new(Fixed(endpoint))));
    let input = b.input(agent(RuntimeKind::Native, "some-model", Some(Provider::Anthropic), ApprovalPolicy::Ask), None);
    let (result, events) = run(runtime, input).await;
    b.assert_posted(&result, &events);
    let requests = server.model_requests();
    let offered = tool_names(&requests[0]);
    assert_eq!(offered, ["peer_post", "peer_read"], "granted tools only, next to the workspace tools");
    let second = &requests[1].body["messages"];
    assert!(second.to_string().contains("peer_post done"), "the host's answer went back as the tool result");
    b.report("native", &server);
    // Revoked: the invoker refuses.
    b.tools.revoke("run-native");
    let late = (b.grant.invoker)(ToolName::PeerPost, json!({"text": "late"})).await;
    assert!(late.is_error);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_calls_peer_post_over_mcp() {
    let Some(program) = common::cli("claude") else { return };
    let server = FakeModelServer::start(behavior()).await;
    let b = bridge("run-claude", "agent-claude");
    let spawner = SpecSpawner::default();
    let endpoint = Endpoint { base_url: server.base_url(), api_key: Some("sk-ant-test".into()) };
    let runtime = Arc::new(
        clawboo_engine::runtimes::claude_code::ClaudeCodeRuntime::new(
            Arc::new(spawner.clone()),
            Arc::new(Fixed(endpoint)),
        )
        .with_env(proxy_env(&server))
        .with_timeouts(TIMEOUTS),
    );
    // Read-only: the strictest tool set; Clawboo's tools must stay in it.
    let input = b.input(agent(RuntimeKind::ClaudeCode, "", None, ApprovalPolicy::ReadOnly), Some(program));
    let (result, events) = run(runtime, input).await;
    b.report("claude_code", &server);
    b.assert_posted(&result, &events);
    b.assert_token_kept_out(&spawner.specs(), true);
    let first = &server.model_requests()[0];
    assert!(
        tool_names(first).contains(&"mcp__clawboo__peer_post".to_owned()),
        "sent directly: {:?}",
        tool_names(first)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_calls_peer_post_over_mcp() {
    let Some(program) = common::cli("codex") else { return };
    let server = FakeModelServer::start(behavior()).await;
    let b = bridge("run-codex", "agent-codex");
    let spawner = SpecSpawner::default();
    let endpoint = Endpoint { base_url: format!("{}/v1", server.base_url()), api_key: Some("sk-test".into()) };
    let runtime = Arc::new(
        clawboo_engine::runtimes::codex::CodexRuntime::new(Arc::new(spawner.clone()), Arc::new(Fixed(endpoint)))
            .with_env(proxy_env(&server))
            .with_timeouts(TIMEOUTS),
    );
    // "Ask": Codex would ask before commands; Clawboo's tools are approved up front.
    let input = b.input(agent(RuntimeKind::Codex, "", None, ApprovalPolicy::Ask), Some(program));
    let (result, events) = run(runtime, input).await;
    b.report("codex", &server);
    b.assert_posted(&result, &events);
    b.assert_token_kept_out(&spawner.specs(), true);
}

/// Hermes' endpoint: OpenAI-compatible, its base with /v1.
struct HermesEndpoint(String);

impl clawboo_engine::runtimes::EndpointSource for HermesEndpoint {
    fn endpoint(&self, _provider: Provider, _run_id: &str) -> clawboo_engine::Result<Endpoint> {
        Ok(Endpoint { base_url: format!("{}/v1", self.0), api_key: Some("sk-fake-hermes".into()) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hermes_calls_peer_post_over_mcp() {
    let Some(program) = common::cli("hermes") else { return };
    let server = FakeModelServer::start(behavior()).await;
    let b = bridge("run-hermes", "agent-hermes");
    let spawner = SpecSpawner::default();
    let runtime = Arc::new(
        clawboo_engine::runtimes::hermes::HermesRuntime::new(
            Arc::new(spawner.clone()),
            Arc::new(HermesEndpoint(server.base_url())),
        )
        .with_env(proxy_env(&server))
        .with_timeouts(TIMEOUTS),
    );
    // Read-only: Clawboo's guard must let Clawboo's tools through.
    let input = b.input(
        agent(RuntimeKind::Hermes, "some-model", Some(Provider::OpenAi), ApprovalPolicy::ReadOnly),
        Some(program),
    );
    let (result, events) = run(runtime, input).await;
    b.report("hermes", &server);
    b.assert_posted(&result, &events);
    b.assert_token_kept_out(&spawner.specs(), false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openclaw_calls_peer_post_over_mcp_through_its_gateways_lasting_token() {
    let Some(program) = common::cli("openclaw") else { return };
    let Some(node) = common::cli("node24") else { return };
    let server = FakeModelServer::start(behavior()).await;
    let b = bridge("run-openclaw", "agent-openclaw");
    let spawner = SpecSpawner::default();
    let endpoint = Endpoint { base_url: format!("{}/v1", server.base_url()), api_key: Some("sk-fake".into()) };
    let mut env = proxy_env(&server);
    let path = format!("{}:{}", node.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    env.push(("PATH".into(), path));
    let runtime = Arc::new(
        clawboo_engine::runtimes::openclaw::OpenclawRuntime::new(Arc::new(spawner.clone()), Arc::new(Fixed(endpoint)))
            .with_env(env)
            .with_timeouts(TIMEOUTS),
    );
    let input =
        b.input(agent(RuntimeKind::Openclaw, "some-model", Some(Provider::Custom), ApprovalPolicy::Ask), Some(program));
    let (result, events) = run(runtime.clone(), input).await;
    b.report("openclaw", &server);
    b.assert_posted(&result, &events);
    let lasting = b.tools.grant_lasting(&b.caller.agent_id);
    let specs = spawner.specs();
    // The Gateway's env holds the agent's lasting token; the run's own token goes nowhere.
    b.assert_kept_out(&specs, &lasting, true);
    b.assert_kept_out(&specs, &b.grant.token, false);
    let config = std::fs::read_to_string(b.agent_dir.join(".clawboo/openclaw/openclaw.json"))
        .or_else(|_| find_file(b.dir.path(), "openclaw.json"))
        .unwrap();
    assert!(config.contains("${CLAWBOO_TOKEN}"), "a placeholder in the config: {config}");
    // Between runs the Gateway's token acts for no one.
    b.tools.revoke(&b.caller.run_id);
    let late = reqwest::Client::new()
        .post(b.tools.endpoint())
        .bearer_auth(&lasting)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-11-25")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "peer_post", "arguments": {"text": "late"}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(late.contains("No run in progress"), "{late}");
    assert_eq!(b.host.calls().len(), 1);
    drop(runtime); // stops the Gateway
}

fn find_file(dir: &Path, name: &str) -> std::io::Result<String> {
    for entry in std::fs::read_dir(dir)?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Ok(text) = find_file(&path, name) {
                return Ok(text);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return std::fs::read_to_string(path);
        }
    }
    Err(std::io::ErrorKind::NotFound.into())
}
