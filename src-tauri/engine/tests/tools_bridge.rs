//! The tools bridge's MCP server over real loopback HTTP, with a recording host: tokens bind
//! callers, die with their run, list and allow only granted tools, and arguments are checked.

mod common;

use std::sync::Arc;

use clawboo_engine::routines::ManualClock;
use clawboo_engine::tools::{
    Caller, HostedSpec, HostedTools, ToolFuture, ToolGrant, ToolName, ToolOutput, Tools, RAISED_PER_MINUTE,
    RATE_LIMITED_TOOLS,
};
use common::tools::{caller, RecordingHost};
use serde_json::{json, Value};

struct Client {
    http: reqwest::Client,
    url: String,
    bearer: Option<String>,
    next_id: u64,
    /// The negotiated version, sent as `MCP-Protocol-Version` after `initialize`.
    version: String,
}

impl Client {
    fn new(url: String, bearer: Option<String>) -> Self {
        Self { http: reqwest::Client::new(), url, bearer, next_id: 1, version: "2025-06-18".into() }
    }

    /// One JSON-RPC request: (HTTP status, parsed body or Null).
    async fn rpc(&mut self, method: &str, params: Value) -> (u16, Value) {
        let id = self.next_id;
        self.next_id += 1;
        let mut request = self
            .http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        if method != "initialize" {
            request = request.header("mcp-protocol-version", &self.version);
        }
        if let Some(token) = &self.bearer {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    async fn initialize(&mut self, version: &str) -> Value {
        let (status, body) = self
            .rpc(
                "initialize",
                json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        self.version = version.into();
        body
    }

    async fn tool_names(&mut self) -> Vec<String> {
        let (status, body) = self.rpc("tools/list", json!({})).await;
        assert_eq!(status, 200, "{body}");
        body["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
    }

    async fn call(&mut self, name: &str, arguments: Value) -> (u16, Value) {
        self.rpc("tools/call", json!({"name": name, "arguments": arguments})).await
    }
}

fn start() -> (tokio::runtime::Runtime, Arc<Tools>, Arc<RecordingHost>) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let tools = Tools::start(runtime.handle()).unwrap();
    let host = Arc::new(RecordingHost::default());
    tools.set_host(host.clone());
    (runtime, tools, host)
}

#[test]
fn a_tokens_calls_reach_the_host_bound_to_exactly_its_caller() {
    let (runtime, tools, host) = start();
    let ada = caller("run-a", "agent-a", "ada", &[ToolName::PeerPost, ToolName::PeerRead]);
    let grant = tools.grant(ada.clone());
    assert_eq!(grant.endpoint, tools.endpoint());
    assert_eq!(grant.url, format!("{}/{}", tools.endpoint(), grant.token));
    assert!(!format!("{grant:?}").contains(&grant.token), "the token is never printed");
    runtime.block_on(async {
        // Header token, plain endpoint (what CLIs get).
        let mut client = Client::new(grant.endpoint.clone(), Some(grant.token.clone()));
        for version in ["2025-06-18", "2025-11-25"] {
            let init = client.initialize(version).await;
            assert_eq!(init["result"]["protocolVersion"], version, "the client's version is echoed: {init}");
            assert!(init["result"]["capabilities"]["tools"].is_object());
        }
        let (status, body) = client.call("peer_post", json!({"text": "hello team", "as": "user"})).await;
        assert_eq!(status, 200);
        assert_eq!(body["result"]["isError"], true, "unknown arguments are refused: {body}");
        let (status, body) = client.call("peer_post", json!({"text": "hello team"})).await;
        assert_eq!(status, 200);
        assert_eq!(body["result"]["isError"], false, "{body}");
        assert_eq!(body["result"]["content"][0]["text"], "peer_post done");
        // Path token only (clients that can only take a URL).
        let mut by_url = Client::new(grant.url.clone(), None);
        let (status, body) = by_url.call("peer_read", json!({"limit": 3})).await;
        assert_eq!((status, &body["result"]["isError"]), (200, &json!(false)), "{body}");
        // Both, agreeing.
        let mut both = Client::new(grant.url.clone(), Some(grant.token.clone()));
        assert_eq!(both.call("peer_read", json!({})).await.0, 200);
    });
    let calls = host.calls();
    assert_eq!(calls.len(), 3);
    assert!(calls.iter().all(|c| c.caller == ada), "every call carries the granted caller");
    assert_eq!((calls[0].tool, calls[0].args.clone()), (ToolName::PeerPost, json!({"text": "hello team"})));
    assert_eq!((calls[1].tool, calls[1].args.clone()), (ToolName::PeerRead, json!({"limit": 3})));
    assert_eq!((calls[2].tool, calls[2].args.clone()), (ToolName::PeerRead, json!({})));
}

#[test]
fn unknown_revoked_and_mismatched_tokens_get_401() {
    let (runtime, tools, host) = start();
    let grant = tools.grant(caller("run-a", "agent-a", "ada", &[ToolName::PeerPost]));
    let other = tools.grant(caller("run-b", "agent-b", "bob", &[ToolName::PeerPost]));
    runtime.block_on(async {
        let endpoint = tools.endpoint();
        assert_eq!(Client::new(endpoint.clone(), None).rpc("tools/list", json!({})).await.0, 401, "no token");
        let mut unknown = Client::new(endpoint.clone(), Some("clawboo-tools-guess".into()));
        assert_eq!(unknown.rpc("tools/list", json!({})).await.0, 401);
        let mut mixed = Client::new(grant.url.clone(), Some(other.token.clone()));
        assert_eq!(mixed.call("peer_post", json!({"text": "as ada?"})).await.0, 401, "path and header disagree");

        let mut client = Client::new(endpoint.clone(), Some(grant.token.clone()));
        assert_eq!(client.tool_names().await, ["peer_post"]);
        tools.revoke("run-a");
        assert!(!tools.has_grant("run-a"));
        assert_eq!(client.call("peer_post", json!({"text": "late"})).await.0, 401, "revoked");
        assert_eq!(Client::new(grant.url.clone(), None).rpc("tools/list", json!({})).await.0, 401);
        // The other run is untouched.
        let mut bob = Client::new(endpoint.clone(), Some(other.token.clone()));
        assert_eq!(bob.call("peer_post", json!({"text": "still here"})).await.0, 200);
        // GET (an SSE stream) is not served; unknown paths are not routes.
        let get = reqwest::Client::new().get(&endpoint).bearer_auth(&other.token).send().await.unwrap();
        assert_eq!(get.status().as_u16(), 405);
        let elsewhere = reqwest::Client::new().post(format!("{endpoint}x")).send().await.unwrap();
        assert_eq!(elsewhere.status().as_u16(), 404);
    });
    let calls = host.calls();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].caller.agent_handle, "bob");
    // In-process calls die with the run too.
    let revoked = runtime.block_on((grant.invoker)(ToolName::PeerPost, json!({"text": "x"})));
    assert!(revoked.is_error && revoked.text.contains("ended"), "{revoked:?}");
    assert_eq!(host.calls().len(), 1);
}

#[test]
fn only_granted_tools_are_listed_and_callable() {
    let (runtime, tools, host) = start();
    let grant = tools.grant(caller("run-a", "agent-a", "ada", &[ToolName::PeerRead]));
    let leader = tools.grant(caller("run-l", "agent-l", "lea", &[ToolName::Handoff, ToolName::PeerPost]));
    assert_eq!(grant.specs.iter().map(|s| s.name).collect::<Vec<_>>(), [ToolName::PeerRead]);
    runtime.block_on(async {
        let mut client = Client::new(tools.endpoint(), Some(grant.token.clone()));
        assert_eq!(client.tool_names().await, ["peer_read"]);
        let (status, body) = client.call("peer_post", json!({"text": "not mine"})).await;
        assert_eq!(status, 200);
        assert!(body["error"]["message"].as_str().unwrap().contains("no tool named peer_post"), "{body}");
        let (_, body) = client.call("delete_everything", json!({})).await;
        assert!(body["error"].is_object(), "{body}");

        let mut lead = Client::new(tools.endpoint(), Some(leader.token.clone()));
        assert_eq!(lead.tool_names().await, ["handoff", "peer_post"]);
        let (_, body) = lead.call("handoff", json!({"to": "@ada", "task": 42})).await;
        assert_eq!(body["result"]["isError"], true, "{body}");
        assert!(body["result"]["content"][0]["text"].as_str().unwrap().contains("must be a string"));
        let (_, body) = lead.call("peer_post", json!({"text": "x".repeat(16 * 1024 + 1)})).await;
        assert_eq!(body["result"]["isError"], true, "over 16 KiB: {body}");
        let (_, body) = lead.call("handoff", json!({"to": "@ada", "task": "Check the numbers."})).await;
        assert_eq!(body["result"]["isError"], false, "{body}");
    });
    // In-process: the same rules.
    let denied = runtime.block_on((grant.invoker)(ToolName::Handoff, json!({"to": "@x", "task": "y"})));
    assert!(denied.is_error, "{denied:?}");
    let calls = host.calls();
    assert_eq!(calls.len(), 1, "nothing invalid reached the host");
    assert_eq!(calls[0].tool, ToolName::Handoff);
    assert_eq!(calls[0].args, json!({"to": "@ada", "task": "Check the numbers."}));
    assert_eq!(calls[0].caller.run_id, "run-l");
}

#[test]
fn a_lasting_token_acts_for_the_agents_live_run_and_fails_between_runs() {
    let (runtime, tools, host) = start();
    let lasting = tools.grant_lasting("agent-a");
    assert_eq!(tools.grant_lasting("agent-a"), lasting, "the same token every time");
    runtime.block_on(async {
        let mut gateway = Client::new(tools.endpoint(), Some(lasting.clone()));
        let (status, body) = gateway.call("peer_post", json!({"text": "between runs"})).await;
        assert_eq!(status, 200);
        let text = body["result"]["content"][0]["text"].as_str().unwrap_or_default();
        assert!(body["result"]["isError"] == true && text.contains("No run in progress"), "{body}");

        let first = caller("run-1", "agent-a", "ada", &[ToolName::PeerPost]);
        tools.grant(first.clone());
        tools.grant(caller("run-x", "agent-b", "bob", &[ToolName::PeerPost]));
        assert_eq!(gateway.tool_names().await, ["peer_post"]);
        assert_eq!(gateway.call("peer_post", json!({"text": "in run 1"})).await.0, 200);
        tools.revoke("run-1");
        let (_, body) = gateway.call("peer_post", json!({"text": "after run 1"})).await;
        assert_eq!(body["result"]["isError"], true, "{body}");

        let second = caller("run-2", "agent-a", "ada", &[ToolName::PeerPost, ToolName::PeerRead]);
        tools.grant(second);
        assert_eq!(gateway.tool_names().await, ["peer_post", "peer_read"]);
        assert_eq!(gateway.call("peer_read", json!({})).await.0, 200);

        tools.release("agent-a");
        assert_eq!(gateway.rpc("tools/list", json!({})).await.0, 401, "released with its agent");
    });
    let calls = host.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].caller.run_id, "run-1");
    assert_eq!(calls[1].caller.run_id, "run-2");
    assert!(calls.iter().all(|c| c.caller.agent_id == "agent-a"));
}

