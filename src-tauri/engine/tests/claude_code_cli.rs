//! The Claude Code adapter driving the real, pinned `claude` CLI against the fake model server:
//! tool turns, resume, the persona, cancel, errors and permissions. Skipped when the CLI is
//! not installed (see `common::cli`).
#![cfg(unix)]

mod common;

use common::Fixed;

use common::{RecordingSpawner, SpecSpawner};

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::runtimes::claude_code::ClaudeCodeRuntime;
use clawboo_engine::runtimes::process::{Spawner, SystemSpawner};
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{
    ApprovalPolicy, Endpoint, PendingPermission, PermissionAnswer, RunChannels, RunEvent, RunOutcome, RunResult,
    Runtime, TurnInput,
};
use clawboo_testkit::{Behavior, FakeModelServer, RecordedRequest};
use serde_json::json;
use tokio::sync::{mpsc, watch};

const LIMIT: Duration = Duration::from_secs(120);
const SOUL: &str = "You are Scout, a careful researcher. SOUL-MARKER-c1a0de";
/// The persona after the user edited SOUL.md between two turns.
const SOUL_EDITED: &str = "You are Scout, now terse. SOUL-MARKER-e2d17e";
const TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(90), grace: Duration::from_secs(3) };

/// An agent folder (homes) and a workspace for one test.
struct Setup {
    _dir: tempfile::TempDir,
    program: PathBuf,
    agent_dir: PathBuf,
    workspace: PathBuf,
}

fn setup() -> Option<Setup> {
    let program = common::cli("claude")?;
    let dir = common::scratch_dir();
    let agent_dir = dir.path().join("agent");
    let workspace = dir.path().join("work");
    std::fs::create_dir_all(&workspace).unwrap();
    Some(Setup { program, agent_dir, workspace, _dir: dir })
}

fn runtime(server: &FakeModelServer, spawner: Arc<dyn Spawner>, key: Option<&str>) -> Arc<ClaudeCodeRuntime> {
    let base = server.base_url();
    let endpoint = Endpoint { base_url: base.clone(), api_key: key.map(str::to_owned) };
    let mut env = Vec::new();
    for name in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
        env.push((name.to_owned(), base.clone()));
    }
    env.push(("NO_PROXY".into(), "127.0.0.1,localhost".into()));
    env.push(("no_proxy".into(), "127.0.0.1,localhost".into()));
    Arc::new(ClaudeCodeRuntime::new(spawner, Arc::new(Fixed(endpoint))).with_env(env).with_timeouts(TIMEOUTS))
}

fn input(s: &Setup, message: &str, approval: ApprovalPolicy, resume: Option<String>) -> TurnInput {
    let agent = common::agent_record(RuntimeKind::ClaudeCode, approval);
    TurnInput {
        persona: Some(SOUL.into()),
        resume_session: resume,
        program: Some(s.program.clone()),
        ..common::turn_input(agent, &s.workspace, &s.agent_dir, message)
    }
}

/// A run under way: its events, its permission questions, its cancel switch.
struct Started {
    events: mpsc::UnboundedReceiver<RunEvent>,
    permissions: mpsc::UnboundedReceiver<PendingPermission>,
    cancel: watch::Sender<bool>,
    task: tokio::task::JoinHandle<clawboo_engine::Result<RunResult>>,
}

fn start(runtime: &Arc<ClaudeCodeRuntime>, input: TurnInput) -> Started {
    let (events_tx, events) = mpsc::unbounded_channel();
    let (permissions_tx, permissions) = mpsc::unbounded_channel();
    let (cancel, cancel_rx) = watch::channel(false);
    let channels = RunChannels { events: events_tx, permissions: permissions_tx, cancel: cancel_rx };
    let runtime = Arc::clone(runtime);
    let task = tokio::spawn(async move { runtime.run(input, channels).await });
    Started { events, permissions, cancel, task }
}

