//! Two Clawboo agents on one OpenClaw Gateway on "another machine", each a Gateway agent of its
//! own there, with the real, pinned `openclaw` CLI on the two-namespace rig
//! (`common::gateway_rig`): the whole engine runs in the user's namespace; the Gateway is
//! reached only over the link. It checks:
//! - separate workspaces: each agent's SOUL.md lands in its own agent's workspace on that
//!   machine, each captured model request holds its own SOUL.md and not the other's, and a turn
//!   of one after the other sends nothing again;
//! - Read-only (@oak): the Gateway gives the model no tool that writes or runs commands, and a
//!   write the model asks for anyway is refused there (no file, no question);
//! - Ask (@ivy): a command waits in Clawboo's Inbox (and counts in the tray), runs once allowed
//!   there, and does not run once denied.
//!
//! Figures are printed.
//!
//! Needs root (to make namespaces) and `ip`; skipped with the reason otherwise, and when the CLI
//! is not installed (see `common::cli`). Run under `scripts/with-test-keyring` (the Gateway's
//! token is saved as the app saves it).
#![cfg(target_os = "linux")]

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clawboo_engine::agents::{NewAgent, OpenclawGatewayInput, RuntimeKind};
use clawboo_engine::attention::{AttentionRequest, Decision, RequestKind, UserAnswer};
use clawboo_engine::chat::{RunStatus, RunSummary};
use clawboo_engine::runtimes::openclaw::OpenclawRuntime;
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{ApprovalPolicy, RunEvent};
use clawboo_engine::Engine;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, Reply};
use common::gateway_rig::{self, path_with, Inside, NoEndpoint, OneToken, OtherMachine, Recording, PORT};
use serde_json::{json, Value};

/// Set (to "CB_NS GW_NS CB_IP GW_IP") when this binary runs inside the user's namespace.
const INNER: &str = "CLAWBOO_TEST_REMOTE_AGENTS";
const LIMIT: Duration = Duration::from_secs(300);
const TOKEN: &str = "other-machines-gateway-token-29-agents";
const IVY_SOUL: &str = "You are Ivy, who asks before she runs anything. IVY-SOUL-MARK.";
const OAK_SOUL: &str = "You are Oak, who only reads. OAK-SOUL-MARK.";

/// What the model does, by what each turn's message says. `files` is a folder on the other
/// machine (the namespaces share one file system, so the test looks there directly).
fn behavior(files: &Path) -> Behavior {
    let touch = |name: &str| json!({ "command": format!("touch {}", files.join(name).display()) });
    Behavior::text("(unscripted)")
        .when("HELLO", vec![Reply::Text("Hello from the other machine.".into())])
        .when(
            "WRITE-IT",
            vec![
                Reply::ToolCall {
                    name: "write".into(),
                    input: json!({ "path": files.join("oak-wrote.txt"), "content": "written" }),
                },
                Reply::ToolCall { name: "exec".into(), input: touch("oak-ran.txt") },
                Reply::Text("Tried to write.".into()),
            ],
        )
        .when(
            "RUN-ALLOWED",
            vec![
                Reply::ToolCall { name: "exec".into(), input: touch("ivy-allowed.txt") },
                Reply::Text("Ran it.".into()),
            ],
        )
        .when(
            "RUN-DENIED",
            vec![
                Reply::ToolCall { name: "exec".into(), input: touch("ivy-denied.txt") },
                Reply::Text("Was told no.".into()),
            ],
        )
}

#[test]
fn two_agents_on_one_remote_gateway_keep_their_own_workspace_and_rules_and_ask_through_the_inbox() {
    gateway_rig::run_inside(INNER, "inner_agents_of_their_own_on_the_other_machine");
}

fn wait_done(engine: &Engine, run: &RunSummary) -> RunSummary {
    wait_for("the run ends", LIMIT, || engine.chat().run(&run.id).ok().filter(|r| r.status != RunStatus::Running))
}

fn send(engine: &Engine, agent: &str, text: &str) -> RunSummary {
    engine.chat().send(agent, text).unwrap().run.expect("a run")
}

fn activity(engine: &Engine, run: &RunSummary) -> Vec<RunEvent> {
    engine.chat().run_activity(&run.id).unwrap().into_iter().map(|r| r.event).collect()
}

/// Sends `text`, and when the Gateway asks the owner of this computer to approve it (first
/// contact of each agent's bridge device), approves it there and sends again.
fn send_paired(
    engine: &Engine,
    io: &tokio::runtime::Runtime,
    other: &OtherMachine,
    agent: &str,
    text: &str,
) -> RunSummary {
    let first = wait_done(engine, &send(engine, agent, text));
    let said = first.error.clone().unwrap_or_default();
    if !said.contains("does not know this computer yet") {
        return first;
    }
    let request = said.split("openclaw devices approve ").nth(1).and_then(|r| r.split('`').next()).unwrap().to_owned();
    io.block_on(other.approve(&request));
    wait_done(engine, &send(engine, agent, text))
}

