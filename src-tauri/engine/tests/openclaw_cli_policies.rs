//! The OpenClaw adapter with the real, pinned `openclaw` CLI against the fake model server:
//! the ask and read-only policies (a policy change restarts the Gateway), a server error, a
//! vanished session and a too-old Node. Turns, resume and cancel are in `openclaw_cli`. Skipped
//! when the CLI is not installed (see `common::cli`). A Gateway takes ~10–20 s to start and
//! each turn's bridge ~6 s, so tests run one at a time.
#![cfg(unix)]

mod common;
#[path = "common/openclaw_turn.rs"]
mod openclaw_turn;

use std::sync::Arc;
use std::time::Instant;

use clawboo_engine::runtimes::process::SystemSpawner;
use clawboo_engine::runtimes::{ApprovalPolicy, PermissionAnswer, RunEvent, RunOutcome};
use clawboo_testkit::{Behavior, FakeModelServer};
use openclaw_turn::*;
use serde_json::json;

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
