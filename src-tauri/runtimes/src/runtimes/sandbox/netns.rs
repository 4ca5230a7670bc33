//! The engine's side of carrying loopback ports into a sandbox's network namespace (Linux),
//! with no process inside the sandbox:
//!
//! 1. bubblewrap starts held: `--info-fd` tells the sandbox's pid, `--block-fd` keeps the
//!    program from running until the engine writes a byte ([`Hold`]);
//! 2. the `clawboo-netns` helper (a small single-threaded executable shipped next to Clawboo's
//!    own binary) joins that namespace, binds `127.0.0.1:<port>` listeners there and passes
//!    them back over a Unix socket ([`make_listeners`]);
//! 3. the bridge accepts on them from the host and forwards (see `bridge.rs`), and bubblewrap is
//!    released.
//!
//! The engine cannot join the namespace itself: a normal user's multithreaded process is
//! refused `setns` into the sandbox's user namespace (`EINVAL`), which a normal user needs for
//! the network one. Root is allowed, so only a test run as a normal user proves this works.

use std::ffi::OsString;
use std::io::{self, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::io::{fcntl_dupfd_cloexec, fcntl_setfd, FdFlags};
use rustix::net::{
    recvmsg, sendmsg, socketpair, AddressFamily, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags,
    SendAncillaryBuffer, SendFlags, SocketFlags, SocketType,
};

/// Names the helper's path explicitly (tests, unusual installs).
pub const HELPER_ENV: &str = "CLAWBOO_NETNS_HELPER";
/// The helper's file name, next to Clawboo's own binary.
pub const HELPER_NAME: &str = "clawboo-netns";
/// How long bubblewrap and the helper get for their part of the start (each takes a few ms).
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the helper is, or why the sandbox's network cannot start.
pub fn helper() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().ok();
    find_helper(std::env::var_os(HELPER_ENV), exe.as_deref()).ok_or_else(|| {
        format!(
            "Clawboo's sandbox network helper ({HELPER_NAME}) is missing: it is installed next to Clawboo's \
             own program ({}). Reinstall Clawboo, or set {HELPER_ENV} to its path.",
            exe.as_deref().and_then(Path::parent).map(|d| d.display().to_string()).unwrap_or_default()
        )
    })
}

/// The helper named by `env`, else next to `exe`, else (a test or an example under `target/`)
/// one folder up from `deps/` or `examples/`.
fn find_helper(env: Option<OsString>, exe: Option<&Path>) -> Option<PathBuf> {
    if let Some(path) = env.filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path)).filter(|p| p.is_file());
    }
    let dir = exe?.parent()?;
    let mut candidates = vec![dir.join(HELPER_NAME)];
    if matches!(dir.file_name().and_then(|n| n.to_str()), Some("deps" | "examples")) {
        candidates.extend(dir.parent().map(|up| up.join(HELPER_NAME)));
    }
    candidates.into_iter().find(|p| p.is_file())
}

/// Serialises the moments bubblewrap's pipe ends are inheritable, so that two sandboxes
/// starting at once never hold each other's (see [`Hold::spawn`]).
static INHERITABLE: Mutex<()> = Mutex::new(());

/// bubblewrap held at the start of its sandbox: the pipes behind `--block-fd` and `--info-fd`.
pub struct Hold {
    /// Written to (or closed) to let the program run.
    release: OwnedFd,
    /// Where bubblewrap writes `{"child-pid": N}`.
    info: OwnedFd,
    /// bubblewrap's ends, until it has them.
    bwrap_ends: Option<(OwnedFd, OwnedFd)>,
}

impl Hold {
    pub fn new() -> io::Result<Self> {
        let (block_read, release) = pipe()?;
        let (info, info_write) = pipe()?;
        Ok(Hold { release, info, bwrap_ends: Some((block_read, info_write)) })
    }

    /// bubblewrap's options naming the two pipes (before `--`).
    pub fn bwrap_args(&self) -> Vec<String> {
        let (block, info) = self.bwrap_ends.as_ref().map(|(b, i)| (b.as_raw_fd(), i.as_raw_fd())).unwrap_or((-1, -1));
        vec!["--block-fd".into(), block.to_string(), "--info-fd".into(), info.to_string()]
    }

    /// Runs `spawn` (which starts bubblewrap) with bubblewrap's pipe ends inheritable, then
    /// closes the engine's copies of them. The engine has no `pre_exec` (no `unsafe`), so the
    /// ends are inheritable for the length of the spawn: a process another thread starts in
    /// that moment may inherit them too, which is harmless (the block end is only ever read by
    /// bubblewrap, and the info pipe is read up to its closing `}` rather than to its end).
    pub fn spawn<T>(&mut self, spawn: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
        let (block, info) = self.bwrap_ends.take().ok_or_else(|| io::Error::other("bubblewrap already started"))?;
        let _one_at_a_time = INHERITABLE.lock().unwrap_or_else(|p| p.into_inner());
        fcntl_setfd(&block, FdFlags::empty())?;
        fcntl_setfd(&info, FdFlags::empty())?;
        let spawned = spawn();
        drop((block, info));
        spawned
    }

