//! Many chats per agent on a real engine and SQLite store. Each chat is its own runtime session
//! on every runtime (the requests the fake model server captured: a new chat carries none of
//! the old one's turns, and the old one goes on with its own); the catalog (new, rename, pin,
//! archive, delete with Undo then purge); saved notes with the first message of every new chat;
//! `search_threads` stays scoped to the caller's own chats.
#![cfg(unix)]

mod common;

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::memory::Author;
use clawboo_engine::runtimes::{ApprovalPolicy, Capabilities, RunChannels, RunEvent, RunResult, Runtime, TurnInput};
use clawboo_engine::secrets::Provider;
use clawboo_engine::{Engine, ErrorCode};
use clawboo_testkit::{wait_for, Behavior, FakeModelServer};

const LIMIT: Duration = Duration::from_secs(180);

/// Sends `text` in `chat_id` (`None`: the agent's current chat) and waits for its run to end;
/// the chat the message went to and the run's id.
fn turn_in(engine: &Engine, agent_id: &str, chat_id: Option<&str>, text: &str) -> (String, String) {
    let sent = engine.chat().send_in(agent_id, chat_id, text).unwrap();
    let run = sent.run.expect("a run");
    let chat = sent.message.chat_id.clone();
    let done = wait_for("the run to end", LIMIT, || {
        let page = engine.chat().history_page_in(agent_id, Some(&chat), None, 50).unwrap();
        page.runs.into_iter().find(|r| r.id == run.id && r.status != RunStatus::Running)
    });
    assert_eq!(done.status, RunStatus::Succeeded, "{:?}", engine.chat().run_activity(&run.id).unwrap());
    (chat, run.id)
}

/// Three turns in chat A, a new chat B between them: every request of B's run is free of A's
/// words, A's next run still has them (its session or its carried turns), and never B's.
fn chats_are_separate_sessions(kind: RuntimeKind, model: &str, provider: Provider) {
    let server = FakeModelServer::start_blocking(Behavior::text("Noted."));
    let Some((fixture, runtimes)) = cli_fixture(kind, &server) else { return };
    let engine = fixture.open_with(runtimes);
    let agent = engine
        .agents()
        .create(NewAgent {
            name: "Ada".into(),
            model: model.into(),
            approval_policy: ApprovalPolicy::AllowAll,
            provider: Some(provider),
            ..common::new_agent("ada", kind)
        })
        .unwrap();
    let requests_of = |f: &dyn Fn() -> (String, String)| {
        let before = server.model_requests().len();
        let (chat, _) = f();
        (chat, server.model_requests()[before..].iter().map(|r| r.raw_body.clone()).collect::<Vec<_>>())
    };
    let (a, _) = requests_of(&|| turn_in(&engine, &agent.id, None, "WALRUSALPHA is the first topic."));
    let (_, a2) = requests_of(&|| turn_in(&engine, &agent.id, Some(&a), "WALRUSBETA follows it."));
    assert!(a2.iter().any(|b| b.contains("WALRUSALPHA")), "{kind:?}: chat A's second turn has its first");

    let b = engine.chat().new_chat(&agent.id).unwrap().id;
    assert_ne!(a, b);
    let (b_chat, b1) = requests_of(&|| turn_in(&engine, &agent.id, Some(&b), "PELICANGAMMA is a new topic."));
    assert_eq!(b_chat, b);
    assert!(!b1.is_empty() && b1.iter().any(|body| body.contains("PELICANGAMMA")));
    for body in &b1 {
        assert!(!body.contains("WALRUSALPHA") && !body.contains("WALRUSBETA"), "{kind:?}: chat B carried A: {body}");
    }

    let (_, a3) = requests_of(&|| turn_in(&engine, &agent.id, Some(&a), "WALRUSDELTA back in A."));
    assert!(a3.iter().any(|b| b.contains("WALRUSALPHA")), "{kind:?}: chat A goes on with its own turns");
    for body in &a3 {
        assert!(!body.contains("PELICANGAMMA"), "{kind:?}: chat A carried B: {body}");
    }
    // Each chat keeps its own messages.
    let page = |chat: &str| engine.chat().history_page_in(&agent.id, Some(chat), None, 50).unwrap().messages;
    assert_eq!(page(&a).len(), 6);
    assert_eq!(page(&b).len(), 2);
    assert!(page(&b).iter().all(|m| m.chat_id == b));
}

fn cli_fixture(
    kind: RuntimeKind,
    server: &FakeModelServer,
) -> Option<(common::Fixture, Vec<Arc<dyn clawboo_engine::runtimes::Runtime>>)> {
    common::Fixture::for_clis_on(&[kind], server, "sk-fake-chats")
}

#[test]
fn native_chats_are_separate_sessions() {
    chats_are_separate_sessions(RuntimeKind::Native, "gpt-5.5", Provider::OpenAi);
}

