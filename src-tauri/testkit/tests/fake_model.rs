//! Drives the fake model server over raw TCP, as the CLIs would.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use clawboo_testkit::{Behavior, FakeModelServer};
use serde_json::{json, Value};

struct HttpReply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl HttpReply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("JSON body")
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// (event name, parsed data) for every SSE frame; `[DONE]` becomes a string.
    fn events(&self) -> Vec<(String, Value)> {
        self.body
            .split("\n\n")
            .filter(|frame| !frame.trim().is_empty())
            .map(|frame| {
                let mut name = String::new();
                let mut data = String::new();
                for line in frame.lines() {
                    if let Some(v) = line.strip_prefix("event: ") {
                        name = v.to_string();
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        data = v.to_string();
                    }
                }
                (name, serde_json::from_str(&data).unwrap_or(Value::String(data)))
            })
            .collect()
    }
}

fn connect(server: &FakeModelServer) -> TcpStream {
    let addr = server.base_url().strip_prefix("http://").expect("http base url").to_string();
    let stream = TcpStream::connect(addr).expect("connect to the fake model server");
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream
}

fn send(stream: &mut TcpStream, method: &str, target: &str, body: Option<&Value>) {
    let body = body.map(Value::to_string).unwrap_or_default();
    let request = format!(
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: sk-test\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
}

fn parse(raw: &[u8]) -> HttpReply {
    let text = String::from_utf8_lossy(raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a complete response head");
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split_whitespace().nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> =
        lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_string(), v.trim().to_string())).collect();
    let chunked = headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v == "chunked");
    let body = if chunked { dechunk(body) } else { body.to_string() };
    HttpReply { status, headers, body }
}

fn dechunk(mut data: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = data.split_once("\r\n").expect("chunk size line");
        let size = usize::from_str_radix(size, 16).expect("hex chunk size");
        if size == 0 {
            return out;
        }
        out.push_str(&rest[..size]);
        data = &rest[size + 2..];
    }
}

fn call(server: &FakeModelServer, method: &str, target: &str, body: Option<Value>) -> HttpReply {
    let mut stream = connect(server);
    send(&mut stream, method, target, body.as_ref());
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the whole response");
    parse(&raw)
}

fn names(events: &[(String, Value)]) -> Vec<&str> {
    events.iter().map(|(name, _)| name.as_str()).collect()
}

fn shell_input() -> Value {
    json!({"command": "echo hello-from-tool"})
}

