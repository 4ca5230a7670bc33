//! The local API over real HTTP on loopback (reqwest), on a real engine and SQLite store, with a
//! scripted runtime playing the agent. The token lives in the keychain: run under
//! scripts/with-test-keyring on Linux.

mod common;

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::api::PORT_FILE;
use clawboo_engine::board::{CardOrigin, CardStatus};
use clawboo_engine::memory::{Author, FactInput, Scope};
use clawboo_engine::runner::RunnerSettings;
use clawboo_engine::runtimes::{Capabilities, RunChannels, RunEvent, RunOutcome, RunResult, Runtime, TurnInput};
use clawboo_engine::{Engine, ErrorCode};
use clawboo_testkit::wait_for;
use common::Fixture;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONNECTION, HOST};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// Plays the agent by the run's message (the card's title):
/// - "wait…"   → says it started, then waits to be stopped;
/// - "stream…" → says five things 40 ms apart, then answers;
/// - "fail…"   → fails with "the model refused";
/// - anything else → answers "Done: <title>".
struct Scripted;

impl Runtime for Scripted {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> Capabilities {
        clawboo_engine::runtimes::native::CAPABILITIES
    }

    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> Pin<Box<dyn std::future::Future<Output = clawboo_engine::Result<RunResult>> + Send + '_>> {
        Box::pin(async move {
            let say = |text: &str| channels.emit(RunEvent::TextDelta { text: text.to_owned() });
            let title = input.message.as_str();
            if title.starts_with("wait") {
                say("Started; waiting.");
                let mut cancel = channels.cancel.clone();
                let _ = cancel.wait_for(|c| *c).await;
                return Ok(RunResult::with_outcome(RunOutcome::Cancelled, "Stopped."));
            }
            if title.starts_with("fail") {
                return Ok(RunResult::failed("the model refused"));
            }
            if title.starts_with("stream") {
                for n in 1..=5 {
                    say(&format!("part {n}. "));
                    tokio::time::sleep(Duration::from_millis(40)).await;
                }
            }
            say(&format!("Done: {title}"));
            Ok(RunResult::succeeded())
        })
    }
}

struct Api {
    _fixture: Fixture,
    engine: Engine,
    agent_id: String,
    base: String,
    port: u16,
    token: String,
    client: reqwest::Client,
    rt: tokio::runtime::Runtime,
}

fn open(fixture: &Fixture) -> Engine {
    fixture.open_with(vec![Arc::new(Scripted)])
}

fn api() -> Api {
    let fixture = Fixture::new();
    let engine = open(&fixture);
    let agent = NewAgent {
        name: "Worker".into(),
        description: "does the work".into(),
        model: "some-model".into(),
        ..common::new_agent("worker", RuntimeKind::Native)
    };
    let agent_id = common::add_agent(&engine, agent);
    let status = engine.local_api().set_enabled(true).unwrap();
    let port = status.port.expect("listening");
    let token = engine.local_api().token().unwrap();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    Api { _fixture: fixture, engine, agent_id, base: format!("http://127.0.0.1:{port}"), port, token, client, rt }
}

impl Api {
    fn send(&self, request: reqwest::RequestBuilder) -> (StatusCode, Value) {
        self.rt.block_on(async {
            let response = request.send().await.unwrap();
            let status = response.status();
            let text = response.text().await.unwrap();
            (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
        })
    }

    fn get(&self, path: &str) -> (StatusCode, Value) {
        self.send(self.client.get(format!("{}{path}", self.base)).bearer_auth(&self.token))
    }

    fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.send(self.client.post(format!("{}{path}", self.base)).bearer_auth(&self.token).json(&body))
    }

    fn start(&self, body: Value) -> Value {
        let (status, started) = self.post("/api/runtimes/worker/run", body);
        assert_eq!(status, StatusCode::CREATED, "{started}");
        started
    }

    /// Waits until `GET /api/runs/:id` says the run ended.
    fn ended(&self, run_id: &str) -> Value {
        wait_for("the run to end", Duration::from_secs(30), || {
            let (status, run) = self.get(&format!("/api/runs/{run_id}"));
            assert_eq!(status, StatusCode::OK, "{run}");
            (run["status"] == "ended").then_some(run)
        })
    }
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or_else(|| panic!("an error body: {body}"))
}

