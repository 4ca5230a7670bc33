//! The table of allowed moves, Blocked's reason, reordering, and claims: atomic (one winner
//! however many race, on one service or two on the same file), refused with the reason, and
//! released only by the run that holds them.

use std::sync::{Arc, Barrier};

use clawboo_engine::board::{ActivityKind, Actor, Board, Card, CardStatus, NewCard};
use clawboo_engine::store::Store;
use clawboo_engine::{Engine, ErrorCode, EventBus};

use super::{card, new_card, Fixture};

/// A fresh card brought to `status` the way a card gets there.
fn card_in(engine: &Engine, status: CardStatus, n: usize) -> Card {
    let board = engine.board();
    let mut new: NewCard = new_card(&format!("Card {n}"));
    if status == CardStatus::Backlog {
        new.status = Some(CardStatus::Backlog);
    }
    let c = board.create(Actor::User, new).unwrap();
    let run = format!("run-{n}");
    let moved = match status {
        CardStatus::Backlog | CardStatus::Todo => c,
        CardStatus::InProgress => board.claim(&c.id, &run).unwrap(),
        CardStatus::InReview | CardStatus::Done => {
            board.claim(&c.id, &run).unwrap();
            board.release(&c.id, &run, status, None).unwrap()
        }
        CardStatus::Blocked => board.move_card(Actor::User, &c.id, status, Some("waiting".into()), None).unwrap(),
        CardStatus::Cancelled => board.move_card(Actor::User, &c.id, status, None, None).unwrap(),
    };
    assert_eq!(moved.status, status);
    moved
}

#[test]
fn every_allowed_move_works_and_every_other_is_refused_naming_both_columns() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let mut n = 0;
    for from in CardStatus::ALL {
        for to in CardStatus::ALL.into_iter().filter(|to| *to != from) {
            n += 1;
            let c = card_in(&engine, from, n);
            let reason = (to == CardStatus::Blocked).then(|| "needs input".to_owned());
            let moved = engine.board().move_card(Actor::User, &c.id, to, reason, None);
            if from.can_move_to(to) {
                let moved = moved.unwrap_or_else(|e| panic!("{from:?} → {to:?}: {e}"));
                assert_eq!(moved.status, to);
                assert_eq!(moved.claimed_by_run, None, "only a claim holds a card");
                assert_eq!(moved.blocked_reason.is_some(), to == CardStatus::Blocked);
            } else {
                let err = moved.expect_err(&format!("{from:?} → {to:?} must be refused"));
                let text = err.to_string();
                assert_eq!(err.code(), ErrorCode::InvalidInput, "{text}");
                assert!(text.contains(to.label()), "{from:?} → {to:?}: {text}");
                if from != CardStatus::InProgress {
                    assert!(text.contains(from.label()), "{from:?} → {to:?}: {text}");
                }
                assert_eq!(engine.board().get(&c.id).unwrap().status, from, "nothing changed");
            }
        }
    }
    let err = engine.board().move_card(
        Actor::User,
        &card_in(&engine, CardStatus::Done, 99).id,
        CardStatus::InReview,
        None,
        None,
    );
    let text = err.unwrap_err().to_string();
    assert!(text.contains("Done") && text.contains("To do") && text.contains("reopen"), "{text}");
}

#[test]
fn blocked_needs_a_reason_and_leaving_it_clears_the_reason() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let c = card(&engine, "Ship");
    let board = engine.board();
    let err = board.move_card(Actor::User, &c.id, CardStatus::Blocked, Some("  ".into()), None).unwrap_err();
    assert!(err.to_string().contains("needs a reason"), "{err}");
    let blocked = board.move_card(Actor::User, &c.id, CardStatus::Blocked, Some(" Waiting on legal ".into()), None);
    assert_eq!(blocked.unwrap().blocked_reason.as_deref(), Some("Waiting on legal"));
    let reworded = board.move_card(Actor::User, &c.id, CardStatus::Blocked, Some("Legal replied: no".into()), None);
    assert_eq!(reworded.unwrap().blocked_reason.as_deref(), Some("Legal replied: no"), "a new reason, same column");
    let back = board.move_card(Actor::User, &c.id, CardStatus::Todo, None, None).unwrap();
    assert_eq!((back.status, back.blocked_reason), (CardStatus::Todo, None));
    let moves: Vec<ActivityKind> =
        board.detail(&c.id).unwrap().activity.into_iter().map(|a| a.activity).skip(1).collect();
    assert_eq!(
        moves,
        [
            ActivityKind::Moved {
                from: CardStatus::Todo,
                to: CardStatus::Blocked,
                reason: Some("Waiting on legal".into())
            },
            ActivityKind::Edited { fields: vec!["blockedReason".into()] },
            ActivityKind::Moved { from: CardStatus::Blocked, to: CardStatus::Todo, reason: None },
        ]
    );
}

#[test]
fn reordering_within_a_column_changes_only_the_position() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let (a, b) = (card(&engine, "A"), card(&engine, "B"));
    let board = engine.board();
    let moved = board.move_card(Actor::User, &b.id, CardStatus::Todo, None, Some(a.position - 1.0)).unwrap();
    assert_eq!(moved.status, CardStatus::Todo);
    let order: Vec<String> = board.list(&Default::default()).unwrap().into_iter().map(|c| c.title).collect();
    assert_eq!(order, ["B", "A"]);
    assert_eq!(board.detail(&b.id).unwrap().activity.len(), 1, "a reorder is not a move");
    let err = board.move_card(Actor::User, &b.id, CardStatus::Todo, None, Some(f64::NAN)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    // Moving to another column at a position puts it there.
    let c = board.move_card(Actor::User, &a.id, CardStatus::Backlog, None, Some(7.5)).unwrap();
    assert_eq!((c.status, c.position), (CardStatus::Backlog, 7.5));
}

