//! `clawboo-netns`: carries Clawboo's loopback ports into a bubblewrap sandbox's own network
//! namespace without any process inside it (Linux).
//!
//! The engine starts bubblewrap held on `--block-fd`, reads the sandbox's pid from `--info-fd`
//! and runs this helper with that pid and the ports. The helper joins the user namespace that
//! owns the sandbox's network namespace (skipped when it is already ours: a root host), joins
//! the network namespace, binds a listener on `127.0.0.1:<port>` there for each port (with
//! `IP_FREEBIND`, so it does not matter whether bubblewrap has brought `lo` up yet) and passes
//! them to the engine over the Unix socket on its stdin (`SCM_RIGHTS`). A socket keeps the
//! namespace it was made in: the engine accepts on them from the host and forwards each
//! connection to the real port, then releases bubblewrap.
//!
//! Why a separate process: `setns(CLONE_NEWNET)` needs `CAP_SYS_ADMIN` in the caller's user
//! namespace, which a normal user has only after joining the sandbox's user namespace, and the
//! kernel refuses that to a multithreaded process (the engine runs in tokio's pool). So this
//! helper is single-threaded on purpose and does nothing else.
//!
//! With `--serve-sockets` it stays alive after the listeners: each byte the engine sends asks
//! for one new, unconnected TCP socket made in the sandbox's namespace, which the engine
//! connects itself to a port the sandboxed program listens on (an OpenClaw Gateway's
//! published port). It exits when the engine closes its end.
//!
//! `unsafe`: the workspace forbids it; this crate denies it, with one exception,
//! `linux::owning_user_namespace`'s `ioctl(NS_GET_USERNS)` (neither nix nor rustix wraps it), which
//! says why it is sound where it stands.

/// The flag that keeps the helper serving sockets after it passed the listeners.
pub const SERVE_SOCKETS: &str = "--serve-sockets";

/// What the helper does: the arguments after the program name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The sandbox's first process (bubblewrap's `child-pid`).
    pub pid: u32,
    /// The ports to listen on inside, on 127.0.0.1, in the order the listeners are sent.
    pub ports: Vec<u16>,
    /// Stay alive and hand over one socket per request byte.
    pub serve_sockets: bool,
}

impl Request {
    /// The helper's command line (after the program).
    pub fn to_args(&self) -> Vec<String> {
        let mut args = vec![self.pid.to_string()];
        args.extend(self.ports.iter().map(u16::to_string));
        if self.serve_sockets {
            args.push(SERVE_SOCKETS.to_owned());
        }
        args
    }

    pub fn parse(args: &[String]) -> Result<Self, String> {
        let usage = "usage: clawboo-netns PID [PORT...] [--serve-sockets] (stdin: a Unix socket)";
        let mut serve_sockets = false;
        let mut numbers = Vec::new();
        for arg in args {
            if arg == SERVE_SOCKETS {
                serve_sockets = true;
            } else {
                numbers.push(arg.parse::<u32>().map_err(|_| format!("not a number: {arg}. {usage}"))?);
            }
        }
        let (&pid, ports) = numbers.split_first().ok_or(usage)?;
        let ports = ports
            .iter()
            .map(|&p| u16::try_from(p).ok().filter(|&p| p != 0).ok_or(format!("not a port: {p}")))
            .collect::<Result<_, _>>()?;
        Ok(Request { pid, ports, serve_sockets })
    }
}

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::main;

/// Not Linux: nothing to do (sandboxes elsewhere need no bridge).
#[cfg(not(target_os = "linux"))]
pub fn main() {
    eprintln!("clawboo-netns runs on Linux only");
    std::process::exit(2);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_through_the_command_line() {
        let request = Request { pid: 42, ports: vec![4123, 3128], serve_sockets: true };
        assert_eq!(request.to_args(), ["42", "4123", "3128", "--serve-sockets"]);
        assert_eq!(Request::parse(&request.to_args()), Ok(request));
        let plain = Request { pid: 7, ports: vec![], serve_sockets: false };
        assert_eq!(Request::parse(&plain.to_args()), Ok(plain));
        assert!(Request::parse(&[]).is_err());
        assert!(Request::parse(&["1".into(), "0".into()]).is_err());
        assert!(Request::parse(&["1".into(), "70000".into()]).is_err());
        assert!(Request::parse(&["x".into()]).is_err());
    }
}
