//! The Hermes adapter against the real pinned `hermes` CLI (`hermes acp`) and the fake model
//! server. Skipped when the CLI is not installed (see `common::cli`).
#![cfg(unix)]

mod common;

use common::RecordingSpawner;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::{Agent, RuntimeKind};
use clawboo_engine::runtimes::hermes::HermesRuntime;
use clawboo_engine::runtimes::process::{group_has_live_member, Spawner, SystemSpawner};
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{
    ApprovalPolicy, Endpoint, EndpointSource, PendingPermission, PermissionAnswer, RunChannels, RunEvent, RunOutcome,
    RunResult, Runtime, TurnInput,
};
use clawboo_engine::secrets::Provider;
use clawboo_testkit::{Behavior, FakeModelServer, RecordedRequest};
use serde_json::json;
use tokio::sync::{mpsc, watch};

const KEY: &str = "sk-fake-hermes-key";
const PERSONA: &str = "You are Pelican, a meticulous test persona. Marker PELICAN-7731.";
const MARKER: &str = "PELICAN-7731";
const TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(120), grace: Duration::from_secs(3) };
/// No single test may take longer than this.
const LIMIT: Duration = Duration::from_secs(240);

struct FakeEndpoint(String);

impl EndpointSource for FakeEndpoint {
    fn endpoint(&self, provider: Provider, _run_id: &str) -> clawboo_engine::Result<Endpoint> {
        assert_ne!(provider, Provider::Anthropic, "Hermes never asks for Anthropic's endpoint");
        // As Settings has them: OpenAI-compatible bases carry their /v1.
        Ok(Endpoint { base_url: format!("{}/v1", self.0), api_key: Some(KEY.into()) })
    }
}

struct Harness {
    events: mpsc::UnboundedReceiver<RunEvent>,
    permissions: mpsc::UnboundedReceiver<PendingPermission>,
    cancel: watch::Sender<bool>,
}

fn channels() -> (RunChannels, Harness) {
    let (events_tx, events) = mpsc::unbounded_channel();
    let (permissions_tx, permissions) = mpsc::unbounded_channel();
    let (cancel, cancel_rx) = watch::channel(false);
    (
        RunChannels { events: events_tx, permissions: permissions_tx, cancel: cancel_rx },
        Harness { events, permissions, cancel },
    )
}

fn drain(rx: &mut mpsc::UnboundedReceiver<RunEvent>) -> Vec<RunEvent> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

/// One agent's folder with its workspace and homes.
struct Setup {
    _dir: tempfile::TempDir,
    agent_dir: PathBuf,
    workspace: PathBuf,
    program: PathBuf,
}

