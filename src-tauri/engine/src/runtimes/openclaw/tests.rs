//! The protocol against the recorded output of the pinned OpenClaw (tests/fixtures/openclaw).

use serde_json::json;

use super::config::{self, Layout};
use super::protocol::EnvelopeProtocol;
use super::transcript::message_events;
use crate::runtimes::process::ExitInfo;
use crate::runtimes::supervise::{Step, StreamProtocol};
use crate::runtimes::{ApprovalPolicy, RunEvent, RunOutcome};
use crate::secrets::Provider;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/openclaw");
const OK: ExitInfo = ExitInfo { code: Some(0), signal: None };
const FAILED: ExitInfo = ExitInfo { code: Some(1), signal: None };

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}")).unwrap()
}

/// Feeds `text` line by line, as the supervisor does (blank lines skipped), and returns the events.
fn feed(protocol: &mut EnvelopeProtocol, text: &str) -> Vec<RunEvent> {
    let mut steps = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        protocol.on_line(line, &mut steps);
    }
    steps
        .into_iter()
        .map(|s| match s {
            Step::Emit(event) => event,
            other => panic!("unexpected step {other:?}"),
        })
        .collect()
}

fn usage(input: u64, output: u64) -> RunEvent {
    RunEvent::Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        cost_usd: Some(0.0),
    }
}

#[test]
fn the_tool_turn_envelope_becomes_the_reply_and_usage() {
    let mut protocol = EnvelopeProtocol::new("clawboo-rec-1", None);
    let events = feed(&mut protocol, &fixture("agent-local-tool-turn.json"));
    assert_eq!(events, vec![RunEvent::Message { text: "All done.".into() }, usage(29755, 10)]);
    assert_eq!(protocol.finish(OK, "").outcome, RunOutcome::Succeeded);
}

#[test]
fn the_resumed_turn_envelope_and_a_changed_session_id() {
    let mut protocol = EnvelopeProtocol::new("clawboo-rec-1", None);
    let events = feed(&mut protocol, &fixture("agent-local-resume-turn.json"));
    assert_eq!(events, vec![RunEvent::Message { text: "Done again.".into() }, usage(29939, 9)]);
    assert_eq!(protocol.finish(OK, "").outcome, RunOutcome::Succeeded);

    // OpenClaw reporting another session than the one asked for: the new one is stored.
    let mut protocol = EnvelopeProtocol::new("asked-for", None);
    let events = feed(&mut protocol, &fixture("agent-local-resume-turn.json"));
    assert_eq!(events[0], RunEvent::SessionStarted { session_id: "clawboo-rec-1".into() });
}

#[test]
fn a_500_fails_with_openclaws_message() {
    let message = "⚠️ fake/some-model request failed (provider internal error, HTTP 500). This is usually temporary — try again shortly.";
    let mut protocol = EnvelopeProtocol::new("clawboo-rec-2", None);
    let events = feed(&mut protocol, &fixture("agent-local-500.json"));
    assert_eq!(events, vec![RunEvent::Error { message: message.into() }]);
    let result = protocol.finish(FAILED, &fixture("agent-local-500.stderr.txt"));
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert_eq!(result.message.as_deref(), Some(message));

    // Without an envelope the reason on stderr is the message.
    let mut protocol = EnvelopeProtocol::new("s", None);
    let result = protocol.finish(FAILED, &fixture("agent-local-500.stderr.txt"));
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert!(result.message.unwrap().ends_with(message));
}

#[test]
fn malformed_truncated_and_unknown_output_becomes_warnings() {
    let mut protocol = EnvelopeProtocol::new("s", None);
    let events = feed(&mut protocol, "plain text\n{\"a\": tru\n}\n{\"something\": 1}\n");
    // The stray text, the broken object (one warning once it closes), the unknown object.
    assert_eq!(events.len(), 3, "{events:?}");
    assert!(events.iter().all(|e| matches!(e, RunEvent::Warning { .. })), "{events:?}");
    // Still usable after the noise.
    let events = feed(&mut protocol, &fixture("agent-local-tool-turn.json"));
    assert!(events.contains(&RunEvent::Message { text: "All done.".into() }), "{events:?}");

    let mut protocol = EnvelopeProtocol::new("s", None);
    let whole = fixture("agent-local-tool-turn.json");
    let cut = &whole[..whole[..whole.len() / 2].rfind('\n').unwrap()]; // whole lines, as a killed CLI leaves them
    assert!(feed(&mut protocol, cut).is_empty());
    let result = protocol.finish(ExitInfo { code: None, signal: Some(9) }, "");
    assert_eq!(result.outcome, RunOutcome::Failed);
    assert!(result.message.unwrap().contains("cut off"));

    let mut protocol = EnvelopeProtocol::new("s", None);
    let result = protocol.finish(OK, "");
    assert_eq!(result.outcome, RunOutcome::Failed, "an exit without an envelope is not a success");
}

#[test]
fn transcript_messages_of_the_run_become_tool_events() {
    let call = json!({"type": "message", "message": {"role": "assistant", "__openclaw": {"runId": "r1"},
        "content": [{"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "ls"}}]}});
    let result = json!({"type": "message", "message": {"role": "toolResult", "__openclaw": {"runId": "r1"},
        "toolCallId": "c1", "toolName": "exec", "content": [{"type": "text", "text": "a.txt"}], "isError": false}});
    assert_eq!(
        message_events(&call, "r1"),
        vec![RunEvent::ToolCallStarted { call_id: "c1".into(), name: "exec".into(), input: json!({"command": "ls"}) }]
    );
    assert_eq!(
        message_events(&result, "r1"),
        vec![RunEvent::ToolResult { call_id: "c1".into(), output: "a.txt".into(), is_error: false }]
    );
    assert!(message_events(&call, "another run").is_empty());
    assert!(message_events(&json!({"type": "custom"}), "r1").is_empty());
}

#[test]
fn the_config_names_the_provider_model_and_policy() {
    let layout = Layout::new(std::path::Path::new("/agent/.clawboo/openclaw"));
    let cwd = std::path::Path::new("/agent");
    let config =
        config::openclaw_json(&layout, Provider::Custom, "http://127.0.0.1:1/v1", "m1", cwd, ApprovalPolicy::AllowAll);
    let provider = &config["models"]["providers"]["clawboo"];
    assert_eq!(provider["api"], "openai-completions");
    assert_eq!(provider["apiKey"], "${CLAWBOO_MODEL_API_KEY}");
    assert_eq!(provider["models"][0]["id"], "m1");
    assert_eq!(config["agents"]["defaults"]["model"]["primary"], "clawboo/m1");
    assert_eq!(config["agents"]["defaults"]["cwd"], "/agent");
    assert_eq!(config["logging"]["file"], "/agent/.clawboo/openclaw/logs/openclaw.log");
    assert_eq!(config["update"]["checkOnStart"], false);
    assert_eq!(config["tools"]["exec"]["mode"], "full");
    let read_only =
        config::openclaw_json(&layout, Provider::Anthropic, "https://x", "m1", cwd, ApprovalPolicy::ReadOnly);
    assert_eq!(read_only["models"]["providers"]["clawboo"]["api"], "anthropic-messages");
    assert_eq!(read_only["tools"]["exec"]["mode"], "allowlist");
    assert_eq!(read_only["tools"]["deny"], json!(["write", "edit", "apply_patch"]));
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
