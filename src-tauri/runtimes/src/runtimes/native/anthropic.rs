//! The Anthropic Messages API: request bodies with prompt caching on the steady prefix, and the
//! streamed reply decoded into a [`ModelTurn`].

use std::collections::BTreeMap;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{json, Value};

use super::conversation::{
    body_size_hint, parse_data, AssistantTurn, Item, Messages, ModelTurn, StreamDecoder, ToolCall, Usage, CLOSED_EARLY,
};
use super::sse::SseEvent;
use super::tools;
use super::written::{Format, WrittenMessages};
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

/// The request: tools and system first and unchanged between calls (each marked as a cache
/// breakpoint), then the conversation, whose last block is a breakpoint too so the next round of
/// tool use reads everything before it from the cache. Written straight from the items (no
/// JSON tree built per call, whatever the conversation's length), `model` first so the relay
/// finds it without reading further.
pub fn request_bytes(
    model: &str,
    system: &str,
    messages: Messages<'_>,
    offered: &[tools::ToolDef],
    written: &WrittenMessages,
) -> Vec<u8> {
    // The carried conversation ends where this turn's message starts: marking it lets the next
    // turn read everything before its own message from the cache (what rides in front of a
    // message is not carried, so that prefix stays byte-identical).
    let current = messages.current();
    let carried_end = current.and_then(|i| i.checked_sub(1));
    let head = Head {
        model,
        max_tokens: MAX_TOKENS,
        stream: true,
        system: [Marked { block: Block::Text(system), mark: true }],
        tools: Tools(offered),
    };
    let mut bytes = Vec::with_capacity(body_size_hint(system, messages, offered.len()));
    // `{…head…,"messages":[…]}`: the messages are the body's last field.
    serde_json::to_writer(&mut bytes, &head).expect("a request body always serializes");
    bytes.pop();
    bytes.extend_from_slice(br#","messages":["#);
    // Before the marked one, the carried messages are plain: the same from request to request.
    let plain = carried_end.unwrap_or(0);
    written.write(Format::Anthropic, &mut bytes, messages, plain, false, |out, i| {
        let last = i + 1 == messages.len();
        let item = messages.item(i);
        let message = Message { item: &item, mark: last || carried_end == Some(i), last };
        serde_json::to_writer(out, &message).expect("a message always serializes");
    });
    bytes.extend_from_slice(b"]}");
    bytes
}

/// [`request_bytes`] as JSON, to look into.
pub fn request_body(model: &str, system: &str, messages: Messages<'_>, offered: &[tools::ToolDef]) -> Value {
    serde_json::from_slice(&request_bytes(model, system, messages, offered, &WrittenMessages::default()))
        .expect("request_bytes writes JSON")
}

/// The body before its messages.
#[derive(Serialize)]
struct Head<'a> {
    model: &'a str,
    max_tokens: u32,
    stream: bool,
    system: [Marked<'a>; 1],
    tools: Tools<'a>,
}

#[derive(Serialize)]
struct Ephemeral {
    #[serde(rename = "type")]
    kind: &'static str,
}

const EPHEMERAL: Ephemeral = Ephemeral { kind: "ephemeral" };

/// The tools, the last one a cache breakpoint.
struct Tools<'a>(&'a [tools::ToolDef]);

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for (i, tool) in self.0.iter().enumerate() {
            seq.serialize_element(&Tool {
                name: &tool.name,
                description: &tool.description,
                input_schema: &tool.schema,
                cache_control: (i + 1 == self.0.len()).then_some(EPHEMERAL),
            })?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct Tool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<Ephemeral>,
}

/// One message of the conversation. The carried part's last block and the last message's last
/// block are cache breakpoints (a message in plain text holds no block to mark, except the last,
/// which becomes one text block).
struct Message<'a> {
    item: &'a Item,
    /// Its last block is a cache breakpoint.
    mark: bool,
    /// The request's last message: in blocks even when it is plain text.
    last: bool,
}

impl Serialize for Message<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        match self.item {
            Item::User(text) => {
                map.serialize_entry("role", "user")?;
                if self.last {
                    map.serialize_entry("content", &[Marked { block: Block::Text(text), mark: true }])?;
                } else {
                    map.serialize_entry("content", &**text)?;
                }
            }
            Item::Assistant(turn) => {
                let text = (!turn.text.is_empty()).then_some(&*turn.text);
                let blocks = turn.thinking.iter().map(Block::Thinking);
                let blocks = blocks.chain(text.map(Block::Text)).chain(turn.tool_calls.iter().map(Block::ToolUse));
                map.serialize_entry("role", "assistant")?;
                map.serialize_entry("content", &Blocks::new(blocks, self.mark))?;
            }
            Item::ToolResults(outcomes) => {
                map.serialize_entry("role", "user")?;
                map.serialize_entry("content", &Blocks::new(outcomes.iter().map(Block::ToolResult), self.mark))?;
            }
        }
        map.end()
    }
}

