//! The relay's HTTP/1.1 server on 127.0.0.1: check the token, forward with the key, stream the
//! answer back as it arrives, record the body and the usage once the answer has ended.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Body as _, Frame, Incoming};
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode};
use serde_json::json;
use tokio::sync::watch;

use super::record::{self, Entry};
use super::upstream::{allowed_path, check_upstream_url, upstream_url};
use super::usage::UsageScanner;
use super::{Grant, Grants, RunLog, Upstream};
use crate::loopback::{self, ServerLimits};
use crate::runtimes::InProcessRoute;
use crate::secrets::Provider;
use crate::store::Store;

/// A bigger request body is refused (413): far above any model request (a long conversation with
/// a few images is a few MiB).
pub const MAX_REQUEST_BYTES: usize = 32 * 1024 * 1024;
pub use crate::runtimes::native::http::CLIENT_RETRIES_HEADER;
/// A run's requests in flight at once (its tokens together); one more is refused (429).
pub const MAX_REQUESTS_AT_ONCE: u32 = 8;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Body = UnsyncBoxBody<Bytes, BoxError>;

pub(crate) struct Shared {
    pub(crate) store: Arc<Store>,
    pub(crate) upstream: Arc<dyn Upstream>,
    pub(crate) client: reqwest::Client,
    pub(crate) grants: Mutex<Grants>,
    pub(crate) handle: tokio::runtime::Handle,
    /// A brief upstream failure is sent again after each of these.
    pub(crate) retry_waits: Mutex<Vec<std::time::Duration>>,
    /// The last body stored of each recent conversation (requests are stored as what they add).
    pub(crate) lineages: super::lineage::Lineages,
}

impl Shared {
    pub(crate) fn grants(&self) -> MutexGuard<'_, Grants> {
        // A panic elsewhere while holding the lock leaves the map itself consistent.
        self.grants.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

pub(crate) async fn serve(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    limits: ServerLimits,
    stop: watch::Receiver<bool>,
) {
    loopback::serve("the model relay", listener, limits, stop, move |request| {
        let shared = shared.clone();
        async move { respond(&shared, request).await }
    })
    .await;
}

/// A refusal, as a JSON error both Anthropic and OpenAI clients read (`error.message`).
struct Refusal {
    status: StatusCode,
    kind: &'static str,
    message: String,
}

impl Refusal {
    fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Self {
        Self { status, kind, message: message.into() }
    }

    /// Logged with its status and kind only: the message may quote the path, which a client
    /// could have given anything (a key in a query string).
    fn logged(self) -> Self {
        tracing::info!(status = self.status.as_u16(), kind = self.kind, "the model relay refused a request");
        self
    }

    fn into_response(self) -> Response<Body> {
        let body = json!({"type": "error", "error": {"type": self.kind, "message": self.message}}).to_string();
        let mut response = Response::new(Full::new(Bytes::from(body)).map_err(|never| match never {}).boxed_unsync());
        *response.status_mut() = self.status;
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        response
    }
}

async fn respond(shared: &Arc<Shared>, request: Request<Incoming>) -> Response<Body> {
    let (parts, mut body) = request.into_parts();
    match forward(shared, parts, RequestBody::Incoming(&mut body)).await {
        Ok(response) => response,
        Err(refusal) => {
            // A client still sending its body would otherwise meet a closed connection (a
            // broken pipe) instead of the refusal.
            drain(&mut body).await;
            refusal.logged().into_response()
        }
    }
}

/// The relay served inside the app's process (see [`InProcessRoute`]): a request goes through
/// the same [`forward`] as one over loopback, its answer streams back through the same tap.
pub(crate) struct InProcess(pub(crate) Arc<Shared>);

impl InProcessRoute for InProcess {
    fn send(
        &self,
        request: reqwest::Request,
        body: Bytes,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = reqwest::Response> + Send + 'static>> {
        let shared = self.0.clone();
        Box::pin(async move {
            let url = request.url();
            let target = match url.query() {
                Some(query) => format!("{}?{query}", url.path()),
                None => url.path().to_owned(),
            };
            let (mut parts, ()) = Request::new(()).into_parts();
            parts.method = request.method().clone();
            // A path no URI can hold is routed nowhere: `/` is refused as no route.
            parts.uri = target.parse().unwrap_or_default();
            parts.headers = request.headers().clone();
            let response = match forward(&shared, parts, RequestBody::InHand(body)).await {
                Ok(response) => response,
                Err(refusal) => refusal.logged().into_response(),
            };
            let (parts, body) = response.into_parts();
            let body = reqwest::Body::wrap_stream(body.into_data_stream());
            reqwest::Response::from(Response::from_parts(parts, body))
        })
    }
}

/// The most of a refused request's body read (and dropped) so its client gets the refusal; a
/// longer one is cut off by closing the connection.
const MAX_DRAINED_BYTES: u64 = 2 * MAX_REQUEST_BYTES as u64;

/// Reads what is left of `body` and drops it, up to [`MAX_DRAINED_BYTES`].
async fn drain(body: &mut Incoming) {
    if body.size_hint().lower() > MAX_DRAINED_BYTES {
        return;
    }
    let mut read = 0u64;
    while let Some(Ok(frame)) = body.frame().await {
        read += frame.data_ref().map_or(0, |data| data.len() as u64);
        if read > MAX_DRAINED_BYTES {
            return;
        }
    }
}

/// A request's body: still arriving over loopback, or in hand (a request made in this process).
enum RequestBody<'a> {
    Incoming(&'a mut Incoming),
    InHand(Bytes),
}

impl RequestBody<'_> {
    /// The whole body, or why not: over [`MAX_REQUEST_BYTES`], or broken off.
    async fn read(self) -> Result<Bytes, Refusal> {
        match self {
            Self::Incoming(body) => read_body(body).await,
            Self::InHand(body) if body.len() > MAX_REQUEST_BYTES => Err(too_large()),
            Self::InHand(body) => Ok(body),
        }
    }
}

