//! Fixture replays and parsing edge cases of the Claude Code protocol.

use serde_json::{json, Value};

use super::protocol::{DuplexProtocol, DENY_MESSAGE};
use crate::runtimes::process::ExitInfo;
use crate::runtimes::supervise::{Step, StreamProtocol};
use crate::runtimes::{PermissionAnswer, RunEvent, RunOutcome};

fn fixture(name: &str) -> String {
    let path = format!("{}/../engine/tests/fixtures/claude-code/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Feeds every line of a fixture; permission questions are answered `allow` right away.
fn replay(protocol: &mut DuplexProtocol, name: &str, allow: bool) -> Vec<Step> {
    let mut steps = Vec::new();
    for line in fixture(name).lines() {
        let mut out = Vec::new();
        protocol.on_line(line, &mut out);
        for step in out {
            let ask = match &step {
                Step::Ask { request_id, .. } => Some(request_id.clone()),
                _ => None,
            };
            steps.push(step);
            if let Some(id) = ask {
                protocol.on_permission(&id, PermissionAnswer { allow }, &mut steps);
            }
        }
    }
    steps
}

fn emit(event: RunEvent) -> Step {
    Step::Emit(event)
}

fn session(id: &str) -> Step {
    emit(RunEvent::SessionStarted { session_id: id.into() })
}

fn tool_call(id: &str, command: &str) -> Step {
    emit(RunEvent::ToolCallStarted { call_id: id.into(), name: "Bash".into(), input: json!({"command": command}) })
}

fn tool_result(id: &str, output: &str, is_error: bool) -> Step {
    emit(RunEvent::ToolResult { call_id: id.into(), output: output.into(), is_error })
}

fn message(text: &str) -> Step {
    emit(RunEvent::Message { text: text.into() })
}

fn usage(input: u64, output: u64, cost: f64) -> Step {
    emit(RunEvent::Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        cost_usd: Some(cost),
    })
}

fn ask(id: &str, command: &str) -> Step {
    Step::Ask {
        request_id: id.into(),
        tool: "Bash".into(),
        input: json!({"command": command}),
        description: command.into(),
        read_only: false,
    }
}

/// The recorded stdin line `index` (0-based), parsed.
fn stdin_line(name: &str, index: usize) -> Value {
    serde_json::from_str(fixture(name).lines().nth(index).expect("a stdin line")).unwrap()
}

fn sent(step: &Step) -> Value {
    match step {
        Step::Send(line) => serde_json::from_str(line).unwrap(),
        other => panic!("expected a Send, got {other:?}"),
    }
}

const EXIT_0: ExitInfo = ExitInfo { code: Some(0), signal: None };
const EXIT_1: ExitInfo = ExitInfo { code: Some(1), signal: None };

#[test]
fn the_opening_matches_what_the_recording_sent() {
    let mut p = DuplexProtocol::new("Create the file please", false);
    let opening: Vec<Value> = p.opening().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let init = stdin_line("duplex-tool-turn.stdin.jsonl", 0);
    assert_eq!(opening[0]["request"], init["request"]);
    assert_eq!(opening[0]["type"], "control_request");
    assert_eq!(opening[1], stdin_line("duplex-tool-turn.stdin.jsonl", 1));
}

#[test]
fn a_duplex_tool_turn_with_an_allowed_write() {
    let mut p = DuplexProtocol::new("Create the file please", false);
    let steps = replay(&mut p, "duplex-tool-turn.stdout.jsonl", true);
    let (id, call, cmd) =
        ("9b5eba43-f52c-4431-a8c7-50131ed9b5d9", "toolu_fake66e462310002", "touch created-by-tool.txt");
    assert_eq!(steps.len(), 8, "{steps:#?}");
    assert_eq!(steps[..3], [session("33e80732-e2ed-4691-8be4-2b8a0af7640d"), tool_call(call, cmd), ask(id, cmd)]);
    assert_eq!(sent(&steps[3]), stdin_line("duplex-tool-turn.stdin.jsonl", 2));
    assert_eq!(
        steps[4..],
        [
            tool_result(call, "(Bash completed with no output)", false),
            message("All done."),
            usage(26949, 11, 0.108016),
            Step::EndInput
        ]
    );
    assert_eq!(p.finish(EXIT_0, "").outcome, RunOutcome::Succeeded);
}

#[test]
fn a_duplex_turn_with_a_denied_write() {
    let mut p = DuplexProtocol::new("Create the file please", false);
    let steps = replay(&mut p, "duplex-deny.stdout.jsonl", false);
    let (id, call, cmd) =
        ("f361898d-b68d-4aa2-8398-26caeb3f5fa4", "toolu_fakec711c18c0002", "touch created-by-tool.txt");
    assert_eq!(steps.len(), 8, "{steps:#?}");
    assert_eq!(steps[..3], [session("e8d42419-41e0-49d5-90c0-14731c5a0aa3"), tool_call(call, cmd), ask(id, cmd)]);
    let mut recorded = stdin_line("duplex-deny.stdin.jsonl", 2);
    recorded["response"]["response"]["message"] = DENY_MESSAGE.into();
    assert_eq!(sent(&steps[3]), recorded);
    assert_eq!(
        steps[4..],
        [
            tool_result(call, "Denied by the test", true),
            message("All done."),
            usage(26946, 11, 0.108004),
            Step::EndInput
        ]
    );
    assert_eq!(p.finish(EXIT_0, "").outcome, RunOutcome::Succeeded);
}

#[test]
fn an_interrupted_turn_streams_deltas_once_and_reports_no_error() {
    let mut p = DuplexProtocol::new("Tell me a long story", false);
    let interrupt: Value = serde_json::from_str(&p.interrupt().unwrap()).unwrap();
    assert_eq!(interrupt["request"], stdin_line("duplex-interrupt.stdin.jsonl", 2)["request"]);
    let steps = replay(&mut p, "duplex-interrupt.stdout.jsonl", true);
    let delta = |t: &str| emit(RunEvent::TextDelta { text: t.into() });
    // Two turns were recorded in one process; each streams its three pieces and nothing twice.
    let first = [
        session("f36a6f5e-614d-4b2a-931a-fbbd7643a7b5"),
        delta("one t"),
        delta("wo th"),
        delta("ree f"),
        usage(0, 0, 0.053860000000000005),
        Step::EndInput,
    ];
    assert_eq!(steps[..6], first, "{steps:#?}");
    assert_eq!(steps[6..], [delta("\n\none t"), delta("wo th"), delta("ree f"), usage(0, 0, 0.107904), Step::EndInput]);
    let result = p.finish(EXIT_1, "");
    assert_eq!(result.outcome, RunOutcome::Failed); // the supervisor reports Cancelled instead
}

#[test]
fn one_shot_tool_and_resumed_turns_parse() {
    for (name, resuming, cmd, answer, cost) in [
        ("stream-json-tool-turn.jsonl", false, "echo hello-from-tool", "All done.", 0.098912),
        ("stream-json-resume-turn.jsonl", true, "echo hello-again", "Done again.", 0.19856),
    ] {
        let mut p = DuplexProtocol::new("x", resuming);
        let steps = replay(&mut p, name, true);
        let Step::Emit(RunEvent::ToolCallStarted { call_id, .. }) = &steps[1] else { panic!("{steps:#?}") };
        let call = call_id.clone();
        let Step::Emit(RunEvent::Usage { input_tokens, output_tokens, .. }) = steps[4] else { panic!("{steps:#?}") };
        assert_eq!(
            steps,
            [
                session("5cbbdac2-bf10-4cb9-8828-2106d31c3d96"),
                tool_call(&call, cmd),
                tool_result(&call, cmd.trim_start_matches("echo "), false),
                message(answer),
                usage(input_tokens, output_tokens, cost),
                Step::EndInput,
            ],
            "{name}"
        );
        assert_eq!(p.finish(EXIT_0, "").outcome, RunOutcome::Succeeded);
    }
}

#[test]
fn a_500_is_a_failure_despite_subtype_success() {
    let mut p = DuplexProtocol::new("Hello", false);
    let steps = replay(&mut p, "stream-json-500.jsonl", true);
    let error = "API Error: 500 fake overload. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:38751).";
    assert_eq!(
        steps,
        [
            session("2302d38c-3d0b-4d11-bf29-d27e8e00a686"),
            emit(RunEvent::Warning { message: "The model API failed (500); retrying (1/1).".into() }),
            emit(RunEvent::Usage {
                input_tokens: 0,
                output_tokens: 0,
                cache_read_tokens: 0,
                cache_write_tokens: 0,
                cost_usd: Some(0.0)
            }),
            emit(RunEvent::Error { message: error.into() }),
            Step::EndInput,
        ]
    );
    let result = p.finish(EXIT_1, "");
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert_eq!(result.message.as_deref(), Some(error));
    assert!(!result.session_missing);
}

#[test]
fn an_unknown_resumed_session_is_reported_missing() {
    // Recorded from `claude … --resume 11111111-2222-3333-4444-555555555555` (exit 1).
    let line = r#"{"type":"result","subtype":"error_during_execution","duration_ms":0,"is_error":true,"num_turns":0,"session_id":"11111111-2222-3333-4444-555555555555","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0},"errors":["No conversation found with session ID: 11111111-2222-3333-4444-555555555555"]}"#;
    let mut p = DuplexProtocol::new("hello", true);
    let mut steps = Vec::new();
    p.on_line(line, &mut steps);
    assert!(!steps.iter().any(|s| matches!(s, Step::Emit(RunEvent::SessionStarted { .. } | RunEvent::Error { .. }))));
    assert_eq!(steps.last(), Some(&Step::EndInput));
    let result = p.finish(EXIT_1, "No conversation found with session ID: 11111111-2222-3333-4444-555555555555");
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert!(result.session_missing);

    // Without a result line, stderr alone tells.
    let mut p = DuplexProtocol::new("hello", true);
    let result = p.finish(EXIT_1, "No conversation found with session ID: abc\n");
    assert!(result.session_missing);
    assert_eq!(
        result.message.as_deref(),
        Some("Claude Code stopped (exit code 1): No conversation found with session ID: abc")
    );
}

#[test]
fn bad_lines_become_warnings() {
    let mut p = DuplexProtocol::new("hello", false);
    for line in [
        "not json",
        r#"{"type":"assistant","message":{"content":[{"type":"te"#,
        r#"{"type":"mystery","x":1}"#,
        "[1,2]",
        r#"{"no_type":true}"#,
        r#"{"type":"assistant","message":{}}"#,
    ] {
        let mut out = Vec::new();
        p.on_line(line, &mut out);
        assert!(matches!(out.as_slice(), [Step::Emit(RunEvent::Warning { .. })]), "{line}: {out:?}");
    }
    // An unsupported control request is refused on stdin, so Claude does not wait for it.
    let mut out = Vec::new();
    p.on_line(r#"{"type":"control_request","request_id":"r9","request":{"subtype":"hook_callback"}}"#, &mut out);
    assert!(matches!(&out[0], Step::Emit(RunEvent::Warning { .. })));
    let refusal = sent(&out[1]);
    assert_eq!(refusal["response"]["subtype"], "error");
    assert_eq!(refusal["response"]["request_id"], "r9");
    // No result at all: the exit and stderr explain.
    let result = p.finish(ExitInfo { code: None, signal: Some(9) }, "");
    assert_eq!(result.message.as_deref(), Some("Claude Code stopped (signal 9) before finishing the turn."));
}

#[test]
fn read_only_tools() {
    for tool in ["Read", "Glob", "Grep", "LS", "TodoWrite"] {
        assert!(super::is_read_only(tool), "{tool}");
    }
    for tool in ["Bash", "Write", "Edit", "NotebookEdit", "Task", "mcp__x__y", "WebFetch", "WebSearch"] {
        assert!(!super::is_read_only(tool), "{tool}");
    }
}

/// A `can_use_tool` question for `tool` with `input`, as Claude Code asks it.
fn question(tool: &str, input: Value) -> String {
    json!({"type": "control_request", "request_id": "q-1", "request": {
        "subtype": "can_use_tool", "tool_name": tool, "input": input}})
    .to_string()
}

fn asked_read_only(p: &mut DuplexProtocol, tool: &str, input: Value) -> bool {
    let mut out = Vec::new();
    p.on_line(&question(tool, input), &mut out);
    match out.as_slice() {
        [Step::Ask { read_only, .. }] => *read_only,
        other => panic!("one question: {other:#?}"),
    }
}

#[test]
fn reads_count_as_read_only_only_inside_the_workspace() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("marker.txt");
    std::fs::write(&secret, "secret").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().to_path_buf();
    std::fs::write(ws.join("notes.md"), "hi").unwrap();
    let mut p = DuplexProtocol::new("x", false).confined_to(ws.clone());
    let inside = ws.join("notes.md").display().to_string();
    assert!(asked_read_only(&mut p, "Read", json!({"file_path": inside})));
    assert!(asked_read_only(&mut p, "Grep", json!({"pattern": "x", "path": "."})));
    assert!(asked_read_only(&mut p, "Glob", json!({"pattern": "**/*.md"})));
    assert!(!asked_read_only(&mut p, "Read", json!({"file_path": secret.display().to_string()})));
    assert!(!asked_read_only(&mut p, "Read", json!({"file_path": "../marker.txt"})));
    assert!(!asked_read_only(&mut p, "Read", json!({"file_path": ws.join(".clawboo/x").display().to_string()})));
    assert!(!asked_read_only(&mut p, "Grep", json!({"pattern": "x", "path": outside.path().display().to_string()})));
    assert!(!asked_read_only(&mut p, "Glob", json!({"pattern": "/etc/*"})));
    assert!(!asked_read_only(&mut p, "Glob", json!({"pattern": "../**/*"})));
    assert!(!asked_read_only(&mut p, "Read", json!({"file_path": 7})));
    assert!(!asked_read_only(&mut p, "WebFetch", json!({"url": "https://example.com"})));
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&secret, ws.join("link.txt")).unwrap();
        // Claude shows the link's own path, inside the workspace.
        assert!(!asked_read_only(&mut p, "Read", json!({"file_path": ws.join("link.txt").display().to_string()})));
    }
    // Not confined to a workspace: no path counts as inside.
    let mut unconfined = DuplexProtocol::new("x", false);
    assert!(!asked_read_only(&mut unconfined, "Read", json!({"file_path": inside})));
    assert!(asked_read_only(&mut unconfined, "TodoWrite", json!({"todos": []})));
}

