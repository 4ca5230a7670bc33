//! What a routine spends (issue 27), a Native agent's routine on the fake model server through the
//! relay (the keychain's key: run under scripts/with-test-keyring on Linux): its run counts for
//! the routine to the micro-dollar, and a routine's budget, once spent, refuses its next run
//! (`budget_exhausted`, before any model call) while the agent's other routines still run.

use clawboo_engine::board::CardStatus;
use clawboo_engine::guard::{BudgetInput, BudgetPeriod, BudgetScope, BudgetUnit, RunScope};
use clawboo_engine::routines::{Clock, ManualClock, RoutineOutcome};
use clawboo_engine::secrets::Provider;
use clawboo_engine::spend::{Scope, Totals};
use clawboo_engine::ErrorCode;
use clawboo_testkit::{Behavior, FakeModelServer};

use super::*;

const PRICED: &str = "claude-sonnet-4-5";

/// Micro-dollars of one request at Sonnet 4.5's bundled price ($3 in, $15 out, $3.75 cache
/// write, $0.30 cache read per million), rounded once, worked out here.
fn sonnet_micros(input: u64, output: u64, cache_read: u64, cache_write: u64) -> i64 {
    let pico = input * 3_000_000 + output * 15_000_000 + cache_write * 3_750_000 + cache_read * 300_000;
    ((pico + 500_000) / 1_000_000) as i64
}

/// What the relay recorded of the card's runs, priced here.
fn priced_runs_of(engine: &Engine, card_id: &str) -> Totals {
    let mut sum = Totals::default();
    for run in engine.board().runs(card_id).unwrap() {
        for request in engine.relay().requests(&run.run_id).unwrap() {
            let usage = request.usage.expect("every answer reports usage");
            let (input, output) = (usage.input_tokens.unwrap(), usage.output_tokens.unwrap());
            let (read, write) = (usage.cache_read_tokens.unwrap(), usage.cache_write_tokens.unwrap());
            sum.requests += 1;
            sum.input_tokens += input;
            sum.output_tokens += output;
            sum.cache_read_tokens += read;
            sum.cache_write_tokens += write;
            sum.cost_micros += sonnet_micros(input, output, read, write);
        }
    }
    sum
}

fn routine_for(engine: &Engine, agent_id: &str, name: &str) -> Routine {
    engine
        .routines()
        .create(RoutineInput {
            name: name.into(),
            agent_id: Some(agent_id.to_owned()),
            team_id: None,
            prompt: "Check the stock levels.".into(),
            schedule: cron("0 8 * * *", "UTC"),
            heartbeat: false,
            reports_to_team_id: None,
        })
        .unwrap()
}

/// Runs the routine now and waits for the run's end.
fn run_now(engine: &Engine, clock: &ManualClock, routine: &Routine) -> RoutineRun {
    let run = engine.routines().run_now(&routine.id).unwrap();
    wait_for("the routine's run to end", LIMIT, || {
        engine.routines().tick(clock.now()).unwrap();
        let latest = engine.routines().detail(&routine.id, 5).unwrap().runs.into_iter().find(|r| r.id == run.id)?;
        (latest.outcome != RoutineOutcome::Running).then_some(latest)
    })
}

#[test]
fn a_routines_run_counts_for_it_and_its_spent_budget_refuses_its_next_run() {
    let server = FakeModelServer::start_blocking(Behavior::text("Stock is fine."));
    server.report_cache_tokens(2_000, 100);
    let fixture = common::Fixture::new().keychain("routines-spend");
    let engine = fixture.open();
    engine.secrets().set_api_key(Provider::Anthropic, "sk-ant-routine-spend-7d1e").unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    let clock = Arc::new(ManualClock::new(ms("2026-03-02T07:00:00Z")));
    engine.routines().use_clock(clock.clone());
    let agent = engine
        .agents()
        .create(NewAgent { provider: Some(Provider::Anthropic), model: PRICED.into(), ..super::agent("stocker") })
        .unwrap();
    let routine = routine_for(&engine, &agent.id, "Stock check");

    let first = run_now(&engine, &clock, &routine);
    assert_eq!(first.outcome, RoutineOutcome::Succeeded, "{:?}", first.note);
    let card_id = first.card_id.clone().unwrap();
    let want = priced_runs_of(&engine, &card_id);
    assert!(want.requests >= 1 && want.cost_micros > 0 && want.cache_read_tokens > 0, "{want:?}");
    let counted = wait_for("the routine's usage counted", LIMIT, || {
        let spent = engine.spend_of(&Scope::Routine(routine.id.clone())).unwrap();
        (spent.requests >= want.requests).then_some(spent)
    });
    assert_eq!(counted, want, "the routine's run counts for its routine, to the micro-dollar");
    assert_eq!(engine.spend_of(&Scope::Card(card_id)).unwrap(), want, "and for its card");

    // A daily budget below what it spent: its next run is refused before any model call.
    let budget = BudgetInput {
        scope: BudgetScope::Routine,
        scope_id: routine.id.clone(),
        period: BudgetPeriod::Day,
        unit: BudgetUnit::Tokens,
        amount: want.tokens() - 1,
    };
    engine.guard().set_budget(budget).unwrap();
    let scope = RunScope { agent_id: agent.id.clone(), routine_id: Some(routine.id.clone()), ..RunScope::default() };
    let refused = engine.guard().check_start(&scope).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::BudgetExhausted, "{refused}");
    let calls = server.model_requests().len();
    let second = run_now(&engine, &clock, &routine);
    assert_eq!(second.outcome, RoutineOutcome::Failed, "{second:?}");
    let note = second.note.clone().unwrap_or_default();
    assert!(note.contains("daily token budget") && note.contains("is spent"), "the routine's history says why: {note}");
    let card = engine.board().get(second.card_id.as_deref().unwrap()).unwrap();
    assert_eq!(card.status, CardStatus::Blocked);
    assert!(card.blocked_reason.as_deref().unwrap_or_default().contains("is spent"), "{:?}", card.blocked_reason);
    assert_eq!(server.model_requests().len(), calls, "a refused run calls no model");
    assert_eq!(engine.spend_of(&Scope::Routine(routine.id.clone())).unwrap(), want, "nothing more counted");

    // The budget is the routine's: the agent's other routine still runs.
    let other = routine_for(&engine, &agent.id, "Till count");
    assert_eq!(run_now(&engine, &clock, &other).outcome, RoutineOutcome::Succeeded);
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}
