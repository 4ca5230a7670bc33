//! Budgets in dollars on runs through the relay (issue 27): Native agents whose Anthropic calls
//! go through the relay to the fake model server (the keychain's key: run under
//! scripts/with-test-keyring on Linux), priced by the bundled table. A budget counts exactly
//! what the spend counts — cache reads and writes priced apart — and is checked after each call
//! the relay records: a run that spends it stops after that call with nothing lost, for one
//! agent and for a team across two members; a run refused with `budget_exhausted` starts once
//! the budget is raised, or after "Allow until tomorrow".

mod common;

use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::attention::{AttentionRequest, Decision, RequestKind, UserAnswer};
use clawboo_engine::chat::team::RoomMessageKind;
use clawboo_engine::chat::{ChatRole, RunStatus, RunSummary};
use clawboo_engine::guard::{Budget, BudgetInput, BudgetPeriod, BudgetScope, BudgetUnit};
use clawboo_engine::runtimes::{ApprovalPolicy, RunEvent};
use clawboo_engine::secrets::Provider;
use clawboo_engine::spend::Scope;
use clawboo_engine::{Engine, ErrorCode};
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, Reply};
use common::Fixture;
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(60);
const PRICED: &str = "claude-sonnet-4-5";

fn agent(handle: &str) -> NewAgent {
    NewAgent {
        name: handle.to_uppercase(),
        model: PRICED.into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider: Some(Provider::Anthropic),
        ..common::new_agent(handle, RuntimeKind::Native)
    }
}

/// An engine whose Anthropic calls go through the relay to `server`; every answer reports 1,000
/// input tokens, 2,000 read from the cache and 100 written to it: about $0.004 a call.
fn relayed_engine(server: &FakeModelServer, test: &str) -> (Fixture, Engine) {
    let fixture = Fixture::new().keychain(test);
    let engine = fixture.open();
    engine.secrets().set_api_key(Provider::Anthropic, "sk-ant-budget-test-7c1d").unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    server.report_input_tokens(1_000);
    server.report_cache_tokens(2_000, 100);
    (fixture, engine)
}

fn dollars(scope: BudgetScope, scope_id: &str, micros: u64) -> BudgetInput {
    BudgetInput { scope, scope_id: scope_id.into(), period: BudgetPeriod::Day, unit: BudgetUnit::Usd, amount: micros }
}

/// The micro-dollars of one request at Sonnet 4.5's bundled price ($3 in, $15 out, $3.75 cache
/// write, $0.30 cache read per million), rounded once, worked out here.
fn sonnet_micros(input: u64, output: u64, cache_read: u64, cache_write: u64) -> i64 {
    let pico = input * 3_000_000 + output * 15_000_000 + cache_write * 3_750_000 + cache_read * 300_000;
    ((pico + 500_000) / 1_000_000) as i64
}

/// What the relay recorded of `run_id` with usage, priced here.
fn priced_here(engine: &Engine, run_id: &str) -> i64 {
    engine
        .relay()
        .requests(run_id)
        .unwrap()
        .into_iter()
        .filter_map(|r| r.usage)
        .map(|u| {
            let (read, write) = (u.cache_read_tokens.unwrap(), u.cache_write_tokens.unwrap());
            sonnet_micros(u.input_tokens.unwrap(), u.output_tokens.unwrap(), read, write)
        })
        .sum()
}

/// Lists files again and again (each time with another input, so no breaker sees a loop).
fn busy(trigger: &str, answer: &str) -> Behavior {
    Behavior::text(answer).when(
        trigger,
        (0..6).map(|i| Reply::ToolCall { name: "list_files".into(), input: json!({"path": format!("{i}")}) }).collect(),
    )
}

fn wait_ended(engine: &Engine, run_id: &str) -> RunSummary {
    wait_for("the run to end", LIMIT, || {
        let run = engine.chat().run(run_id).unwrap();
        (run.status != RunStatus::Running).then_some(run)
    })
}

/// Every request the relay forwarded for the run is recorded (so the spend is final).
fn settled(engine: &Engine, run_id: &str, server: &FakeModelServer) {
    wait_for("the relay's records", LIMIT, || {
        let recorded = engine.relay().requests(run_id).unwrap().len();
        (recorded > 0 && engine.spend_of(&Scope::All).unwrap().requests as usize <= server.model_requests().len())
            .then_some(())
    });
}

