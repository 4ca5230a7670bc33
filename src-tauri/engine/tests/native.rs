//! The Native runtime against the fake model server over loopback: both wire formats, the
//! tools on a real temporary workspace, permissions, limits, errors and cancel.

mod common;

use common::Fixed;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use clawboo_engine::agents::{Agent, RuntimeKind};
use clawboo_engine::runtimes::native::transcript::utc_date;
use clawboo_engine::runtimes::native::{Endpoint, NativeRuntime};
use clawboo_engine::runtimes::{
    ApprovalPolicy, PendingPermission, PermissionAnswer, RunChannels, RunEvent, RunOutcome, RunResult, Runtime,
    TranscriptTurn, TurnInput,
};
use clawboo_engine::secrets::Provider;
use clawboo_engine::ErrorCode;
use clawboo_testkit::{Behavior, FakeModelServer, RecordedRequest, Reply};
use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};

const LIMIT: Duration = Duration::from_secs(30);
const SOUL: &str = "You are Scout, a careful researcher. SOUL-MARKER-7f3a";

/// The two wire formats: Anthropic Messages, and OpenAI-compatible Chat Completions.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Flavor {
    Anthropic,
    Chat,
}

const BOTH: [Flavor; 2] = [Flavor::Anthropic, Flavor::Chat];

impl Flavor {
    fn provider(self) -> Provider {
        match self {
            Flavor::Anthropic => Provider::Anthropic,
            Flavor::Chat => Provider::OpenAi,
        }
    }

    fn base_url(self, server: &FakeModelServer) -> String {
        match self {
            Flavor::Anthropic => server.base_url(),
            Flavor::Chat => format!("{}/v1", server.base_url()),
        }
    }
}

fn runtime(base_url: String, key: Option<&str>) -> Arc<NativeRuntime> {
    Arc::new(NativeRuntime::new(Arc::new(Fixed(Endpoint { base_url, api_key: key.map(str::to_owned) }))))
}

fn agent(provider: Option<Provider>, approval: ApprovalPolicy) -> Agent {
    Agent { model: "some-model".into(), provider, ..common::agent_record(RuntimeKind::Native, approval) }
}

fn input(agent: Agent, workspace: &Path, message: &str, transcript: Vec<TranscriptTurn>) -> TurnInput {
    TurnInput {
        // What Clawboo builds Native's setup from for an agent with only a SOUL.md (see
        // `context::files`; the engine-level tests cover the other files).
        setup: std::fs::read_to_string(workspace.join("SOUL.md")).ok(),
        transcript: transcript.into(),
        ..common::turn_input(agent, workspace, workspace, message)
    }
}

/// A run under way: its events, its permission questions, its cancel switch.
struct Started {
    events: mpsc::UnboundedReceiver<RunEvent>,
    permissions: mpsc::UnboundedReceiver<PendingPermission>,
    cancel: watch::Sender<bool>,
    task: tokio::task::JoinHandle<clawboo_engine::Result<RunResult>>,
}

