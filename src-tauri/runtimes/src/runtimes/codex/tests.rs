//! The protocol against the recorded fixtures (`tests/fixtures/codex/app-server-*`), real
//! failure output, and malformed input.

use serde_json::{json, Value};

use super::protocol::{AppServerProtocol, ThreadSetup};
use crate::runtimes::process::ExitInfo;
use crate::runtimes::supervise::replay::feed;
use crate::runtimes::supervise::{Step, StreamProtocol};
use crate::runtimes::{PermissionAnswer, RunEvent, RunOutcome};

const TOOL_TURN: &str = include_str!("../../../../engine/tests/fixtures/codex/app-server-tool-turn.stdout.jsonl");
const TOOL_TURN_STDIN: &str = include_str!("../../../../engine/tests/fixtures/codex/app-server-tool-turn.stdin.jsonl");
const THREAD: &str = "01a23698-2a4f-7360-aa84-e3fe795743f6";
const EXIT_OK: ExitInfo = ExitInfo { code: Some(0), signal: None };

fn protocol(resume: Option<&str>) -> AppServerProtocol {
    protocol_in("/work/rec/codex/work", resume)
}

fn protocol_in(cwd: &str, resume: Option<&str>) -> AppServerProtocol {
    let setup = ThreadSetup {
        cwd: cwd.into(),
        model: "gpt-5.5".into(),
        approval_policy: "untrusted",
        sandbox: Some("workspace-write"),
        developer_instructions: Some("You are a test agent.".into()),
        config: None,
    };
    AppServerProtocol::new(setup, resume.map(str::to_owned), "Create the file please".into())
}

fn sent(step: &Step) -> Value {
    match step {
        Step::Send(line) => serde_json::from_str(line).unwrap(),
        other => panic!("expected a Send, got {other:?}"),
    }
}

#[test]
fn the_recorded_tool_turn_becomes_the_exact_event_sequence() {
    let mut p = protocol(None);
    let opening: Vec<Value> = p.opening().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(opening[0]["method"], "initialize");
    let steps = feed(&mut p, TOOL_TURN);

    assert_eq!(sent(&steps[0]), json!({"method": "initialized"}));
    let start = sent(&steps[1]);
    assert_eq!(start["method"], "thread/start");
    assert_eq!(start["params"]["developerInstructions"], "You are a test agent.");
    assert_eq!(start["params"]["approvalPolicy"], "untrusted");
    assert_eq!(steps[2], Step::Emit(RunEvent::SessionStarted { session_id: THREAD.into() }));
    let turn = sent(&steps[3]);
    assert_eq!(turn["method"], "turn/start");
    assert_eq!(turn["params"]["threadId"], THREAD);
    assert_eq!(turn["params"]["input"], json!([{"type": "text", "text": "Create the file please"}]));

    let command = "/bin/bash -lc 'touch created-by-tool.txt'";
    let call_id = "call_fake9d08932d0003";
    let usage = |input_tokens, output_tokens| {
        Step::Emit(RunEvent::Usage {
            input_tokens,
            output_tokens,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            cost_usd: None,
        })
    };
    let expected = [
        Step::Emit(RunEvent::ToolCallStarted {
            call_id: call_id.into(),
            name: "shell".into(),
            input: json!({"command": command, "cwd": "/work/rec/codex/work"}),
        }),
        Step::Ask {
            request_id: "0".into(),
            tool: "shell".into(),
            input: json!({"command": command, "cwd": "/work/rec/codex/work", "reason": null}),
            description: format!("Run {command}"),
            read_only: false,
        },
        Step::Emit(RunEvent::ToolResult { call_id: call_id.into(), output: String::new(), is_error: false }),
        usage(9688, 8),
        Step::Emit(RunEvent::TextDelta { text: "All done.".into() }),
        usage(9792, 2),
        // The first turn/completed ends the turn; the recording's second turn is ignored.
        Step::EndInput,
    ];
    assert_eq!(steps[4..], expected[..]);

    // The approval is answered as the recording's stdin answered it.
    let mut out = Vec::new();
    p.on_permission("0", PermissionAnswer { allow: true }, &mut out);
    let recorded: Value = serde_json::from_str(TOOL_TURN_STDIN.lines().nth(4).unwrap()).unwrap();
    assert_eq!(sent(&out[0]), recorded);
    let mut out = Vec::new();
    p.on_permission("0", PermissionAnswer { allow: false }, &mut out);
    assert!(out.is_empty(), "a question is answered once");

    assert_eq!(p.finish(EXIT_OK, "").outcome, RunOutcome::Succeeded);
}

