//! What a crash or a `kill -9` of the app leaves behind, and what a second app instance must
//! not touch. A real process opens the engine (this test binary, run again as a helper), starts
//! a run and a process group through the engine, and is killed; the test then reopens the same
//! data folder.
//! Opens the engine on folders it is handed (by the parent test, or made beforehand) rather than
//! through `common::Fixture`: opening a folder is what is under test.
#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::runtimes::orphans::{ProcessRegistry, RecordedSpawner};
use clawboo_engine::runtimes::process::{group_has_live_member, CommandSpec};
use clawboo_engine::runtimes::{
    ApprovalPolicy, Capabilities, HistoryMode, PersonaDelivery, RunChannels, RunOutcome, RunResult, Runtime, TurnInput,
};
use clawboo_engine::{Engine, EngineConfig, ErrorCode};
use clawboo_testkit::TempDataDir;

const HELPER_DIR: &str = "CLAWBOO_CRASH_HELPER_DIR";
const HELPER_MARKER: &str = "CLAWBOO_CRASH_HELPER_MARKER";

/// A runtime whose every turn waits for cancel.
struct Waiting;

impl Runtime for Waiting {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            streams_text: true,
            context_window: None,
            history: HistoryMode::ClawbooTranscript,
            persona: PersonaDelivery::OwnSetup,
            setup_change: clawboo_engine::runtimes::SetupChange::AppliedOnResume,
            team_history: clawboo_engine::runtimes::TeamHistory {
                leader: clawboo_engine::runtimes::TurnHistory::ContinueRoom,
                teammate: clawboo_engine::runtimes::TurnHistory::Fresh,
            },
        }
    }

    fn run(
        &self,
        _input: TurnInput,
        channels: RunChannels,
    ) -> Pin<Box<dyn std::future::Future<Output = clawboo_engine::Result<RunResult>> + Send + '_>> {
        Box::pin(async move {
            let mut cancel = channels.cancel.clone();
            let _ = cancel.wait_for(|c| *c).await;
            Ok(RunResult::with_outcome(RunOutcome::Cancelled, "Stopped by the user."))
        })
    }
}

fn open(dir: &std::path::Path) -> clawboo_engine::Result<Engine> {
    Engine::open_with(EngineConfig::for_dir(dir.to_owned()), vec![Arc::new(Waiting)])
}

fn agent() -> NewAgent {
    NewAgent {
        name: "Waiter".into(),
        handle: "waiter".into(),
        description: String::new(),
        tint: "#224466".into(),
        runtime: RuntimeKind::Native,
        model: "m".into(),
        approval_policy: ApprovalPolicy::Ask,
        provider: None,
    }
}

/// The helper process: opens the engine on `HELPER_DIR`, starts a run and a process group
/// (`sh` with a background `sleep`, as a CLI with a tool), says so on stdout, and waits to be
/// killed. Only run by [`start_helper`].
#[test]
#[ignore = "helper process for the crash tests; run by them"]
fn helper_opens_the_engine_and_waits_to_be_killed() {
    let dir = std::env::var_os(HELPER_DIR).expect("run by the crash tests");
    let engine = open(std::path::Path::new(&dir)).unwrap();
    let agent = engine.agents().create(agent()).unwrap();
    let run = engine.chat().send(&agent.id, "wait").unwrap().run.unwrap();
    // A tool in the group, and one in a session of its own (as Hermes starts its terminal
    // tool), which neither a group kill nor the parent-death signal reaches.
    let marker: u32 = std::env::var(HELPER_MARKER).unwrap().parse().unwrap();
    let escape = if cfg!(target_os = "linux") { format!("setsid sleep {} & ", marker + 1) } else { String::new() };
    let spec = CommandSpec {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), format!("{escape}sleep {marker} & sleep 300")],
        inherit_env: vec!["PATH".into()],
        cwd: std::env::temp_dir(),
        ..Default::default()
    };
    let child = engine.block_on(async { engine.spawner().spawn(&spec) }).unwrap();
    let pgid = child.control.pid().unwrap();
    // Ready only once the shell has forked its background `sleep`: killed before that, the
    // shell dies with us (parent-death signal) and leaves no background process to sweep.
    while live_members(pgid) < 2 || (cfg!(target_os = "linux") && sleeping(marker + 1).is_empty()) {
        std::thread::sleep(Duration::from_millis(10));
    }
    println!("READY {pgid} {} {}", agent.id, run.id);
    loop {
        std::thread::sleep(Duration::from_secs(60));
    }
}

