//! The OS sandbox every agent process starts in: its runtime CLI, a connector's server, a
//! card's check command. Agents are untrusted, so the process sees only what its work needs:
//! read-write its working folder and its private runtime home, read-only the system and the
//! runtime's own install, nothing else of the user's home, no other agent, not Clawboo's data
//! folder, no session bus (so no keychain), no display, no other process; and on the network
//! only the loopback ports Clawboo names (the model relay, the tools bridge) plus, through a
//! filtering proxy, the hosts the agent's profile allows.
//!
//! Linux: bubblewrap (`bwrap`, Flatpak's sandbox) with every namespace unshared; the allowed
//! loopback ports are carried into the sandbox's own network namespace by listeners made there,
//! from outside, by the small `clawboo-netns` helper while bubblewrap waits (no process inside;
//! the same port numbers, so URLs do not change). macOS: a Seatbelt profile for `sandbox-exec`. Windows: not sandboxed (job objects only), and the app says so.
//!
//! When the sandbox cannot start, the run is refused (`sandbox_unavailable`); an agent runs
//! unconfined only when the user turned its sandbox off in its profile.

#[cfg(target_os = "linux")]
mod bridge;
mod control;
pub mod linux;
pub mod macos;
#[cfg(target_os = "linux")]
pub mod netns;
mod view;

use std::path::PathBuf;
use std::sync::Arc;

pub use crate::vocab::sandbox::{host_allowed, validate_hosts, NetworkAccess, SandboxSettings, SUGGESTED_HOSTS};

pub use control::{confine_spawn, ConfinedControl};
pub use view::{allow_own_sign_in, folder_view, install_roots, runtime_view, turn_confinement, FOLDER_VIEW_ENV};

/// A connection the sandbox's proxy refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    pub host: String,
    pub port: u16,
}

impl Blocked {
    /// The Activity line.
    pub fn message(&self) -> String {
        format!(
            "Blocked by Clawboo's sandbox: {}:{} (allow it under the agent's Network setting)",
            self.host, self.port
        )
    }
}

/// Called (once per host and run) when the proxy refuses a connection.
pub type BlockedSink = Arc<dyn Fn(Blocked) + Send + Sync>;

/// Where the proxy reports refused connections (the run's Activity).
#[derive(Clone, Default)]
pub struct Notify(pub Option<BlockedSink>);

impl std::fmt::Debug for Notify {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Notify(sink)" } else { "Notify(none)" })
    }
}

impl PartialEq for Notify {
    fn eq(&self, _: &Self) -> bool {
        true // a sink is not part of what a sandbox allows
    }
}

impl Eq for Notify {}

/// The confinement of one process: what it may see and reach.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Confinement {
    /// Read-write: the working folder (unless read-only), the private runtime home, its temp.
    pub writable: Vec<PathBuf>,
    /// Read-only on top of the system: the runtime's install, a read-only working folder.
    pub readable: Vec<PathBuf>,
    /// Folders inside a bound folder that are replaced by an empty one (Clawboo's own folder in
    /// an agent's workspace: the homes of its other runtimes).
    pub hidden: Vec<PathBuf>,
    /// Loopback ports (on 127.0.0.1) reachable from inside: the relay, the tools bridge, a
    /// Gateway Clawboo runs.
    pub loopback_ports: Vec<u16>,
    pub network: NetworkAccess,
    pub allowed_hosts: Vec<String>,
    /// Ports the process listens on inside (on its own 127.0.0.1) that are published on the
    /// host's 127.0.0.1 under the same number: an OpenClaw Gateway Clawboo starts, which the
    /// turns' bridges reach.
    pub published_ports: Vec<u16>,
    /// Keeps the host's network: only a bridge to a Gateway on another machine, which runs no
    /// agent tool here; the files, processes and bus stay confined.
    pub share_host_network: bool,
    pub notify: Notify,
}

impl Confinement {
    /// Adds the port of a loopback URL (`http://127.0.0.1:PORT/...`, `ws://localhost:PORT`).
    /// Other URLs (a remote endpoint) are not loopback and go through the proxy's rules.
    pub fn allow_loopback_url(&mut self, url: &str) {
        if let Some(port) = loopback_port(url) {
            if !self.loopback_ports.contains(&port) {
                self.loopback_ports.push(port);
            }
        }
    }

    /// Adds a host reached through the proxy whatever the profile's network setting (the
    /// provider's own endpoint under the user's own sign-in).
    pub fn allow_host(&mut self, host: &str) {
        let host = host.to_ascii_lowercase();
        if !self.allowed_hosts.contains(&host) {
            self.allowed_hosts.push(host);
        }
    }

