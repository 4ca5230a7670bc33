//! The long-lived `openclaw gateway run` behind every turn: one per agent OpenClaw home, on a
//! free loopback port with a random token, started on first use, reused across turns,
//! restarted when it died or its configuration changed, stopped once no turn has used it for
//! [`IDLE_STOP`] (a Gateway holds ~800 MB at rest; it starts again on the next turn), and
//! stopped with the runtime.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncRead;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::error::{Error, Result};
use crate::runtimes::lines::{CappedLines, ReadLine};
#[cfg(target_os = "linux")]
use crate::runtimes::process::processes;
use crate::runtimes::process::{ChildControl, CommandSpec, Spawner};
use crate::runtimes::sandbox::{Blocked, Notify};
use crate::runtimes::RunEvent;
use tokio::sync::mpsc::UnboundedSender;

/// The line the Gateway prints once it accepts clients.
const READY_LINE: &str = "[gateway] ready";
/// Lines of the Gateway's output kept to explain a failed start.
const LOG_LINES: usize = 40;
/// A starting Gateway that keeps printing is waited for up to this many times `ready_within`:
/// on a busy machine its start alone took 37–53 s, and over 60 s at load ~20.
const STARTING_STRETCH: u32 = 3;

/// How long a Gateway no turn uses keeps running. OpenClaw 2026.9.6 holds ~800 MB at rest (its
/// main V8 heap ~210 MB live, seven worker threads with heaps of their own), for each agent; a
/// start again takes ~7 s here, paid by the first turn after a pause this long.
pub const IDLE_STOP: Duration = Duration::from_secs(10 * 60);

/// Where a running Gateway listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    pub port: u16,
    pub token: String,
}

impl Address {
    pub fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }
}

/// What to start: the command (without port and token, which are chosen here) and a
/// fingerprint of everything that must restart the Gateway when it changes.
pub struct Launch {
    pub spec: CommandSpec,
    pub fingerprint: u64,
    /// How long the Gateway may start without a line of output; while it prints, up to
    /// [`STARTING_STRETCH`] times this in all.
    pub ready_within: Duration,
}

struct Running {
    control: Box<dyn ChildControl>,
    address: Address,
    fingerprint: u64,
}

#[derive(Default)]
struct Entry {
    /// Held while a Gateway is checked or started, so concurrent turns wait for one start.
    starting: tokio::sync::Mutex<()>,
    /// Never held across an await: `stop_all` (from Drop) takes it too.
    running: Mutex<Option<Running>>,
    /// The turns on this Gateway now: its tools run in the Gateway, so what its sandbox's
    /// proxy refuses is told to them.
    watchers: Watchers,
    /// When a turn last asked for it or ended on it: the idle stop counts from here.
    last_used: Arc<Mutex<Option<Instant>>>,
}

/// The turns watching one Gateway, by an id of their own.
type Watchers = Arc<Mutex<Vec<(u64, UnboundedSender<RunEvent>)>>>;

/// A turn told what the Gateway's sandbox refuses, for as long as this lives (and the Gateway
/// in use: no idle stop while a turn watches it).
pub struct Watching {
    watchers: Watchers,
    last_used: Arc<Mutex<Option<Instant>>>,
    id: u64,
}

impl Drop for Watching {
    fn drop(&mut self) {
        lock(&self.watchers).retain(|(id, _)| *id != self.id);
        *lock(&self.last_used) = Some(Instant::now());
    }
}

/// The Gateways of one runtime, by OpenClaw home.
pub struct Gateways {
    entries: Mutex<HashMap<PathBuf, Arc<Entry>>>,
    idle_stop: Duration,
}

