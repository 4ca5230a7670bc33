//! The `codex app-server` conversation for one turn: JSON-RPC without the `"jsonrpc"` field,
//! one JSON object per line. initialize → initialized → thread/start (or thread/resume) →
//! turn/start, then notifications until `turn/completed`, when stdin is closed and the server
//! exits. Approval requests become [`Step::Ask`]; cancel is `turn/interrupt`.
//!
//! A fresh thread that continues a conversation (the persona changed, and a resumed thread
//! keeps its start-time developer instructions: neither `thread/resume` nor `thread/fork` with
//! new `developerInstructions` replaces them, and a turn's `collaborationMode` adds a second
//! developer message beside the old one; verified on 0.171.0) gets the earlier messages
//! through `thread/inject_items` before its first turn: they become the thread's own history.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::items;
use super::text::{clip, last_line, usage};
use crate::runtimes::process::ExitInfo;
use crate::runtimes::supervise::{Step, StreamProtocol};
use crate::runtimes::{PermissionAnswer, RunEvent, RunResult, Transcript};

const INITIALIZE: u64 = 1;
const THREAD: u64 = 2;
const TURN: u64 = 3;
const INJECT: u64 = 4;

/// Notifications that carry nothing a run's events need.
const QUIET: &[&str] = &[
    "thread/started",
    "thread/status/changed",
    "thread/goal/cleared",
    "thread/goal/updated",
    "thread/settings/updated",
    "thread/name/updated",
    "thread/readState/changed",
    "turn/diff/updated",
    "turn/plan/updated",
    "item/plan/delta",
    "item/commandExecution/outputDelta",
    "item/commandExecution/terminalInteraction",
    "item/fileChange/outputDelta",
    "item/fileChange/patchUpdated",
    "item/mcpToolCall/progress",
    "item/reasoning/summaryTextDelta",
    "item/reasoning/summaryPartAdded",
    "item/reasoning/textDelta",
    "serverRequest/resolved",
    "account/rateLimits/updated",
    "account/updated",
    "remoteControl/status/changed",
    "mcpServer/startupStatus/updated",
    "skills/changed",
    "app/list/updated",
    "deprecationNotice",
    "hook/started",
    "hook/completed",
    "model/rerouted",
    "model/verification",
];

/// What the thread is started (or resumed) with.
#[derive(Debug, Clone)]
pub struct ThreadSetup {
    pub cwd: String,
    pub model: String,
    pub approval_policy: &'static str,
    /// None: the permission profile in the config decides.
    pub sandbox: Option<&'static str>,
    /// The persona, sent as the thread's developer instructions.
    pub developer_instructions: Option<String>,
    /// Config overrides for this thread (Clawboo's MCP server for this run), sent on start and
    /// on resume alike: each run has its own token.
    pub config: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
enum Ending {
    /// turn/completed with this status and error message.
    Turn { status: String, error: Option<String> },
    /// The server refused a request before the turn began.
    Refused { message: String, session_missing: bool },
}

pub struct AppServerProtocol {
    setup: ThreadSetup,
    resume: Option<String>,
    message: String,
    /// Earlier messages a fresh thread starts with (see the module's note).
    carried: Transcript,
    next_id: u64,
    thread_id: Option<String>,
    turn_id: Option<String>,
    /// Open approval questions: our request id → the JSON-RPC id to answer.
    approvals: HashMap<String, Value>,
    /// Approvals asked as MCP elicitations (a connector's tool call): answered with an action.
    elicitations: std::collections::HashSet<String>,
    /// Agent messages that streamed deltas (their completion repeats the text).
    streamed: HashSet<String>,
    /// The message item the last delta belonged to, to separate consecutive messages.
    last_message: Option<String>,
    last_error: Option<String>,
    ending: Option<Ending>,
    /// Codex compacted the thread's conversation during the turn.
    compacted: bool,
}

impl AppServerProtocol {
    pub fn new(setup: ThreadSetup, resume: Option<String>, message: String) -> Self {
        Self {
            setup,
            resume,
            message,
            carried: Transcript::default(),
            next_id: INJECT + 1,
            thread_id: None,
            turn_id: None,
            approvals: HashMap::new(),
            elicitations: Default::default(),
            streamed: HashSet::new(),
            last_message: None,
            last_error: None,
            ending: None,
            compacted: false,
        }
    }

    /// Earlier messages for a fresh thread to start with; ignored when resuming.
    pub fn carrying(mut self, carried: Transcript) -> Self {
        self.carried = carried;
        self
    }

