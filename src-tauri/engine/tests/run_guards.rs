//! The run guards end to end (issue 27): Native agents on the fake model server, real SQLite
//! (through the model relay where a budget must stop a run after its model call, as in the app).
//! A budget reached mid-run stops the run after its model call with nothing lost; a run refused
//! with `budget_exhausted` starts once the budget is raised or allowed until tomorrow; each
//! circuit breaker trips on a scripted loop and is resumed from its Inbox request.

mod common;

use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::attention::{AttentionRequest, Decision, RequestKind, UserAnswer};
use clawboo_engine::board::{Actor, CardRunStatus, CardStatus, NewCard};
use clawboo_engine::chat::team::RoomMessageKind;
use clawboo_engine::chat::{ChatRole, RunStatus, RunSummary};
use clawboo_engine::guard::{BudgetInput, BudgetPeriod, BudgetScope, BudgetUnit, Limits, ScopeKind};
use clawboo_engine::runner::StartOptions;
use clawboo_engine::runtimes::{ApprovalPolicy, RunEvent};
use clawboo_engine::secrets::Provider;
use clawboo_engine::{Engine, ErrorCode};
use clawboo_testkit::wait_for;
use clawboo_testkit::{Behavior, FakeModelServer, Reply};
use common::Fixture;
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(20);

fn native(handle: &str) -> NewAgent {
    NewAgent {
        name: handle.to_uppercase(),
        model: "claude-sonnet-4-5".into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider: Some(Provider::Anthropic),
        ..common::new_agent(handle, RuntimeKind::Native)
    }
}

struct One {
    engine: Engine,
    server: FakeModelServer,
    agent_id: String,
    _fixture: Fixture,
}

/// One Native agent on a fake model that answers `behavior`.
fn one(behavior: Behavior) -> One {
    let fixture = Fixture::new();
    let server = FakeModelServer::start_blocking(behavior);
    let engine = fixture.open_with(vec![common::native_runtime(server.base_url(), "sk-fake-guard")]);
    let agent_id = common::add_agent(&engine, native("ada"));
    One { engine, server, agent_id, _fixture: fixture }
}

/// One Native agent whose calls go through the model relay (as every Native run does in the
/// app: the keychain's key, run under scripts/with-test-keyring) to a fake model that answers
/// `behavior`.
fn one_relayed(behavior: Behavior, keychain: &str) -> One {
    let fixture = Fixture::new().keychain(keychain);
    let server = FakeModelServer::start_blocking(behavior);
    let engine = fixture.open();
    engine.secrets().set_api_key(Provider::Anthropic, "sk-ant-guard-test-51e0").unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    let agent_id = common::add_agent(&engine, native("ada"));
    One { engine, server, agent_id, _fixture: fixture }
}

impl One {
    fn send(&self, text: &str) -> clawboo_engine::Result<RunSummary> {
        Ok(self.engine.chat().send(&self.agent_id, text)?.run.expect("a run"))
    }

    fn wait_done(&self, run_id: &str) -> RunSummary {
        wait_for("the run to end", LIMIT, || {
            let page = self.engine.chat().history_page(&self.agent_id, None, 500).unwrap();
            page.runs.into_iter().find(|r| r.id == run_id && r.status != RunStatus::Running)
        })
    }

    fn send_and_wait(&self, text: &str) -> RunSummary {
        let run = self.send(text).expect("the run starts");
        self.wait_done(&run.id)
    }

    fn events(&self, run_id: &str) -> Vec<RunEvent> {
        self.engine.chat().run_activity(run_id).unwrap().into_iter().map(|r| r.event).collect()
    }
}

/// The open request of `kind`, once it is raised.
fn open_request(engine: &Engine, kind: RequestKind) -> AttentionRequest {
    wait_for("the Inbox request", LIMIT, || engine.attention().open().unwrap().into_iter().find(|r| r.kind == kind))
}

fn decide(engine: &Engine, request: &AttentionRequest, decision: Decision) {
    engine.answer_attention(&request.id, UserAnswer::Decision { decision }).expect("the answer is taken");
}

