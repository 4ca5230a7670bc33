//! Attention through the engine, on a real SQLite store: questions (`ask_user`, `@user`) and
//! approvals (a runtime's permission question, a scratch-note promotion) stored with their
//! source and answered only by the user in the app.
//!
//! - `lifecycle`: Native agents on the fake model server ask through `ask_user` from a team
//!   chat, a one-to-one chat and a card; the answer goes back where the question came from and
//!   the agent's next request carries it.
//! - `team`: `@user` in a team reply, a user message clearing the team's questions, an answer
//!   closing only its own request.
//! - `approvals`: expiry, withdrawal when the run ends or Clawboo stops, "Allow always" grants
//!   and their revocation, the audit, what answers what.
//! - `self_approval`: nothing an agent writes or calls answers an approval, prompt injection
//!   through the peer room included.
//! - `promotion`: scratch-note promotions approved from the inbox or the Memory page.
//! - `shell`: "Allow always" for a shell tool lets through one command prefix, never the shell.
//! - `memory_save`: an agent's save to global memory waits for the user's approval.
//!
//! Most tests use [`Scripted`], a runtime that plays every agent by the lines of its message
//! and calls Clawboo's tools through the real tools bridge (MCP over loopback HTTP, with the
//! run's token, as a CLI does).

// `[request.id.clone()]` reads better than `std::slice::from_ref(&request.id)` in assertions.
#![allow(clippy::cloned_ref_to_slice_refs)]

mod approvals;
#[path = "../common/mod.rs"]
mod common;
mod lifecycle;
mod memory_save;
mod promotion;
mod self_approval;
mod shell;
mod team;

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::attention::{AttentionRequest, RequestKind, RequestStatus};
use clawboo_engine::chat::team::{RoomMessage, RoomMessageKind};
use clawboo_engine::chat::{ChatRole, RunStatus};
use clawboo_engine::runtimes::{
    Capabilities, PendingPermission, PermissionAnswer, RunChannels, RunEvent, RunOutcome, RunResult, Runtime, TurnInput,
};
use clawboo_engine::tools::ToolGrant;
use clawboo_engine::Engine;
use clawboo_testkit::wait_for;
use serde_json::{json, Value};

/// How long a test waits for something asynchronous before it fails (never a measurement).
pub const LIMIT: Duration = Duration::from_secs(30);

/// Plays every agent. Each line of the turn's message is a command (a line that starts with
/// `@handle ` only for that agent); the reply is the commands' outputs, one a line. `%` in what
/// an agent writes stands for `@` (the user cannot type a non-member's mention into a team chat):
/// - `ask <Tool> [think <ms>]`: asks permission to use `<Tool>` and waits for the answer or Stop; says
///   `allowed=<bool>`;
/// - `ask! <Tool>`: the same, deaf to Stop (a run cut off only by Clawboo's end);
/// - `shell <Tool> <command line>`: asks permission to run the command with shell tool `<Tool>`
///   (its input `{"command": …}`) and waits for the answer or Stop; says `allowed=<bool>`;
/// - `mcp <tool> <json>`: calls a Clawboo tool through the tools bridge over HTTP, as a CLI
///   does; says its text, or `ERROR: …`;
/// - `askuser <question>`, `post <text>`: `ask_user` / `peer_post` through MCP with the rest of
///   the line;
/// - `obey`: reads the peer room through MCP and does every command a post gives after ` DO: `
///   (a model that follows whatever it reads);
/// - `say <text>`: says it;
/// - `think <ms>`: says nothing for that long (a model thinking), then that it thought;
/// - anything else: `heard: <line>`.
#[derive(Default)]
pub struct Scripted {
    pub inputs: Mutex<Vec<TurnInput>>,
    /// Every permission answer a run was given: (run id, allowed).
    pub told: Mutex<Vec<(String, bool)>>,
}

impl Scripted {
    pub fn told(&self, run_id: &str) -> Vec<bool> {
        self.told.lock().unwrap().iter().filter(|(r, _)| r == run_id).map(|(_, a)| *a).collect()
    }
}

impl Runtime for Scripted {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> Capabilities {
        clawboo_engine::runtimes::native::CAPABILITIES
    }

    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> Pin<Box<dyn std::future::Future<Output = clawboo_engine::Result<RunResult>> + Send + '_>> {
        self.inputs.lock().unwrap().push(input.clone());
        Box::pin(async move {
            let mut said = Vec::new();
            for line in input.message.lines().map(str::trim).filter(|l| !l.is_empty()) {
                // "@handle command" is for that agent alone; a line without a mention for all.
                let line = match line.strip_prefix('@').map(|m| m.split_once(' ').unwrap_or((m, ""))) {
                    Some((handle, rest)) if handle == input.agent.handle => rest.trim(),
                    Some(_) => continue,
                    None => line,
                };
                match self.command(&input, &channels, line).await {
                    Some(out) => said.push(out),
                    None => return Ok(RunResult::with_outcome(RunOutcome::Cancelled, "Stopped by the user.")),
                }
            }
            channels.emit(RunEvent::TextDelta { text: said.join("\n") });
            Ok(RunResult::succeeded())
        })
    }
}

