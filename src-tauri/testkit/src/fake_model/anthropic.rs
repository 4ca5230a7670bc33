//! `POST /v1/messages`: the Anthropic Messages API, streamed (SSE) when `"stream": true`.

use serde_json::{json, Value};

use super::http::{Frame, Response};
use super::plan::{self, Offered, Plan};
use super::{RecordedRequest, Shared};

pub(crate) fn messages(request: &RecordedRequest, shared: &Shared) -> Response {
    let body = &request.body;
    let plan = plan::choose(shared, body, &offered_tools(body), after_tool_result(body));
    if let Plan::Error(message) = &plan {
        return Response::json(500, plan::error_body(message));
    }
    let model = body["model"].as_str().unwrap_or("claude-sonnet-4-5").to_string();
    let id = shared.id("msg_fake");
    let input_tokens = plan::input_tokens(shared, request);
    if body["stream"].as_bool() == Some(true) {
        let tool_id = shared.id("toolu_fake");
        Response::Sse(stream(shared, &plan, &id, &tool_id, &model, input_tokens))
    } else {
        let content = match &plan {
            Plan::Tool { name, input, .. } => {
                json!([{"type": "tool_use", "id": shared.id("toolu_fake"), "name": name, "input": input}])
            }
            _ => json!([{"type": "text", "text": plan.text()}]),
        };
        let message = json!({
            "id": id, "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": stop_reason(&plan), "stop_sequence": null,
            "usage": usage(shared, input_tokens, plan.output_tokens()),
        });
        Response::Json { status: 200, body: message, delay: plan.total_delay() }
    }
}

/// The names of the tools the request offers.
pub(crate) fn offered_tools(body: &Value) -> Vec<Offered> {
    let tools = body["tools"].as_array().map(Vec::as_slice).unwrap_or_default();
    tools.iter().filter_map(|t| t["name"].as_str()).map(Offered::function).collect()
}

/// Whether the last message is the user's, carrying a tool_result block (looking past injected context).
pub(crate) fn after_tool_result(body: &Value) -> bool {
    let Some(last) = plan::last_real(&body["messages"]) else { return false };
    last["role"] == "user"
        && last["content"].as_array().is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result"))
}

fn stop_reason(plan: &Plan) -> &'static str {
    match plan {
        Plan::Tool { .. } => "tool_use",
        _ => "end_turn",
    }
}

fn usage(shared: &Shared, input_tokens: u64, output_tokens: u64) -> Value {
    let cache = |i: usize| shared.reported_cache_tokens[i].load(std::sync::atomic::Ordering::SeqCst);
    json!({"input_tokens": input_tokens, "output_tokens": output_tokens,
           "cache_read_input_tokens": cache(0), "cache_creation_input_tokens": cache(1)})
}

fn stream(shared: &Shared, plan: &Plan, id: &str, tool_id: &str, model: &str, input_tokens: u64) -> Vec<Frame> {
    let mut frames = vec![Frame::event(
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": null, "stop_sequence": null, "usage": usage(shared, input_tokens, 1),
        }}),
    )];
    let block = |delta: Value| {
        Frame::event("content_block_delta", &json!({"type": "content_block_delta", "index": 0, "delta": delta}))
    };
    match plan {
        Plan::Tool { name, input, .. } => {
            frames.push(Frame::event(
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0,
                        "content_block": {"type": "tool_use", "id": tool_id, "name": name, "input": {}}}),
            ));
            frames.push(block(json!({"type": "input_json_delta", "partial_json": input.to_string()})));
        }
        Plan::Text { pieces, delay } => {
            frames.push(Frame::event(
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ));
            for (i, piece) in pieces.iter().enumerate() {
                let frame = block(json!({"type": "text_delta", "text": piece}));
                frames.push(if i == 0 { frame } else { frame.after(*delay) });
            }
        }
        Plan::Error(_) => unreachable!("errors are answered with a 500"),
        Plan::ToolSearch { .. } => unreachable!("only a Responses request offers a client tool_search"),
    }
    frames.push(Frame::event("content_block_stop", &json!({"type": "content_block_stop", "index": 0})));
    frames.push(Frame::event(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason(plan), "stop_sequence": null},
                "usage": usage(shared, input_tokens, plan.output_tokens())}),
    ));
    frames.push(Frame::event("message_stop", &json!({"type": "message_stop"})));
    frames
}