fn tokens_budget(scope: BudgetScope, scope_id: &str, amount: u64) -> BudgetInput {
    BudgetInput { scope, scope_id: scope_id.into(), period: BudgetPeriod::Day, unit: BudgetUnit::Tokens, amount }
}

/// Lists files again and again (each time with another input, so no breaker sees a loop).
fn busy_then(answer: &str) -> Behavior {
    Behavior::text(answer).when(
        "LIST-THINGS",
        (0..6).map(|i| Reply::ToolCall { name: "list_files".into(), input: json!({"path": format!("{i}")}) }).collect(),
    )
}

#[test]
fn a_budget_reached_mid_run_stops_it_after_its_model_call_and_nothing_is_lost() {
    let f = one_relayed(busy_then("Hello again."), "guard-tokens");
    f.server.report_input_tokens(1_000);
    f.engine.guard().set_budget(tokens_budget(BudgetScope::Agent, &f.agent_id, 2_500)).unwrap();

    let run = f.send_and_wait("Please LIST-THINGS.");
    // Calls 1 and 2 spent 2,000 and some; call 3 crossed 2,500: the run ended after it. Native's
    // next request waits in the relay until the budget was checked, and is refused.
    let requests = f.server.model_requests().len();
    assert_eq!(requests, 3, "no model call goes on after the one that spent the budget");
    assert_eq!(run.status, RunStatus::Cancelled, "{run:?}");
    let why = run.error.clone().unwrap_or_default();
    assert!(
        why.contains("daily token budget (2,500 tokens) is spent") && why.contains("after its model call"),
        "{why}"
    );
    let events = f.events(&run.id);
    let usages = events.iter().filter(|e| matches!(e, RunEvent::Usage { .. })).count();
    // Every call's usage is counted by the relay; the Activity's line for the last one can be
    // missing when the stop reached Native before it read that answer.
    assert!((2..=3).contains(&usages), "{events:#?}");
    let counted = f.engine.relay().requests(&run.id).unwrap().iter().filter(|r| r.usage.is_some()).count();
    assert_eq!(counted, 3, "every call's usage is kept");
    assert!(
        events.iter().any(|e| matches!(e, RunEvent::Warning { message } if message.contains("is spent"))),
        "{events:#?}"
    );
    let results = events.iter().filter(|e| matches!(e, RunEvent::ToolResult { .. })).count();
    // The tool the last call asked for may have run before the stop reached the runtime.
    assert!(results >= 2, "the tool calls that ran before are kept: {events:#?}");
    let history = f.engine.chat().history_page(&f.agent_id, None, 50).unwrap();
    assert_eq!(history.messages[0].role, ChatRole::User, "the user's message stays");

    // The 80% line came first, then the request to raise or allow.
    let warning = open_request(&f.engine, RequestKind::BudgetWarning);
    assert!(warning.text.contains("is at 8") || warning.text.contains("is at 9"), "{}", warning.text);
    let reached = open_request(&f.engine, RequestKind::BudgetReached);
    assert!(reached.text.contains("2,500 tokens"), "{}", reached.text);

    // Refused with the figure until allowed.
    let refused = f.send("Hello?").unwrap_err();
    assert_eq!(refused.code(), ErrorCode::BudgetExhausted);
    assert!(refused.to_string().contains("(2,500 tokens) is spent:"), "{refused}");
    decide(&f.engine, &reached, Decision::AllowOnce);
    let allowed = f.send_and_wait("Hello?");
    assert_eq!(allowed.status, RunStatus::Succeeded, "allowed until tomorrow: {allowed:?}");
    let budget = f.engine.guard().budgets().unwrap().pop().unwrap();
    assert!(budget.allowed_until.is_some_and(|t| t > clawboo_engine::vocab::clock::now_ms()));
}

