//! The scheduler's decisions on a manual clock.

use clawboo_engine::attention::{Decision, RequestKind, RequestStatus, UserAnswer};
use clawboo_engine::board::CardStatus;
use clawboo_engine::guard::{Breaker, ScopeKind};
use clawboo_engine::routines::{
    RoutineOutcome, RoutineState, RunTrigger, Schedule, MAX_CONSECUTIVE_FAILURES, RETRY_BACKOFF_MINUTES,
};
use clawboo_engine::ErrorCode;

use super::*;

#[test]
fn a_slot_fires_once_at_its_time_and_the_next_slot_follows() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let routine = f.agent_routine("check the shop", cron("0 8 * * *", "UTC"));
    assert_eq!(routine.next_fire_at, Some(ms("2026-03-02T08:00:00Z")));
    assert_eq!(routine.schedule_text, "Every morning at 08:00 (UTC)");

    f.tick_at(ms("2026-03-02T07:59:59Z"));
    assert!(f.runs(&routine.id).is_empty(), "not due yet");

    f.tick_at(ms("2026-03-02T08:00:00Z"));
    let runs = f.runs(&routine.id);
    assert_eq!(runs.len(), 1);
    assert_eq!((runs[0].trigger, runs[0].catch_up, runs[0].missed), (RunTrigger::Schedule, false, 0));
    assert_eq!(runs[0].scheduled_for, ms("2026-03-02T08:00:00Z"));
    assert_eq!(f.routine(&routine.id).next_fire_at, Some(ms("2026-03-03T08:00:00Z")));

    let run = f.ended(&routine.id);
    assert_eq!(run.outcome, RoutineOutcome::Succeeded, "{:?}", run.note);
    // Ticking again at the same time fires nothing more.
    f.tick_at(ms("2026-03-02T08:00:30Z"));
    assert_eq!(f.runs(&routine.id).len(), 1);
}

#[test]
fn slots_missed_while_closed_run_once_and_the_history_says_so() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let routine = f.agent_routine("morning digest", cron("0 8 * * *", "UTC"));
    // The app was closed from before the first slot until after the fourth.
    f.tick_at(ms("2026-03-05T09:30:00Z"));
    let runs = f.runs(&routine.id);
    assert_eq!(runs.len(), 1, "one catch-up run, not four");
    assert_eq!((runs[0].trigger, runs[0].catch_up, runs[0].missed), (RunTrigger::CatchUp, true, 4));
    assert_eq!(runs[0].note.as_deref(), Some("Missed 4 runs; ran once to catch up."));
    assert_eq!(runs[0].scheduled_for, ms("2026-03-02T08:00:00Z"));
    assert_eq!(f.routine(&routine.id).next_fire_at, Some(ms("2026-03-06T08:00:00Z")), "no flood: the next slot");
    let run = f.ended(&routine.id);
    assert_eq!(run.outcome, RoutineOutcome::Succeeded);
    assert_eq!(run.note.as_deref(), Some("Missed 4 runs; ran once to catch up."), "the note stays");

    // A single slot reached late (the machine slept through it) is a catch-up of one.
    f.tick_at(ms("2026-03-06T08:45:00Z"));
    let runs = f.runs(&routine.id);
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0].trigger, runs[0].missed), (RunTrigger::CatchUp, 1));
    assert_eq!(runs[0].note.as_deref(), Some("Missed 1 run; ran once to catch up."));
}

