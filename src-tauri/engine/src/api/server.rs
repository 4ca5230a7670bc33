//! The local API's HTTP/1.1 server: an axum router served on the engine's shared loopback loop
//! ([`loopback::serve`]: the header-read timeout and the connection bound the model relay and the
//! tools bridge have too). Every request is checked (Host, then the bearer token) before it is
//! routed; answers and errors are JSON, errors as `{"error": {"code", "message"}}`.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{FromRequest, FromRequestParts, MatchedPath, Request, State};
use axum::handler::Handler;
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::request::Parts;
use axum::http::uri::{PathAndQuery, Uri};
use axum::http::{Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{self, MethodRouter};
use axum::Router;
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use serde::Serialize;
use tokio::sync::watch;
use tower::ServiceExt;

use super::runs::{self, StartRequest};
use super::{follow, token, LocalApiParts};
use crate::error::{Error, ErrorCode};
use crate::loopback;

/// A bigger request body is refused (413): a task is at most 20,000 characters.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

pub(super) struct Shared {
    pub(super) parts: Arc<LocalApiParts>,
    pub(super) addr: SocketAddr,
    pub(super) token: Arc<Mutex<String>>,
}

/// What the guard and the handlers are given.
type ApiState = Arc<Shared>;

/// Serves until `stop`; `_ended` is dropped after the listener, so whoever holds its receiver
/// knows when the port is closed.
pub(super) async fn serve(
    listener: std::net::TcpListener,
    shared: ApiState,
    stop: watch::Receiver<bool>,
    _ended: std::sync::mpsc::Sender<()>,
) {
    let limits = shared.parts.server_limits;
    let router = router(shared);
    // Switching the API off ends its connections too (event streams included).
    loopback::serve("the local API", listener, limits, stop, move |request| respond(router.clone(), request)).await;
}

/// The routes. A wrong method on a route is a 405 naming the right one; anything else a 404.
fn router(shared: ApiState) -> Router {
    Router::new()
        .route("/api/runtimes/{agent}/run", post_only(start_run))
        .route("/api/runs", get_only(list_runs))
        .route("/api/runs/{run_id}", get_only(get_run))
        .route("/api/runs/{run_id}/events", get_only(run_events))
        .route("/api/runs/{run_id}/cancel", post_only(cancel_run))
        .route("/api/search", get_only(search))
        .route("/api/chats", get_only(list_chats))
        .route("/api/chats/{chat_id}/messages", get_only(chat_messages))
        .route("/api/budgets", get_only(list_budgets))
        .route("/api/usage", get_only(usage))
        .fallback(no_route)
        // After the routes and the fallback, so it guards them all.
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .with_state(shared)
}

/// The path as sent, for the 404's message (the router sees it without trailing slashes).
#[derive(Clone)]
struct SentPath(String);

/// One request through the router, its path without trailing slashes (`/api/runs/` is
/// `/api/runs`, as it always was).
async fn respond(router: Router, mut request: axum::http::Request<hyper::body::Incoming>) -> Response {
    let sent = request.uri().path().to_owned();
    if let Some(uri) = without_trailing_slashes(request.uri()) {
        *request.uri_mut() = uri;
    }
    request.extensions_mut().insert(SentPath(sent));
    match router.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// `/api/runs/` routes as `/api/runs` (the query kept); None when there is nothing to trim.
fn without_trailing_slashes(uri: &Uri) -> Option<Uri> {
    let path = uri.path();
    let trimmed = match path.trim_end_matches('/') {
        "" => "/",
        trimmed => trimmed,
    };
    if trimmed == path {
        return None;
    }
    let path_and_query = match uri.query() {
        Some(query) => format!("{trimmed}?{query}"),
        None => trimmed.to_owned(),
    };
    let mut parts = uri.clone().into_parts();
    parts.path_and_query = Some(PathAndQuery::try_from(path_and_query).ok()?);
    Uri::from_parts(parts).ok()
}

/// Before any route: the Host must name this machine, then the token must be the current one.
async fn guard(State(shared): State<ApiState>, request: Request, next: Next) -> Response {
    if !host_allowed(request.headers(), shared.addr) {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            "forbidden_host",
            format!("The Host header must be 127.0.0.1:{0} or localhost:{0}.", shared.addr.port()),
        )
        .into_response();
    }
    let authorized = bearer(request.headers()).is_some_and(|given| {
        let expected = shared.token.lock().unwrap_or_else(|p| p.into_inner()).clone();
        token::same(given, &expected)
    });
    if !authorized {
        return ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "Send Authorization: Bearer <token>, with the token from Clawboo's Settings > Local API.",
        )
        .into_response();
    }
    next.run(request).await
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

/// `handler` for GET; any other method is a 405, HEAD too (axum would otherwise answer it with the
/// GET handler).
fn get_only<H: Handler<T, ApiState>, T: 'static>(handler: H) -> MethodRouter<ApiState> {
    routing::get(handler).head(wrong_method("GET")).fallback(wrong_method("GET"))
}

