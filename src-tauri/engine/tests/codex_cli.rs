//! The Codex adapter against the real pinned `codex` CLI (app-server mode) and the fake model
//! server: tool turns, resume, the persona, approvals, errors and cancel. Skipped when the CLI
//! is not installed (see `common::cli`).
#![cfg(unix)]

mod common;

use common::RecordingSpawner;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::{Agent, RuntimeKind};
use clawboo_engine::runtimes::codex::CodexRuntime;
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{
    ApprovalPolicy, Endpoint, EndpointSource, PendingPermission, PermissionAnswer, RunChannels, RunEvent, RunOutcome,
    RunResult, Runtime, TurnInput,
};
use clawboo_engine::secrets::Provider;
use clawboo_testkit::{Behavior, FakeModelServer};
use serde_json::json;
use tokio::sync::{mpsc, watch};

const SOUL: &str = "You are Pip, a tidy engineer. SOUL-MARKER-c0d3x";
const LIMIT: Duration = Duration::from_secs(90);
const TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(60), grace: Duration::from_secs(2) };

struct Fixed(Endpoint);

impl EndpointSource for Fixed {
    fn endpoint(&self, provider: Provider, _run_id: &str) -> clawboo_engine::Result<Endpoint> {
        assert_eq!(provider, Provider::OpenAi);
        Ok(self.0.clone())
    }
}

/// One agent's folder (outside /tmp) with its workspace, and the runtime pointed at `server`.
struct Setup {
    _dir: tempfile::TempDir,
    agent_dir: PathBuf,
    workspace: PathBuf,
    program: PathBuf,
    runtime: Arc<CodexRuntime>,
    spawner: RecordingSpawner,
}

fn setup(server: &FakeModelServer, key: Option<&str>) -> Option<Setup> {
    let program = common::cli("codex")?;
    let dir = common::scratch_dir();
    let agent_dir = dir.path().join("agent");
    let workspace = agent_dir.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let proxy = server.base_url();
    let env = ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"]
        .iter()
        .map(|name| ((*name).to_owned(), proxy.clone()))
        .chain(["NO_PROXY", "no_proxy"].iter().map(|name| ((*name).to_owned(), "127.0.0.1,localhost".to_owned())))
        .collect();
    let endpoint = Endpoint { base_url: format!("{}/v1", server.base_url()), api_key: key.map(str::to_owned) };
    let spawner = RecordingSpawner::default();
    let runtime =
        CodexRuntime::new(Arc::new(spawner.clone()), Arc::new(Fixed(endpoint))).with_env(env).with_timeouts(TIMEOUTS);
    Some(Setup { _dir: dir, agent_dir, workspace, program, runtime: Arc::new(runtime), spawner })
}

impl Setup {
    fn input(&self, message: &str, approval: ApprovalPolicy, resume: Option<String>) -> TurnInput {
        let agent =
            Agent { name: "Pip".into(), handle: "pip".into(), ..common::agent_record(RuntimeKind::Codex, approval) };
        TurnInput {
            persona: Some(SOUL.into()),
            resume_session: resume,
            program: Some(self.program.clone()),
            ..common::turn_input(agent, &self.workspace, &self.agent_dir, message)
        }
    }

    fn start(&self, input: TurnInput) -> Started {
        let (events_tx, events) = mpsc::unbounded_channel();
        let (permissions_tx, permissions) = mpsc::unbounded_channel();
        let (cancel, cancel_rx) = watch::channel(false);
        let channels = RunChannels { events: events_tx, permissions: permissions_tx, cancel: cancel_rx };
        let runtime = Arc::clone(&self.runtime);
        let task = tokio::spawn(async move { runtime.run(input, channels).await });
        Started { events, permissions, cancel, task }
    }

