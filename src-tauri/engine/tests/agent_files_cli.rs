//! Agent files reach the real runtimes as `context::files` plans them, asserted on the model
//! requests the fake server captured. On each runtime (Claude Code, Codex, Hermes, OpenClaw,
//! Native), in
//! a one-to-one chat:
//! - turn 1 of a new session carries SOUL.md, IDENTITY.md, USER.md, AGENTS.md (in its slot, or
//!   read by the runtime itself) and BOOTSTRAP.md once each, MEMORY.md as a pointer only (the
//!   chat has the memory tools), HEARTBEAT.md not at all;
//! - turn 2, nothing changed: BOOTSTRAP.md is not sent again (once in the request, from the
//!   history the session keeps), and "What this agent saw" says it was already delivered;
//! - BOOTSTRAP.md edited: turn 3 carries the new text once;
//! - AGENTS.md edited: turn 4 carries the new text once;
//! - USER.md over its budget: the send is refused with the file and the figures named, no
//!   request reaches the model and nothing is stored.
//!
//! And an AGENTS.md Codex reads itself, over Codex's own limit: the run goes on (it is not
//! Clawboo's to refuse), and "What this agent saw" says what Codex does with it.
//!
//! Skipped when a CLI is not installed (see `common::cli`); one runtime at a time.
#![cfg(unix)]

mod common;

use std::sync::Mutex;
use std::time::Duration;

use clawboo_engine::agents::{AgentFileName, RuntimeKind};
use clawboo_engine::chat::{ChatRunContext, RunStatus};
use clawboo_engine::context::files::FileStatus;
use clawboo_engine::{Engine, ErrorCode};
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, RecordedRequest};

const SOUL: &str = "You are Scout, a careful researcher. SOUL-MARK-51c3";
const IDENTITY: &str = "- Voice: calm. IDENTITY-MARK-1d3a";
const USER: &str = "Sam likes short answers. USER-MARK-05e2";
const AGENTS_V1: &str = "Run the checks before calling anything done. AGENTS-MARK-v1-a9e7";
const AGENTS_V2: &str = "Cite every source. AGENTS-MARK-v2-77b0";
const MEMORY: &str = "- prices moved to docs/prices.md. MEMORY-MARK-3e30";
const BOOTSTRAP_V1: &str = "Introduce yourself first. BOOTSTRAP-MARK-v1-4b1d";
const BOOTSTRAP_V2: &str = "Ask about opening hours. BOOTSTRAP-MARK-v2-c0de";
const HEARTBEAT: &str = "Check the oven log. HEARTBEAT-MARK-6ea7";
const MESSAGES: [&str; 5] =
    ["turn-one-message-a1", "turn-two-message-b2", "turn-three-message-c3", "turn-four-message-d4", "turn-five-e5"];
const TURN_LIMIT: Duration = Duration::from_secs(240);

static SERIAL: Mutex<()> = Mutex::new(());

struct Chat {
    engine: Engine,
    agent_id: String,
    server: FakeModelServer,
    _fixture: common::Fixture,
}

impl Chat {
    fn open(kind: RuntimeKind) -> Option<Chat> {
        let server = FakeModelServer::start_blocking(Behavior::text("Noted."));
        let common::ChatEngine { engine, agent_id, fixture } = common::chat_engine(kind, &server, "sk-fake-files")?;
        let chat = Chat { engine, agent_id, server, _fixture: fixture };
        for (file, text) in [
            (AgentFileName::Soul, SOUL),
            (AgentFileName::Identity, IDENTITY),
            (AgentFileName::User, USER),
            (AgentFileName::Agents, AGENTS_V1),
            (AgentFileName::Memory, MEMORY),
            (AgentFileName::Bootstrap, BOOTSTRAP_V1),
            (AgentFileName::Heartbeat, HEARTBEAT),
        ] {
            chat.write(file, text);
        }
        Some(chat)
    }

    fn write(&self, file: AgentFileName, text: &str) {
        self.engine.agents().write_file(&self.agent_id, file.as_str(), text).unwrap();
    }

    /// Sends `text`, waits for the run to succeed; the requests that carried the message, and
    /// what the run was given.
    fn turn(&self, text: &str) -> (Vec<RecordedRequest>, ChatRunContext) {
        let before = self.server.model_requests().len();
        let run = self.engine.chat().send(&self.agent_id, text).unwrap().run.expect("a run");
        let done = wait_for("the run to finish", TURN_LIMIT, || {
            let history = self.engine.chat().history_page(&self.agent_id, None, 500).unwrap();
            history.runs.into_iter().find(|r| r.id == run.id && r.status != RunStatus::Running)
        });
        let activity = self.engine.chat().run_activity(&run.id).unwrap();
        assert_eq!(done.status, RunStatus::Succeeded, "{text}: {done:?} {activity:#?}");
        let requests: Vec<RecordedRequest> =
            self.server.model_requests().split_off(before).into_iter().filter(|r| r.raw_body.contains(text)).collect();
        assert!(!requests.is_empty(), "a request of this turn carries its message");
        (requests, self.engine.chat().chat_run_context(&run.id).unwrap())
    }
}

fn count(request: &RecordedRequest, marker: &str) -> usize {
    request.raw_body.matches(marker).count()
}

fn status(context: &ChatRunContext, file: AgentFileName) -> FileStatus {
    context.files.iter().find(|f| f.file == file).unwrap().status
}