#[test]
fn a_card_run_cut_off_by_a_budget_ends_after_its_model_call_with_the_note_on_its_card() {
    let f = one_relayed(busy_then("All listed."), "guard-card");
    f.server.report_input_tokens(1_000);
    f.engine.guard().set_budget(tokens_budget(BudgetScope::Agent, &f.agent_id, 2_500)).unwrap();
    let new_card = NewCard {
        title: "LIST-THINGS in the folder".into(),
        description: "List what is there.".into(),
        assignee_id: Some(f.agent_id.clone()),
        team_id: None,
        status: None,
        priority: None,
        depends_on: vec![],
        check_command: None,
        project_folder: None,
    };
    let card = f.engine.board().create(Actor::User, new_card).unwrap();
    f.engine.runner().start(&card.id, StartOptions::default()).unwrap();
    let left = wait_for("the card to leave In progress", LIMIT, || {
        let card = f.engine.board().get(&card.id).unwrap();
        (card.status != CardStatus::InProgress && card.claimed_by_run.is_none()).then_some(card)
    });

    // Calls 1 and 2 spent 2,000 and some; call 3 crossed 2,500: the run ended after it (the
    // relay refused its next request), and the card says why.
    let requests = f.server.model_requests().len();
    assert_eq!(requests, 3, "no model call goes on after the one that spent the budget");
    assert_eq!(left.status, CardStatus::Blocked, "{left:?}");
    let note = left.blocked_reason.clone().unwrap_or_default();
    assert!(
        note.contains("daily token budget (2,500 tokens) is spent") && note.contains("after its model call"),
        "{note}"
    );
    let runs = f.engine.board().runs(&card.id).unwrap();
    assert_eq!(runs.len(), 1, "no second attempt: {runs:?}");
    assert_eq!(runs[0].status, CardRunStatus::Cancelled, "{runs:?}");
    assert_eq!(runs[0].reason.as_deref(), Some(note.as_str()), "the run's record says the same");

    // Nothing lost: every call's usage, the tool results before the stop, the stop's warning.
    let events = f.events(&runs[0].run_id);
    assert!((2..=3).contains(&events.iter().filter(|e| matches!(e, RunEvent::Usage { .. })).count()), "{events:#?}");
    let counted = f.engine.relay().requests(&runs[0].run_id).unwrap().iter().filter(|r| r.usage.is_some()).count();
    assert_eq!(counted, 3, "every call's usage is kept");
    assert!(events.iter().filter(|e| matches!(e, RunEvent::ToolResult { .. })).count() >= 2, "{events:#?}");
    assert!(
        events.iter().any(|e| matches!(e, RunEvent::Warning { message } if message.contains("is spent"))),
        "{events:#?}"
    );
    assert_eq!(f.engine.board().get(&card.id).unwrap().description, "List what is there.");

    // Its next run is refused before it starts: the card stays blocked with the figure.
    open_request(&f.engine, RequestKind::BudgetReached);
    f.engine.board().move_card(Actor::User, &card.id, CardStatus::Todo, None, None).unwrap();
    f.engine.runner().start(&card.id, StartOptions::default()).unwrap();
    let refused = wait_for("the refused run to release the card", LIMIT, || {
        let card = f.engine.board().get(&card.id).unwrap();
        (card.status == CardStatus::Blocked && card.claimed_by_run.is_none()).then_some(card)
    });
    assert!(refused.blocked_reason.unwrap_or_default().contains("(2,500 tokens) is spent:"));
    assert_eq!(f.server.model_requests().len(), requests, "a refused run calls no model");
}

#[test]
fn a_refused_run_starts_once_the_budget_is_raised() {
    let f = one(Behavior::text("Fine."));
    f.server.report_input_tokens(500);
    f.engine.guard().set_budget(tokens_budget(BudgetScope::Overall, "", 400)).unwrap();
    let first = f.send_and_wait("One.");
    assert_eq!(first.status, RunStatus::Succeeded, "a run with one call ends as it would: {first:?}");

    let refused = f.send("Two.").unwrap_err();
    assert_eq!(refused.code(), ErrorCode::BudgetExhausted, "{refused}");
    assert!(refused.to_string().contains("overall daily token budget (400 tokens)"), "{refused}");
    assert_eq!(f.server.model_requests().len(), 1, "a refused run calls no model");

    f.engine.guard().set_budget(tokens_budget(BudgetScope::Overall, "", 100_000)).unwrap();
    assert_eq!(f.send_and_wait("Two.").status, RunStatus::Succeeded);
}