fn too_large() -> Refusal {
    Refusal::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "request_too_large",
        format!(
            "Clawboo's model relay: the request body is over {} MiB, the most it forwards.",
            MAX_REQUEST_BYTES / (1024 * 1024)
        ),
    )
}

/// The whole body, or why not: over [`MAX_REQUEST_BYTES`] (known from its declared length before
/// a byte is read), or broken off.
async fn read_body(body: &mut Incoming) -> Result<Bytes, Refusal> {
    let declared = body.size_hint().lower();
    if declared > MAX_REQUEST_BYTES as u64 {
        return Err(too_large());
    }
    // What it declares, up to 1 MiB ahead: a declared length alone reserves little.
    let mut read = Vec::with_capacity(declared.min(1 << 20) as usize);
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            Refusal::new(StatusCode::BAD_REQUEST, "invalid_request_error", format!("The request body broke off: {e}"))
        })?;
        if let Some(data) = frame.data_ref() {
            if read.len() + data.len() > MAX_REQUEST_BYTES {
                return Err(too_large());
            }
            read.extend_from_slice(data);
        }
    }
    Ok(Bytes::from(read))
}

/// `/<provider>/v1/<rest>` → (provider, rest).
fn split_path(path: &str) -> Option<(Provider, &str)> {
    let (prefix, rest) = path.strip_prefix('/')?.split_once('/')?;
    let rest = rest.strip_prefix("v1/")?;
    Some((Provider::parse(prefix)?, rest))
}

/// The token, wherever the provider's clients put it: `x-api-key` (Anthropic) or
/// `Authorization: Bearer` (both).
fn token(headers: &HeaderMap) -> Option<&str> {
    if let Some(key) = headers.get("x-api-key").and_then(|v| v.to_str().ok()) {
        return Some(key.trim());
    }
    let auth = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, value) = auth.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then_some(value.trim())
}

/// Hop-by-hop headers and the length (recomputed, or streamed): never passed either way.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "content-length",
];

/// Request headers never passed on besides [`HOP_BY_HOP`]: credentials (ours are added), the
/// host, and `accept-encoding` so the answer comes uncompressed and its usage can be read.
const DROPPED_REQUEST_HEADERS: &[&str] =
    &["host", "authorization", "x-api-key", "proxy-authorization", "cookie", "accept-encoding", CLIENT_RETRIES_HEADER];

/// How long a run's request waits for its last answer to be recorded and seen by the run's
/// driver (a store write and a budget check: milliseconds; bounded should the driver stall).
const SETTLE_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

fn grant_for(shared: &Shared, token: &str) -> Option<Grant> {
    shared.grants().by_token.get(token).cloned()
}

