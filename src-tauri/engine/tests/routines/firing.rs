//! What a routine's run is: an agent's card run by the real task runner, or a message to a
//! team's leader; a fresh conversation carrying the routine note either way.

use clawboo_engine::board::{CardOrigin, CardStatus, CommentKind};
use clawboo_engine::chat::team::TeamTurnKind;
use clawboo_engine::context::files::{FileRoute, FileStatus};
use clawboo_engine::context::SectionKind;
use clawboo_engine::routines::RoutineOutcome;
use clawboo_engine::vocab::AgentFileName;

use super::*;

#[test]
fn an_agent_routine_runs_as_a_card_whose_report_lands_on_it_with_the_routine_note() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let routine = f.agent_routine("morning stock check", cron("0 8 * * *", "UTC"));
    f.tick_at(ms("2026-03-02T08:00:00Z"));
    let run = f.runs(&routine.id).remove(0);
    let card_id = run.card_id.clone().unwrap();
    let card = f.settled(&card_id);
    assert_eq!(card.status, CardStatus::InReview);
    assert_eq!((card.title.as_str(), card.assignee_id.as_deref()), ("morning stock check", Some(f.agent_id.as_str())));
    assert_eq!(card.description, "Please morning stock check, and say what you assumed.");
    assert!(
        matches!(&card.origin, CardOrigin::Routine { routine_id, routine_run_id } if *routine_id == routine.id && *routine_run_id == run.id),
        "{:?}",
        card.origin
    );
    let detail = f.engine.board().detail(&card_id).unwrap();
    let report = detail.comments.iter().find(|c| c.kind == CommentKind::Report).expect("the report");
    assert_eq!(report.text, "Done: morning stock check");

    let ended = f.ended(&routine.id);
    assert_eq!(ended.outcome, RoutineOutcome::Succeeded);
    assert_eq!(ended.card_number, Some(card.number));

    // The run's stored context carries the routine note, first in the context tier.
    let task_run = ended.run_id.clone().expect("the task run");
    let context = f.engine.runner().run_context(&task_run).unwrap();
    let note = context.sections.iter().find(|s| s.kind == SectionKind::Routine).expect("the routine note");
    assert!(note.text.contains("The routine \"morning stock check\""), "{}", note.text);
    assert!(note.text.contains("The user may be away"), "{}", note.text);
    let preamble = context.preamble.clone().unwrap_or_default();
    assert!(preamble.contains("## Routine"), "{preamble}");
    // What the runtime was given, too; and a routine's run never gets `routine_create`.
    let input = f.runtime.inputs_for("morning stock check").remove(0);
    assert!(input.preamble.as_deref().unwrap_or_default().contains("## Routine"));
    let tools: Vec<_> = input.tools.as_ref().map(|g| g.specs.iter().map(|s| s.name).collect()).unwrap_or_default();
    assert!(!tools.is_empty() && !tools.contains(&ToolName::RoutineCreate), "{tools:?}");
    // Not a heartbeat routine: HEARTBEAT.md stays home.
    let heartbeat = context.files.iter().find(|d| d.file == AgentFileName::Heartbeat).unwrap();
    assert_eq!(heartbeat.status, FileStatus::NotThisRun);
    // A card made by hand has no routine note.
    let plain = f
        .engine
        .board()
        .create(
            clawboo_engine::board::Actor::User,
            clawboo_engine::board::NewCard {
                title: "by hand".into(),
                description: String::new(),
                assignee_id: Some(f.agent_id.clone()),
                team_id: None,
                status: None,
                priority: None,
                depends_on: Vec::new(),
                check_command: None,
                project_folder: None,
            },
        )
        .unwrap();
    let started = f.engine.runner().start(&plain.id, Default::default()).unwrap();
    f.settled(&plain.id);
    let context = f.engine.runner().run_context(&started.run_id).unwrap();
    assert!(context.sections.iter().all(|s| s.kind != SectionKind::Routine));
}