#[test]
fn calls_before_the_host_is_set_get_a_clear_tool_error() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let tools = Tools::start(runtime.handle()).unwrap();
    let grant = tools.grant(Caller { tools: vec![ToolName::PeerPost], ..caller("r", "a", "ada", &[]) });
    let output = runtime.block_on((grant.invoker)(ToolName::PeerPost, json!({"text": "early"})));
    assert!(output.is_error && output.text.contains("not ready"), "{output:?}");
}

/// Arguments each raising tool accepts.
fn raising_args(tool: ToolName) -> Value {
    match tool {
        ToolName::AskUser => json!({"question": "Which budget?"}),
        ToolName::PeerPost => json!({"text": "Status: on it."}),
        ToolName::RoutineCreate => json!({"name": "Digest", "prompt": "Sum up the day.", "every_minutes": 60}),
        _ => json!({}),
    }
}

/// A run's hosted tools that answer with who called what.
struct FakeHosted;

impl HostedTools for FakeHosted {
    fn specs(&self) -> Vec<HostedSpec> {
        let mut hints = rmcp::model::ToolAnnotations::default();
        hints.read_only_hint = Some(true);
        vec![HostedSpec {
            name: "docs__lookup".into(),
            description: "Looks a term up.".into(),
            input_schema: json!({"type": "object", "properties": {"query": {"type": "string"}}}),
            annotations: Some(hints),
        }]
    }

