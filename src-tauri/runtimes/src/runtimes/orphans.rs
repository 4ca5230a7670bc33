//! Process groups outlive a crash or a `kill -9` of the app. Every group the engine starts is
//! written down (leader pid and start time) in `processes.json` in the data folder while it
//! runs; at the next start, the groups still alive from that list are stopped.
//!
//! On Linux the leader also gets a parent-death signal, so it dies with the app. `unsafe` is
//! forbidden here, which rules out `prctl` in `pre_exec`; the leader is started through
//! util-linux's `setpriv --pdeathsig KILL`, which sets it and then executes the program (same
//! pid, same group). Where `setpriv` is missing, the sweep alone does the job.
//!
//! A group is not the whole tree: a CLI may start its tools in groups or sessions of their own
//! (Hermes's terminal tool does), which neither the signal nor a group kill reaches. So every
//! process started also carries [`TREE_ENV`] = "<this engine's tree id>-<its own id>" in its
//! environment, which its children inherit. On Linux, that finds the rest of the tree in /proc:
//! when a started process's control is dropped (its run ended, cancelled or not), what still
//! carries its id is killed; a small watchdog started with the first runtime (a shell reading a
//! pipe only this process holds) wakes when the app ends, however it ends, and kills what still
//! carries the engine's id; and the next start's sweep does the same for the ids recorded,
//! should the watchdog itself have been killed.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::process::{BoxFuture, ChildControl, CommandSpec, ExitInfo, SpawnedChild, Spawner, SystemSpawner};

const FILE_NAME: &str = "processes.json";
/// The variable naming the engine a runtime process (and everything it starts) belongs to.
pub const TREE_ENV: &str = "CLAWBOO_PROCESS_TREE";

/// One process group the engine started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupRecord {
    /// The leader's pid, which is also the group id.
    pub pgid: u32,
    /// What identifies this very process across pid reuse: boot id and start time (Linux),
    /// `ps`'s start time elsewhere.
    pub started: String,
    /// The program, for the log.
    pub program: String,
    /// The engine's tree id the group's processes carry in [`TREE_ENV`] (none in older files).
    #[serde(default)]
    pub tree: Option<String>,
}

/// The durable list of live groups, shared by every spawner of one engine.
#[derive(Debug)]
pub struct ProcessRegistry {
    path: PathBuf,
    groups: Mutex<Vec<GroupRecord>>,
    /// This engine's tree id: unique, so a sweep by it never touches another app's processes.
    tree: String,
    /// The watchdog, started with the first process (Linux).
    watchdog: Mutex<Option<Watchdog>>,
}

impl ProcessRegistry {
    /// The registry of `data_dir`. Call [`ProcessRegistry::sweep`] before starting anything.
    pub fn new(data_dir: &Path) -> Self {
        let tree = format!("clawboo-{}", uuid::Uuid::new_v4().simple());
        Self { path: data_dir.join(FILE_NAME), groups: Mutex::new(Vec::new()), tree, watchdog: Mutex::new(None) }
    }

    /// The id this engine's runtime processes carry in [`TREE_ENV`].
    pub fn tree(&self) -> &str {
        &self.tree
    }

    /// Stops the groups a previous engine on this folder left running (it crashed or was
    /// killed), then forgets them. Only groups whose leader is the very process recorded are
    /// touched: a pid reused since by something else is left alone. Returns the groups stopped.
    pub fn sweep(&self) -> Vec<GroupRecord> {
        let recorded: Vec<GroupRecord> =
            std::fs::read(&self.path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).unwrap_or_default();
        let alive: Vec<GroupRecord> = recorded.iter().filter(|g| still_ours(g)).cloned().collect();
        for group in &alive {
            signal_group(group.pgid, Signal::Terminate);
        }
        let by = std::time::Instant::now() + Duration::from_secs(1);
        while alive.iter().any(|g| super::process::group_has_live_member(g.pgid)) && std::time::Instant::now() < by {
            std::thread::sleep(Duration::from_millis(20));
        }
        for group in &alive {
            signal_group(group.pgid, Signal::Kill);
        }
        let by = std::time::Instant::now() + Duration::from_secs(2);
        while alive.iter().any(|g| super::process::group_has_live_member(g.pgid)) && std::time::Instant::now() < by {
            std::thread::sleep(Duration::from_millis(10));
        }
        // What left the groups: the same tree id, wherever it is now.
        let trees: std::collections::BTreeSet<&str> = recorded_trees(&recorded);
        for tree in trees {
            kill_carriers(|value| value.strip_prefix(tree).is_some_and(|rest| rest.starts_with('-')));
        }
        let mut groups = self.lock();
        groups.clear();
        self.save(&groups);
        alive
    }

