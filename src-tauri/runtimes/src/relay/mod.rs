//! The loopback model relay. Runtimes that use a key Clawboo holds never get the key: they get
//! `http://127.0.0.1:<port>/<provider>…` and a token for their run ([`Relay::grant`]). The relay
//! checks the token, swaps it for the real key (read from the keychain when the request is
//! forwarded), sends the request to the provider's base URL from Settings, and streams the answer
//! back unchanged. On the way it records, per run, the exact request body the model received and
//! the usage the provider reported ([`Relay::requests`]). Headers are never recorded: the
//! client's carry the token and the forwarded ones the key.
//!
//! Rules on the way out: no redirect is ever followed (an answer 3xx becomes an error), and
//! plain `http://` goes to loopback hosts only.
//!
//! Bounds on the way in (a runtime is untrusted): a request body is at most
//! [`MAX_REQUEST_BYTES`] (413), and a run has at most [`MAX_REQUESTS_AT_ONCE`] requests in flight,
//! whichever of its tokens they use (429). A refused request is neither forwarded nor recorded.
//!
//! A brief failure of the provider (429, 5xx including Anthropic's 529, a connection reset) is
//! sent again after each of Native's waits (1 s, 4 s; the provider's `Retry-After` up to 30 s)
//! before the runtime gets the error: the answer has not started, so nothing reached the client
//! yet. Each retry is said in the run's Activity ([`Relay::report_retries_to`]). A client that
//! retries by itself (Native) says so with [`CLIENT_RETRIES_HEADER`]: its failures pass at once,
//! so one failure is not tried three times three.

mod lineage;
mod record;
mod server;
#[cfg(test)]
mod tests;
mod upstream;
mod usage;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::error::{Error, Result};
use crate::loopback::ServerLimits;
use crate::runtimes::{Endpoint, EndpointSource, RunEvent};
use crate::secrets::Provider;
use crate::store::Store;

pub use lineage::KEYFRAME_EVERY;
pub use record::{RelayedRequest, MAX_STORED_BODY_BYTES, MAX_STORED_RUN_BYTES};
pub use server::{CLIENT_RETRIES_HEADER, MAX_REQUESTS_AT_ONCE, MAX_REQUEST_BYTES};
pub use upstream::{check_upstream_url, upstream_client, upstream_url};
pub use usage::{RequestUsage, UsageScanner};

/// Where the relay sends a provider's requests, and the key it adds. The engine's source is
/// Settings and the keychain ([`crate::secrets::Secrets`]); tests give a fake server and key.
pub trait Upstream: Send + Sync {
    fn upstream(&self, provider: Provider) -> Result<Endpoint>;
}

impl Upstream for crate::secrets::Secrets {
    fn upstream(&self, provider: Provider) -> Result<Endpoint> {
        let base_url = self.base_url(provider)?.ok_or_else(|| {
            Error::InvalidInput(format!("Set a base URL for {} in Settings > API keys.", provider.label()))
        })?;
        Ok(Endpoint { base_url, api_key: self.api_key(provider)? })
    }
}

/// What one run's requests are recorded under.
pub(crate) struct RunLog {
    pub(crate) run_id: String,
    /// The next request's number within the run, in order of arrival.
    pub(crate) next_seq: AtomicU32,
    /// Compressed body bytes stored for the run so far (bounded by [`MAX_STORED_RUN_BYTES`]).
    pub(crate) stored_bytes: AtomicU64,
    /// Requests in flight: from their arrival until their answer has ended (or broke off).
    pub(crate) in_flight: AtomicU32,
    /// Where the run's events go while it is driven: a retry of one of its requests is said there.
    retry_events: Mutex<Option<mpsc::UnboundedSender<RunEvent>>>,
    /// Told each time one of its requests with usage is recorded (and so counted by the spend),
    /// while the run is driven: its budgets are checked there.
    recorded: Mutex<Option<mpsc::UnboundedSender<RecordedCall>>>,
    /// Answers ended whose recording has not yet been seen by the run's driver (see
    /// [`RecordedCall`]); the run's next request waits for them, so a budget the last call spent
    /// stops the run before another call is forwarded.
    unsettled: AtomicU32,
    settled: tokio::sync::Notify,
    /// Why the run may call the model no more (its driver stopped it for a budget): its
    /// requests are refused with this.
    refused: Mutex<Option<String>>,
    /// The agent and conversation of the run, read from the store at its first record (`None`:
    /// the store holds no such run; its requests are stored whole).
    pub(crate) lineage: std::sync::OnceLock<Option<lineage::LineageKey>>,
}