async fn forward(
    shared: &Arc<Shared>,
    parts: hyper::http::request::Parts,
    body: RequestBody<'_>,
) -> Result<Response<Body>, Refusal> {
    let unauthorized = |why: &str| {
        Refusal::new(StatusCode::UNAUTHORIZED, "authentication_error", format!("Clawboo's model relay: {why}"))
    };
    let token = token(&parts.headers).ok_or_else(|| unauthorized("no token (x-api-key or Authorization: Bearer)."))?;
    let grant =
        grant_for(shared, token).ok_or_else(|| unauthorized("this token is not valid (the run has ended?)."))?;
    let path = parts.uri.path();
    let Some((provider, rest)) = split_path(path) else {
        return Err(Refusal::new(StatusCode::NOT_FOUND, "not_found_error", format!("No relay route for {path}.")));
    };
    if provider != grant.provider {
        return Err(unauthorized(&format!("this token is for {}, not {}.", grant.provider.label(), provider.label())));
    }
    if !allowed_path(&parts.method, rest) {
        return Err(Refusal::new(
            StatusCode::NOT_FOUND,
            "not_found_error",
            format!("Clawboo's model relay forwards only the model APIs, not {} /v1/{rest}.", parts.method),
        ));
    }
    // The run's last answer is recorded and its budgets checked before another call goes.
    grant.run.settle(SETTLE_LIMIT).await;
    if let Some(why) = grant.run.refused() {
        return Err(Refusal::new(StatusCode::FORBIDDEN, "permission_error", format!("Clawboo's model relay: {why}")));
    }
    let slot = Slot::take(&grant.run).ok_or_else(|| {
        Refusal::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_error",
            format!(
                "Clawboo's model relay: a run has at most {MAX_REQUESTS_AT_ONCE} model requests in flight at once; \
                 send this one when one of them has finished."
            ),
        )
    })?;
    let body = body.read().await?;
    let seq = grant.run.next_seq.fetch_add(1, Ordering::Relaxed);
    let at = crate::vocab::clock::now_ms();

    let endpoint = &grant.upstream;
    let query = parts.uri.query();
    let url = upstream_url(provider, &endpoint.base_url, rest, query);
    let url = check_upstream_url(&url).map_err(|m| Refusal::new(StatusCode::BAD_GATEWAY, "api_error", m))?;

    let client_retries = parts.headers.contains_key(CLIENT_RETRIES_HEADER);
    let mut headers = parts.headers.clone();
    for name in HOP_BY_HOP.iter().chain(DROPPED_REQUEST_HEADERS) {
        headers.remove(*name);
    }
    if let Some(key) = endpoint.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        let (name, value) = match provider {
            Provider::Anthropic => (HeaderName::from_static("x-api-key"), key.to_owned()),
            _ => (header::AUTHORIZATION, format!("Bearer {key}")),
        };
        let mut value = HeaderValue::from_str(&value).map_err(|_| {
            Refusal::new(StatusCode::BAD_GATEWAY, "api_error", "The stored key has characters a header cannot carry.")
        })?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    let host = url.host_str().unwrap_or("?").to_owned();
    let retries = !client_retries;
    let answer = send_with_retries(shared, &grant.run, &parts.method, url, headers, &body, provider, retries).await;
    let answer = answer.map_err(|e| {
        Refusal::new(
            StatusCode::BAD_GATEWAY,
            "api_error",
            format!("Clawboo's model relay could not reach {host}: {}", crate::runtimes::native::http::chain(&e)),
        )
    })?;

    let status = answer.status();
    // The path without its query (never the headers: they carry the key).
    tracing::debug!(run_id = %grant.run.run_id, provider = provider.label(), path = rest, status = status.as_u16(), "relayed a model request");
    let path_and_query = match query {
        Some(query) => format!("/v1/{rest}?{query}"),
        None => format!("/v1/{rest}"),
    };
    let entry = Entry {
        seq,
        at,
        provider,
        method: parts.method.to_string(),
        path: path_and_query,
        status: status.as_u16(),
        body,
        usage: None,
    };
    let counts_usage = !matches!(rest, "messages/count_tokens") && !rest.starts_with("models");
    if status.is_redirection() {
        let to = answer.headers().get(header::LOCATION).and_then(|v| v.to_str().ok()).unwrap_or("?").to_owned();
        drop(Tap::new(shared.clone(), grant.run, entry, None, slot));
        return Err(Refusal::new(
            StatusCode::BAD_GATEWAY,
            "api_error",
            format!(
                "{} answered with a redirect (HTTP {status} to {to}); Clawboo does not follow redirects with a key. \
                 Check the base URL in Settings > API keys.",
                host
            ),
        ));
    }

    let mut response_headers = answer.headers().clone();
    for name in HOP_BY_HOP {
        response_headers.remove(*name);
    }
    let content_type = response_headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
    let scanner = counts_usage.then(|| UsageScanner::new(content_type));
    let tap = Tap::new(shared.clone(), grant.run, entry, scanner, slot);
    let stream = Tapped { answer: Box::pin(answer.bytes_stream()), tap: Some(tap) };
    let mut response = Response::new(StreamBody::new(stream).boxed_unsync());
    *response.status_mut() = status;
    *response.headers_mut() = response_headers;
    Ok(response)
}