    /// The pid of the sandbox's first process, once bubblewrap has made it. `exited` says
    /// whether bubblewrap is gone (then it will never say).
    pub fn child_pid(&self, mut exited: impl FnMut() -> bool) -> Result<u32, String> {
        let deadline = Instant::now() + START_TIMEOUT;
        let mut said = Vec::new();
        loop {
            if let Some(pid) = child_pid(&said) {
                return Ok(pid);
            }
            if Instant::now() > deadline {
                return Err("bubblewrap did not start its sandbox in time.".into());
            }
            if readable(&self.info, Duration::from_millis(20)).map_err(|e| format!("bubblewrap's info: {e}"))? {
                let mut buf = [0u8; 512];
                let n = rustix::io::read(&self.info, &mut buf).map_err(|e| format!("bubblewrap's info: {e}"))?;
                if n == 0 {
                    return Err("bubblewrap ended before its sandbox started.".into());
                }
                said.extend_from_slice(&buf[..n]);
            } else if exited() {
                return Err("bubblewrap ended before its sandbox started.".into());
            }
        }
    }

    /// Lets the program run.
    pub fn release(self) -> io::Result<()> {
        rustix::io::write(&self.release, &[1]).map(drop).map_err(io::Error::from)
    }
}

/// The `child-pid` of bubblewrap's info once it is complete (it ends with `}`).
fn child_pid(info: &[u8]) -> Option<u32> {
    if !info.contains(&b'}') {
        return None;
    }
    let value: serde_json::Value = serde_json::from_slice(info).ok()?;
    value.get("child-pid")?.as_u64()?.try_into().ok()
}

/// A pipe whose ends are not 0, 1 or 2 (when Clawboo was started with one of those closed, a
/// new pipe could take its number and be replaced by the child's stdio).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (read, write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    Ok((above_stdio(read)?, above_stdio(write)?))
}

fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    Ok(fcntl_dupfd_cloexec(&fd, 3)?)
}

fn readable(fd: &OwnedFd, timeout: Duration) -> io::Result<bool> {
    let timeout = Timespec::try_from(timeout).map_err(io::Error::other)?;
    let mut fds = [PollFd::new(fd, PollFlags::IN)];
    match poll(&mut fds, Some(&timeout)) {
        Ok(n) => Ok(n > 0),
        Err(rustix::io::Errno::INTR) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Receives one message from the helper: the descriptors it passed, or None when it closed its
/// end without sending (it failed).
fn receive(socket: &OwnedFd, most: usize, timeout: Duration) -> io::Result<Option<Vec<OwnedFd>>> {
    let deadline = Instant::now() + timeout;
    while !readable(socket, Duration::from_millis(50))? {
        if Instant::now() > deadline {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "no answer"));
        }
    }
    let mut byte = [0u8; 1];
    let mut iov = [IoSliceMut::new(&mut byte)];
    let mut space = vec![MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(most.max(1)))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let message = recvmsg(socket, &mut iov, &mut control, RecvFlags::CMSG_CLOEXEC)?;
    if message.bytes == 0 {
        return Ok(None);
    }
    let mut fds = Vec::new();
    for part in control.drain() {
        if let RecvAncillaryMessage::ScmRights(passed) = part {
            fds.extend(passed);
        }
    }
    Ok(Some(fds))
}

/// Listeners on 127.0.0.1 inside the network namespace of `pid`, one per port in order, made by
/// the helper at `helper`; and, when `serve_sockets`, the helper kept alive to make sockets
/// there for published ports.
pub fn make_listeners(
    helper: &Path,
    pid: u32,
    ports: &[u16],
    serve_sockets: bool,
) -> Result<(Vec<std::net::TcpListener>, Option<SocketMaker>), String> {
    let failed = |e: &dyn std::fmt::Display| format!("Clawboo's sandbox network helper failed: {e}");
    let (ours, theirs) =
        socketpair(AddressFamily::UNIX, SocketType::SEQPACKET, SocketFlags::CLOEXEC, None).map_err(|e| failed(&e))?;
    let request = clawboo_netns::Request { pid, ports: ports.to_vec(), serve_sockets };
    let mut child = Command::new(helper)
        .args(request.to_args())
        .env_clear()
        .stdin(Stdio::from(theirs))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| failed(&format!("{} could not be started ({e})", helper.display())))?;
    let fds = match receive(&ours, ports.len(), START_TIMEOUT) {
        Ok(Some(fds)) if fds.len() == ports.len() => fds,
        received => {
            let _ = child.kill();
            let said = child.wait_with_output().map(|o| String::from_utf8_lossy(&o.stderr).trim().to_owned());
            let said = match (received, said) {
                (_, Ok(said)) if !said.is_empty() => said,
                (Err(e), _) => e.to_string(),
                (Ok(Some(fds)), _) => format!("it passed {} listeners for {} ports", fds.len(), ports.len()),
                _ => "it ended without a word".to_owned(),
            };
            return Err(failed(&said));
        }
    };
    let listeners = fds.into_iter().map(std::net::TcpListener::from).collect();
    if !serve_sockets {
        // It exits right after sending: reap it.
        let _ = child.wait();
        return Ok((listeners, None));
    }
    Ok((listeners, Some(SocketMaker { control: Mutex::new(ours), helper: child })))
}

