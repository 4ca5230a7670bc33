//! The Anthropic Messages API: request bodies with prompt caching on the steady prefix, and the
//! streamed reply decoded into a [`ModelTurn`].

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::conversation::{parse_data, AssistantTurn, Item, ModelTurn, StreamDecoder, ToolCall, Usage, CLOSED_EARLY};
use super::sse::SseEvent;
use super::tools;
use crate::runtimes::RunEvent;

pub const API_VERSION: &str = "2023-06-01";
pub const MAX_TOKENS: u32 = 8192;

/// `{base}/v1/messages`, whether or not the configured base already ends in `/v1`.
pub fn url(base: &str) -> String {
    if base.ends_with("/v1") {
        format!("{base}/messages")
    } else {
        format!("{base}/v1/messages")
    }
}

fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

/// The request: tools and system first and unchanged between calls (each marked as a cache
/// breakpoint), then the conversation, whose last block is a breakpoint too so the next round of
/// tool use reads everything before it from the cache.
pub fn request_body(model: &str, system: &str, items: &[Item], offered: &[tools::ToolDef]) -> Value {
    let mut tools: Vec<Value> = offered
        .iter()
        .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.schema}))
        .collect();
    if let Some(last) = tools.last_mut() {
        last["cache_control"] = ephemeral();
    }
    let mut messages: Vec<Value> = items.iter().map(message).collect();
    // The carried conversation ends where this turn's message starts: marking it lets the next
    // turn read everything before its own message from the cache (what rides in front of a
    // message is not carried, so that prefix stays byte-identical).
    let current = items.iter().rposition(|item| matches!(item, Item::User(_)));
    if let Some(carried_end) = current.and_then(|i| i.checked_sub(1)) {
        if let Some(block) = messages[carried_end]["content"].as_array_mut().and_then(|b| b.last_mut()) {
            block["cache_control"] = ephemeral();
        }
    }
    if let Some(last) = messages.last_mut() {
        if let Some(text) = last["content"].as_str() {
            last["content"] = json!([{"type": "text", "text": text}]);
        }
        if let Some(block) = last["content"].as_array_mut().and_then(|blocks| blocks.last_mut()) {
            block["cache_control"] = ephemeral();
        }
    }
    json!({
        "model": model,
        "max_tokens": MAX_TOKENS,
        "stream": true,
        "system": [{"type": "text", "text": system, "cache_control": ephemeral()}],
        "tools": tools,
        "messages": messages,
    })
}

fn message(item: &Item) -> Value {
    match item {
        Item::User(text) => json!({"role": "user", "content": text}),
        Item::Assistant(turn) => {
            let mut blocks = turn.thinking.clone();
            if !turn.text.is_empty() {
                blocks.push(json!({"type": "text", "text": turn.text}));
            }
            for call in &turn.tool_calls {
                blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.input}));
            }
            json!({"role": "assistant", "content": blocks})
        }
        Item::ToolResults(outcomes) => {
            let blocks: Vec<Value> = outcomes
                .iter()
                .map(|o| json!({"type": "tool_result", "tool_use_id": o.call_id, "content": o.output, "is_error": o.is_error}))
                .collect();
            json!({"role": "user", "content": blocks})
        }
    }
}

#[derive(Debug)]
enum Block {
    Text(String),
    Thinking {
        text: String,
        signature: String,
    },
    /// Kept whole and sent back as received.
    Redacted(Value),
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    Other,
}

#[derive(Debug, Default)]
pub struct Decoder {
    blocks: BTreeMap<u64, Block>,
    usage: Option<Usage>,
    stop_reason: Option<String>,
    stopped: bool,
}

impl Decoder {
    pub fn new() -> Self {
        Self::default()
    }

