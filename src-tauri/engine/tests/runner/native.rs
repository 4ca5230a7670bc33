//! A Native agent on the fake model server (through the relay, with the keychain's key: run
//! under scripts/with-test-keyring on Linux): the request carries the steady tier in the system
//! prompt and the other tiers in front of the title, in order, with the memory facts and their
//! ids; the facts given are recorded as cited by the run.

use clawboo_engine::agents::{Agent, NewAgent, RuntimeKind};
use clawboo_engine::board::{Actor, Card, CardStatus, CommentKind, NewCard};
use clawboo_engine::memory::{Author, FactInput, Scope};
use clawboo_engine::runner::StartOptions;
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::secrets::Provider;
use clawboo_engine::Engine;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, Reply};
use std::time::Duration;

use super::common;

#[test]
fn a_native_run_gets_the_tiers_in_order_with_the_memory_facts_which_are_then_cited() {
    let server = FakeModelServer::start_blocking(Behavior::text("Deployed with scripts/ship.sh [m-0000]."));
    let (_dir, engine, agent) = native_engine(&server, "shipper", ApprovalPolicy::Ask);
    let fact = engine
        .memory()
        .save(
            FactInput { text: "The deploy script is scripts/ship.sh".into(), scope: Scope::Global, tags: vec![] },
            Author::User,
        )
        .unwrap()
        .fact;
    let card = card_for(&engine, &agent, "Deploy the release", "Run the deploy script for version 2.");

    let run_id = engine.runner().start(&card.id, StartOptions::default()).unwrap().run_id;
    let done = wait_for("the card to leave In progress", Duration::from_secs(30), || {
        let card = engine.board().get(&card.id).unwrap();
        (card.status != CardStatus::InProgress).then_some(card)
    });
    assert_eq!(done.status, CardStatus::InReview, "{:?}", done.blocked_reason);

    let request = &server.model_requests()[0];
    let system = request.body["system"][0]["text"].as_str().unwrap();
    assert!(system.contains("## Task #1: Deploy the release\nRun the deploy script for version 2."), "{system}");
    let messages = request.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "a fresh session");
    let text = messages[0]["content"][0]["text"].as_str().unwrap();
    let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle:?} in {text}"));
    assert!(at("## Clawboo tools") < at("## Memory"), "context tier, then the memory facts");
    assert!(at(&format!("- [{}] The deploy script is scripts/ship.sh", fact.id)) > at("## Memory"));
    assert!(text.ends_with("\n\nDeploy the release"), "the title last: {text}");
    assert!(!text.contains("Run the deploy script for version 2."), "the steady tier is in the system prompt only");

    let recorded = wait_for("the relay's record", Duration::from_secs(10), || {
        let records = engine.relay().requests(&run_id).unwrap();
        (!records.is_empty()).then_some(records)
    });
    assert_eq!(recorded[0].body.as_deref(), Some(request.raw_body.as_str()), "the exact request, under the run");
    let seen = engine.runner().run_context(&run_id).unwrap();
    assert_eq!(seen.cited, std::slice::from_ref(&fact.id));
    let citations = wait_for("the citation", Duration::from_secs(5), || {
        let citations = engine.memory().detail(&fact.id).unwrap().citations;
        (!citations.is_empty()).then_some(citations)
    });
    assert_eq!(citations[0].run_id, run_id);
    assert_eq!(citations[0].agent_id, agent.id);
    let report = engine.board().detail(&card.id).unwrap().comments;
    assert!(report.iter().any(|c| c.kind == CommentKind::Report && c.text.starts_with("Deployed")));

    // Memory injection off: no facts, nothing cited by that run.
    engine.board().move_card(Actor::User, &card.id, CardStatus::Todo, None, None).unwrap();
    let second = engine.runner().start(&card.id, StartOptions { disable_memory_auto_inject: true }).unwrap().run_id;
    wait_for("the second run", Duration::from_secs(30), || {
        (engine.board().get(&card.id).unwrap().status != CardStatus::InProgress).then_some(())
    });
    let seen = engine.runner().run_context(&second).unwrap();
    assert!(seen.cited.is_empty());
    assert!(!seen.preamble.unwrap_or_default().contains("## Memory"));
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}