impl Started {
    async fn finish(mut self) -> (RunResult, Vec<RunEvent>) {
        let result = tokio::time::timeout(LIMIT, self.task).await.expect("the run ends in time").expect("no panic");
        let mut events = Vec::new();
        while let Ok(event) = self.events.try_recv() {
            events.push(event);
        }
        (result.expect("the run starts"), events)
    }
}

async fn run(runtime: &Arc<ClaudeCodeRuntime>, input: TurnInput) -> (RunResult, Vec<RunEvent>) {
    start(runtime, input).finish().await
}

fn session_of(events: &[RunEvent]) -> String {
    let ids: Vec<&String> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::SessionStarted { session_id } => Some(session_id),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 1, "one SessionStarted: {events:#?}");
    ids[0].clone()
}

fn reply_of(events: &[RunEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::TextDelta { text } | RunEvent::Message { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn tool_result_of(events: &[RunEvent]) -> (String, bool) {
    let started = events.iter().find_map(|e| match e {
        RunEvent::ToolCallStarted { call_id, name, .. } => Some((call_id.clone(), name.clone())),
        _ => None,
    });
    let (call, name) = started.unwrap_or_else(|| panic!("a tool call: {events:#?}"));
    assert_eq!(name, "Bash");
    events
        .iter()
        .find_map(|e| match e {
            RunEvent::ToolResult { call_id, output, is_error } if *call_id == call => Some((output.clone(), *is_error)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("the tool's result: {events:#?}"))
}

/// The persona is in the system prompt, and only once in the whole request.
fn assert_persona_once(requests: &[RecordedRequest], marker: &str) {
    assert!(!requests.is_empty());
    for request in requests {
        assert_eq!(request.raw_body.matches(marker).count(), 1, "{}", request.raw_body);
        assert!(request.body["system"].to_string().contains(marker));
        assert_eq!(request.raw_body.matches("SOUL-MARKER").count(), 1, "no other persona copy");
    }
}

#[tokio::test]
async fn a_tool_turn_then_a_resumed_turn_carrying_it_with_the_current_persona_once() {
    let Some(s) = setup() else { return };
    let server = FakeModelServer::start(Behavior::tool_then_answer(
        "*",
        json!({"command": "echo hello-from-tool"}),
        "All done.",
    ))
    .await;
    let spawner = SpecSpawner::default();
    let rt = runtime(&server, Arc::new(spawner.clone()), Some("sk-fake-test"));

    let (result, events) = run(&rt, input(&s, "Run echo hello-from-tool", ApprovalPolicy::Ask, None)).await;
    // The persona is read from a file: `ps` (any process's command line) never shows it.
    let spec = spawner.specs().pop().expect("claude started");
    assert!(!spec.args.iter().any(|a| a.contains("SOUL-MARKER")), "{:?}", spec.args);
    assert!(spec.args.iter().any(|a| a == "--append-system-prompt-file"), "{:?}", spec.args);
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
    let session = session_of(&events);
    assert_eq!(tool_result_of(&events), ("hello-from-tool".into(), false));
    assert_eq!(reply_of(&events), "All done.");
    assert!(events.iter().any(|e| matches!(e, RunEvent::TextDelta { .. })), "tokens stream");
    assert!(!events.iter().any(|e| matches!(e, RunEvent::Warning { .. } | RunEvent::Error { .. })), "{events:#?}");
    assert!(events.iter().any(|e| matches!(e, RunEvent::Usage { input_tokens, .. } if *input_tokens > 0)));
    let first = server.model_requests();
    assert_eq!(first.len(), 2, "the tool call, then the answer");
    assert_persona_once(&first, "SOUL-MARKER-c1a0de");
    assert!(server.requests().iter().all(|r| r.path.starts_with('/')), "nothing went through the proxy");

    // The user edits SOUL.md between the turns: the resumed turn carries the new persona only.
    let mut again = input(&s, "Do it again", ApprovalPolicy::Ask, Some(session.clone()));
    again.persona = Some(SOUL_EDITED.into());
    let (result, events) = run(&rt, again).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
    assert_eq!(session_of(&events), session, "resume keeps the id");
    assert_eq!(reply_of(&events), "All done.", "only this turn's reply, not a replay");
    assert!(!events.iter().any(|e| matches!(e, RunEvent::Warning { .. } | RunEvent::Error { .. })), "{events:#?}");
    let second: Vec<RecordedRequest> = server.model_requests().into_iter().skip(first.len()).collect();
    assert_persona_once(&second, "SOUL-MARKER-e2d17e");
    let carried = second[0].body["messages"].to_string();
    for earlier in ["Run echo hello-from-tool", "hello-from-tool", "All done.", "Do it again"] {
        assert!(carried.contains(earlier), "the resumed request carries {earlier:?}: {carried}");
    }
}

#[tokio::test]
async fn an_unknown_session_is_reported_missing() {
    let Some(s) = setup() else { return };
    let server = FakeModelServer::start(Behavior::text("Hi.")).await;
    let rt = runtime(&server, Arc::new(SystemSpawner), Some("sk-fake-test"));
    let gone = Some("11111111-2222-3333-4444-555555555555".to_owned());
    let (result, events) = run(&rt, input(&s, "Hello", ApprovalPolicy::Ask, gone)).await;
    assert_eq!(result.outcome, RunOutcome::Failed, "{events:#?}");
    assert!(result.session_missing, "{result:?}");
    assert!(server.model_requests().is_empty());
}

#[tokio::test]
async fn cancel_interrupts_and_leaves_no_process() {
    let Some(s) = setup() else { return };
    let server = FakeModelServer::start(Behavior::slow(
        "one two three four five six seven eight nine ten",
        10,
        Duration::from_millis(800),
    ))
    .await;
    let spawner = RecordingSpawner::default();
    let rt = runtime(&server, Arc::new(spawner.clone()), Some("sk-fake-test"));
    let mut started = start(&rt, input(&s, "Tell me a long story", ApprovalPolicy::Ask, None));
    let first = tokio::time::timeout(LIMIT, async {
        loop {
            match started.events.recv().await {
                Some(RunEvent::TextDelta { text }) => break text,
                Some(_) => {}
                None => panic!("the run ended before streaming"),
            }
        }
    })
    .await
    .expect("the first piece streams");
    assert_eq!(first, "one t");
    let asked = std::time::Instant::now();
    started.cancel.send(true).unwrap();
    let (result, events) = started.finish().await;
    assert_eq!(result.outcome, RunOutcome::Cancelled, "{events:#?}");
    assert!(asked.elapsed() < Duration::from_secs(6), "the interrupt ended it: {:?}", asked.elapsed());
    assert!(!events.iter().any(|e| matches!(e, RunEvent::Error { .. })), "{events:#?}");
    assert!(!spawner.group_alive(), "no process of the run survives a cancel");
}

#[tokio::test]
async fn a_server_error_fails_with_its_message() {
    let Some(s) = setup() else { return };
    let server = FakeModelServer::start(Behavior::server_error("fake overload")).await;
    let rt = runtime(&server, Arc::new(SystemSpawner), Some("sk-fake-test"));
    let (result, events) = run(&rt, input(&s, "Hello", ApprovalPolicy::Ask, None)).await;
    assert_eq!(result.outcome, RunOutcome::Failed, "{events:#?}");
    let message = result.message.unwrap();
    assert!(message.contains("500") && message.contains("fake overload"), "{message}");
    assert!(events.iter().any(|e| matches!(e, RunEvent::Error { message } if message.contains("fake overload"))));
    assert_eq!(reply_of(&events), "", "the error is not a reply");
}

#[tokio::test]
async fn a_write_asks_the_user_and_read_only_denies_it() {
    let Some(s) = setup() else { return };
    let server = FakeModelServer::start(Behavior::tool_then_answer(
        "*",
        json!({"command": "touch created-by-tool.txt"}),
        "All done.",
    ))
    .await;
    let rt = runtime(&server, Arc::new(SystemSpawner), Some("sk-fake-test"));
    let created = s.workspace.join("created-by-tool.txt");

    // Read-only: Claude has no shell at all (`--restricted`, `--tools`): the model picks another
    // tool, nothing asks anyone, nothing is written; the turn still ends normally.
    let mut started = start(&rt, input(&s, "Create the file please", ApprovalPolicy::ReadOnly, None));
    let mut questions = std::mem::replace(&mut started.permissions, mpsc::unbounded_channel().1);
    let (result, events) = started.finish().await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
    assert!(questions.try_recv().is_err(), "read-only must not ask the user");
    assert!(!events.iter().any(|e| matches!(e, RunEvent::PermissionResolved { allowed: true, .. })));
    let shell = events.iter().any(|e| matches!(e, RunEvent::ToolCallStarted { name, .. } if name == "Bash"));
    assert!(!shell, "no shell is offered under read-only: {events:#?}");
    assert!(!created.exists());

    // Ask: the question reaches the user, who allows it.
    let mut started = start(&rt, input(&s, "Create the file please", ApprovalPolicy::Ask, None));
    let pending =
        tokio::time::timeout(LIMIT, started.permissions.recv()).await.expect("asked in time").expect("a question");
    pending.reply.send(PermissionAnswer { allow: true }).unwrap();
    let (result, events) = started.finish().await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
    let request = events.iter().find_map(|e| match e {
        RunEvent::PermissionRequest { request_id, tool, input, .. } => Some((request_id, tool, input)),
        _ => None,
    });
    let (request_id, tool, tool_input) = request.expect("a permission request");
    assert_eq!((tool.as_str(), tool_input), ("Bash", &json!({"command": "touch created-by-tool.txt"})));
    assert!(events.contains(&RunEvent::PermissionResolved { request_id: request_id.clone(), allowed: true }));
    assert!(!tool_result_of(&events).1);
    assert!(created.exists(), "the allowed command ran");
    assert_eq!(reply_of(&events), "All done.");
}

#[tokio::test]
async fn a_missing_key_fails_before_starting() {
    let dir = common::scratch_dir();
    let s = Setup {
        program: PathBuf::from("/nowhere/claude"),
        agent_dir: dir.path().join("agent"),
        workspace: dir.path().to_owned(),
        _dir: dir,
    };
    let server = FakeModelServer::start(Behavior::text("Hi.")).await;
    let spawner = RecordingSpawner::default();
    let rt = runtime(&server, Arc::new(spawner.clone()), None);
    let (events_tx, _events) = mpsc::unbounded_channel();
    let (permissions_tx, _permissions) = mpsc::unbounded_channel();
    let (_cancel, cancel_rx) = watch::channel(false);
    let channels = RunChannels { events: events_tx, permissions: permissions_tx, cancel: cancel_rx };
    let err = rt.run(input(&s, "Hello", ApprovalPolicy::Ask, None), channels).await.unwrap_err();
    assert_eq!(err.code(), clawboo_engine::ErrorCode::MissingApiKey);
    assert_eq!(err.to_string(), "Add an Anthropic API key in Settings > API keys: Claude Code runs with it.");
    assert!(spawner.0.lock().unwrap().is_none(), "nothing was started");
}

#[tokio::test]
async fn cancel_while_a_question_waits_for_the_user() {
    let Some(s) = setup() else { return };
    let server =
        FakeModelServer::start(Behavior::tool_then_answer("*", json!({"command": "touch never.txt"}), "All done."))
            .await;
    let spawner = RecordingSpawner::default();
    let rt = runtime(&server, Arc::new(spawner.clone()), Some("sk-fake-test"));
    let mut started = start(&rt, input(&s, "Create the file please", ApprovalPolicy::Ask, None));
    let pending =
        tokio::time::timeout(LIMIT, started.permissions.recv()).await.expect("asked in time").expect("a question");
    let asked = std::time::Instant::now();
    started.cancel.send(true).unwrap();
    let (result, events) = started.finish().await;
    assert_eq!(result.outcome, RunOutcome::Cancelled, "{events:#?}");
    assert!(asked.elapsed() < Duration::from_secs(6), "{:?}", asked.elapsed());
    assert!(!spawner.group_alive());
    assert!(!s.workspace.join("never.txt").exists());
    drop(pending);
}
