//! Native's connector client on its own: an HTTP connector (Clawboo's own tools bridge serves
//! streamable HTTP, so it stands in for a user's MCP URL) and a stdio one (the testkit's
//! server), listed, offered as `<connector>__<tool>`, called, and stopped.
#![cfg(unix)]

mod common;

use std::sync::Arc;

use clawboo_engine::connectors::{RunConnector, RunTransport};
use clawboo_engine::runtimes::mcp_client::Session;
use clawboo_engine::runtimes::process::{Spawner, SystemSpawner};
use clawboo_engine::tools::{ToolName, Tools};
use common::tools::{caller, RecordingHost};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_and_a_stdio_connector_are_listed_called_and_stopped() {
    let tools = Tools::start(&tokio::runtime::Handle::current()).unwrap();
    let host = Arc::new(RecordingHost::default());
    tools.set_host(host.clone());
    let grant = tools.grant(caller("run-http", "agent-http", "scout", &[ToolName::PeerPost]));
    let dir = tempfile::tempdir().unwrap();
    let connectors = vec![
        RunConnector {
            name: "bridge".into(),
            transport: RunTransport::Http { url: grant.url.clone(), headers: vec![] },
        },
        RunConnector {
            name: "docs".into(),
            transport: RunTransport::Stdio {
                command: clawboo_testkit::fake_mcp_server().display().to_string(),
                args: vec![],
                env: vec![],
            },
        },
        RunConnector {
            name: "nowhere".into(),
            transport: RunTransport::Http { url: "http://127.0.0.1:9/mcp".into(), headers: vec![] },
        },
    ];
    let spawner: Arc<dyn Spawner> = Arc::new(SystemSpawner);
    let (session, warnings) = Session::start(&connectors, &spawner, dir.path(), &reqwest::Client::new()).await;

    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("Connector 'nowhere' did not start"), "{warnings:?}");
    let names: Vec<&str> = session.offered().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["bridge__peer_post", "docs__lookup"]);
    assert!(session.tool("docs__lookup").unwrap().read_only);

    let posted = session.call("bridge__peer_post", &json!({"text": "over http"})).await;
    assert!(posted.is_ok(), "{posted:?}");
    assert_eq!(host.calls()[0].args, json!({"text": "over http"}));
    let found = session.call("docs__lookup", &json!({"query": "x"})).await.unwrap();
    assert_eq!(found, "LOOKUP-RESULT for x: 42 (secret present: no)");
    assert!(session.call("docs__nothing", &json!({})).await.is_err());
    assert!(session.call("docs__lookup", &json!("not an object")).await.is_err());
    session.stop().await;
}
