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

#[test]
fn a_spent_budget_refuses_runs_until_raised_or_allowed() {
    let (_dir, guard) = guard();
    let scope = RunScope { agent_id: "a1".into(), team_id: Some("t1".into()), ..RunScope::default() };
    guard.set_budget(tokens(BudgetScope::Team, "t1", BudgetPeriod::Day, 1_000)).unwrap();
    assert_eq!(guard.record_usage(&scope, 700, 0).unwrap(), None);
    let note = guard.record_usage(&scope, 300, 0).unwrap().expect("spent at its figure");
    assert!(note.contains("1,000 tokens") && note.contains("stopped after its model call"), "{note}");

    let refused = guard.check_start(&scope).unwrap_err();
    assert_eq!(refused.code(), crate::error::ErrorCode::BudgetExhausted);
    assert!(refused.to_string().contains("1,000 tokens today"), "{refused}");
    // Another agent outside the team is not held by the team's budget.
    guard.check_start(&RunScope::agent("a2")).unwrap();

    guard.allow_until_tomorrow(BudgetScope::Team, "t1", BudgetPeriod::Day).unwrap();
    guard.check_start(&scope).unwrap();
    guard.set_budget(tokens(BudgetScope::Team, "t1", BudgetPeriod::Day, 999)).unwrap();
    assert_eq!(guard.check_start(&scope).unwrap_err().code(), crate::error::ErrorCode::BudgetExhausted);
    let raised = guard.set_budget(tokens(BudgetScope::Team, "t1", BudgetPeriod::Day, 2_000)).unwrap();
    assert_eq!((raised.spent, raised.amount), (1_000, 2_000));
    guard.check_start(&scope).unwrap();
}

#[test]
fn usage_counts_for_every_scope_of_the_run_and_the_month() {
    let (_dir, guard) = guard();
    let scope = RunScope {
        agent_id: "a1".into(),
        team_id: Some("t1".into()),
        routine_id: Some("r1".into()),
        ..RunScope::default()
    };
    for input in [
        tokens(BudgetScope::Overall, "", BudgetPeriod::Month, 10_000),
        tokens(BudgetScope::Agent, "a1", BudgetPeriod::Day, 10_000),
        tokens(BudgetScope::Routine, "r1", BudgetPeriod::Day, 10_000),
        BudgetInput { unit: BudgetUnit::Usd, ..tokens(BudgetScope::Team, "t1", BudgetPeriod::Month, 5_000_000) },
    ] {
        guard.set_budget(input).unwrap();
    }
    guard.record_usage(&scope, 1_234, 1_500_000).unwrap();
    guard.record_usage(&RunScope::agent("a2"), 10, 0).unwrap();
    let spent: Vec<(BudgetScope, u64)> = guard.budgets().unwrap().iter().map(|b| (b.scope, b.spent)).collect();
    assert_eq!(
        spent,
        [
            (BudgetScope::Agent, 1_234),
            (BudgetScope::Overall, 1_244),
            (BudgetScope::Routine, 1_234),
            (BudgetScope::Team, 1_500_000)
        ]
    );
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
