//! The long-lived link to each OpenClaw Gateway an agent runs on (one the user runs, on this
//! machine or another): Clawboo connects out once per agent, for as long as the agent uses that
//! Gateway, and keeps it measured, so the team's member list can show the Gateway's state and a
//! lost Gateway cuts its member's run at once instead of leaving it hung on the bridge.
//!
//! The link is health only: Clawboo's tools still reach the member through the turn's own node
//! connection (see [`super::remote_tools`]), which lives and dies with the run.
//!
//! How it connects: as an `operator` with the Gateway's shared token and **no device identity**.
//! OpenClaw 2026.9.6 lets exactly that in from any address (`roleCanSkipDeviceIdentity`:
//! "operators using shared auth may connect before device identity is established") and clears
//! every scope of such a connection, so the link needs no pairing and can call nothing: it only
//! hears `hello-ok` (the Gateway's version) and answers the Gateway's own keepalive pings. Its
//! measure is the WebSocket's own ping/pong (the Gateway's `ws` server answers pings itself):
//! a ping every [`Timing::ping_every`], the Gateway counted **lost** when one goes unanswered for
//! [`Timing::lost_after`] or the connection closes; then it reconnects with backoff (1, 2, 4 …
//! s, capped at 60 s, each with up to a fifth of jitter either way).

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{broadcast, watch};
use tokio_tungstenite::tungstenite::Message;

use crate::agents::{Agent, RuntimeKind};
use crate::error::Error;
use crate::runtimes::{RunOutcome, RunResult};
use crate::vocab::{now_ms, GatewayHealth, GatewayLinkState};

/// How the link paces itself; shorter in tests.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub ping_every: Duration,
    /// A ping unanswered this long counts the Gateway lost.
    pub lost_after: Duration,
    pub first_retry: Duration,
    pub max_retry: Duration,
    /// How long a connection may take to get `hello-ok`.
    pub connect_within: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Self {
            ping_every: Duration::from_secs(5),
            // Not 5 s: a starved or briefly stalled link (Wi-Fi, a laptop waking) must not cut runs.
            lost_after: Duration::from_secs(15),
            first_retry: Duration::from_secs(1),
            max_retry: Duration::from_secs(60),
            connect_within: Duration::from_secs(10),
        }
    }
}

impl Timing {
    /// The wait before reconnect attempt `attempt` (0 first): doubling from `first_retry`,
    /// capped at `max_retry`, before jitter.
    pub fn backoff(&self, attempt: u32) -> Duration {
        let doubled = self.first_retry.saturating_mul(1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX));
        doubled.min(self.max_retry)
    }
}

/// `wait` moved by up to a fifth either way, `unit` in [0, 1) choosing where: many links lost
/// at once (a Gateway restarting) do not all come back in the same instant.
pub fn with_jitter(wait: Duration, unit: f64) -> Duration {
    let factor = 0.8 + 0.4 * unit.clamp(0.0, 1.0);
    wait.mul_f64(factor)
}

fn random_unit() -> f64 {
    (uuid::Uuid::new_v4().as_u128() as u64 >> 11) as f64 / (1u64 << 53) as f64
}

/// What a connection said when it opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    pub version: String,
    pub latency: Duration,
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn frame(message: &Message) -> Option<Value> {
    match message {
        Message::Text(text) => serde_json::from_str(text.as_str()).ok(),
        _ => None,
    }
}

