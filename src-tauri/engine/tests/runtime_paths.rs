//! `set_runtime_path`: only a full path to an executable that answers `--version` like the
//! runtime it is set for is kept; the real pinned CLIs pass, look-alikes do not.
//! The catalog runs alone on a store of its own, not in a `common::Fixture` engine: it is the
//! part under test.
#![cfg(unix)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::runtimes::catalog::RuntimeCatalog;
use clawboo_engine::store::Store;
use clawboo_engine::ErrorCode;

fn catalog(dir: &Path) -> RuntimeCatalog {
    RuntimeCatalog::new(Arc::new(Store::open(&dir.join("clawboo.db")).unwrap()))
}

fn script(dir: &Path, name: &str, prints: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\necho '{prints}'\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[tokio::test]
async fn the_real_clis_are_accepted_for_their_own_runtime_only() {
    let (Some(claude), Some(codex), Some(hermes)) =
        (common::cli("claude"), common::cli("codex"), common::cli("hermes"))
    else {
        return;
    };
    let dir = common::scratch_dir();
    let catalog = catalog(dir.path());
    for (kind, path) in
        [(RuntimeKind::ClaudeCode, &claude), (RuntimeKind::Codex, &codex), (RuntimeKind::Hermes, &hermes)]
    {
        catalog.set_custom_path(kind, Some(path.to_str().unwrap())).await.unwrap();
        assert_eq!(catalog.custom_path(kind).unwrap().as_ref(), Some(path));
    }
    // Codex's program set for Claude Code is refused, and the earlier path stays.
    let err = catalog.set_custom_path(RuntimeKind::ClaudeCode, Some(codex.to_str().unwrap())).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(
        err.to_string().contains("codex-cli 0.171.0") && err.to_string().contains("this is not Claude Code"),
        "{err}"
    );
    assert_eq!(catalog.custom_path(RuntimeKind::ClaudeCode).unwrap(), Some(claude.clone()));
}

#[tokio::test]
async fn look_alikes_and_non_programs_are_refused_and_nothing_is_lost() {
    let dir = common::scratch_dir();
    let catalog = catalog(dir.path());
    let real = script(dir.path(), "claude", "2.1.332 (Claude Code)");
    catalog.set_custom_path(RuntimeKind::ClaudeCode, Some(real.to_str().unwrap())).await.unwrap();

    let wrong = script(dir.path(), "claude-wrong", "claude 9.9.9");
    let hermes_for_openclaw = script(dir.path(), "openclaw", "Hermes Agent v0.19.0 (2026.7.20)");
    let plain = dir.path().join("plain");
    std::fs::write(&plain, "2.1.332 (Claude Code)").unwrap();
    for (kind, path, says) in [
        (RuntimeKind::ClaudeCode, wrong.clone(), "this is not Claude Code"),
        (RuntimeKind::Openclaw, hermes_for_openclaw, "this is not OpenClaw"),
        (RuntimeKind::ClaudeCode, plain, "not executable"),
        (RuntimeKind::ClaudeCode, dir.path().join("missing"), "no such program"),
        (RuntimeKind::ClaudeCode, PathBuf::from("bin/claude"), "not a full path"),
    ] {
        let err = catalog.set_custom_path(kind, Some(path.to_str().unwrap())).await.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput);
        assert!(err.to_string().contains(says), "{err}");
    }
    assert_eq!(catalog.custom_path(RuntimeKind::ClaudeCode).unwrap(), Some(real), "the good path is kept");
    assert_eq!(catalog.custom_path(RuntimeKind::Openclaw).unwrap(), None);
    catalog.set_custom_path(RuntimeKind::ClaudeCode, None).await.unwrap();
    assert_eq!(catalog.custom_path(RuntimeKind::ClaudeCode).unwrap(), None, "clearing needs no probe");
}
