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

/// A line, or an event's data, longer than this is dropped (see [`SseParser::take_error`]).
pub const MAX_SSE_BYTES: usize = 8 * 1024 * 1024;

/// Capacity kept for the next line after a long one.
const KEEP_CAPACITY: usize = 64 * 1024;

/// Each byte is looked at once, however the stream is split; memory is bounded by the cap.
#[derive(Debug)]
pub struct SseParser {
    /// Bytes of a line not yet ended.
    line: Vec<u8>,
    /// The last line ended with a CR: an LF right after it is part of that line end.
    after_cr: bool,
    /// Bytes dropped so far of a line over the cap.
    skipping: Option<usize>,
    event: Option<String>,
    data: String,
    has_data: bool,
    /// Part of the current event was dropped: it is not dispatched.
    event_broken: bool,
    error: Option<String>,
    cap: usize,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::with_cap(MAX_SSE_BYTES)
    }
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_cap(cap: usize) -> Self {
        Self {
            line: Vec::new(),
            after_cr: false,
            skipping: None,
            event: None,
            data: String::new(),
            has_data: false,
            event_broken: false,
            error: None,
            cap,
        }
    }

    /// Feeds the next bytes of the stream; returns the events they completed.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        let mut rest = bytes;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(i) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.append(&rest[..i]);
            self.end_line(&mut out);
            rest = match (rest[i], rest.get(i + 1)) {
                (b'\r', Some(b'\n')) => &rest[i + 2..],
                (b'\r', None) => {
                    // Perhaps the first half of a CRLF: the next chunk tells.
                    self.after_cr = true;
                    &[]
                }
                _ => &rest[i + 1..],
            };
        }
        self.append(rest);
        out
    }

    /// The stream ended: a last line without its newline, and an event without its blank line,
    /// still count (lenient, as some servers close without the final blank line).
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut out = Vec::new();
        if !self.line.is_empty() || self.skipping.is_some() {
            self.end_line(&mut out);
        }
        self.field_line(b"", &mut out);
        out
    }

    /// Why part of the stream was dropped (a line or an event over the cap), once.
    pub fn take_error(&mut self) -> Option<String> {
        self.error.take()
    }

    fn append(&mut self, part: &[u8]) {
        match &mut self.skipping {
            Some(bytes) => *bytes += part.len(),
            None if self.line.len() + part.len() > self.cap => {
                self.skipping = Some(self.line.len() + part.len());
                self.line = Vec::new();
            }
            None => self.line.extend_from_slice(part),
        }
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        if let Some(bytes) = self.skipping.take() {
            self.drop_event(format!("a line of {bytes} bytes"));
            return;
        }
        let line = std::mem::take(&mut self.line);
        self.field_line(&line, out);
        self.line = line;
        self.line.clear();
        self.line.shrink_to(KEEP_CAPACITY);
    }

    fn drop_event(&mut self, what: String) {
        self.event_broken = true;
        self.data = String::new();
        if self.error.is_none() {
            let limit = match self.cap % (1024 * 1024) {
                0 => format!("{} MiB", self.cap / (1024 * 1024)),
                _ => format!("{} bytes", self.cap),
            };
            self.error = Some(format!("{what}, over the {limit} limit, was dropped"));
        }
    }

    fn field_line(&mut self, raw: &[u8], out: &mut Vec<SseEvent>) {
        if raw.is_empty() {
            if self.has_data && !self.event_broken {
                let mut data = std::mem::take(&mut self.data);
                if data.ends_with('\n') {
                    data.pop();
                }
                out.push(SseEvent { event: self.event.take(), data });
            }
            self.data.clear();
            self.event = None;
            self.has_data = false;
            self.event_broken = false;
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
                self.has_data = true;
                if self.event_broken {
                    return;
                }
                if self.data.len() + value.len() + 1 > self.cap {
                    let size = self.data.len() + value.len() + 1;
                    self.drop_event(format!("an event of {size} bytes"));
                    return;
                }
                self.data.push_str(value);
                self.data.push('\n');
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
    fn a_line_or_an_event_over_the_cap_is_dropped_with_an_error_and_parsing_goes_on() {
        let long = format!("data: {}\n\ndata: after\n\n", "x".repeat(40));
        for chunk in [1, 3, 7, 100] {
            let mut p = SseParser::with_cap(32);
            let mut out = Vec::new();
            for piece in long.as_bytes().chunks(chunk) {
                out.extend(p.push(piece));
            }
            out.extend(p.finish());
            assert_eq!(out, [ev(None, "after")], "chunk {chunk}");
            assert_eq!(p.take_error().as_deref(), Some("a line of 46 bytes, over the 32 bytes limit, was dropped"));
            assert_eq!(p.take_error(), None);
        }
        // Lines each under the cap, adding up to an event over it.
        let mut p = SseParser::with_cap(32);
        let input = format!("data: {0}\ndata: {0}\ndata: {0}\n\ndata: ok\n\n", "y".repeat(12));
        assert_eq!(p.push(input.as_bytes()), [ev(None, "ok")]);
        assert!(p.take_error().unwrap().starts_with("an event of 39 bytes"));
    }

    #[test]
    fn a_stream_cut_without_the_final_blank_line_still_yields_its_event() {
        assert_eq!(parse_all_splits("data: last"), [ev(None, "last")]);
        assert_eq!(parse_all_splits("data: last\r"), [ev(None, "last")]);
        assert!(parse_all_splits("").is_empty());
    }
}
