//! Claude Code's stream-json duplex protocol, one turn per process: lines in, [`Step`]s out.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::runtimes::confine;
use crate::runtimes::process::ExitInfo;
use crate::runtimes::supervise::{Step, StreamProtocol};
use crate::runtimes::{PermissionAnswer, RunEvent, RunResult};

/// The request id of the `initialize` control request sent first.
pub const INIT_REQUEST_ID: &str = "clawboo-init";

/// Tools that only read: allowed under the read-only policy when every path they name lies
/// inside the workspace (see [`DuplexProtocol::reads_inside`]). Claude Code asks for few of
/// them anyway (reads inside the working folder run without asking). Web tools are not here:
/// what they send out (a URL, a query) can carry what the agent read.
const READ_ONLY_TOOLS: &[&str] = &[
    "Read",
    "Glob",
    "Grep",
    "LS",
    "NotebookRead",
    "TodoRead",
    "TodoWrite",
    "ToolSearch",
    "BashOutput",
    "TaskOutput",
    "ListMcpResourcesTool",
    "ReadMcpResourceTool",
    "CronList",
    "ListAgents",
];

/// Said to Claude (and through it, the model) when a tool use is refused.
pub const DENY_MESSAGE: &str = "The user did not allow this tool use.";

pub fn is_read_only(tool: &str) -> bool {
    READ_ONLY_TOOLS.contains(&tool)
}

/// What the `result` line said.
#[derive(Debug, Clone, PartialEq)]
struct Outcome {
    is_error: bool,
    message: String,
    session_missing: bool,
}

pub struct DuplexProtocol {
    message: String,
    resuming: bool,
    session: Option<String>,
    /// Messages whose text (or thinking) already streamed as deltas: their whole copy is skipped.
    streamed_text: HashSet<String>,
    streamed_thinking: HashSet<String>,
    /// Whether any reply text went out yet (a new text block then starts with a blank line).
    said_anything: bool,
    /// A text block started: its first delta gets the separator.
    block_started: bool,
    /// Tool inputs of open permission questions, echoed back as `updatedInput` on allow.
    asked: HashMap<String, Value>,
    interrupts: u32,
    outcome: Option<Outcome>,
    /// Claude Code compacted the session's conversation during the turn.
    compacted: bool,
    /// The workspace reads are confined to under read-only; None confines them to nothing.
    workspace: Option<PathBuf>,
}

/// Fields of Claude's file tools that name a path to read.
const PATH_FIELDS: &[&str] = &["file_path", "notebook_path", "path"];
/// Fields that hold a glob matched under the path (Glob's `pattern`, Grep's `glob`).
const GLOB_FIELDS: &[&str] = &["pattern", "glob"];

impl DuplexProtocol {
    pub fn new(message: impl Into<String>, resuming: bool) -> Self {
        Self {
            message: message.into(),
            resuming,
            session: None,
            streamed_text: HashSet::new(),
            streamed_thinking: HashSet::new(),
            said_anything: false,
            block_started: false,
            asked: HashMap::new(),
            interrupts: 0,
            outcome: None,
            compacted: false,
            workspace: None,
        }
    }

    /// Reads under read-only are allowed only inside `workspace`.
    pub fn confined_to(mut self, workspace: PathBuf) -> Self {
        self.workspace = Some(workspace);
        self
    }

    /// Whether every path a reading tool's input names really lies inside the workspace (links
    /// resolved: Claude asks about `link.txt` in the workspace when it leads outside, and shows
    /// the path inside). Claude shows Glob's and Grep's globs as given: one that climbs out
    /// counts as outside.
    pub fn reads_inside(&self, tool: &str, input: &Value) -> bool {
        let paths_inside = PATH_FIELDS.iter().all(|field| match (&input[*field], &self.workspace) {
            (Value::Null, _) => true,
            (Value::String(path), Some(workspace)) => confine::readable(workspace, path),
            _ => false,
        });
        let globs_inside = matches!(tool, "Glob" | "Grep")
            .then(|| {
                GLOB_FIELDS.iter().all(|field| match &input[*field] {
                    Value::Null => true,
                    Value::String(glob) => confine::glob_stays_inside(glob),
                    _ => false,
                })
            })
            .unwrap_or(true);
        paths_inside && globs_inside
    }

    fn warn(out: &mut Vec<Step>, message: String) {
        out.push(Step::Emit(RunEvent::Warning { message }));
    }

    fn session(&mut self, line: &Value, out: &mut Vec<Step>) {
        if self.session.is_some() {
            return;
        }
        if let Some(id) = line["session_id"].as_str().filter(|id| !id.is_empty()) {
            self.session = Some(id.to_owned());
            out.push(Step::Emit(RunEvent::SessionStarted { session_id: id.to_owned() }));
        }
    }