impl Setup {
    fn new(program: PathBuf) -> Self {
        let dir = common::scratch_dir();
        let agent_dir = dir.path().join("agent");
        let workspace = agent_dir.join("workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        Self { agent_dir, workspace, program, _dir: dir }
    }

    fn input(&self, message: &str, resume: Option<String>, approval: ApprovalPolicy) -> TurnInput {
        TurnInput {
            persona: Some(PERSONA.into()),
            resume_session: resume,
            approval,
            program: Some(self.program.clone()),
            ..common::turn_input(agent(Some(Provider::Custom)), &self.workspace, &self.agent_dir, message)
        }
    }

    fn hermes_home(&self) -> PathBuf {
        self.agent_dir.join(".clawboo/hermes/.hermes")
    }
}

fn agent(provider: Option<Provider>) -> Agent {
    Agent {
        id: "a1".into(),
        name: "Pelican".into(),
        handle: "pelican".into(),
        model: "some-model".into(),
        provider,
        ..common::agent_record(RuntimeKind::Hermes, ApprovalPolicy::Ask)
    }
}

fn runtime(server: &FakeModelServer, spawner: Arc<dyn Spawner>) -> HermesRuntime {
    let base = server.base_url();
    let proxy = ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"].map(|k| (k.to_owned(), base.clone()));
    let mut env: Vec<(String, String)> = proxy.into();
    env.push(("NO_PROXY".into(), "127.0.0.1,localhost".into()));
    env.push(("no_proxy".into(), "127.0.0.1,localhost".into()));
    HermesRuntime::new(spawner, Arc::new(FakeEndpoint(base))).with_env(env).with_timeouts(TIMEOUTS)
}

async fn run(rt: &HermesRuntime, input: TurnInput) -> (RunResult, Vec<RunEvent>) {
    let (ch, mut h) = channels();
    let result = tokio::time::timeout(LIMIT, rt.run(input, ch)).await.expect("the turn ends in time").unwrap();
    (result, drain(&mut h.events))
}

/// The model requests of the turn itself (the title request offers no tools).
fn turn_requests(server: &FakeModelServer) -> Vec<RecordedRequest> {
    server.model_requests().into_iter().filter(|r| r.body.get("tools").is_some()).collect()
}

fn session_id(events: &[RunEvent]) -> String {
    events
        .iter()
        .find_map(|e| match e {
            RunEvent::SessionStarted { session_id } => Some(session_id.clone()),
            _ => None,
        })
        .expect("a SessionStarted event")
}

fn text(events: &[RunEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The persona is in the system message, once in the whole body.
fn assert_persona_once(request: &RecordedRequest) {
    assert_eq!(request.raw_body.matches(MARKER).count(), 1, "persona copies in {}", request.raw_body);
    let system = &request.body["messages"][0];
    assert_eq!(system["role"], "system");
    assert!(system["content"].to_string().contains(MARKER));
}

/// Only the fake server was contacted, never through the proxy for another host.
fn assert_loopback_only(server: &FakeModelServer) {
    for r in server.requests() {
        assert!(r.path.starts_with('/'), "a request for another host went out: {} {}", r.method, r.path);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_turn_then_a_resumed_turn_carry_the_exchange_and_the_persona_once() {
    let Some(program) = common::cli("hermes") else { return };
    let server = FakeModelServer::start(Behavior::tool_then_answer(
        "*",
        json!({"command": "echo hello-from-tool"}),
        "All done.",
    ))
    .await;
    let setup = Setup::new(program);
    let rt = runtime(&server, Arc::new(SystemSpawner));

    let (result, events) = run(&rt, setup.input("Run echo hello-from-tool", None, ApprovalPolicy::AllowAll)).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:?}");
    let id = session_id(&events);
    let started = events.iter().find_map(|e| match e {
        RunEvent::ToolCallStarted { call_id, name, .. } => Some((call_id.clone(), name.clone())),
        _ => None,
    });
    let (call_id, name) = started.expect("a ToolCallStarted event");
    assert_eq!(name, "terminal");
    assert!(events.iter().any(|e| matches!(e,
        RunEvent::ToolResult { call_id: c, output, is_error: false } if *c == call_id && output.contains("hello-from-tool"))));
    assert!(text(&events).contains("All done."));
    assert!(events.iter().any(|e| matches!(e, RunEvent::Usage { input_tokens, .. } if *input_tokens > 0)));

    let first = turn_requests(&server);
    assert_eq!(first.len(), 2, "a call for the tool and one after its result");
    for r in &first {
        assert_persona_once(r);
        assert_eq!(r.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    }
    // The key is not on disk; the config is private.
    let config = std::fs::read_to_string(setup.hermes_home().join("config.yaml")).unwrap();
    assert!(!config.contains(KEY));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(setup.hermes_home().join("config.yaml")).unwrap().permissions().mode();
    assert_eq!(mode & 0o077, 0);

    let (result, events) = run(&rt, setup.input("Do it again", Some(id.clone()), ApprovalPolicy::AllowAll)).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:?}");
    assert_eq!(session_id(&events), id);
    // The replayed history of turn one is not shown again as new.
    assert_eq!(events.iter().filter(|e| matches!(e, RunEvent::ToolCallStarted { .. })).count(), 1);
    assert!(!events.iter().any(|e| matches!(e, RunEvent::ToolCallStarted { call_id: c, .. } if *c == call_id)));
    let second = turn_requests(&server);
    let resumed = &second[first.len()];
    let body = resumed.raw_body.as_str();
    assert!(body.contains("Run echo hello-from-tool"), "turn one's prompt is carried");
    assert!(body.contains("hello-from-tool") && body.contains("All done."), "turn one's exchange is carried");
    assert!(body.contains("Do it again"));
    for r in &second[first.len()..] {
        assert_persona_once(r);
    }
    assert_loopback_only(&server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_during_a_slow_answer_stops_every_process() {
    let Some(program) = common::cli("hermes") else { return };
    let server = FakeModelServer::start(Behavior::slow(
        "one two three four five six seven eight nine ten",
        10,
        Duration::from_secs(1),
    ))
    .await;
    let setup = Setup::new(program);
    let spawner = RecordingSpawner::default();
    let rt = runtime(&server, Arc::new(spawner.clone()));
    let (ch, mut h) = channels();
    let input = setup.input("Count slowly", None, ApprovalPolicy::AllowAll);
    let turn = tokio::spawn(async move { rt.run(input, ch).await });
    loop {
        let event = tokio::time::timeout(LIMIT, h.events.recv()).await.expect("events in time").expect("a run");
        if matches!(event, RunEvent::TextDelta { .. }) {
            break;
        }
    }
    let cancelled_at = std::time::Instant::now();
    h.cancel.send(true).unwrap();
    let result = tokio::time::timeout(LIMIT, turn).await.expect("stops in time").unwrap().unwrap();
    assert_eq!(result.outcome, RunOutcome::Cancelled);
    let pgid = spawner.0.lock().unwrap().expect("spawned");
    assert!(!group_has_live_member(pgid), "a process of the group survived");
    assert!(cancelled_at.elapsed() < Duration::from_secs(10), "stopped well before the stream's 19 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_error_fails_the_turn_with_its_message() {
    let Some(program) = common::cli("hermes") else { return };
    let server = FakeModelServer::start(Behavior::server_error("fake overload")).await;
    let setup = Setup::new(program);
    let rt = runtime(&server, Arc::new(SystemSpawner));
    let (result, events) = run(&rt, setup.input("Hello", None, ApprovalPolicy::AllowAll)).await;
    assert_eq!(result.outcome, RunOutcome::Failed, "{events:?}");
    let message = result.message.unwrap();
    assert!(message.contains("HTTP 500") && message.contains("fake overload"), "{message}");
    assert!(events.iter().any(|e| matches!(e, RunEvent::Error { .. })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dangerous_command_asks_the_user_and_read_only_denies_it() {
    let Some(program) = common::cli("hermes") else { return };
    let behavior = Behavior::tool_then_answer("*", json!({"command": "rm -rf scratch-dir"}), "All done.");

    // Ask: the question reaches the user, who allows it.
    let server = FakeModelServer::start(behavior.clone()).await;
    let setup = Setup::new(program.clone());
    std::fs::create_dir(setup.workspace.join("scratch-dir")).unwrap();
    let rt = runtime(&server, Arc::new(SystemSpawner));
    let (ch, mut h) = channels();
    let input = setup.input("Remove scratch-dir", None, ApprovalPolicy::Ask);
    let turn = tokio::spawn(async move { rt.run(input, ch).await });
    let pending = tokio::time::timeout(LIMIT, h.permissions.recv()).await.expect("asked in time").expect("a question");
    pending.reply.send(PermissionAnswer { allow: true }).unwrap();
    let result = tokio::time::timeout(LIMIT, turn).await.expect("ends in time").unwrap().unwrap();
    let events = drain(&mut h.events);
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{events:?}");
    assert!(events
        .iter()
        .any(|e| matches!(e, RunEvent::PermissionRequest { input, .. } if input["command"] == "rm -rf scratch-dir")));
    assert!(events.iter().any(|e| matches!(e, RunEvent::PermissionResolved { allowed: true, .. })));
    assert!(!setup.workspace.join("scratch-dir").exists(), "allowed, so it ran");

    // Read-only: refused without asking (Clawboo's guard blocks every command before Hermes
    // would ask); the folder stays.
    let server = FakeModelServer::start(behavior).await;
    let setup = Setup::new(program);
    std::fs::create_dir(setup.workspace.join("scratch-dir")).unwrap();
    let rt = runtime(&server, Arc::new(SystemSpawner));
    let (ch, mut h) = channels();
    let result =
        tokio::time::timeout(LIMIT, rt.run(setup.input("Remove scratch-dir", None, ApprovalPolicy::ReadOnly), ch))
            .await
            .expect("ends in time")
            .unwrap();
    let events = drain(&mut h.events);
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{events:?}");
    assert!(h.permissions.try_recv().is_err(), "read-only never asks the user");
    assert!(!events.iter().any(|e| matches!(e, RunEvent::PermissionResolved { allowed: true, .. })));
    assert!(setup.workspace.join("scratch-dir").exists(), "refused, so it did not run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_a_session_hermes_does_not_have_reports_it_missing() {
    let Some(program) = common::cli("hermes") else { return };
    let server = FakeModelServer::start(Behavior::text("Hi")).await;
    let setup = Setup::new(program);
    let rt = runtime(&server, Arc::new(SystemSpawner));
    let (result, events) =
        run(&rt, setup.input("Hello", Some("no-such-session".into()), ApprovalPolicy::AllowAll)).await;
    assert_eq!(result.outcome, RunOutcome::Failed, "{events:?}");
    assert!(result.session_missing);
    assert!(server.model_requests().is_empty());
}

#[tokio::test]
async fn a_provider_and_a_program_are_required_and_anthropic_is_refused() {
    let setup = Setup::new(PathBuf::from("/nowhere/hermes"));
    let rt = HermesRuntime::new(Arc::new(SystemSpawner), Arc::new(FakeEndpoint("http://127.0.0.1:9".into())));
    // The pinned Hermes lacks the `anthropic` Python package its Messages API client needs.
    for (provider, wanted) in [(None, "Pick a provider"), (Some(Provider::Anthropic), "OpenAI, OpenRouter")] {
        let mut input = setup.input("Hello", None, ApprovalPolicy::AllowAll);
        input.agent = agent(provider);
        let (ch, _h) = channels();
        let err = rt.run(input, ch).await.unwrap_err();
        assert_eq!(err.code(), clawboo_engine::ErrorCode::InvalidInput);
        assert!(err.to_string().contains(wanted), "{err}");
    }

    let mut input = setup.input("Hello", None, ApprovalPolicy::AllowAll);
    input.program = None;
    let (ch, _h) = channels();
    assert_eq!(rt.run(input, ch).await.unwrap_err().code(), clawboo_engine::ErrorCode::RuntimeNotFound);
}

/// `streams_text` is what Hermes really does: the reply's text arrives as it is written or only
/// at the end. A reply streamed in 6 pieces, 700 ms apart: the time from the first piece of
/// text Clawboo sees to the last says which. Measured with hermes-agent 0.19 over ACP (how
/// Clawboo runs it): 3.49 s, so it streams (`hermes chat -q`, which Clawboo does not use, prints
/// only the final text); the task runner's "no live streaming" note is for a runtime that does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_text_matches_when_the_reply_arrives() {
    let Some(program) = common::cli("hermes") else { return };
    let server =
        FakeModelServer::start(Behavior::slow("one two three four five six", 6, Duration::from_millis(700))).await;
    let setup = Setup::new(program);
    let rt = runtime(&server, Arc::new(SystemSpawner));
    let (ch, mut h) = channels();
    let input = setup.input("Count", None, ApprovalPolicy::AllowAll);
    let turn = tokio::spawn(async move { rt.run(input, ch).await.map(|r| (r, rt.capabilities())) });
    let (mut first, mut last) = (None, None);
    while let Some(event) = tokio::time::timeout(LIMIT, h.events.recv()).await.expect("events in time") {
        if matches!(event, RunEvent::TextDelta { .. }) {
            let now = std::time::Instant::now();
            first.get_or_insert(now);
            last = Some(now);
        }
    }
    let (result, capabilities) = turn.await.unwrap().unwrap();
    assert_eq!(result.outcome, RunOutcome::Succeeded);
    let spread = last.unwrap().duration_since(first.unwrap());
    eprintln!("hermes: text from first to last piece in {spread:?}");
    // Streamed: the pieces span most of the 3.5 s the model took; whole at the end: none.
    assert_eq!(capabilities.streams_text, spread > Duration::from_millis(1_500), "spread {spread:?}");
}