    /// Runs a turn to the end, answering every permission question with `allow`.
    async fn run(&self, input: TurnInput, allow: bool) -> (RunResult, Vec<RunEvent>, usize) {
        let mut started = self.start(input);
        let mut asked = 0;
        let answering = async {
            while let Some(pending) = started.permissions.recv().await {
                asked += 1;
                pending.reply.send(PermissionAnswer { allow }).unwrap();
            }
        };
        let (result, ()) = tokio::time::timeout(LIMIT, async { tokio::join!(&mut started.task, answering) })
            .await
            .expect("the turn ends in time");
        let result = result.unwrap().unwrap();
        let events = std::iter::from_fn(|| started.events.try_recv().ok()).collect();
        assert!(!self.spawner.group_alive(), "no process of the turn survives it");
        (result, events, asked)
    }
}

struct Started {
    events: mpsc::UnboundedReceiver<RunEvent>,
    permissions: mpsc::UnboundedReceiver<PendingPermission>,
    cancel: watch::Sender<bool>,
    task: tokio::task::JoinHandle<clawboo_engine::Result<RunResult>>,
}

fn session_id(events: &[RunEvent]) -> String {
    events
        .iter()
        .find_map(|e| if let RunEvent::SessionStarted { session_id } = e { Some(session_id.clone()) } else { None })
        .expect("a SessionStarted event")
}

fn reply(events: &[RunEvent]) -> String {
    events
        .iter()
        .filter_map(|e| if let RunEvent::TextDelta { text } = e { Some(text.as_str()) } else { None })
        .collect()
}

fn file_exists(dir: &Path, name: &str) -> bool {
    dir.join(name).exists()
}

#[tokio::test]
async fn a_tool_turn_then_a_resumed_turn_carry_the_history_and_the_persona_once() {
    let server =
        FakeModelServer::start(Behavior::tool_then_answer("*", json!({"cmd": "echo hello-from-tool"}), "All done."))
            .await;
    let Some(s) = setup(&server, Some("sk-fake-test")) else { return };

    let (result, events, asked) = s.run(s.input("Say hello with a tool", ApprovalPolicy::AllowAll, None), true).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
    assert_eq!(asked, 0, "AllowAll never asks the user");
    let thread = session_id(&events);
    let call_id = events
        .iter()
        .find_map(|e| match e {
            RunEvent::ToolCallStarted { call_id, name, input } if name == "shell" => {
                assert!(input["command"].as_str().unwrap().contains("echo hello-from-tool"), "{input}");
                Some(call_id.clone())
            }
            _ => None,
        })
        .expect("a shell tool call");
    assert!(events.iter().any(|e| matches!(e,
        RunEvent::ToolResult { call_id: id, output, is_error: false } if *id == call_id && output.contains("hello-from-tool"))));
    assert_eq!(reply(&events), "All done.");
    assert!(events.iter().any(|e| matches!(e, RunEvent::Usage { input_tokens, .. } if *input_tokens > 0)));
    let first_turn_requests = server.model_requests().len();

    let (result, events, _) = s.run(s.input("And again", ApprovalPolicy::AllowAll, Some(thread.clone())), true).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
    assert_eq!(session_id(&events), thread, "the resumed turn continues the same thread");

    let requests = server.model_requests();
    assert!(requests.len() > first_turn_requests);
    let resumed = &requests[first_turn_requests].raw_body;
    for carried in ["Say hello with a tool", "hello-from-tool", "All done.", "And again"] {
        assert!(resumed.contains(carried), "the resumed request carries {carried:?}");
    }
    for request in &requests {
        assert_eq!(request.raw_body.matches("SOUL-MARKER-c0d3x").count(), 1, "the persona is sent exactly once");
        let developer = request.body["input"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|item| item["role"] == "developer")
            .any(|item| item.to_string().contains("SOUL-MARKER-c0d3x"));
        assert!(developer, "the persona is a developer message");
        let in_user_message = request.body["input"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|item| item["role"] == "user")
            .any(|item| item.to_string().contains("SOUL-MARKER-c0d3x"));
        assert!(!in_user_message, "the persona is never pasted into a user message");
    }
}

