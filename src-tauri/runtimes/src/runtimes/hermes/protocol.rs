//! The client side of Hermes' Agent Client Protocol (JSON-RPC 2.0, one message a line):
//! `initialize`, `session/new` or `session/load`, one `session/prompt`, then stdin is closed.
//!
//! A loaded session keeps the system prompt it was first built with (Hermes stores it per
//! session and reuses it verbatim), so a changed SOUL.md would not reach it. `session/fork`
//! instead copies the history into a new session that has no stored prompt: its first prompt
//! builds one from the files of now. Verified on 0.19.0: the forked turn's request carries
//! the new persona and not the old, and the whole history.
//! OpenClaw's `openclaw acp` bridge is driven with it too (see `AcpProtocol::for_agent`).

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::runtimes::process::ExitInfo;
use crate::runtimes::supervise::{Step, StreamProtocol};
use crate::runtimes::{PermissionAnswer, RunEvent, RunResult};

const INITIALIZE_ID: u64 = 1;
const SESSION_ID: u64 = 2;
/// As in the recordings.
const PROMPT_ID: u64 = 10;

/// Tool kinds (ACP `ToolKind`) that only read. Not `fetch`: what it sends out (a URL) can
/// carry what the agent read.
const READ_ONLY_KINDS: [&str; 3] = ["read", "search", "think"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Initializing,
    /// `session/new` sent.
    Creating,
    /// `session/fork` sent: the answer names the new session.
    Forking,
    /// `session/load` sent: the updates that arrive now replay history and are not new.
    Loading,
    Prompting,
    Done,
}

/// A permission question waiting for its answer: the JSON-RPC id and the offered options.
struct Question {
    id: Value,
    options: Vec<(String, String)>,
}

pub struct AcpProtocol {
    cwd: String,
    message: String,
    resume: Option<String>,
    /// Branch `resume` with `session/fork` rather than load it.
    fork: bool,
    phase: Phase,
    session_id: Option<String>,
    /// The reply text of this turn, kept to report Hermes' error text on failure.
    turn_text: String,
    questions: HashMap<String, Question>,
    result: Option<RunResult>,
    /// The runtime's name in messages ("Hermes" unless set).
    label: &'static str,
    /// Whether `end_turn` without `usage` means the turn failed (Hermes' way of ending a failed
    /// turn). Agents that never report usage in the prompt's result judge failure elsewhere.
    end_turn_needs_usage: bool,
    /// ACP `mcpServers` of the session (Clawboo's server for this run), `[]` when none.
    mcp_servers: Value,
    /// ACP `_meta` of `session/new` (OpenClaw: the Gateway session key the new session gets).
    new_session_meta: Option<Value>,
}

impl AcpProtocol {
    pub fn new(cwd: String, message: String, resume: Option<String>) -> Self {
        Self {
            cwd,
            message,
            resume,
            fork: false,
            phase: Phase::Initializing,
            session_id: None,
            turn_text: String::new(),
            questions: HashMap::new(),
            result: None,
            label: "Hermes",
            end_turn_needs_usage: true,
            mcp_servers: json!([]),
            new_session_meta: None,
        }
    }

    /// The session's MCP servers (ACP `mcpServers`), sent on new, load and fork alike.
    pub fn with_mcp_servers(mut self, servers: Value) -> Self {
        self.mcp_servers = servers;
        self
    }

    /// The `_meta` a new session is created with (not sent on load or fork: a resumed session
    /// keeps what it was created with).
    pub fn set_new_session_meta(&mut self, meta: Value) {
        self.new_session_meta = Some(meta);
    }

    /// Names another ACP agent in messages, and says whether its `end_turn` without `usage`
    /// means a failed turn (it does for Hermes).
    pub fn for_agent(mut self, label: &'static str, end_turn_needs_usage: bool) -> Self {
        self.label = label;
        self.end_turn_needs_usage = end_turn_needs_usage;
        self
    }

    /// Continues `resume` in a new session forked from it (the setup changed since it started).
    pub fn forking(mut self, fork: bool) -> Self {
        self.fork = fork;
        self
    }

    fn end(&mut self, result: RunResult, out: &mut Vec<Step>) {
        self.phase = Phase::Done;
        self.result = Some(result);
        out.push(Step::EndInput);
    }

