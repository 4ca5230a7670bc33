//! Helpers shared by Clawboo's tests. A dev-dependency only: nothing here ships in the app.

pub mod bench;
pub mod fake_model;
pub mod secret_scan;

pub use fake_model::{last_user_text, Behavior, FakeModelServer, RecordedRequest, Reply, Rule};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A fresh data directory that is deleted when dropped.
pub struct TempDataDir {
    dir: tempfile::TempDir,
}

impl TempDataDir {
    pub fn new() -> Self {
        Self { dir: tempfile::Builder::new().prefix("clawboo-test-").tempdir().expect("create temp data dir") }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.dir.path().join(rel)
    }
}

impl Default for TempDataDir {
    fn default() -> Self {
        Self::new()
    }
}

/// Polls `probe` until it returns `Some`, or panics after `limit` naming `what`.
/// For waiting on something asynchronous (a watcher, a process), never for measuring speed.
pub fn wait_for<T>(what: &str, limit: Duration, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out after {limit:?} waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A keychain service name no other test (or the real app) uses.
pub fn unique_keychain_service(test: &str) -> String {
    format!("clawboo-test-{test}-{}-{}", std::process::id(), nanos())
}

fn nanos() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// The SQL that appends finished exchanges to an agent's chat (parameters `:agent`, `:count`).
pub const SEED_CHAT_SQL: &str = include_str!("seed_chat.sql");

/// Appends `exchanges` finished exchanges (user message, run, reply) to the one-to-one chat of
/// `agent_id` in the database at `db`, straight into SQLite: a chat at exchange 1,000 in a moment.
pub fn seed_chat(db: &Path, agent_id: &str, exchanges: u32) {
    let conn = rusqlite::Connection::open(db).expect("open the database to seed");
    conn.busy_timeout(Duration::from_secs(5)).expect("busy timeout");
    let tx = conn.unchecked_transaction().expect("begin");
    // One statement at a time: each binds the parameters it names.
    for statement in SEED_CHAT_SQL.split(";\n").map(str::trim).filter(|s| s.lines().any(|l| !l.starts_with("--"))) {
        let mut stmt = tx.prepare(statement).expect("seed statement");
        for (name, value) in
            [(":agent", rusqlite::types::Value::Text(agent_id.into())), (":count", i64::from(exchanges).into())]
        {
            if let Some(index) = stmt.parameter_index(name).expect("parameter") {
                stmt.raw_bind_parameter(index, value).expect("bind");
            }
        }
        stmt.raw_execute().expect("seed the chat");
    }
    tx.commit().expect("commit the seed");
}

/// The built `fake_mcp_server` example (a stdio MCP server with one tool, `lookup`): built on
/// first use with the cargo that runs the tests, and its path returned. Built as part of the
/// workspace (`--workspace`, as `cargo test --workspace` builds): `-p clawboo-testkit` alone
/// resolves other features and compiled a dozen dependencies again, mid-test, on a fresh machine.
pub fn fake_mcp_server() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let output = std::process::Command::new(cargo)
                .args(["build", "--workspace", "--example", "fake_mcp_server", "--message-format=json"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .stderr(std::process::Stdio::inherit())
                .output()
                .expect("cargo builds the fake MCP server");
            assert!(output.status.success(), "building the fake MCP server failed");
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
                .find_map(|m| {
                    let built = m["reason"] == "compiler-artifact" && m["target"]["name"] == "fake_mcp_server";
                    m["executable"].as_str().filter(|_| built).map(PathBuf::from)
                })
                .expect("cargo names the built fake MCP server")
        })
        .clone()
}