enum Block<'a> {
    Text(&'a str),
    /// A thinking block as received, sent back unchanged.
    Thinking(&'a Value),
    ToolUse(&'a ToolCall),
    ToolResult(&'a super::conversation::ToolOutcome),
}

/// A content block, with `cache_control` when it is a breakpoint.
struct Marked<'a> {
    block: Block<'a>,
    mark: bool,
}

impl Serialize for Marked<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let cache_control = self.mark.then_some(EPHEMERAL);
        if let Block::Thinking(block) = self.block {
            return match (block, cache_control) {
                (Value::Object(fields), Some(_)) => {
                    let mut fields = fields.clone();
                    fields.insert("cache_control".into(), json!({"type": "ephemeral"}));
                    fields.serialize(serializer)
                }
                _ => block.serialize(serializer),
            };
        }
        let mut map = serializer.serialize_map(None)?;
        match self.block {
            Block::Text(text) => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
            }
            Block::ToolUse(call) => {
                map.serialize_entry("type", "tool_use")?;
                map.serialize_entry("id", &call.id)?;
                map.serialize_entry("name", &call.name)?;
                map.serialize_entry("input", &call.input)?;
            }
            Block::ToolResult(outcome) => {
                map.serialize_entry("type", "tool_result")?;
                map.serialize_entry("tool_use_id", &outcome.call_id)?;
                map.serialize_entry("content", &outcome.output)?;
                map.serialize_entry("is_error", &outcome.is_error)?;
            }
            Block::Thinking(_) => unreachable!("written above"),
        }
        if let Some(cache_control) = cache_control {
            map.serialize_entry("cache_control", &cache_control)?;
        }
        map.end()
    }
}

/// A message's blocks, the last one marked when `mark` is set.
struct Blocks<I> {
    blocks: std::cell::RefCell<Option<I>>,
    mark: bool,
}

impl<'a, I: Iterator<Item = Block<'a>>> Blocks<I> {
    fn new(blocks: I, mark: bool) -> Self {
        Self { blocks: std::cell::RefCell::new(Some(blocks)), mark }
    }
}

impl<'a, I: Iterator<Item = Block<'a>>> Serialize for Blocks<I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let blocks = self.blocks.borrow_mut().take().expect("blocks are written once");
        let mut seq = serializer.serialize_seq(None)?;
        let mut blocks = blocks.peekable();
        while let Some(block) = blocks.next() {
            let mark = self.mark && blocks.peek().is_none();
            seq.serialize_element(&Marked { block, mark })?;
        }
        seq.end()
    }
}

#[derive(Debug)]
enum Received {
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
    blocks: BTreeMap<u64, Received>,
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
    fn usage(&self) -> Option<Usage> {
        self.usage
    }

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
                        Received::Text(start)
                    }
                    "thinking" => Received::Thinking { text: text("thinking"), signature: text("signature") },
                    "redacted_thinking" => Received::Redacted(block.clone()),
                    "tool_use" => Received::ToolUse { id: text("id"), name: text("name"), json: String::new() },
                    _ => Received::Other,
                };
                self.blocks.insert(index, block);
            }
            "content_block_delta" => {
                let delta = &data["delta"];
                let piece = |field: &str| delta[field].as_str().unwrap_or_default();
                match (self.blocks.get_mut(&index), delta["type"].as_str().unwrap_or_default()) {
                    (Some(Received::Text(text)), "text_delta") => {
                        let piece = piece("text");
                        if !piece.is_empty() {
                            text.push_str(piece);
                            emit(RunEvent::TextDelta { text: piece.to_owned() });
                        }
                    }
                    (Some(Received::Thinking { text, .. }), "thinking_delta") => {
                        let piece = piece("thinking");
                        if !piece.is_empty() {
                            text.push_str(piece);
                            emit(RunEvent::Thinking { text: piece.to_owned() });
                        }
                    }
                    (Some(Received::Thinking { signature, .. }), "signature_delta") => {
                        signature.push_str(piece("signature"))
                    }
                    (Some(Received::ToolUse { json, .. }), "input_json_delta") => json.push_str(piece("partial_json")),
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
        let mut reply = String::new();
        for block in std::mem::take(&mut self.blocks).into_values() {
            match block {
                Received::Text(text) => reply.push_str(&text),
                Received::Thinking { text, signature } => {
                    assistant.thinking.push(json!({"type": "thinking", "thinking": text, "signature": signature}));
                }
                Received::Redacted(raw) => assistant.thinking.push(raw),
                Received::ToolUse { id, name, json } => {
                    assistant.tool_calls.push(ToolCall::from_json_text(id, name, &json))
                }
                Received::Other => {}
            }
        }
        assistant.text = reply.into();
        Ok(ModelTurn { assistant, stop_reason: self.stop_reason.take(), usage: self.usage.take() })
    }
}

