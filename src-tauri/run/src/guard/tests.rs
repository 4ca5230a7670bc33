//! The guards over a real store (no attention: what trips is refused all the same).

use super::*;

fn guard() -> (tempfile::TempDir, Guard) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("clawboo.db")).unwrap());
    (dir, Guard::new(store))
}

fn tokens(scope: BudgetScope, id: &str, period: BudgetPeriod, amount: u64) -> BudgetInput {
    BudgetInput { scope, scope_id: id.into(), period, unit: BudgetUnit::Tokens, amount }
}

#[test]
fn limits_default_as_stated_and_are_kept() {
    let (_dir, guard) = guard();
    assert_eq!(guard.limits().unwrap(), Limits::DEFAULT);
    assert_eq!(
        (Limits::DEFAULT.runs_per_hour, Limits::DEFAULT.handoffs_per_ten_minutes, Limits::DEFAULT.repeated_tool_calls),
        (60, 30, 5)
    );
    let set = guard.set_limits(Limits { runs_per_hour: 10, routine_failures: 9, ..Limits::DEFAULT }).unwrap();
    assert_eq!(set, Limits { runs_per_hour: 10, ..Limits::DEFAULT }, "the routines' rule is not the user's to change");
    assert_eq!(guard.limits().unwrap(), set);
    let zero = guard.set_limits(Limits { handoffs_per_ten_minutes: 0, ..Limits::DEFAULT }).unwrap_err();
    assert_eq!(zero.code(), crate::error::ErrorCode::InvalidInput);
}

/// Agent a1 in team t1 (a run in its room), agent a2 on its own (a direct run).
const SEED: &str = "
    INSERT INTO agents (id, name, handle, tint, runtime, model, created_at, updated_at)
        VALUES ('a1', 'Ada', 'ada', '#000', 'native', 'claude-sonnet-4-5', 0, 0),
               ('a2', 'Bo', 'bo', '#000', 'claude-code', 'claude-sonnet-4-5', 0, 0);
    INSERT INTO teams (id, name, created_at, updated_at) VALUES ('t1', 'Crew', 0, 0);
    INSERT INTO rooms (id, team_id, name, is_general, position, created_at) VALUES ('general', 't1', 'General', 1, 0, 0);
    INSERT INTO conversations (id, agent_id, kind, room_id, epoch, created_at) VALUES ('room', 'a1', 'room', 'general', 0, 0);
    INSERT INTO conversations (id, agent_id, kind, epoch, created_at) VALUES ('direct', 'a2', 'direct', 0, 0);
    INSERT INTO runs (id, conversation_id, agent_id, runtime, status, started_at) VALUES ('r1', 'room', 'a1', 'native', 'running', 0);
    INSERT INTO runs (id, conversation_id, agent_id, runtime, status, started_at) VALUES ('r2', 'direct', 'a2', 'claude-code', 'running', 0);
";

fn seeded(clock: Arc<crate::vocab::clock::ManualClock>) -> (tempfile::TempDir, Arc<Store>, Guard) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("clawboo.db")).unwrap());
    store.write(|tx| Ok(tx.execute_batch(SEED)?)).unwrap();
    let guard = Guard::new(store.clone()).with_clock(clock);
    (dir, store, guard)
}

fn usage(input: u64, output: u64, cache_read: u64) -> clawboo_spend::Usage {
    clawboo_spend::Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: cache_read,
        cache_write_tokens: 0,
    }
}

/// A model call of `run` relayed at `at` on Claude Sonnet 4.5 (priced), counted as the relay does.
fn relayed(store: &Store, run: &str, at: i64, tokens: clawboo_spend::Usage) -> i64 {
    store
        .write(|tx| {
            clawboo_spend::record::mark_relayed(tx, run)?;
            clawboo_spend::record::record_relayed(tx, run, at, "anthropic", "claude-sonnet-4-5", &tokens)
        })
        .unwrap()
        .expect("priced")
}

/// A CLI's usage report of `run` on its own sign-in, counted as the recorder does.
fn on_sign_in(store: &Store, run: &str, at: i64, tokens: clawboo_spend::Usage) {
    assert!(store.write(|tx| clawboo_spend::record::record_cli_usage(tx, run, at, &tokens)).unwrap());
}

