//! Fresh sessions when a run runs out of room (the steady tier byte-identical, a hand-off note
//! on the last progress, at most 3 restarts), fix rounds when the check fails, silence and the
//! wall-clock limit.

use clawboo_engine::board::{CardRunKind, CardRunStatus, CardStatus};
use clawboo_engine::context::SectionKind;
use clawboo_engine::runner::RunnerSettings;

use super::fixture;

#[test]
fn a_full_context_window_continues_in_a_fresh_session_with_a_hand_off_note() {
    let f = fixture();
    let card = f.card("fill once the page");
    f.start(&card);
    let done = f.settled(&card);
    assert_eq!(done.status, CardStatus::InReview, "{:?}", done.blocked_reason);
    let runs = f.engine.board().runs(&card.id).unwrap();
    let kinds: Vec<_> = runs.iter().map(|r| (r.attempt, r.kind, r.status)).collect();
    assert_eq!(
        kinds,
        [(1, CardRunKind::Run, CardRunStatus::Failed), (2, CardRunKind::Rotation, CardRunStatus::Succeeded)]
    );
    assert!(
        runs[0].reason.as_deref().unwrap().contains("182000 of its 200000-token context window"),
        "{:?}",
        runs[0].reason
    );
    let inputs = f.runtime.inputs_for("fill once the page");
    assert_eq!(inputs.len(), 2);
    assert_eq!(inputs[0].persona, inputs[1].persona, "the steady tier is byte-identical");
    assert!(inputs[1].resume_session.is_none() && inputs[1].transcript.is_empty(), "a fresh session");
    let note = f.engine.runner().run_context(&runs[1].run_id).unwrap();
    let handoff = note.sections.iter().find(|s| s.kind == SectionKind::HandoffNote).expect("a hand-off note");
    assert!(handoff.text.contains("Progress of session 1: halfway there."), "{}", handoff.text);
    assert!(inputs[1].preamble.as_deref().unwrap().contains("halfway there"));
}

#[test]
fn a_task_that_keeps_running_out_of_room_is_blocked_after_three_restarts() {
    let f = fixture();
    for title in ["turns without end", "fill the window"] {
        let card = f.card(title);
        f.start(&card);
        let done = f.settled(&card);
        assert_eq!(done.status, CardStatus::Blocked, "{title}");
        assert!(
            done.blocked_reason.as_deref().unwrap().contains("Ran out of room 4 times"),
            "{:?}",
            done.blocked_reason
        );
        let runs = f.engine.board().runs(&card.id).unwrap();
        let kinds: Vec<_> = runs.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, [CardRunKind::Run, CardRunKind::Rotation, CardRunKind::Rotation, CardRunKind::Rotation]);
        let inputs = f.runtime.inputs_for(title);
        assert!(inputs.windows(2).all(|w| w[0].persona == w[1].persona), "steady across every restart");
        assert!(inputs[0].persona.as_deref().unwrap().contains(&format!("Please {title}, carefully.")));
    }
}

#[test]
fn a_failing_check_gets_one_fix_round_then_blocks_with_the_exit_code_and_output() {
    let f = fixture();
    let card = f.card_with("do the broken thing", |c| {
        c.check_command = Some("echo 'test broken: 3 failed' >&2; exit 3".into())
    });
    f.start(&card);
    let done = f.settled(&card);
    assert_eq!(done.status, CardStatus::Blocked);
    let reason = done.blocked_reason.unwrap();
    assert!(reason.contains("exit code 3") && reason.contains("test broken: 3 failed"), "{reason}");
    let runs = f.engine.board().runs(&card.id).unwrap();
    assert_eq!(runs.iter().map(|r| r.kind).collect::<Vec<_>>(), [CardRunKind::Run, CardRunKind::Fix]);
    let fix = f.engine.runner().run_context(&runs[1].run_id).unwrap();
    let note = fix.sections.iter().find(|s| s.kind == SectionKind::FailureNote).expect("the failure note");
    assert!(note.text.contains("exit code 3") && note.text.contains("test broken"), "{}", note.text);
    let reports = f.engine.board().detail(&card.id).unwrap().comments;
    assert_eq!(reports.len(), 2, "each finished run reports");
    let activity = f.engine.chat().run_activity(&runs[0].run_id).unwrap();
    assert!(activity
        .iter()
        .any(|e| matches!(&e.event, clawboo_engine::runtimes::RunEvent::ToolResult { is_error: true, .. })));
}

