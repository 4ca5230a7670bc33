//! The local API: an HTTP server on 127.0.0.1 (a random port, written to `<data dir>/api.json`)
//! through which the user's own scripts start task-runner runs, list them, read and follow their
//! events (server-sent events) and cancel them.
//!
//! Off until the user switches it on in Settings (kept in the settings table, `local_api.enabled`):
//! a port that can start agents with the user's tools and keys is opt-in. While on it needs, on
//! every request, `Authorization: Bearer <token>` (the token lives in the keychain, see
//! [`token`]) and a `Host` naming this machine (`127.0.0.1:<port>` or `localhost:<port>`), so a
//! web page cannot reach it through DNS rebinding; it sends no CORS headers, so a browser's
//! cross-origin call fails too.

mod follow;
mod runs;
mod server;
pub mod token;
mod usage;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::sync::watch;

pub use runs::{ApiRun, ApiRunAttempt, ApiRunCard, ApiRunStatus, RunOutcome as ApiRunOutcome};

use crate::agents::Agents;
use crate::board::Board;
use crate::error::{Error, Result};
use crate::events::EventBus;
use crate::runner::Runner;
use crate::secrets::Secrets;
use crate::store::Store;

/// Where scripts find the port: `<data dir>/api.json`.
pub const PORT_FILE: &str = "api.json";
/// The setting that keeps the API on across restarts.
const ENABLED_SETTING: &str = "local_api.enabled";
/// The only address the API listens on unless a test asks for another loopback one.
pub const DEFAULT_BIND: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// What the API is built on (the engine's services).
pub struct LocalApiParts {
    pub store: Arc<Store>,
    pub agents: Arc<Agents>,
    pub board: Arc<Board>,
    pub runner: Arc<Runner>,
    pub events: EventBus,
    pub secrets: Arc<Secrets>,
    pub handle: tokio::runtime::Handle,
    pub data_dir: PathBuf,
    /// The server's bounds (the header timeout, connections at once).
    pub server_limits: crate::loopback::ServerLimits,
    /// Budgets and paused scopes, for `GET /api/budgets`.
    pub guard: Option<Arc<crate::guard::Guard>>,
}

/// The API as Settings shows it. The token is never part of it (see [`LocalApi::token`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalApiStatus {
    /// Switched on by the user (kept across restarts).
    pub enabled: bool,
    /// Listening now.
    pub running: bool,
    pub port: Option<u16>,
    /// `http://127.0.0.1:<port>` while running.
    pub url: Option<String>,
    /// The file scripts read the port from.
    pub port_file: String,
    /// Why it is on but not listening (the keychain was unavailable at start, say).
    pub error: Option<String>,
}

/// What `api.json` holds (no secret: the token is in the keychain).
#[derive(Debug, Serialize)]
struct PortFile<'a> {
    port: u16,
    pid: u32,
    url: &'a str,
}

pub struct LocalApi {
    parts: Arc<LocalApiParts>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    running: Option<Running>,
    error: Option<String>,
}

struct Running {
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    /// The token requests are checked against; replaced when it is regenerated.
    token: Arc<Mutex<String>>,
    /// Disconnected once the server has closed its port.
    ended: std::sync::mpsc::Receiver<()>,
}

impl LocalApi {
    pub fn new(parts: LocalApiParts) -> Self {
        Self { parts: Arc::new(parts), state: Mutex::default() }
    }

    /// At the engine's start: listens again when the user left the API on. A failure (no keychain)
    /// is kept for Settings to show, never a reason for the engine not to start.
    pub fn resume(&self) {
        match self.enabled() {
            Ok(true) => {
                if let Err(e) = self.start_on(DEFAULT_BIND) {
                    tracing::error!(error = %e, "the local API did not start");
                    lock(&self.state).error = Some(e.to_string());
                }
            }
            Ok(false) => {}
            Err(e) => tracing::error!(error = %e, "could not read whether the local API is on"),
        }
    }

    pub fn status(&self) -> Result<LocalApiStatus> {
        let enabled = self.enabled()?;
        let state = lock(&self.state);
        let addr = state.running.as_ref().map(|r| r.addr);
        Ok(LocalApiStatus {
            enabled,
            running: addr.is_some(),
            port: addr.map(|a| a.port()),
            url: addr.map(url_of),
            port_file: self.port_file().display().to_string(),
            error: state.error.clone(),
        })
    }