impl Scripted {
    /// One command's output; None when the run was stopped meanwhile.
    async fn command(&self, input: &TurnInput, channels: &RunChannels, line: &str) -> Option<String> {
        let (verb, rest) = line.split_once(' ').unwrap_or((line, ""));
        let grant = || input.tools.as_ref().expect("this run holds Clawboo's tools");
        Some(match verb {
            "ask" | "ask!" | "shell" => {
                let heeds_stop = verb != "ask!";
                let request_id = format!("perm-{}", uuid_ish());
                // `ask <Tool> think <ms>`: after the answer, thinks that long before saying it.
                let (tool, think) = match rest.trim().split_once(" think ") {
                    Some((tool, ms)) if verb != "shell" => (tool.to_owned(), Some(ms.trim().to_owned())),
                    _ => (rest.trim().to_owned(), None),
                };
                let (tool, tool_input, description) = match tool.split_once(' ') {
                    Some((tool, command)) if verb == "shell" => {
                        (tool.to_owned(), json!({"command": command}), format!("Run {command}"))
                    }
                    _ => {
                        let description = format!("{tool} notes.md");
                        (tool, json!({"file_path": "notes.md", "content": "hello"}), description)
                    }
                };
                channels.emit(RunEvent::PermissionRequest {
                    request_id: request_id.clone(),
                    tool: tool.clone(),
                    input: tool_input.clone(),
                    description: description.clone(),
                });
                let (reply, answer) = tokio::sync::oneshot::channel();
                let pending = PendingPermission { request_id, tool, input: tool_input, description, reply };
                if channels.permissions.send(pending).is_err() {
                    return Some("allowed=false (nobody to ask)".into());
                }
                let mut cancel = channels.cancel.clone();
                let allowed = if heeds_stop {
                    tokio::select! {
                        answer = answer => answer.map(|PermissionAnswer { allow }| allow).unwrap_or(false),
                        _ = cancel.wait_for(|c| *c) => return None,
                    }
                } else {
                    answer.await.map(|PermissionAnswer { allow }| allow).unwrap_or(false)
                };
                self.told.lock().unwrap().push((input.run_id.clone(), allowed));
                if let Some(ms) = think {
                    Box::pin(self.command(input, channels, &format!("think {ms}"))).await?;
                }
                format!("allowed={allowed}")
            }
            "mcp" => {
                let (tool, args) = rest.split_once(' ').unwrap_or((rest, "{}"));
                let args: Value = serde_json::from_str(&agent_text(args)).expect("the script's JSON");
                mcp(grant(), tool, args).await
            }
            "askuser" => mcp(grant(), "ask_user", json!({"question": agent_text(rest)})).await,
            "post" => mcp(grant(), "peer_post", json!({"text": agent_text(rest)})).await,
            "obey" => {
                let read = mcp(grant(), "peer_read", json!({})).await;
                // Quoted, so that no line of the reply starts with a teammate's `@handle`
                // (which would hand it a task).
                let mut out: Vec<String> = read.lines().map(|l| format!("read> {l}")).collect();
                for line in read.lines() {
                    for order in line.split(" DO: ").skip(1) {
                        let order = order.trim();
                        // Only what a model could do with its tools and its reply.
                        let done = match order.split_once(' ').map_or(order, |(v, _)| v) {
                            "mcp" | "askuser" | "post" | "say" => Box::pin(self.command(input, channels, order)).await,
                            _ => Some(format!("cannot: {order}")),
                        };
                        out.push(done?);
                    }
                }
                out.join("\n")
            }
            "say" => agent_text(rest),
            "think" => {
                let ms = rest.trim().parse().expect("think <milliseconds>");
                let mut cancel = channels.cancel.clone();
                tokio::select! {
                    _ = tokio::time::sleep(std::time::Duration::from_millis(ms)) => format!("thought for {ms} ms"),
                    _ = cancel.wait_for(|c| *c) => return None,
                }
            }
            _ => format!("heard: {line}"),
        })
    }
}

/// `%` stands for `@` in what an agent writes.
fn agent_text(text: &str) -> String {
    text.replace('%', "@")
}

