//! Process supervision with real processes (`sh`): lines become events, permission questions
//! round-trip through stdin, and cancel, silence and exit leave no process of the group alive.
#![cfg(unix)]

mod common;

use std::time::Duration;

use clawboo_engine::runtimes::process::{CommandSpec, ExitInfo, SystemSpawner};
use clawboo_engine::runtimes::supervise::{supervise, supervise_with, Step, StreamProtocol, Timeouts};
use clawboo_engine::runtimes::{
    ApprovalPolicy, PendingPermission, PermissionAnswer, RunChannels, RunEvent, RunOutcome, RunResult,
};
use common::RecordingSpawner;
use tokio::sync::{mpsc, watch};

/// Test protocol: `SAY x` → a message, `ASK tool` → a permission question answered on stdin.
struct LineProtocol;

impl StreamProtocol for LineProtocol {
    fn on_line(&mut self, line: &str, out: &mut Vec<Step>) {
        if let Some(text) = line.strip_prefix("SAY ") {
            out.push(Step::Emit(RunEvent::Message { text: text.into() }));
        } else if let Some(tool) = line.strip_prefix("ASK ") {
            out.push(Step::Ask {
                request_id: "r1".into(),
                tool: tool.into(),
                input: serde_json::json!({}),
                description: format!("use {tool}"),
                read_only: tool == "read",
            });
        } else {
            out.push(Step::Emit(RunEvent::Warning { message: format!("unknown line: {line}") }));
        }
    }

    fn on_permission(&mut self, _id: &str, answer: PermissionAnswer, out: &mut Vec<Step>) {
        out.push(Step::Send(if answer.allow { "yes".into() } else { "no".into() }));
    }

    fn finish(&mut self, exit: ExitInfo, stderr_tail: &str) -> RunResult {
        if exit.success() {
            RunResult::succeeded()
        } else {
            RunResult::failed(format!("{} — {}", exit.describe(), stderr_tail.trim()))
        }
    }
}

struct Harness {
    events: mpsc::UnboundedReceiver<RunEvent>,
    permissions: mpsc::UnboundedReceiver<PendingPermission>,
    cancel: watch::Sender<bool>,
}

