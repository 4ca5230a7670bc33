//! What agents spend, on the fake model server through the relay (the keychain's key: run under
//! scripts/with-test-keyring on Linux). Every answer reports cache reads and writes, so each
//! kind of token is priced apart. The expected money is worked out here, from the usage the
//! relay recorded and the bundled price of Claude Sonnet 4.5 ($3 in, $15 out, $3.75 cache
//! write, $0.30 cache read per million), and must match every scope's total to the micro-dollar:
//! a one-to-one chat, a team chat with a hand-off (the teammate's run counts for the team and
//! for its hand-off card), a card run; an unpriced model shows tokens and no money; a run on
//! its own endpoint (not Clawboo's key) counts tokens "on your subscription".

mod common;

use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::board::{Actor, CardStatus, NewCard};
use clawboo_engine::chat::team::RoomMessageKind;
use clawboo_engine::chat::RunStatus;
use clawboo_engine::runner::StartOptions;
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::secrets::Provider;
use clawboo_engine::spend::{Billing, Scope, Totals};
use clawboo_engine::Engine;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, Reply};
use common::Fixture;
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(60);
const PRICED: &str = "claude-sonnet-4-5";

fn agent(handle: &str, model: &str) -> NewAgent {
    NewAgent {
        name: handle.to_uppercase(),
        model: model.into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider: Some(Provider::Anthropic),
        ..common::new_agent(handle, RuntimeKind::Native)
    }
}

/// An engine whose Anthropic calls go through the relay to `server`, every answer reporting
/// 2,000 tokens read from the cache and 100 written to it.
fn relayed_engine(server: &FakeModelServer, test: &str) -> (Fixture, Engine) {
    let fixture = Fixture::new().keychain(test);
    let engine = fixture.open();
    engine.secrets().set_api_key(Provider::Anthropic, "sk-ant-spend-test-4e2a").unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    server.report_cache_tokens(2_000, 100);
    (fixture, engine)
}

/// The micro-dollars of one request at Sonnet 4.5's price, rounded once, worked out here.
fn sonnet_micros(input: u64, output: u64, cache_read: u64, cache_write: u64) -> i64 {
    let pico = input * 3_000_000 + output * 15_000_000 + cache_write * 3_750_000 + cache_read * 300_000;
    ((pico + 500_000) / 1_000_000) as i64
}

/// What the relay recorded of `run_id`, priced here; waits until `requests` are recorded.
fn expected(engine: &Engine, run_id: &str) -> Totals {
    let recorded = wait_for("the relay's records", LIMIT, || {
        let records = engine.relay().requests(run_id).unwrap();
        (!records.is_empty() && records.iter().all(|r| r.usage.is_some())).then_some(records)
    });
    let mut sum = Totals::default();
    for request in recorded {
        let usage = request.usage.unwrap();
        let (input, output) = (usage.input_tokens.unwrap(), usage.output_tokens.unwrap());
        let (read, write) = (usage.cache_read_tokens.unwrap(), usage.cache_write_tokens.unwrap());
        assert_eq!((read, write), (2_000, 100), "the fake server's cache counts reached the relay");
        let micros = sonnet_micros(input, output, read, write);
        assert_eq!(request.model.as_deref(), Some(PRICED));
        assert_eq!(request.cost_micros, Some(micros), "each request's own cost, for What this agent saw");
        sum.requests += 1;
        sum.input_tokens += input;
        sum.output_tokens += output;
        sum.cache_read_tokens += read;
        sum.cache_write_tokens += write;
        sum.cost_micros += micros;
    }
    sum
}

fn add(a: Totals, b: Totals) -> Totals {
    Totals {
        requests: a.requests + b.requests,
        input_tokens: a.input_tokens + b.input_tokens,
        output_tokens: a.output_tokens + b.output_tokens,
        cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
        cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
        cost_micros: a.cost_micros + b.cost_micros,
        unpriced_tokens: a.unpriced_tokens + b.unpriced_tokens,
        subscription_tokens: a.subscription_tokens + b.subscription_tokens,
    }
}