    fn merge_usage(&mut self, usage: &Value) {
        let Some(fields) = usage.as_object() else { return };
        let current = self.usage.get_or_insert_with(Usage::default);
        let read = |name: &str| fields.get(name).and_then(Value::as_u64);
        if let Some(n) = read("input_tokens") {
            current.input_tokens = n;
        }
        if let Some(n) = read("output_tokens") {
            current.output_tokens = n;
        }
        if let Some(n) = read("cache_read_input_tokens") {
            current.cache_read_tokens = n;
        }
        if let Some(n) = read("cache_creation_input_tokens") {
            current.cache_write_tokens = n;
        }
    }
}

impl StreamDecoder for Decoder {
    fn on_event(&mut self, event: &SseEvent, emit: &mut dyn FnMut(RunEvent)) -> Result<bool, String> {
        let Some(data) = parse_data(event, emit) else { return Ok(false) };
        let kind = data["type"].as_str().or(event.event.as_deref()).unwrap_or_default();
        let index = data["index"].as_u64().unwrap_or(0);
        match kind {
            "message_start" => self.merge_usage(&data["message"]["usage"]),
            "content_block_start" => {
                let block = &data["content_block"];
                let text = |field: &str| block[field].as_str().unwrap_or_default().to_owned();
                let block = match block["type"].as_str().unwrap_or_default() {
                    "text" => {
                        let start = text("text");
                        if !start.is_empty() {
                            emit(RunEvent::TextDelta { text: start.clone() });
                        }
                        Block::Text(start)
                    }
                    "thinking" => Block::Thinking { text: text("thinking"), signature: text("signature") },
                    "redacted_thinking" => Block::Redacted(block.clone()),
                    "tool_use" => Block::ToolUse { id: text("id"), name: text("name"), json: String::new() },
                    _ => Block::Other,
                };
                self.blocks.insert(index, block);
            }
            "content_block_delta" => {
                let delta = &data["delta"];
                let piece = |field: &str| delta[field].as_str().unwrap_or_default();
                match (self.blocks.get_mut(&index), delta["type"].as_str().unwrap_or_default()) {
                    (Some(Block::Text(text)), "text_delta") => {
                        let piece = piece("text");
                        if !piece.is_empty() {
                            text.push_str(piece);
                            emit(RunEvent::TextDelta { text: piece.to_owned() });
                        }
                    }
                    (Some(Block::Thinking { text, .. }), "thinking_delta") => {
                        let piece = piece("thinking");
                        if !piece.is_empty() {
                            text.push_str(piece);
                            emit(RunEvent::Thinking { text: piece.to_owned() });
                        }
                    }
                    (Some(Block::Thinking { signature, .. }), "signature_delta") => {
                        signature.push_str(piece("signature"))
                    }
                    (Some(Block::ToolUse { json, .. }), "input_json_delta") => json.push_str(piece("partial_json")),
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(reason.to_owned());
                }
                self.merge_usage(&data["usage"]);
            }
            "message_stop" => {
                self.stopped = true;
                return Ok(true);
            }
            "error" => {
                let message = data["error"]["message"].as_str().unwrap_or("The model reported an error.");
                return Err(message.to_owned());
            }
            _ => {} // ping, content_block_stop, and anything new
        }
        Ok(false)
    }

