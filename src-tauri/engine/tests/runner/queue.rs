//! At most `maxConcurrent` runs at once; the rest wait and all finish, each claimed once.

use std::collections::HashSet;
use std::sync::atomic::Ordering;

use clawboo_engine::board::{CardRunStatus, CardStatus};
use clawboo_engine::runner::{RunnerSettings, StartOptions};

use super::fixture;

#[test]
fn twenty_cards_with_a_limit_of_four_all_finish_never_more_than_four_at_once() {
    let f = fixture();
    let settings = f.engine.runner().set_settings(RunnerSettings { max_concurrent: 4, ..Default::default() }).unwrap();
    assert_eq!(f.engine.runner().settings().unwrap(), settings, "stored");
    let cards: Vec<_> = (0..20).map(|i| f.card(&format!("slow task {i}"))).collect();
    let mut claims = HashSet::new();
    let mut queued = 0;
    for card in &cards {
        let started = f.engine.runner().start(&card.id, StartOptions::default()).unwrap();
        assert!(claims.insert(started.run_id), "every claim is its own");
        queued += usize::from(started.queued);
    }
    assert!(queued >= 16 - 4, "most wait for a slot ({queued} queued)");
    for card in &cards {
        let done = f.settled(card);
        assert_eq!(done.status, CardStatus::InReview, "#{}: {:?}", done.number, done.blocked_reason);
        let runs = f.engine.board().runs(&card.id).unwrap();
        assert_eq!(runs.len(), 1, "#{} ran once", done.number);
        assert_eq!(runs[0].status, CardRunStatus::Succeeded);
        assert!(claims.contains(&runs[0].run_id));
    }
    let most = f.runtime.most_at_once.load(Ordering::SeqCst);
    assert!(most <= 4, "{most} runs at once");
    assert!(most >= 2, "runs overlap ({most} at most)");
    assert_eq!(f.runtime.inputs.lock().unwrap().len(), 20, "no card ran twice");
    // A limit outside 1..=32 is refused.
    let err = f.engine.runner().set_settings(RunnerSettings { max_concurrent: 0, ..Default::default() }).unwrap_err();
    assert_eq!(err.code(), clawboo_engine::ErrorCode::InvalidInput);
}

#[test]
fn a_waiting_card_can_be_stopped_before_it_starts() {
    let f = fixture();
    f.engine.runner().set_settings(RunnerSettings { max_concurrent: 1, ..Default::default() }).unwrap();
    let gate = f.card("wait at the gate");
    f.start(&gate);
    f.wait_inputs("wait at the gate", 1);
    let later = f.card("never started");
    assert!(f.engine.runner().start(&later.id, StartOptions::default()).unwrap().queued);
    f.engine.runner().cancel(&later.id).unwrap();
    let card = f.engine.board().get(&later.id).unwrap();
    assert_eq!(card.status, CardStatus::Todo);
    assert!(f.engine.board().runs(&later.id).unwrap().is_empty(), "no run was made");
    f.engine.runner().cancel(&gate.id).unwrap();
    f.settled(&gate);
    assert!(f.runtime.inputs_for("never started").is_empty());
}
