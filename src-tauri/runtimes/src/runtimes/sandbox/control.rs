//! Starting a process inside its sandbox, and stopping it there.

use std::io;

use super::{Confinement, Unavailable};
use crate::runtimes::process::{BoxFuture, ChildControl, CommandSpec, ExitInfo, SpawnedChild};

/// Starts `spec` through `spawn`, inside the sandbox its `confine` describes (unchanged when it
/// has none). Fails with an [`Unavailable`] error when the sandbox cannot start: a confined
/// process never runs unconfined.
pub fn confine_spawn(
    spec: &CommandSpec,
    spawn: impl FnOnce(&CommandSpec) -> io::Result<SpawnedChild>,
) -> io::Result<SpawnedChild> {
    let Some(confinement) = &spec.confine else { return spawn(spec) };
    platform::confine_spawn(spec, confinement, spawn)
}

fn unavailable(message: String) -> io::Error {
    io::Error::other(Unavailable(message))
}

/// The install folders of `spec.program` (and of its script interpreter) that the sandbox must
/// show read-only, beyond the system.
fn with_install(spec: &CommandSpec, confinement: &Confinement) -> Confinement {
    let mut c = confinement.clone();
    let path = spec
        .env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .or_else(|| spec.inherit_env.iter().any(|n| n == "PATH").then(|| std::env::var("PATH").ok()).flatten());
    for root in super::view::install_roots(&spec.program, path.as_deref()) {
        if !c.readable.contains(&root) && !c.writable.iter().any(|w| root.starts_with(w)) {
            c.readable.push(root);
        }
    }
    c
}

#[cfg(target_os = "linux")]
mod platform {
    use super::*;
    use crate::runtimes::sandbox::bridge::{Bridge, Inside};
    use crate::runtimes::sandbox::linux::{self, PROXY_PORT_INSIDE};
    use crate::runtimes::sandbox::netns;

    pub fn confine_spawn(
        spec: &CommandSpec,
        confinement: &Confinement,
        spawn: impl FnOnce(&CommandSpec) -> io::Result<SpawnedChild>,
    ) -> io::Result<SpawnedChild> {
        let tools = linux::tools().map_err(|m| unavailable(m.clone()))?;
        let confinement = with_install(spec, confinement);
        // A bridge when the process reaches anything at all: Clawboo's ports, or hosts.
        let bridged = !confinement.share_host_network
            && (!confinement.loopback_ports.is_empty()
                || !confinement.published_ports.is_empty()
                || confinement.network != crate::runtimes::sandbox::NetworkAccess::ClawbooOnly
                || !confinement.allowed_hosts.is_empty());
        let helper = if bridged {
            if tokio::runtime::Handle::try_current().is_err() {
                return Err(unavailable("Clawboo's sandbox network needs the engine's runtime.".into()));
            }
            Some(netns::helper().map_err(unavailable)?)
        } else {
            None
        };
        // The folders are bound at their real paths: so is the working folder entered.
        let cwd = spec.cwd.canonicalize().unwrap_or_else(|_| spec.cwd.clone());
        let mut args = linux::bwrap_args(&confinement, &cwd, &linux::system_entry);
        let mut env = spec.env.clone();
        let mut hold = None;
        if helper.is_some() {
            // bubblewrap waits (before the program) until the bridge's listeners are inside.
            let held =
                netns::Hold::new().map_err(|e| unavailable(format!("Clawboo's sandbox could not start: {e}")))?;
            args.extend(held.bwrap_args());
            hold = Some(held);
            env.extend(linux::proxy_env());
        }
        args.push("--".into());
        // By its real path: the links and `..` it was found through may not exist inside.
        let program = spec.program.canonicalize().unwrap_or_else(|_| spec.program.clone());
        args.push(program.to_string_lossy().into_owned());
        args.extend(spec.args.iter().cloned());
        let wrapped = CommandSpec { program: tools.bwrap.clone(), args, env, confine: None, ..spec.clone() };
        let (Some(helper), Some(mut hold)) = (helper, hold) else {
            let mut child = spawn(&wrapped)?;
            child.control = Box::new(ConfinedControl { inner: child.control, _bridge: None });
            return Ok(child);
        };
        let mut child = hold.spawn(|| spawn(&wrapped))?;
        let started = match start_bridge(&confinement, &helper, &hold, &mut *child.control) {
            Ok(bridge) => {
                hold.release().map(|()| bridge).map_err(|e| format!("Clawboo's sandbox could not start: {e}."))
            }
            Err(message) => {
                // bubblewrap reads its block pipe closing as "go": the hold stays open until
                // bubblewrap is gone (its sandbox dies with it, `--die-with-parent`), so the
                // program never runs.
                stop_held(&mut *child.control);
                drop(hold);
                Err(message)
            }
        };
        match started {
            Ok(bridge) => {
                child.control = Box::new(ConfinedControl { inner: child.control, _bridge: Some(bridge) });
                Ok(child)
            }
            Err(message) => {
                let _ = child.control.kill();
                Err(unavailable(format!("{message} {}", crate::runtimes::sandbox::UNAVAILABLE_FIX_LINUX)))
            }
        }
    }