fn open_request(engine: &Engine, kind: RequestKind) -> AttentionRequest {
    wait_for("the Inbox request", LIMIT, || engine.attention().open().unwrap().into_iter().find(|r| r.kind == kind))
}

fn budget(engine: &Engine, scope: BudgetScope) -> Budget {
    engine.guard().budgets().unwrap().into_iter().find(|b| b.scope == scope).expect("the budget")
}

#[test]
fn a_dollar_budget_on_a_relayed_native_agent_stops_its_run_after_the_call_that_spent_it() {
    let server = FakeModelServer::start_blocking(busy("LIST-THINGS", "Hello again."));
    let (_fixture, engine) = relayed_engine(&server, "budget-dollars");
    let ada = common::add_agent(&engine, agent("ada"));
    // A call costs $0.00402: two stay under a cent (and past its 80%), the third spends it.
    engine.guard().set_budget(dollars(BudgetScope::Agent, &ada, 10_000)).unwrap();

    let run = engine.chat().send(&ada, "Please LIST-THINGS.").unwrap().run.unwrap();
    let run = wait_ended(&engine, &run.id);
    settled(&engine, &run.id, &server);
    let relayed = engine.relay().requests(&run.id).unwrap();
    let answered = relayed.iter().filter(|r| r.usage.is_some()).count();
    // Native's next request waits in the relay until the budget was checked after the call
    // that spent it, and is then refused: never forwarded.
    assert_eq!(answered, 3, "no model call is answered after the one that spent the budget: {relayed:#?}");
    assert_eq!(server.model_requests().len(), 3, "the call after it never reaches the model");
    assert_eq!(run.status, RunStatus::Cancelled, "{run:?}");
    let why = run.error.clone().unwrap_or_default();
    assert!(
        why.contains("@ada's daily money budget ($0.01) is spent") && why.contains("after its model call"),
        "{why}"
    );
    let events: Vec<RunEvent> = engine.chat().run_activity(&run.id).unwrap().into_iter().map(|r| r.event).collect();
    // Every call's usage is counted by the relay (below); the Activity's own usage line of the
    // last call can be missing when the stop reached Native before it read that answer.
    assert!(events.iter().filter(|e| matches!(e, RunEvent::Usage { .. })).count() >= 2, "{events:#?}");
    assert!(events.iter().filter(|e| matches!(e, RunEvent::ToolResult { .. })).count() >= 2, "{events:#?}");
    assert!(events.iter().any(|e| matches!(e, RunEvent::Warning { message } if message.contains("is spent"))));
    let history = engine.chat().history_page(&ada, None, 50).unwrap();
    assert_eq!(history.messages[0].role, ChatRole::User, "the user's message stays");

    // The budget counts exactly what the spend counts, cache priced apart.
    let cost = priced_here(&engine, &run.id);
    assert_eq!(engine.spend_of(&Scope::Agent(ada.clone())).unwrap().cost_micros, cost);
    assert_eq!(budget(&engine, BudgetScope::Agent).spent, u64::try_from(cost).unwrap());
    let today = clawboo_engine::spend::today();
    assert_eq!(engine.spend_totals(&Scope::Agent(ada.clone()), today, today).unwrap().cost_micros, cost);

    // The 80% line reads as a line that stands until the day ends; the spent one as a request.
    let warning = open_request(&engine, RequestKind::BudgetWarning);
    assert!(warning.text.contains("@ada's daily money budget is at 80%: "), "{}", warning.text);
    let end_of_day = clawboo_engine::spend::day_start_ms(today.tomorrow().unwrap());
    assert_eq!(warning.expires_at, Some(end_of_day), "stands until the period ends");
    let reached = open_request(&engine, RequestKind::BudgetReached);
    assert_eq!(reached.expires_at, Some(end_of_day));

    // Refused with the figure; "Allow until tomorrow" lets the next run go.
    let refused = engine.chat().send(&ada, "Hello?").unwrap_err();
    assert_eq!(refused.code(), ErrorCode::BudgetExhausted);
    assert!(refused.to_string().contains("($0.01) is spent: $0.01 today."), "{refused}");
    engine.answer_attention(&reached.id, UserAnswer::Decision { decision: Decision::AllowOnce }).unwrap();
    let allowed = engine.chat().send(&ada, "Hello?").unwrap().run.unwrap();
    assert_eq!(wait_ended(&engine, &allowed.id).status, RunStatus::Succeeded);
    assert!(budget(&engine, BudgetScope::Agent).allowed_until == Some(end_of_day));

    // Set again at a cent (which ends the allowance): refused; raised to a dollar: it starts.
    engine.guard().set_budget(dollars(BudgetScope::Agent, &ada, 10_000)).unwrap();
    assert_eq!(engine.chat().send(&ada, "Again?").unwrap_err().code(), ErrorCode::BudgetExhausted);
    engine.guard().set_budget(dollars(BudgetScope::Agent, &ada, 1_000_000)).unwrap();
    let raised = engine.chat().send(&ada, "Again?").unwrap().run.unwrap();
    assert_eq!(wait_ended(&engine, &raised.id).status, RunStatus::Succeeded);
    settled(&engine, &raised.id, &server);
    let all_runs: i64 = [&run.id, &allowed.id, &raised.id].into_iter().map(|r| priced_here(&engine, r)).sum();
    assert_eq!(budget(&engine, BudgetScope::Agent).spent, u64::try_from(all_runs).unwrap());
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}