impl Default for Gateways {
    fn default() -> Self {
        Self::with_idle_stop(IDLE_STOP)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Gateways {
    /// Gateways stopped once unused for `idle_stop`.
    pub fn with_idle_stop(idle_stop: Duration) -> Self {
        Self { entries: Mutex::default(), idle_stop }
    }

    /// The Gateway for `home`, started (or restarted) as needed.
    pub async fn ensure(&self, spawner: &dyn Spawner, home: &Path, launch: Launch) -> Result<Address> {
        let entry = lock(&self.entries).entry(home.to_owned()).or_default().clone();
        let _starting = entry.starting.lock().await;
        // Under `starting`, which the idle stop takes too: a Gateway handed to a turn here is
        // not stopped before the turn watches it.
        *lock(&entry.last_used) = Some(Instant::now());
        let current = {
            let mut running = lock(&entry.running);
            running.as_mut().and_then(|r| {
                let alive = matches!(r.control.try_wait(), Ok(None)) && r.control.group_alive();
                (alive && r.fingerprint == launch.fingerprint).then(|| r.address.clone())
            })
        };
        // The process may live on without listening (or its leader's status may not be known
        // yet right after it was killed): the port decides.
        if let Some(address) = current {
            let at = std::net::SocketAddr::from(([127, 0, 0, 1], address.port));
            let connect = move || std::net::TcpStream::connect_timeout(&at, Duration::from_secs(2)).is_ok();
            if tokio::task::spawn_blocking(connect).await.unwrap_or(false) {
                return Ok(address);
            }
        }
        let old = lock(&entry.running).take();
        if let Some(old) = old {
            stop_off_worker(old).await;
        }
        let address = start(spawner, &entry, launch).await?;
        let pid = lock(&entry.running).as_ref().and_then(|r| r.control.pid());
        tokio::spawn(stop_when_idle(Arc::downgrade(&entry), pid, self.idle_stop));
        Ok(address)
    }

    /// Stops every Gateway (the runtime is going away).
    pub fn stop_all(&self) {
        let entries: Vec<Arc<Entry>> = lock(&self.entries).values().cloned().collect();
        for entry in entries {
            if let Some(running) = lock(&entry.running).take() {
                stop(running);
            }
        }
    }

    /// Stops the Gateway for `home`, if one runs (the agent now uses a Gateway of the user's).
    pub fn stop(&self, home: &Path) {
        let entry = lock(&self.entries).get(home).cloned();
        if let Some(running) = entry.and_then(|entry| lock(&entry.running).take()) {
            // Stopping waits up to half a second: off the async workers when there are some.
            match tokio::runtime::Handle::try_current() {
                Ok(handle) => drop(handle.spawn_blocking(move || stop(running))),
                Err(_) => stop(running),
            }
        }
    }

    /// Tells `events` (a turn's) the hosts the Gateway's sandbox refuses until the guard goes.
    pub fn watch(&self, home: &Path, events: UnboundedSender<RunEvent>) -> Watching {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let entry = lock(&self.entries).entry(home.to_owned()).or_default().clone();
        lock(&entry.watchers).push((id, events));
        Watching { watchers: entry.watchers.clone(), last_used: entry.last_used.clone(), id }
    }

    /// The process id of the Gateway running for `home`, if any.
    pub fn pid(&self, home: &Path) -> Option<u32> {
        let entry = lock(&self.entries).get(home).cloned()?;
        let running = lock(&entry.running);
        running.as_ref().and_then(|r| r.control.pid())
    }
}

/// Stops the Gateway started as `pid` once no turn has used it for `idle`; ends when it is
/// gone or replaced (its replacement has a watch of its own) or the runtime went away.
async fn stop_when_idle(entry: std::sync::Weak<Entry>, pid: Option<u32>, idle: Duration) {
    /// What one look finds.
    enum Found {
        Gone,
        Idle(Running),
        UsedWithin(Duration),
    }
    let mut wait = idle;
    loop {
        tokio::time::sleep(wait).await;
        let Some(entry) = entry.upgrade() else { return };
        let _starting = entry.starting.lock().await;
        let found = {
            let mut running = lock(&entry.running);
            let since = lock(&entry.last_used).map_or(idle, |at| at.elapsed());
            if pid.is_none() || running.as_ref().and_then(|r| r.control.pid()) != pid {
                Found::Gone
            } else if lock(&entry.watchers).is_empty() && since >= idle && !pid.is_some_and(runs_commands) {
                running.take().map_or(Found::Gone, Found::Idle)
            } else {
                Found::UsedWithin(since)
            }
        };
        match found {
            Found::Gone => return,
            Found::Idle(running) => return stop_off_worker(running).await,
            // Used since: look again when it could first be idle that long. In use (a turn on
            // it, a command running): again a whole idle time later, not in a tight loop.
            Found::UsedWithin(since) if since < idle => wait = (idle - since).max(Duration::from_millis(100)),
            Found::UsedWithin(_) => wait = idle,
        }
    }
}

async fn start(spawner: &dyn Spawner, entry: &Entry, launch: Launch) -> Result<Address> {
    let Launch { mut spec, fingerprint, ready_within } = launch;
    let port = free_port()?;
    let token = uuid::Uuid::new_v4().simple().to_string();
    spec.args.extend(["--port".to_owned(), port.to_string()]);
    // Confined, it listens in its own network namespace: the port is published on the host's
    // loopback, where the turns' bridges reach it.
    if let Some(c) = spec.confine.as_mut() {
        c.published_ports.push(port);
        let watchers = entry.watchers.clone();
        c.notify = Notify(Some(Arc::new(move |blocked: Blocked| {
            for (_, events) in lock(&watchers).iter() {
                let _ = events.send(RunEvent::Warning { message: blocked.message() });
            }
        })));
    }
    spec.env.push(("OPENCLAW_GATEWAY_TOKEN".to_owned(), token.clone()));
    spec.piped_stdin = false;
    let child =
        spawner.spawn(&spec).map_err(|e| Error::RuntimeFailed(format!("Could not start the OpenClaw Gateway: {e}")))?;
    let log = Arc::new(Mutex::new(Output::default()));
    let (ready_tx, mut ready) = watch::channel(false);
    drain(child.stdout, log.clone(), Some(ready_tx));
    drain(child.stderr, log.clone(), None);
    let address = Address { port, token };
    *lock(&entry.running) = Some(Running { control: child.control, address: address.clone(), fingerprint });

    let started = Instant::now();
    let (mut printed, mut last_progress) = (0, started);
    loop {
        if *ready.borrow() {
            return Ok(address);
        }
        let exited = {
            let mut running = lock(&entry.running);
            match running.as_mut().map(|r| r.control.try_wait()) {
                Some(Ok(None)) => None,
                Some(Ok(Some(info))) => Some(info.describe()),
                Some(Err(e)) => Some(e.to_string()),
                None => Some("stopped".to_owned()),
            }
        };
        if let Some(how) = exited {
            let failed = lock(&entry.running).take();
            if let Some(r) = failed {
                stop_off_worker(r).await;
            }
            return Err(Error::RuntimeFailed(format!(
                "The OpenClaw Gateway stopped ({how}) before it was ready.{}",
                tail(&log)
            )));
        }
        let now = Instant::now();
        let lines = lock(&log).printed;
        if lines != printed {
            (printed, last_progress) = (lines, now);
        }
        if now >= last_progress + ready_within || now >= started + ready_within * STARTING_STRETCH {
            let failed = lock(&entry.running).take();
            if let Some(r) = failed {
                stop_off_worker(r).await;
            }
            return Err(Error::RuntimeFailed(format!(
                "The OpenClaw Gateway was not ready within {} s.{}",
                now.duration_since(started).as_secs(),
                tail(&log)
            )));
        }
        let _ = tokio::time::timeout(Duration::from_millis(200), ready.changed()).await;
    }
}

/// A port nobody listens on now (the Gateway binds it a moment later).
fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
        .map_err(|e| Error::io("Cannot find a free port for the OpenClaw Gateway".to_owned(), e))?;
    let port = listener.local_addr().map_err(|e| Error::io("Cannot read a port".to_owned(), e))?.port();
    Ok(port)
}

/// What a Gateway printed: its last lines, and how many in all (a start still making progress).
#[derive(Default)]
struct Output {
    last: VecDeque<String>,
    printed: u64,
}

/// Reads a pipe to its end (a full pipe would block the Gateway), keeping the last lines.
fn drain(pipe: Box<dyn AsyncRead + Send + Unpin>, log: Arc<Mutex<Output>>, ready: Option<watch::Sender<bool>>) {
    tokio::spawn(async move {
        // Read to the end whatever it prints (bytes that are not UTF-8, huge lines): a pipe no
        // longer read fills up and blocks the Gateway.
        let mut lines = CappedLines::new(pipe);
        while let Ok(read) = lines.next().await {
            let line = match read {
                ReadLine::Line { text, .. } => text,
                ReadLine::TooLong(bytes) => ReadLine::too_long_message(bytes),
                ReadLine::Eof => break,
            };
            if let Some(ready) = &ready {
                if line.contains(READY_LINE) {
                    let _ = ready.send(true);
                }
            }
            let mut log = lock(&log);
            log.printed += 1;
            log.last.push_back(line);
            if log.last.len() > LOG_LINES {
                log.last.pop_front();
            }
        }
    });
}

fn tail(log: &Mutex<Output>) -> String {
    let log = lock(log);
    let start = log.last.len().saturating_sub(5);
    let lines: Vec<&str> = log.last.iter().skip(start).map(String::as_str).collect();
    if lines.is_empty() {
        String::new()
    } else {
        format!("\n{}", lines.join("\n"))
    }
}

/// [`stop`] waits up to half a second: on a blocking thread, never on an async worker.
async fn stop_off_worker(running: Running) {
    let _ = tokio::task::spawn_blocking(move || stop(running)).await;
}

/// Ends the Gateway's process group and the groups its children made for themselves (its
/// spawn broker starts in a session of its own).
fn stop(mut running: Running) {
    let detached = running.control.pid().map(detached_child_groups).unwrap_or_default();
    let _ = running.control.terminate();
    let by = std::time::Instant::now() + Duration::from_millis(500);
    while running.control.group_alive() && std::time::Instant::now() < by {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = running.control.kill();
    kill_groups(&detached);
}

/// Whether the Gateway started as `pid` runs a command an agent started (a dev server left
/// running in the background): a process in its tree other than the Gateway (`openclaw-gateway`),
/// its own children (workers, spawn broker) and the sandbox around it. Stopping it would end
/// that command, so it is not idle.
#[cfg(target_os = "linux")]
fn runs_commands(pid: u32) -> bool {
    let parents: HashMap<u32, u32> = processes().iter().map(|p| (p.pid, p.ppid)).collect();
    let descends = |mut p: u32| loop {
        if p == pid {
            return true;
        }
        match parents.get(&p) {
            Some(&parent) if parent != p && parent > 1 => p = parent,
            _ => return false,
        }
    };
    let tree: Vec<u32> = parents.keys().copied().filter(|p| descends(*p)).collect();
    let is_gateway =
        |p: &u32| std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|cmd| cmd.starts_with(b"openclaw-gateway"));
    let Some(gateway) = tree.iter().copied().find(is_gateway) else { return false };
    // The Gateway and what is around it (the sandbox's layers, up to `pid`).
    let mut own = vec![gateway];
    let mut p = gateway;
    while p != pid {
        p = parents[&p];
        own.push(p);
    }
    tree.iter().any(|p| !own.contains(p) && parents.get(p) != Some(&gateway))
}

#[cfg(not(target_os = "linux"))]
fn runs_commands(_pid: u32) -> bool {
    false
}

/// The process groups of `pid`'s children that left its group.
#[cfg(target_os = "linux")]
fn detached_child_groups(pid: u32) -> Vec<i32> {
    let mut groups: Vec<i32> =
        processes().iter().filter(|p| p.ppid == pid && p.pgrp != pid && p.pgrp > 1).map(|p| p.pgrp as i32).collect();
    groups.sort_unstable();
    groups.dedup();
    groups
}

#[cfg(not(target_os = "linux"))]
fn detached_child_groups(_pid: u32) -> Vec<i32> {
    Vec::new()
}

#[cfg(unix)]
fn kill_groups(groups: &[i32]) {
    for group in groups {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{group}")])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status();
    }
}

#[cfg(not(unix))]
fn kill_groups(_groups: &[i32]) {}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::runtimes::process::SystemSpawner;

