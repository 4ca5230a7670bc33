//! Retry, edit and resend, and read marks, on a real engine and SQLite store against the fake
//! model server: the run a retry or an edit starts carries the earlier exchanges but never the
//! one it replaced (proved on the captured request bodies, for Native, which Clawboo carries the
//! history of, and for Claude Code and Codex, whose session held the replaced exchange and so is
//! started afresh); the replaced messages stay in the store, marked, out of search; and a
//! conversation's or a room's read mark clears its unread count and survives a restart.
#![cfg(unix)]

mod common;

use std::time::Duration;

use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::chat::{ChatMessage, ReadThreadKind, RunStatus};
use clawboo_engine::{Engine, ErrorCode};
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, RecordedRequest, Reply};

const LIMIT: Duration = Duration::from_secs(180);
const FIRST: &str = "Where do penguins live?";
const FIRST_REPLY: &str = "Mostly ANTARCTICFACT, on the ice.";
const SECOND: &str = "How cold is it there?";
const SECOND_REPLY: &str = "Bitterly FROSTYFACT, minus forty.";
const EDITED: &str = "How windy is it there?";
const EDITED_REPLY: &str = "Very GUSTYFACT, katabatic winds.";

/// Newest question first: a fresh session's carried conversation rides in the same user text as
/// the new message (Claude Code), and the rule for the new message must win.
fn behavior() -> Behavior {
    Behavior::text("(unscripted)")
        .when(EDITED, vec![Reply::Text(EDITED_REPLY.into())])
        .when(SECOND, vec![Reply::Text(SECOND_REPLY.into())])
        .when(FIRST, vec![Reply::Text(FIRST_REPLY.into())])
}

fn wait_run(engine: &Engine, agent_id: &str, run_id: &str) {
    let done = wait_for("the run to end", LIMIT, || {
        let page = engine.chat().history_page(agent_id, None, 100).unwrap();
        page.runs.into_iter().find(|r| r.id == run_id && r.status != RunStatus::Running)
    });
    assert_eq!(done.status, RunStatus::Succeeded, "{:?}", engine.chat().run_activity(run_id).unwrap());
}

fn send(engine: &Engine, agent_id: &str, text: &str) -> ChatMessage {
    let sent = engine.chat().send(agent_id, text).unwrap();
    wait_run(engine, agent_id, &sent.run.unwrap().id);
    sent.message
}

/// The model requests made since `from`, their bodies as sent.
fn bodies_since(server: &FakeModelServer, from: usize) -> Vec<String> {
    server.model_requests().into_iter().skip(from).map(|r: RecordedRequest| r.raw_body).collect()
}

fn messages(engine: &Engine, agent_id: &str) -> Vec<ChatMessage> {
    engine.chat().history_page(agent_id, None, 100).unwrap().messages
}

/// Two exchanges, then a retry of the second, then an edit of it: what each new run was sent,
/// what the store keeps, what search finds.
fn retry_then_edit(kind: RuntimeKind) {
    let server = FakeModelServer::start_blocking(behavior());
    let Some(chat) = common::chat_engine(kind, &server, "sk-fake-actions") else { return };
    let (engine, agent) = (&chat.engine, chat.agent_id.as_str());

    send(engine, agent, FIRST);
    let second = send(engine, agent, SECOND);
    // Only the user's last message can be retried or edited.
    let first_id = messages(engine, agent)[0].id.clone();
    assert_eq!(engine.chat().retry(&first_id).unwrap_err().code(), ErrorCode::Conflict);

    let before = server.model_requests().len();
    let retried = engine.chat().retry(&second.id).unwrap();
    assert_eq!(retried.message.content, SECOND);
    wait_run(engine, agent, &retried.run.unwrap().id);
    let sent = bodies_since(&server, before);
    assert!(!sent.is_empty());
    for body in &sent {
        assert!(!body.contains("FROSTYFACT"), "{kind:?}: the replaced reply rode along: {body}");
        assert_eq!(body.matches(SECOND).count(), 1, "{kind:?}: the message went once, as the new turn: {body}");
    }
    assert!(
        sent.iter().any(|b| b.contains("ANTARCTICFACT") && b.contains(FIRST)),
        "{kind:?}: the first exchange is carried: {sent:?}"
    );

    let before = server.model_requests().len();
    let edited = engine.chat().edit_and_resend(&retried.message.id, EDITED).unwrap();
    wait_run(engine, agent, &edited.run.unwrap().id);
    let sent = bodies_since(&server, before);
    for body in &sent {
        assert!(
            !body.contains("FROSTYFACT") && !body.contains(SECOND),
            "{kind:?}: the edited-away exchange rode along: {body}"
        );
    }
    assert!(sent.iter().any(|b| b.contains("ANTARCTICFACT") && b.contains(EDITED)), "{kind:?}: {sent:?}");

    // Nothing is lost: every message is kept, the replaced ones marked, in order.
    let all = messages(engine, agent);
    let shown: Vec<(&str, bool)> = all.iter().map(|m| (m.content.as_str(), m.superseded)).collect();
    assert_eq!(
        shown,
        [
            (FIRST, false),
            (FIRST_REPLY, false),
            (SECOND, true),
            (SECOND_REPLY, true),
            (SECOND, true),
            (SECOND_REPLY, true),
            (EDITED, false),
            (EDITED_REPLY, false),
        ],
        "{kind:?}"
    );

    // Search everything and the agent's search_threads find only what stands.
    let found = |q: &str| {
        engine
            .search(q)
            .unwrap()
            .into_iter()
            .filter(|f| matches!(f, clawboo_engine::history::Found::Message(_)))
            .count()
    };
    assert_eq!(found("frostyfact"), 0, "{kind:?}: a replaced reply is out of search");
    assert_eq!(found("gustyfact"), 1);
    assert_eq!(found("antarcticfact"), 1);
    let db = rusqlite::Connection::open(chat.fixture.data_dir().join("clawboo.db")).unwrap();
    let threads = clawboo_engine::history::for_agent(&db, agent, "no-run", "frostyfact", 10).unwrap();
    assert!(threads.starts_with("No message"), "{kind:?}: {threads}");
    let threads = clawboo_engine::history::for_agent(&db, agent, "no-run", "gustyfact", 10).unwrap();
    assert!(threads.contains("GUSTYFACT"), "{kind:?}: {threads}");
}