impl RunLog {
    /// Says `message` in the run's Activity, when someone listens (a run being driven).
    pub(crate) fn warn(&self, message: String) {
        let events = self.retry_events.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(events) = events.as_ref() {
            let _ = events.send(RunEvent::Warning { message });
        }
    }

    /// One of the run's requests was recorded with its usage: the driver, if one listens, sees
    /// `call` (and settles it when done with it); otherwise it is settled here.
    pub(crate) fn recorded(&self, call: RecordedCall) {
        let recorded = self.recorded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(recorded) = recorded.as_ref() {
            let _ = recorded.send(call);
        }
    }

    /// An answer of the run has ended: it is unsettled until its [`RecordedCall`] is dropped.
    pub(crate) fn answer_ended(self: &Arc<Self>) -> RecordedCall {
        self.unsettled.fetch_add(1, Ordering::AcqRel);
        RecordedCall(self.clone())
    }

    /// Waits until every ended answer of the run is recorded and seen by its driver (at most
    /// `limit`: a driver that never reads does not hold the run's calls for ever).
    pub(crate) async fn settle(&self, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let settled = self.settled.notified();
            tokio::pin!(settled);
            settled.as_mut().enable();
            if self.unsettled.load(Ordering::Acquire) == 0 {
                return;
            }
            if tokio::time::timeout_at(deadline, settled).await.is_err() {
                return;
            }
        }
    }

    /// Why the run's requests are refused, once its driver stopped it.
    pub(crate) fn refused(&self) -> Option<String> {
        self.refused.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// One ended answer of a run, on its way to being recorded and seen by the run's driver (the
/// budgets are checked then). Dropped, it is settled: the run's next request may go.
pub struct RecordedCall(Arc<RunLog>);

impl Drop for RecordedCall {
    fn drop(&mut self) {
        if self.0.unsettled.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.settled.notify_waiters();
        }
    }
}

/// What a token allows.
#[derive(Clone)]
pub(crate) struct Grant {
    pub(crate) provider: Provider,
    pub(crate) run: Arc<RunLog>,
    /// Set for a lasting grant (see [`EndpointSource::lasting_endpoint`]).
    holder: Option<String>,
    /// Where its requests go and the key they get, read (keychain, Settings) when granted, so a
    /// model call costs no lookup. A lasting grant is granted again every turn.
    pub(crate) upstream: Endpoint,
}

#[derive(Default)]
struct Grants {
    by_token: HashMap<String, Grant>,
    /// A holder's lasting token.
    lasting: HashMap<String, String>,
    /// Runs with a token, so every grant of one run shares its numbering and budget.
    runs: HashMap<String, Arc<RunLog>>,
}

pub struct Relay {
    addr: SocketAddr,
    shared: Arc<server::Shared>,
    /// Dropped with the relay: the server stops, its connections end.
    _stop: tokio::sync::watch::Sender<bool>,
}

impl Relay {
    /// Binds 127.0.0.1 on a free port and serves on `handle`'s runtime, with the default bounds.
    pub fn start(store: Arc<Store>, upstream: Arc<dyn Upstream>, handle: &tokio::runtime::Handle) -> Result<Arc<Self>> {
        Self::start_with(store, upstream, handle, ServerLimits::default())
    }

    /// [`Relay::start`] with the server's bounds (the header timeout, connections at once).
    pub fn start_with(
        store: Arc<Store>,
        upstream: Arc<dyn Upstream>,
        handle: &tokio::runtime::Handle,
        limits: ServerLimits,
    ) -> Result<Arc<Self>> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
            .map_err(|e| Error::io("Cannot open the model relay on 127.0.0.1", e))?;
        listener.set_nonblocking(true).map_err(|e| Error::io("Cannot set up the model relay", e))?;
        let addr = listener.local_addr().map_err(|e| Error::io("Cannot set up the model relay", e))?;
        let shared = Arc::new(server::Shared {
            store,
            upstream,
            client: upstream_client(),
            grants: Mutex::new(Grants::default()),
            handle: handle.clone(),
            retry_waits: Mutex::new(crate::runtimes::native::http::RETRY_WAITS.to_vec()),
            lineages: lineage::Lineages::default(),
        });
        let (stop, stopped) = tokio::sync::watch::channel(false);
        handle.spawn(server::serve(listener, shared.clone(), limits, stopped));
        Ok(Arc::new(Self { addr, shared, _stop: stop }))
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The base URL a client of `provider` is given: Anthropic clients append `/v1/messages`
    /// themselves; OpenAI-style clients expect a base ending in `/v1`.
    pub fn base_url(&self, provider: Provider) -> String {
        match provider {
            Provider::Anthropic => format!("{}/{}", self.url(), provider.as_str()),
            other => format!("{}/{}/v1", self.url(), other.as_str()),
        }
    }