#[test]
fn interrupt_names_the_running_turn() {
    let mut p = protocol(None);
    assert_eq!(p.interrupt(), None, "no turn yet: the supervisor signals instead");
    let upto_turn: String = TOOL_TURN.lines().take(7).map(|l| format!("{l}\n")).collect();
    feed(&mut p, &upto_turn);
    let interrupt: Value = serde_json::from_str(&p.interrupt().unwrap()).unwrap();
    assert_eq!(interrupt["method"], "turn/interrupt");
    assert_eq!(interrupt["params"], json!({"threadId": THREAD, "turnId": "01a23698-2a63-7d61-818c-a54c48c41163"}));
}

/// codex 0.171.0 app-server against a model endpoint answering HTTP 500 (one retry).
const FAILED_TURN: &str = include_str!("../../../../engine/tests/fixtures/codex/app-server-500.stdout.jsonl");

#[test]
fn a_failed_turn_fails_with_codexs_message() {
    let mut p = protocol(None);
    let steps = feed(&mut p, FAILED_TURN);
    let busy = "We’re currently experiencing high demand, which may cause temporary errors.";
    assert_eq!(sent(&steps[0]), json!({"method": "initialized"}));
    assert_eq!(sent(&steps[1])["method"], "thread/start");
    assert_eq!(
        steps[2],
        Step::Emit(RunEvent::SessionStarted { session_id: "01a236a4-9c54-75e0-917e-8fe846293b21".into() })
    );
    assert_eq!(sent(&steps[3])["method"], "turn/start");
    let expected = [
        Step::Emit(RunEvent::Warning { message: format!("Reconnecting... 1/1 ({busy})") }),
        Step::Emit(RunEvent::Error { message: busy.into() }),
        Step::EndInput,
    ];
    assert_eq!(steps[4..], expected[..]);
    let result = p.finish(EXIT_OK, "");
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert_eq!(result.message.as_deref(), Some(busy));
    assert!(!result.session_missing);
}