fn channels() -> (RunChannels, Harness) {
    let (events_tx, events) = mpsc::unbounded_channel();
    let (permissions_tx, permissions) = mpsc::unbounded_channel();
    let (cancel, cancel_rx) = watch::channel(false);
    (
        RunChannels { events: events_tx, permissions: permissions_tx, cancel: cancel_rx },
        Harness { events, permissions, cancel },
    )
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

fn drain(rx: &mut mpsc::UnboundedReceiver<RunEvent>) -> Vec<RunEvent> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

const QUICK: Timeouts = Timeouts { silence: Duration::from_secs(30), grace: Duration::from_millis(300) };

#[tokio::test]
async fn lines_become_events_and_exit_codes_are_judged() {
    let (ch, mut h) = channels();
    let result = supervise(
        &SystemSpawner,
        &sh("echo 'SAY hello'; echo garbage"),
        Box::new(LineProtocol),
        ch,
        ApprovalPolicy::Ask,
        QUICK,
    )
    .await
    .unwrap();
    assert_eq!(result.outcome, RunOutcome::Succeeded);
    let events = drain(&mut h.events);
    assert_eq!(events[0], RunEvent::Message { text: "hello".into() });
    assert!(matches!(&events[1], RunEvent::Warning { message } if message.contains("garbage")));

    let (ch, _h) = channels();
    let failed =
        supervise(&SystemSpawner, &sh("echo boom >&2; exit 3"), Box::new(LineProtocol), ch, ApprovalPolicy::Ask, QUICK)
            .await
            .unwrap();
    assert_eq!(failed.outcome, RunOutcome::Failed);
    assert_eq!(failed.message.as_deref(), Some("exit code 3 — boom"));
}

#[tokio::test]
async fn a_missing_program_is_a_clear_error() {
    let (ch, _h) = channels();
    let spec = CommandSpec { program: "/nowhere/claude".into(), cwd: std::env::temp_dir(), ..Default::default() };
    let err =
        supervise(&SystemSpawner, &spec, Box::new(LineProtocol), ch, ApprovalPolicy::Ask, QUICK).await.unwrap_err();
    assert_eq!(err.code(), clawboo_engine::ErrorCode::RuntimeFailed);
    assert!(err.to_string().contains("/nowhere/claude"));
}

#[tokio::test]
async fn permission_questions_round_trip_through_the_user() {
    let (ch, mut h) = channels();
    let run = tokio::spawn(async move {
        supervise(
            &SystemSpawner,
            &sh("echo 'ASK write'; read a; echo \"SAY got $a\""),
            Box::new(LineProtocol),
            ch,
            ApprovalPolicy::Ask,
            QUICK,
        )
        .await
    });
    let pending = h.permissions.recv().await.expect("a question");
    assert_eq!(pending.request_id, "r1");
    pending.reply.send(PermissionAnswer { allow: true }).unwrap();
    assert_eq!(run.await.unwrap().unwrap().outcome, RunOutcome::Succeeded);
    let events = drain(&mut h.events);
    assert!(events.iter().any(|e| matches!(e, RunEvent::PermissionRequest { tool, .. } if tool == "write")));
    assert!(events.contains(&RunEvent::PermissionResolved { request_id: "r1".into(), allowed: true }));
    assert!(events.contains(&RunEvent::Message { text: "got yes".into() }));
}

#[tokio::test]
async fn the_policy_answers_before_the_user_is_asked() {
    for (policy, tool, expected) in [
        (ApprovalPolicy::AllowAll, "write", "got yes"),
        (ApprovalPolicy::ReadOnly, "write", "got no"),
        (ApprovalPolicy::ReadOnly, "read", "got yes"),
    ] {
        let (ch, mut h) = channels();
        let script = format!("echo 'ASK {tool}'; read a; echo \"SAY got $a\"");
        let result = supervise(&SystemSpawner, &sh(&script), Box::new(LineProtocol), ch, policy, QUICK).await.unwrap();
        assert_eq!(result.outcome, RunOutcome::Succeeded);
        assert!(h.permissions.try_recv().is_err(), "{policy:?} must not ask the user");
        assert!(drain(&mut h.events).contains(&RunEvent::Message { text: expected.into() }), "{policy:?} {tool}");
    }
}

#[tokio::test]
async fn cancel_stops_the_whole_group() {
    let spawner = RecordingSpawner::default();
    let (ch, h) = channels();
    let s = spawner.clone();
    let run = tokio::spawn(async move {
        // A tool the CLI started in the background, and the CLI itself.
        supervise(
            &s,
            &sh("sleep 60 & echo 'SAY started'; sleep 60"),
            Box::new(LineProtocol),
            ch,
            ApprovalPolicy::Ask,
            QUICK,
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(spawner.group_alive());
    h.cancel.send(true).unwrap();
    let result = run.await.unwrap().unwrap();
    assert_eq!(result.outcome, RunOutcome::Cancelled);
    assert!(!spawner.group_alive(), "no process of the run survives a cancel");
}

#[tokio::test]
async fn a_process_that_ignores_signals_is_killed() {
    let spawner = RecordingSpawner::default();
    let (ch, h) = channels();
    let s = spawner.clone();
    let run = tokio::spawn(async move {
        supervise(
            &s,
            &sh("trap '' INT TERM; echo 'SAY stubborn'; while :; do sleep 1; done"),
            Box::new(LineProtocol),
            ch,
            ApprovalPolicy::Ask,
            QUICK,
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    h.cancel.send(true).unwrap();
    assert_eq!(run.await.unwrap().unwrap().outcome, RunOutcome::Cancelled);
    assert!(!spawner.group_alive());
}

#[tokio::test]
async fn a_silent_run_times_out() {
    let spawner = RecordingSpawner::default();
    let (ch, mut h) = channels();
    let timeouts = Timeouts { silence: Duration::from_millis(400), grace: Duration::from_millis(200) };
    let result =
        supervise(&spawner, &sh("echo 'SAY hi'; sleep 60"), Box::new(LineProtocol), ch, ApprovalPolicy::Ask, timeouts)
            .await
            .unwrap();
    assert_eq!(result.outcome, RunOutcome::TimedOut);
    assert!(!spawner.group_alive());
    assert!(drain(&mut h.events)
        .iter()
        .any(|e| matches!(e, RunEvent::Warning { message } if message.contains("No output"))));
}

/// A question about a hosted connector's call waits outside the CLI's stream (the CLI awaits the
/// call in silence): no silence either while it waits, and silence again once it is answered.
#[tokio::test]
async fn a_question_waiting_elsewhere_is_no_silence_either() {
    let spawner = RecordingSpawner::default();
    let (ch, _h) = channels();
    let timeouts = Timeouts { silence: Duration::from_millis(300), grace: Duration::from_millis(200) };
    let (asking, count) = watch::channel(0usize);
    let run = tokio::spawn(async move {
        let script = sh("echo 'SAY calling'; sleep 60");
        supervise_with(&spawner, &script, Box::new(LineProtocol), ch, ApprovalPolicy::Ask, timeouts, Some(count)).await
    });
    asking.send(1).unwrap();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert!(!run.is_finished(), "stopped for silence while the user was being asked");
    let answered = std::time::Instant::now();
    asking.send(0).unwrap();
    let result = run.await.unwrap().unwrap();
    assert_eq!(result.outcome, RunOutcome::TimedOut, "silent again after the answer");
    assert!(answered.elapsed() >= Duration::from_millis(300), "a whole silence limit after the answer");
}

#[tokio::test]
async fn a_question_waiting_for_the_user_is_no_silence_and_silence_counts_again_after_the_answer() {
    let spawner = RecordingSpawner::default();
    let (ch, mut h) = channels();
    let timeouts = Timeouts { silence: Duration::from_millis(300), grace: Duration::from_millis(200) };
    let script = sh("echo 'ASK write'; read a; echo \"SAY got $a\"; sleep 60");
    let run = tokio::spawn(async move {
        supervise(&spawner, &script, Box::new(LineProtocol), ch, ApprovalPolicy::Ask, timeouts).await
    });
    let pending = h.permissions.recv().await.expect("a question");
    // The user takes many times the silence limit to answer: the run waits for them.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert!(!run.is_finished(), "stopped for silence while the user was being asked");
    pending.reply.send(PermissionAnswer { allow: true }).unwrap();
    // Answered, the run goes on; then it falls silent, and that is silence again.
    let result = run.await.unwrap().unwrap();
    assert_eq!(result.outcome, RunOutcome::TimedOut);
    let events = drain(&mut h.events);
    assert!(events.contains(&RunEvent::Message { text: "got yes".into() }), "{events:#?}");
    let warned = events.iter().filter(|e| matches!(e, RunEvent::Warning { message } if message.contains("No output")));
    assert_eq!(warned.count(), 1, "once, after the answer");
}

#[tokio::test]
async fn background_children_are_cleaned_up_after_a_normal_exit() {
    let spawner = RecordingSpawner::default();
    let (ch, _h) = channels();
    let result =
        supervise(&spawner, &sh("sleep 60 & echo 'SAY done'"), Box::new(LineProtocol), ch, ApprovalPolicy::Ask, QUICK)
            .await
            .unwrap();
    assert_eq!(result.outcome, RunOutcome::Succeeded);
    assert!(!spawner.group_alive());
}

#[tokio::test]
async fn a_100_mb_line_is_skipped_with_one_warning_and_the_run_goes_on() {
    let (ch, mut h) = channels();
    let script = "echo 'SAY before'; head -c 104857600 /dev/zero | tr '\\0' x; echo; echo 'SAY after'";
    let result =
        supervise(&SystemSpawner, &sh(script), Box::new(LineProtocol), ch, ApprovalPolicy::Ask, QUICK).await.unwrap();
    assert_eq!(result.outcome, RunOutcome::Succeeded);
    let events = drain(&mut h.events);
    assert_eq!(
        events,
        [
            RunEvent::Message { text: "before".into() },
            RunEvent::Warning { message: "A line of 104857600 bytes was longer than 8 MiB and was skipped.".into() },
            RunEvent::Message { text: "after".into() },
        ]
    );
}

#[tokio::test]
async fn a_stream_of_invalid_utf8_is_read_to_its_end_with_one_warning() {
    let (ch, mut h) = channels();
    // 20 000 lines, each with bytes that are not UTF-8, then a last plain line.
    let script = "yes \"$(printf 'SAY caf\\351 \\377')\" | head -n 20000; echo 'SAY end'";
    let result =
        supervise(&SystemSpawner, &sh(script), Box::new(LineProtocol), ch, ApprovalPolicy::Ask, QUICK).await.unwrap();
    assert_eq!(result.outcome, RunOutcome::Succeeded);
    let events = drain(&mut h.events);
    let warnings: Vec<_> = events.iter().filter(|e| matches!(e, RunEvent::Warning { .. })).collect();
    assert_eq!(warnings.len(), 1, "one warning for the whole run: {warnings:?}");
    assert!(matches!(warnings[0], RunEvent::Warning { message } if message.contains("not UTF-8")));
    let replaced = RunEvent::Message { text: "caf\u{fffd} \u{fffd}".into() };
    assert_eq!(events.iter().filter(|e| **e == replaced).count(), 20_000);
    assert_eq!(events.last(), Some(&RunEvent::Message { text: "end".into() }));
}

/// A cancel while the runtime prints nothing must end the run through the ladder, whether its
/// stdout is still open or already closed (the CLI closed it and hangs).
#[tokio::test]
async fn a_cancel_during_a_stalled_stdout_ends_the_run_within_the_ladder() {
    let stubborn = "trap '' INT TERM; while :; do sleep 1; done";
    for script in [
        format!("echo 'SAY stalled'; {stubborn}"),
        format!("echo 'SAY closing'; exec >&-; {stubborn}"),
        format!("printf 'SAY half a line'; {stubborn}"),
    ] {
        let spawner = RecordingSpawner::default();
        let (ch, mut h) = channels();
        let s = spawner.clone();
        let timeouts = Timeouts { silence: Duration::from_secs(600), grace: Duration::from_millis(200) };
        let run = tokio::spawn(async move {
            supervise(&s, &sh(&script), Box::new(LineProtocol), ch, ApprovalPolicy::Ask, timeouts).await
        });
        // Wait until the script is past its first output, then cancel.
        while spawner.0.lock().unwrap().is_none() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        h.cancel.send(true).unwrap();
        // The ladder is interrupt, grace, SIGTERM, grace, SIGKILL: far under this bound.
        let result = tokio::time::timeout(Duration::from_secs(20), run).await.expect("the cancel ends the run");
        assert_eq!(result.unwrap().unwrap().outcome, RunOutcome::Cancelled);
        assert!(!spawner.group_alive(), "no process of the run survives");
        drop(drain(&mut h.events));
    }
}

#[tokio::test]
async fn a_run_that_closed_stdout_and_hangs_times_out() {
    let spawner = RecordingSpawner::default();
    let (ch, mut h) = channels();
    let timeouts = Timeouts { silence: Duration::from_millis(400), grace: Duration::from_millis(200) };
    let result = supervise(
        &spawner,
        &sh("echo 'SAY bye'; exec >&-; sleep 60"),
        Box::new(LineProtocol),
        ch,
        ApprovalPolicy::Ask,
        timeouts,
    )
    .await
    .unwrap();
    assert_eq!(result.outcome, RunOutcome::TimedOut);
    assert!(!spawner.group_alive());
    assert!(drain(&mut h.events).contains(&RunEvent::Message { text: "bye".into() }));
}

/// A tool the runtime started in a session of its own (as Hermes starts its terminal tool) is
/// out of reach of the group kill that ends a run; it carries the run's tree id, so it ends
/// when the run's process control is dropped.
#[cfg(target_os = "linux")]
#[test]
fn a_tool_outside_the_runs_process_group_ends_with_the_run() {
    use std::sync::Arc;

    use clawboo_engine::runtimes::orphans::{ProcessRegistry, RecordedSpawner};
    use clawboo_engine::runtimes::process::Spawner;

    let sleeping = |marker: u32| -> usize {
        let wanted = format!("sleep\0{marker}\0");
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter(|e| {
                let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
                let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
                let zombie = stat.rfind(')').is_some_and(|i| stat[i + 1..].split_whitespace().next() == Some("Z"));
                cmdline == wanted.as_bytes() && !zombie
            })
            .count()
    };
    let dir = clawboo_testkit::TempDataDir::new();
    let spawner = RecordedSpawner::new(Arc::new(ProcessRegistry::new(dir.path())));
    let marker = 47_000 + std::process::id() % 1_000;
    let spec = CommandSpec {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), format!("setsid sleep {marker} & sleep 300")],
        inherit_env: vec!["PATH".into()],
        cwd: std::env::temp_dir(),
        ..Default::default()
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _inside = runtime.enter();
    let mut child = spawner.spawn(&spec).unwrap();
    while sleeping(marker) == 0 {
        std::thread::sleep(Duration::from_millis(10));
    }
    child.control.kill().unwrap();
    runtime.block_on(child.control.wait()).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    assert!(!child.control.group_alive(), "the group is gone");
    assert_eq!(sleeping(marker), 1, "a group kill does not reach a process in another session");

    drop(child);
    // SIGKILL is sent by the time drop returns; the process ends when the kernel next runs it,
    // which on a loaded machine can be a moment later.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while sleeping(marker) != 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(sleeping(marker), 0, "the tool outside the group outlived its run");
}

/// Decided by its `RESULT` line, after which it closes its input (as the ACP protocols do).
struct ResultProtocol {
    decided: bool,
}

impl StreamProtocol for ResultProtocol {
    fn on_line(&mut self, line: &str, out: &mut Vec<Step>) {
        if line == "RESULT" {
            self.decided = true;
            out.push(Step::EndInput);
        }
    }

    fn has_result(&self) -> bool {
        self.decided
    }

    fn finish(&mut self, _exit: ExitInfo, _stderr_tail: &str) -> RunResult {
        if self.decided {
            RunResult::succeeded()
        } else {
            RunResult::failed("no result")
        }
    }
}

#[tokio::test]
async fn a_decided_turn_ends_without_waiting_out_the_clis_teardown() {
    let spawner = RecordingSpawner::default();
    let (ch, _h) = channels();
    // Answers, then "tears down" for 30 s and ignores SIGTERM, as a slow interpreter exit would.
    let script = "trap '' TERM; echo RESULT; cat >/dev/null; sleep 30";
    let started = std::time::Instant::now();
    let result =
        supervise(&spawner, &sh(script), Box::new(ResultProtocol { decided: false }), ch, ApprovalPolicy::Ask, QUICK)
            .await
            .unwrap();
    assert_eq!(result.outcome, RunOutcome::Succeeded);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(3), "the run waited {took:?} for the exit");
    assert!(!spawner.group_alive(), "the teardown goes with the run");
}
