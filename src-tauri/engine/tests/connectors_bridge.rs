//! The user's connectors, hosted by Clawboo and served through each run's tools bridge: a real
//! CLI (from `CLAWBOO_RUNTIMES_DIR`, on the fake model server) calls a stdio connector's tool
//! as `<connector>__<tool>` behind Clawboo's own MCP server and gets its result, while the
//! connector's secret reaches only the server's own process: never the CLI's argv or env, never
//! a file in the agent's folder. And the agent's approval policy holds for every call (read-only:
//! only tools marked read-only and closed-world; ask: an approval first), whatever the runtime.
#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clawboo_engine::agents::{Agent, RuntimeKind};
use clawboo_engine::connectors::{RunConnector, RunTransport};
use clawboo_engine::runtimes::hosted::{self, Reach};
use clawboo_engine::runtimes::mcp_client::Session;
use clawboo_engine::runtimes::process::{CommandSpec, Spawner, SystemSpawner};
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{
    ApprovalPolicy, Endpoint, PermissionAnswer, RunChannels, RunEvent, RunOutcome, RunResult, Runtime, TurnInput,
};
use clawboo_engine::secrets::Provider;
use clawboo_engine::tools::{Caller, ToolGrant, ToolName, Tools};
use clawboo_testkit::{Behavior, FakeModelServer};
use common::tools::{caller, RecordingHost};
use common::{Fixed, SpecSpawner};
use serde_json::json;
use tokio::sync::{mpsc, watch};

const LIMIT: Duration = Duration::from_secs(240);
const TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(120), grace: Duration::from_secs(3) };
const SECRET: &str = "connector-secret-via-bridge-7d31";
const RESULT: &str = "LOOKUP-RESULT for clawboo: 42 (secret present: yes)";

/// One run's bridge and folders, and a log folder outside the agent's reach.
struct Scene {
    tools: Arc<Tools>,
    host: Arc<RecordingHost>,
    caller: Caller,
    grant: ToolGrant,
    /// The agent's folder and workspace live here: everything the agent can reach.
    dir: tempfile::TempDir,
    agent_dir: PathBuf,
    workspace: PathBuf,
    spawner: SpecSpawner,
    started: Instant,
}

fn scene(run_id: &str) -> Scene {
    let tools = Tools::start(&tokio::runtime::Handle::current()).unwrap();
    let host = Arc::new(RecordingHost::default());
    tools.set_host(host.clone());
    let caller = caller(run_id, &format!("agent-{run_id}"), "scout", &[ToolName::PeerPost]);
    let grant = tools.grant(caller.clone());
    let dir = common::scratch_dir();
    let agent_dir = dir.path().join("agent");
    let workspace = agent_dir.clone();
    std::fs::create_dir_all(&workspace).unwrap();
    Scene {
        tools,
        host,
        caller,
        grant,
        dir,
        agent_dir,
        workspace,
        spawner: SpecSpawner::default(),
        started: Instant::now(),
    }
}

fn agent(id: &str, runtime: RuntimeKind, provider: Option<Provider>, approval: ApprovalPolicy) -> Agent {
    Agent { id: id.into(), model: "some-model".into(), provider, ..common::agent_record(runtime, approval) }
}