fn ended(engine: &Engine, run_id: &str) {
    let run = wait_for("the run to end", LIMIT, || {
        let run = engine.chat().run(run_id).unwrap();
        (run.status != RunStatus::Running).then_some(run)
    });
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
}

#[test]
fn a_one_to_one_chat_costs_what_its_requests_cost_with_the_cache_priced_apart() {
    let server = FakeModelServer::start_blocking(Behavior::text("Priced."));
    let (_fixture, engine) = relayed_engine(&server, "spend-direct");
    let ada = common::add_agent(&engine, agent("ada", PRICED));
    let run = engine.chat().send(&ada, "Hello").unwrap().run.unwrap();
    ended(&engine, &run.id);
    let want = expected(&engine, &run.id);
    assert!(want.cost_micros > 0 && want.requests >= 1);

    assert_eq!(engine.spend_of(&Scope::Agent(ada.clone())).unwrap(), want);
    assert_eq!(engine.spend_of(&Scope::All).unwrap(), want);
    let today = clawboo_engine::spend::today();
    assert_eq!(engine.spend_totals(&Scope::Agent(ada), today, today).unwrap(), want, "counted today");
    let run_spend = engine.run_spend(&run.id).unwrap().unwrap();
    assert_eq!((run_spend.cost_micros, run_spend.billing), (Some(want.cost_micros), Billing::Api));
    assert_eq!(run_spend.model, PRICED);
    // Native reports the same calls in its own Usage events: not counted again.
    assert_eq!(engine.spend_of(&Scope::All).unwrap().requests, server.model_requests().len() as u64);
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}

#[test]
fn a_team_chat_with_a_hand_off_adds_up_per_agent_team_and_hand_off_card() {
    let behavior = Behavior::text("(unscripted)")
        .when("wrote-brief", vec![Reply::Text("Final plan: the brief is in.".into())])
        .when("write the brief", vec![Reply::Text("wrote-brief: one page".into())])
        .when(
            "Plan the launch",
            vec![
                Reply::ToolCall { name: "~handoff".into(), input: json!({"to": "writer", "task": "write the brief"}) },
                Reply::Text("I handed the brief to @writer.".into()),
            ],
        );
    let server = FakeModelServer::start_blocking(behavior);
    let (_fixture, engine) = relayed_engine(&server, "spend-team");
    let ids: Vec<String> =
        [agent("lead", PRICED), agent("writer", PRICED)].into_iter().map(|a| common::add_agent(&engine, a)).collect();
    let common::ChatTeam { team, general } = common::chat_team(&engine, "Launch", &ids, "I run a tea shop.");
    engine.chat().send_team(&general, "Plan the launch of the winter blend.").unwrap();
    let messages = wait_for("the leader's final answer", LIMIT, || {
        let page = engine.chat().room_page(&general, None, 100).unwrap();
        page.messages.iter().any(|m| m.content.starts_with("Final plan")).then_some(page.messages)
    });
    let mut runs: Vec<String> = messages.iter().filter_map(|m| m.run_id.clone()).collect();
    runs.sort();
    runs.dedup();
    for run in &runs {
        wait_for("the run to end", LIMIT, || {
            (engine.chat().run(run).unwrap().status != RunStatus::Running).then_some(())
        });
    }
    let handoff = messages.iter().find(|m| m.kind == RoomMessageKind::Handoff).expect("a hand-off");
    let writer_run = handoff.run_id.clone().expect("the teammate's run");

    let mut lead = Totals::default();
    let mut writer = Totals::default();
    for run in &runs {
        let spent = expected(&engine, run);
        let who = engine.run_spend(run).unwrap().unwrap().agent_id;
        if who == ids[0] {
            lead = add(lead, spent);
        } else {
            writer = add(writer, spent);
        }
    }
    assert!(lead.requests >= 2 && writer.requests >= 1, "{lead:?} {writer:?}");
    assert_eq!(engine.spend_of(&Scope::Agent(ids[0].clone())).unwrap(), lead);
    assert_eq!(engine.spend_of(&Scope::Agent(ids[1].clone())).unwrap(), writer);
    assert_eq!(engine.spend_of(&Scope::Team(team.id.clone())).unwrap(), add(lead, writer));
    assert_eq!(engine.spend_of(&Scope::All).unwrap().requests, server.model_requests().len() as u64, "each call once");
    let card = engine.run_spend(&writer_run).unwrap().unwrap().card_id;
    assert!(!card.is_empty(), "the hand-off's run counts for its card");
    assert_eq!(engine.spend_of(&Scope::Card(card)).unwrap(), expected(&engine, &writer_run));
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}

