//! The app's log never holds a secret. The shell's own subscriber (`logging::install`) writes the
//! log file at the most detailed level the user can choose (set through the `set_log_level`
//! command, applied live), while real work uses every kind of secret: provider keys stored in the
//! keychain through the commands and used by Native chats through the model relay; a connector's
//! secret (a stdio MCP server's env, its tool called in a chat) and one in an HTTP connector's
//! header; a run's relay token and a tools-bridge token used over HTTP (the latter in the URL);
//! the local API's token; an OpenClaw Gateway token; a key sent in a query string and a token the
//! relay refuses. Then every log file, and what `recent_log_lines` hands to "Copy details", is
//! scanned for each secret (raw, base64, split across lines). Run under scripts/with-test-keyring.
#![cfg(unix)]

// The engine tests' shared set-up: a data folder and the engine opened on it as the app opens it.
#[path = "../engine/tests/common/mod.rs"]
mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use clawboo_engine::chat::RunStatus;
use clawboo_engine::logs::LogLevel;
use clawboo_engine::secrets::Provider;
use clawboo_engine::tools::{Caller, ToolName};
use clawboo_engine::Engine;
use clawboo_lib::{logging, specta_builder, AppState};
use clawboo_testkit::secret_scan::findings;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, Reply};
use common::Fixture;
use serde_json::{json, Value};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{Manager, WebviewWindow, WebviewWindowBuilder};

const ANTHROPIC_KEY: &str = "sk-ant-LOG-k9Pq2-only-in-the-keychain-77ab31c0";
const OPENAI_KEY: &str = "sk-proj-LOG-Wm4t-only-in-the-keychain-5d2e98f1";
const CONNECTOR_SECRET: &str = "docs-token-LOG-3vXr8-never-logged";
const HEADER_SECRET: &str = "web-bearer-LOG-Q7hz1-never-logged";
const GATEWAY_TOKEN: &str = "gateway-token-LOG-b8Kd0-never-logged";
const QUERY_SECRET: &str = "query-key-LOG-Yt5s6-never-logged";
const REFUSED_TOKEN: &str = "sk-ant-LOG-refused-token-c4Nw2-never-logged";
const LIMIT: Duration = Duration::from_secs(60);