fn start(runtime: &Arc<NativeRuntime>, input: TurnInput) -> Started {
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

async fn run(runtime: &Arc<NativeRuntime>, input: TurnInput) -> (RunResult, Vec<RunEvent>) {
    let (result, events) = start(runtime, input).finish().await;
    (result.expect("the run starts"), events)
}

fn text_of(events: &[RunEvent]) -> String {
    events
        .iter()
        .filter_map(|e| if let RunEvent::TextDelta { text } = e { Some(text.as_str()) } else { None })
        .collect()
}

fn tool_results(events: &[RunEvent]) -> Vec<(String, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::ToolResult { output, is_error, .. } => Some((output.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("SOUL.md"), SOUL).unwrap();
    dir
}

/// The text of the last message a request carries (a tool result, or the user's text).
fn last_message_text(flavor: Flavor, request: &RecordedRequest) -> String {
    let last = request.body["messages"].as_array().unwrap().last().unwrap().clone();
    match flavor {
        Flavor::Anthropic => match &last["content"] {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => {
                blocks.iter().map(|b| b["content"].as_str().or(b["text"].as_str()).unwrap_or_default()).collect()
            }
            _ => String::new(),
        },
        Flavor::Chat => last["content"].as_str().unwrap_or_default().to_owned(),
    }
}

fn system_text(flavor: Flavor, request: &RecordedRequest) -> String {
    match flavor {
        Flavor::Anthropic => request.body["system"][0]["text"].as_str().unwrap().to_owned(),
        Flavor::Chat => {
            assert_eq!(request.body["messages"][0]["role"], "system");
            request.body["messages"][0]["content"].as_str().unwrap().to_owned()
        }
    }
}

#[tokio::test]
async fn a_plain_answer_streams_and_succeeds_with_usage() {
    for flavor in BOTH {
        let server = FakeModelServer::start(Behavior::text("Hello from the fake model.")).await;
        let rt = runtime(flavor.base_url(&server), Some("sk-test"));
        let ws = workspace();
        let (result, events) =
            run(&rt, input(agent(Some(flavor.provider()), ApprovalPolicy::Ask), ws.path(), "Hi", vec![])).await;
        assert_eq!(result, RunResult::succeeded(), "{flavor:?}");
        assert_eq!(text_of(&events), "Hello from the fake model.", "{flavor:?}");
        assert!(!events.iter().any(|e| matches!(e, RunEvent::Finished { .. })), "the caller emits Finished");
        let requests = server.model_requests();
        assert_eq!(requests.len(), 1);
        let request = &requests[0];
        assert_eq!(request.body["stream"], true);
        assert_eq!(request.body["model"], "some-model");
        // The fake server counts a quarter of the body as input and reports no cache use.
        let expected_input = (request.raw_body.len() as u64 / 4).max(1);
        let usage: Vec<_> = events.iter().filter(|e| matches!(e, RunEvent::Usage { .. })).collect();
        assert_eq!(usage.len(), 1, "{flavor:?}");
        let RunEvent::Usage { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd } = usage[0]
        else {
            unreachable!()
        };
        assert_eq!((*input_tokens, *cache_read_tokens, *cache_write_tokens, *cost_usd), (expected_input, 0, 0, None));
        assert!(*output_tokens >= 1);
        match flavor {
            Flavor::Anthropic => {
                assert_eq!(request.path, "/v1/messages");
                assert_eq!(request.header("x-api-key"), Some("sk-test"));
                assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
                assert_eq!(request.header("content-type"), Some("application/json"));
                assert_eq!(request.body["max_tokens"], 8192);
            }
            Flavor::Chat => {
                assert_eq!(request.path, "/v1/chat/completions");
                assert_eq!(request.header("authorization"), Some("Bearer sk-test"));
                assert_eq!(request.body["stream_options"], json!({"include_usage": true}));
            }
        }
    }
}

#[tokio::test]
async fn a_custom_provider_without_a_key_sends_no_authorization() {
    let server = FakeModelServer::start(Behavior::text("Local answer.")).await;
    let rt = runtime(format!("{}/v1/", server.base_url()), None);
    let ws = workspace();
    let (result, events) =
        run(&rt, input(agent(Some(Provider::Custom), ApprovalPolicy::Ask), ws.path(), "Hi", vec![])).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?}");
    assert_eq!(text_of(&events), "Local answer.");
    let request = &server.model_requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), None);
}

#[tokio::test]
async fn a_tool_call_runs_the_real_tool_then_answers() {
    for flavor in BOTH {
        let server = FakeModelServer::start(Behavior::tool_then_answer("list_files", json!({}), "Done.")).await;
        let rt = runtime(flavor.base_url(&server), Some("sk-test"));
        let ws = workspace();
        std::fs::write(ws.path().join("notes.txt"), "some notes").unwrap();
        std::fs::create_dir(ws.path().join("drafts")).unwrap();
        std::fs::create_dir_all(ws.path().join(".clawboo/tmp")).unwrap();
        let (result, events) =
            run(&rt, input(agent(Some(flavor.provider()), ApprovalPolicy::Ask), ws.path(), "What is here?", vec![]))
                .await;
        assert_eq!(result, RunResult::succeeded(), "{flavor:?}");
        assert_eq!(text_of(&events), "Done.");
        let started =
            events.iter().position(|e| matches!(e, RunEvent::ToolCallStarted { name, .. } if name == "list_files"));
        let finished = events.iter().position(|e| matches!(e, RunEvent::ToolResult { .. }));
        assert!(started.unwrap() < finished.unwrap(), "{events:?}");
        let (RunEvent::ToolCallStarted { call_id: started_id, .. }, RunEvent::ToolResult { call_id, output, is_error }) =
            (&events[started.unwrap()], &events[finished.unwrap()])
        else {
            unreachable!()
        };
        assert_eq!(started_id, call_id);
        assert!(!is_error);
        assert!(output.contains("notes.txt (10 bytes)") && output.contains("drafts/") && output.contains("SOUL.md"));
        assert!(!output.contains(".clawboo"), "the runtime homes are not listed: {output}");
        assert!(!events.iter().any(|e| matches!(e, RunEvent::PermissionRequest { .. })), "listing never asks");
        assert_eq!(events.iter().filter(|e| matches!(e, RunEvent::Usage { .. })).count(), 2);

        let requests = server.model_requests();
        assert_eq!(requests.len(), 2, "{flavor:?}");
        assert_eq!(last_message_text(flavor, &requests[1]), *output, "the second request carries the tool result");
        match flavor {
            Flavor::Anthropic => {
                let last = requests[1].body["messages"].as_array().unwrap().last().unwrap().clone();
                assert_eq!(last["content"][0]["type"], "tool_result");
                assert_eq!(last["content"][0]["tool_use_id"].as_str(), Some(call_id.as_str()));
            }
            Flavor::Chat => {
                let last = requests[1].body["messages"].as_array().unwrap().last().unwrap().clone();
                assert_eq!(last["role"], "tool");
                assert_eq!(last["tool_call_id"].as_str(), Some(call_id.as_str()));
            }
        }
    }
}

