//! Small text helpers: usage numbers, clipped lines, stderr without colours.

use serde_json::Value;

use crate::runtimes::RunEvent;

pub(super) fn usage(last: &Value) -> RunEvent {
    let read = |key: &str| last[key].as_u64().unwrap_or(0);
    let cached = read("cachedInputTokens");
    RunEvent::Usage {
        // inputTokens counts cached tokens too; report them apart, as Anthropic does.
        input_tokens: read("inputTokens").saturating_sub(cached),
        output_tokens: read("outputTokens"),
        cache_read_tokens: cached,
        cache_write_tokens: read("cacheWriteInputTokens"),
        cost_usd: None,
    }
}

pub(super) fn clip(line: &str) -> String {
    let mut clipped: String = line.chars().take(200).collect();
    if clipped.len() < line.len() {
        clipped.push('…');
    }
    clipped
}

/// The last line Codex wrote to stderr, without its log colours.
pub(super) fn last_line(stderr: &str) -> String {
    let line = stderr.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("no output");
    clip(&strip_ansi(line))
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters… final letter.
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}
