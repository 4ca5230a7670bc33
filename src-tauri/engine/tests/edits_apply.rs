//! Edits always apply: SOUL.md edited between turns 2 and 3 of a one-to-one chat reaches turn
//! 3's model requests on every runtime (the new persona exactly once, the old one absent), and
//! turn 3 still carries the conversation. Each test drives the engine's chat service with the
//! real, pinned CLI (or Native) against the fake model server. A fourth turn proves the session
//! that took the edit is the one resumed next. Skipped when a CLI is not installed (see
//! `common::cli`); one runtime at a time, as OpenClaw's Gateway is CPU-heavy at start-up.
#![cfg(unix)]

mod common;

use std::sync::Mutex;
use std::time::Duration;

use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::chat::{RunStatus, RunSummary};
use clawboo_engine::runtimes::RunEvent;
use clawboo_engine::Engine;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, RecordedRequest};

const OLD: &str = "OLD-PERSONA-5e1f0a";
const NEW: &str = "NEW-PERSONA-9b2c7d";
const MESSAGES: [&str; 4] =
    ["first-message-a11ce", "second-message-b0b22", "third-message-c4r0l", "fourth-message-d4v1d"];
/// One turn, including a Gateway's start-up on a busy machine.
const TURN_LIMIT: Duration = Duration::from_secs(240);

static SERIAL: Mutex<()> = Mutex::new(());

struct Chat {
    engine: Engine,
    agent_id: String,
    _fixture: common::Fixture,
}

impl Chat {
    fn open(kind: RuntimeKind, server: &FakeModelServer) -> Option<Chat> {
        let common::ChatEngine { engine, agent_id, fixture } = common::chat_engine(kind, server, "sk-fake-edits")?;
        let chat = Chat { engine, agent_id, _fixture: fixture };
        chat.set_soul(&format!("You are Scout, a careful researcher. {OLD}"));
        Some(chat)
    }

    fn set_soul(&self, text: &str) {
        self.engine.agents().write_file(&self.agent_id, "SOUL.md", text).unwrap();
    }

    /// Sends a message and waits for its run to succeed; returns the run and its activity.
    fn turn(&self, text: &str) -> (RunSummary, Vec<RunEvent>) {
        let run = self.engine.chat().send(&self.agent_id, text).unwrap().run.expect("a run");
        let done = wait_for("the run to finish", TURN_LIMIT, || {
            let history = self.engine.chat().history_page(&self.agent_id, None, 500).unwrap();
            history.runs.into_iter().find(|r| r.id == run.id && r.status != RunStatus::Running)
        });
        let activity: Vec<RunEvent> =
            self.engine.chat().run_activity(&run.id).unwrap().into_iter().map(|r| r.event).collect();
        assert_eq!(done.status, RunStatus::Succeeded, "{text}: {done:?} {activity:#?}");
        (done, activity)
    }
}

/// What turn 3 said about the edit, and the runtime session of each turn.
struct Outcome {
    notices: Vec<String>,
    sessions: Vec<Option<String>>,
}

impl Outcome {
    /// Whether turn `a` and turn `b` (1-based) ran in the same runtime session.
    fn same_session(&self, a: usize, b: usize) -> bool {
        let (a, b) = (&self.sessions[a - 1], &self.sessions[b - 1]);
        assert!(a.is_some() && b.is_some(), "both turns report a session");
        a == b
    }
}

fn session_of(activity: &[RunEvent]) -> Option<String> {
    activity.iter().rev().find_map(|e| match e {
        RunEvent::SessionStarted { session_id } => Some(session_id.clone()),
        _ => None,
    })
}

fn notices(activity: &[RunEvent]) -> Vec<String> {
    activity
        .iter()
        .filter_map(|e| match e {
            RunEvent::Warning { message } if message.contains("changed since this") => Some(message.clone()),
            _ => None,
        })
        .collect()
}

/// The model requests of one turn: those carrying its message (auxiliary calls, such as
/// Hermes' title generation, carry no persona and are checked apart).
fn carrying<'a>(requests: &'a [RecordedRequest], message: &str) -> Vec<&'a RecordedRequest> {
    requests.iter().filter(|r| r.raw_body.contains(message)).collect()
}

