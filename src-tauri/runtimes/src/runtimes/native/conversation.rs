//! The conversation as the loop keeps it, independent of the wire format; each API module turns
//! it into its own request body and decodes its own stream back into a [`ModelTurn`].

use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

use serde_json::Value;

use super::sse::SseEvent;
use crate::runtimes::{RunEvent, TranscriptTurn};

#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// Shared with the carried transcript it came from: a long conversation is not copied per send.
    User(Arc<str>),
    Assistant(AssistantTurn),
    ToolResults(Vec<ToolOutcome>),
}

/// A request's messages: the carried turns (each the user's message, then the reply), then the
/// run's own items (this turn's message, the model's tool calls and their results). The carried
/// turns are the conversation's as shared (see [`Transcript`]): no item is made of one unless it
/// is written.
///
/// [`Transcript`]: crate::runtimes::Transcript
#[derive(Debug, Clone, Copy)]
pub struct Messages<'a> {
    pub carried: &'a [TranscriptTurn],
    pub items: &'a [Item],
}

impl<'a> Messages<'a> {
    /// Items only, nothing carried.
    pub fn of(items: &'a [Item]) -> Self {
        Self { carried: &[], items }
    }

    pub fn len(&self) -> usize {
        2 * self.carried.len() + self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Message `i` when it is plain text (a user's message, or a reply without tool calls or
    /// thinking): who wrote it (`true`: the user) and its text, as shared. What a request
    /// writes is known again by it (see [`super::written`]).
    pub fn plain_text(&self, i: usize) -> Option<(bool, &'a Arc<str>)> {
        match self.message(i) {
            Message::Carried(user, text) => Some((user, text)),
            Message::Item(Item::User(text)) => Some((true, text)),
            Message::Item(Item::Assistant(turn)) if turn.tool_calls.is_empty() && turn.thinking.is_empty() => {
                Some((false, &turn.text))
            }
            Message::Item(_) => None,
        }
    }

    /// Message `i` as an item: the run's own as it is, a carried one made for the moment (its
    /// text shared; a stand-in when it is empty, which a provider would refuse).
    pub fn item(&self, i: usize) -> Cow<'a, Item> {
        match self.message(i) {
            Message::Carried(true, text) => Cow::Owned(Item::User(non_empty(text, &EMPTY_MESSAGE))),
            Message::Carried(false, text) => {
                let text = non_empty(text, &NO_REPLY);
                Cow::Owned(Item::Assistant(AssistantTurn { text, ..Default::default() }))
            }
            Message::Item(item) => Cow::Borrowed(item),
        }
    }

    fn message(&self, i: usize) -> Message<'a> {
        match self.carried.get(i / 2) {
            Some(turn) if i.is_multiple_of(2) => Message::Carried(true, &turn.user),
            Some(turn) => Message::Carried(false, &turn.assistant),
            None => Message::Item(&self.items[i - 2 * self.carried.len()]),
        }
    }

    /// The last user's message (this turn's: what follows it is the run's own tool use).
    pub fn current(&self) -> Option<usize> {
        match self.items.iter().rposition(|item| matches!(item, Item::User(_))) {
            Some(at) => Some(2 * self.carried.len() + at),
            None => self.carried.len().checked_sub(1).map(|last| 2 * last),
        }
    }
}

