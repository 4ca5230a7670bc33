//! A Native agent's routine on the fake model server (through the relay, with the keychain's
//! key: run under scripts/with-test-keyring on Linux): the scheduler fires it, the model's
//! request carries the routine note, and the reply lands on the card as its report.

use clawboo_engine::board::{CardStatus, CommentKind};
use clawboo_engine::routines::{Clock, ManualClock, RoutineOutcome};
use clawboo_engine::secrets::Provider;
use clawboo_testkit::{Behavior, FakeModelServer};

use super::*;

#[test]
fn a_native_agents_routine_sends_the_routine_note_to_the_model_and_reports_on_its_card() {
    let server = FakeModelServer::start_blocking(Behavior::text("Stock is fine; I assumed the usual supplier."));
    let fixture = common::Fixture::new().keychain("routines-native");
    let engine = fixture.open();
    engine.secrets().set_api_key(Provider::Anthropic, "sk-ant-routine-test-5c2d").unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    let clock = Arc::new(ManualClock::new(ms("2026-03-02T07:00:00Z")));
    engine.routines().use_clock(clock.clone());
    let agent =
        engine.agents().create(NewAgent { provider: Some(Provider::Anthropic), ..super::agent("stocker") }).unwrap();
    let routine = engine
        .routines()
        .create(RoutineInput {
            name: "Morning stock check".into(),
            agent_id: Some(agent.id.clone()),
            team_id: None,
            prompt: "Check the stock levels and order what runs low.".into(),
            schedule: cron("0 8 * * *", "Europe/Berlin"),
            heartbeat: false,
            reports_to_team_id: None,
        })
        .unwrap();
    let slot = ms("2026-03-02T07:00:00Z") + DAY; // 08:00 Berlin is 07:00 UTC; today's has just passed
    assert_eq!(routine.next_fire_at, Some(slot));
    clock.set(slot);
    engine.routines().tick(slot).unwrap();

    let run = wait_for("the routine's run to end", LIMIT, || {
        engine.routines().tick(slot).unwrap();
        let run = engine.routines().detail(&routine.id, 5).unwrap().runs.into_iter().next()?;
        (run.outcome != RoutineOutcome::Running).then_some(run)
    });
    assert_eq!(run.outcome, RoutineOutcome::Succeeded, "{:?}", run.note);
    let card = engine.board().get(run.card_id.as_deref().unwrap()).unwrap();
    assert_eq!(card.status, CardStatus::InReview);
    let comments = engine.board().detail(&card.id).unwrap().comments;
    let report = comments.iter().find(|c| c.kind == CommentKind::Report).expect("the report");
    assert_eq!(report.text, "Stock is fine; I assumed the usual supplier.");

    let request = &server.model_requests()[0];
    let messages = request.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "a fresh conversation");
    let text = messages[0]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("## Routine\nThe routine \"Morning stock check\" sent this message. The user may be away"),
        "{text}"
    );
    assert!(text.ends_with("\n\nMorning stock check"), "the card's title is the message: {text}");
    let system = request.body["system"][0]["text"].as_str().unwrap();
    assert!(system.contains("Check the stock levels and order what runs low."), "the prompt is the task: {system}");
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}

