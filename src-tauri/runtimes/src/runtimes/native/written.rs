//! The carried messages of a conversation's last request, kept as written. The next request of
//! the same conversation (its next turn, or the run's next model call) starts with the same
//! carried messages, so their JSON is copied instead of written again: a long chat's request
//! costs a copy of what it carries plus the writing of what is new, not the escaping of every
//! message on every send.
//!
//! A carried message is known by its text's allocation (the transcript's `Arc<str>`, shared from
//! the engine's carried transcript), never by its content, and a kept message holds its text, so
//! the allocation cannot be reused for another. Only plain carried messages are kept, written
//! without a cache mark; what a request writes is byte for byte what it would write without this.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::conversation::Messages;

/// The conversations kept (runs at once, and the chats used just before).
const KEPT_CONVERSATIONS: usize = 16;
/// The bytes kept in all.
const KEPT_BYTES: usize = 8 << 20;
/// A conversation whose carried messages take more is written whole each time.
const KEPT_ONE_BYTES: usize = 2 << 20;

/// The wire format messages were written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Anthropic,
    Chat,
}

/// A carried message: a user's text, or the assistant's text without tool calls or thinking.
#[derive(Clone)]
struct Carried {
    user: bool,
    text: Arc<str>,
}

impl Carried {
    /// Message `i` of `messages`, when it is plain.
    fn of(messages: Messages<'_>, i: usize) -> Option<Self> {
        messages.plain_text(i).map(|(user, text)| Self { user, text: Arc::clone(text) })
    }

    /// Whether message `i` of `messages` is this one (the same text, not only the same words).
    fn is(&self, messages: Messages<'_>, i: usize) -> bool {
        messages.plain_text(i).is_some_and(|(user, text)| user == self.user && Arc::ptr_eq(&self.text, text))
    }
}

/// One conversation's carried messages as last written.
struct Written {
    format: Format,
    messages: Vec<Carried>,
    /// Their JSON, comma-separated.
    bytes: Vec<u8>,
    /// Where each message's JSON ends in `bytes`.
    ends: Vec<usize>,
    /// When a request last used them.
    used: Instant,
}

impl Written {
    /// Where the first `carried` of `messages` (plain, carried) start among these, and how many
    /// of them follow on here.
    fn overlap(&self, format: Format, messages: Messages<'_>, carried: usize) -> Option<(usize, usize)> {
        if self.format != format || carried == 0 {
            return None;
        }
        let at = self.messages.iter().position(|m| m.is(messages, 0))?;
        let count = self.messages[at..].iter().zip(0..carried).take_while(|(m, i)| m.is(messages, *i)).count();
        Some((at, count))
    }

    fn start_of(&self, index: usize) -> usize {
        match index {
            0 => 0,
            i => self.ends[i - 1] + 1,
        }
    }
}

/// The last written carried messages of recent conversations, most recent first.
#[derive(Default)]
pub struct WrittenMessages {
    kept: Mutex<VecDeque<Written>>,
}

impl WrittenMessages {
    /// Writes the JSON of `messages` into `out`, comma-separated (and after a comma when
    /// `after`: something precedes them in the array), `write` writing message `i` (one JSON
    /// value, or several comma-separated, or none). The first `carried` messages are the carried
    /// conversation, written plain (no cache mark); those written in a recent request are
    /// copied from it instead.
    pub fn write(
        &self,
        format: Format,
        out: &mut Vec<u8>,
        messages: Messages<'_>,
        carried: usize,
        after: bool,
        mut write: impl FnMut(&mut Vec<u8>, usize),
    ) {
        let carried = (0..carried.min(messages.len())).take_while(|&i| messages.plain_text(i).is_some()).count();
        let (mut kept, reused) = self.take(format, messages, carried);
        // Where the first carried message's JSON starts, and where each one ends.
        let mut start = out.len();
        let mut ends = Vec::with_capacity(carried);
        let mut wrote_any = false;
        if let (Some(kept), Some((at, count))) = (&kept, reused) {
            if after {
                out.push(b',');
            }
            start = out.len();
            let from = kept.start_of(at);
            out.extend_from_slice(&kept.bytes[from..kept.ends[at + count - 1]]);
            ends.extend(kept.ends[at..at + count].iter().map(|end| start + end - from));
            wrote_any = true;
        }
        let reused_count = ends.len();
        for i in reused_count..messages.len() {
            let comma = after || wrote_any;
            if comma {
                out.push(b',');
            }
            if i == 0 {
                start = out.len();
            }
            let before = out.len();
            write(out, i);
            if out.len() == before {
                // Nothing to say (no tool results): no comma for it either.
                if comma {
                    out.pop();
                }
                continue;
            }
            wrote_any = true;
            if i < carried {
                ends.push(out.len());
            }
        }
        let written_bytes = ends.last().map_or(0, |end| end - start);
        if carried == 0 || written_bytes > KEPT_ONE_BYTES {
            return;
        }
        // Kept from the first carried message: extended in place when the conversation only
        // grew since, made anew when it slid (its oldest messages left the window).
        let next = match kept.take().filter(|_| reused.is_some_and(|(at, _)| at == 0)) {
            // At least its first message was reused, so `reused_count` ≥ 1.
            Some(mut grown) => {
                grown.messages.truncate(reused_count);
                grown.messages.extend((reused_count..carried).filter_map(|i| Carried::of(messages, i)));
                grown.bytes.truncate(grown.ends[reused_count - 1]);
                grown.ends.truncate(reused_count);
                grown.bytes.extend_from_slice(&out[ends[reused_count - 1]..start + written_bytes]);
                grown.ends.extend(ends[reused_count..].iter().map(|end| end - start));
                grown.used = Instant::now();
                grown
            }
            None => Written {
                format,
                messages: (0..carried).filter_map(|i| Carried::of(messages, i)).collect(),
                bytes: out[start..start + written_bytes].to_vec(),
                ends: ends.iter().map(|end| end - start).collect(),
                used: Instant::now(),
            },
        };
        self.keep(next);
    }