#[test]
fn the_api_is_off_until_switched_on_then_listens_on_loopback_and_writes_its_port_file() {
    let fixture = Fixture::new();
    let port_file = fixture.data_dir().join(PORT_FILE);
    let port = {
        let engine = open(&fixture);
        let status = engine.local_api().status().unwrap();
        assert!(!status.enabled && !status.running, "off by default: {status:?}");
        assert!(!port_file.exists());

        let on = engine.local_api().set_enabled(true).unwrap();
        let port = on.port.unwrap();
        assert_eq!(on.url.as_deref(), Some(format!("http://127.0.0.1:{port}").as_str()));
        let written: Value = serde_json::from_str(&std::fs::read_to_string(&port_file).unwrap()).unwrap();
        assert_eq!(written["port"], port);
        assert_eq!(written["pid"], std::process::id());
        assert!(!written.to_string().contains(&engine.local_api().token().unwrap()), "no token in the file");

        let off = engine.local_api().set_enabled(false).unwrap();
        assert!(!off.running && off.port.is_none());
        assert!(!port_file.exists(), "switched off: the port file goes");
        assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "nothing listens any more");

        engine.local_api().set_enabled(true).unwrap().port.unwrap()
    };
    assert!(!port_file.exists(), "the engine's shutdown removes the port file");
    // Left on, it listens again at the next start (on a new random port).
    let engine = open(&fixture);
    let status = engine.local_api().status().unwrap();
    assert!(status.enabled && status.running, "{status:?}");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&port_file).unwrap()).unwrap();
    assert_eq!(written["port"], status.port.unwrap());
    let _ = port;
}

#[test]
fn a_non_loopback_bind_is_refused() {
    let fixture = Fixture::new();
    let engine = open(&fixture);
    for address in ["0.0.0.0", "192.168.1.20", "::"] {
        let err = engine.local_api().start_on(address.parse().unwrap()).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput, "{address}: {err}");
    }
    assert!(!engine.local_api().status().unwrap().running);
    assert!(!fixture.data_dir().join(PORT_FILE).exists());
}