#[test]
fn a_slot_that_would_overlap_the_previous_run_is_skipped_and_recorded() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let routine = f.agent_routine("wait for the supplier", Schedule::Every { minutes: 10 });
    f.tick_at(t0 + 10 * MINUTE);
    let first = f.runs(&routine.id).remove(0);
    assert_eq!(first.outcome, RoutineOutcome::Running);
    let card_id = first.card_id.clone().expect("an agent routine's run is a card");
    f.runtime_waits_for(&card_id);

    f.tick_at(t0 + 20 * MINUTE);
    let runs = f.runs(&routine.id);
    assert_eq!(runs.len(), 2, "recorded, not queued");
    assert_eq!(runs[0].outcome, RoutineOutcome::SkippedOverlap);
    assert_eq!(runs[0].note.as_deref(), Some("Skipped: the previous run was still going."));
    assert_eq!(runs[0].scheduled_for, t0 + 20 * MINUTE);
    assert_eq!(runs[1].outcome, RoutineOutcome::Running, "the first run goes on");
    assert_eq!(f.routine(&routine.id).next_fire_at, Some(t0 + 30 * MINUTE));
    // Run now is refused while it runs.
    let e = f.engine.routines().run_now(&routine.id).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Conflict);

    // The user stops the card: the run ended, stopped (not a failure, no retry).
    f.engine.runner().cancel(&card_id).unwrap();
    f.settled(&card_id);
    let run = f.ended(&routine.id);
    assert_eq!((run.id.as_str(), run.outcome), (first.id.as_str(), RoutineOutcome::Stopped));
    let after = f.routine(&routine.id);
    assert_eq!((after.consecutive_failures, after.retry_at), (0, None));
}

impl Fixture {
    /// Waits until the card's run is going (the runtime was given it).
    fn runtime_waits_for(&self, card_id: &str) {
        let title = self.engine.board().get(card_id).unwrap().title;
        wait_for("the run to start", LIMIT, || (!self.runtime.inputs_for(&title).is_empty()).then_some(()));
    }
}

#[test]
fn failures_retry_with_back_off_then_the_routine_pauses_itself_and_says_why() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let routine = f.agent_routine("fail to reach the bank", cron("0 8 * * *", "UTC"));
    let mut now = ms("2026-03-02T08:00:00Z");
    f.tick_at(now);
    let card_id = f.runs(&routine.id)[0].card_id.clone().unwrap();
    for failure in 1..=MAX_CONSECUTIVE_FAILURES {
        let card = f.settled(&card_id);
        assert_eq!(card.status, CardStatus::Blocked);
        let run = f.ended(&routine.id);
        assert_eq!(run.outcome, RoutineOutcome::Failed, "failure {failure}");
        assert!(run.note.as_deref().unwrap_or_default().contains("the model refused"), "{:?}", run.note);
        let after = f.routine(&routine.id);
        assert_eq!(after.consecutive_failures, failure);
        if failure == MAX_CONSECUTIVE_FAILURES {
            break;
        }
        let wait = RETRY_BACKOFF_MINUTES[failure as usize - 1] * MINUTE;
        assert_eq!(after.retry_at, Some(now + wait), "back-off after failure {failure}");
        // Not before its time.
        f.tick_at(now + wait - 1);
        assert_eq!(f.runs(&routine.id).len(), failure as usize);
        now += wait;
        f.tick_at(now);
        let runs = f.runs(&routine.id);
        assert_eq!(runs.len(), failure as usize + 1);
        assert_eq!(runs[0].trigger, RunTrigger::Retry);
        assert_eq!(runs[0].card_id.as_deref(), Some(card_id.as_str()), "a retry runs the same card again");
    }
    let paused = f.routine(&routine.id);
    assert_eq!(paused.state, RoutineState::Paused);
    assert_eq!((paused.next_fire_at, paused.retry_at), (None, None));
    let reason = paused.paused_reason.clone().unwrap();
    // The figure Settings › Limits shows (the guard's routine breaker) is the one it paused at.
    assert!(reason.starts_with("Paused after 3 failed runs in a row."), "{reason}");
    assert_eq!(f.engine.guard().limits().unwrap().routine_failures, 3);
    assert!(reason.contains("the model refused"), "{reason}");
    // Nothing more runs, whatever the time.
    f.tick_at(ms("2026-03-09T08:00:00Z"));
    assert_eq!(f.runs(&routine.id).len(), 3);

    // The user is told through the inbox; Allow resumes it from now (no flood).
    let open = f.engine.attention().open().unwrap();
    let request = open.iter().find(|r| r.kind == RequestKind::RoutinePaused).expect("an attention request");
    assert!(request.text.contains("\"fail to reach the bank\"") && request.text.contains(&reason), "{}", request.text);
    assert_eq!(request.agent_id, f.agent_id);
    let tray = f.engine.attention().tray_state().unwrap();
    assert_eq!(tray.newest[0].label, "A routine paused itself");
    // Listed with the scopes the breakers paused, its Inbox request beside it.
    let listed = f.engine.guard().paused().unwrap();
    let listed = listed.iter().find(|p| p.scope_id == routine.id).expect("the routine among the paused scopes");
    assert_eq!((listed.scope, listed.breaker), (ScopeKind::Routine, Breaker::RoutineFailures));
    assert_eq!((listed.reason.as_str(), listed.request_id.as_deref()), (reason.as_str(), Some(request.id.as_str())));
    let answered =
        f.engine.answer_attention(&request.id, UserAnswer::Decision { decision: Decision::AllowOnce }).unwrap();
    assert_eq!(answered.status, RequestStatus::Answered);
    let resumed = f.routine(&routine.id);
    assert_eq!(resumed.state, RoutineState::Active);
    assert_eq!((resumed.consecutive_failures, resumed.paused_reason), (0, None));
    assert_eq!(resumed.next_fire_at, Some(ms("2026-03-10T08:00:00Z")));
    assert!(f.engine.guard().paused().unwrap().iter().all(|p| p.scope_id != routine.id), "no longer paused");
}