    fn on_response(&mut self, id: &Value, msg: &Value, out: &mut Vec<Step>) {
        let Some(id) = id.as_u64() else {
            warn(out, format!("{} answered an unknown request id {id}.", self.label));
            return;
        };
        if let Some(error) = msg.get("error") {
            let text = rpc_error_text(error);
            out.push(Step::Emit(RunEvent::Error { message: text.clone() }));
            self.end(RunResult::failed(format!("{} reported an error: {text}", self.label)), out);
            return;
        }
        let result = msg.get("result").cloned().unwrap_or(Value::Null);
        match (id, self.phase) {
            (INITIALIZE_ID, Phase::Initializing) => {
                let (method, phase, params) = match &self.resume {
                    Some(id) if self.fork => (
                        "session/fork",
                        Phase::Forking,
                        json!({"sessionId": id, "cwd": self.cwd, "mcpServers": self.mcp_servers}),
                    ),
                    Some(id) => (
                        "session/load",
                        Phase::Loading,
                        json!({"sessionId": id, "cwd": self.cwd, "mcpServers": self.mcp_servers}),
                    ),
                    None => {
                        let mut params = json!({"cwd": self.cwd, "mcpServers": self.mcp_servers});
                        if let Some(meta) = &self.new_session_meta {
                            params["_meta"] = meta.clone();
                        }
                        ("session/new", Phase::Creating, params)
                    }
                };
                self.phase = phase;
                out.push(Step::Send(request(SESSION_ID, method, params)));
            }
            (SESSION_ID, Phase::Creating) => match result.get("sessionId").and_then(Value::as_str) {
                Some(id) => {
                    self.session_id = Some(id.to_owned());
                    self.prompt(out);
                }
                None => self.end(
                    RunResult::failed(format!("{} started no session (no sessionId in its answer).", self.label)),
                    out,
                ),
            },
            // Forking an unknown session answers with an empty id.
            (SESSION_ID, Phase::Forking) => match result.get("sessionId").and_then(Value::as_str) {
                Some(id) if !id.is_empty() => {
                    self.session_id = Some(id.to_owned());
                    self.prompt(out);
                }
                _ => self.session_missing(out),
            },
            (SESSION_ID, Phase::Loading) => {
                // A loaded session answers with its models and modes; an unknown one with `{}`.
                let known = result.get("modes").is_some_and(|m| !m.is_null())
                    || result.get("models").is_some_and(|m| !m.is_null());
                if known {
                    self.session_id = self.resume.clone();
                    self.prompt(out);
                } else {
                    self.session_missing(out);
                }
            }
            (PROMPT_ID, Phase::Prompting) => self.on_prompt_result(&result, out),
            _ => warn(out, format!("{} answered request {id} out of turn.", self.label)),
        }
    }

    fn session_missing(&mut self, out: &mut Vec<Step>) {
        let id = self.resume.clone().unwrap_or_default();
        let mut result = RunResult::failed(format!("{} has no session {id} any more.", self.label));
        result.session_missing = true;
        self.end(result, out);
    }

    fn prompt(&mut self, out: &mut Vec<Step>) {
        let Some(session_id) = self.session_id.clone() else { return };
        out.push(Step::Emit(RunEvent::SessionStarted { session_id: session_id.clone() }));
        self.phase = Phase::Prompting;
        let params = json!({"sessionId": session_id, "prompt": [{"type": "text", "text": self.message}]});
        out.push(Step::Send(request(PROMPT_ID, "session/prompt", params)));
    }

    fn on_prompt_result(&mut self, result: &Value, out: &mut Vec<Step>) {
        let usage = result.get("usage").filter(|u| u.is_object());
        if let Some(usage) = usage {
            let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
            out.push(Step::Emit(RunEvent::Usage {
                input_tokens: n("inputTokens"),
                output_tokens: n("outputTokens"),
                cache_read_tokens: n("cachedReadTokens"),
                cache_write_tokens: n("cachedWriteTokens"),
                cost_usd: None,
            }));
        }
        let stop = result.get("stopReason").and_then(Value::as_str).unwrap_or("");
        let outcome = match stop {
            // Hermes ends a failed turn (the model API gave up, the agent raised) with
            // `end_turn` too, but only a turn its agent loop completed carries `usage`; the
            // text it sent is then its error message. Slash commands are answered locally
            // without usage.
            "end_turn"
                if self.end_turn_needs_usage && usage.is_none() && !self.message.trim_start().starts_with('/') =>
            {
                let text = self.turn_text.trim();
                let fallback = format!("{} ended the turn without an answer.", self.label);
                let message = if text.is_empty() { fallback.as_str() } else { text };
                out.push(Step::Emit(RunEvent::Error { message: message.to_owned() }));
                RunResult::failed(message)
            }
            "end_turn" => RunResult::succeeded(),
            "max_tokens" | "max_turn_requests" => {
                warn(out, format!("{} stopped the turn early ({stop}).", self.label));
                RunResult::succeeded()
            }
            "cancelled" => RunResult::stopped_by_user(),
            // Hermes refuses a prompt for a session it does not know.
            "refusal" if self.resume.is_some() => return self.session_missing(out),
            other => RunResult::failed(format!("{} ended the turn with stop reason “{other}”.", self.label)),
        };
        self.end(outcome, out);
    }