#[test]
fn every_request_needs_the_token_and_a_host_naming_this_machine() {
    let a = api();
    let url = format!("{}/api/runs", a.base);
    let (status, body) = a.send(a.client.get(&url));
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, "unauthorized"));
    let (status, _) = a.send(a.client.get(&url).bearer_auth("0".repeat(64)));
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a wrong token");
    let (status, _) = a.send(a.client.get(&url).header(AUTHORIZATION, format!("Basic {}", a.token)));
    assert_eq!(status, StatusCode::UNAUTHORIZED, "not a bearer token");
    let (status, _) = a.send(a.client.post(format!("{}/api/runtimes/worker/run", a.base)).json(&json!({"task": "x"})));
    assert_eq!(status, StatusCode::UNAUTHORIZED, "no run starts without the token");
    assert!(a.engine.board().list(&Default::default()).unwrap().is_empty());

    // DNS rebinding: a page on another name that resolves to 127.0.0.1 sends its own Host.
    let (status, body) =
        a.send(a.client.get(&url).bearer_auth(&a.token).header(HOST, format!("evil.example:{}", a.port)));
    assert_eq!((status, code(&body)), (StatusCode::FORBIDDEN, "forbidden_host"));
    let (status, _) = a.send(a.client.get(format!("http://localhost:{}/api/runs", a.port)).bearer_auth(&a.token));
    assert_eq!(status, StatusCode::OK, "localhost is this machine");

    let response =
        a.rt.block_on(a.client.get(&url).bearer_auth(&a.token).header("Origin", "https://evil.example").send());
    let response = response.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers().keys().all(|k| !k.as_str().starts_with("access-control-")),
        "no CORS headers: a browser's cross-origin call fails"
    );

    let (status, body) = a.get("/api/nothing");
    assert_eq!((status, code(&body)), (StatusCode::NOT_FOUND, "not_found"));
    let (status, body) = a.post("/api/runs", json!({}));
    assert_eq!((status, code(&body)), (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"));
    let (status, body) = a.post("/api/runtimes/worker/run", json!({"task": "x".repeat(70 * 1024)}));
    assert_eq!((status, code(&body)), (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large"));
    let (status, body) = a.post("/api/runtimes/worker/run", json!({"task": "x", "disableMemoryAutoinject": true}));
    assert_eq!((status, code(&body)), (StatusCode::BAD_REQUEST, "invalid_input"), "a misspelled field is refused");
    let (status, body) = a.post("/api/runtimes/worker/run", json!({"task": "  "}));
    assert_eq!((status, code(&body)), (StatusCode::BAD_REQUEST, "invalid_input"));
    let (status, body) = a.post("/api/runtimes/nobody/run", json!({"task": "x"}));
    assert_eq!((status, code(&body)), (StatusCode::NOT_FOUND, "not_found"));
    let (status, body) = a.get("/api/runs/no-such-run");
    assert_eq!((status, code(&body)), (StatusCode::NOT_FOUND, "not_found"));
    assert!(a.engine.board().list(&Default::default()).unwrap().is_empty(), "refused requests made no card");

    // A new token: the old one stops working at once.
    let new = a.engine.local_api().regenerate_token().unwrap();
    assert_ne!(new, a.token);
    assert_eq!(new.len(), 64);
    let (status, _) = a.get("/api/runs");
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = a.send(a.client.get(&url).bearer_auth(&new));
    assert_eq!(status, StatusCode::OK);
    assert_eq!(a.engine.local_api().token().unwrap(), new, "kept in the keychain");
}

/// Sends `head` (request line and headers, without the blank line) and `body` as they are over a
/// fresh connection, and returns the status and the answer's JSON body: for what reqwest will not
/// send (a chunked body of a chosen size).
fn raw(a: &Api, head: &str, body: &[u8]) -> (u16, Value) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", a.port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    stream.write_all(format!("{head}\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n", a.port).as_bytes()).unwrap();
    // The server may answer (and close) before it has read everything.
    let _ = stream.write_all(body);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{answer}"));
    let json = answer.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or_default();
    // A chunked answer: the JSON is the line between the chunk sizes.
    let json = json.lines().find(|l| l.starts_with('{')).unwrap_or(json);
    (status, serde_json::from_str(json).unwrap_or(Value::String(json.to_owned())))
}

/// A chunked body of `len` bytes, in 8 KiB chunks.
fn chunked(len: usize) -> Vec<u8> {
    let mut body = Vec::new();
    let mut left = len;
    while left > 0 {
        let n = left.min(8 * 1024);
        body.extend_from_slice(format!("{n:x}\r\n").as_bytes());
        body.extend(std::iter::repeat_n(b'x', n));
        body.extend_from_slice(b"\r\n");
        left -= n;
    }
    body.extend_from_slice(b"0\r\n\r\n");
    body
}

#[test]
fn wrong_methods_unknown_routes_and_big_bodies_get_the_same_json_answers_as_ever() {
    let a = api();
    let url = |path: &str| format!("{}{path}", a.base);

    // The Host and the token are checked before the route: nothing about the routes shows without them.
    let (status, body) = a.send(a.client.get(url("/api/nothing")));
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, "unauthorized"));
    let response = a.rt.block_on(a.client.delete(url("/api/runs")).send()).unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "a wrong method without the token");
    assert_eq!(response.headers()["www-authenticate"], "Bearer");
    let (status, body) = a.send(a.client.get(url("/api/nothing")).header(HOST, "evil.example"));
    assert_eq!((status, code(&body)), (StatusCode::FORBIDDEN, "forbidden_host"), "the Host first");
    // (A body the server leaves unread ends the connection: not one for the client to reuse.)
    let big = a.client.post(url("/api/runtimes/worker/run")).header(CONNECTION, "close").body(vec![b'x'; 70 * 1024]);
    let (status, _) = a.send(big);
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a big body without the token");

    // Unknown routes: 404 naming the request as sent.
    for path in ["/", "/api", "/api/runs/x/y/z", "/api//runs", "/API/runs", "/api/nothing/"] {
        let (status, body) = a.get(path);
        assert_eq!((status, code(&body)), (StatusCode::NOT_FOUND, "not_found"), "{path}");
        assert_eq!(body["error"]["message"], format!("No route GET {path}."), "{path}");
    }
    let response = a.rt.block_on(a.client.get(url("/api/nothing")).bearer_auth(&a.token).send()).unwrap();
    assert_eq!(response.headers()["content-type"], "application/json");
    assert_eq!(response.headers()["cache-control"], "no-store");

    // Trailing slashes are ignored; path segments are percent-decoded.
    let (status, body) = a.get("/api/runs/");
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["runs"].is_array());
    let (status, body) = a.get("/api/runs/no-such-run//");
    assert_eq!((status, code(&body)), (StatusCode::NOT_FOUND, "not_found"));
    assert!(!body["error"]["message"].as_str().unwrap().starts_with("No route"), "a run was looked up: {body}");
    let (status, body) = a.get("/api/runs/%ff");
    assert_eq!((status, code(&body)), (StatusCode::NOT_FOUND, "not_found"), "bad UTF-8 is no run either");
    assert!(!body["error"]["message"].as_str().unwrap().starts_with("No route"), "{body}");

    // Wrong methods: 405 with Allow, checked before the run or the body (not JSON here) is looked at.
    let wrong = [
        (reqwest::Method::GET, "/api/runtimes/worker/run", "POST"),
        (reqwest::Method::PUT, "/api/runtimes/nobody/run", "POST"),
        (reqwest::Method::DELETE, "/api/runs", "GET"),
        (reqwest::Method::POST, "/api/runs/no-such-run", "GET"),
        (reqwest::Method::PATCH, "/api/runs/no-such-run/events", "GET"),
        (reqwest::Method::GET, "/api/runs/no-such-run/cancel", "POST"),
        (reqwest::Method::OPTIONS, "/api/runs/", "GET"),
    ];
    for (method, path, allow) in wrong {
        let request = a.client.request(method.clone(), url(path)).bearer_auth(&a.token).body("not JSON");
        let response = a.rt.block_on(request.send()).unwrap();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        assert_eq!(response.headers()["allow"], allow, "{method} {path}");
        let body: Value = a.rt.block_on(response.json()).unwrap();
        assert_eq!(code(&body), "method_not_allowed");
        assert_eq!(body["error"]["message"], format!("Use {allow} here."));
    }
    // HEAD is not GET here: 405, no body.
    let response = a.rt.block_on(a.client.head(url("/api/runs")).bearer_auth(&a.token).send()).unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(response.headers()["allow"], "GET");
    assert!(a.rt.block_on(response.bytes()).unwrap().is_empty());

    // Bodies: up to 64 KiB is read (and judged as JSON), one byte more is refused, chunked or not.
    let (status, body) = a.post("/api/runtimes/worker/run", json!({"task": "x".repeat(64 * 1024 - 11)}));
    assert_eq!(serde_json::to_vec(&json!({"task": "x".repeat(64 * 1024 - 11)})).unwrap().len(), 64 * 1024);
    assert_eq!((status, code(&body)), (StatusCode::BAD_REQUEST, "invalid_input"), "read, a task too long: {body}");
    let post = |body: Vec<u8>| {
        a.send(
            a.client.post(url("/api/runtimes/worker/run")).bearer_auth(&a.token).header(CONNECTION, "close").body(body),
        )
    };
    let (status, body) = post(vec![b'x'; 64 * 1024]);
    assert_eq!((status, code(&body)), (StatusCode::BAD_REQUEST, "invalid_input"), "read, not JSON");
    let (status, body) = post(vec![b'x'; 64 * 1024 + 1]);
    assert_eq!((status, code(&body)), (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large"));
    assert_eq!(body["error"]["message"], "The request body is over 64 KiB.");
    let (status, body) = post(Vec::new());
    assert_eq!((status, code(&body)), (StatusCode::BAD_REQUEST, "invalid_input"), "no body");
    let head = format!(
        "POST /api/runtimes/worker/run HTTP/1.1\r\nAuthorization: Bearer {}\r\nTransfer-Encoding: chunked",
        a.token
    );
    let (status, body) = raw(&a, &head, &chunked(64 * 1024 + 1));
    assert_eq!((status, code(&body)), (413, "payload_too_large"), "chunked, no length given");
    let (status, body) = raw(&a, &head, &chunked(64 * 1024));
    assert_eq!((status, code(&body)), (400, "invalid_input"), "chunked, read");

    // Query values: the first one counts; a bad limit is a 400 with the bounds.
    let (status, body) = a.get("/api/runs?limit=abc");
    assert_eq!((status, code(&body)), (StatusCode::BAD_REQUEST, "invalid_input"));
    assert_eq!(body["error"]["message"], "limit is a number from 1 to 500.");
    let (status, _) = a.get("/api/runs?limit=2&limit=abc&other=1");
    assert_eq!(status, StatusCode::OK);
    let (status, _) = a.get("/api/runs?limit=%32");
    assert_eq!(status, StatusCode::BAD_REQUEST, "query values are taken as sent");
    assert!(a.engine.board().list(&Default::default()).unwrap().is_empty(), "refused requests made no card");
}

#[test]
fn a_script_starts_a_run_by_handle_or_id_and_reads_how_it_went() {
    let a = api();
    let started = a.start(json!({"task": "write the summary\nOf last week's notes, in five lines."}));
    let run_id = started["runId"].as_str().unwrap().to_owned();
    assert_eq!(started["queued"], false);
    assert_eq!(started["status"], "running");
    let card = a.engine.board().get(started["cardId"].as_str().unwrap()).unwrap();
    assert_eq!(started["cardNumber"], card.number);
    assert_eq!(card.title, "write the summary", "titled by the task's first line");
    assert_eq!(card.description, "write the summary\nOf last week's notes, in five lines.");
    assert_eq!(card.origin, CardOrigin::Api, "marked as started through the API");
    assert_eq!(card.assignee_id.as_deref(), Some(a.agent_id.as_str()));

    let run = a.ended(&run_id);
    assert_eq!(run["outcome"], "succeeded", "{run}");
    assert_eq!(run["endedIn"], "in_review");
    assert_eq!(run["report"], "Done: write the summary");
    assert_eq!(run["agentHandle"], "worker");
    assert_eq!(run["card"]["status"], "in_review");
    assert_eq!(run["attempts"].as_array().unwrap().len(), 1);

    // By id, with a title of its own.
    let (status, second) =
        a.post(&format!("/api/runtimes/{}/run", a.agent_id), json!({"task": "Check the links.", "title": "links"}));
    assert_eq!(status, StatusCode::CREATED, "{second}");
    let second_id = second["runId"].as_str().unwrap().to_owned();
    a.ended(&second_id);
    assert_eq!(a.engine.board().get(second["cardId"].as_str().unwrap()).unwrap().title, "links");

    let (status, list) = a.get("/api/runs");
    assert_eq!(status, StatusCode::OK);
    let ids: Vec<&str> = list["runs"].as_array().unwrap().iter().map(|r| r["runId"].as_str().unwrap()).collect();
    assert_eq!(ids, [second_id.as_str(), run_id.as_str()], "newest first");
    let (_, one) = a.get("/api/runs?limit=1");
    assert_eq!(one["runs"].as_array().unwrap().len(), 1);
    let (status, _) = a.get("/api/runs?limit=0");
    assert_eq!(status, StatusCode::BAD_REQUEST);

    let (status, events) = a.get(&format!("/api/runs/{run_id}/events"));
    assert_eq!(status, StatusCode::OK);
    let events = events["events"].as_array().unwrap();
    assert!(events
        .iter()
        .any(|e| e["event"]["type"] == "textDelta" && e["event"]["text"] == "Done: write the summary"));
    assert_eq!(events.last().unwrap()["event"]["type"], "finished");
    let (status, body) = a.post(&format!("/api/runs/{run_id}/cancel"), json!({}));
    assert_eq!((status, code(&body)), (StatusCode::CONFLICT, "run_not_active"), "an ended run cannot be cancelled");

    // A failing run ends blocked, saying why.
    let failing = a.start(json!({"task": "fail at the task"}));
    let run = a.ended(failing["runId"].as_str().unwrap());
    assert_eq!((&run["outcome"], &run["endedIn"]), (&json!("blocked"), &json!("blocked")), "{run}");
    assert!(run["reason"].as_str().unwrap().contains("the model refused"), "{run}");
    assert!(run["report"].is_null());
}

#[test]
fn disable_memory_auto_inject_leaves_the_facts_out_of_the_runs_context() {
    let a = api();
    let fact = a
        .engine
        .memory()
        .save(
            FactInput { text: "The deploy script is scripts/ship.sh".into(), scope: Scope::Global, tags: vec![] },
            Author::User,
        )
        .unwrap()
        .fact;
    let task = "Deploy the release\nRun the deploy script for version 2.";
    let with = a.start(json!({"task": task}));
    let with_id = with["runId"].as_str().unwrap();
    a.ended(with_id);
    let seen = a.engine.runner().run_context(with_id).unwrap();
    assert_eq!(seen.cited, std::slice::from_ref(&fact.id), "a run given the matching fact");
    assert!(seen.preamble.unwrap_or_default().contains("## Memory"));

    let without = a.start(json!({"task": task, "disableMemoryAutoInject": true}));
    let without_id = without["runId"].as_str().unwrap();
    a.ended(without_id);
    let seen = a.engine.runner().run_context(without_id).unwrap();
    assert!(seen.cited.is_empty(), "{:?}", seen.cited);
    assert!(!seen.preamble.unwrap_or_default().contains("## Memory"));
}

/// Server-sent events, as `curl -N` reads them: `event:` and `data:` lines, a blank line after each.
fn parse_sse(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter_map(|block| {
            let mut name = None;
            let mut data = None;
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event: ") {
                    name = Some(v.to_owned());
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = Some(serde_json::from_str(v).unwrap());
                }
            }
            Some((name?, data?))
        })
        .collect()
}

