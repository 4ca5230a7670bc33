//! The OpenClaw adapter driving the real, pinned `openclaw` CLI (a Gateway per agent and an
//! `openclaw acp` bridge per turn) against the fake model server: a streamed tool turn, resume,
//! the persona from the workspace files, cancel (the bridge's group gone, the Gateway kept, then
//! gone with the runtime), errors, the read-only and ask policies, a vanished session and a
//! too-old Node. Skipped when the CLI is not installed (see `common::cli`). A Gateway takes
//! ~10–20 s to start and each turn's bridge ~6 s, so tests run one at a time.
#![cfg(unix)]

mod common;

use common::Fixed;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clawboo_engine::agents::{Agent, RuntimeKind};
use clawboo_engine::runtimes::home::RuntimeHomes;
use clawboo_engine::runtimes::openclaw::OpenclawRuntime;
use clawboo_engine::runtimes::process::{group_has_live_member, CommandSpec, SpawnedChild, Spawner, SystemSpawner};
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{
    ApprovalPolicy, Endpoint, PendingPermission, PermissionAnswer, RunChannels, RunEvent, RunOutcome, RunResult,
    Runtime, TurnInput,
};
use clawboo_engine::secrets::Provider;
use clawboo_testkit::{Behavior, FakeModelServer};
use serde_json::json;
use tokio::sync::{mpsc, watch};

const LIMIT: Duration = Duration::from_secs(240);
const SOUL: &str = "# Scout\n\nYou are Scout, a careful researcher. SOUL-MARKER-0c1a4f\n";
const AGENTS: &str = "# How to work\n\nKeep notes short. AGENTS-MARKER-77d2e1\n";
const TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(180), grace: Duration::from_secs(3) };

/// One OpenClaw Gateway at a time: each is CPU-heavy at start-up.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Remembers what it spawned: the first argument (`gateway`, `acp`) and the process group.
#[derive(Default, Clone)]
struct RecordingSpawner(Arc<Mutex<Vec<(String, u32)>>>);

impl Spawner for RecordingSpawner {
    fn spawn(&self, spec: &CommandSpec) -> std::io::Result<SpawnedChild> {
        let child = SystemSpawner.spawn(spec)?;
        let first = spec.args.first().cloned().unwrap_or_default();
        self.0.lock().unwrap().push((first, child.control.pid().expect("a pid")));
        Ok(child)
    }
}

impl RecordingSpawner {
    fn pids(&self, what: &str) -> Vec<u32> {
        self.0.lock().unwrap().iter().filter(|(w, _)| w == what).map(|(_, pid)| *pid).collect()
    }
}

/// The process groups of `pid`'s children that left its group (the Gateway's spawn broker).
fn detached_child_groups(pid: u32) -> Vec<u32> {
    let mut groups = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let Some(i) = stat.rfind(')') else { continue };
        let fields: Vec<&str> = stat[i + 1..].split_whitespace().collect();
        let (ppid, pgrp): (u32, u32) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
        if ppid == pid && pgrp != pid {
            groups.push(pgrp);
        }
    }
    groups
}

fn kill_group(group: u32) {
    let status = std::process::Command::new("kill").args(["-KILL", "--", &format!("-{group}")]).status().unwrap();
    assert!(status.success());
}

async fn gone_soon(group: u32) -> bool {
    for _ in 0..50 {
        if !group_has_live_member(group) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// An agent folder (also its workspace, as in the app) with its persona files.
struct Setup {
    _dir: tempfile::TempDir,
    program: PathBuf,
    node_dir: PathBuf,
    workspace: PathBuf,
}

fn setup() -> Option<Setup> {
    let program = common::cli("openclaw")?;
    let node_dir = common::cli("node24")?.parent().unwrap().to_owned();
    let dir = common::scratch_dir();
    let workspace = dir.path().join("agent");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("SOUL.md"), SOUL).unwrap();
    std::fs::write(workspace.join("AGENTS.md"), AGENTS).unwrap();
    Some(Setup { program, node_dir, workspace, _dir: dir })
}

fn path_with(dir: &Path) -> String {
    let rest = std::env::var("PATH").unwrap_or_default();
    format!("{}:{rest}", dir.display())
}

fn runtime(server: &FakeModelServer, spawner: Arc<dyn Spawner>, node_dir: &Path) -> Arc<OpenclawRuntime> {
    let base = server.base_url();
    let endpoint = Endpoint { base_url: format!("{base}/v1"), api_key: Some("sk-fake-test".into()) };
    let mut env = vec![("PATH".to_owned(), path_with(node_dir))];
    for name in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
        env.push((name.to_owned(), base.clone()));
    }
    env.push(("NO_PROXY".into(), "127.0.0.1,localhost".into()));
    env.push(("no_proxy".into(), "127.0.0.1,localhost".into()));
    Arc::new(OpenclawRuntime::new(spawner, Arc::new(Fixed(endpoint))).with_env(env).with_timeouts(TIMEOUTS))
}