    fn call<'a>(&'a self, name: &'a str, args: Value) -> ToolFuture<'a> {
        Box::pin(async move { ToolOutput::ok(format!("{name} got {args}")) })
    }
}

#[test]
fn each_raising_tool_is_bounded_per_run_and_the_11th_call_in_a_minute_reaches_nothing() {
    let (runtime, tools, host) = start();
    let clock = Arc::new(ManualClock::new(1_000_000));
    tools.use_clock(clock.clone());
    let granted = [ToolName::AskUser, ToolName::PeerPost, ToolName::RoutineCreate, ToolName::PeerRead];
    let one = tools.grant(caller("run-1", "agent-a", "ada", &granted));
    let two = tools.grant(caller("run-2", "agent-b", "bob", &granted));
    assert_eq!((RATE_LIMITED_TOOLS.len(), RAISED_PER_MINUTE), (3, 10));
    let call = |grant: &ToolGrant, tool: ToolName| runtime.block_on((grant.invoker)(tool, raising_args(tool)));
    for tool in RATE_LIMITED_TOOLS {
        let start = clock.advance(0);
        for i in 1..=10 {
            clock.set(start + i * 1_000);
            let output = call(&one, tool);
            assert!(!output.is_error, "{tool:?}, call {i}: {output:?}");
        }
        let reached = host.calls().len();
        // 20 s after the first, which leaves the window in 40 s. As a CLI calls it, over HTTP:
        clock.set(start + 21_000);
        runtime.block_on(async {
            let mut client = Client::new(one.endpoint.clone(), Some(one.token.clone()));
            let (status, body) = client.call(tool.as_str(), raising_args(tool)).await;
            assert_eq!((status, &body["result"]["isError"]), (200, &json!(true)), "{body}");
            let text = body["result"]["content"][0]["text"].as_str().unwrap();
            let expected = format!("Rate limit: at most 10 {} calls a minute per run; wait 40 s.", tool.as_str());
            assert_eq!(text, expected);
        });
        let refused = call(&one, tool);
        assert!(refused.is_error && refused.text.starts_with("Rate limit"), "in-process too: {refused:?}");
        assert_eq!(host.calls().len(), reached, "the refused calls never reached the host");
        assert!(!call(&two, tool).is_error, "another run is not affected");
        assert!(!call(&one, ToolName::PeerRead).is_error, "nor are the run's other tools");
    }
    let calls = host.calls();
    for tool in RATE_LIMITED_TOOLS {
        let of = |run: &str| calls.iter().filter(|c| c.tool == tool && c.caller.run_id == run).count();
        assert_eq!((of("run-1"), of("run-2")), (10, 1), "{tool:?}");
    }

    // `@user` in a reply counts as an `ask_user`, also once the run's tokens are gone.
    let three = tools.grant(caller("run-3", "agent-c", "cy", &granted));
    for _ in 0..10 {
        assert!(!call(&three, ToolName::AskUser).is_error);
    }
    tools.revoke("run-3");
    let refused = tools.admit("run-3", ToolName::AskUser).unwrap_err();
    assert_eq!(refused, "Rate limit: at most 10 ask_user calls a minute per run; wait 60 s.");
    assert_eq!(tools.admit("run-3", ToolName::Handoff), Ok(()), "other tools are not counted");
    // The window slides: a minute after those calls, there is room again.
    clock.advance(60_000);
    assert_eq!(tools.admit("run-3", ToolName::AskUser), Ok(()));
}