/// Connects to `url` as a scope-less operator with the shared `token`. `Err`: why not, in
/// words for the member list (never the token).
pub async fn connect(url: &str, token: &str, within: Duration) -> Result<(Socket, Hello), String> {
    let attempt = async {
        let (mut socket, _) = tokio_tungstenite::connect_async(url).await.map_err(|e| connect_failure(&e))?;
        let challenge = loop {
            match socket.next().await {
                Some(Ok(message)) => {
                    if let Some(f) = frame(&message).filter(|f| f["event"] == "connect.challenge") {
                        break f;
                    }
                }
                _ => return Err("the Gateway closed the connection before its challenge".to_owned()),
            }
        };
        let _ = challenge;
        let params = json!({
            "minProtocol": 3,
            "maxProtocol": 4,
            "client": {
                "id": "gateway-client",
                "displayName": "Clawboo health",
                "version": env!("CARGO_PKG_VERSION"),
                "platform": std::env::consts::OS,
                "mode": "backend",
            },
            "role": "operator",
            "scopes": [],
            "caps": [],
            "auth": { "token": token },
        });
        let request = json!({ "type": "req", "id": "connect", "method": "connect", "params": params });
        let sent = Instant::now();
        socket.send(Message::Text(request.to_string().into())).await.map_err(|e| short(&e.to_string()))?;
        loop {
            match socket.next().await {
                Some(Ok(message)) => {
                    let Some(answer) = frame(&message).filter(|f| f["type"] == "res" && f["id"] == "connect") else {
                        continue;
                    };
                    if answer["ok"] != true {
                        let said = answer["error"]["message"].as_str().unwrap_or("refused");
                        return Err(format!("the Gateway refused the connection: {}", short(said)));
                    }
                    let version = answer["payload"]["server"]["version"].as_str().unwrap_or("?").to_owned();
                    return Ok((socket, Hello { version, latency: sent.elapsed() }));
                }
                _ => return Err("the Gateway closed the connection before answering".to_owned()),
            }
        }
    };
    tokio::time::timeout(within, attempt)
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {} s", within.as_secs())))
}

/// A reason as the member list shows it: one line, bounded.
/// Why a connection could not be opened, in words a person reads in the member list (the OS's
/// own error stays in the log).
fn connect_failure(error: &tokio_tungstenite::tungstenite::Error) -> String {
    use std::io::ErrorKind;
    use tokio_tungstenite::tungstenite::Error;
    tracing::debug!(%error, "a Gateway health link could not connect");
    match error {
        Error::Io(e) => match e.kind() {
            ErrorKind::ConnectionRefused => "nothing answers at that address (connection refused)".to_owned(),
            ErrorKind::TimedOut => "no answer from that address (timed out)".to_owned(),
            ErrorKind::HostUnreachable | ErrorKind::NetworkUnreachable => {
                "this computer has no route to that address (is the VPN or Tailscale up?)".to_owned()
            }
            ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted => {
                "the connection was cut as it opened".to_owned()
            }
            _ if e.to_string().contains("lookup address") => "that host name was not found".to_owned(),
            _ => short(&e.to_string()),
        },
        Error::Http(response) => {
            format!("the address answered HTTP {} instead of a Gateway's WebSocket", response.status().as_u16())
        }
        Error::Url(e) => format!("the URL cannot be used: {}", short(&e.to_string())),
        other => short(&other.to_string()),
    }
}

fn short(why: &str) -> String {
    let line = why.lines().next().unwrap_or_default().trim();
    let mut cut: String = line.chars().take(160).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    cut
}