#[cfg(test)]
mod tests {
    use super::super::conversation::ToolOutcome;
    use super::*;

    fn ephemeral() -> Value {
        json!({"type": "ephemeral"})
    }

    /// The body as built before it was written straight from the items (a JSON tree per call):
    /// what `request_bytes` must still say.
    fn tree_body(model: &str, system: &str, items: &[Item], offered: &[tools::ToolDef]) -> Value {
        let mut tools: Vec<Value> = offered
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.schema}))
            .collect();
        if let Some(last) = tools.last_mut() {
            last["cache_control"] = ephemeral();
        }
        let mut messages: Vec<Value> = items.iter().map(tree_message).collect();
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

    fn tree_message(item: &Item) -> Value {
        match item {
            Item::User(text) => json!({"role": "user", "content": &**text}),
            Item::Assistant(turn) => {
                let mut blocks = turn.thinking.clone();
                if !turn.text.is_empty() {
                    blocks.push(json!({"type": "text", "text": &*turn.text}));
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

    #[test]
    fn the_body_written_straight_says_what_the_json_tree_said_with_the_model_first() {
        let thinking = json!({"type": "thinking", "thinking": "hm \"q\"", "signature": "sig"});
        let call = ToolCall::from_json_text("c1".into(), "read_file".into(), r#"{"path": "a.md"}"#);
        let assistant = |text: &str, thinking: Vec<Value>, calls: Vec<ToolCall>| {
            Item::Assistant(AssistantTurn { text: text.into(), tool_calls: calls, thinking })
        };
        let results = Item::ToolResults(vec![
            ToolOutcome { call_id: "c1".into(), output: "line\n\"x\"".into(), is_error: false },
            ToolOutcome { call_id: "c2".into(), output: "nope".into(), is_error: true },
        ]);
        let cases: Vec<Vec<Item>> = vec![
            vec![Item::User("hi".into())],
            vec![Item::User("one".into()), assistant("reply", vec![], vec![]), Item::User("two \u{1F600}".into())],
            vec![Item::User("go".into()), assistant("", vec![thinking.clone()], vec![call.clone()]), results.clone()],
            vec![
                Item::User("a".into()),
                assistant("b", vec![thinking.clone()], vec![]),
                Item::User("c".into()),
                assistant("looking", vec![], vec![call.clone()]),
                results,
            ],
            vec![Item::User("a".into()), assistant("", vec![thinking], vec![])],
            vec![Item::User("a".into()), assistant("", vec![], vec![]), Item::User("b".into())],
            vec![],
        ];
        for offered in [tools::definitions(), Vec::new()] {
            for items in &cases {
                let bytes = request_bytes(
                    "claude-x",
                    "SYS\n\"tem\"",
                    Messages::of(items),
                    &offered,
                    &WrittenMessages::default(),
                );
                let written: Value = serde_json::from_slice(&bytes).unwrap();
                assert_eq!(written, tree_body("claude-x", "SYS\n\"tem\"", items, &offered), "{items:?}");
                assert!(bytes.starts_with(br#"{"model":"claude-x","#));
            }
        }
    }

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
        assert_eq!(&*turn.assistant.text, "Let me look.");
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
        let body = request_body("claude-x", "SYSTEM", Messages::of(&items), &tools::definitions());
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
        let body = request_body("claude-x", "SYSTEM", Messages::of(&items), &tools::definitions());
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages[1]["content"][0]["cache_control"], ephemeral(), "the end of what is carried");
        assert!(messages[0]["content"].is_string(), "nothing else in the history is marked");
        assert_eq!(messages[2]["content"][0]["cache_control"], ephemeral(), "the last message, for tool rounds");
        let marks = body.to_string().matches("cache_control").count();
        assert!(marks <= 4, "Anthropic allows at most 4 breakpoints; {marks}");
    }
}
