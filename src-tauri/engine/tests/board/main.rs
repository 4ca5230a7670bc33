//! The Board through the engine, on a real SQLite store: cards and their checks, numbers that
//! are never reused, comments and activity with the right actor, a restart; the table of moves
//! and claims (races included) in `moves`; dependencies and cycles in `deps`; the agents' Board
//! tools in `tools`.

#[path = "../common/mod.rs"]
mod common;
mod deps;
mod moves;
mod tools;

use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::board::{
    ActivityKind, Actor, Card, CardEdit, CardFilter, CardRunKind, CardRunStatus, CardStatus, CommentKind, NewCard,
    Priority, MAX_DEPENDENCIES, MAX_TITLE_CHARS,
};
use clawboo_engine::{Engine, EngineEvent, ErrorCode};
use common::Fixture;

fn agent(engine: &Engine, handle: &str) -> String {
    common::add_agent(engine, common::new_agent(handle, RuntimeKind::Native))
}

fn new_card(title: &str) -> NewCard {
    NewCard {
        title: title.into(),
        description: String::new(),
        assignee_id: None,
        team_id: None,
        status: None,
        priority: None,
        depends_on: Vec::new(),
        check_command: None,
        project_folder: None,
    }
}

fn card(engine: &Engine, title: &str) -> Card {
    engine.board().create(Actor::User, new_card(title)).unwrap()
}

fn by_agent(agent_id: &str, handle: &str) -> Actor {
    Actor::Agent { agent_id: agent_id.into(), handle: handle.into(), run_id: Some("run-1".into()) }
}

#[test]
fn a_new_card_goes_to_the_end_of_its_column_with_the_next_number() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let a = card(&engine, "First");
    let b = card(&engine, "Second");
    let mut later = new_card("Someday");
    later.status = Some(CardStatus::Backlog);
    later.priority = Some(Priority::High);
    let c = engine.board().create(Actor::User, later).unwrap();
    assert_eq!((a.number, b.number, c.number), (1, 2, 3));
    assert_eq!((a.status, c.status, c.priority), (CardStatus::Todo, CardStatus::Backlog, Priority::High));
    assert!(a.position < b.position);
    assert_eq!(a.origin, clawboo_engine::board::CardOrigin::User);
    let listed: Vec<u32> = engine.board().list(&CardFilter::default()).unwrap().iter().map(|c| c.number).collect();
    assert_eq!(listed, [3, 1, 2], "Backlog comes before To do; within a column, by position");
    let todo = CardFilter { status: Some(CardStatus::Todo), ..CardFilter::default() };
    assert_eq!(engine.board().list(&todo).unwrap().len(), 2);
}

#[test]
fn a_card_is_checked_before_it_is_saved() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let (ada, bo) = (agent(&engine, "ada"), agent(&engine, "bo"));
    let research = common::add_team(&engine, "Research", &[&ada]);
    let create = |mutate: &dyn Fn(&mut NewCard)| {
        let mut new = new_card("Task");
        mutate(&mut new);
        engine.board().create(Actor::User, new)
    };
    let refused = |mutate: &dyn Fn(&mut NewCard), says: &str| {
        let err = create(mutate).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput, "{err}");
        assert!(err.to_string().contains(says), "{err} should say {says}");
    };
    refused(&|n| n.title = "  ".into(), "needs a title");
    refused(&|n| n.title = "x".repeat(MAX_TITLE_CHARS + 1), "at most 200");
    refused(&|n| n.description = "x".repeat(20_001), "description");
    refused(&|n| n.assignee_id = Some("nobody".into()), "no agent");
    refused(&|n| n.team_id = Some("no-team".into()), "no team");
    refused(
        &|n| {
            n.assignee_id = Some(bo.clone());
            n.team_id = Some(research.clone());
        },
        "@bo is not a member of Research",
    );
    refused(&|n| n.status = Some(CardStatus::InProgress), "Backlog or To do");
    refused(&|n| n.status = Some(CardStatus::Done), "Backlog or To do");
    refused(&|n| n.depends_on = vec!["missing".into()], "does not exist");
    refused(&|n| n.depends_on = (0..=MAX_DEPENDENCIES).map(|i| i.to_string()).collect(), "at most 32");
    refused(&|n| n.project_folder = Some("relative".into()), "full path");
    assert!(engine.board().list(&CardFilter::default()).unwrap().is_empty(), "nothing was saved");

    let ok = create(&|n| {
        n.assignee_id = Some(ada.clone());
        n.team_id = Some(research.clone());
        n.check_command = Some("  cargo test  ".into());
    })
    .unwrap();
    assert_eq!(ok.check_command.as_deref(), Some("cargo test"));
    assert_eq!(ok.number, 1, "refused cards used no number");
}