/// The model keeps calling a tool and every answer reports 180,000 input tokens: more than 85%
/// of Native's 200,000-token window. Each session stops there and the task goes on in a fresh
/// one whose request carries the hand-off note; after the 3rd restart the card is blocked.
#[test]
fn a_native_run_filling_its_window_restarts_with_a_hand_off_note_and_blocks_after_three_restarts() {
    let keep_working = Reply::ToolCall { name: "list_files".into(), input: serde_json::json!({"path": "."}) };
    let server = FakeModelServer::start_blocking(Behavior {
        on_user: keep_working.clone(),
        on_tool_result: keep_working,
        rules: Vec::new(),
    });
    server.report_input_tokens(180_000);
    let (_dir, engine, agent) = native_engine(&server, "indexer", ApprovalPolicy::AllowAll);
    let card = card_for(&engine, &agent, "Index every file", "List the files and index them.");

    engine.runner().start(&card.id, StartOptions::default()).unwrap();
    let blocked = wait_for("the card to leave In progress", Duration::from_secs(60), || {
        let card = engine.board().get(&card.id).unwrap();
        (card.status != CardStatus::InProgress).then_some(card)
    });
    assert_eq!(blocked.status, CardStatus::Blocked);
    assert!(
        blocked.blocked_reason.as_deref().unwrap().contains("Ran out of room 4 times"),
        "{:?}",
        blocked.blocked_reason
    );
    let runs = engine.board().runs(&card.id).unwrap();
    let kinds: Vec<_> = runs.iter().map(|r| r.kind).collect();
    use clawboo_engine::board::CardRunKind::{Rotation, Run};
    assert_eq!(kinds, [Run, Rotation, Rotation, Rotation], "three restarts, then blocked");

    // Every session is fresh: its first request holds one user message; from the second session
    // on, that message carries the hand-off note, and the system prompt (steady tier) never changes.
    let firsts: Vec<_> = server
        .model_requests()
        .into_iter()
        .filter(|r| r.body["messages"].as_array().is_some_and(|m| m.len() == 1))
        .collect();
    assert_eq!(firsts.len(), 4, "one fresh session per run");
    let system = |r: &clawboo_testkit::RecordedRequest| r.body["system"].to_string();
    assert!(firsts.iter().all(|r| system(r) == system(&firsts[0])), "the steady tier is byte-identical");
    let first_text =
        |r: &clawboo_testkit::RecordedRequest| r.body["messages"][0]["content"][0]["text"].as_str().unwrap().to_owned();
    assert!(!first_text(&firsts[0]).contains("hand-off"), "no note before the first restart");
    for (i, request) in firsts.iter().enumerate().skip(1) {
        let note = engine.runner().run_context(&runs[i].run_id).unwrap();
        let section = note
            .sections
            .iter()
            .find(|s| s.kind == clawboo_engine::context::SectionKind::HandoffNote)
            .unwrap_or_else(|| panic!("session {} has a hand-off note", i + 1));
        assert!(first_text(request).contains(&section.text), "the request carries the note as stored");
    }
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}

/// An engine on a fresh data dir whose Anthropic key and base URL point at `server`, with one
/// Native agent (`handle`) on it.
fn native_engine(server: &FakeModelServer, handle: &str, policy: ApprovalPolicy) -> (common::Fixture, Engine, Agent) {
    let fixture = common::Fixture::new().keychain(&format!("runner-native-{handle}"));
    let engine = fixture.open();
    engine.secrets().set_api_key(Provider::Anthropic, "sk-ant-runner-test-9a1b").unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    let agent = engine
        .agents()
        .create(NewAgent {
            name: handle.to_uppercase(),
            model: "some-model".into(),
            approval_policy: policy,
            provider: Some(Provider::Anthropic),
            ..common::new_agent(handle, RuntimeKind::Native)
        })
        .unwrap();
    (fixture, engine, agent)
}

/// A card for `agent`, in To do.
fn card_for(engine: &Engine, agent: &Agent, title: &str, description: &str) -> Card {
    engine
        .board()
        .create(
            Actor::User,
            NewCard {
                title: title.into(),
                description: description.into(),
                assignee_id: Some(agent.id.clone()),
                team_id: None,
                status: None,
                priority: None,
                depends_on: vec![],
                check_command: None,
                project_folder: None,
            },
        )
        .unwrap()
}
