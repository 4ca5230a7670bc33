//! Routing, and turning a scripted [`Reply`] into what to send for one request.

use std::time::Duration;

use serde_json::{json, Value};

use super::http::Response;
use super::{anthropic, chat, responses, RecordedRequest, Reply, Shared};

/// The model ids `GET /v1/models` lists.
pub const MODEL_IDS: [&str; 3] = ["gpt-5.5", "claude-sonnet-4-5", "some-model"];

/// "*" picks the first offered tool with one of these names (case-insensitive).
const SHELL_TOOLS: [&str; 6] = ["bash", "exec_command", "terminal", "exec", "shell", "run_shell_command"];

/// The text a request that offers no tools (a title or summary request) always gets.
pub(crate) const NO_TOOLS_TEXT: &str = "Title";

/// A tool a request offers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Offered {
    pub(crate) name: String,
    /// A Responses API "custom" (freeform) tool: its call carries a string input.
    pub(crate) custom: bool,
    /// The Responses API namespace the tool sits in (Codex's MCP tools: "mcp__clawboo").
    pub(crate) namespace: Option<String>,
    /// A Responses API client-side `tool_search` (Codex's deferred namespaces): called to load
    /// a tool that is not offered yet.
    pub(crate) client_search: bool,
}

impl Offered {
    pub(crate) fn function(name: &str) -> Self {
        Offered { name: name.to_string(), custom: false, namespace: None, client_search: false }
    }

    /// Whether `~suffix` picks this tool: its name, or its namespace and name, ends with it.
    fn ends_with(&self, suffix: &str) -> bool {
        !self.client_search && self.name.ends_with(suffix)
    }
}

/// What to answer one request with, independent of the wire format.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Plan {
    /// Text in pieces, `delay` before every piece but the first.
    Text {
        pieces: Vec<String>,
        delay: Duration,
    },
    Tool {
        name: String,
        input: Value,
        custom: bool,
        namespace: Option<String>,
    },
    /// Call the client-side `tool_search` (Responses API) to load a deferred tool.
    ToolSearch {
        query: String,
    },
    Error(String),
}

impl Plan {
    pub(crate) fn text(&self) -> String {
        match self {
            Plan::Text { pieces, .. } => pieces.concat(),
            _ => String::new(),
        }
    }

    /// A rough token count for the usage fields.
    pub(crate) fn output_tokens(&self) -> u64 {
        let len = match self {
            Plan::Text { pieces, .. } => pieces.iter().map(|p| p.chars().count()).sum(),
            Plan::Tool { input, .. } => input.to_string().len(),
            Plan::ToolSearch { query } => query.len(),
            Plan::Error(_) => 0,
        };
        (len as u64 / 4).max(1)
    }

    /// For a non-streamed answer: the whole time the stream would have taken.
    pub(crate) fn total_delay(&self) -> Duration {
        match self {
            Plan::Text { pieces, delay } => *delay * (pieces.len().saturating_sub(1) as u32),
            _ => Duration::ZERO,
        }
    }
}

/// A rough input token count for the usage fields, unless the test set one
/// ([`super::FakeModelServer::report_input_tokens`]).
pub(crate) fn input_tokens(shared: &Shared, request: &RecordedRequest) -> u64 {
    match shared.reported_input_tokens.load(std::sync::atomic::Ordering::SeqCst) {
        0 => (request.raw_body.len() as u64 / 4).max(1),
        set => set,
    }
}

/// Picks the reply for a request offering `offered`, whose last input item is a tool result or not.
pub(crate) fn choose(shared: &Shared, body: &Value, offered: &[Offered], after_tool_result: bool) -> Plan {
    let behavior = &shared.behavior;
    // A rule speaks to a turn whatever tools it offers, but a request without tools (a CLI's
    // title or summary request) cannot call one.
    if let Some(reply) = super::rules::reply_for(&behavior.rules, body) {
        if !(offered.is_empty() && matches!(reply, Reply::ToolCall { .. })) {
            return resolve(reply, offered);
        }
    }
    if offered.is_empty() {
        return Plan::Text { pieces: vec![NO_TOOLS_TEXT.to_string()], delay: Duration::ZERO };
    }
    let reply = if after_tool_result { &behavior.on_tool_result } else { &behavior.on_user };
    resolve(reply, offered)
}

