//! Every loopback server the engine runs (the model relay, the tools bridge, the local API)
//! closes a connection that sends half a request head and stalls, and still serves whole
//! requests. The engine is opened with a short header timeout so the test needs no long wait.
//! The local API's token lives in the keychain: run under scripts/with-test-keyring on Linux.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use clawboo_engine::loopback::ServerLimits;
use clawboo_engine::EngineConfig;
use common::Fixture;

/// Only a guard against a hung test, never a measurement.
const LIMIT: Duration = Duration::from_secs(30);

/// Everything the server sends until it closes the connection.
fn read_to_close(stream: &mut TcpStream) -> String {
    stream.set_read_timeout(Some(LIMIT)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
            Err(e) => panic!("the server did not close the connection: {e}"),
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

fn port_of(url: &str) -> u16 {
    let rest = url.strip_prefix("http://127.0.0.1:").expect("a loopback URL");
    rest.split('/').next().unwrap().parse().unwrap()
}

fn short_header_timeout(config: &mut EngineConfig) {
    config.server_limits = ServerLimits { header_read_timeout: Duration::from_millis(300), ..Default::default() };
}

#[test]
fn every_loopback_server_closes_a_connection_that_stalls_in_its_request_head() {
    let fixture = Fixture::new().tweak(short_header_timeout);
    let engine = fixture.open();
    let api = engine.local_api().set_enabled(true).unwrap();
    let servers = [
        ("the model relay", port_of(&engine.relay().url()), "/anthropic/v1/models"),
        ("the tools bridge", port_of(&engine.tools().endpoint()), "/mcp"),
        ("the local API", api.port.expect("the local API listens"), "/api/runs"),
    ];
    for (name, port, path) in servers {
        for partial in ["", "GET /", "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le"] {
            let mut stalled = TcpStream::connect(("127.0.0.1", port)).unwrap();
            stalled.write_all(partial.as_bytes()).unwrap();
            let said = read_to_close(&mut stalled);
            assert!(said.is_empty() || said.starts_with("HTTP/1.1 408"), "{name} after {partial:?}: {said:?}");
        }
        // A whole request is answered (refused: it carries no token).
        let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
        client.write_all(request.as_bytes()).unwrap();
        let said = read_to_close(&mut client);
        assert!(said.starts_with("HTTP/1.1 401"), "{name}: {said:?}");
    }
}