#[test]
fn a_heartbeat_routine_carries_heartbeat_md() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    f.engine.agents().write_file(&f.agent_id, "HEARTBEAT.md", "- Check the till.\n- Check the fridge.\n").unwrap();
    let routine = f
        .engine
        .routines()
        .create(RoutineInput {
            name: "heartbeat".into(),
            agent_id: Some(f.agent_id.clone()),
            team_id: None,
            prompt: "Go through your heartbeat checklist.".into(),
            schedule: Schedule::Every { minutes: 30 },
            heartbeat: true,
            reports_to_team_id: None,
        })
        .unwrap();
    let run = f.engine.routines().run_now(&routine.id).unwrap();
    let ended = f.ended(&routine.id);
    assert_eq!((ended.id, ended.outcome), (run.id, RoutineOutcome::Succeeded));
    let context = f.engine.runner().run_context(&ended.run_id.unwrap()).unwrap();
    let heartbeat = context.files.iter().find(|d| d.file == AgentFileName::Heartbeat).unwrap();
    assert_eq!((heartbeat.route, heartbeat.status), (FileRoute::Heartbeat, FileStatus::Sent));
    let input = f.runtime.inputs_for("heartbeat").remove(0);
    let sent = format!("{}{}", input.setup.unwrap_or_default(), input.preamble.unwrap_or_default());
    assert!(sent.contains("Check the fridge."), "{sent}");
}

#[test]
fn a_team_routine_is_a_message_to_the_leader_in_a_fresh_conversation_with_the_note() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let (team_id, general, _helper) = f.team();
    let routine = f
        .engine
        .routines()
        .create(RoutineInput {
            name: "weekly plan".into(),
            agent_id: None,
            team_id: Some(team_id.clone()),
            prompt: "plan the week".into(),
            schedule: cron("0 9 * * 1", "Europe/Berlin"),
            heartbeat: false,
            reports_to_team_id: None,
        })
        .unwrap();
    assert_eq!(routine.next_fire_at, Some(ms("2026-03-02T08:00:00Z")));
    assert_eq!(routine.owner_name, "Shop");
    f.tick_at(ms("2026-03-02T08:00:00Z"));
    let ended = f.ended(&routine.id);
    assert_eq!(ended.outcome, RoutineOutcome::Succeeded, "{:?}", ended.note);
    assert_eq!((ended.team_id.as_deref(), ended.room_id.as_deref()), (Some(team_id.as_str()), Some(general.as_str())));

    // Only the leader heard it (the mention inside does not route it), with the note.
    let inputs = f.runtime.inputs_for("plan the week");
    assert_eq!(inputs.len(), 1);
    assert_eq!(inputs[0].agent.id, f.agent_id);
    let preamble = inputs[0].preamble.clone().unwrap_or_default();
    assert!(preamble.contains("## Routine\nThe routine \"weekly plan\" sent this message."), "{preamble}");
    assert!(inputs[0].transcript.is_empty() && inputs[0].resume_session.is_none(), "a fresh conversation");
    let tools: Vec<_> = inputs[0].tools.as_ref().map(|g| g.specs.iter().map(|s| s.name).collect()).unwrap_or_default();
    assert!(!tools.contains(&ToolName::RoutineCreate), "hidden work never grants itself work: {tools:?}");

    let context = f.engine.chat().run_context(ended.run_id.as_deref().unwrap()).unwrap();
    assert_eq!(context.turn_kind, TeamTurnKind::Leader);
    assert!(context.sections.iter().any(|s| s.kind == SectionKind::Routine));

    // The reply is in the team chat, after the routine's message.
    let page = f.engine.chat().room_page(&general, None, 50).unwrap();
    let contents: Vec<&str> = page.messages.iter().map(|m| m.content.as_str()).collect();
    assert!(contents.contains(&"Routine \"weekly plan\": plan the week"), "{contents:?}");
    assert!(contents.contains(&"Done: plan the week"), "{contents:?}");

    // The room's own conversation did not take the routine's turn in: the user's next message
    // carries no routine note and continues without it.
    f.engine.chat().send_team(&general, "hello").unwrap();
    let next = wait_for("the leader's reply", LIMIT, || f.runtime.inputs_for("hello").pop());
    assert!(!next.preamble.unwrap_or_default().contains("## Routine"));
    assert!(next.transcript.is_empty(), "{:?}", next.transcript);
    let tools: Vec<_> = next.tools.as_ref().map(|g| g.specs.iter().map(|s| s.name).collect()).unwrap_or_default();
    assert!(tools.contains(&ToolName::RoutineCreate), "the leader may propose routines when the user talks: {tools:?}");
}