    /// A stand-in Gateway: says it is ready, then waits (the real one is in the engine's
    /// `openclaw_cli` test, with its figures).
    fn launch() -> Launch {
        let spec = CommandSpec {
            program: "sh".into(),
            args: vec!["-c".into(), "echo '[gateway] ready'; exec sleep 600".into()],
            env: Vec::new(),
            inherit_env: vec!["PATH".into()],
            cwd: std::env::temp_dir(),
            piped_stdin: false,
            confine: None,
        };
        Launch { spec, fingerprint: 1, ready_within: Duration::from_secs(10) }
    }

    async fn gone_within(gateways: &Gateways, home: &Path, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        while gateways.pid(home).is_some() && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        gateways.pid(home).is_none()
    }

    #[tokio::test]
    async fn a_gateway_is_stopped_once_idle_never_while_a_turn_is_on_it() {
        let idle = Duration::from_millis(300);
        let gateways = Gateways::with_idle_stop(idle);
        let home = Path::new("/agent-home");
        gateways.ensure(&SystemSpawner, home, launch()).await.unwrap();
        let first = gateways.pid(home).expect("started");

        // A turn on it three times as long as the idle time: kept.
        let (events, _) = tokio::sync::mpsc::unbounded_channel();
        let turn = gateways.watch(home, events);
        tokio::time::sleep(idle * 3).await;
        assert_eq!(gateways.pid(home), Some(first), "kept while a turn is on it");
        // The turn ends: stopped once unused for the idle time, counted from then.
        let ended = Instant::now();
        drop(turn);
        assert!(gone_within(&gateways, home, idle * 5).await, "stopped once idle");
        assert!(ended.elapsed() >= idle, "not before it was idle that long");
        // Forgotten first, then ended on a blocking thread (a terminate, up to half a second's
        // grace, a kill): gone within that.
        let until = Instant::now() + Duration::from_secs(5);
        while crate::runtimes::process::group_has_live_member(first) && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!crate::runtimes::process::group_has_live_member(first), "its process is gone");