#[test]
fn a_claim_moves_the_card_in_progress_and_leaving_releases_it() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let c = card(&engine, "Build");
    let board = engine.board();
    let claimed = board.claim(&c.id, "run-1").unwrap();
    assert_eq!((claimed.status, claimed.claimed_by_run.as_deref()), (CardStatus::InProgress, Some("run-1")));
    assert_eq!(board.claimed_cards().unwrap(), [(c.id.clone(), "run-1".to_owned())]);

    let err = board.release(&c.id, "run-2", CardStatus::Done, None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert!(err.to_string().contains("run-1 holds it"), "{err}");
    let err = board.release(&c.id, "run-1", CardStatus::Blocked, None).unwrap_err();
    assert!(err.to_string().contains("needs a reason"), "{err}");
    let err = board.delete(&c.id).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert!(err.to_string().contains("being worked on"), "{err}");

    let released = board.release(&c.id, "run-1", CardStatus::InReview, None).unwrap();
    assert_eq!((released.status, released.claimed_by_run), (CardStatus::InReview, None));
    // Claimed again from In review (a fix round), then the user cancels it: the claim ends.
    board.claim(&c.id, "run-2").unwrap();
    let cancelled = board.move_card(Actor::User, &c.id, CardStatus::Cancelled, None, None).unwrap();
    assert_eq!(cancelled.claimed_by_run, None);
    assert!(board.claimed_cards().unwrap().is_empty());
    let activity: Vec<(Actor, ActivityKind)> =
        board.detail(&c.id).unwrap().activity.into_iter().map(|a| (a.actor, a.activity)).skip(1).collect();
    use ActivityKind::*;
    use CardStatus::*;
    assert_eq!(
        activity,
        [
            (Actor::Clawboo, Claimed { run_id: "run-1".into() }),
            (Actor::Clawboo, Moved { from: InProgress, to: InReview, reason: None }),
            (Actor::Clawboo, Released { run_id: "run-1".into() }),
            (Actor::Clawboo, Claimed { run_id: "run-2".into() }),
            (Actor::User, Moved { from: InProgress, to: Cancelled, reason: None }),
            (Actor::User, Released { run_id: "run-2".into() }),
        ]
    );
    board.delete(&c.id).unwrap();
}

#[test]
fn a_refused_claim_says_why() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let board = engine.board();
    let c = card(&engine, "Build");
    board.claim(&c.id, "run-1").unwrap();
    let err = board.claim(&c.id, "run-2").unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert!(err.to_string().contains("already claimed by run run-1"), "{err}");

    let done = card_in(&engine, CardStatus::Done, 2);
    let err = board.claim(&done.id, "run-3").unwrap_err();
    assert!(err.to_string().contains("is Done; reopen it"), "{err}");
    let cancelled = card_in(&engine, CardStatus::Cancelled, 3);
    assert!(board.claim(&cancelled.id, "run-4").unwrap_err().to_string().contains("Cancelled"));
    assert_eq!(board.claim("no-such-card", "run-5").unwrap_err().code(), ErrorCode::NotFound);
    assert_eq!(board.claim(&cancelled.id, " ").unwrap_err().code(), ErrorCode::InvalidInput);
    // Blocked is claimable; the claim clears the reason.
    let blocked = card_in(&engine, CardStatus::Blocked, 4);
    let claimed = board.claim(&blocked.id, "run-6").unwrap();
    assert_eq!((claimed.status, claimed.blocked_reason), (CardStatus::InProgress, None));
}

/// `contenders` threads claim one fresh card at once, `rounds` times; each round exactly one wins.
fn race(boards: &[Arc<Board>], contenders: usize, rounds: usize) {
    for round in 0..rounds {
        let c = boards[0].create(Actor::User, new_card(&format!("Round {round}"))).unwrap();
        let start = Arc::new(Barrier::new(contenders));
        let threads: Vec<_> = (0..contenders)
            .map(|i| {
                let (board, start, id) = (boards[i % boards.len()].clone(), start.clone(), c.id.clone());
                std::thread::spawn(move || {
                    start.wait();
                    board.claim(&id, &format!("run-{round}-{i}"))
                })
            })
            .collect();
        let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let winners: Vec<&Card> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        for err in results.iter().filter_map(|r| r.as_ref().err()) {
            assert_eq!(err.code(), ErrorCode::Conflict, "{err}");
            assert!(err.to_string().contains("already claimed"), "{err}");
        }
        let holder = boards[1 % boards.len()].get(&c.id).unwrap().claimed_by_run;
        assert_eq!(holder, winners[0].claimed_by_run, "the winner holds it, seen from every service");
    }
}

#[test]
fn many_threads_racing_on_one_board_make_exactly_one_claim() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    race(&[engine.board().clone()], 8, 50);
}

#[test]
fn two_boards_on_the_same_database_file_make_exactly_one_claim() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    // A second service with its own connections to the same file, as a second process would.
    let other = Store::open(&engine.config().database_path()).unwrap();
    let second = Arc::new(Board::new(Arc::new(other), EventBus::new()));
    race(&[engine.board().clone(), second], 2, 50);
}
