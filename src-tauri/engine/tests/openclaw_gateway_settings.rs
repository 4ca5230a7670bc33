//! An OpenClaw agent's existing Gateway through the engine, against the real OS keychain (run
//! under `scripts/with-test-keyring` on Linux): the URL is a profile field, the token is in the
//! keychain and nowhere else, the UI only learns whether it is set, and deleting the agent
//! deletes it.

mod common;

use std::fs;

use clawboo_engine::agents::{OpenclawGatewayInput, RuntimeKind};
use clawboo_engine::ErrorCode;
use common::{new_agent, Fixture};

const TOKEN: &str = "gw-token-3c9e1f7a5d2b";

fn choice(url: Option<&str>, token: Option<&str>) -> OpenclawGatewayInput {
    OpenclawGatewayInput { url: url.map(str::to_owned), token: token.map(str::to_owned) }
}

#[test]
fn the_token_is_in_the_keychain_only_and_goes_with_the_agent() {
    let fixture = Fixture::new().keychain("gateway-token");
    let engine = fixture.open();
    let agent = engine.agents().create(new_agent("remote", RuntimeKind::Openclaw)).unwrap();
    let status = engine.openclaw_gateway(&agent.id).unwrap();
    assert_eq!((status.url, status.token_set), (None, false), "Clawboo's own Gateway by default");

    let set = engine.set_openclaw_gateway(&agent.id, choice(Some(" ws://192.168.1.20:18789/ "), Some(TOKEN))).unwrap();
    assert_eq!(set.url.as_deref(), Some("ws://192.168.1.20:18789"));
    assert!(set.token_set);
    assert_eq!(
        engine.agents().get(&agent.id).unwrap().openclaw_gateway_url.as_deref(),
        Some("ws://192.168.1.20:18789")
    );
    assert_eq!(engine.secrets().gateway_token(&agent.id).unwrap().as_deref(), Some(TOKEN));
    let shown = serde_json::to_string(&engine.openclaw_gateway(&agent.id).unwrap()).unwrap();
    assert!(!shown.contains(TOKEN), "the UI learns only whether it is set: {shown}");

    // A new URL without a token keeps the saved token.
    engine.set_openclaw_gateway(&agent.id, choice(Some("wss://gateway.example.com"), None)).unwrap();
    assert_eq!(engine.secrets().gateway_token(&agent.id).unwrap().as_deref(), Some(TOKEN));

    // Nothing under the data directory holds the token (database, WAL, agent folders).
    drop(engine);
    for file in walk(fixture.path()) {
        let bytes = fs::read(&file).unwrap();
        assert!(!bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()), "{} holds the token", file.display());
    }
    let engine = fixture.open();
    let status = engine.openclaw_gateway(&agent.id).unwrap();
    assert_eq!(status.url.as_deref(), Some("wss://gateway.example.com"), "kept across restarts");
    assert!(status.token_set);

    engine.agents().delete(&agent.id).unwrap();
    assert_eq!(engine.secrets().gateway_token(&agent.id).unwrap(), None, "deleting the agent deletes its token");
}

#[test]
fn going_back_to_clawboos_gateway_forgets_the_token() {
    let fixture = Fixture::new().keychain("gateway-back");
    let engine = fixture.open();
    let agent = engine.agents().create(new_agent("remote", RuntimeKind::Openclaw)).unwrap();
    engine.set_openclaw_gateway(&agent.id, choice(Some("ws://127.0.0.1:18789"), Some(TOKEN))).unwrap();
    let back = engine.set_openclaw_gateway(&agent.id, choice(None, None)).unwrap();
    assert_eq!((back.url, back.token_set), (None, false));
    assert_eq!(engine.agents().get(&agent.id).unwrap().openclaw_gateway_url, None);
    assert_eq!(engine.secrets().gateway_token(&agent.id).unwrap(), None);
}

#[test]
fn bad_choices_are_refused_and_change_nothing() {
    let fixture = Fixture::new().keychain("gateway-bad");
    let engine = fixture.open();
    let agent = engine.agents().create(new_agent("remote", RuntimeKind::Openclaw)).unwrap();
    let refused = |input: OpenclawGatewayInput| {
        let err = engine.set_openclaw_gateway(&agent.id, input).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput);
        assert!(!err.to_string().contains("leaky-secret"), "{err}");
        err.to_string()
    };
    assert!(refused(choice(Some("ws://127.0.0.1:18789"), None)).contains("token"), "a first URL needs a token");
    assert!(refused(choice(Some("ws://203.0.113.7:18789"), Some(TOKEN))).contains("wss://"));
    refused(choice(Some("http://127.0.0.1:18789"), Some(TOKEN)));
    refused(choice(Some("ws://127.0.0.1:18789"), Some("two words leaky-secret")));
    refused(choice(Some("ws://127.0.0.1:1/?token=leaky-secret"), Some(TOKEN)));
    let status = engine.openclaw_gateway(&agent.id).unwrap();
    assert_eq!((status.url, status.token_set), (None, false));
    assert_eq!(engine.secrets().gateway_token(&agent.id).unwrap(), None);

    let native = engine.agents().create(new_agent("native", RuntimeKind::Native)).unwrap();
    let err = engine.set_openclaw_gateway(&native.id, choice(Some("ws://127.0.0.1:18789"), Some(TOKEN))).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput, "only OpenClaw agents use a Gateway");
    assert_eq!(
        engine.set_openclaw_gateway("no-such-agent", choice(None, None)).unwrap_err().code(),
        ErrorCode::NotFound
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