/// Sends the request; a brief failure (429, 5xx, a connection cut) is sent again after each of
/// the relay's waits — nothing of the answer has reached the client yet —, each retry said in the
/// run's Activity. The last answer (or error) is what the client gets. Without `retries` (the
/// client retries itself), sent once.
#[allow(clippy::too_many_arguments)]
async fn send_with_retries(
    shared: &Shared,
    run: &RunLog,
    method: &hyper::Method,
    url: reqwest::Url,
    headers: HeaderMap,
    body: &Bytes,
    provider: Provider,
    retries: bool,
) -> reqwest::Result<reqwest::Response> {
    use crate::runtimes::native::http::{
        as_sentence, causes, connection_cut, is_transient, retry_after, seconds, status_error, MAX_RETRY_AFTER,
    };
    let waits = if retries { shared.retry_waits.lock().unwrap_or_else(|p| p.into_inner()).clone() } else { Vec::new() };
    let mut attempt = 0;
    loop {
        let sent =
            shared.client.request(method.clone(), url.clone()).headers(headers.clone()).body(body.clone()).send().await;
        let Some(wait) = waits.get(attempt).copied() else { return sent };
        let (why, asked) = match sent {
            Ok(answer) if is_transient(answer.status()) => {
                let status = answer.status();
                let asked = retry_after(answer.headers());
                let text = answer.text().await.unwrap_or_default();
                (status_error(provider.label(), status, &text), asked)
            }
            Err(e) if connection_cut(&e) => {
                (format!("The connection to {} broke: {}.", url.host_str().unwrap_or("?"), causes(&e)), None)
            }
            other => return other,
        };
        let wait = asked.map_or(wait, |asked| asked.min(MAX_RETRY_AFTER));
        attempt += 1;
        tracing::info!(run_id = %run.run_id, attempt, "the model relay retries a request the provider failed briefly");
        run.warn(format!(
            "{} The model relay tries again in {} ({attempt} of {}).",
            as_sentence(&why),
            seconds(wait),
            waits.len()
        ));
        tokio::time::sleep(wait).await;
    }
}

/// One of a run's [`MAX_REQUESTS_AT_ONCE`] places in flight, given back when dropped.
struct Slot(Arc<RunLog>);

impl Slot {
    fn take(run: &Arc<RunLog>) -> Option<Self> {
        let taken = run
            .in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < MAX_REQUESTS_AT_ONCE).then_some(n + 1));
        taken.ok().map(|_| Self(run.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The answer's body on its way to the client, through the [`Tap`]. The tap is dropped (the
/// request recorded, its slot given back) as soon as the answer ends, before the client can see
/// the end, so a client that sends its next request then finds the slot free.
struct Tapped<S> {
    answer: S,
    tap: Option<Tap>,
}

impl<S> futures_util::Stream for Tapped<S>
where
    S: futures_util::Stream<Item = reqwest::Result<Bytes>> + Unpin,
{
    type Item = Result<Frame<Bytes>, BoxError>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        let polled = self.answer.poll_next_unpin(cx);
        match &polled {
            std::task::Poll::Ready(Some(Ok(bytes))) => {
                if let Some(tap) = &mut self.tap {
                    tap.push(bytes);
                }
            }
            std::task::Poll::Ready(None | Some(Err(_))) => self.tap = None,
            std::task::Poll::Pending => {}
        }
        polled.map(|chunk| chunk.map(|chunk| chunk.map(Frame::data).map_err(BoxError::from)))
    }
}

/// Watches the answer pass and stores the request when the answer ends, breaks off, or the
/// client goes away (whichever drops it); dropped, it gives the run's slot back.
struct Tap {
    shared: Arc<Shared>,
    run: Arc<RunLog>,
    entry: Option<Entry>,
    scanner: Option<UsageScanner>,
    _slot: Slot,
}

impl Tap {
    fn new(shared: Arc<Shared>, run: Arc<RunLog>, entry: Entry, scanner: Option<UsageScanner>, slot: Slot) -> Self {
        Self { shared, run, entry: Some(entry), scanner, _slot: slot }
    }

    fn push(&mut self, bytes: &[u8]) {
        if let Some(scanner) = &mut self.scanner {
            scanner.push(bytes);
        }
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        let Some(mut entry) = self.entry.take() else { return };
        entry.usage = self.scanner.take().and_then(UsageScanner::finish);
        let (shared, run) = (self.shared.clone(), self.run.clone());
        // Counted before the client can see the answer end, so its next request waits for it.
        let call = run.answer_ended();
        // Compressing and writing block: off the async workers.
        self.shared.handle.spawn_blocking(move || {
            if let Err(e) = record::store(&shared.store, &shared.lineages, &run, entry, call) {
                tracing::warn!(run_id = %run.run_id, error = %e, "could not record a model request");
            }
        });
    }
}