#[test]
fn a_tool_call_repeated_ends_the_run_and_pauses_the_agent_until_resumed() {
    let same = Reply::ToolCall { name: "list_files".into(), input: json!({}) };
    let f = one(Behavior::text("Back to it.").when("LOOP-NOW", vec![same; 8]));
    let run = f.send_and_wait("Please LOOP-NOW.");
    assert_eq!(run.status, RunStatus::Cancelled, "{run:?}");
    let why = run.error.clone().unwrap_or_default();
    assert!(why.contains("same call to list_files with the same input 5 times"), "{why}");
    let events = f.events(&run.id);
    let calls = events.iter().filter(|e| matches!(e, RunEvent::ToolCallStarted { .. })).count();
    assert_eq!(calls, 5, "ended at the fifth: {events:#?}");

    let paused = f.engine.guard().paused().unwrap();
    assert_eq!((paused[0].scope, paused[0].scope_id.as_str()), (ScopeKind::Agent, f.agent_id.as_str()));
    let refused = f.send("Hello?").unwrap_err();
    assert_eq!(refused.code(), ErrorCode::Paused);
    assert!(refused.to_string().contains("it looks like a loop"), "{refused}");

    let request = open_request(&f.engine, RequestKind::ScopePaused);
    assert!(request.text.contains("5 times") && request.text.contains("Resume"), "{}", request.text);
    decide(&f.engine, &request, Decision::AllowOnce);
    assert!(f.engine.guard().paused().unwrap().is_empty());
    assert_eq!(f.send_and_wait("Hello?").status, RunStatus::Succeeded);
}

#[test]
fn an_agent_starting_too_many_runs_an_hour_is_paused_and_resumed() {
    let f = one(Behavior::text("Done."));
    f.engine.guard().set_limits(Limits { runs_per_hour: 3, ..Limits::DEFAULT }).unwrap();
    for i in 0..3 {
        assert_eq!(f.send_and_wait(&format!("Run {i}.")).status, RunStatus::Succeeded);
    }
    let refused = f.send("Run 3.").unwrap_err();
    assert_eq!(refused.code(), ErrorCode::Paused);
    assert!(refused.to_string().contains("run 4 within an hour (the limit is 3 runs an hour)"), "{refused}");
    // Still paused: refused again, and no second request.
    assert_eq!(f.send("Run 3.").unwrap_err().code(), ErrorCode::Paused);
    let request = open_request(&f.engine, RequestKind::ScopePaused);
    let open = f.engine.attention().open().unwrap();
    assert_eq!(open.iter().filter(|r| r.kind == RequestKind::ScopePaused).count(), 1);

    // Keep paused leaves it paused; resuming from Settings lets it run, counted from then on.
    decide(&f.engine, &request, Decision::Deny);
    assert_eq!(f.send("Run 3.").unwrap_err().code(), ErrorCode::Paused);
    f.engine.guard().resume(ScopeKind::Agent, &f.agent_id).unwrap();
    assert_eq!(f.send_and_wait("Run 3.").status, RunStatus::Succeeded);
}

