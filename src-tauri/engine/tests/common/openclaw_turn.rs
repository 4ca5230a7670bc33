//! What the two OpenClaw adapter binaries (`openclaw_cli`, `openclaw_cli_policies`) share: an
//! agent folder with its persona files, the adapter pointed at the fake model server, one turn
//! started and finished, and the process checks. Two binaries, so the parallel test runner
//! (scripts/rust-tests.mjs) can run their Gateways beside each other.
// Each binary uses part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawboo_engine::agents::{Agent, RuntimeKind};
use clawboo_engine::runtimes::home::RuntimeHomes;
use clawboo_engine::runtimes::openclaw::OpenclawRuntime;
use clawboo_engine::runtimes::process::{group_has_live_member, CommandSpec, SpawnedChild, Spawner, SystemSpawner};
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{
    ApprovalPolicy, Endpoint, PendingPermission, RunChannels, RunEvent, RunResult, Runtime, TurnInput,
};
use clawboo_engine::secrets::Provider;
use clawboo_testkit::FakeModelServer;
use tokio::sync::{mpsc, watch};

use crate::common::{self, Fixed};

pub const LIMIT: Duration = Duration::from_secs(240);
pub const SOUL: &str = "# Scout\n\nYou are Scout, a careful researcher. SOUL-MARKER-0c1a4f\n";
pub const AGENTS: &str = "# How to work\n\nKeep notes short. AGENTS-MARKER-77d2e1\n";
pub const TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(180), grace: Duration::from_secs(3) };

/// One OpenClaw Gateway at a time: each is CPU-heavy at start-up.
pub static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Remembers what it spawned: the first argument (`gateway`, `acp`) and the process group.
#[derive(Default, Clone)]
pub struct RecordingSpawner(pub Arc<Mutex<Vec<(String, u32)>>>);

impl Spawner for RecordingSpawner {
    fn spawn(&self, spec: &CommandSpec) -> std::io::Result<SpawnedChild> {
        let child = SystemSpawner.spawn(spec)?;
        let first = spec.args.first().cloned().unwrap_or_default();
        self.0.lock().unwrap().push((first, child.control.pid().expect("a pid")));
        Ok(child)
    }
}

impl RecordingSpawner {
    pub fn pids(&self, what: &str) -> Vec<u32> {
        self.0.lock().unwrap().iter().filter(|(w, _)| w == what).map(|(_, pid)| *pid).collect()
    }
}

/// Every process's parent and process group, read from /proc.
fn parents_and_groups() -> std::collections::HashMap<u32, (u32, u32)> {
    let mut table = std::collections::HashMap::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
        let Ok(pid) = stat[..open].trim().parse::<u32>() else { continue };
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        table.insert(pid, (fields[1].parse().unwrap(), fields[2].parse().unwrap()));
    }
    table
}

/// The process groups of `pid`'s children that left its group (the Gateway's spawn broker).
pub fn detached_child_groups(pid: u32) -> Vec<u32> {
    parents_and_groups()
        .into_values()
        .filter(|&(ppid, pgrp)| ppid == pid && pgrp != pid)
        .map(|(_, pgrp)| pgrp)
        .collect()
}

/// The process groups, other than `pid`'s own, that any of its descendants runs in.
pub fn descendant_groups_elsewhere(pid: u32) -> Vec<u32> {
    let table = parents_and_groups();
    let Some(&(_, own)) = table.get(&pid) else { return Vec::new() };
    let descends = |mut p: u32| {
        while let Some(&(parent, _)) = table.get(&p) {
            if parent == pid {
                return true;
            }
            p = parent;
        }
        false
    };
    let mut groups: Vec<u32> =
        table.iter().filter(|(p, (_, g))| *g != own && descends(**p)).map(|(_, (_, g))| *g).collect();
    groups.sort_unstable();
    groups.dedup();
    groups
}

pub fn kill_group(group: u32) {
    let status = std::process::Command::new("kill").args(["-KILL", "--", &format!("-{group}")]).status().unwrap();
    assert!(status.success());
}