#[test]
fn numbers_are_never_reused_after_a_delete() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let first = card(&engine, "One");
    let newest = card(&engine, "Two");
    engine.board().delete(&newest.id).unwrap();
    assert_eq!(card(&engine, "Three").number, 3, "the deleted newest card's number stays issued");
    engine.board().delete(&first.id).unwrap();
    assert_eq!(engine.board().get(&first.id).unwrap_err().code(), ErrorCode::NotFound);
    drop(engine);
    let engine = fixture.open();
    assert_eq!(card(&engine, "Four").number, 4, "nor after a restart");
}

#[test]
fn edits_record_what_changed_and_by_whom() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let (ada, bo) = (agent(&engine, "ada"), agent(&engine, "bo"));
    let research = common::add_team(&engine, "Research", &[&ada, &bo]);
    let c = card(&engine, "Draft");
    let mut events = engine.events().subscribe();
    let edited = engine
        .board()
        .edit(
            Actor::User,
            &c.id,
            CardEdit {
                title: Some("Draft the brief".into()),
                team_id: Some(Some(research.clone())),
                assignee_id: Some(Some(ada.clone())),
                ..CardEdit::default()
            },
        )
        .unwrap();
    assert_eq!(edited.title, "Draft the brief");
    assert_eq!(events.try_recv().unwrap(), EngineEvent::BoardChanged { card_id: Some(c.id.clone()) });
    let same = engine.board().edit(
        Actor::User,
        &c.id,
        CardEdit { title: Some(" Draft the brief ".into()), ..Default::default() },
    );
    assert_eq!(same.unwrap(), edited, "an edit that changes nothing");
    assert!(events.try_recv().is_err(), "records and publishes nothing");
    // An agent may not be put on a team it is not in; clearing the team lifts that.
    let outsider = agent(&engine, "cy");
    let err = engine
        .board()
        .edit(Actor::User, &c.id, CardEdit { assignee_id: Some(Some(outsider.clone())), ..Default::default() })
        .unwrap_err();
    assert!(err.to_string().contains("@cy is not a member of Research"), "{err}");
    engine
        .board()
        .edit(
            by_agent(&bo, "bo"),
            &c.id,
            CardEdit { team_id: Some(None), assignee_id: Some(Some(outsider.clone())), ..Default::default() },
        )
        .unwrap();
    let detail = engine.board().detail(&c.id).unwrap();
    let kinds: Vec<&ActivityKind> = detail.activity.iter().map(|a| &a.activity).collect();
    assert_eq!(
        kinds,
        [
            &ActivityKind::Created,
            &ActivityKind::Edited { fields: vec!["title".into(), "team".into()] },
            &ActivityKind::Assigned { from: None, to: Some(ada.clone()) },
            &ActivityKind::Edited { fields: vec!["team".into()] },
            &ActivityKind::Assigned { from: Some(ada), to: Some(outsider) },
        ]
    );
    assert_eq!(detail.activity[1].actor, Actor::User);
    assert_eq!(detail.activity[3].actor, by_agent(&bo, "bo"));
}