    pub fn allow_url_host(&mut self, url: &str) {
        if let Some(host) = url_host(url) {
            if loopback_port(url).is_none() {
                self.allow_host(&host);
            }
        }
    }

    /// Whether the proxy lets a connection to `host` through (by name; see
    /// [`Confinement::proxy_allows_address`] for where it resolves).
    pub fn proxy_allows(&self, host: &str) -> bool {
        self.network == NetworkAccess::Any || host_allowed(&self.allowed_hosts, host)
    }

    /// Whether the proxy may connect to `address`, which `host` resolved to. A host the profile
    /// lists by name is the user's choice, wherever it resolves. Under *any*, only the
    /// internet: never this machine (its loopback holds Clawboo's API, other runs' relays and
    /// the user's own services), the local network or link-local addresses (a cloud's
    /// metadata service), even by a name that resolves there.
    pub fn proxy_allows_address(&self, host: &str, address: std::net::IpAddr) -> bool {
        host_allowed(&self.allowed_hosts, host) || is_public(address)
    }
}

/// Whether an address is on the internet rather than this machine or its networks.
fn is_public(address: std::net::IpAddr) -> bool {
    use std::net::IpAddr;
    match address {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b)) // shared address space (carrier NAT)
                || (a == 198 && (b == 18 || b == 19)) // benchmarking
                || a >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local
                || (first & 0xffc0) == 0xfe80) // link-local
        }
    }
}

fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map(|(_, a)| a).unwrap_or(authority);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next()?.to_owned()
    } else {
        authority.split(':').next()?.to_owned()
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// The port of a URL on this machine's loopback, if it is one.
pub fn loopback_port(url: &str) -> Option<u16> {
    let host = url_host(url)?;
    if !(host == "127.0.0.1" || host == "localhost" || host == "::1") {
        return None;
    }
    let rest = url.split_once("://").map(|(_, r)| r).unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next()?;
    let port = authority.rsplit_once(':')?.1.trim_end_matches(']');
    port.parse().ok()
}

/// Why a confined process could not start.
pub const UNAVAILABLE_FIX_LINUX: &str = "Install bubblewrap (Debian/Ubuntu: sudo apt install bubblewrap). \
On Ubuntu 24.04 and later, unprivileged user namespaces also need an AppArmor profile for bwrap \
(or kernel.apparmor_restrict_unprivileged_userns=0). Inside a container, run Clawboo on the host. \
Or turn the sandbox off for this agent in its profile (it then runs with your whole account).";

/// Whether agents on this OS run confined at all.
pub fn os_supported() -> bool {
    cfg!(any(target_os = "linux", target_os = "macos"))
}

/// Marks an I/O error as "the sandbox is unavailable", so the run layer can give the code.
#[derive(Debug)]
pub struct Unavailable(pub String);

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unavailable {}

/// The engine error for a spawn failure: `sandbox_unavailable` when the sandbox was the cause.
pub fn spawn_error(e: std::io::Error, what: impl FnOnce(&std::io::Error) -> crate::Error) -> crate::Error {
    match e.get_ref().and_then(|inner| inner.downcast_ref::<Unavailable>()) {
        Some(reason) => crate::Error::SandboxUnavailable(reason.0.clone()),
        None => what(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_ports_are_found_and_other_hosts_are_not() {
        assert_eq!(loopback_port("http://127.0.0.1:4123/anthropic"), Some(4123));
        assert_eq!(loopback_port("ws://localhost:18789"), Some(18789));
        assert_eq!(loopback_port("http://[::1]:99/x"), Some(99));
        assert_eq!(loopback_port("https://api.anthropic.com"), None);
        assert_eq!(loopback_port("http://127.0.0.1/x"), None);
        assert_eq!(loopback_port("http://user@127.0.0.2:80"), None);
    }

    #[test]
    fn the_proxy_follows_the_network_setting() {
        let mut c = Confinement { network: NetworkAccess::ClawbooOnly, ..Default::default() };
        assert!(!c.proxy_allows("example.com"));
        c.allow_url_host("https://api.anthropic.com/v1");
        c.allow_url_host("http://127.0.0.1:9/x");
        assert_eq!(c.allowed_hosts, ["api.anthropic.com"]);
        assert!(c.proxy_allows("api.anthropic.com"));
        c.network = NetworkAccess::Any;
        assert!(c.proxy_allows("example.com"));
    }
}