#[test]
fn events_stream_live_until_the_run_ends_then_the_stream_closes() {
    let a = api();
    let started = a.start(json!({"task": "stream the parts"}));
    let run_id = started["runId"].as_str().unwrap().to_owned();
    let url = format!("{}/api/runs/{run_id}/events", a.base);
    let (content_type, body, chunks) = a.rt.block_on(async {
        let mut response =
            a.client.get(&url).bearer_auth(&a.token).header(ACCEPT, "text/event-stream").send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
        let mut body = String::new();
        let mut chunks = 0;
        // Ends when the server closes the stream, after `end`.
        while let Some(chunk) = tokio::time::timeout(Duration::from_secs(30), response.chunk()).await.unwrap().unwrap()
        {
            body.push_str(std::str::from_utf8(&chunk).unwrap());
            chunks += 1;
        }
        (content_type, body, chunks)
    });
    assert_eq!(content_type, "text/event-stream");
    let events = parse_sse(&body);
    let (last_name, last) = events.last().unwrap();
    assert_eq!(last_name, "end", "{body}");
    assert_eq!(last["outcome"], "succeeded");
    let run_events: Vec<&Value> = events.iter().filter(|(n, _)| n == "run_event").map(|(_, v)| v).collect();
    let seqs: Vec<u64> = run_events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>(), "every event once, in order");
    let text: String = run_events.iter().filter_map(|e| e["event"]["text"].as_str()).collect();
    assert!(text.contains("part 1. part 2. part 3. part 4. part 5. Done: stream the parts"), "{text}");
    assert!(chunks > 2, "sent as they happened, not in one piece ({chunks} chunks)");

    // The same through `?follow=1`, once the run is over: what happened, then `end`.
    let (_, stored) = a.get(&format!("/api/runs/{run_id}/events"));
    let replay = a.rt.block_on(async {
        let response = a.client.get(format!("{url}?follow=1")).bearer_auth(&a.token).send().await.unwrap();
        response.text().await.unwrap()
    });
    let replayed = parse_sse(&replay);
    assert_eq!(replayed.len(), stored["events"].as_array().unwrap().len() + 1);
    assert_eq!(replayed.last().unwrap().0, "end");
}

