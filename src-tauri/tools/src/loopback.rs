//! How the engine's loopback HTTP servers (the model relay, the tools bridge, the local API) accept
//! and serve connections: one loop, the same bounds for each. Their clients are agents' processes
//! (untrusted) and, for the local API, the user's scripts.
//!
//! - A connection that does not send a whole request head within
//!   [`ServerLimits::header_read_timeout`] is closed: half a request line and a stall hold nothing
//!   for long. The same clock runs while a kept-alive connection waits for its next request, so
//!   an idle connection is closed after that long too (clients open a new one).
//! - At most [`ServerLimits::max_connections`] connections are served at once; further ones wait
//!   in the listen backlog until one ends.
//! - `stop` ends the accept loop and every connection (a dropped sender counts as a stop).

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::{Body, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{watch, Semaphore};

// The bounds are configuration (each server's are in `EngineConfig`); they live with it.
pub use crate::config::{ServerLimits, HEADER_READ_TIMEOUT, MAX_CONNECTIONS};

/// Serves HTTP/1.1 on `listener` until `stop` changes or its sender is dropped, answering each
/// request with `handler`. `name` says which server in the log ("the model relay").
pub async fn serve<H, F, B>(
    name: &str,
    listener: std::net::TcpListener,
    limits: ServerLimits,
    mut stop: watch::Receiver<bool>,
    handler: H,
) where
    H: Fn(Request<Incoming>) -> F + Clone + Send + 'static,
    F: Future<Output = Response<B>> + Send + 'static,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(listener) => listener,
        Err(e) => {
            tracing::error!(server = name, error = %e, "a loopback server cannot listen");
            return;
        }
    };
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    loop {
        // A free slot first: past the bound, connections wait unaccepted.
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => return, // never closed
            },
            _ = stop.changed() => return,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of file descriptors and the like: wait rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = stop.changed() => return,
        };
        let _ = stream.set_nodelay(true);
        let (handler, mut stop) = (handler.clone(), stop.clone());
        tokio::spawn(async move {
            let _slot = slot;
            let service = hyper::service::service_fn(move |request| {
                let answer = handler(request);
                async move { Ok::<_, Infallible>(answer.await) }
            });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout);
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = connection => {}
                _ = stop.changed() => {}
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use std::io::ErrorKind;

    use bytes::Bytes;
    use http_body_util::Full;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    use super::*;

    /// Only a guard against a hung test, never a measurement.
    const LIMIT: Duration = Duration::from_secs(30);

    async fn start(limits: ServerLimits) -> (std::net::SocketAddr, watch::Sender<bool>) {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = watch::channel(false);
        tokio::spawn(serve("the test server", listener, limits, stopped, |_request| async {
            Response::new(Full::new(Bytes::from_static(b"hello")))
        }));
        (addr, stop)
    }

    /// Reads until the server closes the connection: everything it sent.
    async fn read_to_close(stream: &mut TcpStream) -> String {
        let mut got = Vec::new();
        let read = tokio::time::timeout(LIMIT, async {
            let mut buf = [0u8; 1024];
            loop {
                match stream.read(&mut buf).await {
                    Ok(0) => return,
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                    // A reset is a close too.
                    Err(e) if e.kind() == ErrorKind::ConnectionReset => return,
                    Err(e) => panic!("reading: {e}"),
                }
            }
        });
        read.await.expect("the server closed the connection");
        String::from_utf8_lossy(&got).into_owned()
    }

    const REQUEST: &[u8] = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";

    #[tokio::test]
    async fn a_client_that_stalls_in_its_request_head_is_disconnected() {
        let limits = ServerLimits { header_read_timeout: Duration::from_millis(200), max_connections: 8 };
        let (addr, _stop) = start(limits).await;
        for partial in [&b""[..], b"GET /", b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: "] {
            let mut stalled = TcpStream::connect(addr).await.unwrap();
            stalled.write_all(partial).await.unwrap();
            let said = read_to_close(&mut stalled).await;
            assert!(!said.contains("hello"), "nothing was served: {said:?}");
        }
        // A whole request is served.
        let mut client = TcpStream::connect(addr).await.unwrap();
        client.write_all(REQUEST).await.unwrap();
        let said = read_to_close(&mut client).await;
        assert!(said.starts_with("HTTP/1.1 200") && said.ends_with("hello"), "{said:?}");
    }

    #[tokio::test]
    async fn past_the_connection_bound_a_client_waits_until_one_ends() {
        let limits = ServerLimits { header_read_timeout: Duration::from_millis(300), max_connections: 1 };
        let (addr, _stop) = start(limits).await;
        let mut first = TcpStream::connect(addr).await.unwrap();
        first.write_all(b"GET / HTT").await.unwrap();
        // The second connection is made (the backlog holds it) but served only once the first
        // is closed for stalling.
        let mut second = TcpStream::connect(addr).await.unwrap();
        second.write_all(REQUEST).await.unwrap();
        let said = read_to_close(&mut second).await;
        assert!(said.ends_with("hello"), "{said:?}");
        // Closed (its end already here), not merely quiet: the server let it go before it took
        // the second one.
        let mut first = first.into_std().unwrap();
        first.set_nonblocking(true).unwrap();
        let read = std::io::Read::read(&mut first, &mut [0u8; 16]);
        assert!(
            matches!(&read, Ok(0)) || matches!(&read, Err(e) if e.kind() == ErrorKind::ConnectionReset),
            "the first connection ended before the second was served: {read:?}"
        );
    }

    #[tokio::test]
    async fn stop_ends_the_listener_and_open_connections() {
        let limits = ServerLimits { header_read_timeout: Duration::from_secs(600), max_connections: 8 };
        let (addr, stop) = start(limits).await;
        let mut open = TcpStream::connect(addr).await.unwrap();
        open.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").await.unwrap();
        let mut buf = [0u8; 256];
        let n = open.read(&mut buf).await.unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).ends_with("hello"), "served, kept alive");
        drop(stop);
        assert_eq!(read_to_close(&mut open).await, "", "the kept-alive connection is closed");
    }
}