#[test]
fn a_card_run_counts_for_its_card_and_an_unpriced_model_shows_tokens_and_no_money() {
    let server = FakeModelServer::start_blocking(Behavior::text("Done with the card."));
    let (_fixture, engine) = relayed_engine(&server, "spend-card");
    let ada = common::add_agent(&engine, agent("ada", PRICED));
    let new_card = |title: &str, assignee: &str| NewCard {
        title: title.into(),
        description: "Do it.".into(),
        assignee_id: Some(assignee.to_owned()),
        team_id: None,
        status: None,
        priority: None,
        depends_on: vec![],
        check_command: None,
        project_folder: None,
    };
    let card = engine.board().create(Actor::User, new_card("Ship it", &ada)).unwrap();
    let run_id = engine.runner().start(&card.id, StartOptions::default()).unwrap().run_id;
    let left = wait_for("the card to leave In progress", LIMIT, || {
        let card = engine.board().get(&card.id).unwrap();
        (card.status != CardStatus::InProgress).then_some(card)
    });
    assert_eq!(left.status, CardStatus::InReview, "{:?}", left.blocked_reason);
    let want = expected(&engine, &run_id);
    assert_eq!(engine.spend_of(&Scope::Card(card.id.clone())).unwrap(), want);
    assert_eq!(engine.spend_of(&Scope::Agent(ada)).unwrap(), want);

    // A model with no known price: its tokens, no money, and said so (unpriced).
    let bob = common::add_agent(&engine, agent("bob", "house-model-7"));
    let run = engine.chat().send(&bob, "Hello").unwrap().run.unwrap();
    ended(&engine, &run.id);
    let recorded = wait_for("the relay's records", LIMIT, || {
        let records = engine.relay().requests(&run.id).unwrap();
        (!records.is_empty()).then_some(records)
    });
    assert!(recorded.iter().all(|r| r.cost_micros.is_none()), "no made-up price");
    let bobs = engine.spend_of(&Scope::Agent(bob)).unwrap();
    assert_eq!(bobs.cost_micros, 0);
    assert!(bobs.tokens() > 0);
    assert_eq!(bobs.unpriced_tokens, bobs.tokens());
    assert_eq!(engine.run_spend(&run.id).unwrap().unwrap().cost_micros, None);
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}

#[test]
fn a_run_on_its_own_endpoint_counts_tokens_on_the_subscription_and_no_money() {
    let server = FakeModelServer::start_blocking(Behavior::text("On my own sign-in."));
    server.report_cache_tokens(300, 0);
    let fixture = Fixture::new();
    // Native given the endpoint directly, as a CLI on the user's own sign-in: no relay token.
    let engine = fixture.open_with(vec![common::native_runtime(server.base_url(), "sk-own-sign-in")]);
    let ada = common::add_agent(&engine, agent("ada", PRICED));
    let run = engine.chat().send(&ada, "Hello").unwrap().run.unwrap();
    ended(&engine, &run.id);
    assert!(engine.relay().requests(&run.id).unwrap().is_empty(), "nothing went through the relay");
    let spent = wait_for("the usage counted", LIMIT, || {
        let spent = engine.spend_of(&Scope::Agent(ada.clone())).unwrap();
        (spent.requests > 0).then_some(spent)
    });
    assert_eq!(spent.cost_micros, 0);
    assert_eq!(spent.subscription_tokens, spent.tokens());
    assert_eq!(spent.cache_read_tokens, 300 * spent.requests);
    let run_spend = engine.run_spend(&run.id).unwrap().unwrap();
    assert_eq!((run_spend.billing, run_spend.cost_micros), (Billing::Subscription, None));
}
