//! OpenAI-compatible Chat Completions (OpenAI, OpenRouter, a custom endpoint such as Ollama):
//! request bodies, and the streamed reply decoded into a [`ModelTurn`].

use std::collections::BTreeMap;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::conversation::{
    body_size_hint, parse_data, AssistantTurn, Item, Messages, ModelTurn, StreamDecoder, ToolCall, Usage, CLOSED_EARLY,
};
use super::sse::SseEvent;
use super::tools;
use super::written::{Format, WrittenMessages};
use crate::runtimes::RunEvent;

/// `{base}/chat/completions`; the base includes its version path (`https://api.openai.com/v1`).
pub fn url(base: &str) -> String {
    format!("{base}/chat/completions")
}

/// The request, written straight from the items (no JSON tree built per call, whatever the
/// conversation's length), `model` first so the relay finds it without reading further.
pub fn request_bytes(
    model: &str,
    system: &str,
    messages: Messages<'_>,
    offered: &[tools::ToolDef],
    written: &WrittenMessages,
) -> Vec<u8> {
    let head = Head { model, stream: true, stream_options: StreamOptions { include_usage: true } };
    let mut bytes = Vec::with_capacity(body_size_hint(system, messages, offered.len()));
    // `{…head…,"messages":[…],"tools":[…]}`.
    serde_json::to_writer(&mut bytes, &head).expect("a request body always serializes");
    bytes.pop();
    bytes.extend_from_slice(br#","messages":["#);
    serde_json::to_writer(&mut bytes, &Plain { role: "system", content: system }).expect("text always serializes");
    // Everything before this turn's message is carried and plain.
    let carried = messages.current().unwrap_or(0);
    written.write(Format::Chat, &mut bytes, messages, carried, true, |out, i| write_message(out, &messages.item(i)));
    bytes.extend_from_slice(br#"],"tools":"#);
    serde_json::to_writer(&mut bytes, &Tools(offered)).expect("tools always serialize");
    bytes.push(b'}');
    bytes
}

/// [`request_bytes`] as JSON, to look into.
pub fn request_body(model: &str, system: &str, messages: Messages<'_>, offered: &[tools::ToolDef]) -> Value {
    serde_json::from_slice(&request_bytes(model, system, messages, offered, &WrittenMessages::default()))
        .expect("request_bytes writes JSON")
}

/// The body before its messages and tools.
#[derive(Serialize)]
struct Head<'a> {
    model: &'a str,
    stream: bool,
    stream_options: StreamOptions,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

struct Tools<'a>(&'a [tools::ToolDef]);

impl Serialize for Tools<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Function<'a> {
            name: &'a str,
            description: &'a str,
            parameters: &'a Value,
        }
        #[derive(Serialize)]
        struct Tool<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            function: Function<'a>,
        }
        serializer.collect_seq(self.0.iter().map(|t| Tool {
            kind: "function",
            function: Function { name: &t.name, description: &t.description, parameters: &t.schema },
        }))
    }
}

#[derive(Serialize)]
struct Plain<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Serialize)]
struct ToolMessage<'a> {
    role: &'static str,
    tool_call_id: &'a str,
    content: std::borrow::Cow<'a, str>,
}

/// One item's messages, comma-separated: a user or assistant turn is one, tool results one each.
fn write_message(out: &mut Vec<u8>, item: &Item) {
    let written = match item {
        Item::User(text) => serde_json::to_writer(&mut *out, &Plain { role: "user", content: text }),
        Item::Assistant(turn) => serde_json::to_writer(&mut *out, &AssistantMessage(turn)),
        Item::ToolResults(outcomes) => {
            for (i, o) in outcomes.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                let content = if o.is_error { format!("Error: {}", o.output).into() } else { o.output.as_str().into() };
                let message = ToolMessage { role: "tool", tool_call_id: &o.call_id, content };
                serde_json::to_writer(&mut *out, &message).expect("a message always serializes");
            }
            Ok(())
        }
    };
    written.expect("a message always serializes");
}

