//! Token usage read from a provider's answer as it passes through: streamed (server-sent
//! events, scanned line by line with a cap) or one JSON body. One reader serves all three APIs,
//! because their usage objects sit in known places and use distinct field names:
//! - Anthropic Messages: `message_start.message.usage`, then `message_delta.usage` (output so
//!   far); `input_tokens` excludes cache reads (`cache_read_input_tokens`) and writes
//!   (`cache_creation_input_tokens`).
//! - OpenAI Responses: `response.completed.response.usage`; `input_tokens` includes
//!   `input_tokens_details.cached_tokens`.
//! - Chat Completions: the last chunk's `usage` (when the client asked for it); `prompt_tokens`
//!   includes `prompt_tokens_details.cached_tokens`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A longer line (a huge `response.completed` echoing the whole output) is skipped, not held.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;
/// A longer JSON body is not parsed for usage.
pub const MAX_JSON_BYTES: usize = 8 * 1024 * 1024;

/// Tokens as the provider reported them (input counts follow each API's own definition, see
/// the module notes).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct RequestUsage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// Prompt tokens read from the provider's cache.
    pub cache_read_tokens: Option<u64>,
    /// Prompt tokens written to the cache (Anthropic).
    pub cache_write_tokens: Option<u64>,
}

impl RequestUsage {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Takes the usage in one event or body, if it has any. Later values win: Anthropic's
    /// `message_delta` carries the final output count.
    pub fn merge_from(&mut self, value: &Value) {
        for usage in [&value["usage"], &value["message"]["usage"], &value["response"]["usage"]] {
            let Some(fields) = usage.as_object() else { continue };
            let get = |name: &str| fields.get(name).and_then(Value::as_u64);
            let nested =
                |outer: &str, inner: &str| fields.get(outer).and_then(|o| o.get(inner)).and_then(Value::as_u64);
            if let Some(n) = get("input_tokens").or_else(|| get("prompt_tokens")) {
                self.input_tokens = Some(n);
            }
            if let Some(n) = get("output_tokens").or_else(|| get("completion_tokens")) {
                self.output_tokens = Some(n);
            }
            let cache_read = get("cache_read_input_tokens")
                .or_else(|| nested("input_tokens_details", "cached_tokens"))
                .or_else(|| nested("prompt_tokens_details", "cached_tokens"));
            if let Some(n) = cache_read {
                self.cache_read_tokens = Some(n);
            }
            if let Some(n) = get("cache_creation_input_tokens") {
                self.cache_write_tokens = Some(n);
            }
        }
    }
}

/// Watches an answer's bytes go by and keeps the usage in them.
pub struct UsageScanner {
    kind: BodyKind,
    /// The unfinished line (SSE) or the body so far (JSON), within the caps.
    pending: Vec<u8>,
    /// The current line went over [`MAX_LINE_BYTES`]: drop bytes until its end.
    skipping: bool,
    usage: RequestUsage,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BodyKind {
    EventStream,
    Json,
    Other,
}

impl UsageScanner {
    /// `content_type` is the answer's Content-Type header.
    pub fn new(content_type: Option<&str>) -> Self {
        let content_type = content_type.unwrap_or("").to_ascii_lowercase();
        let kind = if content_type.starts_with("text/event-stream") {
            BodyKind::EventStream
        } else if content_type.contains("json") {
            BodyKind::Json
        } else {
            BodyKind::Other
        };
        Self { kind, pending: Vec::new(), skipping: false, usage: RequestUsage::default() }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        match self.kind {
            BodyKind::EventStream => self.push_lines(bytes),
            BodyKind::Json => {
                if self.pending.len() + bytes.len() <= MAX_JSON_BYTES {
                    self.pending.extend_from_slice(bytes);
                } else {
                    self.kind = BodyKind::Other;
                    self.pending = Vec::new();
                }
            }
            BodyKind::Other => {}
        }
    }

    /// The usage seen, once the answer has ended (or was cut off).
    pub fn finish(mut self) -> Option<RequestUsage> {
        match self.kind {
            BodyKind::EventStream => {
                let rest = std::mem::take(&mut self.pending);
                if !self.skipping {
                    self.line(&rest);
                }
            }
            BodyKind::Json => {
                if let Ok(value) = serde_json::from_slice::<Value>(&self.pending) {
                    self.usage.merge_from(&value);
                }
            }
            BodyKind::Other => {}
        }
        (!self.usage.is_empty()).then_some(self.usage)
    }

    /// Splits at line ends (LF; a CR before it is trimmed) without rescanning held bytes.
    fn push_lines(&mut self, mut bytes: &[u8]) {
        while let Some(end) = bytes.iter().position(|b| *b == b'\n') {
            let (head, tail) = (&bytes[..end], &bytes[end + 1..]);
            if self.skipping {
                self.skipping = false;
            } else if self.pending.is_empty() {
                self.line(head);
            } else {
                let mut line = std::mem::take(&mut self.pending);
                line.extend_from_slice(head);
                self.line(&line);
            }
            bytes = tail;
        }
        if self.skipping {
            return;
        }
        if self.pending.len() + bytes.len() > MAX_LINE_BYTES {
            self.pending = Vec::new();
            self.skipping = true;
        } else {
            self.pending.extend_from_slice(bytes);
        }
    }

    fn line(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(data) = line.strip_prefix(b"data:") else { return };
        // Only events that can carry usage are parsed.
        if !contains(data, b"\"usage\"") {
            return;
        }
        if let Ok(value) = serde_json::from_slice::<Value>(data) {
            self.usage.merge_from(&value);
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
