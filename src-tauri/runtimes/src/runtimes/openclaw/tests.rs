//! The protocol against recorded runs of the pinned OpenClaw (tests/fixtures/openclaw): the
//! `openclaw acp` bridge's stdout and what was sent to it, and the transcript rows OpenClaw
//! wrote for those turns.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::acp::OpenclawAcp;
use super::config::{self, Layout};
use super::transcript::{self, Mark};
use crate::runtimes::process::ExitInfo;
use crate::runtimes::supervise::replay::{events, feed, sent};
use crate::runtimes::supervise::{Step, StreamProtocol};
use crate::runtimes::{ApprovalPolicy, PermissionAnswer, RunEvent, RunOutcome};
use crate::secrets::Provider;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/tests/fixtures/openclaw");
const OK: ExitInfo = ExitInfo { code: Some(0), signal: None };
/// The ACP sessions of the recordings.
const TOOL_SESSION: &str = "edbae1b2-97a7-4e71-a6f2-0d3f8fec211e";
const ERROR_SESSION: &str = "96162226-3300-48c7-b087-30ddbcc76d2c";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap()
}

fn protocol(message: &str, resume: Option<&str>, db: Option<PathBuf>, since: Option<Mark>) -> OpenclawAcp {
    OpenclawAcp::new("/tmp/oc/ws".into(), message.into(), resume.map(str::to_owned), db, since)
}

fn methods(messages: &[Value]) -> Vec<String> {
    messages.iter().map(|m| m["method"].as_str().unwrap_or("(answer)").to_owned()).collect()
}

/// An agent database holding the recorded transcript rows (seq from 0, as OpenClaw numbers them).
fn database(dir: &Path, acp_session: &str, session_id: &str, transcript_fixture: &str) -> PathBuf {
    let db = dir.join("openclaw-agent.sqlite");
    let connection = rusqlite::Connection::open(&db).unwrap();
    connection
        .execute_batch(
            "CREATE TABLE IF NOT EXISTS session_nodes (session_key TEXT PRIMARY KEY, current_session_id TEXT);
             CREATE TABLE IF NOT EXISTS transcript_events (session_id TEXT, seq INTEGER, event_json TEXT);",
        )
        .unwrap();
    connection
        .execute("INSERT INTO session_nodes VALUES (?1, ?2)", [transcript::session_key(acp_session), session_id.into()])
        .unwrap();
    for (seq, line) in (0_i64..).zip(fixture(transcript_fixture).lines()) {
        connection
            .execute("INSERT INTO transcript_events VALUES (?1, ?2, ?3)", rusqlite::params![session_id, seq, line])
            .unwrap();
    }
    db
}

#[test]
fn a_tool_turn_streams_the_call_its_result_and_the_reply() {
    let mut p = protocol("Run echo hello-from-tool", None, None, None);
    let mut steps: Vec<Step> = p.opening().into_iter().map(Step::Send).collect();
    steps.extend(feed(&mut p, &fixture("acp-tool-turn.stdout.jsonl")));
    let recorded: Vec<Value> =
        fixture("acp-tool-turn.stdin.jsonl").lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ours = sent(&steps);
    assert_eq!(methods(&ours), methods(&recorded));
    assert_eq!(ours[1]["params"]["cwd"], "/tmp/oc/ws");
    assert_eq!(ours[2]["params"], recorded[2]["params"], "the prompt as recorded");
    assert_eq!(
        events(&steps),
        vec![
            RunEvent::SessionStarted { session_id: TOOL_SESSION.into() },
            RunEvent::ToolCallStarted {
                call_id: "call_fake64162b8c0002".into(),
                name: "exec".into(),
                input: json!({"command": "echo hello-from-tool"}),
            },
            RunEvent::ToolResult {
                call_id: "call_fake64162b8c0002".into(),
                output: "hello-from-tool".into(),
                is_error: false
            },
            RunEvent::TextDelta { text: "All done.".into() },
        ]
    );
    assert_eq!(steps.last(), Some(&Step::EndInput));
    assert_eq!(p.finish(OK, "").outcome, RunOutcome::Succeeded);
}

