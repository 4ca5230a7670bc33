//! The helper's work on Linux; see the crate's documentation.

use std::fs::File;
use std::io::{self, IoSlice, IoSliceMut};
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::MetadataExt;

use nix::sched::{setns, CloneFlags};
use nix::sys::socket::{
    bind, listen, recvmsg, sendmsg, setsockopt, socket, sockopt, AddressFamily, Backlog, ControlMessage, MsgFlags,
    SockFlag, SockType, SockaddrIn, UnixAddr,
};

use crate::Request;

/// The engine's end of the socket pair.
const ENGINE: RawFd = 0;

/// Runs the helper: arguments from the command line, errors on stderr and exit code 1.
pub fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = Request::parse(&args).and_then(|request| run(&request));
    if let Err(message) = result {
        eprintln!("clawboo-netns: {message}");
        std::process::exit(1);
    }
}

fn run(request: &Request) -> Result<(), String> {
    enter_network_namespace(request.pid)?;
    let listeners = request.ports.iter().map(|&port| listener(port)).collect::<Result<Vec<_>, _>>()?;
    send(&listeners).map_err(|e| format!("could not pass the listeners to Clawboo: {e}"))?;
    drop(listeners);
    if request.serve_sockets {
        serve_sockets().map_err(|e| format!("could not serve sockets: {e}"))?;
    }
    Ok(())
}

/// Joins the network namespace of `pid`, and first the user namespace that owns it unless it
/// is ours.
fn enter_network_namespace(pid: u32) -> Result<(), String> {
    let net = File::open(format!("/proc/{pid}/ns/net"))
        .map_err(|e| format!("the sandbox's network namespace (/proc/{pid}/ns/net): {e}"))?;
    // The owner, not /proc/<pid>/ns/user: bubblewrap may already have moved the child into a
    // nested user namespace that has no capability over the network namespace.
    let owner = File::from(owning_user_namespace(&net).map_err(|e| format!("NS_GET_USERNS: {e}"))?);
    let ours = std::fs::metadata("/proc/self/ns/user").map_err(|e| format!("/proc/self/ns/user: {e}"))?;
    let theirs = owner.metadata().map_err(|e| format!("the owning user namespace: {e}"))?;
    if (ours.dev(), ours.ino()) != (theirs.dev(), theirs.ino()) {
        setns(owner.as_fd(), CloneFlags::CLONE_NEWUSER)
            .map_err(|e| format!("joining the sandbox's user namespace: {e}"))?;
    }
    setns(net.as_fd(), CloneFlags::CLONE_NEWNET).map_err(|e| format!("joining the sandbox's network namespace: {e}"))
}

/// The user namespace that owns the network namespace `net` (`ioctl(NS_GET_USERNS)`).
#[allow(unsafe_code)]
fn owning_user_namespace(net: &File) -> io::Result<OwnedFd> {
    // SAFETY: NS_GET_USERNS takes no argument but the file descriptor, which `net` keeps open
    // for the whole call; it reads and writes no memory of ours. On success it returns a new
    // descriptor nobody else holds, so wrapping it in an OwnedFd (closed once, on drop) is sound.
    let fd = unsafe { libc::ioctl(net.as_raw_fd(), libc::NS_GET_USERNS) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: see above: `fd` is a fresh descriptor owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// A listener on 127.0.0.1:`port` in the current network namespace.
fn listener(port: u16) -> Result<OwnedFd, String> {
    let what = |e: nix::Error| format!("listening on 127.0.0.1:{port} inside the sandbox: {e}");
    let socket = socket(AddressFamily::Inet, SockType::Stream, SockFlag::SOCK_CLOEXEC, None).map_err(what)?;
    // `lo` may not be up yet: bubblewrap brings it up in the child, maybe after this bind.
    setsockopt(&socket, sockopt::IpFreebind, &true).map_err(what)?;
    bind(socket.as_raw_fd(), &SockaddrIn::new(127, 0, 0, 1, port)).map_err(what)?;
    listen(&socket, Backlog::new(128).map_err(what)?).map_err(what)?;
    Ok(socket)
}

/// Sends `fds` to the engine in one message (an empty list is still one message).
fn send(fds: &[OwnedFd]) -> nix::Result<()> {
    let raw: Vec<RawFd> = fds.iter().map(AsRawFd::as_raw_fd).collect();
    let rights = [ControlMessage::ScmRights(&raw)];
    let cmsgs: &[ControlMessage] = if raw.is_empty() { &[] } else { &rights };
    sendmsg::<UnixAddr>(ENGINE, &[IoSlice::new(&[1])], cmsgs, MsgFlags::empty(), None).map(drop)
}

/// One unconnected TCP socket, made in the sandbox's namespace, per byte the engine sends; ends
/// when the engine closes its end.
fn serve_sockets() -> nix::Result<()> {
    loop {
        let mut byte = [0u8; 1];
        let mut iov = [IoSliceMut::new(&mut byte)];
        let received = recvmsg::<UnixAddr>(ENGINE, &mut iov, None, MsgFlags::empty())?;
        if received.bytes == 0 {
            return Ok(());
        }
        let socket = socket(AddressFamily::Inet, SockType::Stream, SockFlag::SOCK_CLOEXEC, None)?;
        send(&[socket])?;
    }
}