#[test]
fn base_urls_lose_a_trailing_v1() {
    assert_eq!(super::base_url("https://api.anthropic.com/"), "https://api.anthropic.com");
    assert_eq!(super::base_url("http://127.0.0.1:9/v1"), "http://127.0.0.1:9");
}

/// Claude Code reports compaction as `system/compact_boundary`: the run's result says so, so
/// what was delivered into the session goes again with the next turn.
#[test]
fn a_compacted_session_is_reported_in_the_result() {
    let mut plain = DuplexProtocol::new("Create the file please", false);
    replay(&mut plain, "duplex-tool-turn.stdout.jsonl", true);
    assert!(!plain.finish(EXIT_0, "").compacted);
    let mut p = DuplexProtocol::new("Create the file please", false);
    let mut out = Vec::new();
    let boundary = json!({"type": "system", "subtype": "compact_boundary", "session_id": "s",
        "compact_metadata": {"trigger": "auto", "pre_tokens": 190_000}});
    p.on_line(&boundary.to_string(), &mut out);
    assert!(out.is_empty(), "nothing to show: {out:#?}");
    replay(&mut p, "duplex-tool-turn.stdout.jsonl", true);
    let result = p.finish(EXIT_0, "");
    assert_eq!((result.outcome, result.compacted), (RunOutcome::Succeeded, true));
}
