//! The host side of a sandbox's network: listeners on 127.0.0.1 *inside* the sandbox's own
//! network namespace (made there by the `clawboo-netns` helper, see `netns.rs`), accepted on from
//! the host. A connection to an allowed loopback port is forwarded to that port on the host's
//! 127.0.0.1; one on the proxy's port goes through the filtering proxy. Inside, the port
//! numbers are the host's, so URLs need no change. A port the sandboxed program publishes (an
//! OpenClaw Gateway listening inside) is listened on at the host's 127.0.0.1 and each connection
//! is carried in through a socket the helper made in the sandbox's namespace.
//!
//! The proxy speaks HTTP `CONNECT host:port` (HTTPS) and absolute-form plain HTTP requests, and
//! lets a connection through only to a host the agent's profile allows. A refused host gets a
//! 403 the tool prints, and is reported once to the run's Activity.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use super::netns::SocketMaker;
use super::{Blocked, BlockedSink, Confinement};

/// The longest request head the proxy reads.
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// The running host side of one sandbox's network. Dropping it stops the forwarders (and the
/// helper kept for published ports).
pub struct Bridge {
    tasks: Vec<JoinHandle<()>>,
}

/// The listeners made inside one sandbox's network namespace.
pub struct Inside {
    /// Each allowed loopback port's listener (same number inside as on the host).
    pub loopback: Vec<(u16, std::net::TcpListener)>,
    /// The proxy's listener.
    pub proxy: std::net::TcpListener,
    /// Makes sockets in the namespace, when the sandbox publishes ports.
    pub sockets: Option<SocketMaker>,
}

impl Bridge {
    /// Serves `inside` for `confinement`: forwards, filters, and publishes its ports on the
    /// host. Needs a Tokio runtime.
    pub fn serve(confinement: &Confinement, inside: Inside, sink: Option<BlockedSink>) -> std::io::Result<Self> {
        let mut bridge = Bridge { tasks: Vec::new() };
        if !confinement.published_ports.is_empty() {
            let sockets = Arc::new(
                inside.sockets.ok_or_else(|| std::io::Error::other("published ports need the network helper"))?,
            );
            for &port in &confinement.published_ports {
                // The port is free on the host (the caller picked it so): the host side listens
                // there and carries each connection into the sandbox.
                let listener = tokio_listener(std::net::TcpListener::bind(("127.0.0.1", port))?)?;
                bridge.tasks.push(tokio::spawn(publish_loop(listener, port, sockets.clone())));
            }
        }
        for (port, listener) in inside.loopback {
            bridge.tasks.push(tokio::spawn(forward_loop(tokio_listener(listener)?, port)));
        }
        let rules = Arc::new(ProxyRules { confinement: confinement.clone(), sink, reported: Mutex::default() });
        bridge.tasks.push(tokio::spawn(proxy_loop(tokio_listener(inside.proxy)?, rules)));
        Ok(bridge)
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

fn tokio_listener(listener: std::net::TcpListener) -> std::io::Result<TcpListener> {
    listener.set_nonblocking(true)?;
    TcpListener::from_std(listener)
}

async fn forward_loop(listener: TcpListener, port: u16) {
    while let Ok((mut inside, _)) = listener.accept().await {
        tokio::spawn(async move {
            if let Ok(mut host) = TcpStream::connect(("127.0.0.1", port)).await {
                let _ = tokio::io::copy_bidirectional(&mut inside, &mut host).await;
            }
        });
    }
}

async fn publish_loop(listener: TcpListener, port: u16, sockets: Arc<SocketMaker>) {
    while let Ok((mut host, _)) = listener.accept().await {
        let sockets = sockets.clone();
        tokio::spawn(async move {
            let Ok(Ok(socket)) = tokio::task::spawn_blocking(move || sockets.socket()).await else { return };
            let connected = async {
                socket.set_nonblocking(true)?;
                tokio::net::TcpSocket::from_std_stream(socket).connect(([127, 0, 0, 1], port).into()).await
            };
            if let Ok(mut inside) = connected.await {
                let _ = tokio::io::copy_bidirectional(&mut host, &mut inside).await;
            }
        });
    }
}

struct ProxyRules {
    confinement: Confinement,
    sink: Option<BlockedSink>,
    reported: Mutex<HashSet<String>>,
}

impl ProxyRules {
    fn refuse(&self, blocked: Blocked) {
        let first = self.reported.lock().unwrap_or_else(|p| p.into_inner()).insert(blocked.host.clone());
        if let (true, Some(sink)) = (first, &self.sink) {
            sink(blocked);
        }
    }
}

async fn proxy_loop(listener: TcpListener, rules: Arc<ProxyRules>) {
    while let Ok((stream, _)) = listener.accept().await {
        let rules = rules.clone();
        tokio::spawn(async move {
            let _ = proxy_one(stream, &rules).await;
        });
    }
}

/// What a request head asks the proxy for.
#[derive(Debug, PartialEq, Eq)]
struct Target {
    host: String,
    port: u16,
    /// `CONNECT`: answer 200 and tunnel; otherwise forward the head as it came.
    tunnel: bool,
}

fn parse_head(head: &[u8]) -> Option<Target> {
    let line_end = head.iter().position(|&b| b == b'\n')?;
    let line = std::str::from_utf8(&head[..line_end]).ok()?.trim_end_matches('\r');
    let mut parts = line.split(' ');
    let method = parts.next()?;
    let target = parts.next()?;
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = target.rsplit_once(':')?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        return Some(Target { host: host.to_ascii_lowercase(), port: port.parse().ok()?, tunnel: true });
    }
    let rest = target.strip_prefix("http://")?;
    let authority = rest.split(['/', '?']).next()?;
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => (h, p.parse().ok()?),
        _ => (authority, 80),
    };
    Some(Target { host: host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase(), port, tunnel: false })
}

