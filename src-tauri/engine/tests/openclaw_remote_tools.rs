//! Clawboo's tools for a team member on "another machine's" OpenClaw Gateway, with the real,
//! pinned `openclaw` CLI on the two-namespace rig (`common::gateway_rig`): the whole engine runs
//! in the user's namespace, with the remote member as the team's leader and a Native teammate
//! here. Once the Gateway's owner approved this computer (once), Clawboo pairs its node itself;
//! the remote member saves a memory and hands work to the local teammate through Clawboo's
//! tools, both seen in Clawboo's store, and the teammate's answer comes back to it. A call
//! forged on the Gateway for another session, while the member's turn runs, is refused and
//! changes nothing. Figures are printed.
//!
//! Needs root (to make namespaces) and `ip`; skipped with the reason otherwise, and when the CLI
//! is not installed (see `common::cli`). Run under `scripts/with-test-keyring` (the Gateway's
//! token is saved as the app saves it).
#![cfg(target_os = "linux")]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use clawboo_engine::agents::{NewAgent, OpenclawGatewayInput, RuntimeKind};
use clawboo_engine::chat::team::RoomMessage;
use clawboo_engine::chat::{RunStatus, RunSummary};
use clawboo_engine::memory::FactFilter;
use clawboo_engine::runtimes::openclaw::OpenclawRuntime;
use clawboo_engine::runtimes::process::SystemSpawner;
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::secrets::Provider;
use clawboo_engine::Engine;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, Reply};
use common::gateway_rig::{self, path_with, Inside, NoEndpoint, OneToken, OtherMachine, PORT};
use serde_json::json;

/// Set (to "CB_NS GW_NS CB_IP GW_IP") when this binary runs inside the user's namespace.
const INNER: &str = "CLAWBOO_TEST_REMOTE_TOOLS";
// The first turn that works makes the member's own agent there and sets its rules (three
// `openclaw gateway call`s, each a Node start: 20–40 s each on a loaded 2-core machine).
const LIMIT: Duration = Duration::from_secs(420);
const TOKEN: &str = "other-machines-gateway-token-29-tools";
const FACT: &str = "REMOTE-FACT the winter blend ships in week 48";

/// One fake model plays both: the remote leader (through the other machine's Gateway) and the
/// local Native writer, by what each turn's message says.
fn behavior() -> Behavior {
    Behavior::text("(unscripted)")
        .when("tagline-done", vec![Reply::Text("All in: the tagline is back.".into())])
        .when("draft the tagline", vec![Reply::Text("tagline-done: Steep, sip, stay warm.".into())])
        .when(
            "HAND-OVER-NOW",
            vec![
                // OpenClaw 2026.9.6 lists a node's tools for search, not in the request's tool
                // list: the model calls them through its `tool_call`, by name.
                Reply::ToolCall {
                    name: "tool_call".into(),
                    input: json!({ "id": "clawboo__memory_save", "args": { "text": FACT, "tags": ["launch"] } }),
                },
                Reply::ToolCall {
                    name: "tool_call".into(),
                    input: json!({
                        "id": "clawboo__handoff",
                        "args": { "to": "writer", "task": "draft the tagline for the winter blend" },
                    }),
                },
                Reply::Text("Handed the tagline to @writer.".into()),
            ],
        )
        .when(
            "SLOW-REVIEW",
            vec![Reply::Slow { text: "a careful review ".repeat(30), chunks: 60, delay: Duration::from_millis(500) }],
        )
}

#[test]
fn a_member_on_another_machines_gateway_uses_clawboos_tools_through_a_node_connection() {
    gateway_rig::run_inside(INNER, "inner_tools_through_the_node_connection");
}

fn runs_of(engine: &Engine, room: &str, agent: &str) -> Vec<RunSummary> {
    engine.chat().room_runs(room, 100).unwrap().into_iter().filter(|r| r.agent_id == agent).collect()
}