/// Runs the four turns on `kind` and checks what every runtime must do; returns what the
/// runtime-specific checks need.
fn edits_apply(kind: RuntimeKind) -> Option<Outcome> {
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let server = FakeModelServer::start_blocking(Behavior::text("Noted."));
    let chat = Chat::open(kind, &server)?;

    let (_, first) = chat.turn(MESSAGES[0]);
    let (_, second) = chat.turn(MESSAGES[1]);
    assert!(notices(&first).is_empty() && notices(&second).is_empty(), "nothing changed yet");
    for request in carrying(&server.model_requests(), MESSAGES[1]) {
        assert_eq!(request.raw_body.matches(OLD).count(), 1, "turn 2 has the persona once");
    }

    chat.set_soul(&format!("You are Scout, now terse. {NEW}"));
    let before = server.model_requests().len();
    let (_, third) = chat.turn(MESSAGES[2]);
    let requests = server.model_requests().split_off(before);
    assert!(!requests.is_empty(), "turn 3 called the model");
    for request in &requests {
        assert!(!request.raw_body.contains(OLD), "no request of turn 3 carries the old persona: {}", request.raw_body);
    }
    let main = carrying(&requests, MESSAGES[2]);
    assert!(!main.is_empty(), "a request of turn 3 carries its message");
    for request in &main {
        assert_eq!(request.raw_body.matches(NEW).count(), 1, "the new persona once: {}", request.raw_body);
        for earlier in &MESSAGES[..2] {
            assert!(request.raw_body.contains(earlier), "turn 3 carries the earlier {earlier}: {}", request.raw_body);
        }
    }
    let third_notices = notices(&third);

    let before = server.model_requests().len();
    let (_, fourth) = chat.turn(MESSAGES[3]);
    assert!(notices(&fourth).is_empty(), "the session that took the edit is resumed as it is: {fourth:#?}");
    let requests = server.model_requests().split_off(before);
    let main = carrying(&requests, MESSAGES[3]);
    assert!(!main.is_empty());
    for request in main {
        assert_eq!(request.raw_body.matches(NEW).count(), 1);
        assert!(!request.raw_body.contains(OLD));
        for earlier in &MESSAGES[..3] {
            assert!(request.raw_body.contains(earlier), "turn 4 carries {earlier}");
        }
    }
    let sessions = [&first, &second, &third, &fourth].iter().map(|a| session_of(a)).collect();
    Some(Outcome { notices: third_notices, sessions })
}

#[test]
fn claude_code_applies_an_edit_on_resume() {
    let Some(outcome) = edits_apply(RuntimeKind::ClaudeCode) else { return };
    assert!(outcome.notices.is_empty(), "Claude Code keeps resuming: {:?}", outcome.notices);
    assert!(outcome.same_session(2, 3) && outcome.same_session(3, 4), "one session throughout");
}

#[test]
fn codex_starts_a_fresh_thread_carrying_the_conversation() {
    let Some(outcome) = edits_apply(RuntimeKind::Codex) else { return };
    assert!(!outcome.same_session(2, 3), "turn 3 ran in a fresh thread");
    assert!(outcome.same_session(3, 4), "turn 4 resumed it");
    assert_eq!(
        outcome.notices,
        ["SOUL.md changed since this Codex session started: started a fresh session carrying the conversation \
          forward (4 earlier messages)."]
    );
}

#[test]
fn hermes_forks_its_session() {
    let Some(outcome) = edits_apply(RuntimeKind::Hermes) else { return };
    assert!(!outcome.same_session(2, 3), "turn 3 ran in the forked session");
    assert!(outcome.same_session(3, 4), "turn 4 resumed the fork");
    let notices = outcome.notices;
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(notices[0].starts_with("SOUL.md changed since this Hermes session started: continued in a new session"));
}

#[test]
fn openclaw_applies_an_edit_on_resume() {
    let Some(outcome) = edits_apply(RuntimeKind::Openclaw) else { return };
    assert!(outcome.notices.is_empty(), "OpenClaw keeps resuming: {:?}", outcome.notices);
    assert!(outcome.same_session(2, 3) && outcome.same_session(3, 4), "one Gateway session throughout");
}

#[test]
fn native_applies_an_edit_on_the_next_turn() {
    let Some(outcome) = edits_apply(RuntimeKind::Native) else { return };
    assert!(outcome.notices.is_empty(), "{:?}", outcome.notices);
}
