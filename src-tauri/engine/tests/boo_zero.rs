//! Boo Zero over real SQLite, with a Native Boo Zero on the fake model server: made once on
//! first start and kept by id; never deleted; its rules on every request; `@TeamName` adds that
//! team's brief, open cards, team memory and recent General chat to that message only, within
//! budget, never carried into the next turn; the global brief reaches no request.

mod common;

use std::time::Duration;

use clawboo_engine::agents::{AgentPatch, NewAgent, RuntimeKind};
use clawboo_engine::board::{Actor, CardStatus, NewCard};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::context::boo_zero::{TEAM_BRIEF_BUDGET, TEAM_CARDS_BUDGET, TEAM_CHAT_BUDGET, TEAM_MEMORY_BUDGET};
use clawboo_engine::memory::{Author, FactInput, Scope};
use clawboo_engine::runtimes::{ApprovalPolicy, RunEvent};
use clawboo_engine::secrets::Provider;
use clawboo_engine::teams::NewTeam;
use clawboo_engine::vocab::RoomMessageKind;
use clawboo_engine::{Engine, ErrorCode};
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, RecordedRequest};
use common::Fixture;
use serde_json::Value;

const LIMIT: Duration = Duration::from_secs(30);
const GLOBAL_BRIEF: &str = "GLOBAL-BRIEF-MARKER: my own notes, for no agent.";
const RULES: &str = "RULES-MARKER: answer in one line.";

fn native(handle: &str) -> NewAgent {
    NewAgent {
        name: handle.to_uppercase(),
        model: "claude-sonnet-4-5".into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider: Some(Provider::Anthropic),
        ..common::new_agent(handle, RuntimeKind::Native)
    }
}

/// Native (Boo Zero's runtime here) on the fake model server.
fn open(fixture: &Fixture, server: &FakeModelServer) -> Engine {
    fixture.open_with(vec![common::native_runtime(server.base_url(), "sk-fake-boo")])
}

/// A team with a leader, a brief, cards (one open, one cancelled), team facts and a General
/// exchange (the leader answering on the fake model). `tag` marks everything it owns.
fn team(engine: &Engine, name: &str, tag: &str, brief: String) -> String {
    let lead = engine.agents().create(native(&format!("lead-{}", tag.to_lowercase()))).unwrap();
    let team = engine
        .teams()
        .create(NewTeam { name: name.into(), member_ids: vec![lead.id.clone()], leader_id: None })
        .unwrap();
    engine.teams().set_brief(&team.id, &brief).unwrap();
    engine.teams().set_about_you(&team.id, "I am the user.").unwrap();
    let card = |title: String| NewCard {
        title,
        description: String::new(),
        assignee_id: Some(lead.id.clone()),
        team_id: Some(team.id.clone()),
        status: Some(CardStatus::Backlog),
        priority: None,
        depends_on: Vec::new(),
        check_command: None,
        project_folder: None,
    };
    engine.board().create(Actor::User, card(format!("{tag}-CARD-OPEN"))).unwrap();
    let closed = engine.board().create(Actor::User, card(format!("{tag}-CARD-CANCELLED"))).unwrap();
    engine.board().move_card(Actor::User, &closed.id, CardStatus::Cancelled, None, None).unwrap();
    let fact = |text: String| FactInput { text, scope: Scope::Team { team_id: team.id.clone() }, tags: vec![] };
    engine.memory().save(fact(format!("{tag}-FACT: deploys on Fridays.")), Author::User).unwrap();
    let general = team.general().unwrap().id.clone();
    engine.chat().send_team(&general, &format!("{tag}-CHAT-MARKER: where are we?")).unwrap();
    wait_for("the leader's reply", LIMIT, || {
        let page = engine.chat().room_page(&general, None, 50).unwrap();
        let runs = engine.chat().room_runs(&general, 50).unwrap();
        (page.messages.iter().any(|m| m.kind == RoomMessageKind::Reply)
            && runs.iter().all(|r| r.status != RunStatus::Running))
        .then_some(())
    });
    team.id
}

/// Sends to Boo Zero and waits; the run's id and the model requests it made.
fn ask(engine: &Engine, server: &FakeModelServer, boo: &str, text: &str) -> (String, Vec<RecordedRequest>) {
    let before = server.model_requests().len();
    let run = engine.chat().send(boo, text).unwrap().run.unwrap();
    let done = wait_for("Boo Zero's run", LIMIT, || {
        engine
            .chat()
            .history_page(boo, None, 50)
            .unwrap()
            .runs
            .into_iter()
            .find(|r| r.id == run.id && r.status != RunStatus::Running)
    });
    assert_eq!(done.status, RunStatus::Succeeded, "{:?}", engine.chat().run_activity(&run.id).unwrap());
    (run.id, server.model_requests()[before..].to_vec())
}