/// `handler` for POST; any other method is a 405.
fn post_only<H: Handler<T, ApiState>, T: 'static>(handler: H) -> MethodRouter<ApiState> {
    routing::post(handler).fallback(wrong_method("POST"))
}

/// The 405 for a route's other methods, naming the one it takes (in `Allow` too).
fn wrong_method(allow: &'static str) -> impl FnOnce() -> std::future::Ready<ApiError> + Clone + Send + Sync + 'static {
    move || std::future::ready(ApiError::method_not_allowed(allow))
}

/// The 404 for anything no route takes, naming the request as sent.
async fn no_route(method: Method, request: Request) -> ApiError {
    let path = match request.extensions().get::<SentPath>() {
        Some(SentPath(sent)) => sent.clone(),
        None => request.uri().path().to_owned(),
    };
    ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("No route {method} {path}."))
}

/// `POST /api/runtimes/:agent/run`: 201 when it runs, 202 when it waits for a free slot.
async fn start_run(
    State(shared): State<ApiState>,
    PathParam(agent): PathParam,
    StartBody(start): StartBody,
) -> Result<Response, ApiError> {
    let parts = shared.parts.clone();
    let started = blocking(move || runs::start(&parts, &agent, start)).await?;
    let status = if started.queued { StatusCode::ACCEPTED } else { StatusCode::CREATED };
    let mut response = json_response(status, &started);
    if let Ok(location) = HeaderValue::from_str(&format!("/api/runs/{}", started.run_id)) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// `GET /api/runs?limit=`: newest first.
async fn list_runs(State(shared): State<ApiState>, ListLimit(limit): ListLimit) -> Result<Response, ApiError> {
    let parts = shared.parts.clone();
    let list = blocking(move || runs::list(&parts, limit)).await?;
    Ok(json_response(StatusCode::OK, &serde_json::json!({ "runs": list })))
}

/// `GET /api/runs/:id`: the run with its report.
async fn get_run(State(shared): State<ApiState>, PathParam(run_id): PathParam) -> Result<Response, ApiError> {
    let parts = shared.parts.clone();
    let run = blocking(move || runs::get(&parts, &run_id, true)).await?;
    Ok(json_response(StatusCode::OK, &run))
}

/// `GET /api/runs/:id/events`: stored as JSON, or followed as server-sent events.
async fn run_events(
    State(shared): State<ApiState>,
    PathParam(run_id): PathParam,
    Follow(follow): Follow,
) -> Result<Response, ApiError> {
    let parts = shared.parts.clone();
    if follow {
        let run = {
            let (parts, run_id) = (parts.clone(), run_id.clone());
            blocking(move || runs::get(&parts, &run_id, false)).await?
        };
        return Ok(follow::stream(parts, run));
    }
    let (run, events) = blocking(move || follow::stored(&parts, &run_id)).await?;
    Ok(json_response(StatusCode::OK, &serde_json::json!({ "run": run, "events": events })))
}

/// `POST /api/runs/:id/cancel`: 202; a waiting run leaves the queue.
async fn cancel_run(State(shared): State<ApiState>, PathParam(run_id): PathParam) -> Result<Response, ApiError> {
    let parts = shared.parts.clone();
    let runner = parts.runner.clone();
    let run = blocking(move || runs::cancel(&parts, &runner, &run_id)).await?;
    Ok(json_response(StatusCode::ACCEPTED, &run))
}

/// `GET /api/search?q=…`: what the search everything palette finds for `q` (agents, teams,
/// rooms, chats, cards, routines, facts, then messages, best first). Any text is a valid query.
async fn search(State(shared): State<ApiState>, RequiredQuery(q): RequiredQuery<'q'>) -> Result<Response, ApiError> {
    let parts = shared.parts.clone();
    let text = q.clone();
    let found = blocking(move || parts.store.read(|c| crate::history::everything::search(c, &text))).await?;
    Ok(json_response(StatusCode::OK, &serde_json::json!({ "query": q, "results": found })))
}

/// `GET /api/chats?agent=…` (a handle or an id): that agent's one-to-one chats (id, title,
/// pinned, archived, last activity, message count), pinned first, then the most recently used.
async fn list_chats(
    State(shared): State<ApiState>,
    RequiredQuery(agent): RequiredQuery<'a'>,
) -> Result<Response, ApiError> {
    let parts = shared.parts.clone();
    let chats = blocking(move || {
        let agent = runs::find_agent(&parts, agent.trim_start_matches('@'))?;
        parts.store.read(|c| crate::history::chats::of_agent(c, &agent.id))
    })
    .await?;
    Ok(json_response(StatusCode::OK, &serde_json::json!({ "chats": chats })))
}

/// `GET /api/chats/:id/messages`: the chat's newest messages (up to 500), oldest first, and
/// whether older ones exist.
async fn chat_messages(State(shared): State<ApiState>, PathParam(chat_id): PathParam) -> Result<Response, ApiError> {
    let parts = shared.parts.clone();
    let (messages, has_older) = blocking(move || {
        parts
            .store
            .read(|c| crate::history::chats::messages(c, &chat_id))?
            .ok_or_else(|| crate::error::Error::NotFound(format!("Chat {chat_id}")))
    })
    .await?;
    Ok(json_response(StatusCode::OK, &serde_json::json!({ "messages": messages, "hasOlder": has_older })))
}

/// `GET /api/budgets`: every budget with what its period spent so far, the breakers' limits,
/// and the scopes paused now (agents and rooms a breaker paused, paused routines).
async fn list_budgets(State(shared): State<ApiState>) -> Result<Response, ApiError> {
    let Some(guard) = shared.parts.guard.clone() else {
        return Ok(json_response(StatusCode::OK, &serde_json::json!({ "budgets": [], "paused": [] })));
    };
    let (budgets, limits, paused) = blocking(move || Ok((guard.budgets()?, guard.limits()?, guard.paused()?))).await?;
    Ok(json_response(StatusCode::OK, &serde_json::json!({ "budgets": budgets, "limits": limits, "paused": paused })))
}

/// `GET /api/usage?scope=…&id=…&from=…&to=…`: one scope's tokens and money (see `usage`).
async fn usage(State(shared): State<ApiState>, uri: Uri) -> Result<Response, ApiError> {
    let parts = shared.parts.clone();
    let query = uri.query().unwrap_or_default().to_owned();
    let get = move |key: &str| query_value(&query, key).map(|v| decode(&v.replace('+', " ")));
    let usage = blocking(move || super::usage::answer(&parts, get)).await?;
    Ok(json_response(StatusCode::OK, &usage))
}

/// A query parameter a route needs, decoded (`%XX`, `+` as a space): `q` for `?q=`, `a` for
/// `?agent=` (const generics take a char, not a string). Missing or empty: a 400 naming it.
struct RequiredQuery<const NAME: char>(String);

impl<const NAME: char> RequiredQuery<NAME> {
    fn key() -> &'static str {
        match NAME {
            'q' => "q",
            _ => "agent",
        }
    }
}