/// Issue #24, item 4: a member's routine that reports to its team: its card is the team's, its
/// run works in the team's project folder (Native lists it with its own tool), and the request
/// carries the team card's tools (the peer room) and tells the run where its reply goes.
#[test]
fn a_members_routine_reporting_to_its_team_runs_in_the_teams_project_folder_on_a_team_card() {
    let server = FakeModelServer::start_blocking(Behavior::tool_then_answer(
        "list_files",
        serde_json::json!({}),
        "The menu is in order.",
    ));
    let fixture = common::Fixture::new().keychain("routines-native-team");
    let engine = fixture.open();
    engine.secrets().set_api_key(Provider::Anthropic, "sk-ant-routine-test-9e1f").unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    let clock = Arc::new(ManualClock::new(ms("2026-03-02T07:00:00Z")));
    engine.routines().use_clock(clock.clone());
    let lead =
        engine.agents().create(NewAgent { provider: Some(Provider::Anthropic), ..super::agent("lead") }).unwrap();
    let cook =
        engine.agents().create(NewAgent { provider: Some(Provider::Anthropic), ..super::agent("cook") }).unwrap();
    let team = engine
        .teams()
        .create(clawboo_engine::teams::NewTeam {
            name: "Bakery".into(),
            member_ids: vec![lead.id.clone(), cook.id.clone()],
            leader_id: Some(lead.id.clone()),
        })
        .unwrap();
    engine.teams().set_about_you(&team.id, "I run the bakery.").unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("MENU-IN-THE-PROJECT.md"), "# Menu").unwrap();
    engine.teams().set_project_folder(&team.id, Some(project.path().to_str().unwrap())).unwrap();

    // Only a member may report to a team.
    let outsider = engine.agents().create(super::agent("outsider")).unwrap();
    let refused = engine.routines().create(RoutineInput {
        name: "Not mine".into(),
        agent_id: Some(outsider.id.clone()),
        team_id: None,
        prompt: "Check.".into(),
        schedule: cron("0 8 * * *", "Europe/Berlin"),
        heartbeat: false,
        reports_to_team_id: Some(team.id.clone()),
    });
    assert!(matches!(refused, Err(clawboo_engine::Error::InvalidInput(_))), "{refused:?}");

    let routine = engine
        .routines()
        .create(RoutineInput {
            name: "Menu check".into(),
            agent_id: Some(cook.id.clone()),
            team_id: None,
            prompt: "Check the menu file is there.".into(),
            schedule: cron("0 8 * * *", "Europe/Berlin"),
            heartbeat: false,
            reports_to_team_id: Some(team.id.clone()),
        })
        .unwrap();
    assert_eq!(routine.reports_to_team_id.as_deref(), Some(team.id.as_str()));
    let run = engine.routines().run_now(&routine.id).unwrap();
    let run = wait_for("the routine's run to end", LIMIT, || {
        engine.routines().tick(clock.now()).unwrap();
        let latest = engine.routines().detail(&routine.id, 5).unwrap().runs.into_iter().find(|r| r.id == run.id)?;
        (latest.outcome != RoutineOutcome::Running).then_some(latest)
    });
    assert_eq!(run.outcome, RoutineOutcome::Succeeded, "{:?}", run.note);
    let card = engine.board().get(run.card_id.as_deref().unwrap()).unwrap();
    assert_eq!(card.team_id.as_deref(), Some(team.id.as_str()), "the card is the team's");
    assert_eq!(card.assignee_id.as_deref(), Some(cook.id.as_str()));

    let requests = server.model_requests();
    let first = &requests[0];
    let tools: Vec<&str> = first.body["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(tools.contains(&"peer_post") && tools.contains(&"peer_read"), "a team card's tools: {tools:?}");
    let text = first.body["messages"][0]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("## Routine\nThe routine \"Menu check\" sent this message."), "{text}");
    let system = first.body["system"][0]["text"].as_str().unwrap();
    assert!(system.contains("The user reads your final reply on this task's card"), "{system}");
    // The tool ran in the team's project folder, not the agent's own.
    let listed = requests[1].body["messages"][2].to_string();
    assert!(listed.contains("MENU-IN-THE-PROJECT.md"), "listed the project folder: {listed}");
    assert!(!listed.contains("SOUL.md"), "not the agent's own folder: {listed}");

    // Its result lands in General as the routine's message and wakes the leader there.
    let general = team.general().unwrap().id.clone();
    let contents = wait_for("the leader's answer to the routine's result", LIMIT, || {
        let page = engine.chat().room_page(&general, None, 50).unwrap();
        let answered = page.messages.iter().any(|m| m.author_id.as_deref() == Some(lead.id.as_str()));
        answered.then(|| page.messages.iter().map(|m| m.content.clone()).collect::<Vec<_>>())
    });
    let result = contents.iter().find(|c| c.starts_with("Routine \"Menu check\": Routine card #")).expect("the result");
    assert!(result.contains("by @cook ended done, waiting for the user's review."), "{contents:?}");
    assert!(result.contains("Its report:") && result.contains("The menu is in order."), "{contents:?}");
    let woke = server.model_requests();
    let leader_turn = woke.iter().rev().find(|r| r.body.to_string().contains("by @cook ended done")).unwrap();
    let leader_text = leader_turn.body["messages"][0]["content"].as_str().unwrap();
    assert!(leader_text.contains("## Routine\nThe routine \"Menu check\" sent this message."), "{leader_text}");
    assert_eq!(leader_text.matches("by @cook ended done").count(), 1, "the result once, as the message: {leader_text}");

    // Unticked, the next run's card is the agent's alone.
    let mut input = RoutineInput {
        name: routine.name.clone(),
        agent_id: routine.agent_id.clone(),
        team_id: None,
        prompt: routine.prompt.clone(),
        schedule: routine.schedule.clone(),
        heartbeat: false,
        reports_to_team_id: None,
    };
    engine.routines().update(&routine.id, input.clone()).unwrap();
    let second = engine.routines().run_now(&routine.id).unwrap();
    let second = wait_for("the second run to end", LIMIT, || {
        engine.routines().tick(clock.now()).unwrap();
        let latest = engine.routines().detail(&routine.id, 5).unwrap().runs.into_iter().find(|r| r.id == second.id)?;
        (latest.outcome != RoutineOutcome::Running).then_some(latest)
    });
    let card = engine.board().get(second.card_id.as_deref().unwrap()).unwrap();
    assert_eq!(card.team_id, None);
    // A team routine cannot also "report to" a team.
    input.agent_id = None;
    input.team_id = Some(team.id.clone());
    input.reports_to_team_id = Some(team.id.clone());
    assert!(engine.routines().update(&routine.id, input).is_err());
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}