#[test]
fn claude_code_chats_are_separate_sessions() {
    chats_are_separate_sessions(RuntimeKind::ClaudeCode, "claude-sonnet-4-5", Provider::Anthropic);
}

#[test]
fn codex_chats_are_separate_sessions() {
    chats_are_separate_sessions(RuntimeKind::Codex, "gpt-5.5", Provider::OpenAi);
}

#[test]
fn hermes_chats_are_separate_sessions() {
    chats_are_separate_sessions(RuntimeKind::Hermes, "fake-model", Provider::Custom);
}

#[test]
fn openclaw_chats_are_separate_sessions() {
    chats_are_separate_sessions(RuntimeKind::Openclaw, "fake-model", Provider::Custom);
}

/// Records every input and answers "ok".
#[derive(Default)]
struct Recording {
    inputs: Mutex<Vec<TurnInput>>,
}

impl Runtime for Recording {
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
        self.inputs.lock().unwrap().push(input);
        Box::pin(async move {
            channels.emit(RunEvent::TextDelta { text: "ok".into() });
            Ok(RunResult::succeeded())
        })
    }
}

fn scripted() -> (common::Fixture, Engine, Arc<Recording>, String) {
    let data = common::Fixture::new();
    let runtime = Arc::new(Recording::default());
    let engine = data.open_with(vec![runtime.clone()]);
    let agent = common::add_agent(
        &engine,
        NewAgent {
            name: "Scout".into(),
            model: "some-model".into(),
            approval_policy: ApprovalPolicy::AllowAll,
            ..common::new_agent("scout", RuntimeKind::Native)
        },
    );
    (data, engine, runtime, agent)
}

#[test]
fn saved_notes_come_with_the_first_message_of_every_new_chat() {
    let (_data, engine, runtime, agent) = scripted();
    engine.memory().save_note(&agent, "SAVED-NOTE-KIWI", Author::User).unwrap();
    let preamble = |run_id: &str| {
        runtime.inputs.lock().unwrap().iter().find(|i| i.run_id == run_id).unwrap().preamble.clone().unwrap_or_default()
    };
    let (first, run) = turn_in(&engine, &agent, None, "hello");
    assert!(preamble(&run).contains("SAVED-NOTE-KIWI"), "the first chat's first message");
    let (_, run) = turn_in(&engine, &agent, Some(&first), "again");
    assert!(!preamble(&run).contains("SAVED-NOTE-KIWI"), "not on a warm turn");
    let second = engine.chat().new_chat(&agent).unwrap().id;
    let (_, run) = turn_in(&engine, &agent, Some(&second), "a new topic");
    assert!(preamble(&run).contains("SAVED-NOTE-KIWI"), "a new chat's first message");
    // `/new` typed in the composer makes a chat too; its first message has them as well.
    let made = engine.chat().send_in(&agent, Some(&second), "/new").unwrap();
    assert!(made.run.is_none());
    let third = made.message.chat_id;
    assert!(third != first && third != second);
    let (_, run) = turn_in(&engine, &agent, Some(&third), "third topic");
    assert!(preamble(&run).contains("SAVED-NOTE-KIWI"), "a /new chat's first message");
    // A message without a chat goes to the most recently used one.
    let (current, _) = turn_in(&engine, &agent, None, "where am I");
    assert_eq!(current, third);
}