#[test]
fn pause_and_resume_by_the_user_recompute_the_next_slot_from_now() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let routine = f.agent_routine("tidy the shelf", Schedule::Every { minutes: 60 });
    let paused = f.engine.routines().pause(&routine.id).unwrap();
    assert_eq!((paused.state, paused.next_fire_at, paused.paused_reason), (RoutineState::Paused, None, None));
    f.tick_at(t0 + 5 * HOUR);
    assert!(f.runs(&routine.id).is_empty(), "a paused routine does not run");
    f.clock.set(t0 + 5 * HOUR + 7 * MINUTE);
    let resumed = f.engine.routines().resume(&routine.id).unwrap();
    assert_eq!(resumed.next_fire_at, Some(t0 + 6 * HOUR + 7 * MINUTE), "from now, no flood of the hours it missed");
    f.tick_at(t0 + 5 * HOUR + 8 * MINUTE);
    assert!(f.runs(&routine.id).is_empty());
    // Run now: a manual run, the schedule untouched.
    let run = f.engine.routines().run_now(&routine.id).unwrap();
    assert_eq!((run.trigger, run.outcome), (RunTrigger::Manual, RoutineOutcome::Running));
    assert_eq!(f.routine(&routine.id).next_fire_at, resumed.next_fire_at);
    assert_eq!(f.ended(&routine.id).outcome, RoutineOutcome::Succeeded);
    // Delete: gone, with its runs.
    f.engine.routines().delete(&routine.id).unwrap();
    assert_eq!(f.engine.routines().get(&routine.id).unwrap_err().code(), ErrorCode::NotFound);
    assert!(f.engine.routines().list().unwrap().is_empty());
}

#[test]
fn bad_schedules_are_refused_before_anything_is_saved() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let create = |schedule: Schedule| {
        f.engine.routines().create(RoutineInput {
            name: "never".into(),
            agent_id: Some(f.agent_id.clone()),
            team_id: None,
            prompt: "Do it.".into(),
            schedule,
            heartbeat: false,
            reports_to_team_id: None,
        })
    };
    for (schedule, says) in [
        (Schedule::Once { at: t0 - MINUTE }, "already passed"),
        (Schedule::Every { minutes: 0 }, "at least 1 minute"),
        (cron("0 8 * *", "UTC"), "has 5 fields"),
        (cron("0 25 * * *", "UTC"), "25 is outside 0–23"),
        (cron("0 8 * * *", "Europe/Atlantis"), "not a known time zone"),
    ] {
        let e = create(schedule).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidSchedule, "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
    assert!(f.engine.routines().list().unwrap().is_empty(), "nothing saved");
    // The preview says the same, and shows the next 5 times of a good one.
    let e = f.engine.routines().preview(&cron("61 * * * *", "UTC")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidSchedule);
    let preview = f.engine.routines().preview(&cron("0 9 * * 1-5", "Europe/Berlin")).unwrap();
    assert_eq!(preview.text, "Weekdays at 09:00 (Europe/Berlin)");
    assert_eq!(preview.next.len(), 5);
    assert_eq!(preview.next[0], ms("2026-03-02T08:00:00Z"));
    // Owners: exactly one, and it exists.
    let e = f
        .engine
        .routines()
        .create(RoutineInput {
            name: "nobody's".into(),
            agent_id: None,
            team_id: None,
            prompt: "Do it.".into(),
            schedule: Schedule::Every { minutes: 5 },
            heartbeat: false,
            reports_to_team_id: None,
        })
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidInput);
    // A one-time routine runs once and then has no next slot.
    let once = f.agent_routine("once only", Schedule::Once { at: t0 + HOUR });
    f.tick_at(t0 + HOUR);
    assert_eq!(f.ended(&once.id).outcome, RoutineOutcome::Succeeded);
    assert_eq!(f.routine(&once.id).next_fire_at, None);
    assert_eq!(f.engine.routines().resume(&once.id).unwrap_err().code(), ErrorCode::InvalidSchedule);
}

