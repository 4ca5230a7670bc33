//! A user's connector on the real CLIs (run with `scripts/with-test-keyring`): the testkit's
//! stdio MCP server, shared with one agent, is hosted by Clawboo for its run and called through
//! the run's tools bridge on the fake model server, and its result reaches the model; another
//! agent it is not shared with is not offered its tools; a connector that cannot start is a
//! warning on the run, never a failed turn; under "ask" a call waits for the user's approval.
//! The secret reaches the server (it says so) and never the model, argv or the database.
#![cfg(unix)]

mod common;

use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::connectors::{ConnectorEntryInput, ConnectorInput, ConnectorKind};
use clawboo_engine::runtimes::{ApprovalPolicy, RunEvent};
use clawboo_engine::vocab::RunStatus;
use clawboo_engine::Engine;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, RecordedRequest, Reply};
use serde_json::json;

const TURN_LIMIT: Duration = Duration::from_secs(240);
const SECRET: &str = "fake-mcp-secret-9c41";
const ASK: &str = "Please look up clawboo in the docs.";
const HELLO: &str = "Hello there, what can you do?";

fn connector(name: &str, args: Vec<String>) -> ConnectorInput {
    ConnectorInput {
        name: name.into(),
        kind: ConnectorKind::Stdio,
        command: clawboo_testkit::fake_mcp_server().display().to_string(),
        args,
        url: String::new(),
        entries: vec![ConnectorEntryInput { key: "FAKE_MCP_SECRET".into(), value: Some(SECRET.into()), secret: true }],
        enabled: true,
    }
}

/// Sends `text` to `agent_id` and waits for its run to succeed: the requests of this turn and
/// the run's events.
fn turn(
    engine: &Engine,
    server: &FakeModelServer,
    agent_id: &str,
    text: &str,
) -> (Vec<RecordedRequest>, Vec<RunEvent>) {
    let before = server.model_requests().len();
    let run = engine.chat().send(agent_id, text).unwrap().run.expect("a run");
    let done = wait_for("the run to finish", TURN_LIMIT, || {
        let history = engine.chat().history_page(agent_id, None, 500).unwrap();
        history.runs.into_iter().find(|r| r.id == run.id && r.status != RunStatus::Running)
    });
    let events: Vec<RunEvent> = engine.chat().run_activity(&run.id).unwrap().into_iter().map(|r| r.event).collect();
    assert_eq!(done.status, RunStatus::Succeeded, "{text}: {done:?} {events:#?}");
    (server.model_requests().split_off(before), events)
}

fn tool_names(request: &RecordedRequest) -> Vec<String> {
    let tools = request.body["tools"].as_array().cloned().unwrap_or_default();
    tools.iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect()
}

