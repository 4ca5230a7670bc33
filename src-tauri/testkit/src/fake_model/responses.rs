//! `POST /v1/responses`: the OpenAI Responses API (what Codex speaks), streamed when asked.

use serde_json::{json, Value};

use super::http::{Frame, Response};
use super::plan::{self, Offered, Plan};
use super::{RecordedRequest, Shared};

const CREATED: u64 = 1_700_000_000;

/// Input item types that carry a tool's result back to the model.
const TOOL_OUTPUTS: [&str; 3] = ["function_call_output", "custom_tool_call_output", "local_shell_call_output"];

pub(crate) fn respond(request: &RecordedRequest, shared: &Shared) -> Response {
    let body = &request.body;
    let plan = plan::choose(shared, body, &offered_tools(body), after_tool_result(body));
    if let Plan::Error(message) = &plan {
        return Response::json(500, plan::error_body(message));
    }
    let model = body["model"].as_str().unwrap_or("gpt-5.5");
    let response_id = shared.id("resp_fake");
    let item = match &plan {
        Plan::Tool { name, input, custom: true, .. } => json!({
            "id": shared.id("ctc_fake"), "type": "custom_tool_call", "status": "completed",
            "call_id": shared.id("call_fake"), "name": name,
            "input": input.as_str().map_or_else(|| input.to_string(), str::to_string),
        }),
        Plan::Tool { name, input, namespace, .. } => {
            let mut call = json!({
                "id": shared.id("fc_fake"), "type": "function_call", "status": "completed",
                "call_id": shared.id("call_fake"), "name": name, "arguments": input.to_string(),
            });
            if let Some(namespace) = namespace {
                call["namespace"] = json!(namespace);
            }
            call
        }
        Plan::ToolSearch { query } => json!({
            "id": shared.id("tsc_fake"), "type": "tool_search_call", "status": "completed",
            "call_id": shared.id("call_fake"), "execution": "client", "arguments": {"query": query},
        }),
        _ => json!({
            "id": shared.id("msg_fake"), "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": plan.text(), "annotations": []}],
        }),
    };
    let (input_tokens, output_tokens) = (plan::input_tokens(shared, request), plan.output_tokens());
    let usage = json!({
        "input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    });
    let completed = response_object(&response_id, model, "completed", json!([item]), usage);
    if body["stream"].as_bool() == Some(true) {
        Response::Sse(stream(&plan, &item, completed))
    } else {
        Response::Json { status: 200, body: completed, delay: plan.total_delay() }
    }
}

/// The tools the request offers: "function" and "custom" ones by name, "local_shell" as such,
/// the tools of each "namespace" (also those a `tool_search_output` in the input loaded), and a
/// client-side "tool_search".
pub(crate) fn offered_tools(body: &Value) -> Vec<Offered> {
    let listed = body["tools"].as_array().map(Vec::as_slice).unwrap_or_default();
    let loaded = body["input"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|item| item["type"] == "tool_search_output")
        .flat_map(|item| item["tools"].as_array().map(Vec::as_slice).unwrap_or_default());
    let mut offered = Vec::new();
    for tool in listed.iter().chain(loaded) {
        match (tool["type"].as_str(), tool["name"].as_str()) {
            (Some("namespace"), Some(namespace)) => {
                for inner in tool["tools"].as_array().map(Vec::as_slice).unwrap_or_default() {
                    if let Some(name) = inner["name"].as_str() {
                        let custom = inner["type"] == "custom";
                        offered.push(Offered {
                            custom,
                            namespace: Some(namespace.to_string()),
                            ..Offered::function(name)
                        });
                    }
                }
            }
            (Some("tool_search"), _) if tool["execution"] == "client" => {
                offered.push(Offered { client_search: true, ..Offered::function("tool_search") });
            }
            (Some("custom"), Some(name)) => offered.push(Offered { custom: true, ..Offered::function(name) }),
            (Some("local_shell"), _) => offered.push(Offered::function("local_shell")),
            (_, Some(name)) => offered.push(Offered::function(name)),
            _ => {}
        }
    }
    offered
}

/// Whether the last input item is a tool's output (looking past injected context).
pub(crate) fn after_tool_result(body: &Value) -> bool {
    let Some(last) = plan::last_real(&body["input"]) else { return false };
    last["type"].as_str().is_some_and(|t| TOOL_OUTPUTS.contains(&t))
}

fn response_object(id: &str, model: &str, status: &str, output: Value, usage: Value) -> Value {
    json!({
        "id": id, "object": "response", "created_at": CREATED, "status": status, "model": model,
        "output": output, "usage": usage, "error": null, "incomplete_details": null,
        "parallel_tool_calls": false, "tool_choice": "auto", "tools": [],
    })
}

/// The event stream for one answer, ending with `completed` (the finished response object).
fn stream(plan: &Plan, item: &Value, completed: Value) -> Vec<Frame> {
    let mut seq = 0u64;
    let mut event = |name: &str, mut data: Value| {
        data["type"] = json!(name);
        data["sequence_number"] = json!(seq);
        seq += 1;
        Frame::event(name, &data)
    };
    let mut in_progress = completed.clone();
    in_progress["status"] = json!("in_progress");
    in_progress["output"] = json!([]);
    in_progress["usage"] = Value::Null;
    let item_id = item["id"].clone();

    let mut frames = vec![
        event("response.created", json!({"response": in_progress})),
        event("response.in_progress", json!({"response": in_progress})),
    ];
    let mut added = item.clone();
    added["status"] = json!("in_progress");
    match plan {
        Plan::Text { pieces, delay } => {
            added["content"] = json!([]);
            frames.push(event("response.output_item.added", json!({"output_index": 0, "item": added})));
            let part = |text: String| json!({"type": "output_text", "text": text, "annotations": []});
            let at = json!({"item_id": item_id, "output_index": 0, "content_index": 0});
            let with = |mut base: Value, key: &str, value: Value| {
                base[key] = value;
                base
            };
            frames.push(event("response.content_part.added", with(at.clone(), "part", part(String::new()))));
            for (i, piece) in pieces.iter().enumerate() {
                let frame = event("response.output_text.delta", with(at.clone(), "delta", json!(piece)));
                frames.push(if i == 0 { frame } else { frame.after(*delay) });
            }
            let text = plan.text();
            frames.push(event("response.output_text.done", with(at.clone(), "text", json!(text))));
            frames.push(event("response.content_part.done", with(at, "part", part(text))));
        }
        Plan::ToolSearch { .. } => {
            frames.push(event("response.output_item.added", json!({"output_index": 0, "item": added})));
        }
        Plan::Tool { custom, .. } => {
            let (field, kind) =
                if *custom { ("input", "custom_tool_call_input") } else { ("arguments", "function_call_arguments") };
            added[field] = json!("");
            frames.push(event("response.output_item.added", json!({"output_index": 0, "item": added})));
            let value = item[field].clone();
            frames.push(event(
                &format!("response.{kind}.delta"),
                json!({"item_id": item_id, "output_index": 0, "delta": value}),
            ));
            frames.push(event(
                &format!("response.{kind}.done"),
                json!({"item_id": item_id, "output_index": 0, field: value}),
            ));
        }
        Plan::Error(_) => unreachable!("errors are answered with a 500"),
    }
    frames.push(event("response.output_item.done", json!({"output_index": 0, "item": item})));
    frames.push(event("response.completed", json!({"response": completed})));
    frames
}