/// Waits until `agent` has `count` runs in `room`, none running; its latest.
fn settled_run(engine: &Engine, room: &str, agent: &str, count: usize) -> RunSummary {
    wait_for("the member's run ends", LIMIT, || {
        // One read: the member's runs and "none running" must come from the same moment, or a
        // run read as Running can be returned after a later read saw it end.
        let all = engine.chat().room_runs(room, 100).unwrap();
        let idle = all.iter().all(|r| r.status != RunStatus::Running);
        let runs: Vec<RunSummary> = all.into_iter().filter(|r| r.agent_id == agent).collect();
        (idle && runs.len() >= count).then(|| runs.into_iter().max_by_key(|r| r.started_at).unwrap())
    })
}

fn messages(engine: &Engine, room: &str) -> Vec<RoomMessage> {
    engine.chat().room_page(room, None, 200).unwrap().messages
}

#[test]
fn inner_tools_through_the_node_connection() {
    let Some(Inside { gw, cb_ip, gw_ip }) = gateway_rig::inside(INNER) else { return };
    let program = common::cli("openclaw").unwrap();
    let node_dir = common::cli("node24").unwrap().parent().unwrap().to_owned();
    let io = tokio::runtime::Runtime::new().unwrap();
    let model = io.block_on(FakeModelServer::start_at(cb_ip.parse().unwrap(), behavior()));
    let fixture = common::Fixture::for_clis().keychain("remote-tools").program(RuntimeKind::Openclaw, &program);
    let other = io.block_on(OtherMachine::start(
        &gw,
        &fixture.path().join("other-machine"),
        &program,
        &node_dir,
        &model,
        TOKEN,
    ));
    let url = format!("ws://{gw_ip}:{PORT}");

    let openclaw = OpenclawRuntime::new(Arc::new(SystemSpawner), Arc::new(NoEndpoint))
        .with_gateway_tokens(Arc::new(OneToken(TOKEN)))
        .with_env(vec![("PATH".to_owned(), path_with(&node_dir))])
        .with_timeouts(Timeouts { silence: Duration::from_secs(180), grace: Duration::from_secs(3) });
    let native = common::native_runtime(format!("{}/v1", model.base_url()), "sk-fake-writer");
    let engine = fixture.open_with(vec![Arc::new(openclaw), native]);
    let ivy = engine
        .agents()
        .create(NewAgent {
            name: "Ivy".into(),
            description: "Ivy, who leads from the other machine".into(),
            model: "some-model".into(),
            approval_policy: ApprovalPolicy::AllowAll,
            ..common::new_agent("ivy", RuntimeKind::Openclaw)
        })
        .unwrap()
        .id;
    let writer = common::add_agent(
        &engine,
        NewAgent {
            name: "Writer".into(),
            description: "Writer, who writes the words".into(),
            model: "gpt-5.5".into(),
            approval_policy: ApprovalPolicy::AllowAll,
            provider: Some(Provider::OpenAi),
            ..common::new_agent("writer", RuntimeKind::Native)
        },
    );
    engine
        .set_openclaw_gateway(&ivy, OpenclawGatewayInput { url: Some(url.clone()), token: Some(TOKEN.into()) })
        .unwrap();
    let common::ChatTeam { general, .. } =
        common::chat_team(&engine, "Launch", &[ivy.clone(), writer.clone()], "I am Ada, I run a tea shop.");

    // First contact: the Gateway's owner approves this computer once (the bridge's device).
    engine.chat().send_team(&general, "Say hello").unwrap();
    let first = settled_run(&engine, &general, &ivy, 1);
    let said = first.error.clone().unwrap_or_default();
    assert!(said.contains("does not know this computer yet"), "{first:?}");
    let request = said.split("openclaw devices approve ").nth(1).and_then(|r| r.split('`').next()).unwrap().to_owned();
    io.block_on(other.approve(&request));

    // Now Clawboo pairs its node itself and the member's tools work: a memory and a hand-off.
    let clock = Instant::now();
    engine.chat().send_team(&general, "HAND-OVER-NOW: get the tagline written").unwrap();
    let mut settled = None;
    while clock.elapsed() < LIMIT {
        let all = messages(&engine, &general);
        let done = all.iter().any(|m| m.content.contains("All in: the tagline is back."));
        let idle = engine.chat().room_runs(&general, 100).unwrap().iter().all(|r| r.status != RunStatus::Running);
        if done && idle {
            settled = Some(all);
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    let Some(settled) = settled else {
        let runs = engine.chat().room_runs(&general, 100).unwrap();
        let said: Vec<String> = messages(&engine, &general).iter().map(|m| m.content.clone()).collect();
        let asked: Vec<String> = model.model_requests().iter().map(|r| r.raw_body.clone()).collect();
        let _ = std::fs::write("/tmp/h7-requests.json", asked.join("\n"));
        let asked: Vec<String> = asked.iter().map(|r| r.chars().take(300).collect()).collect();
        let activity: Vec<String> =
            runs.iter().flat_map(|r| engine.chat().run_activity(&r.id).unwrap()).map(|e| format!("{e:?}")).collect();
        panic!("no answer after the hand-off.\nactivity: {activity:#?}\nruns: {runs:#?}\nroom: {said:#?}\nmodel requests: {asked:#?}");
    };
    let round = clock.elapsed();
    let facts = engine.memory().list(&FactFilter::default()).unwrap();
    let fact = facts.iter().find(|f| f.text == FACT).unwrap_or_else(|| panic!("the remote member's fact: {facts:?}"));
    assert!(format!("{:?}", fact.author).contains(&ivy), "saved as the remote member: {fact:?}");
    let writer_runs = runs_of(&engine, &general, &writer);
    assert_eq!(writer_runs.len(), 1, "the local teammate ran once: {writer_runs:?}");
    assert_eq!(writer_runs[0].status, RunStatus::Succeeded);
    assert!(settled.iter().any(|m| m.content.contains("tagline-done")), "the teammate's answer is in the room");
    let asked = model.model_requests();
    let handed = asked.iter().find(|r| r.raw_body.contains("draft the tagline for the winter blend")).unwrap();
    assert!(handed.raw_body.contains("tagline"), "the teammate got the task");

    // A call forged on the Gateway for another session while the member's turn runs: refused.
    let slow_clock = Instant::now();
    engine.chat().send_team(&general, "SLOW-REVIEW of the tagline").unwrap();
    wait_for("the slow turn's model request", LIMIT, || {
        model.model_requests().iter().any(|r| r.raw_body.contains("SLOW-REVIEW")).then_some(())
    });
    let gateway = |method: &str, params: serde_json::Value| {
        // tokio's Command spawns as it is made: inside the test's runtime.
        let _inside = io.enter();
        let local = format!("ws://127.0.0.1:{PORT}");
        let out = io
            .block_on(
                other
                    .command(&["gateway", "call", method, "--json", "--url", &local, "--token", TOKEN, "--params"])
                    .arg(params.to_string())
                    .output(),
            )
            .unwrap();
        format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    };
    let nodes: serde_json::Value = serde_json::from_str(gateway("node.list", json!({})).trim()).unwrap_or_default();
    let node = nodes["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|n| n["connected"] == true && n["displayName"] == "Clawboo")
        .unwrap_or_else(|| panic!("Clawboo's node is connected during the turn: {nodes}"));
    let forged = gateway(
        "node.invoke",
        json!({
            "nodeId": node["nodeId"],
            "command": "mcp.tools.call.v1",
            "params": { "server": "clawboo", "tool": "memory_save", "arguments": { "text": "FORGED fact" } },
            "idempotencyKey": "forged-1",
            "sessionKey": "agent:main:acp-bridge:someone-elses-session",
        }),
    );
    eprintln!("the forged call: {forged}");
    assert!(forged.contains("answer only the session"), "{forged}");
    let slow = slow_clock.elapsed();
    // Its reply would stream for 30 s more: stopped instead, as a user would, its node with it.
    let running = runs_of(&engine, &general, &ivy).into_iter().find(|r| r.status == RunStatus::Running);
    let running = running.expect("the member's slow turn still runs");
    engine.chat().cancel(&running.id).unwrap();
    let stopped = settled_run(&engine, &general, &ivy, 3);
    assert_eq!(stopped.status, RunStatus::Cancelled, "{stopped:?}");
    let facts = engine.memory().list(&FactFilter::default()).unwrap();
    assert!(facts.iter().all(|f| !f.text.contains("FORGED")), "nothing forged was saved");
    drop(other);

    eprintln!(
        "figures: hand-off round trip through the remote member, pairing its node included: {round:?}; the turn \
         after, node already paired, to a forged call refused: {slow:?}"
    );
}