#[test]
fn claude_code_calls_a_shared_connector_and_an_unshared_agent_lacks_it() {
    let behavior = Behavior::text("Nothing to look up.").when(
        "look up clawboo",
        vec![
            Reply::ToolCall { name: "mcp__clawboo__docs__lookup".into(), input: json!({"query": "clawboo"}) },
            Reply::Text("The docs say 42.".into()),
        ],
    );
    let server = FakeModelServer::start_blocking(behavior);
    let Some(common::ChatEngine { engine, agent_id: scout, fixture }) =
        common::chat_engine(RuntimeKind::ClaudeCode, &server, "sk-ant-connectors")
    else {
        return;
    };
    let other = engine
        .agents()
        .create(NewAgent {
            name: "Other".into(),
            handle: "other".into(),
            description: String::new(),
            tint: "#663399".into(),
            runtime: RuntimeKind::ClaudeCode,
            model: "some-model".into(),
            approval_policy: ApprovalPolicy::AllowAll,
            provider: Some(clawboo_engine::secrets::Provider::Anthropic),
        })
        .unwrap()
        .id;
    let docs = engine.connectors().create(connector("docs", vec![])).unwrap();
    engine.connectors().set_shares(&docs.id, std::slice::from_ref(&scout)).unwrap();
    // Shared with the other agent only, and it cannot start.
    let broken = engine.connectors().create(connector("broken", vec!["--fail".into()])).unwrap();
    engine.connectors().set_shares(&broken.id, std::slice::from_ref(&other)).unwrap();

    // Shared: offered directly behind Clawboo's server, called, and its answer is in the next
    // request.
    let (requests, events) = turn(&engine, &server, &scout, ASK);
    let offered = tool_names(&requests[0]);
    assert!(offered.iter().any(|n| n == "mcp__clawboo__docs__lookup"), "offered: {offered:?}");
    assert!(!offered.iter().any(|n| n.contains("broken")), "not shared with scout: {offered:?}");
    let after = requests.iter().find(|r| r.raw_body.contains("LOOKUP-RESULT for clawboo: 42")).unwrap_or_else(|| {
        panic!("the tool's result reaches the model: {events:#?}");
    });
    assert!(after.raw_body.contains("secret present: yes"), "the server got its secret");
    let called = events.iter().any(|e| matches!(e, RunEvent::ToolCallStarted { name, .. } if name.contains("lookup")));
    assert!(called, "the call is on the run's activity: {events:#?}");

    // Not shared: the other agent's request offers none of its tools; the broken connector is
    // a warning on the run, and the turn still succeeds.
    let (requests, events) = turn(&engine, &server, &other, HELLO);
    let offered = tool_names(&requests[0]);
    assert!(!offered.iter().any(|n| n.contains("docs__")), "offered: {offered:?}");
    let warned = events
        .iter()
        .any(|e| matches!(e, RunEvent::Warning { message } if message.contains("Connector 'broken' did not start")));
    assert!(warned, "a warning on the run: {events:#?}");

    // The secret reached the server alone: never a model request, argv, or the database.
    for request in server.requests() {
        assert!(!request.raw_body.contains(SECRET), "the secret reached the model");
    }
    let data = fixture.data_dir();
    assert!(!contains(&data.join("clawboo.db"), SECRET) && !contains(&data.join("clawboo.db-wal"), SECRET));
    // Claude is given no connector config at all (Clawboo hosts the server): no MCP config file
    // is written, and no file under the data folder (the agents' folders in it) holds the secret.
    assert_eq!(find(fixture.path(), "clawboo-mcp.json"), None, "an MCP config file was written");
    assert_eq!(files_containing(&data, SECRET), Vec::<std::path::PathBuf>::new());
}

fn files_containing(dir: &std::path::Path, needle: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() && !path.is_symlink() {
            found.extend(files_containing(&path, needle));
        } else if path.is_file() && contains(&path, needle) {
            found.push(path);
        }
    }
    found
}

fn contains(path: &std::path::Path, needle: &str) -> bool {
    std::fs::read(path).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
}

fn find(dir: &std::path::Path, name: &str) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
        if path.is_dir() {
            if let Some(found) = find(&path, name) {
                return Some(found);
            }
        }
    }
    None
}

