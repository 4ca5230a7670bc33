use serde_json::{json, Value};

use super::*;
use crate::runtimes::supervise::replay::{events, feed, sent};
use crate::runtimes::RunOutcome;

const TOOL_TURN: &str = include_str!("../../../../engine/tests/fixtures/hermes/acp-tool-turn.stdout.jsonl");
const TOOL_TURN_IN: &str = include_str!("../../../../engine/tests/fixtures/hermes/acp-tool-turn.stdin.jsonl");
const PERMISSION_TURN: &str = include_str!("../../../../engine/tests/fixtures/hermes/acp-permission-turn.stdout.jsonl");
const PERMISSION_TURN_IN: &str =
    include_str!("../../../../engine/tests/fixtures/hermes/acp-permission-turn.stdin.jsonl");
const SERVER_500: &str = include_str!("../../../../engine/tests/fixtures/hermes/acp-500.stdout.jsonl");

const OK: ExitInfo = ExitInfo { code: Some(0), signal: None };

fn protocol(resume: Option<&str>) -> AcpProtocol {
    AcpProtocol::new("/work/rec/hermes/work".into(), "Run echo hello-from-tool".into(), resume.map(str::to_owned))
}

/// The recorded stdin with the session's id left as the recording had it.
fn recorded_stdin(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap()
}

#[test]
fn the_tool_turn_becomes_the_exact_event_sequence() {
    let mut p = protocol(None);
    let opening: Vec<Value> = p.opening().iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let steps = feed(&mut p, TOOL_TURN);
    assert_eq!(
        events(&steps),
        vec![
            RunEvent::SessionStarted { session_id: "1b79275a-5efc-4644-a640-0d470dc5ea53".into() },
            RunEvent::ToolCallStarted {
                call_id: "tc-f3d5f03867d6".into(),
                name: "terminal".into(),
                input: json!({"title": "terminal: echo hello-from-tool", "content": "$ echo hello-from-tool"}),
            },
            RunEvent::ToolResult {
                call_id: "tc-f3d5f03867d6".into(),
                output: "terminal result\n- **output:** hello-from-tool\n- **exit_code:** 0".into(),
                is_error: false,
            },
            RunEvent::TextDelta { text: "\n\nAll done.".into() },
            RunEvent::Usage {
                input_tokens: 21494,
                output_tokens: 10,
                cache_read_tokens: 0,
                cache_write_tokens: 0,
                cost_usd: None,
            },
        ]
    );
    assert_eq!(steps.last(), Some(&Step::EndInput));
    // What we wrote is what the recording's driver wrote (bar the client's name).
    let mut ours = opening;
    ours.extend(sent(&steps));
    let recorded = recorded_stdin(TOOL_TURN_IN);
    assert_eq!(ours.len(), recorded.len());
    for (ours, recorded) in ours.iter().zip(&recorded) {
        assert_eq!(ours["method"], recorded["method"]);
        assert_eq!(ours["id"], recorded["id"]);
        if ours["method"] != "initialize" {
            assert_eq!(ours["params"], recorded["params"]);
        }
    }
    assert_eq!(p.finish(OK, ""), RunResult::succeeded());
}

#[test]
fn a_permission_question_is_asked_and_answered_with_the_offered_option() {
    let mut p = protocol(None);
    let steps = feed(&mut p, PERMISSION_TURN);
    let ask = steps.iter().find(|s| matches!(s, Step::Ask { .. })).expect("a question");
    assert_eq!(
        ask,
        &Step::Ask {
            request_id: "0".into(),
            tool: "execute".into(),
            input: json!({"command": "rm -rf scratch-dir", "description": "recursive delete"}),
            description: "recursive delete: rm -rf scratch-dir".into(),
            read_only: false,
        }
    );
    let mut out = Vec::new();
    p.on_permission("0", PermissionAnswer { allow: true }, &mut out);
    assert_eq!(sent(&out), vec![recorded_stdin(PERMISSION_TURN_IN)[3].clone()]);
    assert!(matches!(
        &events(&steps)[2],
        RunEvent::ToolResult { call_id, is_error: false, .. } if call_id == "tc-ed6261a6ac38"
    ));
    assert_eq!(p.finish(OK, ""), RunResult::succeeded());
}