/// Walks a daily routine through a daylight-saving change, one tick at each slot and one an
/// hour after it: one run per local day, at the expected instants, never skipped nor doubled.
fn daily_through(tz: &str, expr: &str, from: &str, expected: &[&str]) {
    let f = fixture(ms(from));
    let routine = f.agent_routine("daily check", cron(expr, tz));
    let mut fired = Vec::new();
    for _ in 0..expected.len() {
        let at = f.routine(&routine.id).next_fire_at.expect("a next slot");
        f.tick_at(at);
        fired.push(jiff::Timestamp::from_millisecond(at).unwrap().to_string());
        assert_eq!(f.ended(&routine.id).outcome, RoutineOutcome::Succeeded);
        // An hour later (a fold's repeated hour): nothing more.
        f.tick_at(at + HOUR);
        assert_eq!(f.runs(&routine.id).len(), fired.len(), "{tz} {expr}: doubled after {at}");
    }
    assert_eq!(fired, expected, "{tz} {expr}");
    assert!(f.runs(&routine.id).iter().all(|r| r.trigger == RunTrigger::Schedule && r.missed == 0));
}

#[test]
fn a_daily_run_across_daylight_saving_in_new_york_is_neither_skipped_nor_doubled() {
    // Spring forward 2026-03-08: 02:30 does not exist; it runs at 03:30 EDT.
    daily_through(
        "America/New_York",
        "30 2 * * *",
        "2026-03-06T12:00:00Z",
        &["2026-03-07T07:30:00Z", "2026-03-08T07:30:00Z", "2026-03-09T06:30:00Z"],
    );
    // Fall back 2026-11-01: 01:30 happens twice; it runs once.
    daily_through(
        "America/New_York",
        "30 1 * * *",
        "2026-10-30T12:00:00Z",
        &["2026-10-31T05:30:00Z", "2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"],
    );
}

#[test]
fn a_daily_run_across_daylight_saving_in_berlin_is_neither_skipped_nor_doubled() {
    daily_through(
        "Europe/Berlin",
        "30 2 * * *",
        "2026-03-27T12:00:00Z",
        &["2026-03-28T01:30:00Z", "2026-03-29T01:30:00Z", "2026-03-30T00:30:00Z"],
    );
    daily_through(
        "Europe/Berlin",
        "30 2 * * *",
        "2026-10-23T12:00:00Z",
        &["2026-10-24T00:30:00Z", "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"],
    );
    daily_through(
        "Europe/Berlin",
        "30 1 * * *",
        "2026-03-27T12:00:00Z",
        &["2026-03-28T00:30:00Z", "2026-03-29T00:30:00Z", "2026-03-29T23:30:00Z"],
    );
}

