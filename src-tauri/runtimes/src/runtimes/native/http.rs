//! One model call over HTTP: send, check the status, stream the body through the SSE parser
//! into a decoder, and stop promptly when the user cancels.

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;
use tokio::sync::watch;

use super::conversation::{ModelTurn, StreamDecoder, Usage};
use super::sse::SseParser;
use crate::runtimes::{InProcessRoute, RunEvent};

pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A stream that sends nothing for this long is given up (providers send keep-alives far more
/// often). There is no limit on a whole reply.
pub const READ_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// One client per runtime, so connections are reused. System proxies are respected. A
/// redirect is never followed: the credential would go along to wherever it points.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        .read_timeout(READ_IDLE_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("Clawboo/", env!("CARGO_PKG_VERSION")))
        .build()
        .expect("the HTTP client can be built (TLS backend available)")
}

/// A call the provider answered with a brief failure (busy, rate-limited, a gateway or server
/// error, a connection cut before the reply) is sent again after each of these waits, saying so
/// in the Activity card, before the run fails with the provider's message.
pub const RETRY_WAITS: [Duration; 2] = [Duration::from_secs(1), Duration::from_secs(4)];
/// Sent by a client that tries brief failures again itself (Native) to the model relay, which
/// then passes its failures on at once. Never forwarded to the provider.
pub const CLIENT_RETRIES_HEADER: &str = "x-clawboo-client-retries";
/// A provider's own `Retry-After` is followed, up to this.
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

pub enum CallEnd {
    Done(ModelTurn),
    Failed(String),
    /// Stopped; with the usage the reply had reported by then, when it had started.
    Cancelled(Option<Usage>),
}

/// Resolves once `cancel` is true; never, if whoever could cancel has gone away.
pub async fn cancelled(cancel: &mut watch::Receiver<bool>) {
    loop {
        if *cancel.borrow_and_update() {
            return;
        }
        if cancel.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// A model request on its way: over HTTP, or through a route inside the app's process (the
/// model relay), which takes the request and its body apart.
pub struct Outgoing {
    request: reqwest::RequestBuilder,
    in_process: Option<(std::sync::Arc<dyn InProcessRoute>, bytes::Bytes)>,
}

impl Outgoing {
    /// `request` carries `body`; `in_process`, when given, is where it goes.
    pub fn new(
        request: reqwest::RequestBuilder,
        body: bytes::Bytes,
        in_process: Option<std::sync::Arc<dyn InProcessRoute>>,
    ) -> Self {
        let request = request.body(body.clone());
        Self { request, in_process: in_process.map(|route| (route, body)) }
    }

    /// The same request again (a retry): the body is shared, not copied.
    fn try_clone(&self) -> Option<Self> {
        Some(Self { request: self.request.try_clone()?, in_process: self.in_process.clone() })
    }

    async fn send(self) -> reqwest::Result<reqwest::Response> {
        match self.in_process {
            Some((route, body)) => Ok(route.send(self.request.build()?, body).await),
            None => self.request.send().await,
        }
    }
}

/// Sends `request` to `url` and decodes the streamed reply. `who` names the provider in errors.
/// A brief failure before the reply starts is tried again after each of `retry_waits`.
pub async fn stream_call(
    mut request: Outgoing,
    url: &str,
    who: &str,
    decoder: &mut dyn StreamDecoder,
    emit: &mut (dyn FnMut(RunEvent) + Send),
    cancel: &mut watch::Receiver<bool>,
    retry_waits: &[Duration],
) -> CallEnd {
    let mut attempt = 0;
    let response = loop {
        // A body held in memory can be sent again; a streamed one cannot (never the case here).
        let again = request.try_clone();
        let failure = match send(request, url, who, cancel).await {
            Sent::Response(response) => break response,
            Sent::Cancelled => return CallEnd::Cancelled(None),
            Sent::Failed(failure) => failure,
        };
        let (Some(next), Some(wait), true) = (again, retry_waits.get(attempt), failure.transient) else {
            return CallEnd::Failed(failure.message);
        };
        let wait = failure.retry_after.map_or(*wait, |asked| asked.min(MAX_RETRY_AFTER));
        attempt += 1;
        emit(RunEvent::Warning {
            message: format!(
                "{} Trying again in {} ({attempt} of {}).",
                as_sentence(&failure.message),
                seconds(wait),
                retry_waits.len()
            ),
        });
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = cancelled(cancel) => return CallEnd::Cancelled(None),
        }
        request = next;
    };
    let mut stream = response.bytes_stream();
    let mut parser = SseParser::new();
    loop {
        let chunk = tokio::select! {
            biased;
            chunk = stream.next() => chunk,
            () = cancelled(cancel) => return CallEnd::Cancelled(decoder.usage()),
        };
        let (events, ended) = match chunk {
            Some(Ok(bytes)) => (parser.push(&bytes), false),
            Some(Err(e)) => {
                return CallEnd::Failed(format!("The connection to {url} broke during the reply: {}", causes(&e)))
            }
            None => (parser.finish(), true),
        };
        // A part of the reply was dropped: what follows would be decoded without it.
        if let Some(dropped) = parser.take_error() {
            return CallEnd::Failed(format!("{who}'s reply could not be read: {dropped}."));
        }
        for event in &events {
            match decoder.on_event(event, emit) {
                Ok(true) => return finish(decoder),
                Ok(false) => {}
                Err(message) => return CallEnd::Failed(format!("{who} reported an error: {message}")),
            }
        }
        if ended {
            return finish(decoder);
        }
    }
}

enum Sent {
    Response(reqwest::Response),
    Failed(Failure),
    Cancelled,
}

struct Failure {
    message: String,
    /// Worth sending again: the provider was busy or briefly failing, or the connection broke.
    transient: bool,
    /// How long the provider asked to wait (`Retry-After`, in seconds).
    retry_after: Option<Duration>,
}

/// One send: the response when it succeeded (its body still to read), else why not.
async fn send(request: Outgoing, url: &str, who: &str, cancel: &mut watch::Receiver<bool>) -> Sent {
    // An answer already here is taken before a stop: its call was made and spent (a budget's
    // stop lands right after the relay recorded it), so its usage is reported, not lost.
    let response = tokio::select! {
        biased;
        sent = request.send() => sent,
        () = cancelled(cancel) => return Sent::Cancelled,
    };
    let response = match response {
        Ok(response) => response,
        Err(e) => {
            return Sent::Failed(Failure {
                message: send_error(url, &e),
                transient: connection_cut(&e),
                retry_after: None,
            })
        }
    };
    let status = response.status();
    if status.is_success() {
        return Sent::Response(response);
    }
    let retry_after = retry_after(response.headers());
    let body = tokio::select! {
        body = response.text() => body.unwrap_or_default(),
        () = cancelled(cancel) => return Sent::Cancelled,
    };
    Sent::Failed(Failure { message: status_error(who, status, &body), transient: is_transient(status), retry_after })
}

/// How long the provider asked to wait (`Retry-After`, in seconds), if it said.
pub(crate) fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    headers
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs)
}

