//! The run guards' check before every run (issue 27): whether the agent or its room is paused,
//! whether a budget of its scope (the agent's, its team's, its routine's, the overall one; daily
//! and monthly) is spent, and how many runs the agent started in the last hour. Measured on a
//! store with 59 runs of the agent in the last hour (one short of the default limit), eight
//! budgets over its scopes (read from the spend's per-day totals, as the budgets are), and 62
//! days of spend for 1,000 agents. Goal: ≤ 0.2 ms a check.
//!
//! `cargo bench -p clawboo-engine --bench guard` (scripts/bench runs it with the others).

use std::hint::black_box;
use std::time::{Duration, Instant};

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::guard::{BudgetInput, BudgetPeriod, BudgetScope, BudgetUnit, RunScope};
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::teams::NewTeam;
use clawboo_engine::{Engine, EngineConfig};
use clawboo_testkit::bench;

fn main() {
    let dir = tempfile::tempdir().expect("a temp folder");
    let engine = Engine::open(EngineConfig::for_dir(dir.path().join("data"))).expect("the engine opens");
    let agent = engine
        .agents()
        .create(NewAgent {
            name: "Ada".into(),
            handle: "ada".into(),
            description: String::new(),
            tint: "#336699".into(),
            runtime: RuntimeKind::Native,
            model: "some-model".into(),
            approval_policy: ApprovalPolicy::Ask,
            provider: None,
        })
        .expect("the agent is made");
    let team = engine
        .teams()
        .create(NewTeam { name: "Bench".into(), member_ids: vec![agent.id.clone()], leader_id: None })
        .expect("the team is made");
    let room = team.rooms[0].id.clone();
    let db = engine.config().database_path();
    clawboo_testkit::seed_chat(&db, &agent.id, 59);
    seed_usage(&db, &agent.id, &team.id);
    let guard = engine.guard();
    for (scope, id) in [
        (BudgetScope::Overall, String::new()),
        (BudgetScope::Agent, agent.id.clone()),
        (BudgetScope::Team, team.id.clone()),
        (BudgetScope::Routine, "routine-1".to_owned()),
    ] {
        for period in [BudgetPeriod::Day, BudgetPeriod::Month] {
            let input =
                BudgetInput { scope, scope_id: id.clone(), period, unit: BudgetUnit::Tokens, amount: u64::MAX >> 2 };
            guard.set_budget(input).expect("a budget is set");
        }
    }
    let scope = RunScope {
        agent_id: agent.id.clone(),
        team_id: Some(team.id.clone()),
        room_id: Some(room),
        routine_id: Some("routine-1".into()),
    };
    guard.check_start(&scope).expect("the run may start");

    let runs = bench::samples(2_000, 200);
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(guard.check_start(black_box(&scope))).expect("the run may start");
            start.elapsed()
        })
        .collect();
    samples.sort();
    let median = bench::ms(samples[samples.len() / 2]);
    let p95 = bench::ms(samples[samples.len() * 95 / 100]);
    println!("{:<44} median {:>8.3} ms (p95 {p95:.3} ms)", "budget and breaker check before a run", median);
    bench::report("guard.check_start_ms", "A run's budget and breaker check", "ms", median, runs);
}

/// 62 days of spend for 1,000 agents (and the bench's own agent, in its team and routine),
/// straight into the spend's per-day table.
fn seed_usage(db: &std::path::Path, agent_id: &str, team_id: &str) {
    let conn = rusqlite::Connection::open(db).expect("open the database to seed");
    conn.busy_timeout(Duration::from_secs(5)).expect("busy timeout");
    let tx = conn.unchecked_transaction().expect("begin");
    let today = clawboo_engine::spend::today();
    {
        let mut insert = tx
            .prepare(
                "INSERT INTO spend_days (day, agent_id, team_id, routine_id, card_id, runtime, provider, model, billing,
                     requests, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_micros, unpriced_tokens)
                 VALUES (?1, ?2, ?3, ?4, '', 'native', 'anthropic', 'claude-sonnet-4-5', 'api', 1, 1000, 0, 0, 0, 3000, 0)",
            )
            .expect("prepare");
        let mut scopes: Vec<(String, &str, &str)> = (0..1_000).map(|i| (format!("agent-{i}"), "", "")).collect();
        scopes.push((agent_id.to_owned(), team_id, "routine-1"));
        for (agent, team, routine) in &scopes {
            for back in 0..62 {
                let day = today.checked_sub(jiff::Span::new().days(back)).expect("a day");
                insert.execute(rusqlite::params![day.to_string(), agent, team, routine]).expect("a spend day");
            }
        }
    }
    // The days' totals, as recording keeps them (what the overall budget reads).
    tx.execute_batch(
        "INSERT OR REPLACE INTO spend_all_days
         SELECT day, SUM(requests), SUM(input_tokens), SUM(output_tokens), SUM(cache_read_tokens),
                SUM(cache_write_tokens), COALESCE(SUM(cost_micros), 0), SUM(unpriced_tokens), 0
         FROM spend_days GROUP BY day",
    )
    .expect("the days' totals");
    tx.commit().expect("commit the seed");
}
