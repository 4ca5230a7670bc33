//! The local API's HTTP/1.1 server: every request is checked (Host, then the bearer token) before
//! it is routed; answers and errors are JSON, errors as `{"error": {"code", "message"}}`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde::Serialize;
use tokio::sync::watch;

use super::runs::{self, StartRequest};
use super::{follow, token, LocalApiParts};
use crate::error::{Error, ErrorCode};
use crate::loopback;

/// A bigger request body is refused (413): a task is at most 20,000 characters.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

pub(super) type Body = BoxBody<Bytes, Infallible>;

pub(super) struct Shared {
    pub(super) parts: Arc<LocalApiParts>,
    pub(super) addr: SocketAddr,
    pub(super) token: Arc<Mutex<String>>,
}

/// Serves until `stop`; `_ended` is dropped after the listener, so whoever holds its receiver
/// knows when the port is closed.
pub(super) async fn serve(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    stop: watch::Receiver<bool>,
    _ended: std::sync::mpsc::Sender<()>,
) {
    let limits = shared.parts.server_limits;
    // Switching the API off ends its connections too (event streams included).
    loopback::serve("the local API", listener, limits, stop, move |request| respond(shared.clone(), request)).await;
}

/// A refusal or a failure, as JSON.
pub(super) struct ApiError {
    status: StatusCode,
    code: String,
    message: String,
    allow: Option<&'static str>,
}

impl ApiError {
    fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        Self { status, code: code.to_owned(), message: message.into(), allow: None }
    }

    fn method_not_allowed(allow: &'static str) -> Self {
        let mut e = Self::new(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed", format!("Use {allow} here."));
        e.allow = Some(allow);
        e
    }

    fn into_response(self) -> Response<Body> {
        let body = serde_json::json!({"error": {"code": self.code, "message": self.message}});
        let mut response = json_response(self.status, &body);
        if let Some(allow) = self.allow {
            response.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        let code = e.code();
        let status = match code {
            ErrorCode::InvalidInput | ErrorCode::InvalidHandle => StatusCode::BAD_REQUEST,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::Conflict | ErrorCode::RunNotActive | ErrorCode::DuplicateHandle => StatusCode::CONFLICT,
            ErrorCode::RuntimeNotFound
            | ErrorCode::RuntimeProbeFailed
            | ErrorCode::MissingApiKey
            | ErrorCode::SignInMissing
            | ErrorCode::Git
            | ErrorCode::WorktreeTampered
            | ErrorCode::ContextTooLarge => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::KeychainUnavailable | ErrorCode::Keychain | ErrorCode::EngineUnavailable => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let code = serde_json::to_value(code).ok().and_then(|v| v.as_str().map(str::to_owned));
        Self { status, code: code.unwrap_or_else(|| "internal".into()), message: e.to_string(), allow: None }
    }
}

pub(super) fn json_response<T: Serialize>(status: StatusCode, value: &T) -> Response<Body> {
    let body = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn respond(shared: Arc<Shared>, request: Request<Incoming>) -> Response<Body> {
    match handle(shared, request).await {
        Ok(response) => response,
        Err(e) => e.into_response(),
    }
}

/// The Host must name this machine and the port: a page on another site that resolves its own
/// name to 127.0.0.1 (DNS rebinding) still sends its own name.
fn host_allowed(headers: &HeaderMap, addr: SocketAddr) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|v| v.to_str().ok()) else { return false };
    let host = host.trim();
    let port = addr.port();
    host.eq_ignore_ascii_case(&format!("127.0.0.1:{port}"))
        || host.eq_ignore_ascii_case(&format!("localhost:{port}"))
        || host == addr.to_string()
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let auth = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, value) = auth.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then_some(value.trim()).filter(|v| !v.is_empty())
}