fn input(s: &Setup, message: &str, approval: ApprovalPolicy, resume: Option<String>) -> TurnInput {
    let agent = Agent {
        model: "some-model".into(),
        provider: Some(Provider::Custom),
        ..common::agent_record(RuntimeKind::Openclaw, approval)
    };
    TurnInput {
        run_id: format!("run-{}", message.len()),
        resume_session: resume,
        program: Some(s.program.clone()),
        ..common::turn_input(agent, &s.workspace, &s.workspace, message)
    }
}

struct Started {
    events: mpsc::UnboundedReceiver<RunEvent>,
    permissions: mpsc::UnboundedReceiver<PendingPermission>,
    cancel: watch::Sender<bool>,
    task: tokio::task::JoinHandle<clawboo_engine::Result<RunResult>>,
}

fn start(runtime: &Arc<OpenclawRuntime>, input: TurnInput) -> Started {
    let (events_tx, events) = mpsc::unbounded_channel();
    let (permissions_tx, permissions) = mpsc::unbounded_channel();
    let (cancel, cancel_rx) = watch::channel(false);
    let channels = RunChannels { events: events_tx, permissions: permissions_tx, cancel: cancel_rx };
    let runtime = Arc::clone(runtime);
    let task = tokio::spawn(async move { runtime.run(input, channels).await });
    Started { events, permissions, cancel, task }
}

impl Started {
    async fn finish(mut self) -> (clawboo_engine::Result<RunResult>, Vec<RunEvent>) {
        let result = tokio::time::timeout(LIMIT, self.task).await.expect("the run ends in time").expect("no panic");
        let mut events = Vec::new();
        while let Ok(event) = self.events.try_recv() {
            events.push(event);
        }
        (result, events)
    }
}

fn session_of(events: &[RunEvent]) -> String {
    events
        .iter()
        .rev()
        .find_map(|e| match e {
            RunEvent::SessionStarted { session_id } => Some(session_id.clone()),
            _ => None,
        })
        .expect("a session id")
}

fn openclaw_home(s: &Setup) -> PathBuf {
    RuntimeHomes::for_agent_dir(&s.workspace).home(RuntimeKind::Openclaw).unwrap()
}