#[test]
fn a_denial_picks_the_reject_once_option() {
    let mut p = protocol(None);
    feed(&mut p, PERMISSION_TURN);
    let mut out = Vec::new();
    p.on_permission("0", PermissionAnswer { allow: false }, &mut out);
    assert_eq!(
        sent(&out),
        vec![json!({"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "selected", "optionId": "deny"}}})]
    );
    // Answered once only.
    let mut again = Vec::new();
    p.on_permission("0", PermissionAnswer { allow: false }, &mut again);
    assert!(again.is_empty());
}

#[test]
fn a_server_error_fails_the_turn_with_hermes_message_although_it_says_end_turn() {
    let mut p = protocol(None);
    let steps = feed(&mut p, SERVER_500);
    let message = "API call failed after 3 retries: HTTP 500: fake overload";
    assert_eq!(
        events(&steps),
        vec![
            RunEvent::SessionStarted { session_id: "c37253c3-23f3-4029-a480-af5e39db97af".into() },
            RunEvent::TextDelta { text: message.into() },
            RunEvent::Error { message: message.into() },
        ]
    );
    assert_eq!(p.finish(OK, ""), RunResult::failed(message));
}

#[test]
fn resuming_loads_the_session_and_ignores_the_replayed_history() {
    let mut p = protocol(Some("s-1"));
    let mut out = Vec::new();
    p.on_line(first_line(TOOL_TURN), &mut out);
    assert_eq!(
        sent(&out),
        vec![json!({"jsonrpc": "2.0", "id": 2, "method": "session/load",
            "params": {"sessionId": "s-1", "cwd": "/work/rec/hermes/work", "mcpServers": []}})]
    );
    let replay = [
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"Run echo"}}}}"#,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"All done."}}}}"#,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"tool_call","toolCallId":"old","title":"terminal: x","kind":"execute"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"models":{},"modes":{"currentModeId":"default","availableModes":[]}}}"#,
    ];
    let steps = feed(&mut p, &replay.join("\n"));
    assert_eq!(events(&steps), vec![RunEvent::SessionStarted { session_id: "s-1".into() }]);
    let prompt = &sent(&steps)[0];
    assert_eq!(prompt["method"], "session/prompt");
    assert_eq!(prompt["params"]["sessionId"], "s-1");
    // Updates after the load are new.
    let steps = feed(
        &mut p,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"New"}}}}"#,
    );
    assert_eq!(events(&steps), vec![RunEvent::TextDelta { text: "New".into() }]);
}

#[test]
fn a_session_hermes_does_not_know_is_reported_missing() {
    let mut p = protocol(Some("gone"));
    let mut out = Vec::new();
    p.on_line(first_line(TOOL_TURN), &mut out);
    let steps = feed(&mut p, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
    assert_eq!(steps, vec![Step::EndInput]);
    let result = p.finish(OK, "");
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert!(result.session_missing);
}

#[test]
fn malformed_truncated_and_unknown_lines_are_warnings() {
    let mut p = protocol(None);
    let lines = [
        "not json at all",
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_mess"#,
        "[1,2,3]",
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"brand_new_kind"}}}"#,
        r#"{"jsonrpc":"2.0","method":"something/else","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{}}"#,
    ];
    for line in lines {
        let mut out = Vec::new();
        p.on_line(line, &mut out);
        assert!(matches!(out.as_slice(), [Step::Emit(RunEvent::Warning { .. })]), "{line} gave {out:?}");
    }
    // An unknown server request gets a JSON-RPC error back, so Hermes does not wait forever.
    let mut out = Vec::new();
    p.on_line(r#"{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{}}"#, &mut out);
    assert_eq!(sent(&out)[0]["error"]["code"], -32601);
}

#[test]
fn an_exit_before_the_answer_fails_with_the_stderr_tail() {
    let mut p = protocol(None);
    feed(&mut p, first_line(TOOL_TURN));
    let result = p.finish(ExitInfo { code: Some(1), signal: None }, "Traceback\nValueError: boom\n");
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert!(result.message.unwrap().contains("ValueError: boom"));
}

#[test]
fn a_json_rpc_error_fails_the_turn_with_its_message() {
    let mut p = protocol(None);
    let steps = feed(
        &mut p,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":"no provider"}}"#,
    );
    assert_eq!(events(&steps), vec![RunEvent::Error { message: "Internal error: no provider".into() }]);
    assert_eq!(p.finish(OK, ""), RunResult::failed("Hermes reported an error: Internal error: no provider"));
}

#[test]
fn cancel_sends_session_cancel_while_prompting() {
    let mut p = protocol(None);
    assert_eq!(p.interrupt(), None);
    let lines: Vec<&str> = TOOL_TURN.lines().take(2).collect();
    feed(&mut p, &lines.join("\n"));
    let cancel: Value = serde_json::from_str(&p.interrupt().unwrap()).unwrap();
    assert_eq!(
        cancel,
        json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "1b79275a-5efc-4644-a640-0d470dc5ea53"}})
    );
    let steps = feed(&mut p, r#"{"jsonrpc":"2.0","id":10,"result":{"stopReason":"cancelled"}}"#);
    assert_eq!(steps, vec![Step::EndInput]);
    assert_eq!(p.finish(OK, "").outcome, RunOutcome::Cancelled);
}

#[test]
fn a_changed_setup_forks_the_session_and_prompts_the_fork() {
    let mut p = protocol(Some("old-session")).forking(true);
    p.opening();
    let steps = feed(&mut p, r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}"#);
    let fork = &sent(&steps)[0];
    assert_eq!(fork["method"], "session/fork");
    assert_eq!(fork["params"]["sessionId"], "old-session");
    // As Hermes 0.19.0 answers: the new id, its models and modes; no history replay.
    let steps = feed(
        &mut p,
        r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"forked-session","models":{"currentModelId":"m"},"modes":null}}"#,
    );
    assert_eq!(events(&steps), vec![RunEvent::SessionStarted { session_id: "forked-session".into() }]);
    let prompt = &sent(&steps)[0];
    assert_eq!(prompt["method"], "session/prompt");
    assert_eq!(prompt["params"]["sessionId"], "forked-session");
}

#[test]
fn forking_a_session_hermes_no_longer_has_reports_it_missing() {
    let mut p = protocol(Some("gone")).forking(true);
    p.opening();
    feed(&mut p, r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}"#);
    let steps = feed(&mut p, r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"","models":null,"modes":null}}"#);
    assert_eq!(steps, vec![Step::EndInput]);
    assert!(p.finish(OK, "").session_missing);
}