#[test]
fn a_check_that_passes_after_the_fix_round_moves_the_card_to_done() {
    let f = fixture();
    let card = f
        .card_with("fix the file", |c| c.check_command = Some("test -f fixed.txt || { echo missing; exit 1; }".into()));
    f.start(&card);
    let done = f.settled(&card);
    assert_eq!(done.status, CardStatus::Done, "{:?}", done.blocked_reason);
    let runs = f.engine.board().runs(&card.id).unwrap();
    assert_eq!(
        runs.iter().map(|r| (r.kind, r.status)).collect::<Vec<_>>(),
        [(CardRunKind::Run, CardRunStatus::Succeeded), (CardRunKind::Fix, CardRunStatus::Succeeded)]
    );
    let inputs = f.runtime.inputs_for("fix the file");
    assert!(inputs[1].preamble.as_deref().unwrap().contains("missing"));
}

#[test]
fn a_silent_run_and_one_past_its_wall_clock_limit_are_stopped_and_blocked() {
    let f = fixture();
    let settings = RunnerSettings { silence_secs: 1, wall_clock_secs: 2, ..RunnerSettings::default() };
    f.engine.runner().set_settings(settings).unwrap();
    let silent = f.card("silent treatment");
    let chatty = f.card("chatty forever");
    f.start(&silent);
    f.start(&chatty);
    let silent = f.settled(&silent);
    assert_eq!(silent.status, CardStatus::Blocked);
    assert!(
        silent.blocked_reason.as_deref().unwrap().contains("reported nothing for 1 s"),
        "{:?}",
        silent.blocked_reason
    );
    let chatty = f.settled(&chatty);
    assert_eq!(chatty.status, CardStatus::Blocked);
    assert!(chatty.blocked_reason.as_deref().unwrap().contains("past its limit of 2 s"), "{:?}", chatty.blocked_reason);
    let run = &f.engine.board().runs(&chatty.id).unwrap()[0];
    assert_eq!(f.engine.chat().run(&run.run_id).unwrap().status, clawboo_engine::chat::RunStatus::TimedOut);
}

#[test]
fn the_check_runs_in_the_cards_project_folder_which_must_exist() {
    let f = fixture();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("marker.txt"), "here").unwrap();
    let folder = project.path().display().to_string();
    let card = f.card_with("check the project", |c| {
        c.check_command = Some("test -f marker.txt".into());
        c.project_folder = Some(folder.clone());
    });
    f.start(&card);
    let done = f.settled(&card);
    assert_eq!(done.status, CardStatus::Done, "{:?}", done.blocked_reason);
    assert_eq!(f.engine.board().runs(&card.id).unwrap().len(), 1, "the check passed at once");

    let gone = f.card_with("check nowhere", |c| c.project_folder = Some(format!("{folder}/missing")));
    let err = f.engine.runner().start(&gone.id, clawboo_engine::runner::StartOptions::default()).unwrap_err();
    assert_eq!(err.code(), clawboo_engine::ErrorCode::InvalidInput);
    assert!(err.to_string().contains("not a folder"), "{err}");
    assert_eq!(f.engine.board().get(&gone.id).unwrap().status, CardStatus::Todo, "not claimed");
}

#[test]
fn traces_show_each_run_with_its_tiers_tokens_and_outcome_newest_first() {
    let f = fixture();
    let card = f.card("fill once the page");
    f.start(&card);
    f.settled(&card);
    let traces = f.engine.runner().traces(50).unwrap();
    let mine: Vec<_> = traces.iter().filter(|t| t.card_id == card.id).collect();
    assert_eq!(mine.len(), 2, "{traces:?}");
    let (rotation, first) = (mine[0], mine[1]);
    assert_eq!((first.attempt, first.kind, first.status), (1, CardRunKind::Run, CardRunStatus::Failed));
    assert_eq!(
        (rotation.attempt, rotation.kind, rotation.status),
        (2, CardRunKind::Rotation, CardRunStatus::Succeeded)
    );
    assert!(first.reason.as_deref().unwrap().contains("context window"));
    assert_eq!(first.card_title, "fill once the page");
    assert!(first.steady_chars > 0, "the task's steady tier was sent");
    assert_eq!(first.steady_chars, rotation.steady_chars, "the same steady tier in the fresh session");
    assert!(rotation.context_chars > first.context_chars, "the hand-off note rides in the context tier");
    assert_eq!(
        (first.input_tokens, first.output_tokens, first.cache_read_tokens),
        (150_000, 2_000, 30_000),
        "the usage the runtime reported"
    );
    assert_eq!(rotation.input_tokens, 0, "the fresh session reported none");
    assert!(first.finished_at.is_some() && rotation.finished_at.is_some());
}