/// Keeps an open connection measured until it is lost; returns why. `latency` hears each answered
/// ping's round trip.
async fn keep(socket: Socket, timing: Timing, mut latency: impl FnMut(Duration)) -> String {
    let (mut sink, mut stream) = socket.split();
    let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + timing.ping_every, timing.ping_every);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut count: u64 = 0;
    // The ping in flight: its payload and when it was sent.
    let mut awaiting: Option<(Vec<u8>, tokio::time::Instant)> = None;
    loop {
        let deadline = awaiting.as_ref().map(|(_, sent)| *sent + timing.lost_after);
        tokio::select! {
            _ = ticker.tick(), if awaiting.is_none() => {
                count += 1;
                let payload = count.to_be_bytes().to_vec();
                if let Err(e) = sink.send(Message::Ping(payload.clone().into())).await {
                    return format!("the connection broke: {}", short(&e.to_string()));
                }
                awaiting = Some((payload, tokio::time::Instant::now()));
            }
            _ = tokio::time::sleep_until(deadline.unwrap_or_else(tokio::time::Instant::now)), if deadline.is_some() => {
                return format!("no answer to a ping within {} s", timing.lost_after.as_secs());
            }
            message = stream.next() => match message {
                Some(Ok(Message::Pong(payload))) => {
                    if let Some((expected, sent)) = &awaiting {
                        if payload.as_ref() == expected.as_slice() {
                            latency(sent.elapsed());
                            awaiting = None;
                        }
                    }
                }
                Some(Ok(Message::Close(close))) => {
                    return match close {
                        Some(c) if !c.reason.is_empty() => format!("the Gateway closed the connection ({} {})", u16::from(c.code), short(&c.reason)),
                        Some(c) => format!("the Gateway closed the connection ({})", u16::from(c.code)),
                        None => "the Gateway closed the connection".to_owned(),
                    };
                }
                // Events and ticks: the link listens to none of them.
                Some(Ok(_)) => {}
                Some(Err(e)) => return format!("the connection broke: {}", short(&e.to_string())),
                None => return "the connection closed".to_owned(),
            },
        }
    }
}

/// One agent's link: connects, keeps, and reconnects with backoff for as long as it runs,
/// telling `publish` each change.
async fn run_link(agent_id: String, url: String, token: String, timing: Timing, publish: impl Fn(GatewayHealth)) {
    let mut health = GatewayHealth {
        agent_id,
        url: url.clone(),
        state: GatewayLinkState::Connecting,
        latency_ms: None,
        version: None,
        since: now_ms(),
        last_error: None,
        retry_at: None,
    };
    publish(health.clone());
    let mut attempt = 0;
    loop {
        let why = match connect(&url, &token, timing.connect_within).await {
            Ok((socket, hello)) => {
                attempt = 0;
                health.state = GatewayLinkState::Connected;
                health.since = now_ms();
                health.version = Some(hello.version);
                health.latency_ms = Some(millis(hello.latency));
                health.retry_at = None;
                publish(health.clone());
                let why = keep(socket, timing, |latency| {
                    let ms = millis(latency);
                    if health.latency_ms != Some(ms) {
                        health.latency_ms = Some(ms);
                        publish(health.clone());
                    }
                })
                .await;
                tracing::info!(agent_id = %health.agent_id, url = %url, why = %why, "lost the OpenClaw Gateway");
                why
            }
            Err(why) => why,
        };
        let wait = with_jitter(timing.backoff(attempt), random_unit());
        attempt = attempt.saturating_add(1);
        if health.state != GatewayLinkState::Lost {
            health.since = now_ms();
        }
        health.state = GatewayLinkState::Lost;
        health.last_error = Some(why);
        health.retry_at = Some(now_ms() + wait.as_millis() as i64);
        publish(health.clone());
        tokio::time::sleep(wait).await;
    }
}

fn millis(d: Duration) -> u32 {
    d.as_millis().min(u32::MAX as u128) as u32
}

/// Who a link is for and where it goes.
pub struct LinkTarget {
    pub agent_id: String,
    pub url: String,
    /// The Gateway's token: held by the link in memory only.
    pub token: String,
}