#[test]
fn a_team_routine_that_cannot_start_fails_and_retries() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let (team_id, _general, _) = f.team();
    let routine = f
        .engine
        .routines()
        .create(RoutineInput {
            name: "nightly".into(),
            agent_id: None,
            team_id: Some(team_id.clone()),
            prompt: "fail the nightly check".into(),
            schedule: cron("0 2 * * *", "UTC"),
            heartbeat: false,
            reports_to_team_id: None,
        })
        .unwrap();
    f.tick_at(ms("2026-03-03T02:00:00Z"));
    let ended = f.ended(&routine.id);
    assert_eq!(ended.outcome, RoutineOutcome::Failed);
    assert!(ended.note.as_deref().unwrap_or_default().contains("the model refused"), "{:?}", ended.note);
    let after = f.routine(&routine.id);
    assert_eq!((after.consecutive_failures, after.retry_at), (1, Some(ms("2026-03-03T02:01:00Z"))));

    // Introduction removed: the next message cannot be sent; that run fails at once, saying why.
    f.engine.teams().set_about_you(&team_id, "").unwrap();
    f.tick_at(ms("2026-03-03T02:01:00Z"));
    let runs = f.runs(&routine.id);
    assert_eq!(runs[0].outcome, RoutineOutcome::Failed);
    assert!(runs[0].note.as_deref().unwrap_or_default().contains("Introduce yourself"), "{:?}", runs[0].note);
}

#[test]
fn a_routine_run_that_needs_the_user_asks_from_its_card_and_says_so() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let routine = f.agent_routine("ask which supplier to use", Schedule::Every { minutes: 60 });
    let run = f.engine.routines().run_now(&routine.id).unwrap();
    let ended = f.ended(&routine.id);
    assert_eq!((ended.id.as_str(), ended.outcome), (run.id.as_str(), RoutineOutcome::NeedsYou), "{:?}", ended.note);
    assert!(ended.note.as_deref().unwrap_or_default().contains("Waiting for your answer"), "{:?}", ended.note);
    let card_id = ended.card_id.clone().unwrap();
    let open = f.engine.attention().open().unwrap();
    let question =
        open.iter().find(|r| r.kind == clawboo_engine::attention::RequestKind::Question).expect("a question");
    assert_eq!(question.origin, clawboo_engine::attention::Origin::Card, "its answer goes to the routine's card");
    assert_eq!(question.card_id.as_deref(), Some(card_id.as_str()));
    assert_eq!(question.text, "which supplier to use");
    // Not a failure: no retry, and the next slot runs as usual.
    let after = f.routine(&routine.id);
    assert_eq!((after.consecutive_failures, after.retry_at), (0, None));
}

#[test]
fn editing_a_routine_recomputes_its_next_run_from_now() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let routine = f.agent_routine("sweep", Schedule::Every { minutes: 60 });
    assert_eq!(routine.next_fire_at, Some(t0 + HOUR));
    f.clock.set(t0 + 10 * MINUTE);
    let edited = f
        .engine
        .routines()
        .update(
            &routine.id,
            RoutineInput {
                name: "  sweep   the floor ".into(),
                agent_id: Some(f.agent_id.clone()),
                team_id: None,
                prompt: "Sweep it.".into(),
                schedule: cron(" 0  9 * * * ", " Europe/Berlin "),
                heartbeat: false,
                reports_to_team_id: None,
            },
        )
        .unwrap();
    assert_eq!(edited.name, "sweep the floor");
    assert_eq!(edited.schedule, cron("0 9 * * *", "Europe/Berlin"), "stored normalised");
    assert_eq!(edited.next_fire_at, Some(ms("2026-03-02T08:00:00Z")));
    let e = f
        .engine
        .routines()
        .update(
            &routine.id,
            RoutineInput {
                name: "sweep".into(),
                agent_id: Some(f.agent_id.clone()),
                team_id: None,
                prompt: "Sweep it.".into(),
                schedule: cron("0 9 * * *", "Nowhere/Land"),
                heartbeat: false,
                reports_to_team_id: None,
            },
        )
        .unwrap_err();
    assert_eq!(e.code(), clawboo_engine::ErrorCode::InvalidSchedule);
    assert_eq!(f.routine(&routine.id).name, "sweep the floor", "nothing lost");
}