/// Noon, local time, on 2026-06-15.
fn local_noon() -> i64 {
    clawboo_spend::day_start_ms(jiff::civil::date(2026, 6, 15)) + 12 * 3_600_000
}

#[test]
fn a_spent_budget_refuses_runs_until_raised_or_allowed() {
    let clock = Arc::new(crate::vocab::clock::ManualClock::new(local_noon()));
    let (_dir, store, guard) = seeded(clock.clone());
    let scope = RunScope { agent_id: "a1".into(), team_id: Some("t1".into()), ..RunScope::default() };
    guard.set_budget(tokens(BudgetScope::Team, "t1", BudgetPeriod::Day, 1_000)).unwrap();
    relayed(&store, "r1", local_noon(), usage(600, 100, 0));
    assert_eq!(guard.check_spent(&scope).unwrap(), None);
    relayed(&store, "r1", local_noon(), usage(200, 100, 0));
    let note = guard.check_spent(&scope).unwrap().expect("spent at its figure");
    assert!(note.contains("1,000 tokens") && note.contains("stopped after its model call"), "{note}");

    let refused = guard.check_start(&scope).unwrap_err();
    assert_eq!(refused.code(), crate::error::ErrorCode::BudgetExhausted);
    assert!(refused.to_string().contains("1,000 tokens today"), "{refused}");
    // Another agent outside the team is not held by the team's budget.
    guard.check_start(&RunScope::agent("a2")).unwrap();

    guard.allow_until_tomorrow(BudgetScope::Team, "t1", BudgetPeriod::Day).unwrap();
    guard.check_start(&scope).unwrap();
    let allowed = guard.budgets().unwrap().pop().unwrap().allowed_until.unwrap();
    assert_eq!(allowed, clawboo_spend::day_start_ms(jiff::civil::date(2026, 6, 16)), "until the next local midnight");
    guard.set_budget(tokens(BudgetScope::Team, "t1", BudgetPeriod::Day, 999)).unwrap();
    assert_eq!(guard.check_start(&scope).unwrap_err().code(), crate::error::ErrorCode::BudgetExhausted);
    let raised = guard.set_budget(tokens(BudgetScope::Team, "t1", BudgetPeriod::Day, 2_000)).unwrap();
    assert_eq!((raised.spent, raised.amount), (1_000, 2_000));
    guard.check_start(&scope).unwrap();
}

#[test]
fn budgets_count_what_the_spend_counts_money_only_where_priced() {
    let clock = Arc::new(crate::vocab::clock::ManualClock::new(local_noon()));
    let (_dir, store, guard) = seeded(clock);
    let money = |scope, id: &str, period| BudgetInput {
        scope,
        scope_id: id.into(),
        period,
        unit: BudgetUnit::Usd,
        amount: 5_000_000,
    };
    for input in [
        tokens(BudgetScope::Overall, "", BudgetPeriod::Month, 1_000_000),
        money(BudgetScope::Overall, "", BudgetPeriod::Day),
        tokens(BudgetScope::Agent, "a2", BudgetPeriod::Day, 1_000_000),
        money(BudgetScope::Agent, "a2", BudgetPeriod::Month),
        money(BudgetScope::Team, "t1", BudgetPeriod::Day),
    ] {
        guard.set_budget(input).unwrap();
    }
    let cost = relayed(&store, "r1", local_noon(), usage(1_000, 200, 2_000))
        + relayed(&store, "r1", local_noon(), usage(10, 20, 0));
    on_sign_in(&store, "r2", local_noon(), usage(300, 50, 4_000));
    let spent: Vec<(BudgetScope, BudgetPeriod, BudgetUnit, u64)> =
        guard.budgets().unwrap().iter().map(|b| (b.scope, b.period, b.unit, b.spent)).collect();
    let cost = u64::try_from(cost).unwrap();
    assert!(cost > 0);
    assert_eq!(
        spent,
        [
            // On its own sign-in: tokens, never money.
            (BudgetScope::Agent, BudgetPeriod::Day, BudgetUnit::Tokens, 4_350),
            (BudgetScope::Agent, BudgetPeriod::Month, BudgetUnit::Usd, 0),
            (BudgetScope::Overall, BudgetPeriod::Day, BudgetUnit::Usd, cost),
            (BudgetScope::Overall, BudgetPeriod::Month, BudgetUnit::Tokens, 3_230 + 4_350),
            (BudgetScope::Team, BudgetPeriod::Day, BudgetUnit::Usd, cost),
        ]
    );
    // Exactly the spend's own totals.
    let today = clawboo_spend::day_of(local_noon());
    let team =
        store.read(|c| clawboo_spend::totals(c, &clawboo_spend::Scope::Team("t1".into()), today, today)).unwrap();
    assert_eq!(u64::try_from(team.cost_micros).unwrap(), cost);
}