async fn handle(shared: Arc<Shared>, request: Request<Incoming>) -> Result<Response<Body>, ApiError> {
    if !host_allowed(request.headers(), shared.addr) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden_host",
            format!("The Host header must be 127.0.0.1:{0} or localhost:{0}.", shared.addr.port()),
        ));
    }
    let authorized = bearer(request.headers()).is_some_and(|given| {
        let expected = shared.token.lock().unwrap_or_else(|p| p.into_inner()).clone();
        token::same(given, &expected)
    });
    if !authorized {
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "Send Authorization: Bearer <token>, with the token from Clawboo's Settings > Local API.",
        ));
    }
    let path = request.uri().path().to_owned();
    let query = request.uri().query().unwrap_or_default().to_owned();
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').skip(1).collect();
    let method = request.method().clone();
    let parts = shared.parts.clone();
    match segments.as_slice() {
        ["api", "runtimes", agent, "run"] => {
            if method != Method::POST {
                return Err(ApiError::method_not_allowed("POST"));
            }
            let agent = decode(agent);
            let body = read_body(request).await?;
            let start: StartRequest = serde_json::from_slice(&body).map_err(|e| {
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "invalid_input",
                    format!(
                        "The body must be JSON like {{\"task\": \"…\", \"title\"?: \"…\", \"disableMemoryAutoInject\"?: true, \
                         \"teamId\"?: \"…\"}}: {e}"
                    ),
                )
            })?;
            let started = blocking(move || runs::start(&parts, &agent, start)).await?;
            let status = if started.queued { StatusCode::ACCEPTED } else { StatusCode::CREATED };
            let mut response = json_response(status, &started);
            if let Ok(location) = HeaderValue::from_str(&format!("/api/runs/{}", started.run_id)) {
                response.headers_mut().insert(header::LOCATION, location);
            }
            Ok(response)
        }
        ["api", "runs"] => {
            if method != Method::GET {
                return Err(ApiError::method_not_allowed("GET"));
            }
            let limit = match query_value(&query, "limit") {
                Some(raw) => raw.parse::<u32>().ok().filter(|n| *n >= 1).ok_or_else(|| {
                    ApiError::new(
                        StatusCode::BAD_REQUEST,
                        "invalid_input",
                        format!("limit is a number from 1 to {}.", runs::MAX_LIST),
                    )
                })?,
                None => runs::DEFAULT_LIST,
            };
            let list = blocking(move || runs::list(&parts, limit)).await?;
            Ok(json_response(StatusCode::OK, &serde_json::json!({ "runs": list })))
        }
        ["api", "runs", run_id] => {
            if method != Method::GET {
                return Err(ApiError::method_not_allowed("GET"));
            }
            let run_id = decode(run_id);
            let run = blocking(move || runs::get(&parts, &run_id, true)).await?;
            Ok(json_response(StatusCode::OK, &run))
        }
        ["api", "runs", run_id, "events"] => {
            if method != Method::GET {
                return Err(ApiError::method_not_allowed("GET"));
            }
            let run_id = decode(run_id);
            let wants_stream = request
                .headers()
                .get(header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|a| a.contains("text/event-stream"))
                || query_value(&query, "follow").is_some_and(|v| matches!(v, "1" | "true" | "yes"));
            if wants_stream {
                let run = {
                    let (parts, run_id) = (parts.clone(), run_id.clone());
                    blocking(move || runs::get(&parts, &run_id, false)).await?
                };
                return Ok(follow::stream(parts, run));
            }
            let (run, events) = blocking(move || follow::stored(&parts, &run_id)).await?;
            Ok(json_response(StatusCode::OK, &serde_json::json!({ "run": run, "events": events })))
        }
        ["api", "runs", run_id, "cancel"] => {
            if method != Method::POST {
                return Err(ApiError::method_not_allowed("POST"));
            }
            let run_id = decode(run_id);
            let runner = parts.runner.clone();
            let run = blocking(move || runs::cancel(&parts, &runner, &run_id)).await?;
            Ok(json_response(StatusCode::ACCEPTED, &run))
        }
        _ => Err(ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("No route {method} {path}."))),
    }
}

async fn read_body(request: Request<Incoming>) -> Result<Bytes, ApiError> {
    let body = Limited::new(request.into_body(), MAX_REQUEST_BYTES).collect().await.map_err(|e| {
        if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() {
            ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", "The request body is over 64 KiB.")
        } else {
            ApiError::new(StatusCode::BAD_REQUEST, "invalid_input", format!("The request body broke off: {e}"))
        }
    })?;
    Ok(body.to_bytes())
}

/// Runs blocking engine work (SQLite, the keychain) off the async workers.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> crate::error::Result<T> + Send + 'static,
) -> Result<T, ApiError> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result.map_err(ApiError::from),
        Err(e) => Err(ApiError::from(Error::Internal(format!("a request's work failed: {e}")))),
    }
}

/// `key`'s value in a query string (`a=1&b=2`), the first one.
fn query_value<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// A path segment with `%XX` escapes decoded (`%40worker` → `@worker`); bad escapes stay as they are.
fn decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_decoded() {
        assert_eq!(decode("%40worker"), "@worker");
        assert_eq!(decode("plain"), "plain");
        assert_eq!(decode("bad%4"), "bad%4");
        assert_eq!(decode("bad%zz"), "bad%zz");
    }

    #[test]
    fn query_values_are_found() {
        assert_eq!(query_value("limit=5&follow=1", "follow"), Some("1"));
        assert_eq!(query_value("follow", "follow"), Some(""));
        assert_eq!(query_value("limit=5", "follow"), None);
    }

    #[test]
    fn only_this_machine_with_the_port_is_a_good_host() {
        let addr: SocketAddr = "127.0.0.1:4321".parse().unwrap();
        let headers = |host: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
            h
        };
        assert!(host_allowed(&headers("127.0.0.1:4321"), addr));
        assert!(host_allowed(&headers("localhost:4321"), addr));
        for bad in ["evil.example:4321", "127.0.0.1", "localhost:80", "127.0.0.1:4322", "localhost.evil.example:4321"] {
            assert!(!host_allowed(&headers(bad), addr), "{bad}");
        }
        assert!(!host_allowed(&HeaderMap::new(), addr), "no Host at all");
    }
}