/// Whether a live process carries `entry` (`NAME=value`) in its environment.
fn process_with_env(entry: &str) -> bool {
    let Ok(procs) = std::fs::read_dir("/proc") else { return false };
    procs.flatten().any(|p| {
        let stat = std::fs::read_to_string(p.path().join("stat")).unwrap_or_default();
        let zombie = stat.rfind(')').is_some_and(|i| stat[i + 1..].split_whitespace().next() == Some("Z"));
        !zombie
            && std::fs::read(p.path().join("environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|e| e == entry.as_bytes()))
    })
}

fn fake_server() -> String {
    clawboo_testkit::fake_mcp_server().display().to_string()
}

impl Scene {
    fn log(&self, name: &str) -> PathBuf {
        // In the agent's folder: a connector's server runs in a sandbox that sees only that folder.
        self.workspace.join(format!("{name}.connector.log"))
    }

    /// The testkit's stdio server as connector `name`, with the secret in its env.
    fn connector(&self, name: &str, args: &[&str]) -> RunConnector {
        RunConnector {
            name: name.into(),
            transport: RunTransport::Stdio {
                command: fake_server(),
                args: args.iter().map(|a| (*a).to_owned()).collect(),
                env: vec![
                    ("FAKE_MCP_SECRET".into(), SECRET.into()),
                    ("FAKE_MCP_LOG".into(), self.log(name).display().to_string()),
                ],
            },
        }
    }

    fn input(&self, kind: RuntimeKind, provider: Option<Provider>, approval: ApprovalPolicy) -> TurnInput {
        let agent = agent(&self.caller.agent_id, kind, provider, approval);
        TurnInput {
            run_id: self.caller.run_id.clone(),
            persona: Some("You are Scout.".into()),
            tools: Some(self.grant.clone()),
            connectors: vec![self.connector("docs", &[])],
            ..common::turn_input(agent, &self.workspace, &self.agent_dir, "Please look up clawboo in the docs.")
        }
    }

    /// The connector's tool ran (through the bridge: Clawboo's server saw the call) and its
    /// result reached the model; the secret reached the connector's own process alone.
    fn assert_served_and_kept_out(
        &self,
        name: &str,
        server: &FakeModelServer,
        result: &RunResult,
        events: &[RunEvent],
    ) {
        eprintln!(
            "[connectors_bridge] {name}: {:.1} s; bridge requests {:?}",
            self.started.elapsed().as_secs_f64(),
            self.tools.recent_requests()
        );
        assert_eq!(result.outcome, RunOutcome::Succeeded, "{name}: {result:?}\n{events:#?}");
        let requests = server.model_requests();
        assert!(
            requests.iter().any(|r| r.raw_body.contains(RESULT)),
            "{name}: the result reached the model: {events:#?}"
        );
        assert!(server.requests().iter().all(|r| !r.raw_body.contains(SECRET)), "{name}: the secret reached the model");
        let called =
            self.tools.recent_requests().iter().any(|r| r.contains("tools/call") && r.ends_with("docs__lookup"));
        assert!(called, "{name}: the call went through Clawboo's bridge");
        assert!(self.host.calls().is_empty(), "{name}: no call of Clawboo's own tools");

        // The connector's process: started by Clawboo (through its spawner), secret in env only.
        let specs = self.spawner.specs();
        let (servers, cli): (Vec<&CommandSpec>, Vec<&CommandSpec>) =
            specs.iter().partition(|s| s.program == Path::new(&fake_server()));
        assert_eq!(servers.len(), 1, "{name}: Clawboo started the connector once: {specs:#?}");
        assert!(servers[0].env.iter().any(|(k, v)| k == "FAKE_MCP_SECRET" && v == SECRET));
        assert!(servers[0].args.iter().all(|a| !a.contains(SECRET)));
        // The CLI's processes: neither the secret nor the connector's command, in argv or env.
        assert!(!cli.is_empty());
        for spec in cli {
            let said = spec.args.iter().chain(spec.env.iter().flat_map(|(k, v)| [k, v]));
            for text in said {
                assert!(!text.contains(SECRET), "{name}: the secret in {}: {text}", spec.program.display());
                assert!(!text.contains(&fake_server()), "{name}: the connector's command handed to the CLI: {text}");
            }
        }
        // Nothing in the agent's folder (homes, configs, transcripts) holds either.
        let mut found = Vec::new();
        scan(self.dir.path(), SECRET, &mut found);
        scan(self.dir.path(), &fake_server(), &mut found);
        assert!(found.is_empty(), "{name}: in the agent's folder: {found:?}");

        // The server was called and is gone with its run.
        let log = std::fs::read_to_string(self.log("docs")).unwrap();
        assert!(log.contains("tools/call"), "{log}");
        assert!(log.lines().any(|l| l.starts_with("started ")), "{log}");
        // In its sandbox it has a pid of its own namespace: it is found by the log path in its
        // environment instead.
        let marker = format!("FAKE_MCP_LOG={}", self.log("docs").display());
        clawboo_testkit::wait_for("the connector's process to end with its run", Duration::from_secs(10), || {
            (!process_with_env(&marker)).then_some(())
        });
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
    common::quiet_env(server)
}

fn behavior() -> Behavior {
    Behavior::tool_then_answer("~docs__lookup", json!({"query": "clawboo"}), "The docs say 42.")
}

/// Claude Code under read-only, the strictest tool set: the connector's tool (read-only,
/// closed-world) is offered as `mcp__clawboo__docs__lookup`, Claude calls it through the bridge
/// and gets its result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_calls_a_connector_through_the_bridge_and_nothing_in_its_reach_holds_the_secret() {
    let Some(program) = common::cli("claude") else { return };
    let server = FakeModelServer::start(behavior()).await;
    let s = scene("run-claude");
    let endpoint = Endpoint { base_url: server.base_url(), api_key: Some("sk-ant-test".into()) };
    let runtime = Arc::new(
        clawboo_engine::runtimes::claude_code::ClaudeCodeRuntime::new(
            Arc::new(s.spawner.clone()),
            Arc::new(Fixed(endpoint)),
        )
        .with_env(proxy_env(&server))
        .with_timeouts(TIMEOUTS),
    );
    let mut input = s.input(RuntimeKind::ClaudeCode, None, ApprovalPolicy::ReadOnly);
    input.program = Some(program);
    // What an earlier version left after a crash (connectors with their secrets): removed.
    let home = input.homes.home(RuntimeKind::ClaudeCode).unwrap();
    std::fs::write(
        home.join("clawboo-mcp.json"),
        format!(r#"{{"mcpServers":{{"docs":{{"env":{{"T":"{SECRET}"}}}}}}}}"#),
    )
    .unwrap();
    let (result, events) = run(runtime, input).await;
    assert!(!home.join("clawboo-mcp.json").exists(), "the legacy config is gone");
    let first = &server.model_requests()[0];
    let offered: Vec<&str> =
        first.body["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).collect();
    assert!(offered.contains(&"mcp__clawboo__docs__lookup"), "offered directly: {offered:?}");
    assert!(!offered.iter().any(|n| n.starts_with("mcp__docs")), "no server of its own: {offered:?}");
    s.assert_served_and_kept_out("claude_code", &server, &result, &events);
    let called = events
        .iter()
        .any(|e| matches!(e, RunEvent::ToolCallStarted { name, .. } if name == "mcp__clawboo__docs__lookup"));
    assert!(called, "the call is on the run's activity: {events:#?}");
    assert!(!events.iter().any(|e| matches!(e, RunEvent::PermissionRequest { .. })), "pre-allowed: {events:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_calls_a_connector_through_the_bridge_and_nothing_in_its_reach_holds_the_secret() {
    let Some(program) = common::cli("codex") else { return };
    let server = FakeModelServer::start(behavior()).await;
    let s = scene("run-codex");
    let endpoint = Endpoint { base_url: format!("{}/v1", server.base_url()), api_key: Some("sk-test".into()) };
    let runtime = Arc::new(
        clawboo_engine::runtimes::codex::CodexRuntime::new(Arc::new(s.spawner.clone()), Arc::new(Fixed(endpoint)))
            .with_env(proxy_env(&server))
            .with_timeouts(TIMEOUTS),
    );
    let mut input = s.input(RuntimeKind::Codex, Some(Provider::OpenAi), ApprovalPolicy::AllowAll);
    input.program = Some(program);
    let (result, events) = run(runtime, input).await;
    s.assert_served_and_kept_out("codex", &server, &result, &events);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hermes_calls_a_connector_through_the_bridge_and_nothing_in_its_reach_holds_the_secret() {
    let Some(program) = common::cli("hermes") else { return };
    let server = FakeModelServer::start(behavior()).await;
    let s = scene("run-hermes");
    let endpoint = Endpoint { base_url: format!("{}/v1", server.base_url()), api_key: Some("sk-test".into()) };
    let runtime = Arc::new(
        clawboo_engine::runtimes::hermes::HermesRuntime::new(Arc::new(s.spawner.clone()), Arc::new(Fixed(endpoint)))
            .with_env(proxy_env(&server))
            .with_timeouts(TIMEOUTS),
    );
    let mut input = s.input(RuntimeKind::Hermes, Some(Provider::Custom), ApprovalPolicy::AllowAll);
    input.program = Some(program);
    let (result, events) = run(runtime, input).await;
    s.assert_served_and_kept_out("hermes", &server, &result, &events);
}

/// OpenClaw's Gateway outlives the run and holds the agent's lasting token: it reaches the
/// connector's tools of the agent's run in progress.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openclaw_calls_a_connector_through_the_bridge_and_nothing_in_its_reach_holds_the_secret() {
    let Some(program) = common::cli("openclaw") else { return };
    let Some(node) = common::cli("node24") else { return };
    let server = FakeModelServer::start(behavior()).await;
    let s = scene("run-openclaw");
    let endpoint = Endpoint { base_url: format!("{}/v1", server.base_url()), api_key: Some("sk-test".into()) };
    let mut env = proxy_env(&server);
    let path = format!("{}:{}", node.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    env.push(("PATH".into(), path));
    let runtime = Arc::new(
        clawboo_engine::runtimes::openclaw::OpenclawRuntime::new(
            Arc::new(s.spawner.clone()),
            Arc::new(Fixed(endpoint)),
        )
        .with_env(env)
        .with_timeouts(TIMEOUTS),
    );
    let mut input = s.input(RuntimeKind::Openclaw, Some(Provider::Custom), ApprovalPolicy::AllowAll);
    input.program = Some(program);
    let (result, events) = run(runtime.clone(), input).await;
    s.assert_served_and_kept_out("openclaw", &server, &result, &events);
    drop(runtime); // stops the Gateway
}

/// A CLI's view of the bridge, through Clawboo's own MCP client: the run's token as the URL.
async fn as_a_cli(grant: &ToolGrant) -> Session {
    let bridge =
        RunConnector { name: "via".into(), transport: RunTransport::Http { url: grant.url.clone(), headers: vec![] } };
    let spawner: Arc<dyn Spawner> = Arc::new(SystemSpawner);
    let dir = tempfile::tempdir().unwrap();
    let (session, warnings) =
        Session::start(&[bridge], &spawner, dir.path(), &clawboo_engine::runtimes::mcp_client::http_client()).await;
    assert!(warnings.is_empty(), "{warnings:?}");
    session
}

fn channels() -> (
    RunChannels,
    mpsc::UnboundedReceiver<RunEvent>,
    mpsc::UnboundedReceiver<clawboo_engine::runtimes::PendingPermission>,
    watch::Sender<bool>,
) {
    let (events_tx, events) = mpsc::unbounded_channel();
    let (permissions_tx, permissions) = mpsc::unbounded_channel();
    let (cancel, cancel_rx) = watch::channel(false);
    (RunChannels { events: events_tx, permissions: permissions_tx, cancel: cancel_rx }, events, permissions, cancel)
}

/// Read-only: a tool runs only when its server marks it read-only and closed-world; one with
/// no hints, or one that writes, is refused by the bridge and its server never called. Allow
/// all runs it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_refuses_a_connectors_tool_without_the_hints() {
    let s = scene("run-read-only");
    let mut input = s.input(RuntimeKind::ClaudeCode, None, ApprovalPolicy::ReadOnly);
    input.connectors =
        vec![s.connector("closed", &[]), s.connector("bare", &["--no-hints"]), s.connector("writes", &["--writes"])];
    let (ch, _events, _permissions, _cancel) = channels();
    let spawner: Arc<dyn Spawner> = Arc::new(s.spawner.clone());
    let hosting = hosted::start(&input, &ch, &spawner, Reach::Bridge).await.expect("not cancelled");
    let cli = as_a_cli(&s.grant).await;
    let mut names: Vec<&str> = cli.offered().iter().map(|t| t.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["via__bare__lookup", "via__closed__lookup", "via__peer_post", "via__writes__lookup"]);

    let ok = cli.call("via__closed__lookup", &json!({"query": "x"})).await;
    assert_eq!(ok.as_deref(), Ok("LOOKUP-RESULT for x: 42 (secret present: yes)"));
    for refused in ["via__bare__lookup", "via__writes__lookup"] {
        let err = cli.call(refused, &json!({"query": "x"})).await.unwrap_err();
        assert!(err.contains("read-only") && err.contains("openWorldHint"), "{refused}: {err}");
    }
    for (name, called) in [("closed", true), ("bare", false), ("writes", false)] {
        let log = std::fs::read_to_string(s.log(name)).unwrap();
        assert_eq!(log.contains("tools/call"), called, "{name}: {log}");
    }
    cli.stop().await;
    hosting.stop().await;
    assert!(s.grant.hosted().is_empty(), "stopped: no longer served");

    // Allow all: the same tool without hints runs.
    let s = scene("run-allow-all");
    let mut input = s.input(RuntimeKind::Hermes, None, ApprovalPolicy::AllowAll);
    input.connectors = vec![s.connector("bare", &["--no-hints"])];
    let (ch, _events, _permissions, _cancel) = channels();
    let spawner: Arc<dyn Spawner> = Arc::new(SystemSpawner);
    let hosting = hosted::start(&input, &ch, &spawner, Reach::Bridge).await.expect("not cancelled");
    let cli = as_a_cli(&s.grant).await;
    assert!(cli.call("via__bare__lookup", &json!({"query": "y"})).await.is_ok());
    cli.stop().await;
    hosting.stop().await;
}

/// Ask: a connector's tool call raises an approval (the run's permission question, with the
/// tool's name and input) before the server is called; allowed, it runs; denied, the model is
/// told so and the server is never called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_raises_an_approval_before_a_connectors_tool_runs() {
    let s = scene("run-ask");
    let input = s.input(RuntimeKind::Codex, None, ApprovalPolicy::Ask);
    let (ch, mut events, mut permissions, _cancel) = channels();
    let spawner: Arc<dyn Spawner> = Arc::new(SystemSpawner);
    let hosting = hosted::start(&input, &ch, &spawner, Reach::Bridge).await.expect("not cancelled");
    let mut asking = hosting.asking().expect("hosted");
    let cli = Arc::new(as_a_cli(&s.grant).await);

    let call = tokio::spawn({
        let cli = cli.clone();
        async move { cli.call("via__docs__lookup", &json!({"query": "allowed"})).await }
    });
    let question = tokio::time::timeout(Duration::from_secs(30), permissions.recv()).await.unwrap().unwrap();
    assert_eq!(question.tool, "docs__lookup");
    assert_eq!(question.input, json!({"query": "allowed"}));
    assert_eq!(*asking.borrow_and_update(), 1, "the supervisor hears a question waits");
    let log = std::fs::read_to_string(s.log("docs")).unwrap();
    assert!(!log.contains("tools/call"), "not called before the answer: {log}");
    question.reply.send(PermissionAnswer { allow: true }).unwrap();
    assert_eq!(call.await.unwrap().as_deref(), Ok("LOOKUP-RESULT for allowed: 42 (secret present: yes)"));
    assert_eq!(*asking.borrow_and_update(), 0);

    let call = tokio::spawn({
        let cli = cli.clone();
        async move { cli.call("via__docs__lookup", &json!({"query": "denied"})).await }
    });
    let question = tokio::time::timeout(Duration::from_secs(30), permissions.recv()).await.unwrap().unwrap();
    question.reply.send(PermissionAnswer { allow: false }).unwrap();
    let denied = call.await.unwrap().unwrap_err();
    assert!(denied.contains("did not allow"), "{denied}");
    let log = std::fs::read_to_string(s.log("docs")).unwrap();
    assert_eq!(log.matches("tools/call").count(), 1, "the denied call never reached the server: {log}");

    let mut seen = Vec::new();
    while let Ok(event) = events.try_recv() {
        seen.push(event);
    }
    let asked = seen.iter().filter(|e| matches!(e, RunEvent::PermissionRequest { tool, .. } if tool == "docs__lookup"));
    assert_eq!(asked.count(), 2, "{seen:#?}");
    let answers: Vec<bool> = seen
        .iter()
        .filter_map(|e| match e {
            RunEvent::PermissionResolved { allowed, .. } => Some(*allowed),
            _ => None,
        })
        .collect();
    assert_eq!(answers, [true, false]);
    Arc::try_unwrap(cli).ok().expect("one owner").stop().await;
    hosting.stop().await;
}