/// An assistant turn: its text (`null` beside tool calls when it has none) and its calls.
struct AssistantMessage<'a>(&'a AssistantTurn);

impl Serialize for AssistantMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Function<'a> {
            name: &'a str,
            arguments: String,
        }
        #[derive(Serialize)]
        struct Call<'a> {
            id: &'a str,
            #[serde(rename = "type")]
            kind: &'static str,
            function: Function<'a>,
        }
        let turn = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("role", "assistant")?;
        if turn.tool_calls.is_empty() {
            map.serialize_entry("content", &*turn.text)?;
        } else {
            map.serialize_entry("content", &(!turn.text.is_empty()).then_some(&*turn.text))?;
            let calls = turn.tool_calls.iter().map(|c| Call {
                id: &c.id,
                kind: "function",
                function: Function { name: &c.name, arguments: c.input.to_string() },
            });
            map.serialize_entry("tool_calls", &Calls(std::cell::RefCell::new(Some(calls))))?;
        }
        map.end()
    }
}

/// A sequence written from an iterator, once.
struct Calls<I>(std::cell::RefCell<Option<I>>);

impl<I: Iterator<Item = T>, T: Serialize> Serialize for Calls<I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.borrow_mut().take().expect("written once"))
    }
}

#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

#[derive(Debug, Default)]
pub struct Decoder {
    text: String,
    calls: BTreeMap<u64, PartialCall>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    done: bool,
}

impl Decoder {
    pub fn new() -> Self {
        Self::default()
    }
}

impl StreamDecoder for Decoder {
    fn usage(&self) -> Option<Usage> {
        self.usage
    }

    fn on_event(&mut self, event: &SseEvent, emit: &mut dyn FnMut(RunEvent)) -> Result<bool, String> {
        if event.is_done() {
            self.done = true;
            return Ok(true);
        }
        let Some(data) = parse_data(event, emit) else { return Ok(false) };
        if let Some(error) = data.get("error").filter(|e| !e.is_null()) {
            let message = error["message"].as_str().or(error.as_str()).unwrap_or("The model reported an error.");
            return Err(message.to_owned());
        }
        if let Some(usage) = data.get("usage").filter(|u| u.is_object()) {
            let read = |v: &Value| v.as_u64().unwrap_or(0);
            let prompt = read(&usage["prompt_tokens"]);
            let cached = read(&usage["prompt_tokens_details"]["cached_tokens"]);
            // prompt_tokens counts cached tokens too; report them apart, as Anthropic does.
            self.usage = Some(Usage {
                input_tokens: prompt.saturating_sub(cached),
                output_tokens: read(&usage["completion_tokens"]),
                cache_read_tokens: cached,
                cache_write_tokens: 0,
            });
        }
        let Some(choice) = data["choices"].as_array().and_then(|c| c.first()) else { return Ok(false) };
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
            self.text.push_str(text);
            emit(RunEvent::TextDelta { text: text.to_owned() });
        }
        // OpenRouter sends `reasoning`; DeepSeek, vLLM and others `reasoning_content`.
        if let Some(text) =
            delta["reasoning"].as_str().or(delta["reasoning_content"].as_str()).filter(|t| !t.is_empty())
        {
            emit(RunEvent::Thinking { text: text.to_owned() });
        }
        if let Some(calls) = delta["tool_calls"].as_array() {
            for (position, call) in calls.iter().enumerate() {
                let index = call["index"].as_u64().unwrap_or(position as u64);
                let partial = self.calls.entry(index).or_default();
                if let Some(id) = call["id"].as_str().filter(|id| !id.is_empty()) {
                    partial.id = id.to_owned();
                }
                if let Some(name) = call["function"]["name"].as_str().filter(|_| partial.name.is_empty()) {
                    partial.name = name.to_owned();
                }
                if let Some(arguments) = call["function"]["arguments"].as_str() {
                    partial.arguments.push_str(arguments);
                }
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish_reason = Some(reason.to_owned());
        }
        Ok(false)
    }

