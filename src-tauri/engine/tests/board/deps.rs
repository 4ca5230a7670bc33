//! Dependencies: a card waits until every card it depends on is Done (a cancelled one still
//! holds it), and no save may close a cycle.

use clawboo_engine::board::{ActivityKind, Actor, Board, Card, CardEdit, CardStatus};
use clawboo_engine::ErrorCode;

use super::{card, new_card, Fixture};

fn depend(board: &Board, c: &Card, on: &[&Card]) -> clawboo_engine::Result<Card> {
    let ids = on.iter().map(|d| d.id.clone()).collect();
    board.edit(Actor::User, &c.id, CardEdit { depends_on: Some(ids), ..CardEdit::default() })
}

fn finish(board: &Board, c: &Card) {
    let run = format!("run-{}", c.number);
    board.claim(&c.id, &run).unwrap();
    board.release(&c.id, &run, CardStatus::Done, None).unwrap();
}

#[test]
fn a_card_waits_until_its_dependencies_are_done() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let board = engine.board();
    let (research, draft) = (card(&engine, "Research"), card(&engine, "Draft"));
    let mut new = new_card("Publish");
    new.depends_on = vec![research.id.clone(), draft.id.clone(), research.id.clone()];
    let publish = board.create(Actor::User, new).unwrap();
    assert_eq!(publish.depends_on, [research.id.clone(), draft.id.clone()], "each once, in order");
    assert_eq!(publish.waiting_on, publish.depends_on);

    let err = board.claim(&publish.id, "run-x").unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert!(err.to_string().contains("waiting on #1, #2"), "{err}");

    finish(board, &research);
    assert_eq!(board.get(&publish.id).unwrap().waiting_on, std::slice::from_ref(&draft.id));
    let err = board.claim(&publish.id, "run-x").unwrap_err();
    assert!(err.to_string().contains("waiting on #2 ("), "{err}");

    // Cancelled is not done: the card still waits until the user removes the dependency.
    board.move_card(Actor::User, &draft.id, CardStatus::Cancelled, None, None).unwrap();
    assert!(board.claim(&publish.id, "run-x").unwrap_err().to_string().contains("#2"));
    let freed = depend(board, &publish, &[&research]).unwrap();
    assert!(freed.waiting_on.is_empty());
    assert_eq!(board.claim(&publish.id, "run-x").unwrap().status, CardStatus::InProgress);
    let kinds: Vec<ActivityKind> =
        board.detail(&publish.id).unwrap().activity.into_iter().map(|a| a.activity).collect();
    assert!(kinds.contains(&ActivityKind::DependencyRemoved { card_id: draft.id.clone() }), "{kinds:?}");
}

#[test]
fn deleting_a_dependency_frees_the_card_and_says_so() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let board = engine.board();
    let (first, second) = (card(&engine, "First"), card(&engine, "Second"));
    depend(board, &second, &[&first]).unwrap();
    board.delete(&first.id).unwrap();
    let after = board.detail(&second.id).unwrap();
    assert!(after.card.depends_on.is_empty() && after.card.waiting_on.is_empty());
    let last = after.activity.last().unwrap();
    assert_eq!((&last.actor, &last.activity), (&Actor::User, &ActivityKind::DependencyRemoved { card_id: first.id }));
}

#[test]
fn a_dependency_that_closes_a_cycle_is_refused_naming_it() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let board = engine.board();
    let cards: Vec<Card> = (1..=4).map(|i| card(&engine, &format!("Card {i}"))).collect();
    let (c1, c2, c3, c4) = (&cards[0], &cards[1], &cards[2], &cards[3]);

    let refused = |c: &Card, on: &[&Card], cycle: &str| {
        let err = depend(board, c, on).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput, "{err}");
        assert!(err.to_string().contains(cycle), "{err} should name {cycle}");
    };
    refused(c1, &[c1], "#1 → #1");
    depend(board, c1, &[c2]).unwrap();
    refused(c2, &[c1], "#2 → #1 → #2");
    depend(board, c2, &[c3]).unwrap();
    refused(c3, &[c4, c1], "#3 → #1 → #2 → #3");
    // A diamond is not a cycle.
    depend(board, c4, &[c2, c3]).unwrap();
    depend(board, c1, &[c2, c4]).unwrap();
    refused(c3, &[c4], "#3 → #4 → #3");
    assert!(board.get(&c3.id).unwrap().depends_on.is_empty(), "a refused save changes nothing");
}