    fn on_update(&mut self, params: &Value, out: &mut Vec<Step>) {
        if self.phase == Phase::Loading {
            return; // History replayed by session/load: already shown in earlier turns.
        }
        let Some(update) = params.get("update") else {
            return warn(out, format!("{} sent a session update without content.", self.label));
        };
        let kind = update.get("sessionUpdate").and_then(Value::as_str).unwrap_or("");
        match kind {
            "agent_message_chunk" | "agent_thought_chunk" => {
                let Some(text) = update.pointer("/content/text").and_then(Value::as_str) else {
                    return; // Images and other content are not shown.
                };
                if text.is_empty() {
                    return;
                }
                if kind == "agent_message_chunk" {
                    self.turn_text.push_str(text);
                    out.push(Step::Emit(RunEvent::TextDelta { text: text.to_owned() }));
                } else {
                    out.push(Step::Emit(RunEvent::Thinking { text: text.to_owned() }));
                }
            }
            "tool_call" => {
                let call_id = str_field(update, "toolCallId");
                let title = str_field(update, "title");
                let input = match update.get("rawInput") {
                    Some(raw) if !raw.is_null() => raw.clone(),
                    _ => json!({"title": title, "content": content_text(update.get("content"))}),
                };
                out.push(Step::Emit(RunEvent::ToolCallStarted { call_id, name: tool_name(update), input }));
            }
            "tool_call_update" => {
                let status = update.get("status").and_then(Value::as_str).unwrap_or("");
                if !matches!(status, "completed" | "failed") {
                    return;
                }
                let mut output = content_text(update.get("content"));
                if output.is_empty() {
                    output = match update.get("rawOutput") {
                        Some(Value::String(s)) => s.clone(),
                        Some(v) if !v.is_null() => v.to_string(),
                        _ => String::new(),
                    };
                }
                out.push(Step::Emit(RunEvent::ToolResult {
                    call_id: str_field(update, "toolCallId"),
                    output,
                    is_error: status == "failed",
                }));
            }
            // `usage_update` is the context window's fill (used/size), not this turn's tokens:
            // those come with the prompt's result.
            "usage_update"
            | "available_commands_update"
            | "current_mode_update"
            | "session_info_update"
            | "plan"
            | "user_message_chunk"
            | "config_option_update" => {}
            other => warn(out, format!("{} sent an unknown session update “{other}”.", self.label)),
        }
    }

    fn on_request(&mut self, id: &Value, method: &str, params: &Value, out: &mut Vec<Step>) {
        if method != "session/request_permission" {
            warn(out, format!("{} asked for “{method}”, which Clawboo does not offer.", self.label));
            let error = json!({"code": -32601, "message": format!("{method} is not supported")});
            out.push(Step::Send(json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string()));
            return;
        }
        let call = params.get("toolCall").cloned().unwrap_or(Value::Null);
        let options = params
            .get("options")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|o| Some((str_of(o, "optionId")?, str_of(o, "kind").unwrap_or_default())))
                    .collect()
            })
            .unwrap_or_default();
        let request_id = match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        self.questions.insert(request_id.clone(), Question { id: id.clone(), options });
        let kind = call.get("kind").and_then(Value::as_str).unwrap_or("other");
        let title = str_field(&call, "title");
        let input = call.get("rawInput").filter(|v| !v.is_null()).cloned().unwrap_or_else(|| call.clone());
        out.push(Step::Ask {
            request_id,
            tool: tool_name(&call),
            input,
            description: if title.is_empty() { content_text(call.get("content")) } else { title },
            read_only: READ_ONLY_KINDS.contains(&kind),
        });
    }
}