#[test]
fn resuming_an_unknown_thread_reports_the_session_missing() {
    let mut p = protocol(Some("01a23698-2a4f-7360-aa84-e3fe795743f9"));
    let steps = feed(&mut p, r#"{"id":1,"result":{}}"#);
    let resume = sent(&steps[1]);
    assert_eq!(resume["method"], "thread/resume");
    assert_eq!(resume["params"]["threadId"], "01a23698-2a4f-7360-aa84-e3fe795743f9");
    assert_eq!(resume["params"]["developerInstructions"], "You are a test agent.");
    // Recorded from codex 0.171.0.
    let steps = feed(
        &mut p,
        r#"{"error":{"code":-32600,"message":"no rollout found for thread id 01a23698-2a4f-7360-aa84-e3fe795743f9"},"id":2}"#,
    );
    assert_eq!(steps.last(), Some(&Step::EndInput));
    let result = p.finish(EXIT_OK, "");
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert!(result.session_missing);
    assert!(result.message.unwrap().contains("no rollout found"));
}

#[test]
fn a_process_that_dies_mid_turn_fails_with_stderr() {
    let mut p = protocol(None);
    feed(&mut p, r#"{"id":1,"result":{}}"#);
    let stderr = "starting\n\u{1b}[2m2026-12-02\u{1b}[0m \u{1b}[31mERROR\u{1b}[0m config.toml is broken\n\n";
    let result = p.finish(ExitInfo { code: Some(1), signal: None }, stderr);
    assert_eq!(result.outcome, RunOutcome::Failed);
    let message = result.message.unwrap();
    assert!(message.ends_with("(exit code 1): 2026-12-02 ERROR config.toml is broken"), "{message}");
}

#[test]
fn malformed_truncated_and_unknown_lines_become_warnings() {
    let mut p = protocol(None);
    for line in [
        "not json at all",
        r#"{"method":"item/agentMessage/delta","params":{"del"#,
        "[1,2,3]",
        r#"{"something":"else"}"#,
        r#"{"method":"brand/new/notification","params":{}}"#,
    ] {
        let mut out = Vec::new();
        p.on_line(line, &mut out);
        assert!(matches!(&out[..], [Step::Emit(RunEvent::Warning { .. })]), "{line} gave {out:?}");
    }
    // An unknown server request is refused so Codex does not wait for it.
    let mut out = Vec::new();
    p.on_line(r#"{"id":7,"method":"item/tool/requestUserInput","params":{}}"#, &mut out);
    assert!(matches!(&out[0], Step::Emit(RunEvent::Warning { .. })));
    assert_eq!(sent(&out[1])["error"]["code"], -32601);
    assert_eq!(sent(&out[1])["id"], 7);
}

#[test]
fn messages_without_deltas_and_reads_are_handled() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = protocol_in(&dir.path().display().to_string(), None);
    let lines = r#"{"method":"item/completed","params":{"item":{"type":"agentMessage","id":"m1","text":"First."}}}
{"method":"item/agentMessage/delta","params":{"itemId":"m2","delta":"Second"}}
{"method":"item/completed","params":{"item":{"type":"reasoning","id":"r1","summary":["Thinking it over"],"content":[]}}}
{"id":"a","method":"item/commandExecution/requestApproval","params":{"command":"cat x","commandActions":[{"type":"read","command":"cat x","name":"x","path":"x"}]}}"#;
    let steps = feed(&mut p, lines);
    assert_eq!(steps[0], Step::Emit(RunEvent::TextDelta { text: "First.".into() }));
    assert_eq!(steps[1], Step::Emit(RunEvent::TextDelta { text: "\n\nSecond".into() }));
    assert_eq!(steps[2], Step::Emit(RunEvent::Thinking { text: "Thinking it over".into() }));
    assert!(matches!(&steps[3], Step::Ask { request_id, read_only: true, .. } if request_id == "a"));
    let mut out = Vec::new();
    p.on_permission("a", PermissionAnswer { allow: false }, &mut out);
    assert_eq!(sent(&out[0]), json!({"id": "a", "result": {"decision": "decline"}}));
}

#[test]
fn a_fresh_thread_takes_the_carried_conversation_before_its_turn() {
    let carried = vec![crate::runtimes::TranscriptTurn::new("Earlier question", "Earlier answer")];
    let mut p = protocol(None).carrying(carried.into());
    p.opening();
    let init = r#"{"id":1,"result":{"userAgent":"codex"}}"#;
    let thread = format!(r#"{{"id":2,"result":{{"thread":{{"id":"{THREAD}"}}}}}}"#);
    let steps = feed(&mut p, &format!("{init}\n{thread}"));
    let inject = sent(steps.last().unwrap());
    assert_eq!(inject["method"], "thread/inject_items");
    assert_eq!(
        inject["params"],
        json!({"threadId": THREAD, "items": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Earlier question"}]},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Earlier answer"}]},
        ]})
    );
    assert!(
        !steps.iter().any(|s| matches!(s, Step::Emit(RunEvent::SessionStarted { .. }))),
        "the thread is the session only once it holds the conversation"
    );
    let steps = feed(&mut p, r#"{"id":4,"result":{}}"#);
    assert_eq!(steps[0], Step::Emit(RunEvent::SessionStarted { session_id: THREAD.into() }));
    assert_eq!(sent(&steps[1])["method"], "turn/start");
}

