//! Runs cut off by a quit or a crash: marked cut off at the next start, their cards back in To
//! do, and the card's next run warned to check what the cut-off one did.

use clawboo_engine::board::{CardRunKind, CardRunStatus, CardStatus};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::context::SectionKind;

use super::{fixture, fixture_with, Fixture, Scripted};

/// The engine quits with the run going, and opens again on the same folder.
fn quit_mid_run(title: &str) -> (Fixture, String, String) {
    let f = fixture();
    let card = f.card(title);
    let run_id = f.start(&card);
    f.wait_inputs(title, 1);
    let Fixture { data, engine, .. } = f;
    drop(engine); // the app quits: its runs are stopped
    let f = fixture_with(data, Scripted { never_wait: true, ..Scripted::default() }, false);
    (f, card.id, run_id)
}

#[test]
fn a_run_cut_off_by_a_quit_is_marked_and_the_next_run_is_warned() {
    let (f, card_id, run_id) = quit_mid_run("wait for the quit");
    let card = f.engine.board().get(&card_id).unwrap();
    assert_eq!(card.status, CardStatus::Todo, "{:?}", card.blocked_reason);
    assert!(card.claimed_by_run.is_none());
    let runs = f.engine.board().runs(&card_id).unwrap();
    assert_eq!(runs[0].status, CardRunStatus::Interrupted);
    assert_eq!(f.engine.chat().run(&run_id).unwrap().status, RunStatus::Interrupted);

    let next = f.start(&card);
    let done = f.settled(&card);
    assert_eq!(done.status, CardStatus::InReview);
    let seen = f.engine.runner().run_context(&next).unwrap();
    let kinds: Vec<_> = seen.sections.iter().map(|s| s.kind).collect();
    assert!(kinds.contains(&SectionKind::CutOff), "{kinds:?}");
    let resume = seen.sections.iter().find(|s| s.kind == SectionKind::Resume).expect("where it left off");
    assert!(resume.text.contains("Started; waiting."), "{}", resume.text);
    let runs = f.engine.board().runs(&card_id).unwrap();
    assert_eq!(
        runs.iter().map(|r| (r.attempt, r.kind)).collect::<Vec<_>>(),
        [(1, CardRunKind::Run), (2, CardRunKind::Run)]
    );
}

#[test]
fn a_run_left_going_by_a_crash_is_cut_off_at_the_next_start() {
    let f = fixture();
    let card = f.card("crash course");
    let run_id = f.start(&card);
    let done = f.settled(&card);
    assert_eq!(done.status, CardStatus::InReview);
    let Fixture { data, engine, .. } = f;
    drop(engine);
    // What a crash mid-run leaves: the run going, the card held by it.
    let db = rusqlite::Connection::open(data.data_dir().join("clawboo.db")).unwrap();
    db.execute_batch(&format!(
        "UPDATE runs SET status = 'running', finished_at = NULL WHERE id = '{run_id}';
         UPDATE card_runs SET status = 'running', finished_at = NULL WHERE run_id = '{run_id}';
         UPDATE cards SET status = 'in_progress', claimed_by_run = '{run_id}' WHERE id = '{}';",
        card.id
    ))
    .unwrap();
    drop(db);

    let f = fixture_with(data, Scripted::default(), false);
    let card = f.engine.board().get(&card.id).unwrap();
    assert_eq!(card.status, CardStatus::Todo);
    assert_eq!(f.engine.board().runs(&card.id).unwrap()[0].status, CardRunStatus::Interrupted);
    assert_eq!(f.engine.chat().run(&run_id).unwrap().status, RunStatus::Interrupted);
    let next = f.start(&card);
    f.settled(&card);
    let seen = f.engine.runner().run_context(&next).unwrap();
    assert!(seen.preamble.unwrap_or_default().contains("## Cut off"));
}