impl StreamProtocol for AcpProtocol {
    fn opening(&mut self) -> Vec<String> {
        let params = json!({
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": false, "writeTextFile": false}, "terminal": false},
            "clientInfo": {"name": "clawboo", "version": env!("CARGO_PKG_VERSION")},
        });
        vec![request(INITIALIZE_ID, "initialize", params)]
    }

    fn on_line(&mut self, line: &str, out: &mut Vec<Step>) {
        let msg: Value = match serde_json::from_str(line) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) | Err(_) => {
                return warn(out, format!("{} printed a line that is not ACP: {}", self.label, clip(line)))
            }
        };
        let method = msg.get("method").and_then(Value::as_str);
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        match (msg.get("id").filter(|id| !id.is_null()), method) {
            (Some(id), Some(method)) => self.on_request(id, method, &params, out),
            (Some(id), None) => self.on_response(id, &msg, out),
            (None, Some("session/update")) => self.on_update(&params, out),
            (None, Some(other)) => warn(out, format!("{} sent an unknown notification “{other}”.", self.label)),
            (None, None) => warn(out, format!("{} printed a message that is not ACP: {}", self.label, clip(line))),
        }
    }

    fn on_permission(&mut self, request_id: &str, answer: PermissionAnswer, out: &mut Vec<Step>) {
        let Some(question) = self.questions.remove(request_id) else { return };
        let wanted: &[&str] =
            if answer.allow { &["allow_once", "allow_always"] } else { &["reject_once", "reject_always"] };
        let chosen =
            wanted.iter().find_map(|kind| question.options.iter().find(|(_, k)| k == kind)).map(|(id, _)| id.clone());
        let outcome = match chosen {
            Some(option) => json!({"outcome": "selected", "optionId": option}),
            // No reject option offered: "cancelled" is ACP's way to decline.
            None => json!({"outcome": "cancelled"}),
        };
        out.push(Step::Send(json!({"jsonrpc": "2.0", "id": question.id, "result": {"outcome": outcome}}).to_string()));
    }

    fn interrupt(&mut self) -> Option<String> {
        let session_id = self.session_id.as_ref().filter(|_| self.phase == Phase::Prompting)?;
        Some(json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}}).to_string())
    }

    fn has_result(&self) -> bool {
        self.phase == Phase::Done && self.result.is_some()
    }

    fn finish(&mut self, exit: ExitInfo, stderr_tail: &str) -> RunResult {
        if let Some(result) = self.result.take() {
            return result;
        }
        let tail: Vec<&str> = stderr_tail.lines().filter(|l| !l.trim().is_empty()).collect();
        let last = tail[tail.len().saturating_sub(5)..].join("\n");
        let mut message = format!("{} stopped ({}) before the turn finished.", self.label, exit.describe());
        if !last.is_empty() {
            message.push('\n');
            message.push_str(&last);
        }
        RunResult::failed(message)
    }
}

fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn warn(out: &mut Vec<Step>, message: String) {
    out.push(Step::Emit(RunEvent::Warning { message }));
}

fn clip(line: &str) -> String {
    let mut s: String = line.chars().take(200).collect();
    if s.len() < line.len() {
        s.push('…');
    }
    s
}

fn rpc_error_text(error: &Value) -> String {
    let message = error.get("message").and_then(Value::as_str).unwrap_or("unknown error");
    match error.get("data") {
        Some(Value::String(data)) if !data.is_empty() => format!("{message}: {data}"),
        Some(Value::Object(data)) if data.get("details").is_some_and(Value::is_string) => {
            format!("{message}: {}", data["details"].as_str().unwrap_or_default())
        }
        Some(data) if !data.is_null() => format!("{message}: {data}"),
        _ => message.to_owned(),
    }
}

fn str_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn str_field(v: &Value, key: &str) -> String {
    str_of(v, key).unwrap_or_default()
}

/// Hermes titles a call "<tool>: <summary>" (`terminal: echo hi`); the tool is the first word.
fn tool_name(call: &Value) -> String {
    let title = str_field(call, "title");
    match title.split_once(": ") {
        Some((name, _)) if !name.is_empty() && !name.contains(char::is_whitespace) => name.to_owned(),
        _ => call.get("kind").and_then(Value::as_str).unwrap_or("tool").to_owned(),
    }
}

/// The text of an ACP tool-call content list (`[{type:"content", content:{type:"text", text}}]`).
fn content_text(content: Option<&Value>) -> String {
    let Some(items) = content.and_then(Value::as_array) else { return String::new() };
    items.iter().filter_map(|item| item.pointer("/content/text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