#[test]
fn usage_comes_from_the_transcript_of_this_turn_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), TOOL_SESSION, "769deac7", "transcript-tool-then-resume.jsonl");
    // The first turn: rows 0–7.
    let first = transcript::events_since(&db, TOOL_SESSION, None).unwrap();
    let summary = transcript::summarize(&first[..8]);
    assert_eq!(summary.usage, Some([10684 + 10750, 8 + 2, 0, 0]));
    assert_eq!(summary.error, None);

    // The resumed turn, after the mark taken before it.
    let since = Mark { session_id: "769deac7".into(), seq: 7 };
    let mut p = protocol("Do it again", Some(TOOL_SESSION), Some(db), Some(since));
    let steps = feed(&mut p, &fixture("acp-resume-turn.stdout.jsonl"));
    let events = events(&steps);
    assert_eq!(events[0], RunEvent::SessionStarted { session_id: TOOL_SESSION.into() });
    let calls: Vec<&RunEvent> = events.iter().filter(|e| matches!(e, RunEvent::ToolCallStarted { .. })).collect();
    assert_eq!(calls.len(), 1, "the replayed history is not shown again: {events:?}");
    assert!(matches!(calls[0], RunEvent::ToolCallStarted { call_id, .. } if call_id == "call_fake64162b8c0006"));
    assert_eq!(events.iter().filter(|e| matches!(e, RunEvent::TextDelta { .. })).count(), 1);
    assert!(events.contains(&RunEvent::Usage {
        input_tokens: 10786 + 10851,
        output_tokens: 8 + 2,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        cost_usd: None,
    }));
    assert_eq!(methods(&sent(&steps)), ["session/load", "session/prompt"]);
    assert_eq!(p.finish(OK, "").outcome, RunOutcome::Succeeded);
}

#[test]
fn a_500_fails_with_the_model_error_from_the_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), ERROR_SESSION, "767fca11", "transcript-500.jsonl");
    let mut p = protocol("Hello", None, Some(db), None);
    let steps = feed(&mut p, &fixture("acp-500.stdout.jsonl"));
    let message = "The model request failed (HTTP 500): fake overload";
    assert!(events(&steps).contains(&RunEvent::Error { message: message.into() }), "{steps:?}");
    assert!(!events(&steps).iter().any(|e| matches!(e, RunEvent::Usage { .. })), "a failed call used no tokens");
    let result = p.finish(OK, "");
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert_eq!(result.message.as_deref(), Some(message));

    // Without the transcript the turn cannot be judged failed: it ended with `end_turn`.
    let mut blind = protocol("Hello", None, None, None);
    feed(&mut blind, &fixture("acp-500.stdout.jsonl"));
    assert_eq!(blind.finish(OK, "").outcome, RunOutcome::Succeeded);
}