#[test]
fn deleting_the_owner_deletes_its_routines_and_active_routines_keep_clawboo_in_the_tray() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    assert!(!f.engine.has_work());
    let routine = f.agent_routine("water the plants", Schedule::Every { minutes: 30 });
    assert!(f.engine.has_work(), "an active routine is work to come");
    f.engine.routines().pause(&routine.id).unwrap();
    assert!(!f.engine.has_work());
    f.engine.routines().resume(&routine.id).unwrap();
    f.engine.delete_agent(&f.agent_id).unwrap();
    assert!(f.engine.routines().list().unwrap().is_empty(), "cascaded with the agent");
    assert!(!f.engine.has_work());
}

#[test]
fn after_a_restart_the_slots_missed_while_closed_run_once_at_start() {
    // Created 5.5 hours ago, hourly: five slots passed while Clawboo was closed.
    let real_now = clawboo_engine::chat::now_ms();
    let f = fixture(real_now - 5 * HOUR - 30 * MINUTE);
    let routine = f.agent_routine("hourly sweep", Schedule::Every { minutes: 60 });
    let Fixture { data, engine, runtime, .. } = f;
    drop(engine);
    drop(runtime);

    // Reopened on the same data dir with the real clock: the scheduler's first tick at start.
    let runtime = Arc::new(Scripted::default());
    let engine = data.open_with(vec![runtime.clone()]);
    let run = wait_for("the catch-up run to end", LIMIT, || {
        let runs = engine.routines().detail(&routine.id, 10).unwrap().runs;
        runs.first().filter(|r| r.outcome != RoutineOutcome::Running).cloned()
    });
    let runs = engine.routines().detail(&routine.id, 10).unwrap().runs;
    assert_eq!(runs.len(), 1, "one run for all the missed slots: {runs:?}");
    assert_eq!((run.trigger, run.missed), (RunTrigger::CatchUp, 5));
    assert_eq!(run.note.as_deref(), Some("Missed 5 runs; ran once to catch up."));
    assert_eq!(run.outcome, RoutineOutcome::Succeeded);
    let next = engine.routines().get(&routine.id).unwrap().next_fire_at.unwrap();
    assert!(next > real_now && next <= real_now + 30 * MINUTE, "the next slot after now, no flood");
    assert_eq!(runtime.inputs_for("hourly sweep").len(), 1);
}

/// The scheduler's tick count once it has made none for a moment (the first tick at start done).
fn settled_ticks(f: &Fixture) -> u64 {
    let deadline = std::time::Instant::now() + LIMIT;
    let mut last = f.engine.routines().ticks();
    loop {
        // A pause to see whether a tick follows, not a measurement.
        std::thread::sleep(Duration::from_millis(300));
        let now = f.engine.routines().ticks();
        if now == last && now > 0 {
            return now;
        }
        assert!(std::time::Instant::now() < deadline, "the scheduler never settled ({now} ticks)");
        last = now;
    }
}

#[test]
fn a_team_message_of_the_user_wakes_no_tick_and_the_end_of_a_team_routines_run_does() {
    let t0 = ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let (team_id, general, _helper) = f.team();
    let before = settled_ticks(&f);
    f.engine.chat().send_team(&general, "hello").unwrap();
    wait_for("the leader's reply", LIMIT, || {
        let page = f.engine.chat().room_page(&general, None, 50).unwrap();
        page.messages.iter().any(|m| m.content == "Done: hello").then_some(())
    });
    assert_eq!(settled_ticks(&f), before, "the run of a message that is no routine's woke the scheduler");

    // A team routine's message: the end of the run it started wakes the scheduler, which records
    // how it went without a tick by hand (else only its next minute's check would).
    let routine = f
        .engine
        .routines()
        .create(RoutineInput {
            name: "weekly plan".into(),
            agent_id: None,
            team_id: Some(team_id),
            prompt: "plan the week".into(),
            schedule: cron("0 9 * * 1", "Europe/Berlin"),
            heartbeat: false,
            reports_to_team_id: None,
        })
        .unwrap();
    f.tick_at(ms("2026-03-02T08:00:00Z"));
    let ended = wait_for("the scheduler to see the routine's run end", LIMIT, || {
        let runs = f.runs(&routine.id);
        runs.first().filter(|r| r.outcome != RoutineOutcome::Running).cloned()
    });
    assert_eq!(ended.outcome, RoutineOutcome::Succeeded, "{:?}", ended.note);
}
