//! The app's one `tracing` subscriber, installed once at start: events go to the size-capped
//! log file in the data folder (`logs/clawboo.log`, see `clawboo_engine::logs`) and, in debug
//! builds, to stderr. The level is the user's setting, applied live through a reload handle.

use std::path::Path;
use std::sync::{Mutex, OnceLock};

use clawboo_engine::logs::{LogLevel, RotatingFile};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{fmt, reload, Registry};

/// Clawboo's own crates log at the chosen level. Libraries (hyper, reqwest, Tauri) log warnings
/// and errors only, whatever it is: their debug output may quote request headers, and Clawboo's
/// requests carry keys and tokens. A target matches by prefix, so `clawboo` covers every
/// `clawboo_*` crate under the engine too (`clawboo_runtimes`, `clawboo_run`, ...).
const OWN_TARGETS: [&str; 3] = ["clawboo", "clawboo_lib", "clawboo_engine"];
/// Never logged: the MCP SDK prints whole transport errors, URLs included, and a tools-bridge
/// URL carries its run's token (`/mcp/<token>`). A connector that fails is reported by Clawboo
/// (the run's warnings) instead.
const SILENT_TARGETS: [&str; 1] = ["rmcp"];

pub struct Logging {
    filter: reload::Handle<Targets, Registry>,
}

static INSTALLED: OnceLock<Logging> = OnceLock::new();

/// Installs the subscriber for this process, writing to `log_dir` (and to stderr when
/// `to_stderr`). Once only: a second call returns the first one's handle and changes nothing.
/// A log folder that cannot be written leaves stderr alone (said there, as a warning).
pub fn install(log_dir: &Path, level: LogLevel, to_stderr: bool) -> &'static Logging {
    if let Some(installed) = INSTALLED.get() {
        return installed;
    }
    let (filter, handle) = reload::Layer::new(targets(level));
    let (file, unwritable) = match RotatingFile::open(log_dir) {
        Ok(file) => (Some(fmt::layer().with_ansi(false).with_writer(Mutex::new(file))), None),
        Err(e) => (None, Some(e)),
    };
    // Without a file, stderr is the only place left to say anything.
    let stderr = (to_stderr || file.is_none()).then(|| fmt::layer().with_ansi(false).with_writer(std::io::stderr));
    let installed = tracing_subscriber::registry().with(filter).with(file).with(stderr).try_init().is_ok();
    if let Some(e) = unwritable {
        tracing::warn!(log_dir = %log_dir.display(), error = %e, "no log file: the log folder cannot be written");
    }
    if installed {
        tracing::info!(log_dir = %log_dir.display(), level = level.as_str(), "logging");
        log_panics();
    }
    INSTALLED.get_or_init(|| Logging { filter: handle })
}

/// A panic is logged too (then reported as before), so the log of a crash says where it was.
fn log_panics() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let thread = std::thread::current().name().unwrap_or("unnamed").to_owned();
        tracing::error!(%thread, panic = %info, "a thread panicked");
        report(info);
    }));
}

/// The subscriber installed by [`install`], if any (tests of commands run without one).
pub fn installed() -> Option<&'static Logging> {
    INSTALLED.get()
}

impl Logging {
    /// From the next event on, logs at `level`.
    pub fn apply(&self, level: LogLevel) {
        if let Err(e) = self.filter.modify(|filter| *filter = targets(level)) {
            tracing::warn!(error = %e, "the log level could not be changed");
        }
    }
}

fn targets(level: LogLevel) -> Targets {
    let own = LevelFilter::from_level(level.tracing_level());
    let libraries = own.min(LevelFilter::WARN);
    let silent = SILENT_TARGETS
        .into_iter()
        .fold(Targets::new().with_default(libraries), |targets, target| targets.with_target(target, LevelFilter::OFF));
    OWN_TARGETS.into_iter().fold(silent, |targets, target| targets.with_target(target, own))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libraries_never_log_below_warnings() {
        let debug = targets(LogLevel::Debug);
        assert!(debug.would_enable("clawboo_engine::chat::team", &tracing::Level::DEBUG));
        assert!(debug.would_enable("clawboo_runtimes::relay::server", &tracing::Level::DEBUG));
        assert!(debug.would_enable("clawboo_run::run::drive", &tracing::Level::DEBUG));
        assert!(debug.would_enable("clawboo_lib::tray", &tracing::Level::DEBUG));
        assert!(!debug.would_enable("hyper::proto", &tracing::Level::INFO));
        assert!(!debug.would_enable("rmcp::transport::worker", &tracing::Level::ERROR), "the MCP SDK never");
        assert!(debug.would_enable("tauri::app", &tracing::Level::WARN));
        let errors = targets(LogLevel::Error);
        assert!(!errors.would_enable("clawboo_engine", &tracing::Level::WARN));
        assert!(!errors.would_enable("reqwest", &tracing::Level::WARN));
        assert!(errors.would_enable("reqwest", &tracing::Level::ERROR));
    }
}