struct Running {
    url: String,
    /// Tells a changed token apart without keeping a second copy of it.
    token_hash: u64,
    health: watch::Receiver<GatewayHealth>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Every agent's link, by agent id; cheap to clone (the engine keeps which agents need one, the
/// OpenClaw adapter reads their health).
#[derive(Clone)]
pub struct HealthBoard {
    links: Arc<Mutex<HashMap<String, Running>>>,
    changes: broadcast::Sender<GatewayHealth>,
    timing: Timing,
}

impl Default for HealthBoard {
    fn default() -> Self {
        Self { links: Arc::default(), changes: broadcast::channel(256).0, timing: Timing::default() }
    }
}

fn token_hash(token: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    token.hash(&mut hasher);
    hasher.finish()
}

impl HealthBoard {
    pub fn with_timing(timing: Timing) -> Self {
        Self { timing, ..Self::default() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.links.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs exactly the links in `wanted` on `handle`: new ones start, those no longer wanted
    /// stop, and one whose address or token changed starts again.
    pub fn sync(&self, handle: &tokio::runtime::Handle, wanted: Vec<LinkTarget>) {
        let mut links = self.lock();
        links.retain(|agent_id, _| wanted.iter().any(|w| &w.agent_id == agent_id));
        for target in wanted {
            let hash = token_hash(&target.token);
            if links.get(&target.agent_id).is_some_and(|r| r.url == target.url && r.token_hash == hash) {
                continue;
            }
            let (tx, rx) = watch::channel(GatewayHealth {
                agent_id: target.agent_id.clone(),
                url: target.url.clone(),
                state: GatewayLinkState::Connecting,
                latency_ms: None,
                version: None,
                since: now_ms(),
                last_error: None,
                retry_at: None,
            });
            let changes = self.changes.clone();
            let publish = move |health: GatewayHealth| {
                let _ = changes.send(health.clone());
                tx.send_replace(health);
            };
            let task =
                handle.spawn(run_link(target.agent_id.clone(), target.url.clone(), target.token, self.timing, publish));
            links.insert(target.agent_id, Running { url: target.url, token_hash: hash, health: rx, task });
        }
    }

    pub fn health(&self, agent_id: &str) -> Option<GatewayHealth> {
        self.lock().get(agent_id).map(|r| r.health.borrow().clone())
    }

    pub fn all(&self) -> Vec<GatewayHealth> {
        let mut all: Vec<GatewayHealth> = self.lock().values().map(|r| r.health.borrow().clone()).collect();
        all.sort_by(|a, b| a.agent_id.cmp(&b.agent_id));
        all
    }

    /// Follows one agent's link (a run watches it to be cut off when the Gateway is lost).
    pub fn watch(&self, agent_id: &str) -> Option<watch::Receiver<GatewayHealth>> {
        self.lock().get(agent_id).map(|r| r.health.clone())
    }

    /// Every change of every link, as it happens.
    pub fn subscribe(&self) -> broadcast::Receiver<GatewayHealth> {
        self.changes.subscribe()
    }

    pub fn stop_all(&self) {
        self.lock().clear();
    }
}

/// What refuses a turn, or cuts a run off, on a lost Gateway: its reason and when Clawboo tries
/// again, in words for the user.
pub fn lost_message(health: &GatewayHealth, cut_off: bool) -> String {
    let reason = health.last_error.as_deref().unwrap_or("no answer");
    let retry = match health.retry_at {
        Some(at) => format!(" Clawboo tries again in {} s.", ((at - now_ms()).max(0) + 999) / 1000),
        None => String::new(),
    };
    if cut_off {
        format!(
            "The connection to the OpenClaw Gateway at {} was lost ({reason}), so this run was cut off.{retry} Check \
             that the Gateway is running, then send the message again.",
            health.url
        )
    } else {
        format!(
            "The connection to the OpenClaw Gateway at {} is lost ({reason}), so this agent cannot run there now.\
             {retry} Start the Gateway on that machine (openclaw gateway run), or wait until the team's member list \
             shows it connected.",
            health.url
        )
    }
}

/// `message`, then what the runtime itself said (kept for the details), if anything.
fn with_said(message: String, said: &str) -> String {
    if said.trim().is_empty() {
        message
    } else {
        format!("{message}\n{said}")
    }
}

/// Refuses a turn of `agent` at once while its link to the Gateway it runs on is lost; a link still connecting, or none (a test, a Gateway not yet linked),
/// refuses nothing.
pub fn refuse_while_lost(board: &HealthBoard, agent: &Agent) -> crate::error::Result<()> {
    if agent.runtime != RuntimeKind::Openclaw {
        return Ok(());
    }
    let Some(url) = agent.openclaw_gateway_url.as_deref() else { return Ok(()) };
    match board.health(&agent.id) {
        Some(health) if health.state == GatewayLinkState::Lost && health.url == url => {
            Err(Error::GatewayUnreachable(lost_message(&health, false)))
        }
        _ => Ok(()),
    }
}

/// The run that ended as `ended` on a Gateway whose link is `lost`: failed, cut off, with the
/// reason first and what the runtime said after it.
pub fn cut_off(lost: &GatewayHealth, ended: crate::error::Result<RunResult>) -> RunResult {
    let said = match &ended {
        Ok(r) => r.message.clone().unwrap_or_default(),
        Err(e) => e.to_string(),
    };
    let mut cut_off = ended.unwrap_or_else(|_| RunResult::failed(""));
    cut_off.outcome = RunOutcome::Failed;
    cut_off.message = Some(with_said(lost_message(lost, true), &said));
    cut_off
}

/// A turn of `agent` that failed (or could not start) while its link is lost is cut off for
/// that reason; anything else, and a turn already refused or cut off for it, stays as it ended.
pub fn cut_off_if_lost(
    board: &HealthBoard,
    agent: &Agent,
    ended: crate::error::Result<RunResult>,
) -> crate::error::Result<RunResult> {
    let failed = match &ended {
        Ok(r) => {
            r.outcome == RunOutcome::Failed
                && !r.message.as_deref().is_some_and(|m| m.contains("so this run was cut off"))
        }
        Err(e) => e.code() != crate::error::ErrorCode::GatewayUnreachable,
    };
    let lost = board
        .health(&agent.id)
        .filter(|h| h.state == GatewayLinkState::Lost && Some(h.url.as_str()) == agent.openclaw_gateway_url.as_deref());
    match lost {
        Some(lost) if failed => Ok(cut_off(&lost, ended)),
        _ => ended,
    }
}

/// A turn's stop signal: the user's Stop, or its Gateway lost while it runs (then
/// [`CutOff::lost`] says why).
pub struct CutOff {
    _stop: Arc<watch::Sender<bool>>,
    lost: Arc<Mutex<Option<GatewayHealth>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for CutOff {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl CutOff {
    /// The Gateway's health when it was lost during the turn, if it was.
    pub fn lost(&self) -> Option<GatewayHealth> {
        self.lost.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Merges the user's `cancel` with `health` going lost: the returned receiver becomes `true` on
/// either (a closed `cancel` counts as a Stop, as the supervisor reads it).
pub fn stop_when_lost(
    mut cancel: watch::Receiver<bool>,
    health: Option<watch::Receiver<GatewayHealth>>,
) -> (watch::Receiver<bool>, CutOff) {
    let (tx, rx) = watch::channel(*cancel.borrow());
    let stop = Arc::new(tx);
    let lost: Arc<Mutex<Option<GatewayHealth>>> = Arc::default();
    let (stop_in, lost_in) = (stop.clone(), lost.clone());
    let task = tokio::spawn(async move {
        let mut health = health;
        loop {
            let lost_now = health.as_ref().map(|h| h.borrow().clone()).filter(|h| h.state == GatewayLinkState::Lost);
            if let Some(h) = lost_now {
                *lost_in.lock().unwrap_or_else(|e| e.into_inner()) = Some(h);
                stop_in.send_replace(true);
                return;
            }
            let link_gone = tokio::select! {
                changed = cancel.changed() => {
                    if changed.is_err() {
                        stop_in.send_replace(true);
                        return;
                    }
                    false
                }
                changed = next_change(&mut health) => changed.is_err(),
            };
            if *cancel.borrow() {
                stop_in.send_replace(true);
                return;
            }
            // The link stopped (the agent's Gateway changed): nothing more to watch.
            if link_gone {
                health = None;
            }
        }
    });
    (rx, CutOff { _stop: stop, lost, task })
}

async fn next_change(health: &mut Option<watch::Receiver<GatewayHealth>>) -> Result<(), watch::error::RecvError> {
    match health {
        Some(h) => h.changed().await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
#[path = "gateway_health_tests.rs"]
mod tests;