impl<S: Send + Sync, const NAME: char> FromRequestParts<S> for RequiredQuery<NAME> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let key = Self::key();
        let raw = query_value(parts.uri.query().unwrap_or_default(), key).unwrap_or_default();
        let value = decode(&raw.replace('+', " "));
        if value.trim().is_empty() {
            let what = if key == "q" { "the text to search for" } else { "an agent's handle or id" };
            return Err(ApiError::new(StatusCode::BAD_REQUEST, "invalid_input", format!("Add ?{key}= with {what}.")));
        }
        Ok(Self(value))
    }
}

/// The route's one `{…}` segment (an agent's handle or id, a run's id) with `%XX` escapes
/// decoded. Never refused: bad escapes and bad UTF-8 are kept (lossily) and so name no agent or
/// run, where axum's `Path` would refuse them before the method or the body is looked at.
struct PathParam(String);

impl<S: Send + Sync> FromRequestParts<S> for PathParam {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let pattern = parts.extensions.get::<MatchedPath>().map(MatchedPath::as_str).unwrap_or_default();
        let segment = pattern.split('/').zip(parts.uri.path().split('/')).find(|(p, _)| p.starts_with('{'));
        match segment {
            Some((_, raw)) => Ok(Self(decode(raw))),
            None => Err(Error::Internal(format!("the route {pattern} has no parameter")).into()),
        }
    }
}