#[test]
fn comments_and_activity_keep_their_actor_oldest_first() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let ada = agent(&engine, "ada");
    let c = card(&engine, "Write");
    let board = engine.board();
    let first = board.comment(Actor::User, &c.id, CommentKind::Comment, "  Please hurry  ", None).unwrap();
    assert_eq!(first.text, "Please hurry", "trimmed");
    board.comment(by_agent(&ada, "ada"), &c.id, CommentKind::Report, "Done: see docs/", Some("run-1".into())).unwrap();
    let err = board.comment(Actor::User, &c.id, CommentKind::Comment, " ", None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    let err = board.comment(Actor::User, &c.id, CommentKind::Comment, &"x".repeat(20_001), None).unwrap_err();
    assert!(err.to_string().contains("at most 20000"), "{err}");
    assert_eq!(
        board.comment(Actor::User, "nope", CommentKind::Comment, "hi", None).unwrap_err().code(),
        ErrorCode::NotFound
    );

    let detail = board.detail(&c.id).unwrap();
    let comments: Vec<(&Actor, CommentKind, &str)> =
        detail.comments.iter().map(|c| (&c.author, c.kind, c.text.as_str())).collect();
    assert_eq!(
        comments,
        [
            (&Actor::User, CommentKind::Comment, "Please hurry"),
            (&by_agent(&ada, "ada"), CommentKind::Report, "Done: see docs/")
        ]
    );
    assert_eq!(detail.comments[1].run_id.as_deref(), Some("run-1"));
    let commented: Vec<&Actor> = detail
        .activity
        .iter()
        .filter(|a| matches!(a.activity, ActivityKind::Commented { .. }))
        .map(|a| &a.actor)
        .collect();
    assert_eq!(commented, [&Actor::User, &by_agent(&ada, "ada")]);
    assert_eq!(detail.activity[1].activity, ActivityKind::Commented { comment_id: first.id });
}

#[test]
fn runs_of_a_card_are_recorded_and_finished() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let c = card(&engine, "Build");
    let board = engine.board();
    board.record_run(&c.id, "run-1", 1, CardRunKind::Run).unwrap();
    board.record_run(&c.id, "run-2", 2, CardRunKind::Fix).unwrap();
    assert!(board.record_run(&c.id, "run-2", 3, CardRunKind::Fix).is_err(), "a run is recorded once");
    assert!(board.record_run(&c.id, "run-3", 0, CardRunKind::Run).is_err(), "attempts count from 1");
    let done = board.finish_run("run-1", CardRunStatus::Failed, Some("check failed".into())).unwrap();
    assert_eq!((done.status, done.reason.as_deref()), (CardRunStatus::Failed, Some("check failed")));
    assert!(done.finished_at.is_some());
    assert_eq!(board.finish_run("nope", CardRunStatus::Succeeded, None).unwrap_err().code(), ErrorCode::NotFound);
    let runs = board.runs(&c.id).unwrap();
    assert_eq!(
        runs.iter().map(|r| (r.attempt, r.kind)).collect::<Vec<_>>(),
        [(1, CardRunKind::Run), (2, CardRunKind::Fix)]
    );
    assert_eq!(runs[1].status, CardRunStatus::Running);
}

#[test]
fn the_board_survives_a_restart() {
    let fixture = Fixture::new();
    let (before, detail, runs) = {
        let engine = fixture.open();
        let ada = agent(&engine, "ada");
        let research = common::add_team(&engine, "Research", &[&ada]);
        let dependency = card(&engine, "Find sources");
        let mut new = new_card("Write the brief");
        new.assignee_id = Some(ada.clone());
        new.team_id = Some(research);
        new.depends_on = vec![dependency.id.clone()];
        let c = engine.board().create(Actor::User, new).unwrap();
        engine.board().claim(&dependency.id, "run-9").unwrap();
        // A hand-off's run: the task runner releases the cards of its own runs cut off by a
        // restart (tests/runner), and leaves hand-offs to team chat.
        engine.board().record_run(&dependency.id, "run-9", 1, CardRunKind::Handoff).unwrap();
        engine.board().comment(by_agent(&ada, "ada"), &c.id, CommentKind::Comment, "Waiting.", None).unwrap();
        let before = engine.board().list(&CardFilter::default()).unwrap();
        (before, engine.board().detail(&c.id).unwrap(), engine.board().runs(&dependency.id).unwrap())
    };
    let engine = fixture.open();
    assert_eq!(engine.board().list(&CardFilter::default()).unwrap(), before);
    assert_eq!(engine.board().detail(&detail.card.id).unwrap(), detail);
    assert_eq!(engine.board().runs(&runs[0].card_id).unwrap(), runs);
    assert_eq!(engine.board().claimed_cards().unwrap(), [(runs[0].card_id.clone(), "run-9".to_owned())]);
    assert_eq!(detail.card.waiting_on, detail.card.depends_on);
}
