//! Start and cancel, N times, across runtimes, through the engine itself (what the app's Stop
//! and the local API's cancel both call: `Runner::cancel`). Runs go in batches of one per
//! runtime; once all of a batch are mid-flight, the soak notes every process below itself (the
//! whole tree: CLIs, their helpers, the tools they started) and cancels each run. When the
//! runner says a run has ended (its card released), none of those processes may still run.

use std::time::{Duration, Instant};

use clawboo_engine::board::{Actor, NewCard};
use clawboo_engine::runner::StartOptions;
use clawboo_engine::{Engine, EngineConfig};
use clawboo_testkit::FakeModelServer;
use serde_json::json;

use crate::procs::{self, Proc};
use crate::setup;
use crate::{Args, Report, Row};

const MID_RUN_LIMIT: Duration = Duration::from_secs(120);
const END_LIMIT: Duration = Duration::from_secs(30);

pub fn run(args: &Args) -> Report {
    let total = args.rounds.max(1) as usize;
    let subjects = setup::subjects();
    let batches = total.div_ceil(subjects.len()) as u32;
    let server = FakeModelServer::start_blocking(setup::behavior(&subjects, batches));
    let data = setup::fresh_dir(&args.work, "cancel").join("data");
    let engine = Engine::open(EngineConfig::for_dir(data)).expect("open the data folder");
    let agents = setup::seed(&engine, &subjects, &server.base_url());

    let (mut started, mut mid_flight, mut seen, mut survivors, mut not_ended) = (0, 0, 0, 0, 0);
    let mut stop_ms: Vec<f64> = Vec::new();
    for batch in 0..batches {
        let mut runs = Vec::new();
        for (index, subject) in subjects.iter().enumerate() {
            if started == total {
                break;
            }
            let task = format!("{} Tidy the changelog, batch {batch}.", setup::tag(subject, batch));
            let card = NewCard {
                title: format!("Soak cancel {batch} on {}", subject.handle),
                description: task,
                assignee_id: Some(agents[index].id.clone()),
                team_id: None,
                status: None,
                priority: None,
                depends_on: vec![],
                check_command: None,
                project_folder: None,
            };
            let card = engine.board().create(Actor::User, card).expect("card");
            let expected = setup::card_number(subjects.len(), index, batch);
            if card.number != expected {
                eprintln!(
                    "soak cancel: card #{} where #{expected} was expected: its script will not match",
                    card.number
                );
            }
            match engine.runner().start(&card.id, StartOptions::default()) {
                Ok(_) => runs.push((index, card.id)),
                Err(e) => eprintln!("soak cancel: {} did not start: {e}", subject.handle),
            }
            started += 1;
        }
        let ready = setup::wait_mid_flight(&server, &subjects, batch, &runs, MID_RUN_LIMIT);
        mid_flight += ready;
        let tree: Vec<Proc> =
            procs::descendants(std::process::id()).into_iter().filter(|p| !procs::is_watchdog(p)).collect();
        seen += tree.len();

        let asked = Instant::now();
        for (_, card_id) in &runs {
            if let Err(e) = engine.runner().cancel(card_id) {
                eprintln!("soak cancel: batch {batch}: cancel of {card_id} refused: {e}");
            }
        }
        let mut ended_all = true;
        for (_, card_id) in &runs {
            let deadline = Instant::now() + END_LIMIT;
            loop {
                let card = engine.board().get(card_id).expect("card");
                if card.claimed_by_run.is_none() {
                    stop_ms.push(asked.elapsed().as_secs_f64() * 1000.0);
                    break;
                }
                if Instant::now() > deadline {
                    not_ended += 1;
                    ended_all = false;
                    eprintln!(
                        "soak cancel: batch {batch}: card {card_id} still claimed {END_LIMIT:?} after the cancel"
                    );
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let left = procs::still_running(&tree);
        survivors += left.len();
        eprintln!(
            "soak cancel: batch {}/{batches}: {} runs ({ready} mid-flight), {} processes, {} still running after the \
             runs ended{}",
            batch + 1,
            runs.len(),
            tree.len(),
            left.len(),
            if ended_all { "" } else { " (some did not end)" }
        );
        for p in &left {
            eprintln!("    survived: {}", p.describe());
        }
        // The next batch starts clean even if this one left something (so it is counted once).
        for p in &left {
            let _ = std::process::Command::new("kill").args(["-KILL", &p.pid.to_string()]).status();
        }
    }
    drop(engine);
    stop_ms.sort_by(f64::total_cmp);
    let median = stop_ms.get(stop_ms.len() / 2).copied().unwrap_or(0.0);
    let max = stop_ms.last().copied().unwrap_or(0.0);
    let names: Vec<&str> = subjects.iter().map(|s| s.handle.trim_start_matches("soak-")).collect();
    Report {
        part: "cancel",
        title: format!("Cancel ×{total} across runtimes"),
        how: format!(
            "The engine itself (examples/soak), task runs on {} in batches of one per runtime, each mid-flight on the \
             fake model server (a CLI's shell tool running), then Runner::cancel; processes counted from /proc (the \
             whole tree, grandchildren included) once the runner reports the run ended.",
            names.join(", ")
        ),
        rows: vec![
            Row::zero("surviving processes (whole tree)", survivors),
            Row::zero("runs not ended 30 s after the cancel", not_ended),
            Row::all("runs mid-flight when cancelled", mid_flight, started),
            Row::info("processes running at the cancels (all runs)", json!(seen)),
            Row::info("cancel to run ended, median / max", json!(format!("{:.0} ms / {:.0} ms", median, max))),
        ],
    }
}