    /// The kept messages the first `carried` of `messages` start among, taken out (put back,
    /// grown, by [`Self::keep`]), and where and how far they match.
    fn take(
        &self,
        format: Format,
        messages: Messages<'_>,
        carried: usize,
    ) -> (Option<Written>, Option<(usize, usize)>) {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        // The same conversation grown is by far the usual case: its first message is the same.
        let grown = kept
            .iter()
            .position(|w| w.format == format && carried > 0 && w.messages.first().is_some_and(|m| m.is(messages, 0)));
        let found = grown.or_else(|| kept.iter().position(|w| w.overlap(format, messages, carried).is_some()));
        match found.and_then(|index| kept.remove(index)) {
            Some(written) => {
                let overlap = written.overlap(format, messages, carried).filter(|(_, count)| *count > 0);
                (Some(written), overlap)
            }
            None => (None, None),
        }
    }

    fn keep(&self, written: Written) {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.push_front(written);
        kept.truncate(KEPT_CONVERSATIONS);
        let mut total = 0;
        let within = kept.iter().take_while(|w| {
            total += w.bytes.len();
            total <= KEPT_BYTES
        });
        let count = within.count().max(1);
        kept.truncate(count);
    }

    /// Forgets the conversations no request used since `cutoff` (their next request writes its
    /// messages again); the bytes of JSON given back.
    pub fn forget_unused_since(&self, cutoff: Instant) -> usize {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let before: usize = kept.iter().map(|w| w.bytes.len()).sum();
        kept.retain(|w| w.used >= cutoff);
        before - kept.iter().map(|w| w.bytes.len()).sum::<usize>()
    }