async fn proxy_one(mut inside: impl AsyncRead + AsyncWrite + Unpin, rules: &ProxyRules) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 4096];
    let end = loop {
        let n = inside.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
        if let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        if head.len() > MAX_HEAD_BYTES {
            return respond(&mut inside, "431 Request Header Fields Too Large", "Request head too large.").await;
        }
    };
    let Some(target) = parse_head(&head) else {
        return respond(&mut inside, "400 Bad Request", "Clawboo's sandbox proxy takes CONNECT or http:// requests.")
            .await;
    };
    let mut upstream = match connect_allowed(&target, rules).await {
        Ok(upstream) => upstream,
        Err(Refused::Blocked(message)) => return respond(&mut inside, "403 Forbidden", &message).await,
        Err(Refused::Unreachable(message)) => return respond(&mut inside, "502 Bad Gateway", &message).await,
    };
    if target.tunnel {
        inside.write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n").await?;
        upstream.write_all(&head[end..]).await?;
    } else {
        upstream.write_all(&head).await?;
    }
    tokio::io::copy_bidirectional(&mut inside, &mut upstream).await?;
    Ok(())
}

/// Why the proxy did not connect a request.
enum Refused {
    /// The profile does not allow it (reported on the run's Activity).
    Blocked(String),
    Unreachable(String),
}

/// A connection to `target` if the profile allows both its name and every address it
/// resolves to. Resolved here and connected to the very addresses checked, so a name cannot
/// be made to point elsewhere between the check and the connection.
async fn connect_allowed(target: &Target, rules: &ProxyRules) -> std::result::Result<TcpStream, Refused> {
    let blocked = |why: &str| {
        let blocked = Blocked { host: target.host.clone(), port: target.port };
        let message = format!("{}{why}", blocked.message());
        rules.refuse(blocked);
        Refused::Blocked(message)
    };
    let unreachable =
        |e: std::io::Error| Refused::Unreachable(format!("{}:{} could not be reached: {e}", target.host, target.port));
    if !rules.confinement.proxy_allows(&target.host) {
        return Err(blocked(""));
    }
    let addresses: Vec<std::net::SocketAddr> =
        tokio::net::lookup_host((target.host.as_str(), target.port)).await.map_err(unreachable)?.collect();
    if addresses.iter().any(|a| !rules.confinement.proxy_allows_address(&target.host, a.ip())) {
        return Err(blocked(
            " It is on this machine or its local network, which *any* does not include; list it under these hosts to allow it.",
        ));
    }
    TcpStream::connect(&addresses[..]).await.map_err(unreachable)
}