pub(crate) fn resolve(reply: &Reply, offered: &[Offered]) -> Plan {
    match reply {
        Reply::Text(text) => Plan::Text { pieces: vec![text.clone()], delay: Duration::ZERO },
        Reply::Slow { text, chunks, delay } => Plan::Text { pieces: split(text, *chunks), delay: *delay },
        Reply::ServerError(message) => Plan::Error(message.clone()),
        // Answered before routing (see `route`); never planned.
        Reply::Redirect(location) => Plan::Error(format!("redirect to {location}")),
        Reply::ToolCall { name, input } if name.starts_with('~') => {
            let suffix = &name[1..];
            match offered.iter().find(|t| t.ends_with(suffix)) {
                Some(tool) => Plan::Tool {
                    name: tool.name.clone(),
                    input: input.clone(),
                    custom: tool.custom,
                    namespace: tool.namespace.clone(),
                },
                // Not offered yet: a deferred tool the client loads through its tool_search.
                None if offered.iter().any(|t| t.client_search) => Plan::ToolSearch { query: suffix.to_string() },
                None => Plan::Tool { name: suffix.to_string(), input: input.clone(), custom: false, namespace: None },
            }
        }
        Reply::ToolCall { name, input } => {
            let tool = if name == "*" {
                offered
                    .iter()
                    .find(|t| SHELL_TOOLS.iter().any(|shell| t.name.eq_ignore_ascii_case(shell)))
                    .or(offered.first())
                    .cloned()
            } else {
                offered.iter().find(|t| &t.name == name).cloned()
            };
            let tool = tool.unwrap_or_else(|| Offered::function(name));
            Plan::Tool { name: tool.name, input: input.clone(), custom: tool.custom, namespace: tool.namespace }
        }
    }
}

/// `text` in `chunks` pieces of about equal length (fewer when the text is shorter).
pub(crate) fn split(text: &str, chunks: u32) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let chunks = (chunks.max(1) as usize).min(chars.len().max(1));
    let (base, extra) = (chars.len() / chunks, chars.len() % chunks);
    let mut pieces = Vec::with_capacity(chunks);
    let mut start = 0;
    for i in 0..chunks {
        let len = base + usize::from(i < extra);
        pieces.push(chars[start..start + len].iter().collect());
        start += len;
    }
    pieces
}

/// OpenClaw appends a user message wrapped in these markers after a tool result; it is not the
/// user speaking, so tool-result detection looks past it.
const INJECTED_CONTEXT: &str = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";

/// Whether `message` is a user message that only carries injected context (see [`INJECTED_CONTEXT`]).
/// Works for all three APIs: `content` is a string or a list of parts with `text`.
pub(crate) fn is_injected_context(message: &Value) -> bool {
    if message["role"] != "user" {
        return false;
    }
    let starts = |text: &str| text.trim_start().starts_with(INJECTED_CONTEXT);
    match &message["content"] {
        Value::String(text) => starts(text),
        Value::Array(parts) => !parts.is_empty() && parts.iter().all(|p| p["text"].as_str().is_some_and(starts)),
        _ => false,
    }
}

/// The last item of `items` that is not injected context.
pub(crate) fn last_real(items: &Value) -> Option<&Value> {
    items.as_array()?.iter().rev().find(|item| !is_injected_context(item))
}

/// The JSON error body of a 500.
pub(crate) fn error_body(message: &str) -> Value {
    json!({"type": "error", "error": {"type": "api_error", "message": message}})
}

pub(crate) fn route(request: &RecordedRequest, shared: &Shared) -> Response {
    if let Reply::Redirect(location) = &shared.behavior.on_user {
        return Response::Redirect { status: 307, location: location.clone() };
    }
    if (request.method.as_str(), request.path.as_str()) == ("POST", "/testkit/fail-next") {
        let count = request.body["count"].as_u64().unwrap_or(1) as u32;
        let status = request.body["status"].as_u64().unwrap_or(503) as u16;
        let only = request.body["only"].as_str().map(str::to_owned);
        super::set_failing(shared, count, status, only.clone());
        return Response::json(200, json!({"failing": count, "status": status, "only": only}));
    }
    let failing = &shared.failing;
    if request.is_model_request()
        && fails_this_turn(shared, request)
        && failing
            .fetch_update(std::sync::atomic::Ordering::SeqCst, std::sync::atomic::Ordering::SeqCst, |n| {
                n.checked_sub(1)
            })
            .is_ok()
    {
        let status = shared.failing_status.load(std::sync::atomic::Ordering::SeqCst);
        let (kind, message) = match status {
            503 | 529 => ("overloaded_error", "fake model server: overloaded, try again"),
            400..=499 => ("invalid_request_error", "fake model server: a scripted refusal"),
            _ => ("api_error", "fake model server: a scripted server error"),
        };
        return Response::json(status, json!({"type": "error", "error": {"type": kind, "message": message}}));
    }
    match (request.method.as_str(), request.path.as_str()) {
        ("POST", "/v1/messages") => anthropic::messages(request, shared),
        ("POST", "/v1/messages/count_tokens") => {
            Response::json(200, json!({"input_tokens": input_tokens(shared, request)}))
        }
        ("POST", "/v1/chat/completions") => chat::completions(request, shared),
        ("POST", "/v1/responses") => responses::respond(request, shared),
        ("GET", "/v1/models") => Response::json(200, models()),
        (method, path) => Response::json(
            404,
            json!({"type": "error", "error": {"type": "not_found_error", "message": format!("fake model server: no route for {method} {path}")}}),
        ),
    }
}