/// One of [`Messages`]: a carried text (`true`: the user's) or one of the run's items.
enum Message<'a> {
    Carried(bool, &'a Arc<str>),
    Item(&'a Item),
}

/// `text`, shared, or `instead` when it is empty (the same allocation each time). A carried text
/// is never blank (see [`TranscriptTurn`]): its length tells, and the thousands of texts a long
/// chat carries are not read on every send.
fn non_empty(text: &Arc<str>, instead: &'static LazyLock<Arc<str>>) -> Arc<str> {
    Arc::clone(if text.is_empty() { instead } else { text })
}

static EMPTY_MESSAGE: LazyLock<Arc<str>> = LazyLock::new(|| "(empty message)".into());
static NO_REPLY: LazyLock<Arc<str>> = LazyLock::new(|| "(no reply)".into());

/// Roughly the bytes a request carrying `messages` and `system` takes: its buffer is made to this
/// size up front (growing one by doubling copies a long conversation's body about twice over).
pub fn body_size_hint(system: &str, messages: Messages<'_>, tools: usize) -> usize {
    const PER_ITEM: usize = 64;
    const PER_TOOL: usize = 1024;
    let carried: usize = messages.carried.iter().map(|turn| turn.user.len() + turn.assistant.len()).sum();
    let items: usize = messages
        .items
        .iter()
        .map(|item| match item {
            Item::User(text) => text.len(),
            Item::Assistant(turn) => turn.text.len() + turn.tool_calls.len() * 256,
            Item::ToolResults(outcomes) => outcomes.iter().map(|o| o.output.len() + PER_ITEM).sum(),
        })
        .sum();
    // A tenth more for escapes.
    (system.len() + carried + items) * 11 / 10 + messages.len() * PER_ITEM + tools * PER_TOOL + 1024
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssistantTurn {
    pub text: Arc<str>,
    pub tool_calls: Vec<ToolCall>,
    /// Anthropic thinking blocks as received (with their signatures), sent back unchanged.
    pub thinking: Vec<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// Always a JSON object; `{}` when the model's input could not be read.
    pub input: Value,
    /// Why the model's input could not be read, if it could not.
    pub input_error: Option<String>,
}

impl ToolCall {
    /// A call from streamed pieces of JSON input.
    pub fn from_json_text(id: String, name: String, json_text: &str) -> Self {
        let text = json_text.trim();
        if text.is_empty() {
            return ToolCall { id, name, input: Value::Object(Default::default()), input_error: None };
        }
        match serde_json::from_str::<Value>(text) {
            Ok(input @ Value::Object(_)) => ToolCall { id, name, input, input_error: None },
            Ok(_) => ToolCall {
                id,
                name,
                input: Value::Object(Default::default()),
                input_error: Some("The tool input must be a JSON object.".into()),
            },
            Err(e) => ToolCall {
                id,
                name,
                input: Value::Object(Default::default()),
                input_error: Some(format!("The tool input was not valid JSON ({e}).")),
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    pub call_id: String,
    pub output: String,
    pub is_error: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Input tokens not read from the cache.
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
}

impl Usage {
    pub fn to_event(self) -> RunEvent {
        RunEvent::Usage {
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            cache_read_tokens: self.cache_read_tokens,
            cache_write_tokens: self.cache_write_tokens,
            cost_usd: None,
        }
    }
}

/// What one model call produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelTurn {
    pub assistant: AssistantTurn,
    /// Anthropic's `stop_reason` or OpenAI's `finish_reason`.
    pub stop_reason: Option<String>,
    /// `None` when the provider reported none.
    pub usage: Option<Usage>,
}

/// Turns one API's stream events into a [`ModelTurn`], emitting text and thinking as it goes.
pub trait StreamDecoder: Send {
    /// Handles one event; `Ok(true)` when the reply is complete. `Err` is the provider's own
    /// error, reported mid-stream.
    fn on_event(&mut self, event: &SseEvent, emit: &mut dyn FnMut(RunEvent)) -> Result<bool, String>;
    /// The reply so far, or why it is incomplete.
    fn finish(&mut self) -> Result<ModelTurn, String>;
    /// The usage the reply has reported so far (a call cut off still spent it).
    fn usage(&self) -> Option<Usage>;
}

/// For decoders' unit tests: a whole recorded stream through `decoder`, as a call would feed it.
#[cfg(test)]
pub fn decode_all(decoder: &mut dyn StreamDecoder, stream: &str) -> (Result<ModelTurn, String>, Vec<RunEvent>) {
    let mut events = Vec::new();
    let mut parser = super::sse::SseParser::new();
    let mut sse = parser.push(stream.as_bytes());
    sse.extend(parser.finish());
    for event in sse {
        match decoder.on_event(&event, &mut |e| events.push(e)) {
            Ok(true) => break,
            Ok(false) => {}
            Err(message) => return (Err(message), events),
        }
    }
    (decoder.finish(), events)
}

/// Parses a data line as JSON; malformed JSON is a warning and the line is skipped.
pub fn parse_data(event: &SseEvent, emit: &mut dyn FnMut(RunEvent)) -> Option<Value> {
    match serde_json::from_str(&event.data) {
        Ok(value) => Some(value),
        Err(e) => {
            let mut shown: String = event.data.chars().take(200).collect();
            if shown.len() < event.data.len() {
                shown.push('…');
            }
            emit(RunEvent::Warning { message: format!("Skipped an unreadable line from the model ({e}): {shown}") });
            None
        }
    }
}

pub const CLOSED_EARLY: &str = "The connection closed before the reply was complete.";