    /// Kills a held bubblewrap and waits (a few seconds at most) until it has exited: its
    /// sandbox's first process is then sent SIGKILL by the kernel (`--die-with-parent`) before
    /// anything can release it.
    fn stop_held(bwrap: &mut dyn ChildControl) {
        let _ = bwrap.kill();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while matches!(bwrap.try_wait(), Ok(None)) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// The sandbox's listeners, made inside its network namespace by the helper while
    /// bubblewrap waits, and served from here.
    fn start_bridge(
        confinement: &Confinement,
        helper: &std::path::Path,
        hold: &netns::Hold,
        bwrap: &mut dyn ChildControl,
    ) -> Result<Bridge, String> {
        let pid = hold.child_pid(|| !matches!(bwrap.try_wait(), Ok(None)))?;
        let mut ports = confinement.loopback_ports.clone();
        ports.push(PROXY_PORT_INSIDE);
        let serve_sockets = !confinement.published_ports.is_empty();
        let (mut listeners, sockets) = netns::make_listeners(helper, pid, &ports, serve_sockets)?;
        let proxy = listeners.pop().ok_or("the network helper passed no proxy listener")?;
        let inside = Inside { loopback: ports.into_iter().zip(listeners).collect(), proxy, sockets };
        Bridge::serve(confinement, inside, confinement.notify.0.clone())
            .map_err(|e| format!("Clawboo's sandbox network could not start: {e}."))
    }

    /// Sends `signal` to what runs inside the sandbox, not to bubblewrap itself: bubblewrap
    /// dies of SIGINT and SIGTERM and takes the sandbox with it at once, which would cut a
    /// runtime's graceful stop (Claude Code's last `result` line) short.
    pub fn signal_inside(pgid: u32, signal: &str) -> io::Result<()> {
        let Ok(entries) = std::fs::read_dir("/proc") else { return Ok(()) };
        let pids: Vec<String> = entries
            .flatten()
            .filter_map(|entry| {
                let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
                let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
                let open = stat.find('(')?;
                let close = stat.rfind(')')?;
                let comm = &stat[open + 1..close];
                let mut fields = stat[close + 1..].split_whitespace();
                let state = fields.next()?;
                let pgrp: u32 = fields.nth(1)?.parse().ok()?;
                (pgrp == pgid && pid != pgid && comm != "bwrap" && state != "Z").then(|| pid.to_string())
            })
            .collect();
        if pids.is_empty() {
            return Ok(());
        }
        // `kill` the program: the engine forbids `unsafe`, so no libc::kill.
        std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .args(&pids)
            .stderr(std::process::Stdio::null())
            .status()
            .map(|_| ())
    }
}

#[cfg(target_os = "macos")]
mod platform {
    use super::*;

    pub fn confine_spawn(
        spec: &CommandSpec,
        confinement: &Confinement,
        spawn: impl FnOnce(&CommandSpec) -> io::Result<SpawnedChild>,
    ) -> io::Result<SpawnedChild> {
        let exec = std::path::Path::new("/usr/bin/sandbox-exec");
        if !exec.is_file() {
            return Err(unavailable("macOS's sandbox-exec is missing from /usr/bin.".into()));
        }
        let confinement = with_install(spec, confinement);
        let mut args = vec!["-p".to_owned(), crate::runtimes::sandbox::macos::profile(&confinement), "--".to_owned()];
        args.push(spec.program.to_string_lossy().into_owned());
        args.extend(spec.args.iter().cloned());
        let wrapped = CommandSpec { program: exec.to_path_buf(), args, confine: None, ..spec.clone() };
        spawn(&wrapped) // sandbox-exec executes the program in place: signals reach it as before
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod platform {
    use super::*;

    /// Windows: no OS sandbox (job objects only); the profile and first run say so.
    pub fn confine_spawn(
        spec: &CommandSpec,
        _confinement: &Confinement,
        spawn: impl FnOnce(&CommandSpec) -> io::Result<SpawnedChild>,
    ) -> io::Result<SpawnedChild> {
        spawn(&CommandSpec { confine: None, ..spec.clone() })
    }
}

/// A sandboxed process's control: signals go to what runs inside, and the network bridge
/// lives as long as the process is controlled.
pub struct ConfinedControl {
    inner: Box<dyn ChildControl>,
    #[cfg(target_os = "linux")]
    _bridge: Option<crate::runtimes::sandbox::bridge::Bridge>,
}

impl ChildControl for ConfinedControl {
    fn pid(&self) -> Option<u32> {
        self.inner.pid()
    }

    fn interrupt(&mut self) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        if let Some(pgid) = self.inner.pid() {
            return platform::signal_inside(pgid, "INT");
        }
        self.inner.interrupt()
    }

    fn terminate(&mut self) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        if let Some(pgid) = self.inner.pid() {
            return platform::signal_inside(pgid, "TERM");
        }
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