/// Whether a scripted failure may take this request: any, or one whose turn says `only`.
fn fails_this_turn(shared: &Shared, request: &RecordedRequest) -> bool {
    match shared.failing_only.lock().expect("failing_only").as_deref() {
        None => true,
        Some(only) => super::rules::last_user_text(&request.body).is_some_and(|(text, _)| text.contains(only)),
    }
}

/// A model list both OpenAI clients (object/data/id) and Anthropic clients (type/display_name) accept.
fn models() -> Value {
    let data: Vec<Value> = MODEL_IDS
        .iter()
        .map(|id| {
            json!({"id": id, "object": "model", "created": 1_700_000_000, "owned_by": "fake",
                   "type": "model", "display_name": id, "created_at": "2025-01-01T00:00:00Z"})
        })
        .collect();
    json!({"object": "list", "data": data, "has_more": false, "first_id": MODEL_IDS[0], "last_id": MODEL_IDS[2]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injected_context_is_skipped() {
        let items = json!([
            {"role": "tool", "content": "ok"},
            {"role": "user", "content": [{"type": "text", "text": "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\nx"}]},
            {"role": "user", "content": "  <<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>> y"},
        ]);
        assert_eq!(last_real(&items).unwrap()["role"], "tool");
        let items = json!([{"role": "tool", "content": "ok"}, {"role": "user", "content": "hi"}]);
        assert_eq!(last_real(&items).unwrap()["role"], "user");
        assert!(last_real(&json!([])).is_none());
    }

    #[test]
    fn splits_text_into_about_equal_pieces() {
        assert_eq!(split("abcdefg", 3), ["abc", "de", "fg"]);
        assert_eq!(split("ab", 5), ["a", "b"]);
        assert_eq!(split("", 3), [""]);
        assert_eq!(split("héllo", 1), ["héllo"]);
    }

    #[test]
    fn star_picks_the_shell_tool_else_the_first() {
        let star = Reply::ToolCall { name: "*".into(), input: json!({}) };
        let tools = [Offered::function("Read"), Offered::function("EXEC_COMMAND"), Offered::function("shell")];
        assert!(matches!(resolve(&star, &tools), Plan::Tool { name, .. } if name == "EXEC_COMMAND"));
        let tools = [Offered::function("Read"), Offered::function("Write")];
        assert!(matches!(resolve(&star, &tools), Plan::Tool { name, .. } if name == "Read"));
        let named = Reply::ToolCall { name: "Write".into(), input: json!({}) };
        assert!(matches!(resolve(&named, &tools), Plan::Tool { name, .. } if name == "Write"));
    }

    #[test]
    fn tilde_picks_a_tool_by_the_end_of_its_name_or_searches_for_it() {
        let post = Reply::ToolCall { name: "~peer_post".into(), input: json!({"text": "hi"}) };
        let tools = [Offered::function("Read"), Offered::function("mcp__clawboo__peer_post")];
        assert!(matches!(resolve(&post, &tools), Plan::Tool { name, .. } if name == "mcp__clawboo__peer_post"));
        let namespaced = Offered { namespace: Some("mcp__clawboo".into()), ..Offered::function("peer_post") };
        let plan = resolve(&post, &[Offered::function("shell"), namespaced]);
        assert!(
            matches!(plan, Plan::Tool { name, namespace: Some(ns), .. } if name == "peer_post" && ns == "mcp__clawboo")
        );
        let search = Offered { client_search: true, ..Offered::function("tool_search") };
        let plan = resolve(&post, &[Offered::function("shell"), search]);
        assert_eq!(plan, Plan::ToolSearch { query: "peer_post".into() });
    }
}