/// Native: rmcp's client starts the connector for the run, lists its tools, offers them as
/// `<connector>__<tool>`, calls it, and stops the server when the run ends.
#[test]
fn native_calls_a_shared_connector_in_process_and_stops_it_with_the_run() {
    let behavior = Behavior::text("Nothing to look up.").when(
        "look up clawboo",
        vec![
            Reply::ToolCall { name: "docs__lookup".into(), input: json!({"query": "clawboo"}) },
            Reply::Text("The docs say 42.".into()),
        ],
    );
    let server = FakeModelServer::start_blocking(behavior);
    let Some(common::ChatEngine { engine, agent_id: scout, fixture }) =
        common::chat_engine(RuntimeKind::Native, &server, "sk-native-connectors")
    else {
        return;
    };
    // In the agent's folder: the connector's server runs in a sandbox that sees only that folder.
    let log = fixture.data_dir().join("agents").join(&scout).join("fake-mcp.log");
    let mut input = connector("docs", vec![]);
    input.entries.push(ConnectorEntryInput {
        key: "FAKE_MCP_LOG".into(),
        value: Some(log.display().to_string()),
        secret: false,
    });
    let docs = engine.connectors().create(input).unwrap();
    engine.connectors().set_shares(&docs.id, std::slice::from_ref(&scout)).unwrap();
    let broken = engine.connectors().create(connector("broken", vec!["--fail".into()])).unwrap();
    engine.connectors().set_shares(&broken.id, std::slice::from_ref(&scout)).unwrap();

    let (requests, events) = turn(&engine, &server, &scout, ASK);
    let offered: Vec<String> = requests[0].body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str().or(t["name"].as_str()).map(str::to_owned))
        .collect();
    assert!(offered.iter().any(|n| n == "docs__lookup"), "offered: {offered:?}");
    let after = requests.iter().find(|r| r.raw_body.contains("LOOKUP-RESULT for clawboo: 42"));
    assert!(after.is_some_and(|r| r.raw_body.contains("secret present: yes")), "{events:#?}");
    let warned = events
        .iter()
        .any(|e| matches!(e, RunEvent::Warning { message } if message.contains("Connector 'broken' did not start")));
    assert!(warned, "the broken connector is a warning, the turn succeeded: {events:#?}");
    for request in server.requests() {
        assert!(!request.raw_body.contains(SECRET), "the secret reached the model");
    }

    // The server started for the run is gone once the run ended.
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.lines().any(|l| l.starts_with("started ")), "it started: {logged}");
    assert!(logged.contains("tools/call"), "it was called: {logged}");
    // In its sandbox its pid is its namespace's: it is found by the log path in its environment.
    let marker = format!("FAKE_MCP_LOG={}", log.display());
    wait_for("the connector's process to end with its run", Duration::from_secs(10), || {
        let alive = std::fs::read_dir("/proc").into_iter().flatten().flatten().any(|p| {
            let stat = std::fs::read_to_string(p.path().join("stat")).unwrap_or_default();
            let zombie = stat.rfind(')').is_some_and(|i| stat[i + 1..].split_whitespace().next() == Some("Z"));
            !zombie
                && std::fs::read(p.path().join("environ"))
                    .is_ok_and(|env| env.split(|&b| b == 0).any(|e| e == marker.as_bytes()))
        });
        (!alive).then_some(())
    });
}

/// Codex (`mcp_servers` in `thread/start`), Hermes (ACP `mcpServers`) and OpenClaw
/// (`mcp.servers` in its Gateway's config): the shared connector is called and its result
/// reaches the model.
fn calls_a_shared_connector(kind: RuntimeKind) {
    // Every turn looks it up (OpenClaw's last user item is not the bare message).
    let behavior = Behavior::tool_then_answer("~lookup", json!({"query": "clawboo"}), "The docs say 42.");
    let server = FakeModelServer::start_blocking(behavior);
    let Some(common::ChatEngine { engine, agent_id, fixture: _fixture }) =
        common::chat_engine(kind, &server, "sk-connectors")
    else {
        return;
    };
    let docs = engine.connectors().create(connector("docs", vec![])).unwrap();
    engine.connectors().set_shares(&docs.id, std::slice::from_ref(&agent_id)).unwrap();
    let (requests, events) = turn(&engine, &server, &agent_id, ASK);
    let after = requests.iter().find(|r| r.raw_body.contains("LOOKUP-RESULT for clawboo: 42"));
    assert!(after.is_some_and(|r| r.raw_body.contains("secret present: yes")), "{kind:?}: {events:#?}");
    for request in server.requests() {
        assert!(!request.raw_body.contains(SECRET), "{kind:?}: the secret reached the model");
    }
}

#[test]
fn codex_calls_a_shared_connector() {
    calls_a_shared_connector(RuntimeKind::Codex);
}

#[test]
fn hermes_calls_a_shared_connector() {
    calls_a_shared_connector(RuntimeKind::Hermes);
}

#[test]
fn openclaw_calls_a_shared_connector() {
    calls_a_shared_connector(RuntimeKind::Openclaw);
}