fn invoke(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Value {
    let response = get_ipc_response(
        window,
        InvokeRequest {
            cmd: cmd.into(),
            callback: tauri::ipc::CallbackFn(0),
            error: tauri::ipc::CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: tauri::ipc::InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    );
    match response {
        Ok(body) => body.deserialize::<Value>().unwrap(),
        Err(e) => panic!("{cmd} failed: {e:?}"),
    }
}

/// One HTTP/1.1 request over a fresh connection; the status code (0 when none came).
fn http(url: &str, method: &str, headers: &[(&str, &str)], body: &str) -> u16 {
    let rest = url.strip_prefix("http://").expect("a loopback http URL");
    let (host, path) = rest.split_once('/').map_or((rest, "/".to_owned()), |(h, p)| (h, format!("/{p}")));
    let mut stream = TcpStream::connect(host).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    answer.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

fn native_agent(window: &WebviewWindow<MockRuntime>, handle: &str, provider: &str) -> String {
    let agent = invoke(
        window,
        "create_agent",
        json!({"input": {"name": handle.to_uppercase(), "handle": handle, "description": "", "tint": "#224466",
                         "runtime": "native", "model": "some-model", "approvalPolicy": "allow_all", "provider": provider}}),
    );
    agent["id"].as_str().unwrap().to_owned()
}

fn chat(engine: &Engine, agent_id: &str, text: &str) {
    let run = engine.chat().send(agent_id, text).unwrap().run.unwrap();
    let done = wait_for("the chat run to end", LIMIT, || {
        let run = engine.chat().run(&run.id).unwrap();
        (run.status != RunStatus::Running).then_some(run)
    });
    assert_eq!(done.status, RunStatus::Succeeded, "{:?}", done.error);
}

fn log_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn no_secret_reaches_the_log_at_its_most_detailed_level() {
    let behavior = Behavior::text("All done.").when(
        "look it up",
        vec![
            Reply::ToolCall { name: "~docs__lookup".into(), input: json!({"query": "release"}) },
            Reply::Text("The docs say 42.".into()),
        ],
    );
    let server = FakeModelServer::start_blocking(behavior);
    let fixture = Fixture::new().keychain("log-secrets");
    let log_dir = fixture.data_dir().join("logs");
    // As the app starts: the default level, before the engine opens.
    logging::install(&log_dir, LogLevel::default(), false);
    let state = AppState::new(fixture.try_open_with(Vec::new()));
    let engine = state.engine_if_open().expect("opened");
    let app = mock_builder()
        .invoke_handler(specta_builder::<MockRuntime>().invoke_handler())
        .build(mock_context(noop_assets()))
        .unwrap();
    app.manage(state);
    let window = WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();

    // The level, changed in Settings, applies from the next event on.
    assert_eq!(invoke(&window, "log_level", json!({})), "info");
    tracing::debug!(target: "clawboo_engine::probe", "debug-before-the-change");
    assert_eq!(invoke(&window, "set_log_level", json!({"level": "debug"})), "debug");
    tracing::debug!(target: "clawboo_engine::probe", "debug-after-the-change");
    assert_eq!(engine.log_level().unwrap(), LogLevel::Debug, "kept in the settings");

    // Keys through the commands, as the Settings page stores them.
    invoke(&window, "set_api_key", json!({"provider": "anthropic", "key": ANTHROPIC_KEY}));
    invoke(&window, "set_base_url", json!({"provider": "anthropic", "url": server.base_url()}));
    invoke(&window, "set_api_key", json!({"provider": "openai", "key": OPENAI_KEY}));
    invoke(&window, "set_base_url", json!({"provider": "openai", "url": format!("{}/v1", server.base_url())}));
    let lead = native_agent(&window, "lead", "anthropic");
    let mate = native_agent(&window, "mate", "openai");

    // A stdio connector with a secret in its env, shared with the lead and called in its chat;
    // an HTTP connector with a secret header, whose server is not there.
    let docs = invoke(
        &window,
        "create_connector",
        json!({"input": {"name": "docs", "kind": "stdio", "command": clawboo_testkit::fake_mcp_server().display().to_string(),
                         "args": [], "url": "", "enabled": true,
                         "entries": [{"key": "FAKE_MCP_SECRET", "value": CONNECTOR_SECRET, "secret": true}]}}),
    );
    let docs = docs["id"].as_str().unwrap().to_owned();
    invoke(&window, "share_connector", json!({"id": docs, "agentId": lead, "shared": true}));
    let web = invoke(
        &window,
        "create_connector",
        json!({"input": {"name": "web", "kind": "http", "command": "", "args": [], "url": "http://127.0.0.1:9/mcp",
                         "enabled": true, "entries": [{"key": "Authorization", "value": format!("Bearer {HEADER_SECRET}"), "secret": true}]}}),
    );
    let web = web["id"].as_str().unwrap().to_owned();
    invoke(&window, "share_connector", json!({"id": web, "agentId": lead, "shared": true}));

    chat(&engine, &lead, "Please look it up");
    chat(&engine, &mate, "Hello");
    let requests = server.model_requests();
    assert!(requests.iter().any(|r| r.header("x-api-key") == Some(ANTHROPIC_KEY)), "the Anthropic key was used");
    let bearer = format!("Bearer {OPENAI_KEY}");
    assert!(requests.iter().any(|r| r.header("authorization") == Some(bearer.as_str())), "the OpenAI key was used");
    assert!(
        requests.iter().any(|r| r.body.to_string().contains("secret present: yes")),
        "the connector's server had its secret"
    );

    // A run's relay token: a request through the relay, one with a key in its query, one refused.
    let relay = engine.relay().grant("run-log-secrets", Provider::Anthropic).unwrap();
    let relay_token = relay.api_key.clone().unwrap();
    let message = r#"{"model":"some-model","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}"#;
    let url = format!("{}/v1/messages", relay.base_url);
    assert_eq!(http(&url, "POST", &[("x-api-key", &relay_token)], message), 200);
    assert_eq!(http(&format!("{url}?key={QUERY_SECRET}"), "POST", &[("x-api-key", &relay_token)], message), 200);
    assert_eq!(http(&url, "POST", &[("x-api-key", REFUSED_TOKEN)], message), 401);
    engine.relay().revoke("run-log-secrets");

    // A tools-bridge token, in the Authorization header and in the URL.
    let grant = engine.tools().grant(Caller {
        run_id: "run-log-tools".into(),
        agent_id: lead.clone(),
        agent_handle: "lead".into(),
        team_id: String::new(),
        room_id: String::new(),
        conversation_id: "conv-log".into(),
        tools: vec![ToolName::MemorySearch],
    });
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"log-test","version":"1"}}}"#;
    let bearer = format!("Bearer {}", grant.token);
    assert_eq!(http(&grant.endpoint, "POST", &[("Authorization", &bearer)], initialize), 200);
    assert_eq!(http(&grant.url, "POST", &[], initialize), 200);
    engine.tools().revoke("run-log-tools");
    assert_eq!(http(&grant.endpoint, "POST", &[("Authorization", &bearer)], initialize), 401, "revoked");

    // The local API's token, used by a script, and a wrong one.
    let status = invoke(&window, "local_api_set_enabled", json!({"enabled": true}));
    let api_url = status["url"].as_str().unwrap().to_owned();
    let api_token = invoke(&window, "local_api_token", json!({})).as_str().unwrap().to_owned();
    assert_eq!(
        http(&format!("{api_url}/api/runs"), "GET", &[("Authorization", &format!("Bearer {api_token}"))], ""),
        200
    );
    assert_eq!(
        http(&format!("{api_url}/api/runs"), "GET", &[("Authorization", &format!("Bearer {REFUSED_TOKEN}"))], ""),
        401
    );
    invoke(&window, "local_api_set_enabled", json!({"enabled": false}));

    // An OpenClaw agent's Gateway token, then the connectors and their secrets deleted.
    let claw = invoke(
        &window,
        "create_agent",
        json!({"input": {"name": "Claw", "handle": "claw", "description": "", "tint": "#112233",
                         "runtime": "openclaw", "model": "", "approvalPolicy": "ask", "provider": null}}),
    );
    let claw = claw["id"].as_str().unwrap().to_owned();
    invoke(
        &window,
        "set_openclaw_gateway",
        json!({"agentId": claw, "input": {"url": "ws://127.0.0.1:9", "token": GATEWAY_TOKEN}}),
    );
    invoke(&window, "delete_connector", json!({"id": docs}));
    invoke(&window, "delete_connector", json!({"id": web}));

    let copied = invoke(&window, "recent_log_lines", json!({"lines": 50}));
    let copied: Vec<String> = serde_json::from_value(copied).unwrap();
    drop(window);
    drop(app);
    drop(engine);

    let secrets =
        [ANTHROPIC_KEY, OPENAI_KEY, CONNECTOR_SECRET, HEADER_SECRET, GATEWAY_TOKEN, QUERY_SECRET, REFUSED_TOKEN];
    let secrets: Vec<&str> =
        secrets.into_iter().chain([relay_token.as_str(), grant.token.as_str(), &api_token]).collect();
    let files = log_files(&log_dir);
    let log: String = files.iter().map(|(_, bytes)| String::from_utf8_lossy(bytes).into_owned()).collect();
    let mut found: Vec<String> = files.iter().flat_map(|(name, bytes)| findings(name, bytes, &secrets)).collect();
    found.extend(findings("recent_log_lines", copied.join("\n").as_bytes(), &secrets));
    println!(
        "log scan: {} files, {} bytes, {} lines, {} secrets looked for, {} found",
        files.len(),
        log.len(),
        log.lines().count(),
        secrets.len(),
        found.len()
    );

    // The scan looked at a log of this work, at the debug level.
    assert!(!log.contains("debug-before-the-change"), "at info, no debug event");
    assert!(log.contains("debug-after-the-change"), "the level applied at once");
    for expected in
        ["opening the engine", "log level set", "relayed a model request", "the model relay refused a request"]
    {
        assert!(log.contains(expected), "the log has \"{expected}\":\n{log}");
    }
    assert!(!copied.is_empty() && copied.len() <= 50, "Copy details gets the last lines: {}", copied.len());
    assert!(found.is_empty(), "a secret is in the log: {found:#?}\n{log}");
}
