//! Just enough HTTP/1.1: one request per connection, answered, then the connection is closed.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{plan, RecordedRequest, Shared};

/// Bigger headers than this are refused (the connection is dropped).
const MAX_HEAD: usize = 256 * 1024;

/// What to send back.
#[derive(Debug)]
pub(crate) enum Response {
    /// A JSON body with Content-Length, sent after `delay`.
    Json { status: u16, body: serde_json::Value, delay: Duration },
    /// A `text/event-stream` body, chunked, one chunk per frame.
    Sse(Vec<Frame>),
    /// A redirect with an empty body.
    Redirect { status: u16, location: String },
}

impl Response {
    pub(crate) fn json(status: u16, body: serde_json::Value) -> Self {
        Response::Json { status, body, delay: Duration::ZERO }
    }
}

/// One piece of an event stream, written after waiting `delay`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Frame {
    pub(crate) delay: Duration,
    pub(crate) text: String,
}

impl Frame {
    /// `event: NAME` + `data: JSON`.
    pub(crate) fn event(name: &str, data: &serde_json::Value) -> Self {
        Frame { delay: Duration::ZERO, text: format!("event: {name}\ndata: {data}\n\n") }
    }

    /// A bare `data: ...` line, as Chat Completions sends them.
    pub(crate) fn data(data: impl std::fmt::Display) -> Self {
        Frame { delay: Duration::ZERO, text: format!("data: {data}\n\n") }
    }

    pub(crate) fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

pub(crate) async fn handle_connection(mut stream: TcpStream, shared: Arc<Shared>) {
    let Some(request) = read_request(&mut stream, shared.addr).await else { return };
    // Answered first, then logged as it is (not copied: a long chat's body parses to megabytes),
    // still before the answer goes out, so a client that has it finds its request logged.
    let response = plan::route(&request, &shared);
    if shared.logging.load(std::sync::atomic::Ordering::Relaxed) {
        shared.log.lock().expect("request log").push(request);
    }
    let _ = write_response(&mut stream, response).await;
    let _ = stream.shutdown().await;
}

async fn read_request(stream: &mut TcpStream, own: SocketAddr) -> Option<RecordedRequest> {
    let mut buf = Vec::with_capacity(8192);
    let head_end = loop {
        if let Some(pos) = find(&buf, b"\r\n\r\n") {
            break pos;
        }
        if buf.len() > MAX_HEAD || read_more(stream, &mut buf).await == 0 {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split_whitespace();
    let method = request_line.next()?.to_string();
    let target = request_line.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_string(), value.trim().to_string()))
        .collect();
    let header = |name: &str| headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());

    if header("expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await.ok()?;
    }
    let mut rest = buf.split_off(head_end + 4);
    let body = if header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked")) {
        loop {
            if let Some(body) = decode_chunked(&rest) {
                break body;
            }
            if read_more(stream, &mut rest).await == 0 {
                return None;
            }
        }
    } else {
        let len: usize = header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
        while rest.len() < len {
            if read_more(stream, &mut rest).await == 0 {
                return None;
            }
        }
        rest.truncate(len);
        rest
    };

    let (path, query) = split_target(&method, &target, own);
    let raw_body = String::from_utf8_lossy(&body).into_owned();
    let body = serde_json::from_str(&raw_body).unwrap_or(serde_json::Value::Null);
    Some(RecordedRequest { method, path, query, headers, body, raw_body })
}

async fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> usize {
    let mut chunk = [0u8; 16384];
    match stream.read(&mut chunk).await {
        Ok(n) => {
            buf.extend_from_slice(&chunk[..n]);
            n
        }
        Err(_) => 0,
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The body of a complete chunked message, or `None` while more bytes are needed.
fn decode_chunked(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = find(data, b"\r\n")?;
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            // Trailers (if any) end with an empty line.
            return (data.starts_with(b"\r\n") || find(data, b"\r\n\r\n").is_some()).then_some(body);
        }
        if data.len() < size + 2 {
            return None;
        }
        body.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

/// Splits a request target into path and query. An absolute URL naming this server is reduced
/// to its path; one naming any other host (a stray proxied call) is kept whole, so it 404s.
fn split_target(method: &str, target: &str, own: SocketAddr) -> (String, String) {
    let mut target = target.to_string();
    if method.eq_ignore_ascii_case("CONNECT") {
        return (target, String::new());
    }
    if let Some(after_scheme) = target.strip_prefix("http://") {
        let (authority, path) = after_scheme.split_once('/').map_or((after_scheme, ""), |(a, p)| (a, p));
        let port = own.port();
        if authority == own.to_string() || authority == format!("localhost:{port}") {
            target = format!("/{path}");
        }
    }
    match target.split_once('?') {
        Some((path, query)) => (path.to_string(), query.to_string()),
        None => (target, String::new()),
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        404 => "Not Found",
        307 => "Temporary Redirect",
        500 => "Internal Server Error",
        _ => "Unknown",
    }
}

async fn write_response(stream: &mut TcpStream, response: Response) -> std::io::Result<()> {
    match response {
        Response::Json { status, body, delay } => {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let body = body.to_string();
            let head = format!(
                "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
                 request-id: req_fake\r\nConnection: close\r\n\r\n",
                reason(status),
                body.len()
            );
            stream.write_all(head.as_bytes()).await?;
            stream.write_all(body.as_bytes()).await?;
            stream.flush().await
        }
        Response::Redirect { status, location } => {
            let head = format!(
                "HTTP/1.1 {status} {}\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                reason(status)
            );
            stream.write_all(head.as_bytes()).await?;
            stream.flush().await
        }
        Response::Sse(frames) => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
                        request-id: req_fake\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
            stream.write_all(head.as_bytes()).await?;
            stream.flush().await?;
            for frame in frames {
                if !frame.delay.is_zero() {
                    tokio::time::sleep(frame.delay).await;
                }
                let chunk = format!("{:x}\r\n{}\r\n", frame.text.len(), frame.text);
                stream.write_all(chunk.as_bytes()).await?;
                stream.flush().await?;
            }
            stream.write_all(b"0\r\n\r\n").await?;
            stream.flush().await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_chunked_bodies_only_when_complete() {
        assert_eq!(decode_chunked(b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"), Some(b"abcde".to_vec()));
        assert_eq!(decode_chunked(b"3\r\nabc\r\n2\r\nd"), None);
        assert_eq!(decode_chunked(b"3\r\nabc\r\n0\r\n"), None);
    }

    #[test]
    fn splits_targets() {
        let own: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        let split = |m, t| split_target(m, t, own);
        assert_eq!(split("POST", "/v1/messages?beta=true"), ("/v1/messages".into(), "beta=true".into()));
        assert_eq!(split("POST", "http://127.0.0.1:4000/v1/responses"), ("/v1/responses".into(), "".into()));
        assert_eq!(split("GET", "http://example.com/x"), ("http://example.com/x".into(), "".into()));
        assert_eq!(split("CONNECT", "example.com:443"), ("example.com:443".into(), "".into()));
    }
}