#[test]
fn cancel_stops_a_running_run_and_its_card_goes_back_to_to_do() {
    let a = api();
    let started = a.start(json!({"task": "wait for the signal"}));
    let run_id = started["runId"].as_str().unwrap().to_owned();
    wait_for("the run to be going", Duration::from_secs(10), || {
        let (_, run) = a.get(&format!("/api/runs/{run_id}"));
        (run["status"] == "running" && !run["attempts"].as_array().unwrap().is_empty()).then_some(())
    });
    // One run at a time: the next one waits (202), and is cancelled before it starts.
    let settings = a.engine.runner().settings().unwrap();
    a.engine.runner().set_settings(RunnerSettings { max_concurrent: 1, ..settings }).unwrap();
    let (status, waiting) = a.post("/api/runtimes/@worker/run", json!({"task": "wait in line"}));
    assert_eq!(status, StatusCode::ACCEPTED, "{waiting}");
    assert_eq!((&waiting["queued"], &waiting["status"]), (&json!(true), &json!("queued")));
    let waiting_id = waiting["runId"].as_str().unwrap();
    let (_, listed) = a.get("/api/runs");
    assert_eq!(listed["runs"][0]["runId"], waiting_id, "the waiting run is listed first");
    assert_eq!(listed["runs"][0]["status"], "queued");
    let (status, body) = a.post(&format!("/api/runs/{waiting_id}/cancel"), json!({}));
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let run = a.ended(waiting_id);
    assert_eq!(run["outcome"], "cancelled", "{run}");
    assert!(run["attempts"].as_array().unwrap().is_empty(), "it never started");

    let (status, body) = a.post(&format!("/api/runs/{run_id}/cancel"), json!({}));
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let run = a.ended(&run_id);
    assert_eq!(run["outcome"], "cancelled", "{run}");
    assert_eq!(run["attempts"][0]["status"], "cancelled");
    let card = a.engine.board().get(started["cardId"].as_str().unwrap()).unwrap();
    assert_eq!(card.status, CardStatus::Todo);
}