#[test]
fn chats_are_listed_named_pinned_archived_and_deleted_with_undo() {
    let (_data, engine, _runtime, agent) = scripted();
    let chats = engine.chat();
    let (first, _) = turn_in(&engine, &agent, None, "Plan   the\nwalrus migration please");
    let second = chats.new_chat(&agent).unwrap();
    assert_eq!(second.title, None, "a new chat has no title until its first message");
    turn_in(&engine, &agent, Some(&second.id), "Pelican budget");
    let list = chats.chats(&agent).unwrap();
    let ids: Vec<&str> = list.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, [second.id.as_str(), first.as_str()], "most recently used first");
    assert_eq!(list[1].title.as_deref(), Some("Plan the walrus migration please"), "one line");
    assert_eq!(list[1].messages, 2);

    // Rename: the user's title stays; an empty one gives naming back to the first message.
    let renamed = chats.rename_chat(&first, "  Walrus plan ").unwrap();
    assert_eq!((renamed.title.as_deref(), renamed.title_set_by_user), (Some("Walrus plan"), true));
    turn_in(&engine, &agent, Some(&first), "more about it");
    assert_eq!(chats.chats(&agent).unwrap()[0].title.as_deref(), Some("Walrus plan"));
    let unnamed = chats.rename_chat(&first, "").unwrap();
    let named_by_message = (unnamed.title.as_deref(), unnamed.title_set_by_user);
    assert_eq!(named_by_message, (Some("Plan the walrus migration please"), false));
    chats.rename_chat(&first, "Walrus plan").unwrap();

    // Pinned on top whatever was used last; archived ones are marked, restorable.
    chats.pin_chat(&second.id, true).unwrap();
    turn_in(&engine, &agent, Some(&first), "bump");
    assert_eq!(chats.chats(&agent).unwrap()[0].id, second.id);
    let archived = chats.archive_chat(&first, true).unwrap();
    assert!(archived.archived_at.is_some());
    assert!(chats.chats(&agent).unwrap().iter().any(|c| c.id == first && c.archived_at.is_some()));
    assert_eq!(chats.archive_chat(&first, false).unwrap().archived_at, None);

    // Export saves the chat asked for, none of the agent's other chats.
    let export = |id: &str| {
        let target = clawboo_engine::history::ExportTarget::Chat { id: id.to_owned() };
        engine.export(&target, clawboo_engine::history::ExportFormat::Markdown).unwrap().contents
    };
    let second_md = export(&second.id);
    assert!(second_md.contains("Pelican budget") && !second_md.contains("walrus"), "{second_md}");
    assert!(export(&first).contains("walrus migration") && !export(&first).contains("Pelican"));

    // Delete: gone from the list, the pages and sending at once; Undo brings it back whole.
    let runs_of_first = chats.history_page_in(&agent, Some(&first), None, 50).unwrap().runs.len();
    chats.delete_chat(&first).unwrap();
    assert!(chats.chats(&agent).unwrap().iter().all(|c| c.id != first));
    assert_eq!(chats.history_page_in(&agent, Some(&first), None, 50).unwrap_err().code(), ErrorCode::NotFound);
    assert_eq!(chats.send_in(&agent, Some(&first), "hello?").unwrap_err().code(), ErrorCode::NotFound);
    let restored = chats.restore_chat(&first).unwrap();
    assert_eq!(restored.title.as_deref(), Some("Walrus plan"));
    let page = chats.history_page_in(&agent, Some(&first), None, 50).unwrap();
    assert_eq!((page.messages.len(), page.runs.len()), (6, runs_of_first));

    // Deleted again and purged: its messages and runs go, the other chat keeps all of its own.
    let other_before = chats.history_page_in(&agent, Some(&second.id), None, 50).unwrap();
    chats.delete_chat(&first).unwrap();
    assert_eq!(chats.purge_deleted_chats(i64::MAX).unwrap(), 1);
    assert_eq!(chats.restore_chat(&first).unwrap_err().code(), ErrorCode::NotFound);
    let other_after = chats.history_page_in(&agent, Some(&second.id), None, 50).unwrap();
    assert_eq!(other_before, other_after);
    for run in &other_after.runs {
        assert!(!chats.run_activity(&run.id).unwrap().is_empty(), "its Activity is kept");
    }
    let conn = rusqlite::Connection::open(engine.config().database_path()).unwrap();
    let left: i64 =
        conn.query_row("SELECT count(*) FROM messages WHERE conversation_id = ?1", [&first], |r| r.get(0)).unwrap();
    assert_eq!(left, 0);
    assert_eq!(chats.chats(&agent).unwrap().len(), 1);
}

#[test]
fn another_agents_chat_cannot_be_written_to_or_read() {
    let (_data, engine, _runtime, agent) = scripted();
    let other = common::add_agent(
        &engine,
        NewAgent {
            name: "Other".into(),
            model: "some-model".into(),
            approval_policy: ApprovalPolicy::AllowAll,
            ..common::new_agent("other", RuntimeKind::Native)
        },
    );
    let (theirs, _) = turn_in(&engine, &other, None, "private words");
    assert_eq!(engine.chat().send_in(&agent, Some(&theirs), "hi").unwrap_err().code(), ErrorCode::NotFound);
    assert_eq!(engine.chat().history_page_in(&agent, Some(&theirs), None, 50).unwrap_err().code(), ErrorCode::NotFound);
}

#[test]
fn reset_inside_a_chat_resets_that_chat_only() {
    let (_data, engine, runtime, agent) = scripted();
    let (a, _) = turn_in(&engine, &agent, None, "ALPHA words");
    let b = engine.chat().new_chat(&agent).unwrap().id;
    turn_in(&engine, &agent, Some(&b), "BETA words");
    let reset = engine.chat().send_in(&agent, Some(&a), "/reset").unwrap();
    assert_eq!(reset.message.chat_id, a);
    let (_, run) = turn_in(&engine, &agent, Some(&a), "after reset");
    let (_, run_b) = turn_in(&engine, &agent, Some(&b), "still B");
    let inputs = runtime.inputs.lock().unwrap();
    let input = |id: &str| inputs.iter().find(|i| i.run_id == id).unwrap().clone();
    assert!(input(&run).transcript.is_empty(), "A starts over");
    // (a carried user turn keeps the workspace files it went out with in front of it)
    let carried: Vec<String> = input(&run_b).transcript.iter().map(|t| t.user.to_string()).collect();
    assert_eq!(carried.len(), 1, "{carried:?}");
    assert!(carried[0].ends_with("BETA words") && !carried[0].contains("ALPHA"), "B keeps its own turns only");
}