#[test]
fn a_refused_injection_fails_the_turn_before_it_starts() {
    let carried = vec![crate::runtimes::TranscriptTurn::new("q", "a")];
    let mut p = protocol(None).carrying(carried.into());
    p.opening();
    let thread = format!(r#"{{"id":2,"result":{{"thread":{{"id":"{THREAD}"}}}}}}"#);
    feed(&mut p, &format!("{{\"id\":1,\"result\":{{}}}}\n{thread}"));
    let steps = feed(&mut p, r#"{"id":4,"error":{"code":-32600,"message":"unknown method"}}"#);
    assert_eq!(steps.last(), Some(&Step::EndInput));
    let result = p.finish(EXIT_OK, "");
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert_eq!(result.message.as_deref(), Some("Codex did not take the earlier conversation: unknown method"));
}

#[test]
fn a_resumed_thread_ignores_carried_messages() {
    let carried = vec![crate::runtimes::TranscriptTurn::new("q", "a")];
    let mut p = protocol(Some(THREAD)).carrying(carried.into());
    p.opening();
    let thread = format!(r#"{{"id":2,"result":{{"thread":{{"id":"{THREAD}"}}}}}}"#);
    let steps = feed(&mut p, &format!("{{\"id\":1,\"result\":{{}}}}\n{thread}"));
    assert_eq!(sent(steps.last().unwrap())["method"], "turn/start");
}

#[test]
fn reads_outside_the_workspace_are_not_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let ws_text = ws.display().to_string();
    let mut p = protocol_in(&ws_text, None);
    let ask = |path: &str, cwd: &str| {
        json!({"id": "q", "method": "item/commandExecution/requestApproval", "params": {
            "command": format!("cat {path}"), "cwd": cwd,
            "commandActions": [{"type": "read", "command": format!("cat {path}"), "name": path, "path": path}]}})
        .to_string()
    };
    let read_only = |p: &mut AppServerProtocol, line: String| match feed(p, &line).as_slice() {
        [Step::Ask { read_only, .. }] => *read_only,
        other => panic!("{other:#?}"),
    };
    assert!(read_only(&mut p, ask("notes.md", &ws_text)));
    assert!(!read_only(&mut p, ask("/etc/hostname", &ws_text)));
    assert!(!read_only(&mut p, ask("../secret.txt", &ws_text)));
    assert!(!read_only(&mut p, ask("notes.md", &dir.path().display().to_string())), "a folder outside");
    assert!(!read_only(&mut p, ask(".clawboo/codex/auth.json", &ws_text)));
}

#[test]
fn the_threads_config_goes_with_start_and_resume_alike() {
    let config =
        json!({"mcp_servers": {"clawboo": {"url": "http://127.0.0.1:9/mcp", "bearer_token_env_var": "CLAWBOO_TOKEN"}}});
    for resume in [None, Some(THREAD)] {
        let setup = ThreadSetup {
            cwd: "/w".into(),
            model: "gpt-5.5".into(),
            approval_policy: "untrusted",
            sandbox: None,
            developer_instructions: None,
            config: Some(config.clone()),
        };
        let mut p = AppServerProtocol::new(setup, resume.map(str::to_owned), "hi".into());
        p.opening();
        let steps = feed(&mut p, r#"{"id":1,"result":{}}"#);
        let thread = sent(&steps[1]);
        assert_eq!(thread["params"]["config"], config, "{thread}");
    }
    // Without tools, no config override at all.
    let mut p = protocol(None);
    p.opening();
    let steps = feed(&mut p, r#"{"id":1,"result":{}}"#);
    assert!(sent(&steps[1])["params"].get("config").is_none());
}

/// Codex reports compaction as `thread/compacted` (and a `contextCompaction` item): the run's
/// result says so, whatever else the turn did, so what was delivered into the thread goes again.
#[test]
fn a_compacted_thread_is_reported_in_the_result() {
    let mut plain = protocol(None);
    feed(&mut plain, TOOL_TURN);
    assert!(!plain.finish(EXIT_OK, "").compacted);
    for line in [
        json!({"method": "thread/compacted", "params": {"threadId": THREAD, "turnId": "t"}}),
        json!({"method": "item/completed", "params": {"item": {"type": "contextCompaction", "id": "c1"}}}),
    ] {
        let mut lines: Vec<String> = TOOL_TURN.lines().map(str::to_owned).collect();
        lines.insert(8, line.to_string());
        let mut p = protocol(None);
        let steps = feed(&mut p, &(lines.join("\n") + "\n"));
        assert!(!steps.iter().any(|s| matches!(s, Step::Emit(RunEvent::Warning { .. }))), "{steps:#?}");
        let result = p.finish(EXIT_OK, "");
        assert_eq!((result.outcome, result.compacted), (RunOutcome::Succeeded, true), "{line}");
    }
}