        // The next turn starts another.
        gateways.ensure(&SystemSpawner, home, launch()).await.unwrap();
        let second = gateways.pid(home).expect("started again");
        assert_ne!(second, first);
        gateways.stop_all();
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn a_gateway_running_an_agents_command_is_not_idle() {
        let idle = Duration::from_millis(200);
        let gateways = Gateways::with_idle_stop(idle);
        let home = Path::new("/agent-home-with-a-server");
        // Named as OpenClaw names it; its child runs a command (the grandchild `sleep`).
        let mut busy = launch();
        busy.spec.program = "bash".into();
        busy.spec.args = vec![
            "-c".into(),
            "exec -a openclaw-gateway bash -c \"echo '[gateway] ready'; sh -c 'sleep 6007; :' & wait\"".into(),
        ];
        gateways.ensure(&SystemSpawner, home, busy).await.unwrap();
        let gateway = gateways.pid(home).expect("started");
        tokio::time::sleep(idle * 4).await;
        assert_eq!(gateways.pid(home), Some(gateway), "kept while the command runs");
        assert!(runs_commands(gateway));
        // The command ends: the Gateway is idle.
        let command = std::process::Command::new("pkill").args(["-f", "^sleep 6007$"]).status().unwrap();
        assert!(command.success());
        assert!(gone_within(&gateways, home, idle * 10).await, "stopped once idle");
    }
}
