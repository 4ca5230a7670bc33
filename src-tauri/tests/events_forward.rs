//! The forwarder of engine events to the UI (mock runtime, no display): what the webview hears.
//! A reader that fell behind the bus is told to refetch everything; under a flood from twenty
//! publishers every event either arrives or a refetch is asked for: nothing is lost silently.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::chat::RunEventRecord;
use clawboo_engine::runtimes::RunEvent;
use clawboo_engine::{EngineEvent, EventBus};
use clawboo_lib::events::forward_from;
use clawboo_lib::specta_builder;
use clawboo_testkit::wait_for;
use tauri::test::{mock_builder, mock_context, noop_assets, MockRuntime};
use tauri::Listener;

const NAMES: [&str; 4] = ["agents-changed", "routines-changed", "memory-changed", "run-event-emitted"];

/// A mock app with the events mounted, and how many of each of `NAMES` it heard.
fn app() -> (tauri::App<MockRuntime>, Vec<Arc<AtomicUsize>>) {
    let builder = specta_builder::<MockRuntime>();
    let app = mock_builder().build(mock_context(noop_assets())).unwrap();
    builder.mount_events(&app);
    let counts: Vec<Arc<AtomicUsize>> = NAMES
        .iter()
        .map(|name| {
            let count = Arc::new(AtomicUsize::new(0));
            let seen = count.clone();
            app.listen_any(*name, move |_| {
                seen.fetch_add(1, Ordering::SeqCst);
            });
            count
        })
        .collect();
    (app, counts)
}

fn heard(counts: &[Arc<AtomicUsize>]) -> Vec<usize> {
    counts.iter().map(|c| c.load(Ordering::SeqCst)).collect()
}

fn run_event(run: usize, seq: u32) -> EngineEvent {
    EngineEvent::RunEvent {
        agent_id: format!("agent-{run}"),
        record: RunEventRecord {
            run_id: format!("run-{run}"),
            seq,
            at: 0,
            event: RunEvent::TextDelta { text: format!("part {seq}") },
        },
    }
}

#[test]
fn a_reader_that_lagged_tells_the_ui_to_refetch_everything() {
    let (app, counts) = app();
    let sender = EventBus::with_capacity(4);
    let receiver = sender.subscribe();
    // Ten events into a bus of four before the forwarder reads: the first six are gone.
    for _ in 0..10 {
        sender.publish(EngineEvent::MemoryChanged);
    }
    forward_from(app.handle().clone(), receiver);
    let seen = wait_for("the forwarder to catch up", Duration::from_secs(10), || {
        let seen = heard(&counts);
        (seen[2] == 4).then_some(seen)
    });
    assert_eq!(seen[..3], [1, 1, 4], "one refetch of everything (agents and routines), then the four kept");
    drop(sender);
}

#[test]
fn under_a_flood_every_event_arrives_or_a_refetch_is_asked_for() {
    const PUBLISHERS: usize = 20;
    const EACH: u32 = 2_000;
    let (app, counts) = app();
    let sender = EventBus::new();
    forward_from(app.handle().clone(), sender.subscribe());
    let publishers: Vec<_> = (0..PUBLISHERS)
        .map(|run| {
            let sender = sender.clone();
            std::thread::spawn(move || {
                for seq in 0..EACH {
                    sender.publish(run_event(run, seq));
                }
            })
        })
        .collect();
    publishers.into_iter().for_each(|p| p.join().unwrap());
    sender.publish(EngineEvent::MemoryChanged);
    let seen = wait_for("the forwarder to reach the last event", Duration::from_secs(60), || {
        let seen = heard(&counts);
        (seen[2] == 1).then_some(seen)
    });
    let total = PUBLISHERS * EACH as usize;
    println!("forwarded {} of {total} run events; refetches asked: {}", seen[3], seen[0]);
    assert!(seen[3] <= total);
    if seen[3] < total {
        assert!(seen[0] >= 1 && seen[1] >= 1, "events were dropped without a refetch: {seen:?}");
    } else {
        assert_eq!(seen[..2], [0, 0], "no refetch without a lag");
    }
}

#[test]
fn lags_close_together_give_one_refetch_now_and_one_owed() {
    use clawboo_lib::events::{Resyncs, RESYNC_GAP};
    use std::time::Instant;
    let start = Instant::now();
    let mut resyncs = Resyncs::default();
    assert!(resyncs.lagged(start), "the first lag refetches at once");
    assert_eq!(resyncs.owed_at(), None);
    // A hundred more inside the gap: none sent now, one owed for when the gap ends.
    for i in 1..=100 {
        assert!(!resyncs.lagged(start + RESYNC_GAP * i / 200));
    }
    assert_eq!(resyncs.owed_at(), Some(start + RESYNC_GAP));
    resyncs.sent(start + RESYNC_GAP);
    assert_eq!(resyncs.owed_at(), None, "paid");
    // A lag after the gap refetches at once again.
    assert!(resyncs.lagged(start + RESYNC_GAP * 3));
}
