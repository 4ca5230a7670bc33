//! API keys against the real OS keychain (Secret Service under `dbus-run-session` with
//! gnome-keyring on Linux CI; Keychain on macOS; Credential Manager on Windows).
//! Each test files its keys under its own service name and removes them.

use std::fs;

mod common;

use clawboo_engine::secrets::Provider;
use clawboo_engine::{Engine, ErrorCode};
use common::Fixture;

#[test]
fn a_key_is_stored_in_the_keychain_and_nowhere_else() {
    let fixture = Fixture::new().keychain("store");
    let engine = fixture.open();
    let secrets = engine.secrets();
    let key = "sk-ant-test-7f3a9c1e5b2d4f6a8c0e";

    assert!(!secrets.statuses().unwrap().iter().any(|s| s.key_set));
    secrets.set_api_key(Provider::Anthropic, &format!("  {key}\n")).unwrap();
    assert_eq!(secrets.api_key(Provider::Anthropic).unwrap().as_deref(), Some(key));
    let statuses = secrets.statuses().unwrap();
    let set: Vec<_> = statuses.iter().filter(|s| s.key_set).map(|s| s.provider).collect();
    assert_eq!(set, [Provider::Anthropic]);

    // Nothing under the data directory holds the key (database, WAL, agent folders).
    drop(statuses);
    for entry in walk(fixture.path()) {
        let bytes = fs::read(&entry).unwrap();
        assert!(!bytes.windows(key.len()).any(|w| w == key.as_bytes()), "{} contains the key", entry.display());
    }

    secrets.delete_api_key(Provider::Anthropic).unwrap();
    assert_eq!(secrets.api_key(Provider::Anthropic).unwrap(), None);
    secrets.delete_api_key(Provider::Anthropic).expect("removing twice is fine");
}

#[test]
fn keys_are_kept_apart_per_provider_and_per_service() {
    let (fixture_a, fixture_b) = (Fixture::new().keychain("apart-a"), Fixture::new().keychain("apart-b"));
    let (a, b) = (fixture_a.open(), fixture_b.open());
    a.secrets().set_api_key(Provider::OpenAi, "sk-openai-a").unwrap();
    a.secrets().set_api_key(Provider::OpenRouter, "sk-or-a").unwrap();
    assert_eq!(b.secrets().api_key(Provider::OpenAi).unwrap(), None);
    assert_eq!(a.secrets().api_key(Provider::OpenRouter).unwrap().as_deref(), Some("sk-or-a"));
    for p in Provider::ALL {
        a.secrets().delete_api_key(p).unwrap();
    }
}

#[test]
fn bad_keys_are_refused_without_echoing_them() {
    let fixture = Fixture::new().keychain("bad");
    let engine = fixture.open();
    for bad in ["", "   ", "two words-secretish", "line\nbreak"] {
        let err = engine.secrets().set_api_key(Provider::OpenAi, bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput);
        assert!(!err.to_string().contains("secretish"));
    }
    assert_eq!(engine.secrets().api_key(Provider::OpenAi).unwrap(), None);
}

#[test]
fn base_urls_are_plain_settings() {
    let fixture = Fixture::new().keychain("custom");
    let engine = fixture.open();
    let status =
        |e: &Engine| e.secrets().statuses().unwrap().into_iter().find(|s| s.provider == Provider::Custom).unwrap();
    assert_eq!(status(&engine).base_url, None);
    engine.secrets().set_base_url(Provider::Custom, Some("http://127.0.0.1:11434/v1/")).unwrap();
    assert_eq!(status(&engine).base_url.as_deref(), Some("http://127.0.0.1:11434/v1"));
    assert_eq!(
        engine.secrets().set_base_url(Provider::Custom, Some("nope")).unwrap_err().code(),
        ErrorCode::InvalidInput
    );
    let anthropic = |e: &Engine| e.secrets().base_url(Provider::Anthropic).unwrap();
    assert_eq!(anthropic(&engine).as_deref(), Some("https://api.anthropic.com"));
    engine.secrets().set_base_url(Provider::Anthropic, Some("http://127.0.0.1:9/")).unwrap();
    assert_eq!(anthropic(&engine).as_deref(), Some("http://127.0.0.1:9"));
    engine.secrets().set_base_url(Provider::Anthropic, None).unwrap();
    assert_eq!(anthropic(&engine).as_deref(), Some("https://api.anthropic.com"), "back to the default");
    drop(engine);
    let engine = fixture.open();
    assert_eq!(status(&engine).base_url.as_deref(), Some("http://127.0.0.1:11434/v1"), "kept across restarts");
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