    /// Starts the watchdog once (Linux; elsewhere, and should it fail, the next start's sweep
    /// remains).
    fn watch(&self) {
        let mut watchdog = self.watchdog.lock().unwrap_or_else(|p| p.into_inner());
        if watchdog.is_none() {
            *watchdog = Watchdog::start(&self.tree);
        }
    }

    /// The groups recorded now.
    pub fn groups(&self) -> Vec<GroupRecord> {
        self.lock().clone()
    }

    fn add(&self, record: GroupRecord) {
        let mut groups = self.lock();
        groups.push(record);
        self.save(&groups);
    }

    fn remove(&self, pgid: u32) {
        let mut groups = self.lock();
        let before = groups.len();
        groups.retain(|g| g.pgid != pgid);
        if groups.len() != before {
            self.save(&groups);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<GroupRecord>> {
        self.groups.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Written whole to a temporary file, then renamed over: a crash leaves the old list or
    /// the new one, never half of one. A failure costs only the sweep of these groups.
    fn save(&self, groups: &[GroupRecord]) {
        let tmp = self.path.with_extension("json.tmp");
        let written = serde_json::to_vec(groups)
            .map_err(io::Error::other)
            .and_then(|bytes| std::fs::write(&tmp, bytes))
            .and_then(|()| std::fs::rename(&tmp, &self.path));
        if let Err(e) = written {
            tracing::warn!(path = %self.path.display(), error = %e, "could not record running processes");
        }
    }
}

/// The engine's spawner: real processes (see [`SystemSpawner`]), each recorded in the registry
/// until its control is dropped (by then the group has been stopped), and on Linux tied to the
/// app by a parent-death signal.
pub struct RecordedSpawner {
    registry: Arc<ProcessRegistry>,
}

type SpawnJob = (CommandSpec, tokio::runtime::Handle, std::sync::mpsc::Sender<io::Result<SpawnedChild>>);

/// `setpriv` (when it can set a parent-death signal) and the thread that spawns through it.
/// The signal fires when the *thread* that spawned the process ends, not the app: spawns are
/// made on one thread that lives as long as the process.
struct Launcher {
    setpriv: PathBuf,
    jobs: std::sync::mpsc::Sender<SpawnJob>,
}

fn launcher() -> Option<&'static Launcher> {
    static LAUNCHER: std::sync::OnceLock<Option<Launcher>> = std::sync::OnceLock::new();
    LAUNCHER
        .get_or_init(|| {
            let setpriv = pdeathsig_launcher()?;
            let (jobs, queue) = std::sync::mpsc::channel::<SpawnJob>();
            std::thread::Builder::new()
                .name("clawboo-spawner".into())
                .spawn(move || {
                    while let Ok((spec, handle, reply)) = queue.recv() {
                        let _runtime = handle.enter();
                        let _ = reply.send(SystemSpawner.spawn(&spec));
                    }
                })
                .ok()?;
            Some(Launcher { setpriv, jobs })
        })
        .as_ref()
}

impl RecordedSpawner {
    pub fn new(registry: Arc<ProcessRegistry>) -> Self {
        Self { registry }
    }

    /// Whether spawned leaders get a parent-death signal.
    pub fn sets_parent_death_signal(&self) -> bool {
        launcher().is_some()
    }

    /// Spawns on the launcher's thread (within the caller's runtime), or here.
    fn spawn_on_launcher(launcher: &Launcher, spec: &CommandSpec) -> io::Result<SpawnedChild> {
        let Ok(handle) = tokio::runtime::Handle::try_current() else { return SystemSpawner.spawn(spec) };
        let (reply, answer) = std::sync::mpsc::channel();
        let sent = launcher.jobs.send((spec.clone(), handle, reply));
        match sent {
            Ok(()) => answer.recv().map_err(|_| io::Error::other("the spawn thread is gone"))?,
            Err(_) => SystemSpawner.spawn(spec),
        }
    }
}

impl Spawner for RecordedSpawner {
    fn spawn(&self, spec: &CommandSpec) -> io::Result<SpawnedChild> {
        self.registry.watch();
        let mut spec = spec.clone();
        let id = format!("{}-{}", self.registry.tree, uuid::Uuid::new_v4().simple());
        spec.env.push((TREE_ENV.to_owned(), id.clone()));
        // The sandbox first, so the parent-death signal below lands on bubblewrap itself.
        super::sandbox::confine_spawn(&spec, |spec| self.spawn_unconfined(spec))
    }
}

impl RecordedSpawner {
    fn spawn_unconfined(&self, spec: &CommandSpec) -> io::Result<SpawnedChild> {
        let id = spec.env.iter().rev().find(|(k, _)| k == TREE_ENV).map(|(_, v)| v.clone()).unwrap_or_default();
        // Only a program that exists is wrapped, so a missing one still fails here, clearly.
        let mut child = match launcher() {
            Some(launcher) if spec.program.is_absolute() && spec.program.is_file() => {
                let mut args = vec!["--pdeathsig".to_owned(), "KILL".to_owned(), "--".to_owned()];
                args.push(spec.program.to_string_lossy().into_owned());
                args.extend(spec.args.iter().cloned());
                let wrapped = CommandSpec { program: launcher.setpriv.clone(), args, ..spec.clone() };
                Self::spawn_on_launcher(launcher, &wrapped)?
            }
            _ => SystemSpawner.spawn(spec)?,
        };
        let Some(pgid) = child.control.pid() else { return Ok(child) };
        let Some(started) = start_identity(pgid) else { return Ok(child) };
        let program = spec.program.to_string_lossy().into_owned();
        self.registry.add(GroupRecord { pgid, started, program, tree: Some(self.registry.tree.clone()) });
        child.control = Box::new(RecordedControl { inner: child.control, pgid, id, registry: self.registry.clone() });
        Ok(child)
    }
}

struct RecordedControl {
    inner: Box<dyn ChildControl>,
    pgid: u32,
    /// The value of [`TREE_ENV`] this process and its descendants carry.
    id: String,
    registry: Arc<ProcessRegistry>,
}

impl Drop for RecordedControl {
    /// By now the group has been stopped; what the runtime started outside it goes too.
    fn drop(&mut self) {
        kill_carriers(|value| value == self.id);
        self.registry.remove(self.pgid);
    }
}

impl ChildControl for RecordedControl {
    fn pid(&self) -> Option<u32> {
        self.inner.pid()
    }
    fn interrupt(&mut self) -> io::Result<()> {
        self.inner.interrupt()
    }
    fn terminate(&mut self) -> io::Result<()> {
        self.inner.terminate()
    }
    fn kill(&mut self) -> io::Result<()> {
        self.inner.kill()
    }
    fn wait(&mut self) -> BoxFuture<'_, io::Result<ExitInfo>> {
        self.inner.wait()
    }
    fn try_wait(&mut self) -> io::Result<Option<ExitInfo>> {
        self.inner.try_wait()
    }
    fn group_alive(&self) -> bool {
        self.inner.group_alive()
    }
}

/// Whether a recorded group may still be running and is the one recorded: its leader is the
/// same process, or the leader is gone but members of its group live on (a group id cannot be
/// taken again while any process still uses it).
fn still_ours(group: &GroupRecord) -> bool {
    if !super::process::group_has_live_member(group.pgid) {
        return false;
    }
    match start_identity(group.pgid) {
        Some(started) => started == group.started,
        None => same_boot(&group.started),
    }
}

#[cfg(target_os = "linux")]
fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id").map(|s| s.trim().to_owned()).unwrap_or_default()
}