    /// A token for run `run_id` to call `provider` with, valid until [`Relay::revoke`]. Fails,
    /// with the fix, when the provider cannot be called (no base URL, no key).
    pub fn grant(&self, run_id: &str, provider: Provider) -> Result<Endpoint> {
        let upstream = callable_upstream(self.shared.upstream.as_ref(), provider)?;
        let token = new_token();
        let mut grants = self.grants();
        let run = run_log(&mut grants, run_id);
        grants.by_token.insert(token.clone(), Grant { provider, run, holder: None, upstream });
        drop(grants);
        self.mark_relayed(run_id);
        // The run and provider, never the token.
        tracing::debug!(%run_id, provider = provider.as_str(), "a relay token was granted");
        Ok(Endpoint { base_url: self.base_url(provider), api_key: Some(token) })
    }

    /// The same token for `holder` every time; its requests count for `run_id` (and use the
    /// key of now) from this grant on.
    pub fn grant_lasting(&self, holder: &str, run_id: &str, provider: Provider) -> Result<Endpoint> {
        let upstream = callable_upstream(self.shared.upstream.as_ref(), provider)?;
        let mut grants = self.grants();
        let run = run_log(&mut grants, run_id);
        let token = match grants.lasting.get(holder) {
            Some(token) => token.clone(),
            None => {
                let token = new_token();
                grants.lasting.insert(holder.to_owned(), token.clone());
                token
            }
        };
        grants.by_token.insert(token.clone(), Grant { provider, run, holder: Some(holder.to_owned()), upstream });
        drop(grants);
        self.mark_relayed(run_id);
        Ok(Endpoint { base_url: self.base_url(provider), api_key: Some(token) })
    }

    /// Forgets the last bodies of conversations nothing was recorded in since `cutoff` (kept so
    /// that the next request is stored as what it adds; it is stored whole instead): the bytes
    /// given back.
    pub fn forget_unused_since(&self, cutoff: std::time::Instant) -> usize {
        self.shared.lineages.forget_unused_since(cutoff)
    }

    /// Ends every token of `run_id`. A lasting token granted for it stops working too, until its
    /// holder's next run grants it again: a Gateway (or anything its tools left running in it)
    /// cannot call the model between runs with the token in its configuration.
    pub fn revoke(&self, run_id: &str) {
        let mut grants = self.grants();
        grants.by_token.retain(|_, g| g.run.run_id != run_id);
        grants.runs.remove(run_id);
    }

    /// Ends `holder`'s lasting token (its process is gone for good).
    pub fn release(&self, holder: &str) {
        let mut grants = self.grants();
        if let Some(token) = grants.lasting.remove(holder) {
            grants.by_token.remove(&token);
        }
    }

    /// A brief upstream failure is sent again after each of `waits` (tests use short ones).
    pub fn set_retry_waits(&self, waits: Vec<Duration>) {
        *self.shared.retry_waits.lock().unwrap_or_else(|p| p.into_inner()) = waits;
    }

    /// While run `run_id` is driven, each retry of one of its requests is said on `events` (a
    /// warning in its Activity). Forgotten when the run's tokens are revoked.
    pub fn report_retries_to(&self, run_id: &str, events: mpsc::UnboundedSender<RunEvent>) {
        let run = run_log(&mut self.grants(), run_id);
        *run.retry_events.lock().unwrap_or_else(|p| p.into_inner()) = Some(events);
    }

    /// While run `run_id` is driven, each of its requests recorded with usage (counted by the
    /// spend, in the same transaction) is told on `recorded`: the check of its budgets "after
    /// every model call". Forgotten when the run's tokens are revoked.
    /// The run's next request waits until the driver has dropped the [`RecordedCall`] it got,
    /// so call [`Relay::refuse_calls`] before dropping it to stop the run's calls.
    pub fn report_recorded_to(&self, run_id: &str, recorded: mpsc::UnboundedSender<RecordedCall>) {
        let run = run_log(&mut self.grants(), run_id);
        *run.recorded.lock().unwrap_or_else(|p| p.into_inner()) = Some(recorded);
    }