    fn finish(&mut self) -> Result<ModelTurn, String> {
        if !self.done && self.finish_reason.is_none() {
            return Err(CLOSED_EARLY.into());
        }
        let tool_calls = std::mem::take(&mut self.calls)
            .into_values()
            .map(|c| {
                let id = if c.id.is_empty() { format!("call_{}", uuid::Uuid::new_v4().simple()) } else { c.id };
                ToolCall::from_json_text(id, c.name, &c.arguments)
            })
            .collect();
        let assistant = AssistantTurn { text: std::mem::take(&mut self.text).into(), tool_calls, thinking: Vec::new() };
        Ok(ModelTurn { assistant, stop_reason: self.finish_reason.take(), usage: self.usage.take() })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::runtimes::native::conversation::ToolOutcome;

    /// The body as built before it was written straight from the items (a JSON tree per call):
    /// what `request_bytes` must still say.
    fn tree_body(model: &str, system: &str, items: &[Item], offered: &[tools::ToolDef]) -> Value {
        let tools: Vec<Value> = offered
            .iter()
            .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.schema}}))
            .collect();
        let mut messages = vec![json!({"role": "system", "content": system})];
        for item in items {
            match item {
                Item::User(text) => messages.push(json!({"role": "user", "content": &**text})),
                Item::Assistant(turn) => {
                    let mut message = json!({"role": "assistant", "content": &*turn.text});
                    if !turn.tool_calls.is_empty() {
                        if turn.text.is_empty() {
                            message["content"] = Value::Null;
                        }
                        message["tool_calls"] = turn
                            .tool_calls
                            .iter()
                            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.input.to_string()}}))
                            .collect();
                    }
                    messages.push(message);
                }
                Item::ToolResults(outcomes) => {
                    for o in outcomes {
                        let content = if o.is_error { format!("Error: {}", o.output) } else { o.output.clone() };
                        messages.push(json!({"role": "tool", "tool_call_id": o.call_id, "content": content}));
                    }
                }
            }
        }
        json!({
            "model": model,
            "stream": true,
            "stream_options": {"include_usage": true},
            "messages": messages,
            "tools": tools,
        })
    }

    #[test]
    fn a_long_conversations_body_is_written_into_one_buffer_made_to_size() {
        let mut items = Vec::new();
        for i in 0..1_000 {
            items.push(Item::User(format!("Message {i}: \"quoted\"\nand a second line.").into()));
            items.push(Item::Assistant(AssistantTurn {
                text: format!("Reply {i}, fine.").into(),
                ..Default::default()
            }));
        }
        let offered = tools::definitions();
        for api in [request_bytes, crate::runtimes::native::anthropic::request_bytes] {
            let body = api("m", "SYS\n", Messages::of(&items), &offered, &WrittenMessages::default());
            let hint =
                crate::runtimes::native::conversation::body_size_hint("SYS\n", Messages::of(&items), offered.len());
            assert!(hint >= body.len(), "the buffer ({hint} B) grew to hold the body ({} B)", body.len());
            assert!(hint < body.len() * 2, "{hint} B made for a {} B body", body.len());
        }
    }

    #[test]
    fn the_body_written_straight_says_what_the_json_tree_said_with_the_model_first() {
        let call = ToolCall::from_json_text("c1".into(), "list_files".into(), r#"{"path": "a \"b\""}"#);
        let items = [
            Item::User("hi \u{1F600}".into()),
            Item::Assistant(AssistantTurn { text: "".into(), tool_calls: vec![call.clone()], thinking: Vec::new() }),
            Item::ToolResults(vec![
                ToolOutcome { call_id: "c1".into(), output: "nope".into(), is_error: true },
                ToolOutcome { call_id: "c2".into(), output: "line\n\"x\"".into(), is_error: false },
            ]),
            Item::Assistant(AssistantTurn { text: "with a call".into(), tool_calls: vec![call], thinking: Vec::new() }),
            Item::Assistant(AssistantTurn { text: "plain".into(), ..Default::default() }),
            Item::Assistant(AssistantTurn::default()),
            Item::User("bye".into()),
        ];
        for offered in [tools::definitions(), Vec::new()] {
            for n in 0..=items.len() {
                let bytes =
                    request_bytes("m", "SYS\n", Messages::of(&items[..n]), &offered, &WrittenMessages::default());
                let written: Value = serde_json::from_slice(&bytes).unwrap();
                assert_eq!(written, tree_body("m", "SYS\n", &items[..n], &offered));
                assert!(bytes.starts_with(br#"{"model":"m","#));
            }
        }
    }

    fn decode(stream: &str) -> (Result<ModelTurn, String>, Vec<RunEvent>) {
        crate::runtimes::native::conversation::decode_all(&mut Decoder::new(), stream)
    }

    #[test]
    fn accumulates_tool_calls_by_index_and_reads_cached_usage() {
        let stream = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Checking.\",\"reasoning\":\"think\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"list_files\",\"arguments\":\"\"}},{\"index\":1,\"id\":\"call_b\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"pa\"}}]}}]}\n\n",
            "data: {oops\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\"th\\\":\\\"x\\\"}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":null}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":20,\"prompt_tokens_details\":{\"cached_tokens\":800}}}\n\n",
            "data: [DONE]\n\n",
        );
        let (turn, events) = decode(stream);
        let turn = turn.unwrap();
        assert_eq!(&*turn.assistant.text, "Checking.");
        let calls = &turn.assistant.tool_calls;
        assert_eq!(
            (calls[0].id.as_str(), calls[0].name.as_str(), &calls[0].input),
            ("call_a", "list_files", &json!({}))
        );
        assert_eq!(
            (calls[1].id.as_str(), calls[1].name.as_str(), &calls[1].input),
            ("call_b", "read_file", &json!({"path": "x"}))
        );
        assert_eq!(turn.stop_reason.as_deref(), Some("tool_calls"));
        assert_eq!(
            turn.usage,
            Some(Usage { input_tokens: 200, output_tokens: 20, cache_read_tokens: 800, cache_write_tokens: 0 })
        );
        assert_eq!(events[0], RunEvent::TextDelta { text: "Checking.".into() });
        assert_eq!(events[1], RunEvent::Thinking { text: "think".into() });
        assert!(matches!(&events[2], RunEvent::Warning { .. }));
        assert_eq!(events.len(), 3);
    }

    #[test]
    fn errors_in_the_stream_and_early_closes_fail() {
        let (turn, _) = decode("data: {\"error\":{\"message\":\"Rate limited\",\"code\":429}}\n\n");
        assert_eq!(turn.unwrap_err(), "Rate limited");
        let (turn, _) = decode("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hal\"}}]}\n\n");
        assert_eq!(turn.unwrap_err(), CLOSED_EARLY);
        let (turn, _) =
            decode("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n");
        assert_eq!(&*turn.unwrap().assistant.text, "ok");
    }

    #[test]
    fn the_conversation_becomes_chat_messages() {
        let call = ToolCall::from_json_text("c1".into(), "list_files".into(), "{}");
        let items = [
            Item::User("hi".into()),
            Item::Assistant(AssistantTurn { text: "".into(), tool_calls: vec![call], thinking: Vec::new() }),
            Item::ToolResults(vec![ToolOutcome { call_id: "c1".into(), output: "nope".into(), is_error: true }]),
        ];
        let body = request_body("m", "SYS", Messages::of(&items), &tools::definitions());
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages[0], json!({"role": "system", "content": "SYS"}));
        assert_eq!(messages[2]["content"], Value::Null);
        assert_eq!(messages[2]["tool_calls"][0]["function"]["arguments"], "{}");
        assert_eq!(messages[3], json!({"role": "tool", "tool_call_id": "c1", "content": "Error: nope"}));
        assert_eq!(body["stream_options"], json!({"include_usage": true}));
    }
}