#[test]
fn a_runs_hosted_tools_are_listed_and_called_beside_its_own_for_its_tokens_alone() {
    let (runtime, tools, host) = start();
    let grant = tools.grant(caller("run-h", "agent-h", "ada", &[ToolName::PeerPost]));
    let other = tools.grant(caller("run-o", "agent-o", "bob", &[ToolName::PeerPost]));
    let lasting = tools.grant_lasting("agent-h");
    grant.host(Arc::new(FakeHosted));
    assert_eq!(grant.hosted().iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["docs__lookup"]);
    assert!(other.hosted().is_empty());
    runtime.block_on(async {
        let mut client = Client::new(tools.endpoint(), Some(grant.token.clone()));
        let (_, listed) = client.rpc("tools/list", json!({})).await;
        let listed = listed["result"]["tools"].as_array().unwrap().clone();
        assert_eq!(
            listed.iter().map(|t| t["name"].as_str().unwrap()).collect::<Vec<_>>(),
            ["peer_post", "docs__lookup"]
        );
        assert_eq!(listed[1]["annotations"]["readOnlyHint"], true, "the server's hints pass on");
        let (status, body) = client.call("docs__lookup", json!({"query": "x"})).await;
        assert_eq!(status, 200);
        assert_eq!(body["result"]["content"][0]["text"], r#"docs__lookup got {"query":"x"}"#, "{body}");
        assert_eq!(body["result"]["isError"], false);

        // The agent's lasting token (an OpenClaw Gateway) sees its live run's.
        let mut gateway = Client::new(tools.endpoint(), Some(lasting.clone()));
        assert_eq!(gateway.tool_names().await, ["peer_post", "docs__lookup"]);
        assert_eq!(gateway.call("docs__lookup", json!({})).await.1["result"]["isError"], false);

        // Another run's token neither lists nor calls them.
        let mut stranger = Client::new(tools.endpoint(), Some(other.token.clone()));
        assert_eq!(stranger.tool_names().await, ["peer_post"]);
        let (_, body) = stranger.call("docs__lookup", json!({})).await;
        assert!(body["error"]["message"].as_str().unwrap().contains("no tool named docs__lookup"), "{body}");

        // Unhosted (the run stopped its connectors): gone.
        grant.unhost();
        assert_eq!(client.tool_names().await, ["peer_post"]);
        let (_, body) = client.call("docs__lookup", json!({})).await;
        assert!(body["error"].is_object(), "{body}");
    });
    // Revoked: hosting again serves nothing.
    grant.host(Arc::new(FakeHosted));
    tools.revoke("run-h");
    grant.host(Arc::new(FakeHosted));
    assert!(grant.hosted().is_empty());
    assert!(host.calls().is_empty(), "none of this reached Clawboo's own tools");
}
