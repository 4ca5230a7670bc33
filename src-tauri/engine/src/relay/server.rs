//! The relay's HTTP/1.1 server on 127.0.0.1: check the token, forward with the key, stream the
//! answer back as it arrives, record the body and the usage once the answer has ended.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode};
use serde_json::json;
use tokio::sync::watch;

use super::record::{self, Entry};
use super::upstream::{allowed_path, check_upstream_url, upstream_url};
use super::usage::UsageScanner;
use super::{Grant, Grants, RunLog, Upstream};
use crate::loopback::{self, ServerLimits};
use crate::secrets::Provider;
use crate::store::Store;

/// A bigger request body is refused (413): far above any model request.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024 * 1024;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type Body = UnsyncBoxBody<Bytes, BoxError>;

pub(crate) struct Shared {
    pub(crate) store: Arc<Store>,
    pub(crate) upstream: Arc<dyn Upstream>,
    pub(crate) client: reqwest::Client,
    pub(crate) grants: Mutex<Grants>,
    pub(crate) handle: tokio::runtime::Handle,
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

    fn into_response(self) -> Response<Body> {
        let body = json!({"type": "error", "error": {"type": self.kind, "message": self.message}}).to_string();
        let mut response = Response::new(Full::new(Bytes::from(body)).map_err(|never| match never {}).boxed_unsync());
        *response.status_mut() = self.status;
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        response
    }
}

async fn respond(shared: &Arc<Shared>, request: Request<Incoming>) -> Response<Body> {
    match forward(shared, request).await {
        Ok(response) => response,
        Err(refusal) => refusal.into_response(),
    }
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
    &["host", "authorization", "x-api-key", "proxy-authorization", "cookie", "accept-encoding"];

fn grant_for(shared: &Shared, token: &str) -> Option<Grant> {
    shared.grants().by_token.get(token).cloned()
}

async fn forward(shared: &Arc<Shared>, request: Request<Incoming>) -> Result<Response<Body>, Refusal> {
    let (parts, body) = request.into_parts();
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
    let body = Limited::new(body, MAX_REQUEST_BYTES).collect().await.map_err(|e| {
        if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() {
            Refusal::new(StatusCode::PAYLOAD_TOO_LARGE, "request_too_large", "The request body is over 64 MiB.")
        } else {
            Refusal::new(StatusCode::BAD_REQUEST, "invalid_request_error", format!("The request body broke off: {e}"))
        }
    })?;
    let body = body.to_bytes();
    let seq = grant.run.next_seq.fetch_add(1, Ordering::Relaxed);
    let at = crate::chat::now_ms();

    let endpoint = &grant.upstream;
    let query = parts.uri.query();
    let url = upstream_url(provider, &endpoint.base_url, rest, query);
    let url = check_upstream_url(&url).map_err(|m| Refusal::new(StatusCode::BAD_GATEWAY, "api_error", m))?;

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
    let sent = shared.client.request(parts.method.clone(), url).headers(headers).body(body.clone()).send().await;
    let answer = sent.map_err(|e| {
        Refusal::new(
            StatusCode::BAD_GATEWAY,
            "api_error",
            format!("Clawboo's model relay could not reach {host}: {}", crate::native::http::chain(&e)),
        )
    })?;

    let status = answer.status();
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
        drop(Tap::new(shared.clone(), grant.run, entry, None));
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
    let mut tap = Tap::new(shared.clone(), grant.run, entry, scanner);
    let stream = answer.bytes_stream().map(move |chunk| {
        if let Ok(bytes) = &chunk {
            tap.push(bytes);
        }
        chunk.map(Frame::data).map_err(BoxError::from)
    });
    let mut response = Response::new(StreamBody::new(stream).boxed_unsync());
    *response.status_mut() = status;
    *response.headers_mut() = response_headers;
    Ok(response)
}

/// Watches the answer pass and stores the request when the answer ends, breaks off, or the
/// client goes away (whichever drops it).
struct Tap {
    shared: Arc<Shared>,
    run: Arc<RunLog>,
    entry: Option<Entry>,
    scanner: Option<UsageScanner>,
}

impl Tap {
    fn new(shared: Arc<Shared>, run: Arc<RunLog>, entry: Entry, scanner: Option<UsageScanner>) -> Self {
        Self { shared, run, entry: Some(entry), scanner }
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
        let (store, run) = (self.shared.store.clone(), self.run.clone());
        // Compressing and writing block: off the async workers.
        self.shared.handle.spawn_blocking(move || {
            if let Err(e) = record::store(&store, &run, entry) {
                eprintln!("clawboo: could not record a model request of run {}: {e}", run.run_id);
            }
        });
    }
}
