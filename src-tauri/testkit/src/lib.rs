//! Helpers shared by Clawboo's tests. A dev-dependency only: nothing here ships in the app.

pub mod fake_model;

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