#[test]
fn native_retry_and_edit_send_the_transcript_without_the_replaced_exchange() {
    retry_then_edit(RuntimeKind::Native);
}

#[test]
fn claude_code_retry_and_edit_start_a_fresh_session_without_the_replaced_exchange() {
    retry_then_edit(RuntimeKind::ClaudeCode);
}

#[test]
fn codex_retry_and_edit_start_a_fresh_session_without_the_replaced_exchange() {
    retry_then_edit(RuntimeKind::Codex);
}

#[test]
fn replies_are_unread_until_their_chat_or_room_is_read_and_the_mark_survives_a_restart() {
    let server = FakeModelServer::start_blocking(behavior());
    let chat = common::chat_engine(RuntimeKind::Native, &server, "sk-fake-actions").unwrap();
    let agent = chat.agent_id.clone();
    {
        let engine = &chat.engine;
        assert!(engine.chat().unread().unwrap().is_empty());
        send(engine, &agent, FIRST);
        let conversation = engine.chat().history_page(&agent, None, 10).unwrap().conversation_id.unwrap();
        let unread = engine.chat().unread().unwrap();
        assert_eq!(unread.len(), 1, "{unread:?}");
        assert_eq!(
            (unread[0].kind, unread[0].id.as_str(), unread[0].agent_id.as_deref(), unread[0].count),
            (ReadThreadKind::Chat, conversation.as_str(), Some(agent.as_str()), 1)
        );
        let mut events = engine.events().subscribe();
        engine.chat().mark_read(ReadThreadKind::Chat, &conversation).unwrap();
        assert!(engine.chat().unread().unwrap().is_empty());
        assert_eq!(read_marks_said(&mut events), 1);
        // Reading again changes nothing and says nothing.
        engine.chat().mark_read(ReadThreadKind::Chat, &conversation).unwrap();
        assert_eq!(read_marks_said(&mut events), 0);
        send(engine, &agent, SECOND);
        assert_eq!(engine.chat().unread().unwrap()[0].count, 1);
        assert_eq!(engine.chat().mark_read(ReadThreadKind::Chat, "nope").unwrap_err().code(), ErrorCode::NotFound);

        // A team room: the leader's reply is unread until the room is read.
        let team = common::chat_team(engine, "Polar", std::slice::from_ref(&agent), "I study penguins.");
        let sent = engine.chat().send_team(&team.general, FIRST).unwrap();
        let _ = sent;
        wait_for("the room's reply", LIMIT, || {
            engine.chat().unread().unwrap().into_iter().find(|u| u.kind == ReadThreadKind::Room && u.id == team.general)
        });
        engine.chat().mark_read(ReadThreadKind::Room, &team.general).unwrap();
        let unread = engine.chat().unread().unwrap();
        assert!(unread.iter().all(|u| u.kind == ReadThreadKind::Chat), "{unread:?}");
    }
    // Wait for the team's work to settle, then reopen the same data folder.
    wait_for("team work to settle", LIMIT, || (!chat.engine.chat().has_work()).then_some(()));
    let ChatEngine { engine, fixture, .. } = chat;
    drop(engine);
    let (runtime, _, _) = common::chat_adapter(RuntimeKind::Native, &server, "sk-fake-actions").unwrap();
    let engine = fixture.open_with(vec![runtime]);
    let unread = engine.chat().unread().unwrap();
    assert_eq!(unread.len(), 1, "only the chat's second reply is unread after the restart: {unread:?}");
    assert_eq!((unread[0].kind, unread[0].count), (ReadThreadKind::Chat, 1));
}

use common::ChatEngine;

/// How many `ReadMarksChanged` were published since the last look. The run's own last events
/// (its `RunChanged` to succeeded) may still arrive after its reply is stored: not counted.
fn read_marks_said(events: &mut clawboo_engine::EventReceiver) -> usize {
    std::iter::from_fn(|| events.try_recv().ok())
        .filter(|event| *event == clawboo_engine::EngineEvent::ReadMarksChanged)
        .count()
}
