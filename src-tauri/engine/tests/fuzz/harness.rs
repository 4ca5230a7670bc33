//! The time-boxed loop: feeds a target inputs until its time is up, counts panics, keeps the
//! first few panicking inputs, and writes the figures for `scripts/soak.d/fuzz`.
//!
//! `CLAWBOO_FUZZ_SECONDS` (default 1) is the time per target; `CLAWBOO_FUZZ_SEED` replays a
//! run; `CLAWBOO_FUZZ_REPORT_DIR`, when set, gets `<target>.json` and any panicking inputs.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Once;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::mutate::{Corpus, Rng};

thread_local! {
    static FUZZING: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Panics inside a fuzzed call are recorded quietly; any other panic reports as usual.
fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if FUZZING.with(Cell::get) {
                let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
                LAST_PANIC.with(|p| *p.borrow_mut() = format!("{info}{at}"));
            } else {
                default(info);
            }
        }));
    });
}

/// One input for a target: the lines of a session (or a stream) and the generator, for any
/// further choices the driver makes (chunking, answers, exit codes).
pub struct Case<'a> {
    pub lines: Vec<String>,
    pub rng: &'a mut Rng,
}

#[derive(Debug)]
pub struct Report {
    pub inputs: u64,
    pub panics: u64,
    pub cuts_swept: usize,
    pub cuts_total: usize,
    pub first_panics: Vec<(String, String)>,
}

fn budget() -> Duration {
    let seconds = std::env::var("CLAWBOO_FUZZ_SECONDS").ok().and_then(|s| s.parse::<f64>().ok()).unwrap_or(1.0);
    Duration::from_secs_f64(seconds.max(0.05))
}

fn seed() -> u64 {
    std::env::var("CLAWBOO_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(7))
}

/// Fuzzes `drive` for the time budget (see [`run`]); fails the test on any panic, naming the
/// first input that panicked.
pub fn fuzz(target: &str, title: &str, corpus: &Corpus, drive: impl FnMut(Case)) -> Report {
    run(target, title, corpus, drive).unwrap_or_else(|failure| panic!("{failure}"))
}

/// Half the inputs walk the sweep of single-line cuts (every byte of every seed line, in order,
/// until done), half are random mutations. `Err` says how many inputs panicked, and the first.
pub fn run(target: &str, title: &str, corpus: &Corpus, mut drive: impl FnMut(Case)) -> Result<Report, String> {
    install_hook();
    let seed = seed();
    let mut rng = Rng::new(seed);
    let started = Instant::now();
    let limit = budget();
    let cuts_total = corpus.cut_count();
    let mut report = Report { inputs: 0, panics: 0, cuts_swept: 0, cuts_total, first_panics: Vec::new() };
    while started.elapsed() < limit {
        let lines = if report.cuts_swept < cuts_total && rng.chance(50) {
            report.cuts_swept += 1;
            corpus.cut(report.cuts_swept - 1)
        } else {
            corpus.mutated_session(&mut rng)
        };
        let kept = lines.join("\n");
        let case_seed = rng.next();
        let mut case_rng = Rng::new(case_seed);
        FUZZING.with(|f| f.set(true));
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| drive(Case { lines, rng: &mut case_rng })));
        FUZZING.with(|f| f.set(false));
        report.inputs += 1;
        if outcome.is_err() {
            report.panics += 1;
            if report.first_panics.len() < 5 {
                let message = LAST_PANIC.with(|p| p.borrow().clone());
                report.first_panics.push((format!("case seed {case_seed}: {message}"), kept));
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    write_report(target, title, seed, seconds, &report);
    println!(
        "fuzz {target}: {} inputs in {seconds:.1} s, {} panics, {}/{} cuts swept (seed {seed})",
        report.inputs, report.panics, report.cuts_swept, report.cuts_total
    );
    if let Some((message, input)) = report.first_panics.first() {
        return Err(format!(
            "{target}: {} of {} inputs panicked; first: {message}\ninput:\n{input}",
            report.panics, report.inputs
        ));
    }
    Ok(report)
}

fn write_report(target: &str, title: &str, seed: u64, seconds: f64, report: &Report) {
    let Some(dir) = std::env::var_os("CLAWBOO_FUZZ_REPORT_DIR").map(PathBuf::from) else { return };
    if target == "self_check" {
        return;
    }
    std::fs::create_dir_all(&dir).unwrap();
    for (i, (message, input)) in report.first_panics.iter().enumerate() {
        std::fs::write(dir.join(format!("{target}-panic-{i}.txt")), format!("{message}\n---\n{input}")).unwrap();
    }
    let json = serde_json::json!({
        "target": target,
        "title": title,
        "inputs": report.inputs,
        "panics": report.panics,
        "seconds": seconds,
        "seed": seed,
        "cuts_swept": report.cuts_swept,
        "cuts_total": report.cuts_total,
    });
    std::fs::write(dir.join(format!("{target}.json")), json.to_string()).unwrap();
}