/// Busy, rate-limited, or a server or gateway failing for a moment (529: Anthropic overloaded).
pub(crate) fn is_transient(status: reqwest::StatusCode) -> bool {
    matches!(status.as_u16(), 408 | 429 | 500 | 502 | 503 | 504 | 529)
}

/// A connection the other side reset or closed: worth one more try. A refused connection is not
/// (nothing listens there: the message says to check the server and its address).
pub(crate) fn connection_cut(e: &reqwest::Error) -> bool {
    if e.is_connect() || e.is_builder() || e.is_redirect() {
        return false;
    }
    let text = causes(e).to_ascii_lowercase();
    ["reset", "connection closed", "broken pipe", "unexpected eof", "incomplete message"]
        .iter()
        .any(|cut| text.contains(cut))
}

/// `text` ending as a sentence does, so what follows it reads apart ("…: overloaded. Trying…").
pub(crate) fn as_sentence(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with(['.', '!', '?', '…']) {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

/// "1 s", "30 s".
pub(crate) fn seconds(wait: Duration) -> String {
    format!("{} s", wait.as_secs().max(1))
}

fn finish(decoder: &mut dyn StreamDecoder) -> CallEnd {
    match decoder.finish() {
        Ok(turn) => CallEnd::Done(turn),
        Err(message) => CallEnd::Failed(message),
    }
}

/// "Anthropic answered HTTP 500 Internal Server Error: <the provider's own message>".
pub fn status_error(who: &str, status: reqwest::StatusCode, body: &str) -> String {
    let json: Option<Value> = serde_json::from_str(body).ok();
    let from_json = json.as_ref().and_then(|v| {
        v["error"]["message"].as_str().or(v["error"].as_str()).or(v["message"].as_str()).or(v["detail"].as_str())
    });
    let message = match from_json {
        Some(message) => message.trim().to_owned(),
        None => {
            let mut text: String = body.trim().chars().take(500).collect();
            if text.len() < body.trim().len() {
                text.push('…');
            }
            text
        }
    };
    if message.is_empty() {
        format!("{who} answered HTTP {status}.")
    } else {
        format!("{who} answered HTTP {status}: {message}")
    }
}

fn send_error(url: &str, e: &reqwest::Error) -> String {
    if e.is_connect() {
        format!(
            "Could not connect to {url}: {}. Check that the server is running and its base URL is right.",
            causes(e)
        )
    } else if e.is_timeout() {
        format!("{url} did not answer in time: {}", causes(e))
    } else {
        format!("The request to {url} failed: {}", causes(e))
    }
}

/// What went wrong under a reqwest error, without its own summary (which repeats the URL).
pub(crate) fn causes(e: &reqwest::Error) -> String {
    match std::error::Error::source(e) {
        Some(source) => chain(source),
        None => e.to_string(),
    }
}

/// An error and its causes, each said once.
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next: Option<&dyn std::error::Error> = Some(e);
    while let Some(err) = next {
        let text = err.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = err.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_before_a_retry_ends_as_a_sentence() {
        assert_eq!(as_sentence("HTTP 500: a scripted server error"), "HTTP 500: a scripted server error.");
        assert_eq!(as_sentence("Overloaded. "), "Overloaded.");
        assert_eq!(as_sentence("Why?"), "Why?");
    }

    #[test]
    fn http_errors_carry_the_providers_message() {
        let status = reqwest::StatusCode::INTERNAL_SERVER_ERROR;
        let body = r#"{"type":"error","error":{"type":"api_error","message":"boom"}}"#;
        assert_eq!(status_error("Anthropic", status, body), "Anthropic answered HTTP 500 Internal Server Error: boom");
        let status = reqwest::StatusCode::UNAUTHORIZED;
        assert_eq!(
            status_error("OpenAI", status, r#"{"error":"bad key"}"#),
            "OpenAI answered HTTP 401 Unauthorized: bad key"
        );
        assert_eq!(status_error("X", status, "plain text"), "X answered HTTP 401 Unauthorized: plain text");
        assert_eq!(status_error("X", status, ""), "X answered HTTP 401 Unauthorized.");
    }
}