/// The text of each message of an Anthropic request, in order.
fn messages(request: &RecordedRequest) -> Vec<(String, String)> {
    let text = |content: &Value| match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join(""),
        _ => String::new(),
    };
    request.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap().to_owned(), text(&m["content"])))
        .collect()
}

#[test]
fn at_team_carries_that_teams_context_for_that_message_only_and_the_global_brief_goes_nowhere() {
    let fixture = Fixture::new();
    let server = FakeModelServer::start_blocking(Behavior::text("Noted."));
    let engine = open(&fixture, &server);
    let boo = engine.boo_zero().info().unwrap().agent_id;
    // Boo Zero on Native, as a user with a key would have it.
    let patch = AgentPatch {
        runtime: Some(RuntimeKind::Native),
        provider: Some(Provider::Anthropic),
        model: Some("claude-sonnet-4-5".into()),
        approval_policy: Some(ApprovalPolicy::AllowAll),
        ..Default::default()
    };
    engine.agents().update(&boo, patch).unwrap();
    engine.boo_zero().set_global_brief(GLOBAL_BRIEF).unwrap();
    engine.boo_zero().set_rules(Some(RULES)).unwrap();

    // Alpha's brief is over its budget: the head goes, the tail is left out (whole paragraphs).
    let filler: Vec<String> = (0..30).map(|i| format!("Alpha paragraph {i}: {}", "a".repeat(80))).collect();
    let alpha_brief = format!("ALPHA-BRIEF-HEAD ships the app.\n\n{}\n\nALPHA-BRIEF-TAIL", filler.join("\n\n"));
    team(&engine, "Alpha", "ALPHA", alpha_brief);
    team(&engine, "Beta Squad", "BETA", "BETA-BRIEF-MARKER".into());

    let (first, requests) = ask(&engine, &server, &boo, "What is @alpha doing?");
    assert_eq!(requests.len(), 1);
    let raw = &requests[0].raw_body;
    for present in ["RULES-MARKER", "ALPHA-BRIEF-HEAD", "ALPHA-CARD-OPEN", "ALPHA-FACT", "ALPHA-CHAT-MARKER", "Noted."]
    {
        assert!(raw.contains(present), "{present} is missing from the request");
    }
    for absent in ["ALPHA-BRIEF-TAIL", "ALPHA-CARD-CANCELLED", "BETA-", GLOBAL_BRIEF] {
        assert!(!raw.contains(absent), "{absent} must not be in the request");
    }
    // In front of the message, in the one user message of this first turn.
    let sent = messages(&requests[0]);
    assert_eq!(sent.len(), 1);
    assert!(sent[0].1.ends_with("What is @alpha doing?"));
    assert!(sent[0].1.find("RULES-MARKER").unwrap() < sent[0].1.find("ALPHA-BRIEF-HEAD").unwrap());

    // The run's context shows each part, each within its budget.
    let context = engine.chat().chat_run_context(&first).unwrap();
    let titles: Vec<&str> = context.sections.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Boo Zero's rules",
            "@Alpha",
            "@Alpha: brief",
            "@Alpha: open cards",
            "@Alpha: saved memory",
            "@Alpha: recent chat"
        ]
    );
    for (title, budget) in [
        ("@Alpha: brief", TEAM_BRIEF_BUDGET),
        ("@Alpha: open cards", TEAM_CARDS_BUDGET),
        ("@Alpha: saved memory", TEAM_MEMORY_BUDGET),
        ("@Alpha: recent chat", TEAM_CHAT_BUDGET),
    ] {
        let section = context.sections.iter().find(|s| s.title == title).unwrap();
        let body = section.text.split_once('\n').unwrap().1;
        assert!(body.chars().count() <= budget + 80, "{title} is over its budget");
    }
    let brief = &context.sections.iter().find(|s| s.title == "@Alpha: brief").unwrap().text;
    assert!(brief.contains("paragraphs of the brief left out)"), "{brief}");
    assert!(context.preamble.as_deref().unwrap().contains("ALPHA-FACT"));
    let added: Vec<String> = engine
        .chat()
        .run_activity(&first)
        .unwrap()
        .into_iter()
        .filter_map(|r| match r.event {
            RunEvent::ContextAdded { summary, .. } => Some(summary),
            _ => None,
        })
        .collect();
    assert!(
        added.iter().any(|s| s.starts_with("Added Boo Zero's rules; @Alpha (brief, 1 card, 1 fact, ")),
        "{added:?}"
    );

    // The next message names no team: the rules again, Alpha's context not at all, and the
    // carried history holds the user's own words only.
    let (second, requests) = ask(&engine, &server, &boo, "And what should I do next?");
    assert_eq!(requests.len(), 1);
    let raw = &requests[0].raw_body;
    assert!(raw.contains("RULES-MARKER"));
    assert_eq!(raw.matches("RULES-MARKER").count(), 1, "the rules ride once, on this message only");
    for absent in ["ALPHA-BRIEF", "ALPHA-CARD", "ALPHA-FACT", "ALPHA-CHAT", "BETA-", GLOBAL_BRIEF] {
        assert!(!raw.contains(absent), "{absent} must not be carried into the next turn");
    }
    let sent = messages(&requests[0]);
    assert_eq!(sent.len(), 3, "{sent:?}");
    // The first turn as carried: the user's words (behind the workspace files a new session
    // gets once, which Native carries by design), none of Boo Zero's rules or team context.
    assert_eq!(sent[0].0, "user");
    assert!(sent[0].1.ends_with("\n\nWhat is @alpha doing?") || sent[0].1 == "What is @alpha doing?");
    assert!(!sent[0].1.contains("Boo Zero's rules") && !sent[0].1.contains("## Team"), "{:?}", sent[0]);
    assert_eq!(sent[1], ("assistant".to_owned(), "Noted.".to_owned()));
    assert!(sent[2].1.ends_with("And what should I do next?"));
    let titles: Vec<String> =
        engine.chat().chat_run_context(&second).unwrap().sections.into_iter().map(|s| s.title).collect();
    assert_eq!(titles, ["Boo Zero's rules"]);

    // A team named with spaces, in another case, is found too; only its own context comes.
    let (_, requests) = ask(&engine, &server, &boo, "Compare with @beta squad please");
    let last = &messages(&requests[0]).last().unwrap().1.clone();
    assert!(last.contains("BETA-BRIEF-MARKER") && last.contains("BETA-FACT") && last.contains("BETA-CARD-OPEN"));
    assert!(!last.contains("ALPHA-"), "Alpha is not mentioned in this message");

    // No request of any run, Boo Zero's or the teams', carried the global brief.
    let all = server.requests();
    assert!(all.len() >= 5);
    assert!(all.iter().all(|r| !r.raw_body.contains("GLOBAL-BRIEF-MARKER")));
    assert_eq!(engine.boo_zero().info().unwrap().global_brief, GLOBAL_BRIEF, "kept for the user");
}