/// The proportional set size of every process in `group` (KiB), from /proc.
pub fn group_pss_kib(group: u32) -> u64 {
    parents_and_groups()
        .into_iter()
        .filter(|(_, (_, pgrp))| *pgrp == group)
        .filter_map(|(pid, _)| std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok())
        .filter_map(|rollup| {
            let line = rollup.lines().find(|l| l.starts_with("Pss:"))?.to_owned();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .sum()
}

pub async fn gone_soon(group: u32) -> bool {
    for _ in 0..50 {
        if !group_has_live_member(group) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// An agent folder (also its workspace, as in the app) with its persona files.
pub struct Setup {
    _dir: tempfile::TempDir,
    pub program: PathBuf,
    pub node_dir: PathBuf,
    pub workspace: PathBuf,
}

pub fn setup() -> Option<Setup> {
    let program = common::cli("openclaw")?;
    let node_dir = common::cli("node24")?.parent().unwrap().to_owned();
    let dir = common::scratch_dir();
    let workspace = dir.path().join("agent");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("SOUL.md"), SOUL).unwrap();
    std::fs::write(workspace.join("AGENTS.md"), AGENTS).unwrap();
    Some(Setup { program, node_dir, workspace, _dir: dir })
}

pub fn path_with(dir: &Path) -> String {
    let rest = std::env::var("PATH").unwrap_or_default();
    format!("{}:{rest}", dir.display())
}

pub fn runtime(server: &FakeModelServer, spawner: Arc<dyn Spawner>, node_dir: &Path) -> Arc<OpenclawRuntime> {
    runtime_stopping_idle_after(server, spawner, node_dir, clawboo_engine::runtimes::openclaw::GATEWAY_IDLE_STOP)
}

/// [`runtime`], its Gateways stopped once unused for `idle`.
pub fn runtime_stopping_idle_after(
    server: &FakeModelServer,
    spawner: Arc<dyn Spawner>,
    node_dir: &Path,
    idle: Duration,
) -> Arc<OpenclawRuntime> {
    let base = server.base_url();
    let endpoint = Endpoint { base_url: format!("{base}/v1"), api_key: Some("sk-fake-test".into()) };
    let mut env = vec![("PATH".to_owned(), path_with(node_dir))];
    for name in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
        env.push((name.to_owned(), base.clone()));
    }
    env.push(("NO_PROXY".into(), "127.0.0.1,localhost".into()));
    env.push(("no_proxy".into(), "127.0.0.1,localhost".into()));
    let runtime = OpenclawRuntime::new(spawner, Arc::new(Fixed(endpoint))).with_env(env).with_timeouts(TIMEOUTS);
    Arc::new(runtime.with_gateway_idle_stop(idle))
}

pub fn input(s: &Setup, message: &str, approval: ApprovalPolicy, resume: Option<String>) -> TurnInput {
    let agent = Agent {
        model: "some-model".into(),
        provider: Some(Provider::Custom),
        ..common::agent_record(RuntimeKind::Openclaw, approval)
    };
    TurnInput {
        run_id: format!("run-{}", message.len()),
        resume_session: resume,
        program: Some(s.program.clone()),
        ..common::turn_input(agent, &s.workspace, &s.workspace, message)
    }
}

pub struct Started {
    pub events: mpsc::UnboundedReceiver<RunEvent>,
    pub permissions: mpsc::UnboundedReceiver<PendingPermission>,
    pub cancel: watch::Sender<bool>,
    task: tokio::task::JoinHandle<clawboo_engine::Result<RunResult>>,
}

pub fn start(runtime: &Arc<OpenclawRuntime>, input: TurnInput) -> Started {
    let (events_tx, events) = mpsc::unbounded_channel();
    let (permissions_tx, permissions) = mpsc::unbounded_channel();
    let (cancel, cancel_rx) = watch::channel(false);
    let channels = RunChannels { events: events_tx, permissions: permissions_tx, cancel: cancel_rx };
    let runtime = Arc::clone(runtime);
    let task = tokio::spawn(async move { runtime.run(input, channels).await });
    Started { events, permissions, cancel, task }
}

impl Started {
    pub async fn finish(mut self) -> (clawboo_engine::Result<RunResult>, Vec<RunEvent>) {
        let result = tokio::time::timeout(LIMIT, self.task).await.expect("the run ends in time").expect("no panic");
        let mut events = Vec::new();
        while let Ok(event) = self.events.try_recv() {
            events.push(event);
        }
        (result, events)
    }
}

pub fn session_of(events: &[RunEvent]) -> String {
    events
        .iter()
        .rev()
        .find_map(|e| match e {
            RunEvent::SessionStarted { session_id } => Some(session_id.clone()),
            _ => None,
        })
        .expect("a session id")
}

pub fn openclaw_home(s: &Setup) -> PathBuf {
    RuntimeHomes::for_agent_dir(&s.workspace).home(RuntimeKind::Openclaw).unwrap()
}

pub fn streamed(events: &[RunEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}
