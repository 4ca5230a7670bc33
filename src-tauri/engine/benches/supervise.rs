//! Runs that cannot hang or grow, in figures (Linux; real `sh` processes):
//! - time from cancel to the end of a run whose stdout is stalled: a CLI that stops on the
//!   interrupt, and one that ignores INT and TERM and closed its stdout (the whole ladder);
//! - memory held while a 100 MB line streams through the supervisor (the process's peak RSS,
//!   VmHWM, before and after), next to what reading it with `lines()` would hold.
//!
//! `cargo bench -p clawboo-engine --bench supervise` (or `cargo test … --bench supervise` for a
//! quick debug-build run).

use std::time::{Duration, Instant};

use clawboo_engine::runtimes::process::{CommandSpec, ExitInfo, SystemSpawner};
use clawboo_engine::runtimes::supervise::{supervise, Step, StreamProtocol, Timeouts};
use clawboo_engine::runtimes::{ApprovalPolicy, RunChannels, RunEvent, RunResult};
use tokio::io::AsyncBufReadExt;
use tokio::sync::{mpsc, watch};

struct Quiet;

impl StreamProtocol for Quiet {
    fn on_line(&mut self, line: &str, out: &mut Vec<Step>) {
        out.push(Step::Emit(RunEvent::Message { text: line.chars().take(40).collect() }));
    }

    fn finish(&mut self, _exit: ExitInfo, _stderr_tail: &str) -> RunResult {
        RunResult::succeeded()
    }
}

fn sh(script: &str) -> CommandSpec {
    CommandSpec {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        inherit_env: vec!["PATH".into()],
        cwd: std::env::temp_dir(),
        piped_stdin: true,
        ..Default::default()
    }
}

const LINE_100_MB: &str = "head -c 104857600 /dev/zero | tr '\\0' x; echo; echo done";

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let timeouts = Timeouts::default();
        println!("stop ladder: interrupt, {:?}, SIGTERM, {:?}, SIGKILL", timeouts.grace, timeouts.grace);
        let polite = median(5, || cancel_time("echo started; sleep 300", timeouts)).await;
        println!("cancel, stalled stdout, CLI stops on the interrupt: median {polite:?} (5 runs)");
        let stubborn = "echo started; exec >&-; trap '' INT TERM; while :; do sleep 1; done";
        let ladder = median(3, || cancel_time(stubborn, timeouts)).await;
        println!("cancel, stdout closed, CLI ignores INT and TERM: median {ladder:?} (3 runs)");

        let before = vm_hwm_kib();
        let started = Instant::now();
        let (channels, mut events, _cancel) = channels();
        supervise(&SystemSpawner, &sh(LINE_100_MB), Box::new(Quiet), channels, ApprovalPolicy::Ask, timeouts)
            .await
            .unwrap();
        let took = started.elapsed();
        let warned = std::iter::from_fn(|| events.try_recv().ok()).any(|e| matches!(e, RunEvent::Warning { .. }));
        let after = vm_hwm_kib();
        println!(
            "100 MB line through supervise: peak RSS {} MiB -> {} MiB (+{} MiB), {took:?}, warning: {warned}",
            before / 1024,
            after / 1024,
            (after - before) / 1024
        );

        let mut child = tokio::process::Command::new("/bin/sh")
            .args(["-c", LINE_100_MB])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let mut longest = 0;
        while let Ok(Some(line)) = lines.next_line().await {
            longest = longest.max(line.len());
        }
        let _ = child.wait().await;
        let unbounded = vm_hwm_kib();
        println!(
            "the same line read with lines() (before this change): peak RSS -> {} MiB (+{} MiB), line of {longest} bytes held",
            unbounded / 1024,
            (unbounded - after) / 1024
        );
    });
}

fn channels() -> (RunChannels, mpsc::UnboundedReceiver<RunEvent>, watch::Sender<bool>) {
    let (events_tx, events) = mpsc::unbounded_channel();
    let (permissions, _) = mpsc::unbounded_channel();
    let (cancel, cancel_rx) = watch::channel(false);
    (RunChannels { events: events_tx, permissions, cancel: cancel_rx }, events, cancel)
}

/// From the cancel to `supervise` returning (the group is gone by then).
async fn cancel_time(script: &str, timeouts: Timeouts) -> Duration {
    let (channels, mut events, cancel) = channels();
    let spec = sh(script);
    let run = tokio::spawn(async move {
        supervise(&SystemSpawner, &spec, Box::new(Quiet), channels, ApprovalPolicy::Ask, timeouts).await
    });
    events.recv().await.expect("the script started");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    cancel.send(true).unwrap();
    run.await.unwrap().unwrap();
    started.elapsed()
}

async fn median<F, Fut>(runs: usize, mut f: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Duration>,
{
    let mut times = Vec::new();
    for _ in 0..runs {
        times.push(f().await);
    }
    times.sort();
    times[runs / 2]
}

/// The process's peak resident set (KiB).
fn vm_hwm_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