/// The approval `run` put in the Inbox.
fn inbox_approval(engine: &Engine, run: &RunSummary) -> AttentionRequest {
    wait_for("the approval in the Inbox", LIMIT, || {
        engine
            .attention()
            .open()
            .unwrap()
            .into_iter()
            .find(|r| r.kind == RequestKind::Permission && r.run_id.as_deref() == Some(run.id.as_str()))
    })
}

/// The tool names a captured model request offered (OpenAI chat completions).
fn offered_tools(body: &str) -> Vec<String> {
    let body: Value = serde_json::from_str(body).unwrap_or_default();
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().or(t["name"].as_str()).map(str::to_owned))
        .collect()
}

#[test]
fn inner_agents_of_their_own_on_the_other_machine() {
    let Some(Inside { gw, cb_ip, gw_ip }) = gateway_rig::inside(INNER) else { return };
    let program = common::cli("openclaw").unwrap();
    let node_dir = common::cli("node24").unwrap().parent().unwrap().to_owned();
    let io = tokio::runtime::Runtime::new().unwrap();
    let fixture = common::Fixture::for_clis().keychain("remote-agents").program(RuntimeKind::Openclaw, &program);
    let files = fixture.path().join("other-machine-files");
    std::fs::create_dir_all(&files).unwrap();
    let model = io.block_on(FakeModelServer::start_at(cb_ip.parse().unwrap(), behavior(&files)));
    let home = fixture.path().join("other-machine");
    let other = io.block_on(OtherMachine::start(&gw, &home, &program, &node_dir, &model, TOKEN));
    let url = format!("ws://{gw_ip}:{PORT}");

    let spawner = Recording::default();
    let openclaw = OpenclawRuntime::new(Arc::new(spawner.clone()), Arc::new(NoEndpoint))
        .with_gateway_tokens(Arc::new(OneToken(TOKEN)))
        .with_env(vec![("PATH".to_owned(), path_with(&node_dir))])
        .with_timeouts(Timeouts { silence: Duration::from_secs(180), grace: Duration::from_secs(3) });
    let engine = fixture.open_with(vec![Arc::new(openclaw)]);
    let member = |handle: &str, policy: ApprovalPolicy, soul: &str| {
        let id = common::add_agent(
            &engine,
            NewAgent {
                model: "some-model".into(),
                approval_policy: policy,
                ..common::new_agent(handle, RuntimeKind::Openclaw)
            },
        );
        engine.agents().write_file(&id, "SOUL.md", soul).unwrap();
        engine
            .set_openclaw_gateway(&id, OpenclawGatewayInput { url: Some(url.clone()), token: Some(TOKEN.into()) })
            .unwrap();
        id
    };
    let ivy = member("ivy", ApprovalPolicy::Ask, IVY_SOUL);
    let oak = member("oak", ApprovalPolicy::ReadOnly, OAK_SOUL);
    let gateway_agent = |id: &str| format!("clawboo-{id}");

    // Each agent's first turn makes its Gateway agent and sends its files there.
    let clock = Instant::now();
    let first = send_paired(&engine, &io, &other, &ivy, "IVY-HELLO");
    let ivy_first = clock.elapsed();
    assert_eq!(first.status, RunStatus::Succeeded, "{first:?} {:?}", activity(&engine, &first));
    let first = send_paired(&engine, &io, &other, &oak, "OAK-HELLO");
    assert_eq!(first.status, RunStatus::Succeeded, "{first:?} {:?}", activity(&engine, &first));
    for (id, soul) in [(&ivy, IVY_SOUL), (&oak, OAK_SOUL)] {
        let there = home.join("workspace").join(gateway_agent(id)).join("SOUL.md");
        assert_eq!(std::fs::read_to_string(&there).ok().as_deref(), Some(soul), "{}", there.display());
    }
    let requests = model.model_requests();
    let body = |needle: &str| {
        requests.iter().rev().find(|r| r.raw_body.contains(needle)).map(|r| r.raw_body.clone()).expect(needle)
    };
    let (ivy_asked, oak_asked) = (body("IVY-HELLO"), body("OAK-HELLO"));
    assert_eq!(ivy_asked.matches("IVY-SOUL-MARK").count(), 1);
    assert!(!ivy_asked.contains("OAK-SOUL-MARK"), "Ivy's request holds only her own SOUL.md");
    assert_eq!(oak_asked.matches("OAK-SOUL-MARK").count(), 1);
    assert!(!oak_asked.contains("IVY-SOUL-MARK"), "Oak's request holds only his own SOUL.md");

    // One after the other: nothing is sent again, and the requests stay each its own.
    let calls_before = spawner.calls().len();
    let clock = Instant::now();
    let again = wait_done(&engine, &send(&engine, &ivy, "IVY-HELLO again"));
    let ivy_again = clock.elapsed();
    assert_eq!(again.status, RunStatus::Succeeded, "{again:?}");
    assert_eq!(spawner.calls()[calls_before..], [], "no Gateway call when nothing changed");
    let requests = model.model_requests();
    let asked = requests.iter().rev().find(|r| r.raw_body.contains("IVY-HELLO again")).unwrap();
    assert_eq!(asked.raw_body.matches("IVY-SOUL-MARK").count(), 1);
    assert!(!asked.raw_body.contains("OAK-SOUL-MARK"));

    // Read-only: no tool that writes or runs, and a write asked for anyway is refused there.
    let tools = offered_tools(&oak_asked);
    for tool in ["write", "edit", "apply_patch", "exec", "process"] {
        assert!(!tools.iter().any(|t| t == tool), "{tool} is not offered to Oak: {tools:?}");
    }
    assert!(offered_tools(&ivy_asked).iter().any(|t| t == "exec"), "Ivy may run commands (asking)");
    let tried = wait_done(&engine, &send(&engine, &oak, "WRITE-IT please"));
    let events = activity(&engine, &tried);
    assert!(!files.join("oak-wrote.txt").exists(), "the write was refused: {events:?}");
    assert!(!files.join("oak-ran.txt").exists(), "the command was refused: {events:?}");
    assert!(!events.iter().any(|e| matches!(e, RunEvent::PermissionRequest { .. })), "Read-only does not ask");
    eprintln!(
        "Oak's write attempt: {:?} {:?}",
        tried.status,
        events.iter().filter(|e| matches!(e, RunEvent::ToolResult { .. })).collect::<Vec<_>>()
    );

    // Ask: the command waits in the Inbox; allowed there, it runs.
    let clock = Instant::now();
    let run = send(&engine, &ivy, "RUN-ALLOWED now");
    let question = inbox_approval(&engine, &run);
    let waited = clock.elapsed();
    assert_eq!(question.tool.as_deref(), Some("exec"), "{question:?}");
    assert!(question.input.clone().unwrap_or_default().contains("ivy-allowed.txt"), "{question:?}");
    assert!(engine.attention().tray_state().unwrap().approvals >= 1, "the tray counts it");
    assert!(!files.join("ivy-allowed.txt").exists(), "nothing ran before the answer");
    engine.answer_attention(&question.id, UserAnswer::Decision { decision: Decision::AllowOnce }).unwrap();
    let done = wait_done(&engine, &run);
    assert_eq!(done.status, RunStatus::Succeeded, "{done:?} {:?}", activity(&engine, &done));
    assert!(files.join("ivy-allowed.txt").exists(), "allowed once, it ran: {:?}", activity(&engine, &done));

    // Denied there, it does not.
    let run = send(&engine, &ivy, "RUN-DENIED now");
    let question = inbox_approval(&engine, &run);
    assert!(question.input.clone().unwrap_or_default().contains("ivy-denied.txt"), "{question:?}");
    engine.answer_attention(&question.id, UserAnswer::Decision { decision: Decision::Deny }).unwrap();
    let done = wait_done(&engine, &run);
    let events = activity(&engine, &done);
    assert!(!files.join("ivy-denied.txt").exists(), "denied, it did not run: {events:?}");
    assert!(events.iter().any(|e| matches!(e, RunEvent::PermissionResolved { allowed: false, .. })), "{events:?}");
    assert!(engine.attention().open().unwrap().iter().all(|r| r.kind != RequestKind::Permission), "none left open");

    // The agents' rules are theirs on that machine's Gateway: Ask and Read-only side by side.
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("state/openclaw.json")).unwrap()).unwrap();
    let entries = &config["agents"]["entries"];
    assert_eq!(entries[gateway_agent(&ivy)]["tools"]["exec"]["mode"], "ask", "{entries}");
    assert_eq!(entries[gateway_agent(&oak)]["tools"]["exec"]["mode"], "allowlist", "{entries}");
    drop(other);

    eprintln!(
        "figures: Ivy's first turn (pairing approved by the owner, agent made, rules and four files sent) \
         {ivy_first:?}; her next turn, nothing to send {ivy_again:?}; an Ask command in the Inbox {waited:?} after \
         the message was sent"
    );
}