#[tokio::test]
async fn the_persona_is_sent_once_in_the_system_prompt_with_todays_date() {
    for flavor in BOTH {
        let server = FakeModelServer::start(Behavior::text("ok")).await;
        let rt = runtime(flavor.base_url(&server), Some("sk-test"));
        let ws = workspace();
        let (result, _) =
            run(&rt, input(agent(Some(flavor.provider()), ApprovalPolicy::Ask), ws.path(), "Hello", vec![])).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded);
        let request = &server.model_requests()[0];
        assert_eq!(request.raw_body.matches("SOUL-MARKER-7f3a").count(), 1, "{flavor:?}");
        let date = utc_date(SystemTime::now());
        assert_eq!(date.len(), 10);
        assert_eq!(system_text(flavor, request), format!("{SOUL}\n\nToday's date is {date} (UTC)."));
        assert_eq!(last_message_text(flavor, request), "Hello");
    }
}

#[tokio::test]
async fn a_team_turns_steady_context_comes_before_the_date_line() {
    for flavor in BOTH {
        let server = FakeModelServer::start(Behavior::text("ok")).await;
        let rt = runtime(flavor.base_url(&server), Some("sk-test"));
        let ws = workspace();
        let mut turn = input(agent(Some(flavor.provider()), ApprovalPolicy::Ask), ws.path(), "Hello", vec![]);
        turn.persona = Some("## Team rules\n1. Be brief.".into());
        let (result, _) = run(&rt, turn).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded);
        let date = utc_date(SystemTime::now());
        // Only the last line changes from day to day: the rest stays the cached prefix.
        assert_eq!(
            system_text(flavor, &server.model_requests()[0]),
            format!("{SOUL}\n\n## Team rules\n1. Be brief.\n\nToday's date is {date} (UTC).")
        );
    }
}

#[tokio::test]
async fn without_soul_md_the_system_prompt_is_only_the_date() {
    let server = FakeModelServer::start(Behavior::text("ok")).await;
    let rt = runtime(server.base_url(), Some("sk-test"));
    let ws = tempfile::tempdir().unwrap();
    let (result, _) =
        run(&rt, input(agent(Some(Provider::Anthropic), ApprovalPolicy::Ask), ws.path(), "Hello", vec![])).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded);
    let date = utc_date(SystemTime::now());
    assert_eq!(system_text(Flavor::Anthropic, &server.model_requests()[0]), format!("Today's date is {date} (UTC)."));
}