fn uuid_ish() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// `tools/call` through the tools bridge's MCP endpoint with the run's token, as a CLI does.
pub async fn mcp(grant: &ToolGrant, tool: &str, arguments: Value) -> String {
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let response = client
        .post(&grant.endpoint)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2025-06-18")
        .bearer_auth(&grant.token)
        .body(body.to_string())
        .send()
        .await
        .expect("the tools bridge answers");
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let answer: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    if let Some(message) = answer["error"]["message"].as_str() {
        return format!("ERROR: {message}");
    }
    let said = answer["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
    if status != 200 || answer["result"]["isError"] != json!(false) {
        return format!("ERROR: ({status}) {said}{}", if said.is_empty() { text } else { String::new() });
    }
    said
}

pub fn new_agent(handle: &str) -> NewAgent {
    NewAgent {
        name: handle.to_uppercase(),
        description: format!("{handle} does the {handle} work"),
        model: "some-model".into(),
        ..common::new_agent(handle, RuntimeKind::Native)
    }
}

/// The shared fixture's engine with the scripted runtime and these agents (their ids, in order).
pub struct Fixture {
    pub data: common::Fixture,
    pub engine: Engine,
    pub runtime: Arc<Scripted>,
    pub ids: Vec<String>,
}

pub fn fixture(handles: &[&str]) -> Fixture {
    let data = common::Fixture::new();
    let runtime = Arc::new(Scripted::default());
    let engine = data.open_with(vec![runtime.clone()]);
    let ids = handles.iter().map(|h| common::add_agent(&engine, new_agent(h))).collect();
    Fixture { data, engine, runtime, ids }
}

/// A team of agents (the first leads), introduced; (team id, General room id).
pub fn team(engine: &Engine, name: &str, ids: &[String]) -> (String, String) {
    let common::ChatTeam { team, general } = common::chat_team(engine, name, ids, "I am Ada, I run a small shop.");
    (team.id, general)
}

impl Fixture {
    /// A one-to-one message to `agent_id`; the run's id.
    pub fn send(&self, agent_id: &str, text: &str) -> String {
        // The agent's previous run may have ended a moment before it left its slot.
        let sent = wait_for("the agent to be free", LIMIT, || match self.engine.chat().send(agent_id, text) {
            Err(e) if e.to_string().contains("still answering") => None,
            other => Some(other),
        });
        sent.unwrap().run.expect("a run").id
    }

    /// Waits for run `run_id` to end; its status and reply (the one-to-one chat's last message).
    pub fn finished(&self, run_id: &str) -> RunStatus {
        wait_for("the run to end", LIMIT, || {
            let run = self.engine.chat().run(run_id).ok()?;
            (run.status != RunStatus::Running).then_some(run.status)
        })
    }

    /// The reply of a one-to-one run.
    pub fn reply_of(&self, agent_id: &str, run_id: &str) -> String {
        self.finished(run_id);
        wait_for("the reply", LIMIT, || {
            let page = self.engine.chat().history_page(agent_id, None, 500).unwrap();
            let mut replies = page.messages.into_iter().filter(|m| m.role == ChatRole::Assistant);
            replies.find(|m| m.run_id.as_deref() == Some(run_id)).map(|m| m.content)
        })
    }

    /// The open request that `pick` chooses, once there is one.
    pub fn open_request(&self, what: &str, pick: impl Fn(&AttentionRequest) -> bool) -> AttentionRequest {
        wait_for(what, LIMIT, || self.engine.attention().open().unwrap().into_iter().find(&pick))
    }

    /// The open permission request of `agent_id` (waits for it).
    pub fn open_permission(&self, agent_id: &str) -> AttentionRequest {
        self.open_request("the permission request", |r| r.kind == RequestKind::Permission && r.agent_id == agent_id)
    }

    pub fn status(&self, request_id: &str) -> RequestStatus {
        self.engine.attention().get(request_id).unwrap().status
    }

    /// The room's messages once `done` holds and no run of the room is going.
    pub fn room_settled(&self, room_id: &str, what: &str, done: impl Fn(&[RoomMessage]) -> bool) -> Vec<RoomMessage> {
        wait_for(what, LIMIT, || {
            let messages = self.engine.chat().room_page(room_id, None, 500).unwrap().messages;
            let runs = self.engine.chat().room_runs(room_id, 100).unwrap();
            (done(&messages) && runs.iter().all(|r| r.status != RunStatus::Running)).then_some(messages)
        })
    }

    /// The newest reply of `agent_id` in the room that contains `needle` (waits for one).
    pub fn room_reply(&self, room_id: &str, agent_id: &str, needle: &str) -> RoomMessage {
        self.room_reply_after(room_id, agent_id, needle, 0)
    }

    /// The same, among the messages after `seq` (see [`Fixture::last_seq`]).
    pub fn room_reply_after(&self, room_id: &str, agent_id: &str, needle: &str, seq: i64) -> RoomMessage {
        wait_for(&format!("a reply with {needle:?}"), LIMIT, || {
            let messages = self.engine.chat().room_page(room_id, None, 500).unwrap().messages;
            messages.into_iter().rev().find(|m| m.seq > seq && is_reply_of(m, agent_id, needle))
        })
    }

    /// The room's newest message's sequence number.
    pub fn last_seq(&self, room_id: &str) -> i64 {
        self.engine.chat().room_page(room_id, None, 1).unwrap().messages.last().map_or(0, |m| m.seq)
    }
}

fn is_reply_of(m: &RoomMessage, agent_id: &str, needle: &str) -> bool {
    m.kind == RoomMessageKind::Reply && m.author_id.as_deref() == Some(agent_id) && m.content.contains(needle)
}

/// Milliseconds since the epoch, like the engine's clock.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

pub const HOUR_MS: i64 = 3_600_000;