/// Under "ask": a connector's tool call is a question for the user, raised by Clawboo's bridge
/// (whatever the hints: "ask" asks for every connector call), and the call runs once the user
/// allows it.
fn asks_before_a_connectors_tool_under_ask(kind: RuntimeKind, provider: clawboo_engine::secrets::Provider) {
    let behavior = Behavior::tool_then_answer("~lookup", json!({"query": "clawboo"}), "The docs say 42.");
    let server = FakeModelServer::start_blocking(behavior);
    let Some(common::ChatEngine { engine, agent_id: _, fixture: _fixture }) =
        common::chat_engine(kind, &server, "sk-connectors-ask")
    else {
        return;
    };
    let asker = engine
        .agents()
        .create(NewAgent {
            name: "Asker".into(),
            handle: "asker".into(),
            description: String::new(),
            tint: "#663399".into(),
            runtime: kind,
            model: "some-model".into(),
            approval_policy: ApprovalPolicy::Ask,
            provider: Some(provider),
        })
        .unwrap()
        .id;
    let docs = engine.connectors().create(connector("docs", vec![])).unwrap();
    engine.connectors().set_shares(&docs.id, std::slice::from_ref(&asker)).unwrap();
    let run = engine.chat().send(&asker, ASK).unwrap().run.expect("a run");
    let asked = wait_for("the question", Duration::from_secs(120), || {
        let activity = engine.chat().run_activity(&run.id).unwrap();
        let ended = engine
            .chat()
            .history_page(&asker, None, 50)
            .unwrap()
            .runs
            .iter()
            .any(|r| r.id == run.id && r.status != RunStatus::Running);
        let asked = activity.iter().find_map(|r| match &r.event {
            RunEvent::PermissionRequest { request_id, tool, .. } => Some((request_id.clone(), tool.clone())),
            _ => None,
        });
        match (asked, ended) {
            (Some(asked), _) => Some(Ok(asked)),
            (None, true) => Some(Err(activity)),
            (None, false) => None,
        }
    });
    let (request_id, tool) = asked.unwrap_or_else(|activity| panic!("{kind:?} ended without asking: {activity:#?}"));
    assert_eq!(tool, "docs__lookup", "{kind:?}: the bridge's name, the same on every runtime");
    // An approval in the Inbox, as for any question.
    let open = engine.attention().open().unwrap();
    let approval = open.iter().find(|r| r.run_id.as_deref() == Some(run.id.as_str()));
    assert_eq!(approval.and_then(|r| r.tool.as_deref()), Some("docs__lookup"), "{kind:?}: {open:#?}");
    engine.answer_permission(&run.id, &request_id, clawboo_engine::attention::Decision::AllowOnce).unwrap();
    let done = wait_for("the run to finish", TURN_LIMIT, || {
        let history = engine.chat().history_page(&asker, None, 500).unwrap();
        history.runs.into_iter().find(|r| r.id == run.id && r.status != RunStatus::Running)
    });
    let activity = engine.chat().run_activity(&run.id).unwrap();
    assert_eq!(done.status, RunStatus::Succeeded, "{kind:?}: {activity:#?}");
    let asked = activity.iter().filter(|r| matches!(r.event, RunEvent::PermissionRequest { .. })).count();
    assert_eq!(asked, 1, "{kind:?}: asked once, by Clawboo, not again by the CLI: {activity:#?}");
    assert!(
        server.model_requests().iter().any(|r| r.raw_body.contains("LOOKUP-RESULT for clawboo: 42")),
        "{kind:?}: {activity:#?}"
    );
}

#[test]
fn claude_code_asks_before_a_connectors_tool_under_ask() {
    asks_before_a_connectors_tool_under_ask(RuntimeKind::ClaudeCode, clawboo_engine::secrets::Provider::Anthropic);
}

#[test]
fn codex_asks_before_a_connectors_tool_under_ask() {
    asks_before_a_connectors_tool_under_ask(RuntimeKind::Codex, clawboo_engine::secrets::Provider::OpenAi);
}