#[tokio::test]
async fn a_resumed_turn_carries_the_earlier_turns_and_grows_only_by_them() {
    for flavor in BOTH {
        let server = FakeModelServer::start(Behavior::text("Third answer.")).await;
        let rt = runtime(flavor.base_url(&server), Some("sk-test"));
        let ws = workspace();
        let ag = agent(Some(flavor.provider()), ApprovalPolicy::Ask);
        run(&rt, input(ag.clone(), ws.path(), "Third question", vec![])).await;
        let transcript = vec![
            TranscriptTurn::new("First question", "First answer."),
            TranscriptTurn::new("Second question", "Second answer."),
        ];
        let (result, _) = run(&rt, input(ag, ws.path(), "Third question", transcript)).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded);
        let requests = server.model_requests();
        let (fresh, resumed) = (&requests[0], &requests[1]);
        assert_eq!(resumed.raw_body.matches("SOUL-MARKER-7f3a").count(), 1, "no earlier persona copies");
        let messages = resumed.body["messages"].as_array().unwrap();
        let texts: Vec<(String, String)> = messages
            .iter()
            .map(|m| {
                let text = match &m["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
                    _ => String::new(),
                };
                (m["role"].as_str().unwrap().to_owned(), text)
            })
            .filter(|(role, _)| role != "system")
            .collect();
        let expected = [
            ("user", "First question"),
            ("assistant", "First answer."),
            ("user", "Second question"),
            ("assistant", "Second answer."),
            ("user", "Third question"),
        ];
        let expected: Vec<(String, String)> = expected.iter().map(|(r, t)| (r.to_string(), t.to_string())).collect();
        assert_eq!(texts, expected, "{flavor:?}");
        // Everything but the conversation is the same as on a fresh turn.
        let without_messages = |body: &Value| {
            let mut body = body.clone();
            body.as_object_mut().unwrap().remove("messages");
            body
        };
        assert_eq!(without_messages(&fresh.body), without_messages(&resumed.body));
        assert_eq!(system_text(flavor, fresh), system_text(flavor, resumed));
        assert!(resumed.raw_body.len() > fresh.raw_body.len());
        let growth = resumed.raw_body.len() - fresh.raw_body.len();
        assert!(growth < 400, "the request grows only by the earlier turns ({growth} bytes)");
    }
}

/// A carried text left empty (the run layer carries a blank one so) goes out as a stand-in: the
/// providers refuse an empty text.
#[tokio::test]
async fn an_empty_carried_text_goes_out_as_a_stand_in() {
    for flavor in BOTH {
        let server = FakeModelServer::start(Behavior::text("Fine.")).await;
        let rt = runtime(flavor.base_url(&server), Some("sk-test"));
        let ws = workspace();
        let ag = agent(Some(flavor.provider()), ApprovalPolicy::Ask);
        let transcript = vec![TranscriptTurn::new("", "Said nothing."), TranscriptTurn::new("Anything?", "")];
        let (result, _) = run(&rt, input(ag, ws.path(), "Now?", transcript)).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded);
        let body = &server.model_requests()[0].raw_body;
        assert!(body.contains("(empty message)") && body.contains("(no reply)"), "{flavor:?}: {body}");
    }
}