#[test]
fn search_and_an_agents_chats_answer_like_every_other_route() {
    let a = api();
    clawboo_testkit::seed_chat(&a.engine.config().database_path(), &a.agent_id, 3);

    let (status, body) = a.get("/api/search?q=question+3");
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["query"], "question 3");
    let message = body["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "message")
        .unwrap_or_else(|| panic!("a message among {body}"));
    assert!(message["messageId"].as_str().unwrap().starts_with("seed-u-"), "{message}");
    assert_eq!(message["thread"]["kind"], "chat");
    assert_eq!(message["thread"]["agentId"], a.agent_id.as_str());
    assert!(message["snippet"].as_array().unwrap().iter().any(|p| p["hit"] == true && p["text"] == "Question"));
    // Agents by name, and any text is a query (FTS syntax is only words here).
    let (_, body) = a.get("/api/search?q=work");
    assert!(body["results"].as_array().unwrap().iter().any(|r| r["kind"] == "agent" && r["id"] == a.agent_id.as_str()));
    for hostile in ["%22", "NEAR(a%20b", "-x", "*", "a%3Ab", "%F0%9F%A6%AD", "%25"] {
        let (status, body) = a.get(&format!("/api/search?q={hostile}"));
        assert_eq!(status, StatusCode::OK, "{hostile}: {body}");
    }
    let (status, body) = a.get("/api/search");
    assert_eq!((status, code(&body)), (StatusCode::BAD_REQUEST, "invalid_input"), "{body}");
    let (status, body) = a.get("/api/search?q=+");
    assert_eq!((status, code(&body)), (StatusCode::BAD_REQUEST, "invalid_input"), "{body}");
    let (status, body) = a.post("/api/search?q=x", json!({}));
    assert_eq!((status, code(&body)), (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"), "{body}");
    let (status, body) = a.send(a.client.get(format!("{}/api/search?q=x", a.base)));
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, "unauthorized"), "{body}");

    for key in ["worker", "%40worker", a.agent_id.as_str()] {
        let (status, body) = a.get(&format!("/api/chats?agent={key}"));
        assert_eq!(status, StatusCode::OK, "{key}: {body}");
        let chats = body["chats"].as_array().unwrap();
        assert_eq!(chats.len(), 1, "{body}");
        assert_eq!(chats[0]["agentId"], a.agent_id.as_str());
        assert_eq!(chats[0]["messages"], 6);
    }
    let (status, body) = a.get("/api/chats?agent=nobody");
    assert_eq!((status, code(&body)), (StatusCode::NOT_FOUND, "not_found"), "{body}");
    let (status, body) = a.get("/api/chats");
    assert_eq!((status, code(&body)), (StatusCode::BAD_REQUEST, "invalid_input"), "{body}");
}