    fn system(&mut self, line: &Value, out: &mut Vec<Step>) {
        match line["subtype"].as_str() {
            Some("init") => self.session(line, out),
            Some("api_retry") => Self::warn(
                out,
                format!(
                    "The model API failed ({}); retrying ({}/{}).",
                    line["error_status"].as_u64().map_or_else(|| text_of(&line["error"]), |s| s.to_string()),
                    line["attempt"].as_u64().unwrap_or(0),
                    line["max_retries"].as_u64().unwrap_or(0),
                ),
            ),
            // Claude Code summarised the session to make room: what was delivered into it
            // (BOOTSTRAP.md, scratch notes) may be gone, so the next turn sends it again.
            Some("compact_boundary") => self.compacted = true,
            // status, permission_denied, hooks: informational.
            _ => {}
        }
    }

    fn stream_event(&mut self, line: &Value, out: &mut Vec<Step>) {
        let event = &line["event"];
        let message_id = line["api_message_id"].as_str().unwrap_or_default().to_owned();
        match event["type"].as_str() {
            Some("content_block_start") if event["content_block"]["type"] == "text" => self.block_started = true,
            Some("content_block_delta") => {
                let delta = &event["delta"];
                match delta["type"].as_str() {
                    Some("text_delta") => {
                        let Some(text) = delta["text"].as_str().filter(|t| !t.is_empty()) else { return };
                        let text = self.separated(text);
                        self.streamed_text.insert(message_id);
                        out.push(Step::Emit(RunEvent::TextDelta { text }));
                    }
                    Some("thinking_delta") => {
                        let Some(text) = delta["thinking"].as_str().filter(|t| !t.is_empty()) else { return };
                        self.streamed_thinking.insert(message_id);
                        out.push(Step::Emit(RunEvent::Thinking { text: text.to_owned() }));
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// `text` with a blank line before it when it starts a new block after earlier reply text.
    fn separated(&mut self, text: &str) -> String {
        let text = if std::mem::take(&mut self.block_started) && self.said_anything {
            format!("\n\n{text}")
        } else {
            text.to_owned()
        };
        self.said_anything = true;
        text
    }

    fn assistant(&mut self, line: &Value, out: &mut Vec<Step>) {
        let message = &line["message"];
        let id = message["id"].as_str().unwrap_or_default();
        let Some(blocks) = message["content"].as_array() else {
            return Self::warn(out, "Claude Code sent an assistant message without content.".into());
        };
        for block in blocks {
            match block["type"].as_str() {
                // An API error arrives again, whole, in the result.
                Some("text") if line["is_api_error_message"] == true => {}
                Some("text") if !self.streamed_text.contains(id) => {
                    let text = block["text"].as_str().unwrap_or_default();
                    if !text.is_empty() {
                        self.said_anything = true;
                        out.push(Step::Emit(RunEvent::Message { text: text.to_owned() }));
                    }
                }
                Some("thinking") if !self.streamed_thinking.contains(id) => {
                    let text = block["thinking"].as_str().unwrap_or_default();
                    if !text.is_empty() {
                        out.push(Step::Emit(RunEvent::Thinking { text: text.to_owned() }));
                    }
                }
                Some("tool_use") | Some("server_tool_use") => out.push(Step::Emit(RunEvent::ToolCallStarted {
                    call_id: text_of(&block["id"]),
                    name: text_of(&block["name"]),
                    input: block["input"].clone(),
                })),
                _ => {}
            }
        }
    }

    fn user(&mut self, line: &Value, out: &mut Vec<Step>) {
        let Some(blocks) = line["message"]["content"].as_array() else { return };
        for block in blocks.iter().filter(|b| b["type"] == "tool_result") {
            out.push(Step::Emit(RunEvent::ToolResult {
                call_id: text_of(&block["tool_use_id"]),
                output: content_text(&block["content"]),
                is_error: block["is_error"] == true,
            }));
        }
    }

    fn control_request(&mut self, line: &Value, out: &mut Vec<Step>) {
        let request_id = text_of(&line["request_id"]);
        let request = &line["request"];
        match request["subtype"].as_str() {
            Some("can_use_tool") => {
                let tool = text_of(&request["tool_name"]);
                let input = request["input"].clone();
                self.asked.insert(request_id.clone(), input.clone());
                let description = request["description"].as_str().map_or_else(|| format!("Use {tool}"), str::to_owned);
                let read_only = is_read_only(&tool) && self.reads_inside(&tool, &input);
                out.push(Step::Ask { request_id, tool, input, description, read_only });
            }
            other => {
                Self::warn(out, format!("Claude Code asked for something Clawboo does not support ({other:?})."));
                let response = json!({"type": "control_response", "response": {
                    "subtype": "error", "request_id": request_id, "error": "Not supported by Clawboo."}});
                out.push(Step::Send(response.to_string()));
            }
        }
    }

    fn control_response(&mut self, line: &Value, out: &mut Vec<Step>) {
        let response = &line["response"];
        if response["subtype"] == "error" {
            Self::warn(out, format!("Claude Code refused a request: {}", text_of(&response["error"])));
        }
    }

    fn result(&mut self, line: &Value, out: &mut Vec<Step>) {
        let usage = &line["usage"];
        let tokens = |key: &str| usage[key].as_u64().unwrap_or(0);
        out.push(Step::Emit(RunEvent::Usage {
            input_tokens: tokens("input_tokens"),
            output_tokens: tokens("output_tokens"),
            cache_read_tokens: tokens("cache_read_input_tokens"),
            cache_write_tokens: tokens("cache_creation_input_tokens"),
            cost_usd: line["total_cost_usd"].as_f64(),
        }));
        let is_error = line["is_error"] == true;
        let errors: Vec<String> = line["errors"]
            .as_array()
            .map(|e| e.iter().map(text_of).filter(|e| !e.is_empty()).collect())
            .unwrap_or_default();
        let message = match line["result"].as_str().filter(|r| !r.is_empty()) {
            Some(result) => result.to_owned(),
            None if !errors.is_empty() => errors.join("\n"),
            None => format!("Claude Code ended the turn with an error ({}).", text_of(&line["subtype"])),
        };
        let session_missing = is_error && self.resuming && errors.iter().any(|e| says_session_missing(e));
        if !session_missing {
            self.session(line, out);
        }
        // An interrupted turn ends in an error result; the supervisor reports the cancel.
        if is_error && !session_missing && self.interrupts == 0 {
            out.push(Step::Emit(RunEvent::Error { message: message.clone() }));
        }
        self.outcome.get_or_insert(Outcome { is_error, message, session_missing });
        out.push(Step::EndInput);
    }
}

impl StreamProtocol for DuplexProtocol {
    fn opening(&mut self) -> Vec<String> {
        let initialize =
            json!({"type": "control_request", "request_id": INIT_REQUEST_ID, "request": {"subtype": "initialize"}});
        let message = json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": self.message}]}, "parent_tool_use_id": null, "session_id": ""});
        vec![initialize.to_string(), message.to_string()]
    }

    fn on_line(&mut self, line: &str, out: &mut Vec<Step>) {
        let value: Value = match serde_json::from_str(line) {
            Ok(value @ Value::Object(_)) => value,
            _ => return Self::warn(out, format!("Claude Code printed a line Clawboo could not read: {}", clip(line))),
        };
        match value["type"].as_str() {
            Some("system") => self.system(&value, out),
            Some("stream_event") => self.stream_event(&value, out),
            Some("assistant") => self.assistant(&value, out),
            Some("user") => self.user(&value, out),
            Some("control_request") => self.control_request(&value, out),
            Some("control_response") => self.control_response(&value, out),
            Some("control_cancel_request") => {
                self.asked.remove(value["request_id"].as_str().unwrap_or_default());
            }
            Some("result") => self.result(&value, out),
            Some("keep_alive") | Some("rate_limit_event") | Some("tool_progress") | Some("auth_status") => {}
            _ => Self::warn(out, format!("Claude Code printed an unknown line: {}", clip(line))),
        }
    }

    fn on_permission(&mut self, request_id: &str, answer: PermissionAnswer, out: &mut Vec<Step>) {
        let input = self.asked.remove(request_id).unwrap_or_else(|| json!({}));
        let decision = if answer.allow {
            json!({"behavior": "allow", "updatedInput": input})
        } else {
            json!({"behavior": "deny", "message": DENY_MESSAGE})
        };
        let response = json!({"type": "control_response", "response": {
            "subtype": "success", "request_id": request_id, "response": decision}});
        out.push(Step::Send(response.to_string()));
    }

    fn interrupt(&mut self) -> Option<String> {
        self.interrupts += 1;
        let id = format!("clawboo-interrupt-{}", self.interrupts);
        Some(json!({"type": "control_request", "request_id": id, "request": {"subtype": "interrupt"}}).to_string())
    }

    fn finish(&mut self, exit: ExitInfo, stderr_tail: &str) -> RunResult {
        let result = self.ending(exit, stderr_tail);
        RunResult { compacted: self.compacted, ..result }
    }
}

impl DuplexProtocol {
    fn ending(&mut self, exit: ExitInfo, stderr_tail: &str) -> RunResult {
        match self.outcome.take() {
            Some(Outcome { is_error: false, .. }) => RunResult::succeeded(),
            Some(Outcome { message, session_missing, .. }) => {
                RunResult { session_missing, ..RunResult::failed(message) }
            }
            None => {
                let stderr = stderr_tail.trim();
                let last = stderr.lines().last().unwrap_or_default();
                let mut result = RunResult::failed(if stderr.is_empty() {
                    format!("Claude Code stopped ({}) before finishing the turn.", exit.describe())
                } else {
                    format!("Claude Code stopped ({}): {last}", exit.describe())
                });
                result.session_missing = self.resuming && says_session_missing(stderr);
                result
            }
        }
    }
}

/// How Claude Code says a `--resume` id is unknown (2.1.332).
fn says_session_missing(text: &str) -> bool {
    text.contains("No conversation found with session ID") || text.contains("--resume requires a valid session ID")
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A tool result's content: a string, or blocks whose text parts are joined.
fn content_text(content: &Value) -> String {
    match content {
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b["type"].as_str() {
                Some("text") => text_of(&b["text"]),
                Some(other) => format!("[{other}]"),
                None => text_of(b),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => text_of(other),
    }
}

fn clip(line: &str) -> String {
    const MAX: usize = 200;
    match line.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}