#[tokio::test]
async fn anthropic_requests_mark_the_steady_prefix_for_caching() {
    let server = FakeModelServer::start(Behavior::text("ok")).await;
    let rt = runtime(server.base_url(), Some("sk-test"));
    let ws = workspace();
    run(&rt, input(agent(Some(Provider::Anthropic), ApprovalPolicy::Ask), ws.path(), "Hi", vec![])).await;
    let body = &server.model_requests()[0].body;
    let ephemeral = json!({"type": "ephemeral"});
    assert_eq!(body["system"].as_array().unwrap().len(), 1);
    assert_eq!(body["system"][0]["type"], "text");
    assert_eq!(body["system"][0]["cache_control"], ephemeral);
    let tools = body["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["read_file", "write_file", "list_files"]);
    assert_eq!(tools.last().unwrap()["cache_control"], ephemeral);
    assert!(tools[..2].iter().all(|t| t.get("cache_control").is_none()));
}

/// Runs a write_file call under `policy`, answering any permission question with `answer`.
async fn write_under(
    flavor: Flavor,
    policy: ApprovalPolicy,
    answer: Option<bool>,
) -> (tempfile::TempDir, RunResult, Vec<RunEvent>, usize) {
    let behavior =
        Behavior::tool_then_answer("write_file", json!({"path": "out/note.md", "content": "# Note"}), "Done.");
    let server = FakeModelServer::start(behavior).await;
    let rt = runtime(flavor.base_url(&server), Some("sk-test"));
    let ws = workspace();
    let mut started = start(&rt, input(agent(Some(flavor.provider()), policy), ws.path(), "Write it", vec![]));
    let mut asked = 0;
    if let Some(allow) = answer {
        let pending = tokio::time::timeout(LIMIT, started.permissions.recv()).await.unwrap().unwrap();
        asked += 1;
        pending.reply.send(PermissionAnswer { allow }).unwrap();
    }
    let mut permissions = std::mem::replace(&mut started.permissions, mpsc::unbounded_channel().1);
    let (result, events) = started.finish().await;
    while permissions.try_recv().is_ok() {
        asked += 1;
    }
    assert_eq!(server.model_requests().len(), 2);
    (ws, result.unwrap(), events, asked)
}

#[tokio::test]
async fn write_file_under_ask_round_trips_a_permission() {
    for flavor in BOTH {
        for allow in [true, false] {
            let (ws, result, events, asked) = write_under(flavor, ApprovalPolicy::Ask, Some(allow)).await;
            assert_eq!(result.outcome, RunOutcome::Succeeded);
            assert_eq!(asked, 1);
            let request = events.iter().find_map(|e| match e {
                RunEvent::PermissionRequest { request_id, tool, input, description } => {
                    Some((request_id.clone(), tool.clone(), input.clone(), description.clone()))
                }
                _ => None,
            });
            let (request_id, tool, tool_input, description) = request.expect("a permission request");
            assert_eq!(tool, "write_file");
            assert_eq!(tool_input, json!({"path": "out/note.md", "content": "# Note"}));
            assert!(description.contains("out/note.md"), "{description}");
            assert!(events.contains(&RunEvent::PermissionResolved { request_id, allowed: allow }));
            let written = std::fs::read_to_string(ws.path().join("out/note.md")).ok();
            let results = tool_results(&events);
            if allow {
                assert_eq!(written.as_deref(), Some("# Note"), "{flavor:?}");
                assert!(!results[0].1);
            } else {
                assert_eq!(written, None, "{flavor:?}");
                assert!(results[0].1 && results[0].0.starts_with("denied"), "{results:?}");
            }
        }
    }
}

/// The workspace tools a request offered, by name.
fn offered_tools(flavor: Flavor, request: &RecordedRequest) -> Vec<String> {
    let tools = request.body["tools"].as_array().cloned().unwrap_or_default();
    tools
        .iter()
        .map(|t| match flavor {
            Flavor::Anthropic => t["name"].as_str().unwrap_or_default().to_owned(),
            Flavor::Chat => t["function"]["name"].as_str().unwrap_or_default().to_owned(),
        })
        .collect()
}

#[tokio::test]
async fn a_read_only_agent_is_not_offered_write_file() {
    for flavor in BOTH {
        for (policy, expected) in [
            (ApprovalPolicy::ReadOnly, vec!["read_file", "list_files"]),
            (ApprovalPolicy::Ask, vec!["read_file", "write_file", "list_files"]),
            (ApprovalPolicy::AllowAll, vec!["read_file", "write_file", "list_files"]),
        ] {
            let server = FakeModelServer::start(Behavior::text("ok")).await;
            let rt = runtime(flavor.base_url(&server), Some("sk-test"));
            let ws = workspace();
            run(&rt, input(agent(Some(flavor.provider()), policy), ws.path(), "Hi", vec![])).await;
            assert_eq!(offered_tools(flavor, &server.model_requests()[0]), expected, "{flavor:?} {policy:?}");
        }
    }
}

#[tokio::test]
async fn read_only_denies_without_asking_and_allow_all_writes_without_asking() {
    for flavor in BOTH {
        let (ws, result, events, asked) = write_under(flavor, ApprovalPolicy::ReadOnly, None).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded);
        assert_eq!(asked, 0);
        assert!(!events.iter().any(|e| matches!(e, RunEvent::PermissionRequest { .. })));
        assert_eq!(tool_results(&events), [("denied: this agent is read-only".to_owned(), true)]);
        assert!(!ws.path().join("out/note.md").exists());

        let (ws, _, events, asked) = write_under(flavor, ApprovalPolicy::AllowAll, None).await;
        assert_eq!(asked, 0);
        assert!(!events.iter().any(|e| matches!(e, RunEvent::PermissionRequest { .. })));
        assert_eq!(std::fs::read_to_string(ws.path().join("out/note.md")).unwrap(), "# Note");
    }
}

