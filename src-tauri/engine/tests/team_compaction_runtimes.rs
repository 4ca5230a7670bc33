//! Issue #24, item 9, on a team turn with a real CLI on the fake model server: when the runtime
//! compacts the room's session, BOOTSTRAP.md and the scratch notes go again with the next team
//! turn (the same session resumed), and its captured request carries them; then not again.
//!
//! Codex only: of the runtimes that report compaction (Claude Code and Codex), it alone keeps a
//! leader's room session across team turns (`TurnHistory::ContinueRoom`); a Claude Code team
//! turn starts a fresh session each time, which gets both anyway. The fake server reports a
//! window over full, so Codex compacts on its own before its next turn (`thread/compacted`).
#![cfg(unix)]

mod common;

use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::chat::team::RunContext;
use clawboo_engine::chat::RunStatus;
use clawboo_engine::context::SectionKind;
use clawboo_engine::memory::ScratchScope;
use clawboo_engine::runtimes::{ApprovalPolicy, RunEvent};
use clawboo_engine::secrets::Provider;
use clawboo_engine::Engine;
use clawboo_testkit::{last_user_text, wait_for, Behavior, FakeModelServer};

const LIMIT: Duration = Duration::from_secs(300);
const KEY: &str = "sk-fake-compaction";

/// The user says `text` in the room; its leader answers. What the leader's run was given.
fn turn(engine: &Engine, room: &str, lead: &str, text: &str) -> RunContext {
    let before = engine.chat().room_runs(room, 100).unwrap().len();
    engine.chat().send_team(room, text).unwrap();
    let run = wait_for("the leader's run to end", LIMIT, || {
        let runs = engine.chat().room_runs(room, 100).unwrap();
        runs.last().filter(|r| runs.len() > before && r.status != RunStatus::Running).cloned()
    });
    assert_eq!(run.agent_id, lead);
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", engine.chat().run_activity(&run.id).unwrap());
    engine.chat().run_context(&run.id).unwrap()
}

fn files_of(context: &RunContext) -> String {
    context.sections.iter().filter(|s| s.kind == SectionKind::WorkspaceFiles).map(|s| s.text.clone()).collect()
}

/// What the first captured request of a turn sent as the turn's own input: its last user
/// message (the thread's history before it, kept or compacted, is Codex's).
fn turn_input(server: &FakeModelServer, message: &str) -> String {
    let inputs = server.model_requests().into_iter().filter_map(|r| last_user_text(&r.body));
    inputs.map(|(text, _)| text).find(|text| text.contains(message)).expect("the turn's request was captured")
}

#[test]
fn after_codex_compacts_a_team_session_bootstrap_and_scratch_notes_go_again() {
    let server = FakeModelServer::start_blocking(Behavior::text("LEAD-OK noted."));
    let Some((fixture, runtimes)) = common::Fixture::for_clis_on(&[RuntimeKind::Codex], &server, KEY) else {
        return;
    };
    let engine = fixture.open_with(runtimes);
    let leader = NewAgent {
        name: "LEAD".into(),
        model: "gpt-5.5".into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider: Some(Provider::OpenAi),
        ..common::new_agent("lead", RuntimeKind::Codex)
    };
    let lead = common::add_agent(&engine, leader);
    engine.agents().write_file(&lead, "BOOTSTRAP.md", "Say hello first. BOOT-CX").unwrap();
    engine.memory().scratch_add(ScratchScope::Global, "Ovens on Fridays. SCRATCH-CX").unwrap();
    let general = common::chat_team(&engine, "Bakery", std::slice::from_ref(&lead), "I am Ada.").general;
    let carries = |message: &str| {
        let body = turn_input(&server, message);
        (body.contains("BOOT-CX"), body.contains("SCRATCH-CX"))
    };

    // Turn 1: a new session gets both; the answer says the window is over full.
    server.report_input_tokens(400_000);
    let first = turn(&engine, &general, &lead, "TURN-ONE hello");
    assert!(files_of(&first).contains("BOOT-CX"), "{:?}", first.sections);
    assert_eq!(carries("TURN-ONE"), (true, true), "a new session gets both");
    server.report_input_tokens(1_000);

    // Turn 2: the session holds both; Codex compacts it before answering.
    let second = turn(&engine, &general, &lead, "TURN-TWO again");
    assert_eq!(files_of(&second), "", "the session held BOOTSTRAP.md");
    assert_eq!(carries("TURN-TWO"), (false, false), "the session held both");

    // Turn 3: the same thread, compacted: both go again and reach the model.
    let third = turn(&engine, &general, &lead, "TURN-THREE once more");
    assert!(files_of(&third).contains("BOOT-CX"), "BOOTSTRAP.md given again: {:?}", third.sections);
    assert_eq!(carries("TURN-THREE"), (true, true), "both reached the model again");
    let threads: Vec<String> = engine
        .chat()
        .room_runs(&general, 10)
        .unwrap()
        .iter()
        .flat_map(|run| engine.chat().run_activity(&run.id).unwrap())
        .filter_map(|row| match row.event {
            RunEvent::SessionStarted { session_id } => Some(session_id),
            _ => None,
        })
        .collect();
    assert_eq!(threads.len(), 3);
    assert!(threads.iter().all(|t| *t == threads[0]), "one thread, resumed: {threads:?}");

    // Turn 4: held again.
    let fourth = turn(&engine, &general, &lead, "TURN-FOUR last");
    assert_eq!(files_of(&fourth), "");
    assert_eq!(carries("TURN-FOUR"), (false, false), "the compacted session holds both again");
}