#[test]
fn a_daily_budget_counts_afresh_at_local_midnight_and_a_monthly_one_at_the_month() {
    let last_of_june = clawboo_spend::day_start_ms(jiff::civil::date(2026, 7, 1)) - 1;
    let clock = Arc::new(crate::vocab::clock::ManualClock::new(last_of_june - 60_000));
    let (_dir, store, guard) = seeded(clock.clone());
    let scope = RunScope::agent("a2");
    guard.set_budget(tokens(BudgetScope::Agent, "a2", BudgetPeriod::Day, 1_000)).unwrap();
    guard.set_budget(tokens(BudgetScope::Overall, "", BudgetPeriod::Month, 1_500)).unwrap();
    // A minute before local midnight: the call counts for June 30th.
    on_sign_in(&store, "r2", last_of_june - 60_000, usage(1_000, 0, 0));
    assert!(guard.check_spent(&scope).unwrap().is_some());
    clock.set(last_of_june);
    assert_eq!(guard.check_start(&scope).unwrap_err().code(), crate::error::ErrorCode::BudgetExhausted);

    // Midnight, local: July 1st. Both periods start again, on the days the spend keeps.
    clock.set(last_of_june + 1);
    guard.check_start(&scope).unwrap();
    assert!(guard.budgets().unwrap().iter().all(|b| b.spent == 0));
    on_sign_in(&store, "r2", last_of_june + 1_000, usage(600, 0, 0));
    let spent: Vec<u64> = guard.budgets().unwrap().iter().map(|b| b.spent).collect();
    assert_eq!(spent, [600, 600]);

    // Later in July, the day has changed but the month holds both days' calls.
    clock.set(last_of_june + 1 + 86_400_000 + 3_600_000);
    on_sign_in(&store, "r2", clock.now(), usage(900, 0, 0));
    let by_period: Vec<(BudgetPeriod, u64)> = guard.budgets().unwrap().iter().map(|b| (b.period, b.spent)).collect();
    assert_eq!(by_period, [(BudgetPeriod::Day, 900), (BudgetPeriod::Month, 1_500)]);
    assert!(guard.check_spent(&scope).unwrap().unwrap().contains("overall monthly token budget (1,500 tokens)"));
}

#[test]
fn a_budget_names_its_scope_rightly() {
    let (_dir, guard) = guard();
    let overall_with_id = guard.set_budget(tokens(BudgetScope::Overall, "x", BudgetPeriod::Day, 5)).unwrap_err();
    assert_eq!(overall_with_id.code(), crate::error::ErrorCode::InvalidInput);
    let agent_without = guard.set_budget(tokens(BudgetScope::Agent, "", BudgetPeriod::Day, 5)).unwrap_err();
    assert_eq!(agent_without.code(), crate::error::ErrorCode::InvalidInput);
    assert_eq!(
        guard.set_budget(tokens(BudgetScope::Agent, "a", BudgetPeriod::Day, 0)).unwrap_err().code(),
        crate::error::ErrorCode::InvalidInput
    );
    guard.set_budget(tokens(BudgetScope::Agent, "a", BudgetPeriod::Day, 5)).unwrap();
    guard.remove_budget(BudgetScope::Agent, "a", BudgetPeriod::Day).unwrap();
    assert!(guard.budgets().unwrap().is_empty());
}
