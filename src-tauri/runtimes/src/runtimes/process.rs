//! Processes start only through a [`Spawner`], so tests can substitute one. The system spawner
//! puts every runtime in its own process group (a job object on Windows), so a cancel or an
//! app exit reaches the tools the CLI started, not just the CLI.

use std::future::Future;
use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;

use tokio::io::{AsyncRead, AsyncWrite};

/// Everything needed to start a runtime process. The environment is built from scratch
/// (`env` only, plus `inherit_env` names copied from ours), so nothing of the user's shell
/// leaks into an agent by accident.
#[derive(Debug, Clone, Default)]
pub struct CommandSpec {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Variables copied from Clawboo's own environment when set (PATH, LANG…).
    pub inherit_env: Vec<String>,
    pub cwd: PathBuf,
    pub piped_stdin: bool,
    /// The OS sandbox it starts in (see [`super::sandbox`]); None for a process that is not an
    /// agent's, or an agent the user turned the sandbox off for.
    pub confine: Option<super::sandbox::Confinement>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitInfo {
    pub code: Option<i32>,
    /// The signal that ended the process (Unix).
    pub signal: Option<i32>,
}

impl ExitInfo {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    pub fn describe(&self) -> String {
        match (self.code, self.signal) {
            (Some(code), _) => format!("exit code {code}"),
            (None, Some(signal)) => format!("signal {signal}"),
            (None, None) => "an unknown status".to_owned(),
        }
    }
}

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Control over a started process and everything it started.
pub trait ChildControl: Send {
    fn pid(&self) -> Option<u32>;
    /// The gentle stop: SIGINT to the group (what Ctrl-C would send).
    fn interrupt(&mut self) -> io::Result<()>;
    /// SIGTERM to the group.
    fn terminate(&mut self) -> io::Result<()>;
    /// SIGKILL to the group. Safe to call when everything already exited.
    fn kill(&mut self) -> io::Result<()>;
    fn wait(&mut self) -> BoxFuture<'_, io::Result<ExitInfo>>;
    /// The leader's exit, if it has exited.
    fn try_wait(&mut self) -> io::Result<Option<ExitInfo>>;
    /// Whether any process of the group is still alive.
    fn group_alive(&self) -> bool;
}

pub struct SpawnedChild {
    pub stdin: Option<Box<dyn AsyncWrite + Send + Unpin>>,
    pub stdout: Box<dyn AsyncRead + Send + Unpin>,
    pub stderr: Box<dyn AsyncRead + Send + Unpin>,
    pub control: Box<dyn ChildControl>,
}

pub trait Spawner: Send + Sync {
    fn spawn(&self, spec: &CommandSpec) -> io::Result<SpawnedChild>;
}

/// Real processes, each the leader of its own process group.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemSpawner;

impl Spawner for SystemSpawner {
    fn spawn(&self, spec: &CommandSpec) -> io::Result<SpawnedChild> {
        super::sandbox::confine_spawn(spec, spawn_plain)
    }
}

/// Starts `spec` as it is (already wrapped in its sandbox, or not confined).
fn spawn_plain(spec: &CommandSpec) -> io::Result<SpawnedChild> {
    {
        use process_wrap::tokio::CommandWrap;

        let mut command = tokio::process::Command::new(&spec.program);
        command
            .args(&spec.args)
            .current_dir(&spec.cwd)
            .env_clear()
            .stdin(if spec.piped_stdin { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for name in &spec.inherit_env {
            if let Some(value) = std::env::var_os(name) {
                command.env(name, value);
            }
        }
        command.envs(spec.env.iter().map(|(k, v)| (k, v)));

        let mut wrap = CommandWrap::from(command);
        #[cfg(unix)]
        wrap.wrap(process_wrap::tokio::ProcessGroup::leader());
        #[cfg(windows)]
        wrap.wrap(process_wrap::tokio::JobObject);
        wrap.wrap(process_wrap::tokio::KillOnDrop);
        let mut child = wrap.spawn()?;

        let stdin = child.stdin().take().map(|s| Box::new(s) as Box<dyn AsyncWrite + Send + Unpin>);
        let stdout = child.stdout().take().ok_or_else(|| io::Error::other("no stdout pipe"))?;
        let stderr = child.stderr().take().ok_or_else(|| io::Error::other("no stderr pipe"))?;
        Ok(SpawnedChild {
            stdin,
            stdout: Box::new(stdout),
            stderr: Box::new(stderr),
            control: Box::new(GroupControl { child }),
        })
    }
}

struct GroupControl {
    child: Box<dyn process_wrap::tokio::ChildWrapper>,
}

impl GroupControl {
    #[cfg(unix)]
    fn signal(&mut self, signal: i32) -> io::Result<()> {
        match self.child.signal(signal) {
            // The group is already gone: nothing left to stop.
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => Ok(()),
            other => other,
        }
    }
}

impl ChildControl for GroupControl {
    fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    fn interrupt(&mut self) -> io::Result<()> {
        #[cfg(unix)]
        return self.signal(libc::SIGINT);
        #[cfg(not(unix))]
        return self.child.start_kill();
    }

    fn terminate(&mut self) -> io::Result<()> {
        #[cfg(unix)]
        return self.signal(libc::SIGTERM);
        #[cfg(not(unix))]
        return self.child.start_kill();
    }

    fn kill(&mut self) -> io::Result<()> {
        #[cfg(unix)]
        return self.signal(libc::SIGKILL);
        #[cfg(not(unix))]
        return self.child.start_kill();
    }

    fn wait(&mut self) -> BoxFuture<'_, io::Result<ExitInfo>> {
        Box::pin(async move { Ok(exit_info(self.child.wait().await?)) })
    }

    fn try_wait(&mut self) -> io::Result<Option<ExitInfo>> {
        Ok(self.child.try_wait()?.map(exit_info))
    }

    fn group_alive(&self) -> bool {
        match self.child.id() {
            Some(pgid) => group_has_live_member(pgid),
            None => false,
        }
    }
}

/// One process as `/proc/<pid>/stat` describes it.
#[cfg(target_os = "linux")]
#[derive(Debug, Clone, Copy)]
pub struct ProcStat {
    pub pid: u32,
    pub ppid: u32,
    pub pgrp: u32,
    pub zombie: bool,
}

/// Every process of the machine, read from /proc (those that end while it is read are left out).
#[cfg(target_os = "linux")]
pub fn processes() -> Vec<ProcStat> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
            let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
            let zombie = fields.next()? == "Z";
            let ppid = fields.next()?.parse().ok()?;
            let pgrp = fields.next()?.parse().ok()?;
            Some(ProcStat { pid, ppid, pgrp, zombie })
        })
        .collect()
}

/// Whether a process of group `pgid` is still running. Zombies waiting to be reaped by init do
/// not count: they hold no resources and run nothing.
#[cfg(target_os = "linux")]
pub fn group_has_live_member(pgid: u32) -> bool {
    processes().iter().any(|p| !p.zombie && p.pgrp == pgid)
}

/// Whether process `pid` has ended and waits to be reaped.
#[cfg(target_os = "linux")]
pub fn is_zombie(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    stat.rfind(')').is_some_and(|i| stat[i + 1..].split_whitespace().next() == Some("Z"))
}

#[cfg(all(unix, not(target_os = "linux")))]
pub fn group_has_live_member(pgid: u32) -> bool {
    std::process::Command::new("kill")
        .args(["-0", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(not(unix))]
pub fn group_has_live_member(_pgid: u32) -> bool {
    false // The job object ends the tree with its handle.
}

fn exit_info(status: std::process::ExitStatus) -> ExitInfo {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal = None;
    ExitInfo { code: status.code(), signal }
}