#[test]
fn anthropic_stream_asks_for_the_shell_tool_then_answers() {
    let server = FakeModelServer::start_blocking(Behavior::tool_then_answer("*", shell_input(), "All done."));
    let tools = json!([{"name": "Read", "input_schema": {}}, {"name": "Bash", "input_schema": {}}]);
    let user = json!({"role": "user", "content": [{"type": "text", "text": "run it"}]});
    let first = call(
        &server,
        "POST",
        "/v1/messages?beta=true",
        Some(json!({"model": "claude-sonnet-4-5", "stream": true, "tools": tools, "messages": [user]})),
    );
    assert_eq!(first.status, 200);
    assert_eq!(first.header("content-type"), Some("text/event-stream"));
    let events = first.events();
    assert_eq!(
        names(&events),
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    let usage = &events[0].1["message"]["usage"];
    for key in ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] {
        assert!(usage[key].is_u64(), "message_start usage lacks {key}: {usage}");
    }
    let block = &events[1].1["content_block"];
    assert_eq!((block["type"].as_str(), block["name"].as_str()), (Some("tool_use"), Some("Bash")));
    let delta = &events[2].1["delta"];
    assert_eq!(delta["type"], "input_json_delta");
    assert_eq!(serde_json::from_str::<Value>(delta["partial_json"].as_str().unwrap()).unwrap(), shell_input());
    assert_eq!(events[4].1["delta"]["stop_reason"], "tool_use");

    let tool_use = json!({"role": "assistant", "content": [{"type": "tool_use", "id": block["id"], "name": "Bash", "input": shell_input()}]});
    let result = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": block["id"], "content": "hello-from-tool"}]});
    let second = call(
        &server,
        "POST",
        "/v1/messages?beta=true",
        Some(json!({"model": "m", "stream": true, "tools": tools, "messages": [user, tool_use, result]})),
    );
    let events = second.events();
    let text: String = events
        .iter()
        .filter(|(n, _)| n == "content_block_delta")
        .map(|(_, d)| d["delta"]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(text, "All done.");
    assert_eq!(events[4].1["delta"]["stop_reason"], "end_turn");

    let requests = server.model_requests();
    assert_eq!(requests.len(), 2);
    assert_eq!((requests[0].path.as_str(), requests[0].query.as_str()), ("/v1/messages", "beta=true"));
    assert_eq!(requests[0].header("X-API-KEY"), Some("sk-test"));
    assert_eq!(requests[1].body["messages"][2]["content"][0]["type"], "tool_result");
}

#[test]
fn anthropic_plain_json_count_tokens_and_tool_free_requests() {
    let server = FakeModelServer::start_blocking(Behavior::text("Hello there."));
    let tools = json!([{"name": "Bash", "input_schema": {}}]);
    let reply = call(
        &server,
        "POST",
        "/v1/messages",
        Some(json!({"model": "m", "tools": tools, "messages": [{"role": "user", "content": "hi"}]})),
    )
    .json();
    assert_eq!(reply["type"], "message");
    assert_eq!(reply["content"][0]["text"], "Hello there.");
    assert_eq!(reply["stop_reason"], "end_turn");
    assert!(reply["usage"]["cache_creation_input_tokens"].is_u64());

    let title = call(&server, "POST", "/v1/messages", Some(json!({"messages": [{"role": "user", "content": "t"}]})));
    assert_eq!(title.json()["content"][0]["text"], "Title");

    let count = call(&server, "POST", "/v1/messages/count_tokens?beta=true", Some(json!({"messages": []})));
    assert!(count.json()["input_tokens"].as_u64().unwrap() > 0);
    assert_eq!(server.requests().len(), 3);
    assert_eq!(server.model_requests().len(), 2, "count_tokens is not a model turn");
}

#[test]
fn scripted_failures_named_for_a_turn_leave_other_turns_answered() {
    let server = FakeModelServer::start_blocking(Behavior::text("Hello there."));
    let turn = |text: &str| Some(json!({"model": "m", "messages": [{"role": "user", "content": text}]}));
    let armed =
        call(&server, "POST", "/testkit/fail-next", Some(json!({"count": 2, "status": 500, "only": "Count the jars"})));
    assert_eq!(armed.json()["only"], "Count the jars");

    // Another agent's turn arriving meanwhile (a routine firing) is answered, and takes no failure.
    assert_eq!(call(&server, "POST", "/v1/messages", turn("Tally the morning orders")).status, 200);
    assert_eq!(call(&server, "POST", "/v1/messages", turn("Count the jars, please")).status, 500);
    assert_eq!(call(&server, "POST", "/v1/messages", turn("Tally the morning orders")).status, 200);
    assert_eq!(call(&server, "POST", "/v1/messages", turn("Count the jars, please")).status, 500);
    // Both failures spent: the named turn is answered again.
    assert_eq!(call(&server, "POST", "/v1/messages", turn("Count the jars, please")).status, 200);

    // Without `only`, the next request fails whatever it says.
    call(&server, "POST", "/testkit/fail-next", Some(json!({"count": 1, "status": 500})));
    assert_eq!(call(&server, "POST", "/v1/messages", turn("Tally the morning orders")).status, 500);
    assert_eq!(call(&server, "POST", "/v1/messages", turn("Tally the morning orders")).status, 200);

    // A 4xx is a refusal (which no client tries again), said as the provider would.
    call(&server, "POST", "/testkit/fail-next", Some(json!({"count": 1, "status": 400})));
    let refused = call(&server, "POST", "/v1/messages", turn("Tally the morning orders"));
    assert_eq!(refused.status, 400);
    assert_eq!(refused.json()["error"]["type"], "invalid_request_error");
}

#[test]
fn chat_completions_stream_a_tool_call_then_text_with_usage() {
    let server = FakeModelServer::start_blocking(Behavior::tool_then_answer("*", shell_input(), "All done."));
    let tools = json!([{"type": "function", "function": {"name": "read_file"}}, {"type": "function", "function": {"name": "terminal"}}]);
    let mut messages = vec![json!({"role": "system", "content": "s"}), json!({"role": "user", "content": "run it"})];
    let request = |messages: &Vec<Value>| json!({"model": "some-model", "stream": true, "stream_options": {"include_usage": true}, "tools": tools, "messages": messages});
    let first = call(&server, "POST", "/v1/chat/completions", Some(request(&messages))).events();
    assert_eq!(first.last().unwrap().1, "[DONE]");
    let call0 = &first[0].1["choices"][0]["delta"]["tool_calls"][0];
    assert_eq!((call0["index"].as_u64(), call0["function"]["name"].as_str()), (Some(0), Some("terminal")));
    let arguments = first[1].1["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(arguments).unwrap(), shell_input());
    assert_eq!(first[2].1["choices"][0]["finish_reason"], "tool_calls");
    let usage_chunk = &first[first.len() - 2].1;
    assert_eq!(usage_chunk["choices"], json!([]));
    assert!(usage_chunk["usage"]["prompt_tokens_details"]["cached_tokens"].is_u64());
    assert!(usage_chunk["usage"]["completion_tokens"].is_u64());

    messages.push(json!({"role": "assistant", "tool_calls": [{"id": call0["id"], "type": "function", "function": {"name": "terminal", "arguments": arguments}}]}));
    messages.push(json!({"role": "tool", "tool_call_id": call0["id"], "content": "hello-from-tool"}));
    let second = call(&server, "POST", "/v1/chat/completions", Some(request(&messages))).events();
    let text: String = second.iter().filter_map(|(_, d)| d["choices"][0]["delta"]["content"].as_str()).collect();
    assert_eq!(text, "All done.");
    assert!(second.iter().any(|(_, d)| d["choices"][0]["finish_reason"] == "stop"));

    let plain =
        call(&server, "POST", "/v1/chat/completions", Some(json!({"tools": tools, "messages": messages}))).json();
    assert_eq!(plain["choices"][0]["message"]["content"], "All done.");
    assert_eq!(plain["choices"][0]["finish_reason"], "stop");
}

#[test]
fn responses_stream_a_function_call_then_text() {
    let input = json!({"cmd": "echo hello-from-tool"});
    let server = FakeModelServer::start_blocking(Behavior::tool_then_answer("*", input.clone(), "All done."));
    let tools = json!([
        {"type": "custom", "name": "apply_patch"},
        {"type": "function", "name": "exec_command", "parameters": {}},
        {"type": "web_search"},
    ]);
    let mut items =
        vec![json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run it"}]})];
    let first = call(
        &server,
        "POST",
        "/v1/responses",
        Some(json!({"model": "gpt-5.5", "stream": true, "tools": tools, "input": items})),
    )
    .events();
    assert_eq!(
        names(&first),
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed"
        ]
    );
    let item = &first[5].1["item"];
    assert_eq!((item["type"].as_str(), item["name"].as_str()), (Some("function_call"), Some("exec_command")));
    assert_eq!(serde_json::from_str::<Value>(item["arguments"].as_str().unwrap()).unwrap(), input);
    let seqs: Vec<u64> = first.iter().map(|(_, d)| d["sequence_number"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (0..7).collect::<Vec<_>>());
    let usage = &first[6].1["response"]["usage"];
    assert!(
        usage["input_tokens_details"]["cached_tokens"].is_u64()
            && usage["output_tokens_details"]["reasoning_tokens"].is_u64()
    );
    assert!(usage["total_tokens"].is_u64());

    items.push(item.clone());
    items.push(json!({"type": "function_call_output", "call_id": item["call_id"], "output": "hello-from-tool"}));
    let second = call(
        &server,
        "POST",
        "/v1/responses",
        Some(json!({"model": "gpt-5.5", "stream": true, "tools": tools, "input": items})),
    )
    .events();
    assert!(names(&second).contains(&"response.content_part.added"));
    let text: String = second
        .iter()
        .filter(|(n, _)| n == "response.output_text.delta")
        .map(|(_, d)| d["delta"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(text, "All done.");
    let done = second.iter().find(|(n, _)| n == "response.output_item.done").unwrap();
    assert_eq!(done.1["item"]["content"][0]["text"], "All done.");
    assert_eq!(second.last().unwrap().1["response"]["status"], "completed");
}

#[test]
fn responses_answer_a_custom_tool_with_a_string_input() {
    let server =
        FakeModelServer::start_blocking(Behavior::tool_then_answer("apply_patch", json!("*** Begin Patch"), "ok"));
    let tools = json!([{"type": "custom", "name": "apply_patch"}]);
    let reply = call(&server, "POST", "/v1/responses", Some(json!({"stream": true, "tools": tools, "input": []})));
    let events = reply.events();
    assert!(names(&events).contains(&"response.custom_tool_call_input.done"));
    let item = &events.iter().find(|(n, _)| n == "response.output_item.done").unwrap().1["item"];
    assert_eq!((item["type"].as_str(), item["input"].as_str()), (Some("custom_tool_call"), Some("*** Begin Patch")));
}

#[test]
fn models_list_and_unknown_paths_404_but_are_logged() {
    let server = FakeModelServer::start_blocking(Behavior::text("x"));
    let models = call(&server, "GET", "/v1/models", None).json();
    let ids: Vec<&str> = models["data"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    for id in ["gpt-5.5", "claude-sonnet-4-5", "some-model"] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    let missing = call(&server, "GET", "/nope?x=1", None);
    assert_eq!(missing.status, 404);
    assert!(missing.json()["error"]["message"].as_str().unwrap().contains("/nope"));
    // A stray call through the server as an HTTP proxy keeps its absolute form; one for the server itself does not.
    assert_eq!(call(&server, "GET", "http://example.com/telemetry", None).status, 404);
    let proxied = format!("{}/v1/models", server.base_url());
    assert_eq!(call(&server, "GET", &proxied, None).status, 200);

    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/v1/models", "/nope", "http://example.com/telemetry", "/v1/models"]);
    assert!(server.model_requests().is_empty());
}

#[test]
fn server_error_is_a_500_with_a_json_error_on_every_endpoint() {
    let server = FakeModelServer::start_blocking(Behavior::server_error("boom"));
    let tools_a = json!([{"name": "Bash"}]);
    let tools_o = json!([{"type": "function", "function": {"name": "terminal"}}]);
    for (path, body) in [
        ("/v1/messages", json!({"stream": true, "tools": tools_a, "messages": [{"role": "user", "content": "x"}]})),
        (
            "/v1/chat/completions",
            json!({"stream": true, "tools": tools_o, "messages": [{"role": "user", "content": "x"}]}),
        ),
        ("/v1/responses", json!({"stream": true, "tools": [{"type": "function", "name": "shell"}], "input": []})),
    ] {
        let reply = call(&server, "POST", path, Some(body));
        assert_eq!(reply.status, 500, "{path}");
        let error = &reply.json()["error"];
        assert_eq!((error["type"].as_str(), error["message"].as_str()), (Some("api_error"), Some("boom")), "{path}");
    }
    assert_eq!(server.model_requests().len(), 3);
}

#[test]
fn slow_streams_arrive_piece_by_piece() {
    let delay = Duration::from_millis(150);
    let server = FakeModelServer::start_blocking(Behavior::slow("abcdef", 3, delay));
    let mut stream = connect(&server);
    let body = json!({"stream": true, "tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": "x"}]});
    send(&mut stream, "POST", "/v1/messages", Some(&body));
    let started = Instant::now();
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    let mut first_delta = None;
    loop {
        let n = stream.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
        if first_delta.is_none() && String::from_utf8_lossy(&raw).contains("text_delta") {
            first_delta = Some(started.elapsed());
        }
    }
    let total = started.elapsed();
    let first_delta = first_delta.expect("a text delta");
    assert!(first_delta < delay, "the first piece should come at once, took {first_delta:?}");
    assert!(total >= delay * 2, "three pieces should take two delays, took {total:?}");
    let deltas: Vec<String> =
        parse(&raw).events().into_iter().filter_map(|(_, d)| d["delta"]["text"].as_str().map(str::to_string)).collect();
    assert_eq!(deltas, ["ab", "cd", "ef"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn starts_on_the_callers_runtime_and_stops_when_dropped() {
    let server = FakeModelServer::start(Behavior::text("async hello")).await;
    let base = server.base_url();
    assert!(base.starts_with("http://127.0.0.1:") && !base.ends_with('/'));
    let server = tokio::task::spawn_blocking(move || {
        let body = json!({"tools": [{"name": "Bash"}], "messages": [{"role": "user", "content": "x"}]});
        let reply = call(&server, "POST", "/v1/messages", Some(body)).json();
        assert_eq!(reply["content"][0]["text"], "async hello");
        server
    })
    .await
    .unwrap();
    let addr = server.addr();
    drop(server);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(TcpStream::connect(addr).is_err(), "the listener should be closed after drop");
}

#[test]
fn blocking_server_stops_when_dropped() {
    let server = FakeModelServer::start_blocking(Behavior::text("x"));
    let addr = server.addr();
    drop(server);
    assert!(TcpStream::connect(addr).is_err(), "the listener should be closed after drop");
}