    /// Run `run_id` calls the model no more: its requests are refused with `why` (the run is
    /// stopping; a request already on its way gets this instead of a further answer).
    pub fn refuse_calls(&self, run_id: &str, why: String) {
        let run = run_log(&mut self.grants(), run_id);
        *run.refused.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
    }

    /// Whether run `run_id` holds a per-run token (ended runs hold none).
    pub fn has_grant(&self, run_id: &str) -> bool {
        self.grants().by_token.values().any(|g| g.holder.is_none() && g.run.run_id == run_id)
    }

    /// Whether `holder` (an agent whose Gateway outlives runs) still holds a lasting token.
    pub fn has_lasting_grant(&self, holder: &str) -> bool {
        self.grants().lasting.contains_key(holder)
    }

    /// The requests run `run_id` sent through the relay, in order, bodies decompressed.
    pub fn requests(&self, run_id: &str) -> Result<Vec<RelayedRequest>> {
        self.shared.store.read(|conn| record::requests(conn, run_id))
    }

    /// From now on the relay counts run `run_id`'s spend, and its CLI's own usage reports are
    /// not counted again (`clawboo_spend`). A failure is logged: the run still works, and at
    /// worst its usage is counted twice.
    fn mark_relayed(&self, run_id: &str) {
        if let Err(e) = self.shared.store.write(|tx| clawboo_spend::record::mark_relayed(tx, run_id)) {
            tracing::warn!(%run_id, error = %e, "could not note that the relay counts a run's spend");
        }
    }

    fn grants(&self) -> MutexGuard<'_, Grants> {
        self.shared.grants()
    }
}

fn run_log(grants: &mut Grants, run_id: &str) -> Arc<RunLog> {
    grants
        .runs
        .entry(run_id.to_owned())
        .or_insert_with(|| {
            Arc::new(RunLog {
                run_id: run_id.to_owned(),
                next_seq: AtomicU32::new(1),
                stored_bytes: AtomicU64::new(0),
                in_flight: AtomicU32::new(0),
                retry_events: Mutex::new(None),
                recorded: Mutex::new(None),
                unsettled: AtomicU32::new(0),
                settled: tokio::sync::Notify::new(),
                refused: Mutex::new(None),
                lineage: std::sync::OnceLock::new(),
            })
        })
        .clone()
}

/// 256 random bits (two v4 UUIDs come from the OS's random source).
fn new_token() -> String {
    format!("clawboo-relay-{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

/// Where `provider`'s requests go and their key; fails early, with the fix, when it cannot be
/// called: no base URL, no key.
fn callable_upstream(upstream: &dyn Upstream, provider: Provider) -> Result<Endpoint> {
    let endpoint = upstream.upstream(provider)?;
    let has_key = endpoint.api_key.as_deref().is_some_and(|k| !k.trim().is_empty());
    if !has_key && provider != Provider::Custom {
        return Err(Error::MissingApiKey(format!("Add an {} API key in Settings > API keys.", provider.label())));
    }
    Ok(endpoint)
}

impl EndpointSource for Relay {
    fn endpoint(&self, provider: Provider, run_id: &str) -> Result<Endpoint> {
        self.grant(run_id, provider)
    }

    fn lasting_endpoint(&self, provider: Provider, holder: &str, run_id: &str) -> Result<Endpoint> {
        self.grant_lasting(holder, run_id, provider)
    }

    /// Native, the app's own code, reaches the relay without the loopback hop; its requests
    /// still carry their run's token and are checked, recorded and counted as any other.
    fn in_process(&self, endpoint: &Endpoint) -> Option<Arc<dyn crate::runtimes::InProcessRoute>> {
        let ours = endpoint.base_url.strip_prefix(&self.url()).is_some_and(|rest| rest.starts_with('/'));
        ours.then(|| Arc::new(server::InProcess(self.shared.clone())) as Arc<dyn crate::runtimes::InProcessRoute>)
    }

    fn can_serve(&self, provider: Provider) -> Result<bool> {
        match callable_upstream(self.shared.upstream.as_ref(), provider) {
            Ok(_) => Ok(true),
            Err(Error::MissingApiKey(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }
}
