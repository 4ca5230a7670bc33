//! The OpenClaw adapter driving the real, pinned `openclaw` CLI (a Gateway per agent and an
//! `openclaw acp` bridge per turn) against the fake model server: a streamed tool turn, resume,
//! the persona from the workspace files, a Gateway lost between turns, and cancel (the bridge's
//! group gone, the Gateway kept, then gone with the runtime). Policies and errors are in
//! `openclaw_cli_policies` (two binaries, so their Gateways can start side by side). Skipped when
//! the CLI is not installed (see `common::cli`). A Gateway takes ~10–20 s to start and each
//! turn's bridge ~6 s, so tests run one at a time.
#![cfg(unix)]

mod common;
#[path = "common/openclaw_turn.rs"]
mod openclaw_turn;

use std::sync::Arc;
use std::time::{Duration, Instant};

use clawboo_engine::runtimes::process::{group_has_live_member, SystemSpawner};
use clawboo_engine::runtimes::{ApprovalPolicy, RunEvent, RunOutcome};
use clawboo_testkit::{Behavior, FakeModelServer};
use openclaw_turn::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_turn_then_a_resumed_turn_with_the_persona_once() {
    let Some(s) = setup() else { return };
    let _one = SERIAL.lock().await;
    let server = FakeModelServer::start(Behavior::tool_then_answer(
        "*",
        json!({"command": "echo hello-from-tool"}),
        "All done.",
    ))
    .await;
    // Its Gateway is stopped once no turn has used it for 5 s (10 minutes in the app).
    let idle = Duration::from_secs(5);
    let rt = runtime_stopping_idle_after(&server, Arc::new(SystemSpawner), &s.node_dir, idle);

    let clock = Instant::now();
    let (result, events) =
        start(&rt, input(&s, "Run echo hello-from-tool", ApprovalPolicy::AllowAll, None)).finish().await;
    let result = result.unwrap();
    eprintln!("first turn (Gateway start included): {:?}", clock.elapsed());
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:?}");
    let gateway = rt.gateway_pid(&openclaw_home(&s)).expect("a Gateway runs between turns");
    let call_id = events
        .iter()
        .find_map(|e| match e {
            RunEvent::ToolCallStarted { call_id, name, input } if name == "exec" => {
                assert_eq!(input["command"], "echo hello-from-tool");
                Some(call_id.clone())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("a tool call in {events:?}"));
    assert!(
        events.iter().any(|e| matches!(e, RunEvent::ToolResult { call_id: c, output, is_error: false }
        if *c == call_id && output.contains("hello-from-tool"))),
        "{events:?}"
    );
    assert_eq!(streamed(&events), "All done.", "the reply is streamed: {events:?}");
    assert!(events.iter().any(|e| matches!(e, RunEvent::Usage { input_tokens, .. } if *input_tokens > 0)));
    let session = session_of(&events);
    let first_requests = server.model_requests().len();
    assert!(first_requests >= 2);
    // OpenClaw's tools for its own apps, scheduling, sessions and media are not offered; its
    // work tools are.
    let first = &server.model_requests()[0];
    let offered: Vec<&str> =
        first.body["tools"].as_array().unwrap().iter().filter_map(|t| t["function"]["name"].as_str()).collect();
    eprintln!("the first request: {} bytes, {} tools: {offered:?}", first.raw_body.len(), offered.len());
    for kept in ["exec", "read", "write"] {
        assert!(offered.contains(&kept), "{kept} is offered: {offered:?}");
    }
    for left_out in ["browser", "canvas", "cron", "gateway", "message", "nodes", "sessions_spawn", "image_generate"] {
        assert!(!offered.contains(&left_out), "{left_out} is not offered: {offered:?}");
    }

    // The Gateway dies (as if killed by the user): the next turn starts another one, and the
    // session, kept in OpenClaw's database, goes on there.
    kill_group(gateway);
    assert!(gone_soon(gateway).await);

    // A second turn in the same session carries the first exchange.
    let clock = Instant::now();
    let (result, events) =
        start(&rt, input(&s, "Do it again", ApprovalPolicy::AllowAll, Some(session.clone()))).finish().await;
    eprintln!("resumed turn (Gateway restart included): {:?}", clock.elapsed());
    let result = result.unwrap();
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:?}");
    assert_eq!(session_of(&events), session, "the same session goes on");
    let restarted = rt.gateway_pid(&openclaw_home(&s)).expect("a Gateway");
    assert_ne!(restarted, gateway, "a dead Gateway is replaced");

    // A third turn reuses the running Gateway.
    let clock = Instant::now();
    let (result, events) =
        start(&rt, input(&s, "Once more", ApprovalPolicy::AllowAll, Some(session.clone()))).finish().await;
    eprintln!("third turn (Gateway reused): {:?}", clock.elapsed());
    assert_eq!(result.unwrap().outcome, RunOutcome::Succeeded, "{events:?}");
    assert_eq!(rt.gateway_pid(&openclaw_home(&s)), Some(restarted), "the Gateway is reused");
    assert_eq!(events.iter().filter(|e| matches!(e, RunEvent::ToolCallStarted { .. })).count(), 1, "{events:?}");
    let requests = server.model_requests();
    let resumed = &requests[first_requests];
    assert!(resumed.raw_body.contains("Do it again"));
    assert!(resumed.raw_body.contains("Run echo hello-from-tool"), "the first question is replayed");
    assert!(resumed.raw_body.contains("All done."), "the first answer is replayed");

    // The persona files reach every request once, in the system prompt, never in the history.
    for request in &requests {
        assert_eq!(request.raw_body.matches("SOUL-MARKER-0c1a4f").count(), 1, "SOUL.md once per request");
        assert_eq!(request.raw_body.matches("AGENTS-MARKER-77d2e1").count(), 1, "AGENTS.md once per request");
        let system = &request.body["messages"][0];
        assert_eq!(system["role"], "system");
        assert!(system.to_string().contains("SOUL-MARKER-0c1a4f"));
    }
    assert!(!s.workspace.join("BOOTSTRAP.md").exists(), "OpenClaw does not seed the agent's folder");

    // Unused since, the Gateway (and its spawn broker) is stopped: its memory is given back. The
    // next turn would start another, as after the kill above.
    let held = group_pss_kib(restarted) / 1024;
    let brokers = detached_child_groups(restarted);
    let ended = Instant::now();
    let stopped = async {
        while group_has_live_member(restarted) || brokers.iter().any(|g| group_has_live_member(*g)) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(idle * 6, stopped).await.expect("the idle Gateway is stopped");
    assert_eq!(rt.gateway_pid(&openclaw_home(&s)), None, "no Gateway is left for the home");
    eprintln!("figures: the Gateway held {held} MiB (PSS) at rest; stopped {:?} after its last turn", ended.elapsed());
}

#[tokio::test(flavor = "multi_thread")]
async fn cancel_stops_the_bridge_and_dropping_the_runtime_stops_the_gateway() {
    let Some(s) = setup() else { return };
    let _one = SERIAL.lock().await;
    let server = FakeModelServer::start(Behavior::slow(
        "one two three four five six seven eight nine ten",
        10,
        Duration::from_secs(2),
    ))
    .await;
    let spawner = RecordingSpawner::default();
    let rt = runtime(&server, Arc::new(spawner.clone()), &s.node_dir);
    let mut started = start(&rt, input(&s, "Count slowly", ApprovalPolicy::AllowAll, None));
    // Cancel once the reply has begun to stream.
    let deadline = Instant::now() + LIMIT;
    let mut seen = Vec::new();
    while !seen.iter().any(|e| matches!(e, RunEvent::TextDelta { .. })) {
        assert!(Instant::now() < deadline, "nothing streamed: {seen:?}");
        if let Ok(Some(event)) = tokio::time::timeout(Duration::from_millis(200), started.events.recv()).await {
            seen.push(event);
        }
    }
    let bridges = spawner.pids("acp");
    assert_eq!(bridges.len(), 1);
    // The bridge's Node runs in the group Clawboo ends: OpenClaw gets the Node flag it wants
    // from NODE_OPTIONS, so it does not start itself again in a group of its own.
    assert_eq!(descendant_groups_elsewhere(bridges[0]), Vec::<u32>::new(), "the bridge left its group");
    started.cancel.send(true).unwrap();
    let clock = Instant::now();
    let (result, _events) = started.finish().await;
    eprintln!("cancel took {:?}", clock.elapsed());
    assert_eq!(result.unwrap().outcome, RunOutcome::Cancelled);
    assert!(!group_has_live_member(bridges[0]), "no process of the bridge's group survives a cancel");
    let gateways = spawner.pids("gateway");
    assert_eq!(gateways.len(), 1);
    let gateway = gateways[0];
    assert!(group_has_live_member(gateway), "the Gateway stays up for the next turn");
    let detached = detached_child_groups(gateway);

    drop(rt);
    assert!(gone_soon(gateway).await, "the Gateway's group is gone with the runtime");
    for group in detached {
        assert!(gone_soon(group).await, "the Gateway's spawn broker ({group}) is gone too");
    }
}
