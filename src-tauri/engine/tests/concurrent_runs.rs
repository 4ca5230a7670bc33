//! Twenty chats run at once on a fake runtime that reports as fast as it can: every run
//! completes, and a subscriber of the event bus (what the shell's forwarder to the UI is) hears
//! every stored event of every run and every run's end: none dropped, no lag. The subscriber
//! serializes each event as the forwarder's emit does, so it is no faster than the real one.
//! `CLAWBOO_CONCURRENT_EVENTS` sets the events per run (default 200); `scripts/soak.d/concurrent`
//! runs more and writes the figures from `CLAWBOO_SOAK_REPORT`.

mod common;

use std::collections::{HashMap, HashSet};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::runtimes::{ApprovalPolicy, Capabilities, RunChannels, RunEvent, RunResult, Runtime, TurnInput};
use clawboo_engine::EngineEvent;
use clawboo_testkit::wait_for;
use common::Fixture;
use tokio::sync::broadcast::error::RecvError;

const RUNS: usize = 20;
const LIMIT: Duration = Duration::from_secs(120);

fn events_per_run() -> usize {
    std::env::var("CLAWBOO_CONCURRENT_EVENTS").ok().and_then(|s| s.parse().ok()).unwrap_or(200)
}

/// Reports `events_per_run` things (text, thinking, tool calls and results), yielding between
/// them only now and then, then succeeds.
struct Flood(usize);

impl Runtime for Flood {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> Capabilities {
        clawboo_engine::runtimes::native::CAPABILITIES
    }

    fn run(
        &self,
        _input: TurnInput,
        channels: RunChannels,
    ) -> Pin<Box<dyn std::future::Future<Output = clawboo_engine::Result<RunResult>> + Send + '_>> {
        let count = self.0;
        Box::pin(async move {
            for n in 0..count {
                let event = match n % 4 {
                    0 => RunEvent::TextDelta { text: format!("part {n}. ") },
                    1 => RunEvent::Thinking { text: format!("thought {n}") },
                    2 => RunEvent::ToolCallStarted {
                        call_id: format!("t{n}"),
                        name: "read_file".into(),
                        input: serde_json::json!({"path": format!("f{n}.md")}),
                    },
                    _ => RunEvent::ToolResult { call_id: format!("t{}", n - 1), output: "ok".into(), is_error: false },
                };
                channels.emit(event);
                if n % 16 == 0 {
                    tokio::task::yield_now().await;
                }
            }
            Ok(RunResult::succeeded())
        })
    }
}

#[derive(Default)]
struct Heard {
    /// (run id, seq) of every run event heard.
    records: HashSet<(String, u32)>,
    /// Runs heard ending.
    ended: HashSet<String>,
    events: u64,
    lagged: u64,
    peak_backlog: usize,
}

#[test]
fn twenty_concurrent_runs_complete_and_the_event_stream_drops_nothing() {
    let per_run = events_per_run();
    let fixture = Fixture::new();
    let engine = fixture.open_with(vec![Arc::new(Flood(per_run))]);
    let agents: Vec<String> = (0..RUNS)
        .map(|i| {
            let agent = NewAgent {
                name: format!("Worker {i}"),
                model: "some-model".into(),
                approval_policy: ApprovalPolicy::AllowAll,
                ..common::new_agent(&format!("worker{i}"), RuntimeKind::Native)
            };
            common::add_agent(&engine, agent)
        })
        .collect();

    // The forwarder's stand-in: reads the bus and serializes each event, as emitting it does.
    let mut bus = engine.events().subscribe();
    let done = Arc::new(AtomicBool::new(false));
    let listener = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut heard = Heard::default();
            let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
            runtime.block_on(async {
                loop {
                    heard.peak_backlog = heard.peak_backlog.max(bus.len());
                    let next = tokio::time::timeout(Duration::from_millis(200), bus.recv()).await;
                    match next {
                        Ok(Ok(event)) => {
                            heard.events += 1;
                            std::hint::black_box(format!("{event:?}"));
                            match event {
                                EngineEvent::RunEvent { record, .. } => {
                                    let payload = serde_json::to_string(&record).unwrap();
                                    std::hint::black_box(payload);
                                    heard.records.insert((record.run_id, record.seq));
                                }
                                EngineEvent::RunChanged { run, .. } if run.status != RunStatus::Running => {
                                    heard.ended.insert(run.id);
                                }
                                _ => {}
                            }
                        }
                        Ok(Err(RecvError::Lagged(n))) => heard.lagged += n,
                        Ok(Err(RecvError::Closed)) => break,
                        Err(_) if done.load(Ordering::SeqCst) => break,
                        Err(_) => {}
                    }
                }
            });
            heard
        })
    };

    let started = Instant::now();
    let runs: Vec<String> = agents.iter().map(|a| engine.chat().send(a, "Go").unwrap().run.unwrap().id).collect();
    let finished = wait_for("all twenty runs to end", LIMIT, || {
        let runs: Vec<_> = runs.iter().map(|id| engine.chat().run(id).unwrap()).collect();
        runs.iter().all(|r| r.status != RunStatus::Running).then_some(runs)
    });
    let seconds = started.elapsed().as_secs_f64();
    let succeeded = finished.iter().filter(|r| r.status == RunStatus::Succeeded).count();

    let stored: Vec<(String, u32)> = runs
        .iter()
        .flat_map(|id| engine.chat().run_activity(id).unwrap().into_iter().map(|r| (r.run_id, r.seq)))
        .collect();
    // The listener stops once the bus has been quiet for 200 ms after this: it drains first.
    done.store(true, Ordering::SeqCst);
    let heard = listener.join().unwrap();
    let missing = stored.iter().filter(|r| !heard.records.contains(*r)).count();
    let ends_missing = runs.iter().filter(|id| !heard.ended.contains(*id)).count();
    let per_run_stored: HashMap<&str, usize> = stored.iter().fold(HashMap::new(), |mut m, (id, _)| {
        *m.entry(id.as_str()).or_default() += 1;
        m
    });

    let summary = serde_json::json!({
        "runs": RUNS,
        "succeeded": succeeded,
        "events_per_run": per_run,
        "stored_events": stored.len(),
        "heard_run_events": heard.records.len(),
        "heard_events": heard.events,
        "missing": missing,
        "ends_missing": ends_missing,
        "lagged": heard.lagged,
        "peak_backlog": heard.peak_backlog,
        "capacity": 32 * 1024,
        "seconds": seconds,
    });
    println!("concurrent runs: {summary}");
    if let Some(path) = std::env::var_os("CLAWBOO_SOAK_REPORT") {
        std::fs::write(path, summary.to_string()).unwrap();
    }
    assert_eq!(succeeded, RUNS, "{finished:?}");
    assert!(
        per_run_stored.len() == RUNS && per_run_stored.values().all(|n| *n >= per_run),
        "every run stored its events: {per_run_stored:?}"
    );
    assert_eq!((missing, ends_missing, heard.lagged), (0, 0, 0), "the subscriber heard everything");
}
