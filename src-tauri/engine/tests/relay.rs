//! The model relay over real loopback HTTP, in front of the fake model server: tokens, the real
//! key added on the way out, streaming, recorded bodies and usage for the three APIs, redirects
//! and plain-http upstreams refused, lasting tokens, and Native routed through it (inside the
//! app: no loopback hop, the same checks and records).
//! The relay runs alone on a store of its own, not in a `common::Fixture` engine: it is the part
//! under test.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::{Agent, RuntimeKind};
use clawboo_engine::loopback::ServerLimits;
use clawboo_engine::relay::{
    Relay, RelayedRequest, RequestUsage, Upstream, MAX_REQUESTS_AT_ONCE, MAX_REQUEST_BYTES, MAX_STORED_BODY_BYTES,
};
use clawboo_engine::runtimes::native::NativeRuntime;
use clawboo_engine::runtimes::{ApprovalPolicy, Endpoint, EndpointSource, RunChannels, RunOutcome, Runtime, TurnInput};
use clawboo_engine::secrets::Provider;
use clawboo_engine::store::Store;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, RecordedRequest};
use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};

const REAL_KEY: &str = "sk-REAL-KEY-relay-test-5f2c";

/// Settings and keychain, as the relay sees them: the fake server, with a real-looking key.
struct Provided {
    base_url: String,
    key: Option<String>,
}

impl Upstream for Provided {
    fn upstream(&self, _provider: Provider) -> clawboo_engine::Result<Endpoint> {
        Ok(Endpoint { base_url: self.base_url.clone(), api_key: self.key.clone() })
    }
}

struct Setup {
    _dir: tempfile::TempDir,
    relay: Arc<Relay>,
    client: reqwest::Client,
}

fn relay_to(base_url: String, key: Option<&str>) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("clawboo.db")).unwrap());
    let upstream = Arc::new(Provided { base_url, key: key.map(str::to_owned) });
    let relay = Relay::start(store, upstream, &tokio::runtime::Handle::current()).unwrap();
    Setup { _dir: dir, relay, client: reqwest::Client::new() }
}

/// The recorded requests of `run`, once `count` of them are stored (recording ends with the answer).
fn recorded(relay: &Relay, run: &str, count: usize) -> Vec<RelayedRequest> {
    wait_for("the relay to record the requests", Duration::from_secs(10), || {
        let requests = relay.requests(run).unwrap();
        (requests.len() >= count).then_some(requests)
    })
}

/// No header of what the provider received carries the token.
fn assert_no_token(request: &RecordedRequest, token: &str) {
    for (name, value) in &request.headers {
        assert!(!value.contains(token), "the token reached the provider in {name}");
    }
}