#[tokio::test]
async fn asking_the_user_round_trips_and_read_only_denies_a_write() {
    let server = FakeModelServer::start(Behavior::tool_then_answer(
        "*",
        json!({"cmd": "touch created-by-tool.txt"}),
        "All done.",
    ))
    .await;
    let Some(s) = setup(&server, Some("sk-fake-test")) else { return };

    let (result, events, asked) = s.run(s.input("Create the file", ApprovalPolicy::Ask, None), true).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
    assert_eq!(asked, 1, "the user was asked once");
    assert!(events.iter().any(|e| matches!(e, RunEvent::PermissionRequest { tool, .. } if tool == "shell")));
    assert!(events.iter().any(|e| matches!(e, RunEvent::PermissionResolved { allowed: true, .. })));
    assert!(file_exists(&s.workspace, "created-by-tool.txt"), "the allowed command ran");
    std::fs::remove_file(s.workspace.join("created-by-tool.txt")).unwrap();

    let (result, events, asked) = s.run(s.input("Create the file", ApprovalPolicy::ReadOnly, None), true).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
    assert_eq!(asked, 0, "the read-only policy answers without the user");
    assert!(events.iter().any(|e| matches!(e, RunEvent::PermissionResolved { allowed: false, .. })));
    assert!(events.iter().any(|e| matches!(e, RunEvent::ToolResult { is_error: true, .. })));
    assert!(!file_exists(&s.workspace, "created-by-tool.txt"), "the denied write did not happen");
}

#[tokio::test]
async fn cancel_interrupts_the_turn_and_leaves_no_process() {
    let server = FakeModelServer::start(Behavior::slow("word ".repeat(60), 60, Duration::from_millis(250))).await;
    let Some(s) = setup(&server, Some("sk-fake-test")) else { return };
    let mut started = s.start(s.input("Talk slowly", ApprovalPolicy::AllowAll, None));
    let first = tokio::time::timeout(LIMIT, async {
        while let Some(event) = started.events.recv().await {
            if let RunEvent::TextDelta { text } = event {
                return text;
            }
        }
        panic!("the run ended before any text");
    })
    .await
    .expect("text streams in time");
    assert!(first.contains("word"));
    let at = std::time::Instant::now();
    started.cancel.send(true).unwrap();
    let result = tokio::time::timeout(LIMIT, started.task).await.unwrap().unwrap().unwrap();
    assert_eq!(result.outcome, RunOutcome::Cancelled);
    assert!(at.elapsed() < Duration::from_secs(10), "stopped in {:?}", at.elapsed());
    assert!(!s.spawner.group_alive(), "no process of the group survives a cancel");
}

#[tokio::test]
async fn a_server_error_fails_the_turn_with_codexs_message() {
    let server = FakeModelServer::start(Behavior::server_error("The fake model is overloaded.")).await;
    let Some(s) = setup(&server, Some("sk-fake-test")) else { return };
    let (result, events, _) = s.run(s.input("Hello", ApprovalPolicy::AllowAll, None), true).await;
    assert_eq!(result.outcome, RunOutcome::Failed, "{events:#?}");
    let message = result.message.expect("a message");
    assert!(events.contains(&RunEvent::Error { message: message.clone() }), "{message} {events:#?}");
    assert!(!message.is_empty());
    eprintln!("codex said: {message}");
}

#[tokio::test]
async fn resuming_an_unknown_thread_reports_it_missing() {
    let server = FakeModelServer::start(Behavior::text("Hi.")).await;
    let Some(s) = setup(&server, Some("sk-fake-test")) else { return };
    let gone = Some("01a23698-2a4f-7360-aa84-e3fe795743f9".to_owned());
    let (result, _events, _) = s.run(s.input("Hello", ApprovalPolicy::AllowAll, gone), true).await;
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert!(result.session_missing, "{result:?}");
    assert!(server.model_requests().is_empty());
}

#[tokio::test]
async fn a_missing_key_fails_before_anything_starts() {
    let server = FakeModelServer::start(Behavior::text("Hi.")).await;
    let Some(s) = setup(&server, None) else { return };
    let started = s.start(s.input("Hello", ApprovalPolicy::AllowAll, None));
    let err = started.task.await.unwrap().unwrap_err();
    assert_eq!(err.code(), clawboo_engine::ErrorCode::MissingApiKey);
    assert!(s.spawner.0.lock().unwrap().is_none(), "nothing was spawned");
}