    /// The carried messages as Responses API items, oldest first.
    fn carried_items(&self) -> Vec<Value> {
        let item = |role: &str, kind: &str, text: &str| json!({"type": "message", "role": role, "content": [{"type": kind, "text": text}]});
        self.carried
            .iter()
            .flat_map(|turn| {
                [item("user", "input_text", &turn.user), item("assistant", "output_text", &turn.assistant)]
            })
            .collect()
    }

    /// The thread is ready: report it as the session and start the turn.
    fn start_turn(&mut self, out: &mut Vec<Step>) {
        let Some(thread_id) = self.thread_id.clone() else { return };
        out.push(Step::Emit(RunEvent::SessionStarted { session_id: thread_id.clone() }));
        let params = json!({"threadId": thread_id, "input": [{"type": "text", "text": self.message}]});
        out.push(Step::Send(json!({"id": TURN, "method": "turn/start", "params": params}).to_string()));
    }

    fn thread_request(&self) -> String {
        let mut params = json!({
            "cwd": self.setup.cwd,
            "model": self.setup.model,
            "approvalPolicy": self.setup.approval_policy,
        });
        if let Some(sandbox) = self.setup.sandbox {
            params["sandbox"] = json!(sandbox);
        }
        if let Some(instructions) = &self.setup.developer_instructions {
            params["developerInstructions"] = json!(instructions);
        }
        if let Some(config) = &self.setup.config {
            params["config"] = config.clone();
        }
        let method = match &self.resume {
            Some(thread_id) => {
                params["threadId"] = json!(thread_id);
                params["excludeTurns"] = json!(true);
                "thread/resume"
            }
            None => "thread/start",
        };
        json!({"id": THREAD, "method": method, "params": params}).to_string()
    }

    fn on_response(&mut self, id: Option<u64>, message: &Value, out: &mut Vec<Step>) {
        if let Some(error) = message.get("error") {
            let text = error["message"].as_str().unwrap_or("Codex refused the request.").to_owned();
            match id {
                Some(INITIALIZE | TURN) => self.refuse(text, false, out),
                Some(INJECT) => self.refuse(format!("Codex did not take the earlier conversation: {text}"), false, out),
                Some(THREAD) => {
                    // The server's words for a thread id it has no record of.
                    let missing = self.resume.is_some() && text.contains("no rollout found");
                    self.refuse(text, missing, out);
                }
                _ => out.push(warn(format!("Codex refused a request: {text}"))),
            }
            return;
        }
        let result = &message["result"];
        match id {
            Some(INITIALIZE) => {
                out.push(Step::Send(json!({"method": "initialized"}).to_string()));
                out.push(Step::Send(self.thread_request()));
            }
            Some(THREAD) => match result["thread"]["id"].as_str() {
                Some(thread_id) => {
                    self.thread_id = Some(thread_id.to_owned());
                    if self.resume.is_none() && !self.carried.is_empty() {
                        // The thread becomes the session only once it holds the conversation.
                        let params = json!({"threadId": thread_id, "items": self.carried_items()});
                        let request = json!({"id": INJECT, "method": "thread/inject_items", "params": params});
                        out.push(Step::Send(request.to_string()));
                    } else {
                        self.start_turn(out);
                    }
                }
                None => self.refuse("Codex started no thread.".to_owned(), false, out),
            },
            Some(INJECT) => self.start_turn(out),
            Some(TURN) => {
                if let Some(turn_id) = result["turn"]["id"].as_str() {
                    self.turn_id.get_or_insert_with(|| turn_id.to_owned());
                }
            }
            _ => {}
        }
    }

    fn refuse(&mut self, message: String, session_missing: bool, out: &mut Vec<Step>) {
        out.push(Step::Emit(RunEvent::Error { message: message.clone() }));
        self.ending = Some(Ending::Refused { message, session_missing });
        out.push(Step::EndInput);
    }

