//! A small server-sent events parser shared by both model APIs. Bytes go in as they arrive,
//! split anywhere (inside a line, a CRLF pair or a UTF-8 character); whole events come out.

/// One dispatched event: its `event:` name, if any, and its `data:` lines joined by "\n".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

impl SseEvent {
    /// OpenAI-style streams end with `data: [DONE]`.
    pub fn is_done(&self) -> bool {
        self.data.trim() == "[DONE]"
    }
}

#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of a line not yet ended.
    pending: Vec<u8>,
    event: Option<String>,
    data: String,
    has_data: bool,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next bytes of the stream; returns the events they completed.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.pending.extend_from_slice(bytes);
        let mut out = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < self.pending.len() {
            match self.pending[i] {
                b'\n' => {
                    let line = self.pending[start..i].to_vec();
                    self.line(&line, &mut out);
                    i += 1;
                    start = i;
                }
                b'\r' => {
                    // A CR at the end of what we have may be the first half of a CRLF: wait.
                    if i + 1 == self.pending.len() {
                        break;
                    }
                    let line = self.pending[start..i].to_vec();
                    self.line(&line, &mut out);
                    i += if self.pending[i + 1] == b'\n' { 2 } else { 1 };
                    start = i;
                }
                _ => i += 1,
            }
        }
        self.pending.drain(..start);
        out
    }

    /// The stream ended: a last line without its newline, and an event without its blank line,
    /// still count (lenient, as some servers close without the final blank line).
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut out = Vec::new();
        let rest = std::mem::take(&mut self.pending);
        let rest = rest.strip_suffix(b"\r").unwrap_or(&rest);
        if !rest.is_empty() {
            self.line(rest, &mut out);
        }
        self.line(b"", &mut out);
        out
    }

    fn line(&mut self, raw: &[u8], out: &mut Vec<SseEvent>) {
        if raw.is_empty() {
            if self.has_data {
                let mut data = std::mem::take(&mut self.data);
                if data.ends_with('\n') {
                    data.pop();
                }
                out.push(SseEvent { event: self.event.take(), data });
            }
            self.event = None;
            self.has_data = false;
            return;
        }
        let line = String::from_utf8_lossy(raw);
        if line.starts_with(':') {
            return; // a comment (keep-alive)
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            _ => {} // id, retry and unknown fields do not matter here
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(event: Option<&str>, data: &str) -> SseEvent {
        SseEvent { event: event.map(str::to_owned), data: data.to_owned() }
    }

    /// Feeds `input` split at every possible pair of places, and in single bytes.
    fn parse_all_splits(input: &str) -> Vec<SseEvent> {
        let bytes = input.as_bytes();
        let whole = {
            let mut p = SseParser::new();
            let mut out = p.push(bytes);
            out.extend(p.finish());
            out
        };
        for a in 0..=bytes.len() {
            for b in a..=bytes.len() {
                let mut p = SseParser::new();
                let mut out = p.push(&bytes[..a]);
                out.extend(p.push(&bytes[a..b]));
                out.extend(p.push(&bytes[b..]));
                out.extend(p.finish());
                assert_eq!(out, whole, "split at {a} and {b}");
            }
        }
        let mut p = SseParser::new();
        let mut out: Vec<SseEvent> = bytes.iter().flat_map(|byte| p.push(std::slice::from_ref(byte))).collect();
        out.extend(p.finish());
        assert_eq!(out, whole, "byte by byte");
        whole
    }

    #[test]
    fn named_events_and_bare_data() {
        let input = "event: message_start\ndata: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n";
        let events = parse_all_splits(input);
        assert_eq!(events, [ev(Some("message_start"), "{\"a\":1}"), ev(None, "{\"b\":2}"), ev(None, "[DONE]")]);
        assert!(events[2].is_done());
        assert!(!events[0].is_done());
    }

    #[test]
    fn crlf_and_lone_cr_line_endings() {
        let input = "event: x\r\ndata: one\r\n\r\ndata: two\r\rdata: three\n\n";
        assert_eq!(parse_all_splits(input), [ev(Some("x"), "one"), ev(None, "two"), ev(None, "three")]);
    }

    #[test]
    fn multi_line_data_comments_and_fields() {
        let input = ": keep-alive\nid: 7\nretry: 100\ndata: first\ndata:second\ndata\n\n\n\nevent: lonely\n\n";
        // An event name without data dispatches nothing.
        assert_eq!(parse_all_splits(input), [ev(None, "first\nsecond\n")]);
    }

    #[test]
    fn multibyte_characters_split_across_chunks() {
        let input = "data: {\"text\":\"héllo → 世界 🦀\"}\n\n";
        assert_eq!(parse_all_splits(input), [ev(None, "{\"text\":\"héllo → 世界 🦀\"}")]);
    }

    #[test]
    fn a_stream_cut_without_the_final_blank_line_still_yields_its_event() {
        assert_eq!(parse_all_splits("data: last"), [ev(None, "last")]);
        assert_eq!(parse_all_splits("data: last\r"), [ev(None, "last")]);
        assert!(parse_all_splits("").is_empty());
    }
}