/// The helper kept alive for a sandbox with published ports: it makes one TCP socket in the
/// sandbox's network namespace per request, which the host then connects to a port the
/// sandboxed program listens on. Dropping it ends the helper.
pub struct SocketMaker {
    control: Mutex<OwnedFd>,
    helper: Child,
}

impl SocketMaker {
    /// A new, unconnected socket in the sandbox's network namespace. Blocks for one round trip
    /// to the helper (tens of microseconds).
    pub fn socket(&self) -> io::Result<std::net::TcpStream> {
        let control = self.control.lock().unwrap_or_else(|p| p.into_inner());
        let ask = [std::io::IoSlice::new(&[1])];
        sendmsg(control.as_fd(), &ask, &mut SendAncillaryBuffer::default(), SendFlags::NOSIGNAL)?;
        match receive(&control, 1, START_TIMEOUT)? {
            Some(mut fds) if fds.len() == 1 => Ok(std::net::TcpStream::from(fds.remove(0))),
            _ => Err(io::Error::other("the sandbox's network helper has ended")),
        }
    }
}

impl Drop for SocketMaker {
    fn drop(&mut self) {
        // Closing our end ends it too; the kill makes sure, and the wait reaps it at once.
        let _ = self.helper.kill();
        let _ = self.helper.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bubblewraps_info_is_read_up_to_its_closing_brace() {
        assert_eq!(child_pid(b"{\n    \"child-pid\": 4242"), None);
        assert_eq!(child_pid(b"{\n    \"child-pid\": 4242\n}\n"), Some(4242));
        assert_eq!(child_pid(b"{\"child-pid\": 7, \"cgroup-namespace\": 4026531835}"), Some(7));
        assert_eq!(child_pid(b"{\"nothing\": 1}"), None);
    }

    #[test]
    fn the_helper_is_named_or_next_to_clawboo_or_above_a_test_binary() {
        let dir = tempfile::tempdir().unwrap();
        let helper = dir.path().join(HELPER_NAME);
        std::fs::write(&helper, "").unwrap();
        let deps = dir.path().join("deps");
        std::fs::create_dir(&deps).unwrap();
        assert_eq!(find_helper(None, Some(&dir.path().join("clawboo"))), Some(helper.clone()));
        assert_eq!(find_helper(None, Some(&deps.join("sandbox_escape-1234"))), Some(helper.clone()));
        assert_eq!(find_helper(Some(helper.clone().into()), None), Some(helper.clone()));
        let elsewhere = tempfile::tempdir().unwrap();
        assert_eq!(find_helper(None, Some(&elsewhere.path().join("clawboo"))), None);
        assert_eq!(find_helper(Some(elsewhere.path().join("nope").into()), Some(&dir.path().join("clawboo"))), None);
    }

    #[test]
    fn bubblewraps_pipes_are_never_stdio_and_close_once_it_has_them() {
        let mut hold = Hold::new().unwrap();
        let args = hold.bwrap_args();
        assert_eq!(args[0], "--block-fd");
        assert!(args[1].parse::<i32>().unwrap() > 2 && args[3].parse::<i32>().unwrap() > 2, "{args:?}");
        let inheritable = hold
            .spawn(|| {
                let (b, i) = hold_ends_flags(&args);
                Ok(b && i)
            })
            .unwrap();
        assert!(inheritable, "bubblewrap's ends are inheritable while it starts");
        assert!(hold.spawn(|| Ok(())).is_err(), "once only");
        assert_eq!(hold.child_pid(|| true), Err("bubblewrap ended before its sandbox started.".into()));
    }

    /// Whether the fds named in bwrap's arguments are open without FD_CLOEXEC.
    fn hold_ends_flags(args: &[String]) -> (bool, bool) {
        let flags = |n: &str| std::fs::read_to_string(format!("/proc/self/fdinfo/{n}")).unwrap();
        let no_cloexec = |n: &str| {
            let text = flags(n);
            let octal = text.lines().find_map(|l| l.strip_prefix("flags:")).unwrap().trim().to_owned();
            u32::from_str_radix(&octal, 8).unwrap() & 0o2000000 == 0
        };
        (no_cloexec(&args[1]), no_cloexec(&args[3]))
    }
}
