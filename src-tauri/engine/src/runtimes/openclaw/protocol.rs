//! Reads what `openclaw agent --local --json` prints: one pretty-printed JSON envelope on stdout
//! at the end of the turn (`{payloads, meta}` on success, `{ok:false, error}` on failure), and
//! logs on stderr. The envelope names the tools used but not their calls; those come from the
//! session transcript OpenClaw wrote (see [`super::transcript`]).

use std::path::PathBuf;

use serde_json::Value;

use super::transcript;
use crate::runtimes::process::ExitInfo;
use crate::runtimes::supervise::{Step, StreamProtocol};
use crate::runtimes::{RunEvent, RunResult};

/// An envelope is a few kB; anything far past this is not one.
const MAX_ENVELOPE_BYTES: usize = 16 * 1024 * 1024;

/// Turns the envelope into events and judges the run.
pub struct EnvelopeProtocol {
    /// The session id the run was started with.
    session_id: String,
    /// OpenClaw's agent database, where the session transcript lives (None: no tool details).
    transcript_db: Option<PathBuf>,
    /// Lines of an envelope not yet complete.
    buffer: String,
    nesting: Nesting,
    verdict: Option<Verdict>,
}

#[derive(Debug, Clone, PartialEq)]
enum Verdict {
    Answered,
    Failed(String),
}

impl EnvelopeProtocol {
    pub fn new(session_id: impl Into<String>, transcript_db: Option<PathBuf>) -> Self {
        Self {
            session_id: session_id.into(),
            transcript_db,
            buffer: String::new(),
            nesting: Nesting::default(),
            verdict: None,
        }
    }

    fn on_envelope(&mut self, envelope: Value, out: &mut Vec<Step>) {
        let emit = |out: &mut Vec<Step>, event| out.push(Step::Emit(event));
        if envelope["ok"] == Value::Bool(false) {
            let message = envelope["error"]["message"]
                .as_str()
                .or_else(|| envelope["error"].as_str())
                .unwrap_or("OpenClaw reported an error without a message.")
                .trim()
                .to_owned();
            emit(out, RunEvent::Error { message: message.clone() });
            self.verdict = Some(Verdict::Failed(message));
            return;
        }
        let meta = &envelope["meta"];
        if !envelope["payloads"].is_array() && !meta.is_object() {
            emit(
                out,
                RunEvent::Warning {
                    message: format!("Unknown output from OpenClaw: {}", preview(&envelope.to_string())),
                },
            );
            return;
        }
        let agent = &meta["agentMeta"];
        if let Some(id) = agent["sessionId"].as_str().filter(|id| *id != self.session_id) {
            self.session_id = id.to_owned();
            emit(out, RunEvent::SessionStarted { session_id: id.to_owned() });
        }
        let run_id = agent["terminalReceipt"]["runId"].as_str();
        if let (Some(db), Some(run_id)) = (&self.transcript_db, run_id) {
            match transcript::tool_events(db, &self.session_id, run_id) {
                Ok(events) => events.into_iter().for_each(|e| emit(out, e)),
                Err(e) => {
                    emit(out, RunEvent::Warning { message: format!("Could not read OpenClaw's tool calls: {e}") })
                }
            }
        }
        let mut errors = Vec::new();
        let mut said = false;
        for payload in envelope["payloads"].as_array().into_iter().flatten() {
            let Some(text) = payload["text"].as_str().map(str::trim).filter(|t| !t.is_empty()) else { continue };
            if payload["isError"] == Value::Bool(true) {
                errors.push(text.to_owned());
                emit(out, RunEvent::Error { message: text.to_owned() });
            } else {
                said = true;
                emit(out, RunEvent::Message { text: text.to_owned() });
            }
        }
        if !said {
            if let Some(text) = meta["finalAssistantVisibleText"].as_str().map(str::trim).filter(|t| !t.is_empty()) {
                emit(out, RunEvent::Message { text: text.to_owned() });
            }
        }
        if let Some(usage) = usage(&agent["usage"]) {
            emit(out, usage);
        }
        self.verdict = Some(if let Some(first) = errors.into_iter().next() {
            Verdict::Failed(first)
        } else if meta["aborted"] == Value::Bool(true) {
            Verdict::Failed("OpenClaw aborted the run.".to_owned())
        } else {
            Verdict::Answered
        });
    }
}