/// "<boot id>:<start time in clock ticks since boot>" (field 22 of /proc/<pid>/stat).
#[cfg(target_os = "linux")]
fn start_identity(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) state …": field 22 is the 20th after the comm.
    let start = stat[stat.rfind(')')? + 1..].split_whitespace().nth(19)?;
    Some(format!("{}:{start}", boot_id()))
}

#[cfg(target_os = "linux")]
fn same_boot(started: &str) -> bool {
    started.split(':').next() == Some(boot_id().as_str())
}

#[cfg(all(unix, not(target_os = "linux")))]
fn start_identity(pid: u32) -> Option<String> {
    let out = std::process::Command::new("ps").args(["-o", "lstart=", "-p", &pid.to_string()]).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// Without boot ids, a leaderless group cannot be told apart from a later one: left alone.
#[cfg(all(unix, not(target_os = "linux")))]
fn same_boot(_started: &str) -> bool {
    false
}

/// Windows: the job object ends the tree with the app's handle; nothing to record.
#[cfg(not(unix))]
fn start_identity(_pid: u32) -> Option<String> {
    None
}

#[cfg(not(unix))]
fn same_boot(_started: &str) -> bool {
    false
}

fn recorded_trees(recorded: &[GroupRecord]) -> std::collections::BTreeSet<&str> {
    recorded.iter().filter_map(|g| g.tree.as_deref()).filter(|t| valid_tree(t)).collect()
}

/// Only ids this module makes reach a shell command: "clawboo-" and 32 hex digits.
fn valid_tree(tree: &str) -> bool {
    tree.strip_prefix("clawboo-").is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The shell that finds and kills, by /proc, every process whose environment holds
/// `TREE_ENV=$1-…` (it runs with a clean environment, so it never matches itself).
#[cfg(target_os = "linux")]
const KILL_TREE: &str = r#"for proc in /proc/[0-9]*; do
  grep -qz "^$0=$1-" "$proc/environ" 2>/dev/null && kill -KILL "${proc#/proc/}" 2>/dev/null
done
exit 0"#;

/// Kills (SIGKILL) every process whose [`TREE_ENV`] value passes `matches` (Linux: read from
/// /proc; elsewhere there is nothing to read).
#[cfg(target_os = "linux")]
pub fn kill_carriers(matches: impl Fn(&str) -> bool) {
    let pids = carriers(matches);
    if pids.is_empty() {
        return;
    }
    let _ = std::process::Command::new("kill")
        .arg("-KILL")
        .args(pids.iter().map(u32::to_string))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

#[cfg(not(target_os = "linux"))]
pub fn kill_carriers(_matches: impl Fn(&str) -> bool) {}

/// The processes whose [`TREE_ENV`] value passes `matches` (zombies left out).
#[cfg(target_os = "linux")]
pub fn carriers(matches: impl Fn(&str) -> bool) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let wanted = format!("{TREE_ENV}=");
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else { return false };
            environ.split(|b| *b == 0).any(|var| {
                std::str::from_utf8(var).ok().and_then(|v| v.strip_prefix(wanted.as_str())).is_some_and(&matches)
            }) && !super::process::is_zombie(*pid)
        })
        .collect()
}

