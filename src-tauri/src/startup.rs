//! Start-up: what must be settled before the webview exists, and the measurement of how long
//! the first interactive screen takes (printed only when `CLAWBOO_STARTUP_REPORT` is set).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

static STARTED: OnceLock<Instant> = OnceLock::new();
static REPORTED: AtomicBool = AtomicBool::new(false);

/// Called first thing in `run`, while the process is still single-threaded.
pub fn begin() {
    STARTED.get_or_init(Instant::now);
    #[cfg(target_os = "linux")]
    lean_webkit();
}

/// WebKitGTK's accelerated compositing keeps a second rendering path (and its buffers) in the
/// web process: ~70 MiB PSS more at idle for a UI that is flat panels and lists. Off unless the
/// user chose otherwise by setting the variable themselves.
#[cfg(target_os = "linux")]
fn lean_webkit() {
    const COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    if std::env::var_os(COMPOSITING).is_none() {
        // Safe here: no other thread exists yet to read the environment concurrently.
        std::env::set_var(COMPOSITING, "1");
    }
}

/// The UI reports its first interactive screen (sidebar rendered with its data). The first
/// report of the process is printed to stderr when `CLAWBOO_STARTUP_REPORT` is set, for
/// `scripts/bench`; otherwise this does nothing.
pub fn interactive() {
    if REPORTED.swap(true, Ordering::Relaxed) || std::env::var_os("CLAWBOO_STARTUP_REPORT").is_none() {
        return;
    }
    let since = STARTED.get().map_or(0.0, |t| t.elapsed().as_secs_f64() * 1000.0);
    eprintln!("clawboo: interactive {since:.1} ms after start");
}