impl StreamProtocol for EnvelopeProtocol {
    fn on_line(&mut self, line: &str, out: &mut Vec<Step>) {
        if self.buffer.is_empty() && !line.trim_start().starts_with('{') {
            out.push(Step::Emit(RunEvent::Warning {
                message: format!("Unexpected output from OpenClaw: {}", preview(line)),
            }));
            return;
        }
        self.buffer.push_str(line);
        self.buffer.push('\n');
        // The envelope is pretty-printed over many lines: parse once it closes, not per line
        // (re-parsing the growing buffer on every line would cost quadratic time).
        if !self.nesting.feed(line) && self.buffer.len() < MAX_ENVELOPE_BYTES {
            return;
        }
        self.nesting = Nesting::default();
        match serde_json::from_str::<Value>(&self.buffer) {
            Ok(envelope) => {
                self.buffer.clear();
                self.on_envelope(envelope, out);
            }
            Err(e) if e.is_eof() && self.buffer.len() < MAX_ENVELOPE_BYTES => {} // more lines to come
            Err(e) => {
                let message = format!("Unreadable output from OpenClaw ({e}): {}", preview(&self.buffer));
                self.buffer.clear();
                out.push(Step::Emit(RunEvent::Warning { message }));
            }
        }
    }

    fn finish(&mut self, exit: ExitInfo, stderr_tail: &str) -> RunResult {
        match &self.verdict {
            Some(Verdict::Failed(message)) => RunResult::failed(message.clone()),
            Some(Verdict::Answered) if exit.success() => RunResult::succeeded(),
            Some(Verdict::Answered) => RunResult::failed(format!(
                "OpenClaw answered but then ended with {}. {}",
                exit.describe(),
                reason(stderr_tail)
            )),
            None if !self.buffer.is_empty() => RunResult::failed(format!(
                "OpenClaw's result was cut off ({}). {}",
                exit.describe(),
                reason(stderr_tail)
            )),
            None => RunResult::failed(format!(
                "OpenClaw ended with {} without a result. {}",
                exit.describe(),
                reason(stderr_tail)
            )),
        }
    }
}

fn usage(usage: &Value) -> Option<RunEvent> {
    if !usage.is_object() {
        return None;
    }
    let count = |key: &str| usage[key].as_u64().unwrap_or(0);
    Some(RunEvent::Usage {
        input_tokens: count("input"),
        output_tokens: count("output"),
        cache_read_tokens: count("cacheRead"),
        cache_write_tokens: count("cacheWrite"),
        cost_usd: usage["cost"]["total"].as_f64(),
    })
}

/// The reason OpenClaw gave on stderr ("[openclaw] Reason: …"), else its last lines.
pub(super) fn reason(stderr_tail: &str) -> String {
    let clean = strip_ansi(stderr_tail);
    if let Some(reason) = clean.lines().rev().find_map(|l| l.trim().strip_prefix("[openclaw] Reason:")) {
        return reason.trim().to_owned();
    }
    let lines: Vec<&str> = clean.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(3)..].join(" / ");
    if tail.is_empty() {
        "It printed nothing on stderr.".to_owned()
    } else {
        preview(&tail)
    }
}

/// Removes terminal colour codes (ESC [ … letter).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.next() == Some('[') {
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
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

fn preview(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Tracks JSON nesting across lines, strings and escapes included, to tell when the top-level
/// value has closed.
#[derive(Debug, Default, Clone, Copy)]
struct Nesting {
    depth: i64,
    in_string: bool,
    escaped: bool,
    opened: bool,
}

impl Nesting {
    /// Feeds one line; true once the outermost value has closed.
    fn feed(&mut self, line: &str) -> bool {
        for c in line.chars() {
            if self.in_string {
                match (self.escaped, c) {
                    (true, _) => self.escaped = false,
                    (false, '\\') => self.escaped = true,
                    (false, '"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                '"' => self.in_string = true,
                '{' | '[' => {
                    self.depth += 1;
                    self.opened = true;
                }
                '}' | ']' => self.depth -= 1,
                _ => {}
            }
        }
        self.opened && self.depth <= 0
    }
}