async fn respond(stream: &mut (impl AsyncWrite + Unpin), status: &str, body: &str) -> std::io::Result<()> {
    let text = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}\n",
        body.len() + 1
    );
    stream.write_all(text.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::sandbox::NetworkAccess;

    /// A bridge whose "inside" listeners are on the host (the namespace is the helper's part,
    /// tested with real sandboxes in tests/sandbox_bridge.rs).
    fn serve(confinement: &Confinement, loopback: &[u16], sink: Option<BlockedSink>) -> (Bridge, std::net::SocketAddr) {
        let on_host = || std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let proxy = on_host();
        let address = proxy.local_addr().unwrap();
        let loopback = loopback.iter().map(|&port| (port, on_host())).collect();
        (Bridge::serve(confinement, Inside { loopback, proxy, sockets: None }, sink).unwrap(), address)
    }

    #[test]
    fn request_heads_name_their_target() {
        let t = |h: &str| parse_head(h.as_bytes());
        assert_eq!(
            t("CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\n"),
            Some(Target { host: "pypi.org".into(), port: 443, tunnel: true })
        );
        assert_eq!(
            t("GET http://Example.com/a?b HTTP/1.1\r\n\r\n"),
            Some(Target { host: "example.com".into(), port: 80, tunnel: false })
        );
        assert_eq!(
            t("GET http://example.com:8080/ HTTP/1.1\r\n\r\n"),
            Some(Target { host: "example.com".into(), port: 8080, tunnel: false })
        );
        assert_eq!(t("GET /relative HTTP/1.1\r\n\r\n"), None);
        assert_eq!(t("CONNECT nonsense HTTP/1.1\r\n\r\n"), None);
    }

    #[tokio::test]
    async fn the_proxy_refuses_a_host_the_profile_does_not_allow_and_reports_it_once() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink: BlockedSink = {
            let seen = seen.clone();
            Arc::new(move |b: Blocked| seen.lock().unwrap().push(b))
        };
        let confinement = Confinement { allowed_hosts: vec!["127.0.0.1".into()], ..Default::default() };
        let (bridge, proxy) = serve(&confinement, &[], Some(sink));
        let ask = |request: &'static str| async move {
            let mut s = TcpStream::connect(proxy).await.unwrap();
            s.write_all(request.as_bytes()).await.unwrap();
            let mut answer = String::new();
            s.read_to_string(&mut answer).await.unwrap();
            answer
        };
        for _ in 0..2 {
            let answer = ask("CONNECT evil.example:443 HTTP/1.1\r\n\r\n").await;
            assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
            assert!(answer.contains("Blocked by Clawboo's sandbox: evil.example:443"), "{answer}");
        }
        assert_eq!(*seen.lock().unwrap(), [Blocked { host: "evil.example".into(), port: 443 }]);

        // An allowed host is tunnelled: a loopback server stands in for it.
        let server = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = server.local_addr().unwrap().port();
        tokio::spawn(async move {
            let (mut s, _) = server.accept().await.unwrap();
            s.write_all(b"hello from upstream").await.unwrap();
        });
        let mut s = TcpStream::connect(proxy).await.unwrap();
        s.write_all(format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\n\r\n").as_bytes()).await.unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.ends_with("hello from upstream"), "{answer}");
        drop(bridge);
        let mut closed = false;
        for _ in 0..100 {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            if TcpStream::connect(proxy).await.is_err() {
                closed = true;
                break;
            }
        }
        assert!(closed, "the listeners go with the bridge");
    }

    #[tokio::test]
    async fn an_allowed_port_is_forwarded_to_the_same_port_on_the_host() {
        let relay = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = relay.local_addr().unwrap().port();
        tokio::spawn(async move {
            let (mut s, _) = relay.accept().await.unwrap();
            s.write_all(b"hello from the relay").await.unwrap();
        });
        let confinement = Confinement { loopback_ports: vec![port], ..Default::default() };
        let inside = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let at = inside.local_addr().unwrap();
        let proxy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let _bridge =
            Bridge::serve(&confinement, Inside { loopback: vec![(port, inside)], proxy, sockets: None }, None).unwrap();
        let mut s = TcpStream::connect(at).await.unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).await.unwrap();
        assert_eq!(answer, "hello from the relay");
    }

    #[tokio::test]
    async fn any_host_means_the_internet_never_this_machine_or_its_network() {
        let confinement = Confinement { network: NetworkAccess::Any, ..Default::default() };
        let (_bridge, proxy) = serve(&confinement, &[], None);
        let server = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = server.local_addr().unwrap().port();
        for host in ["127.0.0.1", "localhost", "[::1]", "169.254.169.254", "10.0.0.1", "192.168.1.1"] {
            let mut s = TcpStream::connect(proxy).await.unwrap();
            s.write_all(format!("CONNECT {host}:{port} HTTP/1.1\r\n\r\n").as_bytes()).await.unwrap();
            let mut answer = String::new();
            s.read_to_string(&mut answer).await.unwrap();
            assert!(answer.starts_with("HTTP/1.1 403"), "{host}: {answer}");
            assert!(answer.contains("local network"), "{host}: {answer}");
        }
        for (address, public) in [
            ("8.8.8.8", true),
            ("2606:4700::1111", true),
            ("100.64.0.1", false),
            ("::ffff:127.0.0.1", false),
            ("fd00::1", false),
            ("fe80::1", false),
            ("0.0.0.0", false),
        ] {
            assert_eq!(confinement.proxy_allows_address("x", address.parse().unwrap()), public, "{address}");
        }
        // Listed by name, a host on this machine is the user's choice.
        let listed =
            Confinement { network: NetworkAccess::Any, allowed_hosts: vec!["localhost".into()], ..Default::default() };
        assert!(listed.proxy_allows_address("localhost", "127.0.0.1".parse().unwrap()));
    }
}