/// Runs one call of `tool` with `args` (AllowAll): the tool result, whether it is an error, and
/// what the second request told the model.
async fn one_tool(flavor: Flavor, ws: &Path, tool: &str, args: Value) -> (String, bool, String) {
    let server = FakeModelServer::start(Behavior::tool_then_answer(tool, args, "Done.")).await;
    let rt = runtime(flavor.base_url(&server), Some("sk-test"));
    let (result, events) =
        run(&rt, input(agent(Some(flavor.provider()), ApprovalPolicy::AllowAll), ws, "Go", vec![])).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?}");
    let (output, is_error) = tool_results(&events).pop().expect("a tool result");
    let sent = last_message_text(flavor, &server.model_requests()[1]);
    (output, is_error, sent)
}

#[tokio::test]
async fn escapes_from_the_workspace_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "outside secret").unwrap();
    for flavor in BOTH {
        let root = tempfile::tempdir().unwrap();
        let ws = root.path().join("agent");
        std::fs::create_dir_all(ws.join(".clawboo")).unwrap();
        std::fs::write(root.path().join("x"), "sibling").unwrap();
        std::fs::write(ws.join(".clawboo/config"), "homes").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), ws.join("out")).unwrap();
        let mut attempts = vec![
            ("read_file", json!({"path": "../x"})),
            ("read_file", json!({"path": "/etc/passwd"})),
            ("read_file", json!({"path": ".clawboo/config"})),
            ("list_files", json!({"path": ".."})),
            ("write_file", json!({"path": "../escaped.txt", "content": "x"})),
            ("write_file", json!({"path": "/tmp/clawboo-escaped.txt", "content": "x"})),
        ];
        if cfg!(unix) {
            attempts.push(("read_file", json!({"path": "out/secret.txt"})));
            attempts.push(("write_file", json!({"path": "out/planted.txt", "content": "x"})));
        }
        for (tool, args) in attempts {
            let (output, is_error, sent) = one_tool(flavor, &ws, tool, args.clone()).await;
            assert!(is_error, "{flavor:?} {tool} {args}: {output}");
            assert!(output.starts_with("Refused:"), "{output}");
            assert!(!output.contains("sibling") && !output.contains("outside secret") && !output.contains("homes"));
            assert!(sent.contains("Refused:"), "the model is told: {sent}");
        }
        assert!(!root.path().join("escaped.txt").exists());
        assert!(!outside.path().join("planted.txt").exists());
        assert!(!Path::new("/tmp/clawboo-escaped.txt").exists());
    }
}

#[tokio::test]
async fn reads_over_64_kib_are_cut_with_a_note() {
    for flavor in BOTH {
        let ws = workspace();
        let big: String = (0..100 * 1024).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        std::fs::write(ws.path().join("big.txt"), &big).unwrap();
        let (output, is_error, sent) = one_tool(flavor, ws.path(), "read_file", json!({"path": "big.txt"})).await;
        assert!(!is_error);
        assert!(output.starts_with(&big[..64 * 1024]));
        assert!(!output.contains(&big[..64 * 1024 + 1]), "nothing past 64 KiB");
        assert!(
            output.ends_with(
                "[The file was cut: big.txt is 102400 bytes and only its first 65536 bytes (64 KiB) are shown.]"
            ),
            "{}",
            &output[64 * 1024..]
        );
        assert_eq!(sent, output, "{flavor:?}");
        let (output, _, _) = one_tool(flavor, ws.path(), "read_file", json!({"path": "SOUL.md"})).await;
        assert_eq!(output, SOUL);
    }
}

#[tokio::test]
async fn a_model_that_never_stops_asking_for_tools_is_stopped_after_16_calls() {
    for flavor in BOTH {
        let ask = Reply::ToolCall { name: "list_files".into(), input: json!({}) };
        let server =
            FakeModelServer::start(Behavior { on_user: ask.clone(), on_tool_result: ask, rules: Vec::new() }).await;
        let rt = runtime(flavor.base_url(&server), Some("sk-test"));
        let ws = workspace();
        let (result, events) =
            run(&rt, input(agent(Some(flavor.provider()), ApprovalPolicy::Ask), ws.path(), "Loop", vec![])).await;
        let limit = RunResult::failed("Stopped after 16 model calls without a final answer.");
        assert_eq!(result, RunResult { turn_limit: true, ..limit }, "the task runner goes on in a fresh session");
        assert_eq!(server.model_requests().len(), 16, "{flavor:?}");
        assert_eq!(tool_results(&events).len(), 16);
    }
}