fn files_reach(kind: RuntimeKind) {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(chat) = Chat::open(kind) else { return };

    let (turn1, saw1) = chat.turn(MESSAGES[0]);
    for request in &turn1 {
        for marker in ["SOUL-MARK", "IDENTITY-MARK", "USER-MARK", "AGENTS-MARK-v1", "BOOTSTRAP-MARK-v1"] {
            assert_eq!(count(request, marker), 1, "{kind:?} turn 1 carries {marker} once: {}", request.raw_body);
        }
        assert_eq!(count(request, "MEMORY-MARK"), 0, "{kind:?}: MEMORY.md is a pointer only");
        assert!(request.raw_body.contains("memory_get"), "{kind:?}: the pointer names the tool");
        assert_eq!(count(request, "HEARTBEAT-MARK"), 0, "{kind:?}: not a heartbeat run");
    }
    assert_eq!(status(&saw1, AgentFileName::Bootstrap), FileStatus::Sent);
    assert_eq!(status(&saw1, AgentFileName::Heartbeat), FileStatus::NotThisRun);
    let agents_md = match kind {
        RuntimeKind::Native | RuntimeKind::ClaudeCode => FileStatus::Sent,
        RuntimeKind::Codex | RuntimeKind::Hermes | RuntimeKind::Openclaw => FileStatus::ReadByRuntime,
    };
    assert_eq!(status(&saw1, AgentFileName::Agents), agents_md);

    let (turn2, saw2) = chat.turn(MESSAGES[1]);
    for request in &turn2 {
        // Once: from turn 1, in the history the session keeps; not sent again.
        assert_eq!(count(request, "BOOTSTRAP-MARK-v1"), 1, "{kind:?} turn 2: {}", request.raw_body);
        assert!(request.raw_body.contains(MESSAGES[0]), "{kind:?}: turn 2 continues the conversation");
    }
    assert_eq!(status(&saw2, AgentFileName::Bootstrap), FileStatus::AlreadyDelivered);
    assert!(!saw2.preamble.unwrap_or_default().contains("BOOTSTRAP-MARK"));

    chat.write(AgentFileName::Bootstrap, BOOTSTRAP_V2);
    let (turn3, saw3) = chat.turn(MESSAGES[2]);
    for request in &turn3 {
        assert_eq!(
            count(request, "BOOTSTRAP-MARK-v2"),
            1,
            "{kind:?} turn 3 carries the edit once: {}",
            request.raw_body
        );
    }
    assert_eq!(status(&saw3, AgentFileName::Bootstrap), FileStatus::Sent);
    assert_eq!(status(&saw3, AgentFileName::Memory), FileStatus::Sent, "the pointer goes every turn");

    chat.write(AgentFileName::Agents, AGENTS_V2);
    let (turn4, _) = chat.turn(MESSAGES[3]);
    for request in &turn4 {
        assert_eq!(
            count(request, "AGENTS-MARK-v2"),
            1,
            "{kind:?} turn 4 carries the new AGENTS.md once: {}",
            request.raw_body
        );
    }

    // Oversized USER.md: refused before anything is stored or sent.
    let before = chat.server.model_requests().len();
    let messages = chat.engine.chat().history_page(&chat.agent_id, None, 500).unwrap().messages.len();
    chat.write(AgentFileName::User, &"Sam likes bread. ".repeat(200));
    let err = chat.engine.chat().send(&chat.agent_id, MESSAGES[4]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::ContextTooLarge);
    assert!(err.to_string().starts_with("USER.md has 3,399 characters, over its budget of 2,000"), "{err}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(chat.server.model_requests().len(), before, "nothing reached the model");
    let history = chat.engine.chat().history_page(&chat.agent_id, None, 500).unwrap();
    assert_eq!(history.messages.len(), messages, "nothing was stored");
    assert!(history.runs.iter().all(|r| r.status != RunStatus::Running));
}

#[test]
fn claude_code_gets_each_file_once_in_its_slot() {
    files_reach(RuntimeKind::ClaudeCode);
}

#[test]
fn codex_gets_each_file_once_in_its_slot() {
    files_reach(RuntimeKind::Codex);
}

#[test]
fn hermes_gets_each_file_once_in_its_slot() {
    files_reach(RuntimeKind::Hermes);
}

#[test]
fn native_gets_each_file_once_in_its_slot() {
    files_reach(RuntimeKind::Native);
}

#[test]
fn openclaw_gets_each_file_once_in_its_slot() {
    files_reach(RuntimeKind::Openclaw);
}

#[test]
fn codex_runs_with_an_agents_md_over_its_own_limit_and_says_so() {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let Some(chat) = Chat::open(RuntimeKind::Codex) else { return };
    let limit = clawboo_engine::context::files::CODEX_AGENTS_LIMIT;
    let long = format!("AGENTS-LONG-START-5f1e\n{}", "Check twice. ".repeat(limit / 13 + 10));
    let chars = long.trim().chars().count();
    assert!(chars > limit);
    chat.write(AgentFileName::Agents, &long);

    let (requests, saw) = chat.turn(MESSAGES[0]);
    // Codex read it from the workspace itself: its start reached the model once.
    assert_eq!(count(&requests[0], "AGENTS-LONG-START-5f1e"), 1, "{}", requests[0].raw_body.len());
    let agents = saw.files.iter().find(|f| f.file == AgentFileName::Agents).unwrap();
    assert_eq!((agents.status, agents.budget as usize), (FileStatus::ReadByRuntime, limit));
    let note = agents.note.as_deref().expect("a line saying what Codex does with the rest");
    let said = format!(
        "AGENTS.md has {} characters, over Codex's own limit of 64,000: the run went on",
        clawboo_engine::vocab::thousands(chars)
    );
    assert!(note.starts_with(&said), "{note}");
}