    fn finish(&mut self) -> Result<ModelTurn, String> {
        if !self.stopped && self.stop_reason.is_none() {
            return Err(CLOSED_EARLY.into());
        }
        let mut assistant = AssistantTurn::default();
        for block in std::mem::take(&mut self.blocks).into_values() {
            match block {
                Block::Text(text) => assistant.text.push_str(&text),
                Block::Thinking { text, signature } => {
                    assistant.thinking.push(json!({"type": "thinking", "thinking": text, "signature": signature}));
                }
                Block::Redacted(raw) => assistant.thinking.push(raw),
                Block::ToolUse { id, name, json } => {
                    assistant.tool_calls.push(ToolCall::from_json_text(id, name, &json))
                }
                Block::Other => {}
            }
        }
        Ok(ModelTurn { assistant, stop_reason: self.stop_reason.take(), usage: self.usage.take() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(stream: &str) -> (Result<ModelTurn, String>, Vec<RunEvent>) {
        crate::runtimes::native::conversation::decode_all(&mut Decoder::new(), stream)
    }

    #[test]
    fn decodes_text_thinking_tool_use_and_cache_usage() {
        let stream = concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12,\"output_tokens\":1,\"cache_read_input_tokens\":3000,\"cache_creation_input_tokens\":250}}}\n\n",
            "event: ping\ndata: {\"type\":\"ping\"}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Hmm.\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"sig\"}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me \"}}\n\n",
            "data: {not json\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"look.\"}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"read_file\",\"input\":{}}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"a.md\\\"}\"}}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":40}}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        );
        let (turn, events) = decode(stream);
        let turn = turn.unwrap();
        assert_eq!(turn.assistant.text, "Let me look.");
        assert_eq!(turn.assistant.tool_calls.len(), 1);
        assert_eq!(turn.assistant.tool_calls[0].input, json!({"path": "a.md"}));
        assert_eq!(turn.assistant.thinking, [json!({"type": "thinking", "thinking": "Hmm.", "signature": "sig"})]);
        assert_eq!(turn.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!(
            turn.usage,
            Some(Usage { input_tokens: 12, output_tokens: 40, cache_read_tokens: 3000, cache_write_tokens: 250 })
        );
        assert_eq!(events[0], RunEvent::Thinking { text: "Hmm.".into() });
        assert_eq!(events[1], RunEvent::TextDelta { text: "Let me ".into() });
        assert!(matches!(&events[2], RunEvent::Warning { message } if message.contains("{not json")));
        assert_eq!(events[3], RunEvent::TextDelta { text: "look.".into() });
        assert_eq!(events.len(), 4);
    }

    #[test]
    fn a_mid_stream_error_and_an_early_close_fail() {
        let (turn, _) = decode("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n");
        assert_eq!(turn.unwrap_err(), "Overloaded");
        let (turn, _) =
            decode("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{}}}\n\n");
        assert_eq!(turn.unwrap_err(), CLOSED_EARLY);
    }

    #[test]
    fn the_steady_prefix_and_the_last_message_are_cache_breakpoints() {
        let items = [Item::User("hi".into())];
        let body = request_body("claude-x", "SYSTEM", &items, &tools::definitions());
        assert_eq!(body["system"][0]["cache_control"], ephemeral());
        let tools = body["tools"].as_array().unwrap();
        assert_eq!(tools.last().unwrap()["cache_control"], ephemeral());
        assert!(tools[..tools.len() - 1].iter().all(|t| t.get("cache_control").is_none()));
        assert_eq!(
            body["messages"][0]["content"],
            json!([{"type": "text", "text": "hi", "cache_control": ephemeral()}])
        );
        assert_eq!(url("https://api.anthropic.com"), "https://api.anthropic.com/v1/messages");
        assert_eq!(url("http://proxy/v1"), "http://proxy/v1/messages");
    }

    #[test]
    fn the_carried_conversation_ends_at_a_breakpoint_so_the_next_turn_reads_it_from_the_cache() {
        let items = [
            Item::User("one".into()),
            Item::Assistant(AssistantTurn { text: "reply one".into(), ..Default::default() }),
            Item::User("preamble\n\ntwo".into()),
        ];
        let body = request_body("claude-x", "SYSTEM", &items, &tools::definitions());
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages[1]["content"][0]["cache_control"], ephemeral(), "the end of what is carried");
        assert!(messages[0]["content"].is_string(), "nothing else in the history is marked");
        assert_eq!(messages[2]["content"][0]["cache_control"], ephemeral(), "the last message, for tool rounds");
        let marks = body.to_string().matches("cache_control").count();
        assert!(marks <= 4, "Anthropic allows at most 4 breakpoints; {marks}");
    }
}