/// Whether `pid` is a live process (not gone, not a zombie).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rfind(')').map(|i| stat[i + 1..].split_whitespace().next() != Some("Z")))
        .unwrap_or(false)
}

/// How many live (not zombie) processes are in the process group `pgid`.
#[cfg(target_os = "linux")]
fn live_members(pgid: u32) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    entries
        .flatten()
        .filter(|entry| {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { return false };
            let Some(after_comm) = stat.rfind(')').map(|i| &stat[i + 1..]) else { return false };
            let fields: Vec<&str> = after_comm.split_whitespace().collect();
            fields.first() != Some(&"Z") && fields.get(2) == Some(&pgid.to_string().as_str())
        })
        .count()
}

/// Without /proc: whether the group lives, after a pause long enough for the shell's fork.
#[cfg(not(target_os = "linux"))]
fn live_members(pgid: u32) -> usize {
    std::thread::sleep(Duration::from_millis(200));
    if group_has_live_member(pgid) {
        2
    } else {
        0
    }
}

/// The live processes running `sleep <marker>`.
fn sleeping(marker: u32) -> Vec<u32> {
    processes(|cmdline| cmdline == format!("sleep\0{marker}\0"))
}

/// The live processes whose command line passes `wanted` (Linux: /proc).
fn processes(wanted: impl Fn(&str) -> bool) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            running(*pid) && wanted(&String::from_utf8_lossy(&cmdline))
        })
        .collect()
}

fn parent(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..].split_whitespace().nth(1)?.parse().ok()
}

struct Helper {
    child: Child,
    marker: u32,
    pgid: u32,
    agent_id: String,
    run_id: String,
}