/// Waits short enough for a test; the shipped ones are 1 s and 4 s.
fn quick_retries(rt: Arc<NativeRuntime>) -> Arc<NativeRuntime> {
    Arc::new(Arc::into_inner(rt).unwrap().with_retry_waits(vec![Duration::from_millis(20), Duration::from_millis(40)]))
}

fn warnings(events: &[RunEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::Warning { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn an_http_500_is_tried_again_twice_then_fails_with_the_providers_message() {
    for flavor in BOTH {
        let server = FakeModelServer::start(Behavior::server_error("the fake model is overloaded")).await;
        let rt = quick_retries(runtime(flavor.base_url(&server), Some("sk-test")));
        let ws = workspace();
        let (result, events) =
            run(&rt, input(agent(Some(flavor.provider()), ApprovalPolicy::Ask), ws.path(), "Hi", vec![])).await;
        assert_eq!(result.outcome, RunOutcome::Failed);
        let message = result.message.unwrap();
        assert!(message.contains("500") && message.contains("the fake model is overloaded"), "{message}");
        assert!(text_of(&events).is_empty());
        assert_eq!(server.model_requests().len(), 3, "the first try and two more");
        let said = warnings(&events);
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(said[0].contains("500") && said[0].ends_with("Trying again in 1 s (1 of 2)."), "{said:?}");
        assert!(said[1].ends_with("(2 of 2)."), "{said:?}");
    }
}

#[tokio::test]
async fn a_busy_provider_is_tried_again_and_the_run_goes_on() {
    for flavor in BOTH {
        let server = FakeModelServer::start(Behavior::text("Answered on the second try.")).await;
        server.fail_next(1);
        let rt = quick_retries(runtime(flavor.base_url(&server), Some("sk-test")));
        let ws = workspace();
        let (result, events) =
            run(&rt, input(agent(Some(flavor.provider()), ApprovalPolicy::Ask), ws.path(), "Hi", vec![])).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded, "{:?}", result.message);
        assert_eq!(text_of(&events), "Answered on the second try.");
        assert_eq!(server.model_requests().len(), 2);
        let said = warnings(&events);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("503") && said[0].contains("overloaded"), "{said:?}");
    }
}

#[tokio::test]
async fn a_refused_connection_is_said_at_once_never_tried_again() {
    // Nothing listens at this address: the message says to check the server, with no waiting.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    for flavor in BOTH {
        let rt = quick_retries(runtime(format!("http://{closed}"), Some("sk-test")));
        let ws = workspace();
        let (result, events) =
            run(&rt, input(agent(Some(flavor.provider()), ApprovalPolicy::Ask), ws.path(), "Hi", vec![])).await;
        assert_eq!(result.outcome, RunOutcome::Failed);
        assert!(result.message.unwrap().contains("Could not connect"));
        assert!(warnings(&events).is_empty(), "{:?}", warnings(&events));
    }
}

#[tokio::test]
async fn a_stream_event_over_the_cap_fails_the_call_clearly() {
    // One text delta of 9 MiB: its SSE line is over the 8 MiB cap and is dropped as it streams.
    for flavor in BOTH {
        let server = FakeModelServer::start(Behavior::text("x".repeat(9 << 20))).await;
        let rt = runtime(flavor.base_url(&server), Some("sk-test"));
        let ws = workspace();
        let (result, events) =
            run(&rt, input(agent(Some(flavor.provider()), ApprovalPolicy::Ask), ws.path(), "Hi", vec![])).await;
        assert_eq!(result.outcome, RunOutcome::Failed);
        let message = result.message.unwrap();
        assert!(message.contains("reply could not be read") && message.contains("over the 8 MiB limit"), "{message}");
        assert!(text_of(&events).is_empty(), "nothing of the dropped event was decoded");
    }
}

#[tokio::test]
async fn a_refused_connection_fails_naming_the_url() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    for flavor in BOTH {
        let base = match flavor {
            Flavor::Anthropic => format!("http://127.0.0.1:{port}"),
            Flavor::Chat => format!("http://127.0.0.1:{port}/v1"),
        };
        let rt = runtime(base, Some("sk-test"));
        let ws = workspace();
        let (result, _) =
            run(&rt, input(agent(Some(flavor.provider()), ApprovalPolicy::Ask), ws.path(), "Hi", vec![])).await;
        assert_eq!(result.outcome, RunOutcome::Failed);
        let message = result.message.unwrap();
        assert!(message.contains(&format!("http://127.0.0.1:{port}/v1/")), "{message}");
        assert!(message.starts_with("Could not connect to"), "{message}");
    }
}