    fn on_request(&mut self, id: Value, method: &str, params: &Value, out: &mut Vec<Step>) {
        let request_id = match &id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let (tool, input, description, read_only) = match method {
            "item/commandExecution/requestApproval" => {
                let command = params["command"].as_str().unwrap_or("a command");
                let read_only = items::command_only_reads(&params["commandActions"])
                    && reads_inside(&self.setup.cwd, params["cwd"].as_str(), &params["commandActions"]);
                let input = json!({"command": params["command"], "cwd": params["cwd"], "reason": params["reason"]});
                ("shell".to_owned(), input, format!("Run {command}"), read_only)
            }
            "item/fileChange/requestApproval" => {
                let reason = params["reason"].as_str().unwrap_or("Change files in the workspace");
                let input =
                    json!({"itemId": params["itemId"], "reason": params["reason"], "grantRoot": params["grantRoot"]});
                ("apply_patch".to_owned(), input, reason.to_owned(), false)
            }
            // A user's connector's tool (Clawboo's own are approved up front): asked like any
            // other tool under the agent's policy, answered with an elicitation action.
            "mcpServer/elicitation/request" if params["_meta"]["codex_approval_kind"] == "mcp_tool_call" => {
                let server = params["serverName"].as_str().unwrap_or("mcp");
                let name = params["_meta"]["tool_name"].as_str().unwrap_or("tool");
                let message = params["message"].as_str().unwrap_or_default();
                let description =
                    if message.is_empty() { format!("Use {server}'s tool {name}") } else { message.to_owned() };
                self.elicitations.insert(request_id.clone());
                (format!("mcp__{server}__{name}"), params["_meta"]["tool_params"].clone(), description, false)
            }
            _ => {
                out.push(warn(format!("Codex asked {method}, which Clawboo does not answer: declined.")));
                let error = json!({"code": -32601, "message": format!("{method} is not supported by this client")});
                out.push(Step::Send(json!({"id": id, "error": error}).to_string()));
                return;
            }
        };
        self.approvals.insert(request_id.clone(), id);
        out.push(Step::Ask { request_id, tool, input, description, read_only });
    }

    fn on_notification(&mut self, method: &str, params: &Value, out: &mut Vec<Step>) {
        match method {
            "turn/started" => {
                if let Some(turn_id) = params["turn"]["id"].as_str() {
                    self.turn_id.get_or_insert_with(|| turn_id.to_owned());
                }
            }
            "item/started" => {
                if let Some(event) = items::started(&params["item"]) {
                    out.push(Step::Emit(event));
                }
            }
            "item/agentMessage/delta" => {
                let item_id = params["itemId"].as_str().unwrap_or_default().to_owned();
                let text = params["delta"].as_str().unwrap_or_default();
                self.streamed.insert(item_id.clone());
                self.push_text(item_id, text, out);
            }
            "item/completed" => {
                let item = &params["item"];
                if item["type"] == "contextCompaction" {
                    self.compacted = true;
                } else if item["type"] == "agentMessage" {
                    let item_id = item["id"].as_str().unwrap_or_default().to_owned();
                    if !self.streamed.contains(&item_id) {
                        self.push_text(item_id, item["text"].as_str().unwrap_or_default(), out);
                    }
                } else if let Some(event) = items::completed(item) {
                    out.push(Step::Emit(event));
                }
            }
            // Codex summarised the thread to make room (also reported as a `contextCompaction`
            // item): what was delivered into it may be gone.
            "thread/compacted" => self.compacted = true,
            "thread/tokenUsage/updated" => {
                // A resumed thread first reports the usage of its previous turn.
                if self.turn_id.is_some() && params["turnId"].as_str() == self.turn_id.as_deref() {
                    out.push(Step::Emit(usage(&params["tokenUsage"]["last"])));
                }
            }
            "error" => {
                let error = &params["error"];
                let mut message = error["message"].as_str().unwrap_or("Codex reported an error.").to_owned();
                if let Some(details) = error["additionalDetails"].as_str().filter(|d| !d.trim().is_empty()) {
                    message = format!("{message} ({})", details.trim());
                }
                if params["willRetry"].as_bool() == Some(true) {
                    out.push(warn(message));
                } else {
                    self.last_error = Some(message.clone());
                    out.push(Step::Emit(RunEvent::Error { message }));
                }
            }
            "warning" | "configWarning" | "guardianWarning" => {
                let message = params["message"].as_str().or(params["summary"].as_str()).unwrap_or(method);
                out.push(warn(message.to_owned()));
            }
            "turn/completed" => {
                let turn = &params["turn"];
                let ours = match (&self.turn_id, turn["id"].as_str()) {
                    (Some(mine), Some(id)) => mine == id,
                    _ => true,
                };
                if ours {
                    let status = turn["status"].as_str().unwrap_or("completed").to_owned();
                    let error = turn["error"]["message"].as_str().map(str::to_owned);
                    self.ending = Some(Ending::Turn { status, error });
                    out.push(Step::EndInput);
                }
            }
            m if QUIET.contains(&m) => {}
            other => out.push(warn(format!("Codex sent an unknown notification: {other}"))),
        }
    }