    #[cfg(test)]
    fn kept_bytes(&self) -> Vec<usize> {
        self.kept.lock().unwrap().iter().map(|w| w.bytes.len()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtimes::native::conversation::{AssistantTurn, Item, ToolCall, ToolOutcome};
    use crate::runtimes::native::{anthropic, openai, tools};
    use crate::runtimes::TranscriptTurn;

    fn turns(from: usize, to: usize) -> Vec<(Arc<str>, Arc<str>)> {
        (from..to)
            .map(|i| (format!("Message {i}: \"quoted\"\nline \u{1F600}").into(), format!("Reply {i}\t\\ ok").into()))
            .collect()
    }

    fn items_of(turns: &[(Arc<str>, Arc<str>)], message: &str) -> Vec<Item> {
        let mut items = Vec::new();
        for (user, assistant) in turns {
            items.push(Item::User(Arc::clone(user)));
            items.push(Item::Assistant(AssistantTurn { text: Arc::clone(assistant), ..Default::default() }));
        }
        items.push(Item::User(message.into()));
        items
    }

    type Writer = fn(&str, &str, Messages<'_>, &[tools::ToolDef], &WrittenMessages) -> Vec<u8>;

    const APIS: [Writer; 2] = [anthropic::request_bytes, openai::request_bytes];

    /// Every request written with `kept` is byte for byte the request written from nothing.
    fn same(api: Writer, items: &[Item], kept: &WrittenMessages) {
        let offered = tools::definitions();
        let fresh = api("m", "SYS \"x\"", Messages::of(items), &offered, &WrittenMessages::default());
        let reused = api("m", "SYS \"x\"", Messages::of(items), &offered, kept);
        assert_eq!(String::from_utf8(reused).unwrap(), String::from_utf8(fresh).unwrap());
    }

    /// The conversation handed over as carried turns (as a run gets it) is written byte for byte
    /// as the same conversation made into items, with `kept` or from nothing.
    fn same_carried(api: Writer, turns: &[(Arc<str>, Arc<str>)], message: &str, kept: &WrittenMessages) {
        let offered = tools::definitions();
        let carried: Vec<TranscriptTurn> =
            turns.iter().map(|(user, reply)| TranscriptTurn::new(Arc::clone(user), Arc::clone(reply))).collect();
        let own = [Item::User(message.into())];
        let as_carried = Messages { carried: &carried, items: &own };
        let as_items = items_of(turns, message);
        let fresh = api("m", "SYS \"x\"", Messages::of(&as_items), &offered, &WrittenMessages::default());
        let reused = api("m", "SYS \"x\"", as_carried, &offered, kept);
        assert_eq!(String::from_utf8(reused).unwrap(), String::from_utf8(fresh).unwrap());
    }

    #[test]
    fn a_growing_chat_is_written_the_same_with_its_carried_messages_copied() {
        for api in APIS {
            let kept = WrittenMessages::default();
            let all = turns(0, 40);
            for n in 0..40 {
                same(api, &items_of(&all[..n], "now"), &kept);
                same_carried(api, &all[..n], "now", &kept);
            }
            assert_eq!(kept.kept_bytes().len(), 1, "one conversation kept");
        }
    }

    #[test]
    fn a_window_that_slides_a_run_with_tool_calls_and_chats_interleaved_are_written_the_same() {
        let call = ToolCall::from_json_text("c1".into(), "read_file".into(), r#"{"path": "a.md"}"#);
        for api in APIS {
            let kept = WrittenMessages::default();
            let (one, two) = (turns(0, 30), turns(100, 130));
            for n in 5..30 {
                // The oldest turns leave the window as the chat grows.
                same(api, &items_of(&one[n - 5..n], "sliding"), &kept);
                same_carried(api, &two[..n], "the other chat", &kept);
            }
            // A run's next model call: its tool call and results after the message.
            let mut items = items_of(&one[..10], "use a tool");
            same(api, &items, &kept);
            items.push(Item::Assistant(AssistantTurn {
                text: "".into(),
                tool_calls: vec![call.clone()],
                thinking: Vec::new(),
            }));
            items.push(Item::ToolResults(vec![ToolOutcome {
                call_id: "c1".into(),
                output: "x".into(),
                is_error: false,
            }]));
            same(api, &items, &kept);
            // An edit: a carried message replaced by another text from there on.
            let mut edited = one[..10].to_vec();
            edited[6].0 = "edited".into();
            same(api, &items_of(&edited, "after the edit"), &kept);
            same(api, &items_of(&one[..3], "after a retry, shorter"), &kept);
            same(api, &items_of(&[], "nothing carried"), &kept);
            same(api, &[], &kept);
        }
    }

    #[test]
    fn an_empty_carried_text_is_written_as_its_stand_in() {
        for api in APIS {
            let carried = [TranscriptTurn::new("", "Said nothing."), TranscriptTurn::new("Anything?", "")];
            let own = [Item::User("Now?".into())];
            let body = api("m", "SYS", Messages { carried: &carried, items: &own }, &[], &WrittenMessages::default());
            let stand_ins = [
                Item::User("(empty message)".into()),
                Item::Assistant(AssistantTurn { text: "Said nothing.".into(), ..Default::default() }),
                Item::User("Anything?".into()),
                Item::Assistant(AssistantTurn { text: "(no reply)".into(), ..Default::default() }),
                Item::User("Now?".into()),
            ];
            assert_eq!(body, api("m", "SYS", Messages::of(&stand_ins), &[], &WrittenMessages::default()));
        }
    }

    #[test]
    fn what_is_kept_is_bounded() {
        let kept = WrittenMessages::default();
        for chat in 0..40 {
            let turns = turns(chat * 1000, chat * 1000 + 3);
            same(anthropic::request_bytes, &items_of(&turns, "hi"), &kept);
        }
        assert_eq!(kept.kept_bytes().len(), KEPT_CONVERSATIONS);
        let big: Vec<(Arc<str>, Arc<str>)> = vec![("x".repeat(KEPT_ONE_BYTES).into(), "ok".into())];
        same(openai::request_bytes, &items_of(&big, "hi"), &kept);
        assert!(
            kept.kept_bytes().iter().all(|bytes| *bytes <= KEPT_ONE_BYTES),
            "a conversation over the bound is not kept"
        );
        assert!(kept.kept_bytes().iter().sum::<usize>() <= KEPT_BYTES);
    }

    #[test]
    fn conversations_left_unused_are_forgotten_and_written_the_same_after() {
        let kept = WrittenMessages::default();
        let (quiet, busy) = (turns(0, 20), turns(100, 120));
        same(anthropic::request_bytes, &items_of(&quiet, "then nothing"), &kept);
        let cutoff = Instant::now();
        same(anthropic::request_bytes, &items_of(&busy, "still chatting"), &kept);
        // Most recent first: the busy chat, then the quiet one.
        let both = kept.kept_bytes();
        assert_eq!(kept.forget_unused_since(cutoff), both[1], "the quiet chat's JSON is given back");
        assert_eq!(kept.kept_bytes(), both[..1], "the chat used since is kept");
        assert_eq!(kept.forget_unused_since(cutoff), 0, "nothing more to give back");
        // Its next request writes it whole again, the same bytes.
        same(anthropic::request_bytes, &items_of(&quiet, "back"), &kept);
        let all: usize = kept.kept_bytes().iter().sum();
        assert_eq!(kept.forget_unused_since(Instant::now()), all);
        assert!(kept.kept_bytes().is_empty());
    }
}