/// The body of a run to start: at most [`MAX_REQUEST_BYTES`], JSON, no unknown fields.
struct StartBody(StartRequest);

impl<S: Send + Sync> FromRequest<S> for StartBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, _: &S) -> Result<Self, ApiError> {
        let body = read_body(request.into_body()).await?;
        let start = serde_json::from_slice(&body).map_err(|e| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_input",
                format!(
                    "The body must be JSON like {{\"task\": \"…\", \"title\"?: \"…\", \"disableMemoryAutoInject\"?: true, \
                     \"teamId\"?: \"…\"}}: {e}"
                ),
            )
        })?;
        Ok(Self(start))
    }
}

async fn read_body(body: Body) -> Result<Bytes, ApiError> {
    let body = Limited::new(body, MAX_REQUEST_BYTES).collect().await.map_err(|e| {
        if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() {
            ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", "The request body is over 64 KiB.")
        } else {
            ApiError::new(StatusCode::BAD_REQUEST, "invalid_input", format!("The request body broke off: {e}"))
        }
    })?;
    Ok(body.to_bytes())
}

/// `?limit=`: 1 or more (the list caps it at [`runs::MAX_LIST`]); [`runs::DEFAULT_LIST`] without.
struct ListLimit(u32);

impl<S: Send + Sync> FromRequestParts<S> for ListLimit {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let Some(raw) = query_value(parts.uri.query().unwrap_or_default(), "limit") else {
            return Ok(Self(runs::DEFAULT_LIST));
        };
        match raw.parse::<u32>() {
            Ok(limit) if limit >= 1 => Ok(Self(limit)),
            _ => Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_input",
                format!("limit is a number from 1 to {}.", runs::MAX_LIST),
            )),
        }
    }
}

/// Whether the events are to be followed live: `Accept: text/event-stream`, or `?follow=1`
/// (`true`, `yes`).
struct Follow(bool);

impl<S: Send + Sync> FromRequestParts<S> for Follow {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let accepts_stream = parts
            .headers
            .get(header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|a| a.contains("text/event-stream"));
        let asked = query_value(parts.uri.query().unwrap_or_default(), "follow")
            .is_some_and(|v| matches!(v, "1" | "true" | "yes"));
        Ok(Self(accepts_stream || asked))
    }
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
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
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
            // The run was refused by a paused scope or a spent budget: the body says which.
            ErrorCode::Paused | ErrorCode::BudgetExhausted => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RuntimeNotFound
            | ErrorCode::RuntimeProbeFailed
            | ErrorCode::MissingApiKey
            | ErrorCode::SignInMissing
            | ErrorCode::Git
            | ErrorCode::WorktreeTampered
            | ErrorCode::ContextTooLarge => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorCode::KeychainUnavailable
            | ErrorCode::Keychain
            | ErrorCode::EngineUnavailable
            | ErrorCode::GatewayUnreachable => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let code = serde_json::to_value(code).ok().and_then(|v| v.as_str().map(str::to_owned));
        Self { status, code: code.unwrap_or_else(|| "internal".into()), message: e.to_string(), allow: None }
    }
}

pub(super) fn json_response<T: Serialize>(status: StatusCode, value: &T) -> Response {
    let body = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
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

/// `key`'s value in a query string (`a=1&b=2`), the first one, as sent (not decoded).
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
    fn trailing_slashes_are_trimmed_before_routing() {
        let trimmed = |uri: &str| without_trailing_slashes(&uri.parse().unwrap()).map(|u| u.to_string());
        assert_eq!(trimmed("/api/runs/"), Some("/api/runs".into()));
        assert_eq!(trimmed("/api/runs///?limit=2"), Some("/api/runs?limit=2".into()));
        assert_eq!(trimmed("//"), Some("/".into()));
        assert_eq!(trimmed("/api/runs"), None);
        assert_eq!(trimmed("/"), None);
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
