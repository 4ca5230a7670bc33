//! A Native agent's routine on the fake model server (through the relay, with the keychain's
//! key: run under scripts/with-test-keyring on Linux): the scheduler fires it, the model's
//! request carries the routine note, and the reply lands on the card as its report.

use clawboo_engine::board::{CardStatus, CommentKind};
use clawboo_engine::routines::{ManualClock, RoutineOutcome};
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