#[tokio::test]
async fn cancelling_a_slow_reply_stops_it_promptly() {
    for flavor in BOTH {
        let server = FakeModelServer::start(Behavior::slow("word ".repeat(100), 100, Duration::from_millis(200))).await;
        let rt = runtime(flavor.base_url(&server), Some("sk-test"));
        let ws = workspace();
        let mut started =
            start(&rt, input(agent(Some(flavor.provider()), ApprovalPolicy::Ask), ws.path(), "Hi", vec![]));
        let mut seen = Vec::new();
        loop {
            let event = tokio::time::timeout(LIMIT, started.events.recv()).await.unwrap().unwrap();
            let is_text = matches!(event, RunEvent::TextDelta { .. });
            seen.push(event);
            if is_text {
                break;
            }
        }
        let asked_at = Instant::now();
        started.cancel.send(true).unwrap();
        let (result, events) = started.finish().await;
        assert!(asked_at.elapsed() < Duration::from_secs(2), "took {:?}", asked_at.elapsed());
        let result = result.unwrap();
        assert_eq!(result.outcome, RunOutcome::Cancelled, "{flavor:?}");
        seen.extend(events);
        assert!(text_of(&seen).len() < "word ".repeat(100).len(), "the stream was dropped early");
    }
}

#[tokio::test]
async fn a_run_cancelled_while_waiting_for_permission_ends_cancelled() {
    let behavior = Behavior::tool_then_answer("write_file", json!({"path": "a.md", "content": "x"}), "Done.");
    let server = FakeModelServer::start(behavior).await;
    let rt = runtime(server.base_url(), Some("sk-test"));
    let ws = workspace();
    let mut started = start(&rt, input(agent(Some(Provider::Anthropic), ApprovalPolicy::Ask), ws.path(), "Go", vec![]));
    let _pending = tokio::time::timeout(LIMIT, started.permissions.recv()).await.unwrap().unwrap();
    started.cancel.send(true).unwrap();
    let (result, events) = started.finish().await;
    assert_eq!(result.unwrap().outcome, RunOutcome::Cancelled);
    assert!(events.iter().any(|e| matches!(e, RunEvent::PermissionResolved { allowed: false, .. })));
    assert!(!ws.path().join("a.md").exists());
    assert_eq!(server.model_requests().len(), 1);
}

#[tokio::test]
async fn missing_keys_providers_and_models_are_errors_before_any_request() {
    let server = FakeModelServer::start(Behavior::text("never")).await;
    let ws = workspace();
    for (provider, label) in
        [(Provider::Anthropic, "Anthropic"), (Provider::OpenAi, "OpenAI"), (Provider::OpenRouter, "OpenRouter")]
    {
        for key in [None, Some("  ")] {
            let rt = runtime(server.base_url(), key);
            let (result, events) =
                start(&rt, input(agent(Some(provider), ApprovalPolicy::Ask), ws.path(), "Hi", vec![])).finish().await;
            let err = result.unwrap_err();
            assert_eq!(err.code(), ErrorCode::MissingApiKey);
            assert_eq!(err.to_string(), format!("Add an {label} API key in Settings > API keys."));
            assert!(events.is_empty());
        }
    }
    let rt = runtime(server.base_url(), Some("sk-test"));
    let err =
        start(&rt, input(agent(None, ApprovalPolicy::Ask), ws.path(), "Hi", vec![])).finish().await.0.unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("provider"), "{err}");
    let mut no_model = agent(Some(Provider::Anthropic), ApprovalPolicy::Ask);
    no_model.model = " ".into();
    let err = start(&rt, input(no_model, ws.path(), "Hi", vec![])).finish().await.0.unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("model"), "{err}");
    assert!(server.requests().is_empty(), "nothing was sent");
}

#[tokio::test]
async fn native_reports_its_capabilities() {
    use clawboo_engine::runtimes::{HistoryMode, PersonaDelivery};
    let rt = runtime("http://127.0.0.1:9".into(), None);
    assert_eq!(rt.kind(), RuntimeKind::Native);
    let caps = rt.capabilities();
    assert!(caps.streams_text);
    assert_eq!(caps.context_window, Some(200_000));
    assert_eq!(caps.history, HistoryMode::ClawbooTranscript);
    assert_eq!(caps.persona, PersonaDelivery::OwnSetup);
}
