//! Claude Code's confining flags (`--setting-sources ""`, `--strict-mcp-config`, and under
//! read-only `--restricted` and `--tools`) are chosen from what its `--help` lists. When that
//! help cannot be read (it fails, hangs, or is not Claude's help), the run is refused with
//! `runtime_probe_failed` and a fix, and Claude is never started. A help that lists them gets
//! them; a help without the token-streaming flag only loses that. Fake `claude` scripts.
#![cfg(unix)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::runtimes::claude_code::ClaudeCodeRuntime;
use clawboo_engine::runtimes::process::SystemSpawner;
use clawboo_engine::runtimes::{ApprovalPolicy, Endpoint, RunChannels, Runtime, TurnInput};
use clawboo_engine::ErrorCode;
use common::Fixed;
use tokio::sync::{mpsc, watch};

/// What Claude Code 2.1.332 lists, minus token streaming.
const HELP: &str = "  --output-format <format>  Output format\n  --setting-sources <sources>  Sources\n  \
                    --strict-mcp-config  Only --mcp-config\n  --restricted  Restricted mode\n  --tools <tools...>  \
                    Built-in tools\n  --system-prompt-snapshot <on|off>  Record it\n";

struct Fake {
    dir: tempfile::TempDir,
    program: PathBuf,
}

impl Fake {
    /// A `claude` whose `--help` runs `on_help`; anything else leaves `started` and fails.
    fn new(on_help: &str) -> Fake {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("claude");
        let started = dir.path().join("started");
        std::fs::write(
            &program,
            format!("#!/bin/sh\nif [ \"$1\" = --help ]; then\n{on_help}\nfi\ntouch '{}'\nexit 1\n", started.display()),
        )
        .unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        Fake { dir, program }
    }

    fn started(&self) -> bool {
        self.dir.path().join("started").exists()
    }

    fn input(&self, approval: ApprovalPolicy) -> TurnInput {
        let workspace = self.dir.path().join("work");
        std::fs::create_dir_all(&workspace).unwrap();
        let agent = common::agent_record(RuntimeKind::ClaudeCode, approval);
        let agent_dir = self.dir.path().join("agent");
        TurnInput { program: Some(self.program.clone()), ..common::turn_input(agent, &workspace, &agent_dir, "Hello") }
    }
}

fn runtime() -> Arc<ClaudeCodeRuntime> {
    let endpoint = Endpoint { base_url: "http://127.0.0.1:9".into(), api_key: Some("sk-fake".into()) };
    Arc::new(ClaudeCodeRuntime::new(Arc::new(SystemSpawner), Arc::new(Fixed(endpoint))))
}

/// A whole run: Err when it did not start.
async fn run(fake: &Fake) -> clawboo_engine::Result<()> {
    let (events, _events) = mpsc::unbounded_channel();
    let (permissions, _permissions) = mpsc::unbounded_channel();
    let (_cancel, cancel) = watch::channel(false);
    let channels = RunChannels { events, permissions, cancel };
    runtime().run(fake.input(ApprovalPolicy::Ask), channels).await.map(|_| ())
}

fn refused(fake: &Fake, err: clawboo_engine::Error, why: &str) {
    assert_eq!(err.code(), ErrorCode::RuntimeProbeFailed, "{err}");
    let message = err.to_string();
    assert!(message.contains(why), "{message}");
    assert!(message.contains(&format!("Check the install: run `{} --help`", fake.program.display())), "{message}");
    assert!(message.contains("--setting-sources") && message.contains("--strict-mcp-config"), "{message}");
    assert!(!fake.started(), "Claude was never started");
}

fn arg_after<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).map(String::as_str)
}

#[tokio::test]
async fn a_claude_whose_help_fails_is_refused_and_never_started() {
    let fake = Fake::new("echo 'Error: cannot find module' >&2\nexit 2");
    let err = run(&fake).await.unwrap_err();
    refused(&fake, err, "`--help` exited with status 2: Error: cannot find module");
    // The command alone says the same, and is asked again each time (nothing remembered).
    let err = runtime().command(&fake.input(ApprovalPolicy::Ask)).unwrap_err();
    refused(&fake, err, "exited with status 2");
}

#[tokio::test]
async fn a_claude_whose_help_hangs_is_refused_once_the_deadline_passes() {
    let fake = Fake::new("exec sleep 60");
    let started = Instant::now();
    let err = run(&fake).await.unwrap_err();
    refused(&fake, err, "it did not answer `--help` within 10 s");
    let took = started.elapsed();
    assert!(took >= Duration::from_secs(10) && took < Duration::from_secs(40), "{took:?}");
}

#[tokio::test]
async fn a_help_that_is_not_claudes_is_refused() {
    for on_help in ["exit 0", "echo 'usage: claude [options]'\nexit 0"] {
        let fake = Fake::new(on_help);
        let err = run(&fake).await.unwrap_err();
        refused(&fake, err, "its `--help` does not list --output-format");
    }
}

#[tokio::test]
async fn a_help_that_lists_the_confining_flags_gets_them_and_only_token_streaming_is_dropped() {
    let fake = Fake::new(&format!("printf '%s' '{HELP}'\nexit 0"));
    let ask = runtime().command(&fake.input(ApprovalPolicy::Ask)).unwrap().args;
    assert_eq!(arg_after(&ask, "--setting-sources"), Some(""));
    assert!(ask.iter().any(|a| a == "--strict-mcp-config"), "{ask:?}");
    assert_eq!(arg_after(&ask, "--system-prompt-snapshot"), Some("off"));
    assert!(!ask.iter().any(|a| a == "--include-partial-messages"), "not listed, so not passed: {ask:?}");
    assert!(!ask.iter().any(|a| a == "--restricted"));

    let read_only = runtime().command(&fake.input(ApprovalPolicy::ReadOnly)).unwrap().args;
    assert!(read_only.iter().any(|a| a == "--restricted"), "{read_only:?}");
    assert!(arg_after(&read_only, "--tools").is_some_and(|t| t.starts_with("Read,")), "{read_only:?}");
    assert!(!fake.started());
}