    fn push_text(&mut self, item_id: String, text: &str, out: &mut Vec<Step>) {
        if text.is_empty() {
            return;
        }
        let mut text = text.to_owned();
        if self.last_message.as_ref().is_some_and(|last| *last != item_id) {
            text.insert_str(0, "\n\n");
        }
        self.last_message = Some(item_id);
        out.push(Step::Emit(RunEvent::TextDelta { text }));
    }
}

impl StreamProtocol for AppServerProtocol {
    fn opening(&mut self) -> Vec<String> {
        let params =
            json!({"clientInfo": {"name": "clawboo", "title": "Clawboo", "version": env!("CARGO_PKG_VERSION")}});
        vec![json!({"id": INITIALIZE, "method": "initialize", "params": params}).to_string()]
    }

    fn on_line(&mut self, line: &str, out: &mut Vec<Step>) {
        let message: Value = match serde_json::from_str(line) {
            Ok(value @ Value::Object(_)) => value,
            _ => return out.push(warn(format!("Codex printed a line that is not a message: {}", clip(line)))),
        };
        let method = message["method"].as_str();
        let params = &message["params"];
        match (method, message.get("id")) {
            // The turn is over and stdin closed: what follows is not this turn's.
            (Some(_), _) if self.ending.is_some() => {}
            (Some(method), Some(id)) => self.on_request(id.clone(), method, params, out),
            (Some(method), None) => self.on_notification(method, params, out),
            (None, Some(id)) if message.get("result").is_some() || message.get("error").is_some() => {
                self.on_response(id.as_u64(), &message, out)
            }
            _ => out.push(warn(format!("Codex printed an unknown message: {}", clip(line)))),
        }
    }

    fn on_permission(&mut self, request_id: &str, answer: PermissionAnswer, out: &mut Vec<Step>) {
        if let Some(id) = self.approvals.remove(request_id) {
            let decision = if answer.allow { "accept" } else { "decline" };
            let result = if self.elicitations.remove(request_id) {
                if answer.allow {
                    json!({"action": "accept", "content": {}})
                } else {
                    json!({"action": "decline"})
                }
            } else {
                json!({"decision": decision})
            };
            out.push(Step::Send(json!({"id": id, "result": result}).to_string()));
        }
    }

    fn interrupt(&mut self) -> Option<String> {
        let (thread_id, turn_id) = (self.thread_id.clone()?, self.turn_id.clone()?);
        if self.ending.is_some() {
            return None;
        }
        let id = self.next_id;
        self.next_id += 1;
        let params = json!({"threadId": thread_id, "turnId": turn_id});
        Some(json!({"id": id, "method": "turn/interrupt", "params": params}).to_string())
    }

    fn finish(&mut self, exit: ExitInfo, stderr_tail: &str) -> RunResult {
        let result = self.ending(exit, stderr_tail);
        RunResult { compacted: self.compacted, ..result }
    }
}

impl AppServerProtocol {
    fn ending(&mut self, exit: ExitInfo, stderr_tail: &str) -> RunResult {
        match self.ending.take() {
            Some(Ending::Turn { status, .. }) if status == "completed" => RunResult::succeeded(),
            Some(Ending::Turn { status, error }) => {
                let message = error.or_else(|| self.last_error.take());
                RunResult::failed(message.unwrap_or_else(|| format!("Codex ended the turn as {status}.")))
            }
            Some(Ending::Refused { message, session_missing }) => {
                RunResult { session_missing, ..RunResult::failed(message) }
            }
            None => {
                let detail = self.last_error.take().unwrap_or_else(|| last_line(stderr_tail));
                RunResult::failed(format!("Codex stopped before the turn ended ({}): {detail}", exit.describe()))
            }
        }
    }
}

fn warn(message: String) -> Step {
    Step::Emit(RunEvent::Warning { message })
}

/// Whether every path a command's read actions name (relative to the command's folder) lies
/// inside the workspace. Codex's sandbox confines reads under read-only too
/// (`config::READ_ONLY_PROFILE`); this keeps Clawboo from approving what it can see leads out.
fn reads_inside(workspace: &str, cwd: Option<&str>, actions: &Value) -> bool {
    let workspace = std::path::Path::new(workspace);
    let base = cwd.map(std::path::Path::new).unwrap_or(workspace);
    if !crate::runtimes::confine::readable(workspace, &base.to_string_lossy()) {
        return false;
    }
    actions.as_array().into_iter().flatten().all(|action| match &action["path"] {
        Value::Null => true,
        Value::String(path) => {
            let path = std::path::Path::new(path);
            let full = if path.is_absolute() { path.to_path_buf() } else { base.join(path) };
            crate::runtimes::confine::readable(workspace, &full.to_string_lossy())
        }
        _ => false,
    })
}