    /// Switches the API on (a token is made on first use) and keeps it on across restarts, or off.
    pub fn set_enabled(&self, enabled: bool) -> Result<LocalApiStatus> {
        if enabled {
            self.start_on(DEFAULT_BIND)?;
        } else {
            self.stop();
        }
        let value = enabled.then_some("1");
        self.parts.store.write(|tx| crate::store::settings::put(tx, ENABLED_SETTING, value))?;
        self.status()
    }

    /// Starts listening on `ip` (a random port), unless already listening. Only a loopback
    /// address is accepted: anything else would put the user's agents on the network.
    pub fn start_on(&self, ip: IpAddr) -> Result<LocalApiStatus> {
        check_bind(ip)?;
        {
            let state = lock(&self.state);
            if state.running.is_some() {
                drop(state);
                return self.status();
            }
        }
        let token = token::ensure(&self.parts.secrets)?;
        let listener = std::net::TcpListener::bind((ip, 0))
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .map_err(|e| Error::io(format!("The local API cannot listen on {ip}"), e))?;
        let addr = listener.local_addr().map_err(|e| Error::io("The local API has no address", e))?;
        write_port_file(&self.port_file(), addr)?;
        let (stop, stopped) = watch::channel(false);
        let (ended_tx, ended) = std::sync::mpsc::channel();
        let token = Arc::new(Mutex::new(token));
        let shared = Arc::new(server::Shared { parts: self.parts.clone(), addr, token: token.clone() });
        self.parts.handle.spawn(server::serve(listener, shared, stopped, ended_tx));
        let mut state = lock(&self.state);
        state.running = Some(Running { addr, stop, token, ended });
        state.error = None;
        drop(state);
        self.status()
    }

    /// Stops listening (open event streams end too) and removes the port file.
    pub fn stop(&self) {
        let running = lock(&self.state).running.take();
        if let Some(running) = running {
            let _ = running.stop.send(true);
            // Closed when this returns: switched off means nothing listens (bounded, in case the
            // engine's runtime is itself stopping).
            let _ = running.ended.recv_timeout(std::time::Duration::from_secs(2));
            if let Err(e) = std::fs::remove_file(self.port_file()) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!(error = %e, "could not remove the local API's port file");
                }
            }
        }
    }

    /// The token, for the user to copy (made when there is none yet).
    pub fn token(&self) -> Result<String> {
        token::ensure(&self.parts.secrets)
    }

    /// A new token; the old one stops working at once.
    pub fn regenerate_token(&self) -> Result<String> {
        let token = token::regenerate(&self.parts.secrets)?;
        if let Some(running) = &lock(&self.state).running {
            *lock(&running.token) = token.clone();
        }
        Ok(token)
    }

    fn enabled(&self) -> Result<bool> {
        let value = self.parts.store.read(|c| crate::store::settings::get(c, ENABLED_SETTING))?;
        Ok(value.as_deref() == Some("1"))
    }

    fn port_file(&self) -> PathBuf {
        self.parts.data_dir.join(PORT_FILE)
    }
}

impl Drop for LocalApi {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A loopback address only (127.0.0.0/8 or ::1).
pub fn check_bind(ip: IpAddr) -> Result<()> {
    if ip.is_loopback() {
        return Ok(());
    }
    Err(Error::InvalidInput(format!(
        "The local API listens on this machine only (127.0.0.1), never on {ip}: anyone who can reach that address \
         could try to start your agents."
    )))
}

fn url_of(addr: SocketAddr) -> String {
    format!("http://{addr}")
}

/// Written beside, then renamed over the old one: a script never reads half a file.
fn write_port_file(path: &Path, addr: SocketAddr) -> Result<()> {
    let url = url_of(addr);
    let body = serde_json::to_string_pretty(&PortFile { port: addr.port(), pid: std::process::id(), url: &url })
        .map_err(|e| Error::Internal(e.to_string()))?;
    let temp = path.with_extension(format!("json.{}.tmp", uuid::Uuid::new_v4().simple()));
    let written = std::fs::write(&temp, body).and_then(|()| std::fs::rename(&temp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(Error::io(format!("Cannot write {}", path.display()), e));
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_addresses_may_be_bound() {
        assert!(check_bind(DEFAULT_BIND).is_ok());
        assert!(check_bind("::1".parse().unwrap()).is_ok());
        for remote in ["0.0.0.0", "192.168.1.4", "::", "10.0.0.1"] {
            let err = check_bind(remote.parse().unwrap()).unwrap_err();
            assert_eq!(err.code(), crate::error::ErrorCode::InvalidInput, "{remote}");
        }
    }
}