#[cfg(not(target_os = "linux"))]
pub fn carriers(_matches: impl Fn(&str) -> bool) -> Vec<u32> {
    Vec::new()
}

/// A shell that waits for its stdin to close, then kills the tree. Only this process holds the
/// pipe's other end (Rust opens it close-on-exec, so no runtime inherits it): the kernel closes
/// it when the app ends, a `kill -9` included. When the engine is dropped the pipe closes too,
/// and the shell kills whatever of this engine's tree is left.
#[derive(Debug)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
struct Watchdog {
    stdin: Option<std::process::ChildStdin>,
    child: std::process::Child,
}

impl Watchdog {
    #[cfg(target_os = "linux")]
    fn start(tree: &str) -> Option<Watchdog> {
        if !valid_tree(tree) {
            return None;
        }
        let script = format!("while read -r _; do :; done\n{KILL_TREE}");
        let mut command = std::process::Command::new("/bin/sh");
        // A group of its own: a signal to the app's group (Ctrl-C in a terminal) spares it.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .args(["-c", &script, TREE_ENV, tree])
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| tracing::warn!(error = %e, "no process watchdog; leftovers are swept at the next start"))
            .ok()?;
        Some(Watchdog { stdin: child.stdin.take(), child })
    }

    #[cfg(not(target_os = "linux"))]
    fn start(_tree: &str) -> Option<Watchdog> {
        None
    }
}

impl Drop for Watchdog {
    /// Closes the pipe and waits for the sweep (what is left of a stopped engine is little).
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

enum Signal {
    Terminate,
    Kill,
}

#[cfg(unix)]
fn signal_group(pgid: u32, signal: Signal) {
    let signal = match signal {
        Signal::Terminate => "-TERM",
        Signal::Kill => "-KILL",
    };
    let _ = std::process::Command::new("kill")
        .args([signal, "--", &format!("-{pgid}")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

#[cfg(not(unix))]
fn signal_group(_pgid: u32, _signal: Signal) {}

/// `setpriv` from util-linux, if it knows `--pdeathsig` (since 2.33).
#[cfg(target_os = "linux")]
fn pdeathsig_launcher() -> Option<PathBuf> {
    ["/usr/bin/setpriv", "/bin/setpriv"].iter().map(PathBuf::from).find(|path| {
        path.is_file()
            && std::process::Command::new(path)
                .arg("--help")
                .stdin(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .output()
                .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("--pdeathsig"))
    })
}

#[cfg(not(target_os = "linux"))]
fn pdeathsig_launcher() -> Option<PathBuf> {
    None
}