/// `GET /api/chats` lists each of an agent's chats with its title, pin, archive mark, last
/// activity and message count; `GET /api/chats/:id/messages` reads one, like every other route.
#[test]
fn an_agents_many_chats_are_listed_with_titles_and_read_one_by_one() {
    let a = api();
    clawboo_testkit::seed_chat(&a.engine.config().database_path(), &a.agent_id, 2);
    let seeded = a.engine.chat().chats(&a.agent_id).unwrap()[0].id.clone();
    let named = a.engine.chat().new_chat(&a.agent_id).unwrap();
    a.engine.chat().rename_chat(&named.id, "Launch plan").unwrap();
    a.engine.chat().pin_chat(&named.id, true).unwrap();
    let archived = a.engine.chat().new_chat(&a.agent_id).unwrap();
    a.engine.chat().archive_chat(&archived.id, true).unwrap();

    let (status, body) = a.get("/api/chats?agent=worker");
    assert_eq!(status, StatusCode::OK, "{body}");
    let chats = body["chats"].as_array().unwrap();
    assert_eq!(chats.len(), 3, "{body}");
    assert_eq!(chats[0]["id"], named.id.as_str(), "pinned first: {body}");
    assert_eq!(
        (&chats[0]["title"], &chats[0]["pinned"], &chats[0]["messages"]),
        (&json!("Launch plan"), &json!(true), &json!(0))
    );
    let listed = |id: &str| chats.iter().find(|c| c["id"] == id).unwrap().clone();
    assert!(listed(&archived.id)["archivedAt"].is_i64());
    assert_eq!(listed(&seeded)["messages"], 4);
    assert!(listed(&seeded)["lastActivityAt"].is_i64());

    let (status, body) = a.get(&format!("/api/chats/{seeded}/messages"));
    assert_eq!(status, StatusCode::OK, "{body}");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    assert_eq!(
        (&messages[0]["seq"], &messages[0]["chatId"], &body["hasOlder"]),
        (&json!(1), &json!(seeded), &json!(false))
    );
    let (status, body) = a.get("/api/chats/no-such-chat/messages");
    assert_eq!((status, code(&body)), (StatusCode::NOT_FOUND, "not_found"), "{body}");
    let (status, body) = a.post(&format!("/api/chats/{seeded}/messages"), json!({}));
    assert_eq!((status, code(&body)), (StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed"), "{body}");
    let (status, body) = a.send(a.client.get(format!("{}/api/chats/{seeded}/messages", a.base)));
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, "unauthorized"), "{body}");
}