fn streamed(events: &[RunEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_turn_then_a_resumed_turn_with_the_persona_once() {
    let Some(s) = setup() else { return };
    let _one = SERIAL.lock().await;
    let server = FakeModelServer::start(Behavior::tool_then_answer(
        "*",
        json!({"command": "echo hello-from-tool"}),
        "All done.",
    ))
    .await;
    let rt = runtime(&server, Arc::new(SystemSpawner), &s.node_dir);

    let clock = Instant::now();
    let (result, events) =
        start(&rt, input(&s, "Run echo hello-from-tool", ApprovalPolicy::AllowAll, None)).finish().await;
    let result = result.unwrap();
    eprintln!("first turn (Gateway start included): {:?}", clock.elapsed());
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:?}");
    let gateway = rt.gateway_pid(&openclaw_home(&s)).expect("a Gateway runs between turns");
    let call_id = events
        .iter()
        .find_map(|e| match e {
            RunEvent::ToolCallStarted { call_id, name, input } if name == "exec" => {
                assert_eq!(input["command"], "echo hello-from-tool");
                Some(call_id.clone())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("a tool call in {events:?}"));
    assert!(
        events.iter().any(|e| matches!(e, RunEvent::ToolResult { call_id: c, output, is_error: false }
        if *c == call_id && output.contains("hello-from-tool"))),
        "{events:?}"
    );
    assert_eq!(streamed(&events), "All done.", "the reply is streamed: {events:?}");
    assert!(events.iter().any(|e| matches!(e, RunEvent::Usage { input_tokens, .. } if *input_tokens > 0)));
    let session = session_of(&events);
    let first_requests = server.model_requests().len();
    assert!(first_requests >= 2);

    // The Gateway dies (as if killed by the user): the next turn starts another one, and the
    // session, kept in OpenClaw's database, goes on there.
    kill_group(gateway);
    assert!(gone_soon(gateway).await);

    // A second turn in the same session carries the first exchange.
    let clock = Instant::now();
    let (result, events) =
        start(&rt, input(&s, "Do it again", ApprovalPolicy::AllowAll, Some(session.clone()))).finish().await;
    eprintln!("resumed turn (Gateway restart included): {:?}", clock.elapsed());
    let result = result.unwrap();
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:?}");
    assert_eq!(session_of(&events), session, "the same session goes on");
    let restarted = rt.gateway_pid(&openclaw_home(&s)).expect("a Gateway");
    assert_ne!(restarted, gateway, "a dead Gateway is replaced");

    // A third turn reuses the running Gateway.
    let clock = Instant::now();
    let (result, events) =
        start(&rt, input(&s, "Once more", ApprovalPolicy::AllowAll, Some(session.clone()))).finish().await;
    eprintln!("third turn (Gateway reused): {:?}", clock.elapsed());
    assert_eq!(result.unwrap().outcome, RunOutcome::Succeeded, "{events:?}");
    assert_eq!(rt.gateway_pid(&openclaw_home(&s)), Some(restarted), "the Gateway is reused");
    assert_eq!(events.iter().filter(|e| matches!(e, RunEvent::ToolCallStarted { .. })).count(), 1, "{events:?}");
    let requests = server.model_requests();
    let resumed = &requests[first_requests];
    assert!(resumed.raw_body.contains("Do it again"));
    assert!(resumed.raw_body.contains("Run echo hello-from-tool"), "the first question is replayed");
    assert!(resumed.raw_body.contains("All done."), "the first answer is replayed");

    // The persona files reach every request once, in the system prompt, never in the history.
    for request in &requests {
        assert_eq!(request.raw_body.matches("SOUL-MARKER-0c1a4f").count(), 1, "SOUL.md once per request");
        assert_eq!(request.raw_body.matches("AGENTS-MARKER-77d2e1").count(), 1, "AGENTS.md once per request");
        let system = &request.body["messages"][0];
        assert_eq!(system["role"], "system");
        assert!(system.to_string().contains("SOUL-MARKER-0c1a4f"));
    }
    assert!(!s.workspace.join("BOOTSTRAP.md").exists(), "OpenClaw does not seed the agent's folder");
}

#[tokio::test(flavor = "multi_thread")]
async fn cancel_stops_the_bridge_and_dropping_the_runtime_stops_the_gateway() {
    let Some(s) = setup() else { return };
    let _one = SERIAL.lock().await;
    let server = FakeModelServer::start(Behavior::slow(
        "one two three four five six seven eight nine ten",
        10,
        Duration::from_secs(2),
    ))
    .await;
    let spawner = RecordingSpawner::default();
    let rt = runtime(&server, Arc::new(spawner.clone()), &s.node_dir);
    let mut started = start(&rt, input(&s, "Count slowly", ApprovalPolicy::AllowAll, None));
    // Cancel once the reply has begun to stream.
    let deadline = Instant::now() + LIMIT;
    let mut seen = Vec::new();
    while !seen.iter().any(|e| matches!(e, RunEvent::TextDelta { .. })) {
        assert!(Instant::now() < deadline, "nothing streamed: {seen:?}");
        if let Ok(Some(event)) = tokio::time::timeout(Duration::from_millis(200), started.events.recv()).await {
            seen.push(event);
        }
    }
    started.cancel.send(true).unwrap();
    let clock = Instant::now();
    let (result, _events) = started.finish().await;
    eprintln!("cancel took {:?}", clock.elapsed());
    assert_eq!(result.unwrap().outcome, RunOutcome::Cancelled);
    let bridges = spawner.pids("acp");
    assert_eq!(bridges.len(), 1);
    assert!(!group_has_live_member(bridges[0]), "no process of the bridge's group survives a cancel");
    let gateways = spawner.pids("gateway");
    assert_eq!(gateways.len(), 1);
    let gateway = gateways[0];
    assert!(group_has_live_member(gateway), "the Gateway stays up for the next turn");
    let detached = detached_child_groups(gateway);

    drop(rt);
    assert!(gone_soon(gateway).await, "the Gateway's group is gone with the runtime");
    for group in detached {
        assert!(gone_soon(group).await, "the Gateway's spawn broker ({group}) is gone too");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_error_fails_with_openclaws_message() {
    let Some(s) = setup() else { return };
    let _one = SERIAL.lock().await;
    let server = FakeModelServer::start(Behavior::server_error("fake overload")).await;
    let rt = runtime(&server, Arc::new(SystemSpawner), &s.node_dir);
    let clock = Instant::now();
    let (result, events) = start(&rt, input(&s, "Hello", ApprovalPolicy::AllowAll, None)).finish().await;
    eprintln!("500 turn: {:?}, {} requests", clock.elapsed(), server.model_requests().len());
    let result = result.unwrap();
    assert_eq!(result.outcome, RunOutcome::Failed, "{events:?}");
    let message = result.message.unwrap();
    assert!(message.contains("HTTP 500") && message.contains("fake overload"), "{message}");
    assert!(events.iter().any(|e| matches!(e, RunEvent::Error { .. })), "{events:?}");
    assert!(server.model_requests().len() <= 3, "retries are capped");
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_puts_a_command_to_the_user_then_read_only_refuses_it_after_a_restart() {
    let Some(s) = setup() else { return };
    let _one = SERIAL.lock().await;
    let server =
        FakeModelServer::start(Behavior::tool_then_answer("*", json!({"command": "touch written.txt"}), "All done."))
            .await;
    let rt = runtime(&server, Arc::new(SystemSpawner), &s.node_dir);
    for allow in [true, false] {
        let _ = std::fs::remove_file(s.workspace.join("written.txt"));
        let mut started = start(&rt, input(&s, "Create written.txt", ApprovalPolicy::Ask, None));
        let question = tokio::time::timeout(LIMIT, started.permissions.recv()).await.expect("asked in time");
        let question = question.expect("a permission question");
        question.reply.send(PermissionAnswer { allow }).unwrap();
        let (result, events) = started.finish().await;
        assert_eq!(result.unwrap().outcome, RunOutcome::Succeeded, "{events:?}");
        assert!(
            events.iter().any(|e| matches!(e, RunEvent::PermissionRequest { tool, input, .. }
                if tool == "exec" && input["command"] == "touch written.txt")),
            "{events:?}"
        );
        assert_eq!(s.workspace.join("written.txt").exists(), allow, "allowed: {allow}; {events:?}");
        let failed = events.iter().any(|e| matches!(e, RunEvent::ToolResult { is_error: true, .. }));
        assert_eq!(failed, !allow, "{events:?}");
    }
    let asking = rt.gateway_pid(&openclaw_home(&s)).expect("a Gateway");

    // Another policy is another configuration: the Gateway is restarted with it.
    let _ = std::fs::remove_file(s.workspace.join("written.txt"));
    let (result, events) = start(&rt, input(&s, "Create written.txt", ApprovalPolicy::ReadOnly, None)).finish().await;
    assert_eq!(result.unwrap().outcome, RunOutcome::Succeeded, "{events:?}");
    assert!(!s.workspace.join("written.txt").exists(), "the write was refused");
    // Read-only has no exec tool at all: the model picks another (reading) tool or none.
    assert!(
        !events.iter().any(|e| matches!(e, RunEvent::ToolCallStarted { name, .. } if name == "exec")),
        "{events:?}"
    );
    assert!(!events.iter().any(|e| matches!(e, RunEvent::PermissionRequest { .. })), "read-only does not ask");
    let read_only = rt.gateway_pid(&openclaw_home(&s)).expect("a Gateway");
    assert_ne!(read_only, asking, "the Gateway was restarted for the new policy");
    assert!(gone_soon(asking).await, "the old Gateway is gone");
}

#[tokio::test]
async fn a_vanished_session_is_reported_missing_without_a_run() {
    let Some(s) = setup() else { return };
    let server = FakeModelServer::start(Behavior::text("Hi")).await;
    let rt = runtime(&server, Arc::new(SystemSpawner), &s.node_dir);
    let (result, _) =
        start(&rt, input(&s, "Hello", ApprovalPolicy::AllowAll, Some("gone-session".into()))).finish().await;
    let result = result.unwrap();
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert!(result.session_missing);
    assert!(server.model_requests().is_empty());
}

#[tokio::test]
async fn an_old_node_or_no_provider_is_a_clear_error() {
    let Some(s) = setup() else { return };
    let server = FakeModelServer::start(Behavior::text("Hi")).await;
    let old = s.workspace.join("old-node");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(old.join("node"), "#!/bin/sh\necho v20.11.1\n").unwrap();
    std::fs::set_permissions(old.join("node"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let rt = runtime(&server, Arc::new(SystemSpawner), &old);
    let (result, _) = start(&rt, input(&s, "Hello", ApprovalPolicy::AllowAll, None)).finish().await;
    let err = result.unwrap_err();
    assert_eq!(err.code(), clawboo_engine::ErrorCode::RuntimeFailed);
    assert!(err.to_string().contains("24.16") && err.to_string().contains("20.11.1"), "{err}");

    let mut no_provider = input(&s, "Hello", ApprovalPolicy::AllowAll, None);
    no_provider.agent.provider = None;
    let (result, _) = start(&rt, no_provider).finish().await;
    assert_eq!(result.unwrap_err().code(), clawboo_engine::ErrorCode::InvalidInput);
}