/// A failed assertion must not leave the helper running.
impl Drop for Helper {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_helper(dir: &std::path::Path, marker: u32) -> Helper {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "helper_opens_the_engine_and_waits_to_be_killed", "--ignored", "--nocapture"])
        .env(HELPER_DIR, dir)
        .env(HELPER_MARKER, marker.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    for line in stdout.lines() {
        let line = line.unwrap();
        if let Some(ready) = line.strip_prefix("READY ") {
            let parts: Vec<&str> = ready.split(' ').collect();
            return Helper {
                child,
                marker,
                pgid: parts[0].parse().unwrap(),
                agent_id: parts[1].to_owned(),
                run_id: parts[2].to_owned(),
            };
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the helper ended before it was ready");
}

#[test]
fn after_a_kill_9_the_next_start_stops_what_the_first_started_and_marks_its_run() {
    let dir = TempDataDir::new();
    let mut helper = start_helper(dir.path(), 41_000 + std::process::id() % 1_000 * 2);
    assert!(group_has_live_member(helper.pgid));
    // The watchdog would end the tree at once (next test); killed first, it leaves the sweep
    // of the next start to do it, as when it is killed with the app's whole process group.
    let watchdogs: Vec<u32> =
        processes(|cmdline| cmdline.contains("while read -r _") && cmdline.contains("CLAWBOO_PROCESS_TREE"))
            .into_iter()
            .filter(|pid| parent(*pid) == Some(helper.child.id()))
            .collect();
    for pid in &watchdogs {
        Command::new("kill").args(["-KILL", &pid.to_string()]).status().unwrap();
    }

    helper.child.kill().unwrap(); // SIGKILL: no destructor runs
    helper.child.wait().unwrap();
    // The leader may die with its parent (parent-death signal); its background tools do not.
    std::thread::sleep(Duration::from_millis(200));
    assert!(group_has_live_member(helper.pgid), "the background process outlives the app");
    let registry = Arc::new(ProcessRegistry::new(&dir.join("unused")));
    if RecordedSpawner::new(registry).sets_parent_death_signal() {
        assert!(!running(helper.pgid), "the leader died with its parent (parent-death signal)");
    }
    if cfg!(target_os = "linux") {
        assert_eq!(watchdogs.len(), 1, "one watchdog per engine");
        assert_eq!(sleeping(helper.marker + 1).len(), 1, "the tool in a session of its own outlives the app");
    }

    let engine = open(dir.path()).expect("the folder is free once its holder died");
    assert!(!group_has_live_member(helper.pgid), "a process of the killed app survived the next start");
    assert_eq!(sleeping(helper.marker), Vec::<u32>::new(), "the tool in the group survived the next start");
    assert_eq!(sleeping(helper.marker + 1), Vec::<u32>::new(), "the tool outside the group survived the next start");
    let history = engine.chat().history_page(&helper.agent_id, None, 500).unwrap();
    let cut = history.runs.iter().find(|r| r.id == helper.run_id).unwrap();
    assert_eq!(cut.status, RunStatus::Interrupted);
    assert!(cut.error.as_deref().unwrap().contains("cut off"));
    assert_eq!(history.messages[0].content, "wait", "the user's message survived");
    assert!(
        !dir.join("processes.json").exists() || std::fs::read_to_string(dir.join("processes.json")).unwrap() == "[]"
    );
}

/// The whole tree ends with the app, before any restart: the leader by its parent-death
/// signal, the rest (in the group or not) by the watchdog that wakes when the app is gone.
#[cfg(target_os = "linux")]
#[test]
fn after_a_kill_9_the_watchdog_ends_the_whole_tree_at_once() {
    let dir = TempDataDir::new();
    let mut helper = start_helper(dir.path(), 43_000 + std::process::id() % 1_000 * 2);
    assert_eq!(sleeping(helper.marker).len(), 1);
    assert_eq!(sleeping(helper.marker + 1).len(), 1);

    helper.child.kill().unwrap();
    helper.child.wait().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while (group_has_live_member(helper.pgid) || !sleeping(helper.marker + 1).is_empty())
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!group_has_live_member(helper.pgid), "a process of the killed app's group outlived it");
    assert_eq!(sleeping(helper.marker + 1), Vec::<u32>::new(), "the tool outside the group outlived the app");
}

#[test]
fn a_second_engine_on_the_same_folder_is_refused_and_touches_nothing() {
    let dir = TempDataDir::new();
    let mut helper = start_helper(dir.path(), 45_000 + std::process::id() % 1_000 * 2);

    let err = open(dir.path()).err().expect("the folder is in use");
    assert_eq!(err.code(), ErrorCode::DataDirInUse, "{err}");
    assert!(err.to_string().contains(&dir.path().display().to_string()), "{err}");
    assert!(group_has_live_member(helper.pgid), "the first instance's processes are left alone");
    let db = rusqlite::Connection::open_with_flags(dir.join("clawboo.db"), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap();
    let status: String =
        db.query_row("SELECT status FROM runs WHERE id = ?1", [&helper.run_id], |row| row.get(0)).unwrap();
    assert_eq!(status, "running", "the first instance's live run is not marked interrupted");

    helper.child.kill().unwrap();
    helper.child.wait().unwrap();
    drop(open(dir.path()).unwrap()); // sweeps what the helper left
    assert!(!group_has_live_member(helper.pgid));
}

#[test]
fn the_data_folder_and_its_agents_folder_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDataDir::new();
    let data = dir.join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    let engine = open(&data).unwrap();
    for folder in [data.clone(), data.join("agents")] {
        let mode = std::fs::metadata(&folder).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", folder.display());
    }
    drop(engine);
    let fresh = dir.join("fresh/data");
    let _engine = open(&fresh).unwrap();
    assert_eq!(std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777, 0o700);
}