#[test]
fn budgets_limits_and_paused_scopes_are_readable() {
    use clawboo_engine::guard::{BudgetInput, BudgetPeriod, BudgetScope, BudgetUnit, Limits};
    let a = api();
    let guard = a.engine.guard();
    guard
        .set_budget(BudgetInput {
            scope: BudgetScope::Agent,
            scope_id: a.agent_id.clone(),
            period: BudgetPeriod::Month,
            unit: BudgetUnit::Usd,
            amount: 20_000_000,
        })
        .unwrap();
    guard.set_limits(Limits { runs_per_hour: 1, ..Limits::DEFAULT }).unwrap();
    a.engine.chat().send(&a.agent_id, "hello").unwrap();
    let refused = wait_for("the second run refused", Duration::from_secs(10), || {
        a.engine.chat().send(&a.agent_id, "again").err().filter(|e| e.code() == ErrorCode::Paused)
    });
    assert!(refused.to_string().contains("the limit is 1 runs an hour"), "{refused}");

    let (status, body) = a.get("/api/budgets");
    assert_eq!(status, StatusCode::OK, "{body}");
    let budget = &body["budgets"][0];
    assert_eq!((budget["scope"].as_str(), budget["scopeId"].as_str()), (Some("agent"), Some(a.agent_id.as_str())));
    assert_eq!((budget["period"].as_str(), budget["unit"].as_str()), (Some("month"), Some("usd")));
    assert_eq!((budget["amount"].as_u64(), budget["spent"].as_u64()), (Some(20_000_000), Some(0)));
    assert_eq!(body["limits"]["runsPerHour"], 1);
    assert_eq!(body["limits"]["handoffsPerTenMinutes"], 30);
    let paused = &body["paused"][0];
    assert_eq!((paused["scope"].as_str(), paused["scopeId"].as_str()), (Some("agent"), Some(a.agent_id.as_str())));
    assert_eq!(paused["breaker"], "runs_per_hour");
    let (status, body) = a.send(a.client.get(format!("{}/api/budgets", a.base)));
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, "unauthorized"), "{body}");
}

#[test]
fn usage_answers_per_scope_and_each_run_carries_its_tokens_and_cost() {
    let a = api();
    let started = a.start(json!({"task": "count the beans"}));
    let run_id = started["runId"].as_str().unwrap().to_owned();
    let card_id = started["cardId"].as_str().unwrap().to_owned();
    a.ended(&run_id);
    // One model call of the run, counted as the relay counts it: Sonnet 4.5, $3 in, $15 out,
    // $0.30 cache read per million → 3,000 + 1,500 + 300 = 4,800 µ$.
    let conn = rusqlite::Connection::open(a.engine.config().database_path()).unwrap();
    let usage = clawboo_engine::spend::Usage {
        input_tokens: 1_000,
        output_tokens: 100,
        cache_read_tokens: 1_000,
        cache_write_tokens: 0,
    };
    let now = clawboo_engine::vocab::now_ms();
    let cost =
        clawboo_engine::spend::record::record_relayed(&conn, &run_id, now, "anthropic", "claude-sonnet-4-5", &usage)
            .unwrap();
    assert_eq!(cost, Some(4_800));

    for query in [
        "scope=agent&id=worker",
        &format!("scope=agent&id={}", a.agent_id),
        &format!("scope=card&id={card_id}"),
        "scope=all",
    ] {
        let (status, body) = a.get(&format!("/api/usage?{query}"));
        assert_eq!(status, StatusCode::OK, "{query}: {body}");
        assert_eq!(body["tokens"], 2_100, "{query}: {body}");
        assert_eq!(body["costUsd"], "0.004800", "{query}: {body}");
        assert_eq!(body["totals"]["cacheReadTokens"], 1_000);
        assert_eq!(body["totals"]["unpricedTokens"], 0);
    }
    let (_, body) = a.get("/api/usage?scope=team&id=nobody&from=2020-01-01&to=2020-01-31");
    assert_eq!((body["tokens"].as_u64(), body["from"].as_str()), (Some(0), Some("2020-01-01")), "{body}");
    for bad in ["scope=galaxy", "scope=agent", "scope=card&id=x&from=soon", "scope=all&from=2026-02-01&to=2026-01-01"] {
        let (status, body) = a.get(&format!("/api/usage?{bad}"));
        assert_eq!((status, code(&body)), (StatusCode::BAD_REQUEST, "invalid_input"), "{bad}: {body}");
    }
    let (status, body) = a.get("/api/usage?scope=agent&id=nobody");
    assert_eq!((status, code(&body)), (StatusCode::NOT_FOUND, "not_found"), "{body}");

    let (_, run) = a.get(&format!("/api/runs/{run_id}"));
    assert_eq!(run["spend"]["costMicros"], 4_800, "{run}");
    assert_eq!(run["attempts"][0]["spend"]["model"], "claude-sonnet-4-5", "{run}");
    assert_eq!(run["attempts"][0]["spend"]["billing"], "api", "{run}");
}