#[test]
fn a_team_dollar_budget_counts_both_members_and_stops_the_one_whose_call_spent_it() {
    let handoff =
        Reply::ToolCall { name: "handoff".into(), input: json!({"to": "writer", "task": "LIST-THINGS for the brief"}) };
    let behavior = busy("LIST-THINGS", "Brief written.")
        .when("Plan the launch", vec![handoff, Reply::Text("I handed the brief to @writer.".into())]);
    let server = FakeModelServer::start_blocking(behavior);
    let (_fixture, engine) = relayed_engine(&server, "budget-team");
    let ids = vec![common::add_agent(&engine, agent("lead")), common::add_agent(&engine, agent("writer"))];
    let common::ChatTeam { team, general } = common::chat_team(&engine, "Launch", &ids, "I run a tea shop.");
    // Two cents: the leader's calls and the writer's together spend it, the writer's alone never.
    engine.guard().set_budget(dollars(BudgetScope::Team, &team.id, 20_000)).unwrap();

    engine.chat().send_team(&general, "Plan the launch of the winter blend.").unwrap();
    let writer_run = wait_for("the hand-off's run", LIMIT, || {
        let page = engine.chat().room_page(&general, None, 100).unwrap();
        page.messages.iter().find(|m| m.kind == RoomMessageKind::Handoff).and_then(|m| m.run_id.clone())
    });
    let stopped = wait_ended(&engine, &writer_run);
    assert_eq!(stopped.status, RunStatus::Cancelled, "{stopped:?}");
    let why = stopped.error.clone().unwrap_or_default();
    assert!(why.contains("The team Launch's daily money budget ($0.02) is spent"), "{why}");
    wait_for("the room to settle", LIMIT, || {
        let runs = engine.chat().room_runs(&general, 100).unwrap();
        runs.iter().all(|r| r.status != RunStatus::Running).then_some(runs)
    });
    let runs = engine.chat().room_runs(&general, 100).unwrap();
    for run in &runs {
        settled(&engine, &run.id, &server);
    }

    let (lead, writer) = (Scope::Agent(ids[0].clone()), Scope::Agent(ids[1].clone()));
    let lead_cost = engine.spend_of(&lead).unwrap().cost_micros;
    let writer_cost = engine.spend_of(&writer).unwrap().cost_micros;
    assert!(lead_cost > 0 && writer_cost < 20_000, "the writer alone stayed under: {lead_cost} {writer_cost}");
    let team_cost = engine.spend_of(&Scope::Team(team.id.clone())).unwrap().cost_micros;
    assert_eq!(team_cost, lead_cost + writer_cost, "the team is its two members");
    let priced: i64 = runs.iter().map(|r| priced_here(&engine, &r.id)).sum();
    assert_eq!(team_cost, priced, "to the micro-dollar, cache priced apart");
    assert_eq!(budget(&engine, BudgetScope::Team).spent, u64::try_from(team_cost).unwrap());
    // The writer's run ended after the call that spent it: none of its calls answered later.
    let writer_answered = engine.relay().requests(&writer_run).unwrap().iter().filter(|r| r.usage.is_some()).count();
    assert!(writer_answered < 6, "the writer did not run to its end: {writer_answered}");

    // The team takes no new run: refused in the room with the figure.
    engine.chat().send_team(&general, "Anything else?").unwrap();
    wait_for("the refusal in the room", LIMIT, || {
        let messages = engine.chat().room_page(&general, None, 500).unwrap().messages;
        messages.iter().any(|m| m.content.contains("($0.02) is spent")).then_some(())
    });
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}