#[test]
fn boo_zero_is_made_once_kept_by_id_across_renames_and_cannot_be_deleted() {
    let fixture = Fixture::new();
    let server = FakeModelServer::start_blocking(Behavior::text("Hi."));
    let id = {
        let engine = open(&fixture, &server);
        let info = engine.boo_zero().info().unwrap();
        let agent = engine.agents().get(&info.agent_id).unwrap();
        assert_eq!(agent.name, "Boo Zero");
        assert_eq!(agent.handle, "boo");
        assert!(info.rules_are_default && info.rules == info.default_rules);
        assert!(info.global_brief.is_empty());
        let soul = engine.agents().read_file(&agent.id, "SOUL.md").unwrap();
        assert!(soul.content.contains("coordinator"), "{}", soul.content);
        // Renamed, with a new handle and runtime: still Boo Zero.
        let patch = AgentPatch {
            name: Some("My Coordinator".into()),
            handle: Some("coord".into()),
            runtime: Some(RuntimeKind::Codex),
            ..Default::default()
        };
        engine.agents().update(&agent.id, patch).unwrap();
        agent.id
    };
    let engine = open(&fixture, &server);
    assert_eq!(engine.boo_zero().info().unwrap().agent_id, id, "the same agent after a restart");
    let agents = engine.agents().list().unwrap();
    assert_eq!(agents.len(), 1, "no second Boo Zero: {agents:?}");
    assert_eq!(agents[0].name, "My Coordinator");

    let refused = engine.delete_agent(&id).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::Conflict);
    assert!(refused.to_string().contains("cannot be deleted"), "{refused}");
    let refused = engine.agents().delete(&id).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::Conflict);
    assert!(engine.agents().get(&id).is_ok(), "still there");
    // Other agents delete as before.
    let other = engine.agents().create(native("other")).unwrap();
    engine.delete_agent(&other.id).unwrap();
}

#[test]
fn rules_and_the_global_brief_are_checked_and_a_refused_edit_loses_nothing() {
    let fixture = Fixture::new();
    let server = FakeModelServer::start_blocking(Behavior::text("Hi."));
    let engine = open(&fixture, &server);
    let boo = engine.boo_zero();
    boo.set_rules(Some("Be kind.")).unwrap();
    let too_long = "r".repeat(clawboo_engine::context::boo_zero::BOO_ZERO_RULES_BUDGET + 1);
    let refused = boo.set_rules(Some(&too_long)).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::InvalidInput);
    assert_eq!(boo.info().unwrap().rules, "Be kind.");
    let info = boo.set_rules(None).unwrap();
    assert!(info.rules_are_default);

    boo.set_global_brief("Plan the year.").unwrap();
    let refused = boo.set_global_brief(&"b".repeat(clawboo_engine::boo_zero::GLOBAL_BRIEF_BUDGET + 1)).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::InvalidInput);
    assert_eq!(boo.info().unwrap().global_brief, "Plan the year.");
}