#[test]
fn an_exec_approval_becomes_a_question_and_the_answer_goes_back() {
    for (allow, option) in [(true, "allow-once"), (false, "deny")] {
        let mut p = protocol("Create written.txt", None, None, None);
        let steps = feed(&mut p, &fixture("acp-permission-turn.stdout.jsonl"));
        let ask = steps.iter().find_map(|s| match s {
            Step::Ask { request_id, tool, input, description, read_only } => {
                Some((request_id.clone(), tool.clone(), input.clone(), description.clone(), *read_only))
            }
            _ => None,
        });
        let (request_id, tool, input, description, read_only) = ask.expect("a question");
        assert_eq!(request_id, "0");
        assert_eq!(tool, "exec");
        assert_eq!(input["command"], "touch written.txt");
        assert_eq!(description, "exec: command: touch written.txt");
        assert!(!read_only);
        let mut out = Vec::new();
        p.on_permission(&request_id, PermissionAnswer { allow }, &mut out);
        assert_eq!(
            sent(&out),
            vec![
                json!({"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "selected", "optionId": option}}})
            ]
        );
    }
    let recorded = fixture("acp-permission-turn.stdin.jsonl");
    assert!(recorded.contains("\"optionId\": \"allow-once\""), "the recording allowed the call");
}

#[test]
fn cancel_sends_session_cancel_and_the_turn_ends_cancelled() {
    let mut p = protocol("Count slowly", None, None, None);
    let text = fixture("acp-cancel.stdout.jsonl");
    let (before, after): (Vec<&str>, Vec<&str>) = text.lines().partition(|l| !l.contains("\"stopReason\""));
    let steps = feed(&mut p, &before.join("\n"));
    let streamed: String = events(&steps)
        .into_iter()
        .filter_map(|e| match e {
            RunEvent::TextDelta { text } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, "one two three four five s", "the reply streams as it is written");
    let cancel: Value = serde_json::from_str(&p.interrupt().expect("an interrupt message")).unwrap();
    assert_eq!(cancel["method"], "session/cancel");
    assert_eq!(cancel["params"]["sessionId"], "baf2442d-cd38-4f8c-a9f1-9e631bea5757");
    feed(&mut p, &after.join("\n"));
    assert_eq!(p.finish(OK, "").outcome, RunOutcome::Cancelled);
}

#[test]
fn a_missing_session_has_no_mark() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(transcript::mark(&dir.path().join("none.sqlite"), "x"), None);
    let db = database(dir.path(), TOOL_SESSION, "769deac7", "transcript-tool-then-resume.jsonl");
    assert_eq!(transcript::mark(&db, "gone-session"), None);
    assert_eq!(transcript::mark(&db, TOOL_SESSION), Some(Mark { session_id: "769deac7".into(), seq: 13 }));
}

#[test]
fn the_config_names_the_provider_model_and_policy() {
    let layout = Layout::new(Path::new("/agent/.clawboo/openclaw"));
    let cwd = Path::new("/agent");
    let config =
        config::openclaw_json(&layout, Provider::Custom, "http://127.0.0.1:1/v1", "m1", cwd, ApprovalPolicy::AllowAll);
    let provider = &config["models"]["providers"]["clawboo"];
    assert_eq!(provider["api"], "openai-completions");
    assert_eq!(provider["apiKey"], "${CLAWBOO_MODEL_API_KEY}");
    assert_eq!(provider["models"][0]["id"], "m1");
    assert_eq!(config["agents"]["defaults"]["model"]["primary"], "clawboo/m1");
    assert_eq!(config["agents"]["defaults"]["cwd"], "/agent");
    assert_eq!(config["agents"]["defaults"]["heartbeat"]["every"], "0m");
    assert_eq!(config["logging"]["file"], "/agent/.clawboo/openclaw/logs/openclaw.log");
    assert_eq!(config["update"]["checkOnStart"], false);
    // Nothing of its own: no catalog fetched from the internet, no nightly model calls.
    assert_eq!(config["models"]["catalogRefresh"]["enabled"], false);
    assert_eq!(config["plugins"]["entries"]["memory-core"]["config"]["dreaming"]["enabled"], false);
    assert_eq!(config["tools"]["exec"]["mode"], "full");
    assert_eq!(config["tools"]["exec"]["notifyOnExit"], false);
    // OpenClaw's tools for its own apps, scheduling, sessions and media are never offered.
    assert_eq!(config["tools"]["deny"], json!(config::NOT_OFFERED_BY_CLAWBOO));
    let read_only =
        config::openclaw_json(&layout, Provider::Anthropic, "https://x", "m1", cwd, ApprovalPolicy::ReadOnly);
    assert_eq!(read_only["models"]["providers"]["clawboo"]["api"], "anthropic-messages");
    assert_eq!(read_only["tools"]["exec"]["mode"], "allowlist");
    let denied: Vec<&str> = read_only["tools"]["deny"].as_array().unwrap().iter().filter_map(|d| d.as_str()).collect();
    for tool in config::READ_ONLY_DENIED.iter().chain(config::NOT_OFFERED_BY_CLAWBOO) {
        assert_eq!(denied.iter().filter(|d| *d == tool).count(), 1, "{tool} denied once: {denied:?}");
    }
    for denied in ["write", "edit", "apply_patch", "group:runtime", "group:web", "group:ui"] {
        assert!(config::READ_ONLY_DENIED.contains(&denied), "{denied}");
    }
    assert_eq!(read_only["tools"]["fs"]["workspaceOnly"], true);
    let ask = config::openclaw_json(&layout, Provider::Custom, "https://x", "m1", cwd, ApprovalPolicy::Ask);
    assert_eq!(ask["tools"]["exec"]["mode"], "ask");
    let ask_denied = ask["tools"]["deny"].as_array().unwrap();
    assert_eq!(ask_denied[..3], [json!("write"), json!("edit"), json!("apply_patch")]);
    assert_eq!(ask_denied.len(), 3 + config::NOT_OFFERED_BY_CLAWBOO.len());
    // A Gateway the user runs gets only the policy's rules for Clawboo's agent: its own tools
    // are the user's choice there.
    assert_eq!(config::tool_rules(ApprovalPolicy::Ask)["deny"], json!(["write", "edit", "apply_patch"]));
    assert_eq!(config::api_for(Provider::OpenAi), "openai-responses");
}

#[test]
fn persona_files_are_mirrored_into_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let (source, workspace) = (dir.path().join("agent"), dir.path().join("ws"));
    std::fs::create_dir_all(&source).unwrap();
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(source.join("SOUL.md"), "soul v1").unwrap();
    std::fs::write(source.join("MEMORY.md"), "not copied").unwrap();
    std::fs::write(workspace.join("USER.md"), "stale").unwrap();
    config::sync_workspace(&source, &workspace).unwrap();
    assert_eq!(std::fs::read_to_string(workspace.join("SOUL.md")).unwrap(), "soul v1");
    assert!(!workspace.join("USER.md").exists(), "a file gone from the agent is gone from the workspace");
    assert!(!workspace.join("MEMORY.md").exists());
    std::fs::write(source.join("SOUL.md"), "soul v2").unwrap();
    config::sync_workspace(&source, &workspace).unwrap();
    assert_eq!(std::fs::read_to_string(workspace.join("SOUL.md")).unwrap(), "soul v2");
}