fn messages_body(stream: bool) -> Value {
    json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "stream": stream,
           "tools": [{"name": "Bash", "input_schema": {"type": "object"}}],
           "messages": [{"role": "user", "content": "Hello, relay. é"}]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_without_a_valid_token_are_refused_with_401() {
    let server = FakeModelServer::start(Behavior::text("never")).await;
    let s = relay_to(server.base_url(), Some(REAL_KEY));
    let url = format!("{}/v1/messages", s.relay.base_url(Provider::Anthropic));
    let granted = s.relay.grant("run-1", Provider::Anthropic).unwrap().api_key.unwrap();
    let openai_token = s.relay.grant("run-1", Provider::OpenAi).unwrap().api_key.unwrap();
    let revoked = s.relay.grant("run-2", Provider::Anthropic).unwrap().api_key.unwrap();
    s.relay.revoke("run-2");
    let cases: [(&str, Option<(&str, String)>); 5] = [
        ("no token", None),
        ("a made-up token", Some(("x-api-key", "clawboo-relay-madeup".into()))),
        ("the real key itself", Some(("x-api-key", REAL_KEY.into()))),
        ("a revoked token", Some(("authorization", format!("Bearer {revoked}")))),
        ("another provider's token", Some(("x-api-key", openai_token))),
    ];
    for (what, header) in cases {
        let mut request = s.client.post(&url).json(&messages_body(false));
        if let Some((name, value)) = header {
            request = request.header(name, value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401, "{what}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["type"], "authentication_error", "{what}");
        assert!(body["error"]["message"].as_str().unwrap().contains("relay"), "{what}: {body}");
    }
    assert!(server.requests().is_empty(), "nothing reached the provider");
    // A path outside the model APIs is refused even with a good token.
    let response = s
        .client
        .get(format!("{}/v1/files", s.relay.base_url(Provider::Anthropic)))
        .header("x-api-key", &granted)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    assert!(server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anthropic_streams_through_with_the_real_key_and_is_recorded_with_usage() {
    let server = FakeModelServer::start(Behavior::text("Hi from the model.")).await;
    let s = relay_to(format!("{}/v1", server.base_url()), Some(REAL_KEY));
    let endpoint = s.relay.grant("run-a", Provider::Anthropic).unwrap();
    let token = endpoint.api_key.clone().unwrap();
    assert!(endpoint.base_url.starts_with("http://127.0.0.1:") && endpoint.base_url.ends_with("/anthropic"));
    let response = s
        .client
        .post(format!("{}/v1/messages?beta=true", endpoint.base_url))
        .header("x-api-key", &token)
        .header("anthropic-version", "2023-06-01")
        .json(&messages_body(true))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let text = response.text().await.unwrap();
    assert!(text.contains("Hi from the model.") && text.contains("message_stop"), "{text}");

    let seen = &server.requests()[0];
    assert_eq!((seen.path.as_str(), seen.query.as_str()), ("/v1/messages", "beta=true"));
    assert_eq!(seen.header("x-api-key"), Some(REAL_KEY));
    assert_eq!(seen.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(seen.header("authorization"), None);
    assert_no_token(seen, &token);

    let records = recorded(&s.relay, "run-a", 1);
    let record = &records[0];
    assert_eq!((record.seq, record.status, record.provider), (1, 200, Provider::Anthropic));
    assert_eq!(record.path, "/v1/messages?beta=true");
    assert_eq!(record.body.as_deref(), Some(seen.raw_body.as_str()), "the exact body the model received");
    assert!(record.body_complete);
    assert_eq!(record.body_bytes, seen.raw_body.len() as u64);
    let input = (seen.raw_body.len() as u64 / 4).max(1);
    let usage = record.usage.clone().expect("usage");
    assert_eq!(
        (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens),
        (Some(input), Some(0), Some(0))
    );
    assert!(usage.output_tokens.unwrap() >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_and_chat_completions_stream_through_with_usage_streamed_or_not() {
    let server = FakeModelServer::start(Behavior::text("Fine.")).await;
    let s = relay_to(format!("{}/v1/", server.base_url()), Some(REAL_KEY));
    let endpoint = s.relay.grant("run-o", Provider::OpenAi).unwrap();
    let token = endpoint.api_key.clone().unwrap();
    assert!(endpoint.base_url.ends_with("/openai/v1"));
    let tools = json!([{"type": "function", "name": "shell", "parameters": {"type": "object"}}]);
    let chat_tools = json!([{"type": "function", "function": {"name": "shell", "parameters": {"type": "object"}}}]);
    let bodies = [
        ("responses", json!({"model": "gpt-5.5", "stream": true, "tools": tools, "input": "Hi"})),
        ("responses", json!({"model": "gpt-5.5", "stream": false, "tools": tools, "input": "Hi"})),
        (
            "chat/completions",
            json!({"model": "m", "stream": true, "stream_options": {"include_usage": true}, "tools": chat_tools,
                   "messages": [{"role": "user", "content": "Hi"}]}),
        ),
        (
            "chat/completions",
            json!({"model": "m", "tools": chat_tools, "messages": [{"role": "user", "content": "Hi"}]}),
        ),
    ];
    for (path, body) in &bodies {
        let response =
            s.client.post(format!("{}/{path}", endpoint.base_url)).bearer_auth(&token).json(body).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert!(response.text().await.unwrap().contains("Fine."), "{path}");
    }
    let seen = server.requests();
    let records = recorded(&s.relay, "run-o", bodies.len());
    for (i, record) in records.iter().enumerate() {
        assert_eq!(seen[i].header("authorization"), Some(format!("Bearer {REAL_KEY}").as_str()));
        assert_no_token(&seen[i], &token);
        assert_eq!(record.seq as usize, i + 1);
        assert_eq!(record.path, format!("/v1/{}", bodies[i].0));
        assert_eq!(record.body.as_deref(), Some(seen[i].raw_body.as_str()));
        let input = (seen[i].raw_body.len() as u64 / 4).max(1);
        let usage = record.usage.clone().unwrap_or_else(|| panic!("usage of request {i}"));
        assert_eq!(
            (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens),
            (Some(input), Some(0), None)
        );
        assert!(usage.output_tokens.unwrap() >= 1, "{i}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_provider_without_a_key_sends_no_authorization_and_models_carry_no_usage() {
    let server = FakeModelServer::start(Behavior::text("Local.")).await;
    let s = relay_to(format!("{}/v1", server.base_url()), None);
    let endpoint = s.relay.endpoint(Provider::Custom, "run-c").unwrap();
    let response = s
        .client
        .get(format!("{}/models", endpoint.base_url))
        .bearer_auth(endpoint.api_key.unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let models: Value = response.json().await.unwrap();
    assert!(models["data"].as_array().is_some_and(|d| !d.is_empty()));
    assert_eq!(server.requests()[0].header("authorization"), None);
    let records = recorded(&s.relay, "run-c", 1);
    assert_eq!(
        (records[0].method.as_str(), records[0].path.as_str(), records[0].usage.clone()),
        ("GET", "/v1/models", None)
    );
    // Without a key, the other providers fail before a token is handed out, with the fix.
    let err = s.relay.endpoint(Provider::Anthropic, "run-c").unwrap_err();
    assert_eq!(err.code(), clawboo_engine::ErrorCode::MissingApiKey);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_is_never_followed_with_the_key() {
    let elsewhere = FakeModelServer::start(Behavior::text("stolen")).await;
    let server = FakeModelServer::start(Behavior::redirect(format!("{}/v1/messages", elsewhere.base_url()))).await;
    let s = relay_to(server.base_url(), Some(REAL_KEY));
    let endpoint = s.relay.grant("run-r", Provider::Anthropic).unwrap();
    let response = s
        .client
        .post(format!("{}/v1/messages", endpoint.base_url))
        .header("x-api-key", endpoint.api_key.unwrap())
        .json(&messages_body(false))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 502);
    let body: Value = response.json().await.unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("redirect") && message.contains("307"), "{message}");
    assert!(!message.contains(REAL_KEY));
    assert_eq!(server.requests().len(), 1, "the provider was asked once");
    assert!(elsewhere.requests().is_empty(), "the redirect target got nothing");
    assert_eq!(recorded(&s.relay, "run-r", 1)[0].status, 307);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_to_a_remote_host_is_refused_before_anything_is_sent() {
    // A host name that is not this machine: refused by rule, whether or not it resolves.
    let s = relay_to("http://models.example.test/v1".into(), Some(REAL_KEY));
    let endpoint = s.relay.grant("run-h", Provider::OpenAi).unwrap();
    let response = s
        .client
        .post(format!("{}/responses", endpoint.base_url))
        .bearer_auth(endpoint.api_key.unwrap())
        .json(&json!({"model": "m", "input": "hi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 502);
    let body: Value = response.json().await.unwrap();
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("Refused") && message.contains("https://"), "{message}");
    assert!(s.relay.requests("run-h").unwrap().is_empty(), "nothing was sent, so nothing recorded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lasting_token_stays_the_same_follows_the_holders_latest_run_and_ends_with_it() {
    let server = FakeModelServer::start(Behavior::text("ok")).await;
    let s = relay_to(server.base_url(), Some(REAL_KEY));
    let first = s.relay.lasting_endpoint(Provider::Anthropic, "agent-1", "run-1").unwrap();
    s.relay.revoke("run-1");
    let second = s.relay.lasting_endpoint(Provider::Anthropic, "agent-1", "run-2").unwrap();
    assert_eq!(first, second, "the Gateway's configuration does not change between turns");
    let other = s.relay.lasting_endpoint(Provider::Anthropic, "agent-2", "run-3").unwrap();
    assert_ne!(first.api_key, other.api_key);
    let send = || {
        s.client
            .post(format!("{}/v1/messages/count_tokens", second.base_url))
            .header("x-api-key", second.api_key.clone().unwrap())
            .json(&messages_body(false))
            .send()
    };
    assert_eq!(send().await.unwrap().status(), 200);
    let records = recorded(&s.relay, "run-2", 1);
    assert_eq!((records[0].path.as_str(), records[0].usage.clone()), ("/v1/messages/count_tokens", None));
    assert!(s.relay.requests("run-1").unwrap().is_empty());
    s.relay.revoke("run-2");
    assert_eq!(send().await.unwrap().status(), 401, "between runs the Gateway's token calls nothing");
    let third = s.relay.lasting_endpoint(Provider::Anthropic, "agent-1", "run-3").unwrap();
    assert_eq!(third, second, "the next run brings the same token back");
    assert_eq!(send().await.unwrap().status(), 200);
    s.relay.release("agent-1");
    assert_eq!(send().await.unwrap().status(), 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_cap_is_stored_up_to_the_cap_and_forwarded_whole() {
    let server = FakeModelServer::start(Behavior::text("ok")).await;
    let s = relay_to(server.base_url(), Some(REAL_KEY));
    let endpoint = s.relay.grant("run-big", Provider::Anthropic).unwrap();
    let big = "x".repeat(MAX_STORED_BODY_BYTES + 1000);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": big}]}).to_string();
    let response = s
        .client
        .post(format!("{}/v1/messages/count_tokens", endpoint.base_url))
        .header("x-api-key", endpoint.api_key.unwrap())
        .header("content-type", "application/json")
        .body(body.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(server.requests()[0].raw_body.len(), body.len(), "forwarded whole");
    let record = &recorded(&s.relay, "run-big", 1)[0];
    assert!(!record.body_complete);
    assert_eq!(record.body_bytes, body.len() as u64);
    assert_eq!(record.body.as_deref().map(str::len), Some(MAX_STORED_BODY_BYTES));
    assert!(body.starts_with(record.body.as_deref().unwrap()));
}

/// An upstream that holds every answer until `open` is set, so requests stay in flight; counts
/// the requests that reached it.
struct Held {
    base_url: String,
    arrived: Arc<AtomicUsize>,
    open: watch::Sender<bool>,
}

async fn held_upstream() -> Held {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let arrived = Arc::new(AtomicUsize::new(0));
    let (open, gate) = watch::channel(false);
    let count = arrived.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (count, gate) = (count.clone(), gate.clone());
            let service = hyper::service::service_fn(move |_request| {
                let (count, mut gate) = (count.clone(), gate.clone());
                async move {
                    count.fetch_add(1, Ordering::SeqCst);
                    let _ = gate.wait_for(|open| *open).await;
                    let body = json!({"type": "message", "usage": {"input_tokens": 3, "output_tokens": 1}});
                    let mut response =
                        hyper::Response::new(http_body_util::Full::new(bytes::Bytes::from(body.to_string())));
                    response.headers_mut().insert("content-type", "application/json".parse().unwrap());
                    Ok::<_, std::convert::Infallible>(response)
                }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(io, service));
        }
    });
    Held { base_url, arrived, open }
}

/// Waits (without blocking the runtime) until `done`; the limit only guards against a hang.
async fn until(what: &str, done: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(std::time::Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_has_at_most_8_requests_in_flight_and_one_more_is_refused_with_429() {
    assert_eq!(MAX_REQUESTS_AT_ONCE, 8);
    let upstream = held_upstream().await;
    let s = relay_to(upstream.base_url.clone(), Some(REAL_KEY));
    // Two tokens of one run share its bound; another run has its own.
    let (one, two) =
        (s.relay.grant("run-1", Provider::Anthropic).unwrap(), s.relay.grant("run-1", Provider::Anthropic).unwrap());
    let other = s.relay.grant("run-2", Provider::Anthropic).unwrap();
    let send_this = |endpoint: &Endpoint, body: &Value| {
        let request = s
            .client
            .post(format!("{}/v1/messages", endpoint.base_url))
            .header("x-api-key", endpoint.api_key.clone().unwrap())
            .json(body);
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.text().await.unwrap())
        }
    };
    let send = |endpoint: &Endpoint| send_this(endpoint, &messages_body(false));
    let held: Vec<_> = (0..8).map(|i| tokio::spawn(send(if i % 2 == 0 { &one } else { &two }))).collect();
    until("8 requests of run-1 to reach the model", || upstream.arrived.load(Ordering::SeqCst) == 8).await;

    // A long conversation is refused as clearly as a short one (its client, still sending,
    // reads the 429 rather than a broken pipe).
    let long = json!({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "x".repeat(8 << 20)}]});
    for (endpoint, body) in [(&one, messages_body(false)), (&two, long)] {
        let (status, body) = send_this(endpoint, &body).await;
        assert_eq!(status, 429, "{body}");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["error"]["type"], "rate_limit_error");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("at most 8 model requests in flight"), "{message}");
    }
    let elsewhere = tokio::spawn(send(&other));
    until("run-2's request to reach the model", || upstream.arrived.load(Ordering::SeqCst) == 9).await;

    upstream.open.send(true).unwrap();
    for request in held.into_iter().chain([elsewhere]) {
        let (status, body) = request.await.unwrap();
        assert_eq!(status, 200, "{body}");
    }
    // Their slots came back with their answers.
    assert_eq!(send(&one).await.0, 200);
    assert_eq!(upstream.arrived.load(Ordering::SeqCst), 10, "the refused requests never reached the model");
    let records = recorded(&s.relay, "run-1", 9);
    let seqs: Vec<u32> = records.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (1..=9).collect::<Vec<_>>(), "the refused ones are not recorded and took no number");
    assert_eq!(recorded(&s.relay, "run-2", 1).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_32_mib_is_refused_with_413_and_neither_forwarded_nor_recorded() {
    assert_eq!(MAX_REQUEST_BYTES, 32 * 1024 * 1024);
    let server = FakeModelServer::start(Behavior::text("ok")).await;
    let s = relay_to(server.base_url(), Some(REAL_KEY));
    let endpoint = s.relay.grant("run-big", Provider::Anthropic).unwrap();
    let token = endpoint.api_key.clone().unwrap();
    let url = format!("{}/v1/messages", endpoint.base_url);
    let big = bytes::Bytes::from(vec![b' '; MAX_REQUEST_BYTES + 1]);
    // With its length declared, and streamed without one (chunked).
    let declared = s.client.post(&url).body(big.clone());
    let pieces: Vec<Result<bytes::Bytes, std::io::Error>> =
        (0..big.len()).step_by(1 << 20).map(|at| Ok(big.slice(at..(at + (1 << 20)).min(big.len())))).collect();
    let chunked = s.client.post(&url).body(reqwest::Body::wrap_stream(futures_util::stream::iter(pieces)));
    for (how, request) in [("declared", declared), ("chunked", chunked)] {
        let response =
            request.header("x-api-key", &token).header("content-type", "application/json").send().await.unwrap();
        assert_eq!(response.status(), 413, "{how}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["type"], "request_too_large", "{how}");
        assert!(body["error"]["message"].as_str().unwrap().contains("over 32 MiB"), "{how}: {body}");
    }
    assert!(server.requests().is_empty(), "nothing reached the provider");
    // The next request is the run's first.
    let response = s.client.post(&url).header("x-api-key", &token).json(&messages_body(false)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let records = recorded(&s.relay, "run-big", 1);
    assert_eq!((records.len(), records[0].seq), (1, 1));
}

fn native_input(workspace: &Path, run_id: &str) -> TurnInput {
    let agent = Agent {
        id: "agent-n".into(),
        name: "Nat".into(),
        handle: "nat".into(),
        model: "some-model".into(),
        provider: Some(Provider::Anthropic),
        ..common::agent_record(RuntimeKind::Native, ApprovalPolicy::Ask)
    };
    TurnInput { run_id: run_id.into(), ..common::turn_input(agent, workspace, workspace, "Hi") }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_reaches_the_model_through_the_relay_without_holding_the_key() {
    let server = FakeModelServer::start(Behavior::text("Native answer.")).await;
    let s = relay_to(server.base_url(), Some(REAL_KEY));
    let native = NativeRuntime::new(s.relay.clone());
    let workspace = tempfile::tempdir().unwrap();
    let (events, _events_rx) = mpsc::unbounded_channel();
    let (permissions, _permissions_rx) = mpsc::unbounded_channel();
    let (_cancel, cancel) = watch::channel(false);
    let result =
        native.run(native_input(workspace.path(), "run-n"), RunChannels { events, permissions, cancel }).await.unwrap();
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?}");
    let seen = &server.model_requests()[0];
    assert_eq!(seen.header("x-api-key"), Some(REAL_KEY));
    let record = &recorded(&s.relay, "run-n", 1)[0];
    assert_eq!(record.body.as_deref(), Some(seen.raw_body.as_str()));
    let usage: RequestUsage = record.usage.clone().unwrap();
    assert_eq!(usage.input_tokens, Some((seen.raw_body.len() as u64 / 4).max(1)));
}

/// The relay's only loopback connection, held by a client that never finishes its request: a
/// request over loopback waits; one made inside the app does not.
async fn relay_with_loopback_held(server: &FakeModelServer) -> (Setup, tokio::net::TcpStream) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("clawboo.db")).unwrap());
    let upstream = Arc::new(Provided { base_url: server.base_url(), key: Some(REAL_KEY.into()) });
    let limits = ServerLimits { header_read_timeout: Duration::from_secs(600), max_connections: 1 };
    let relay = Relay::start_with(store, upstream, &tokio::runtime::Handle::current(), limits).unwrap();
    let mut held = tokio::net::TcpStream::connect(relay.url().trim_start_matches("http://")).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut held, b"POST /anthropic/v1/mess").await.unwrap();
    let s = Setup { _dir: dir, relay, client: reqwest::Client::new() };
    // Over loopback, a request now waits for the held connection.
    let url = format!("{}/v1/messages", s.relay.base_url(Provider::Anthropic));
    let over_loopback = s.client.post(&url).timeout(Duration::from_millis(500)).json(&messages_body(false)).send();
    assert!(over_loopback.await.unwrap_err().is_timeout(), "the held connection blocks the loopback server");
    (s, held)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn native_reaches_the_relay_inside_the_app_with_its_token_checked_and_its_request_recorded() {
    let server = FakeModelServer::start(Behavior::text("Native answer, in process.")).await;
    let (s, _held) = relay_with_loopback_held(&server).await;
    let native = NativeRuntime::new(s.relay.clone());
    let workspace = tempfile::tempdir().unwrap();
    let (events, _events_rx) = mpsc::unbounded_channel();
    let (permissions, _permissions_rx) = mpsc::unbounded_channel();
    let (_cancel, cancel) = watch::channel(false);
    let run = native.run(native_input(workspace.path(), "run-in"), RunChannels { events, permissions, cancel });
    let result = tokio::time::timeout(Duration::from_secs(30), run).await.expect("not over loopback").unwrap();
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?}");
    let seen = &server.model_requests()[0];
    assert_eq!(seen.header("x-api-key"), Some(REAL_KEY), "the key added on the way out");
    assert!(seen.header(clawboo_engine::relay::CLIENT_RETRIES_HEADER).is_none());
    let record = &recorded(&s.relay, "run-in", 1)[0];
    assert_eq!(record.body.as_deref(), Some(seen.raw_body.as_str()), "recorded as the model received it");
    assert!(record.usage.is_some(), "its usage counted");

    // Its run's token ended: refused as over loopback, and Native says the relay's reason.
    s.relay.revoke("run-in");
    let (events, _events_rx) = mpsc::unbounded_channel();
    let (permissions, _permissions_rx) = mpsc::unbounded_channel();
    let (_cancel, cancel) = watch::channel(false);
    let revoked = NativeRuntime::new(Arc::new(Revoking(s.relay.clone())));
    let run = revoked.run(native_input(workspace.path(), "run-out"), RunChannels { events, permissions, cancel });
    let result = tokio::time::timeout(Duration::from_secs(30), run).await.unwrap().unwrap();
    assert_eq!(result.outcome, RunOutcome::Failed);
    let message = result.message.unwrap_or_default();
    assert!(message.contains("401") && message.contains("token is not valid"), "{message}");
    assert_eq!(server.model_requests().len(), 1, "the refused request never reached the model");
}

/// The relay's endpoints, each token revoked as soon as it is given.
struct Revoking(Arc<Relay>);

impl EndpointSource for Revoking {
    fn endpoint(&self, provider: Provider, run_id: &str) -> clawboo_engine::Result<Endpoint> {
        let endpoint = self.0.endpoint(provider, run_id)?;
        self.0.revoke(run_id);
        Ok(endpoint)
    }

    fn in_process(&self, endpoint: &Endpoint) -> Option<Arc<dyn clawboo_engine::runtimes::InProcessRoute>> {
        self.0.in_process(endpoint)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_process_route_is_the_relays_own_and_refuses_what_loopback_refuses() {
    let server = FakeModelServer::start(Behavior::text("ok")).await;
    let (s, _held) = relay_with_loopback_held(&server).await;
    let endpoint = s.relay.grant("run-1", Provider::Anthropic).unwrap();
    let route = s.relay.in_process(&endpoint).expect("the relay's own endpoint");
    // Only the relay's own endpoints: not another server's, nor a port that merely starts alike.
    let elsewhere = Endpoint { base_url: server.base_url(), api_key: endpoint.api_key.clone() };
    assert!(s.relay.in_process(&elsewhere).is_none());
    let alike = Endpoint { base_url: format!("{}0/anthropic", s.relay.url()), api_key: None };
    assert!(s.relay.in_process(&alike).is_none());

    let token = endpoint.api_key.clone().unwrap();
    let url = format!("{}/v1/messages", endpoint.base_url);
    let send = |path: String, key: &str, body: bytes::Bytes| {
        let request = s.client.post(path).header("x-api-key", key).body(body.clone()).build().unwrap();
        route.send(request, body)
    };
    let body = bytes::Bytes::from(messages_body(false).to_string());
    let answer = send(url.clone(), "clawboo-relay-madeup", body.clone()).await;
    assert_eq!(answer.status(), 401);
    let refusal: Value = answer.json().await.unwrap();
    assert_eq!(refusal["error"]["type"], "authentication_error", "{refusal}");
    let answer = send(format!("{}/v1/files", endpoint.base_url), &token, body.clone()).await;
    assert_eq!(answer.status(), 404);
    let big = bytes::Bytes::from(vec![b' '; MAX_REQUEST_BYTES + 1]);
    let answer = send(url.clone(), &token, big).await;
    assert_eq!(answer.status(), 413);
    assert!(server.requests().is_empty(), "nothing refused reached the provider");

    let answer = send(url, &token, body.clone()).await;
    assert_eq!(answer.status(), 200);
    assert!(answer.text().await.unwrap().contains("ok"));
    let records = recorded(&s.relay, "run-1", 1);
    assert_eq!((records.len(), records[0].seq), (1, 1), "the refused ones took no number");
    assert_eq!(records[0].body.as_deref().map(str::as_bytes), Some(&body[..]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_brief_upstream_failure_is_retried_before_the_client_hears_of_it_and_each_retry_is_said() {
    let server = FakeModelServer::start(Behavior::text("After the retries.")).await;
    let s = relay_to(server.base_url(), Some(REAL_KEY));
    s.relay.set_retry_waits(vec![Duration::from_millis(20), Duration::from_millis(20)]);
    let token = s.relay.grant("run-r", Provider::Anthropic).unwrap().api_key.unwrap();
    let (events, mut said) = mpsc::unbounded_channel();
    s.relay.report_retries_to("run-r", events);
    let url = format!("{}/v1/messages", s.relay.base_url(Provider::Anthropic));
    let send = || s.client.post(&url).header("x-api-key", &token).json(&messages_body(false)).send();

    // Two 503s, then the answer: the client sees only the answer.
    server.fail_next(2);
    let response = send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.text().await.unwrap().contains("After the retries."));
    assert_eq!(server.model_requests().len(), 3, "sent once and retried twice");
    let warnings: Vec<String> = std::iter::from_fn(|| said.try_recv().ok())
        .map(|event| match event {
            clawboo_engine::runtimes::RunEvent::Warning { message } => message,
            other => panic!("only warnings are said: {other:?}"),
        })
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("HTTP 503") && warnings[0].contains("tries again in 1 s (1 of 2)"), "{warnings:?}");
    assert!(warnings[1].contains("(2 of 2)"), "{warnings:?}");
    let records = recorded(&s.relay, "run-r", 1);
    assert_eq!((records.len(), records[0].status), (1, 200), "the request is recorded once, as answered");

    // More failures than waits: the provider's own error reaches the client after the last try.
    server.fail_next(3);
    let response = send().await.unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(server.model_requests().len(), 6);

    // A client that retries by itself gets the failure at once, and the header goes no further.
    server.fail_next(1);
    let response = s
        .client
        .post(&url)
        .header("x-api-key", &token)
        .header(clawboo_engine::relay::CLIENT_RETRIES_HEADER, "1")
        .json(&messages_body(false))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(server.model_requests().len(), 7, "sent once");
    assert!(server.model_requests()[6].header(clawboo_engine::relay::CLIENT_RETRIES_HEADER).is_none());

    // A client error is never retried.
    let bad = s.client.post(&url).header("x-api-key", &token).body("not json").send().await.unwrap();
    assert!(bad.status().is_success() || bad.status().is_client_error());
    assert_eq!(server.model_requests().len(), 8, "sent once");
}
