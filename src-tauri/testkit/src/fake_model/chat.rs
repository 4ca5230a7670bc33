//! `POST /v1/chat/completions`: OpenAI Chat Completions, streamed (SSE `data:` chunks) when asked.

use serde_json::{json, Value};

use super::http::{Frame, Response};
use super::plan::{self, Offered, Plan};
use super::{RecordedRequest, Shared};

const CREATED: u64 = 1_700_000_000;

pub(crate) fn completions(request: &RecordedRequest, shared: &Shared) -> Response {
    let body = &request.body;
    let plan = plan::choose(shared, body, &offered_tools(body), after_tool_result(body));
    if let Plan::Error(message) = &plan {
        return Response::json(500, plan::error_body(message));
    }
    let model = body["model"].as_str().unwrap_or("some-model").to_string();
    let id = shared.id("chatcmpl-fake");
    let call_id = shared.id("call_fake");
    let usage = usage(plan::input_tokens(shared, request), plan.output_tokens());
    if body["stream"].as_bool() == Some(true) {
        let include_usage = body["stream_options"]["include_usage"].as_bool() == Some(true);
        return Response::Sse(stream(&plan, &id, &call_id, &model, include_usage.then_some(usage)));
    }
    let message = match &plan {
        Plan::Tool { name, input, .. } => json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": input.to_string()}}
        ]}),
        _ => json!({"role": "assistant", "content": plan.text()}),
    };
    let completion = json!({
        "id": id, "object": "chat.completion", "created": CREATED, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(&plan), "logprobs": null}],
        "usage": usage,
    });
    Response::Json { status: 200, body: completion, delay: plan.total_delay() }
}

/// The function names of the tools the request offers.
pub(crate) fn offered_tools(body: &Value) -> Vec<Offered> {
    let tools = body["tools"].as_array().map(Vec::as_slice).unwrap_or_default();
    tools.iter().filter_map(|t| t["function"]["name"].as_str().or(t["name"].as_str())).map(Offered::function).collect()
}

/// Whether the last message is a tool result (role "tool"), looking past injected context.
pub(crate) fn after_tool_result(body: &Value) -> bool {
    plan::last_real(&body["messages"]).is_some_and(|last| last["role"] == "tool")
}

fn finish_reason(plan: &Plan) -> &'static str {
    match plan {
        Plan::Tool { .. } => "tool_calls",
        _ => "stop",
    }
}

fn usage(prompt_tokens: u64, completion_tokens: u64) -> Value {
    json!({"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
           "total_tokens": prompt_tokens + completion_tokens,
           "prompt_tokens_details": {"cached_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 0}})
}

fn stream(plan: &Plan, id: &str, call_id: &str, model: &str, usage: Option<Value>) -> Vec<Frame> {
    let chunk = |delta: Value, finish: Option<&str>| {
        let mut chunk = json!({"id": id, "object": "chat.completion.chunk", "created": CREATED, "model": model,
                               "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": null}]});
        if usage.is_some() {
            chunk["usage"] = Value::Null;
        }
        Frame::data(chunk)
    };
    let mut frames = Vec::new();
    match plan {
        Plan::Tool { name, input, .. } => {
            frames.push(chunk(
                json!({"role": "assistant", "content": null, "tool_calls": [
                    {"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
                ]}),
                None,
            ));
            frames
                .push(chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": input.to_string()}}]}), None));
        }
        Plan::Text { pieces, delay } => {
            frames.push(chunk(json!({"role": "assistant", "content": ""}), None));
            for (i, piece) in pieces.iter().enumerate() {
                let frame = chunk(json!({"content": piece}), None);
                frames.push(if i == 0 { frame } else { frame.after(*delay) });
            }
        }
        Plan::Error(_) => unreachable!("errors are answered with a 500"),
        Plan::ToolSearch { .. } => unreachable!("only a Responses request offers a client tool_search"),
    }
    frames.push(chunk(json!({}), Some(finish_reason(plan))));
    if let Some(usage) = usage {
        frames.push(Frame::data(json!({"id": id, "object": "chat.completion.chunk", "created": CREATED,
                                       "model": model, "choices": [], "usage": usage})));
    }
    frames.push(Frame::data("[DONE]"));
    frames
}