#[test]
fn a_hand_off_cut_off_by_its_teammates_budget_says_so_on_its_card() {
    // The leader hands a busy task to @scout, whose daily budget the task's third call spends.
    let handoff =
        Reply::ToolCall { name: "handoff".into(), input: json!({"to": "scout", "task": "LIST-THINGS for me"}) };
    let behavior = busy_then("Noted.").when("KICK-OFF", vec![handoff, Reply::Text("Handed on.".into())]);
    let fixture = Fixture::new().keychain("guard-handoff");
    let server = FakeModelServer::start_blocking(behavior);
    let engine = fixture.open();
    engine.secrets().set_api_key(Provider::Anthropic, "sk-ant-guard-test-52e1").unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    let ids = vec![common::add_agent(&engine, native("lead")), common::add_agent(&engine, native("scout"))];
    let common::ChatTeam { general, .. } = common::chat_team(&engine, "Budgeted", &ids, "I am the user.");
    server.report_input_tokens(1_000);
    engine.guard().set_budget(tokens_budget(BudgetScope::Agent, &ids[1], 2_500)).unwrap();

    engine.chat().send_team(&general, "Please KICK-OFF.").unwrap();
    let card = wait_for("the hand-off's card blocked", LIMIT, || {
        let filter = clawboo_engine::board::CardFilter { assignee_id: Some(ids[1].clone()), ..Default::default() };
        engine.board().list(&filter).unwrap().into_iter().find(|c| c.status == CardStatus::Blocked)
    });
    let why = card.blocked_reason.clone().unwrap_or_default();
    assert!(why.contains("daily token budget (2,500 tokens) is spent"), "the budget, not the user, stopped it: {why}");
    assert!(!why.contains("Stopped by the user"), "{why}");
    assert_eq!(engine.board().runs(&card.id).unwrap()[0].status, CardRunStatus::Cancelled);
}

#[test]
fn a_leader_and_a_teammate_handing_work_back_and_forth_pause_the_room() {
    // The leader hands off whenever it hears back; the teammate answers every task. (Within one
    // message the reply chain's own bound stops at 3 deep; the breaker counts across chains.)
    let handoff = Reply::ToolCall { name: "handoff".into(), input: json!({"to": "scout", "task": "research it"}) };
    let behavior = Behavior::text("Noted.")
        .when("found", vec![handoff.clone(), Reply::Text("Handed on.".into())])
        .when("research it", vec![Reply::Text("found something".into())])
        .when("KICK-OFF", vec![handoff, Reply::Text("Handed on.".into())]);
    let fixture = Fixture::new();
    let server = FakeModelServer::start_blocking(behavior);
    let engine = fixture.open_with(vec![common::native_runtime(server.base_url(), "sk-fake-guard")]);
    let ids = vec![common::add_agent(&engine, native("lead")), common::add_agent(&engine, native("scout"))];
    let common::ChatTeam { general, .. } = common::chat_team(&engine, "Loop", &ids, "I am the user.");
    engine.guard().set_limits(Limits { handoffs_per_ten_minutes: 2, ..Limits::DEFAULT }).unwrap();

    engine.chat().send_team(&general, "Please KICK-OFF.").unwrap();
    let request = open_request(&engine, RequestKind::ScopePaused);
    assert!(request.text.contains("had 2 hand-offs in the last 10 minutes (the limit is 2)"), "{}", request.text);
    assert_eq!(request.room_id.as_deref(), Some(general.as_str()));
    let settled = || {
        wait_for("the room to settle", LIMIT, || {
            let runs = engine.chat().room_runs(&general, 100).unwrap();
            runs.iter().all(|r| r.status != RunStatus::Running).then_some(())
        })
    };
    settled();
    let messages = engine.chat().room_page(&general, None, 500).unwrap().messages;
    let handoffs = messages.iter().filter(|m| m.kind == RoomMessageKind::Handoff).count();
    assert_eq!(handoffs, 2, "the third was refused");
    let paused = engine.guard().paused().unwrap();
    assert_eq!((paused[0].scope, paused[0].scope_id.as_str()), (ScopeKind::Room, general.as_str()));

    // The room takes no new run while paused: said in the room.
    engine.chat().send_team(&general, "Hello?").unwrap();
    wait_for("the refusal in the room", LIMIT, || {
        let messages = engine.chat().room_page(&general, None, 500).unwrap().messages;
        messages.iter().any(|m| m.content.contains("could not start") && m.content.contains("Resume it")).then_some(())
    });

    decide(&engine, &request, Decision::AllowOnce);
    assert!(engine.guard().paused().unwrap().is_empty(), "Resume lifted the pause");
    let before = server.model_requests().len();
    engine.chat().send_team(&general, "Hello again?").unwrap();
    wait_for("a run after resuming", LIMIT, || (server.model_requests().len() > before).then_some(()));
    settled();
}
