//! Start-up: what must be settled before the webview exists, what waits until the first screen
//! is interactive, and the measurement of how long that screen takes (printed only when
//! `CLAWBOO_STARTUP_REPORT` is set).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use clawboo_engine::EngineConfig;
use tauri::plugin::TauriPlugin;
use tauri::{Manager, Runtime};

static STARTED: OnceLock<Instant> = OnceLock::new();
static REPORTED: AtomicBool = AtomicBool::new(false);
static SHOWN: AtomicBool = AtomicBool::new(false);

const MAIN: &str = "main";
/// A page that never finishes loading still gets its window shown after this long.
const SHOW_AT_THE_LATEST: Duration = Duration::from_secs(4);

/// Called first thing in `run`, while the process is still single-threaded.
pub fn begin() {
    STARTED.get_or_init(Instant::now);
    #[cfg(target_os = "linux")]
    lean_webkit();
}

/// Settings the web process reads from its environment (inherited from this one) when WebKit
/// starts it, each kept when the user set the variable themselves:
/// - WebKitGTK's accelerated compositing keeps a second rendering path (and its buffers) in the
///   web process: ~70 MiB PSS more at idle for a UI that is flat panels and lists.
/// - JavaScriptCore's optimizing tiers (DFG, and FTL above it) keep their compiled code and their
///   compilers' own pages resident: ~9 MiB PSS at idle. The UI's scripts are event handlers and
///   list renders that the baseline JIT runs as fast (bench-chat, release, 2 × 2 runs: send →
///   reply 28–34 / 40–51 ms at exchange 10 / 1,000 without them, 32–36 / 46–49 with them).
#[cfg(target_os = "linux")]
fn lean_webkit() {
    for (name, value) in [("WEBKIT_DISABLE_COMPOSITING_MODE", "1"), ("JSC_useDFGJIT", "false")] {
        if std::env::var_os(name).is_none() {
            // Safe here: no other thread exists yet to read the environment concurrently.
            std::env::set_var(name, value);
        }
    }
}

/// What the page's first commands need, set up as the app is built: the events' registry, the log
/// file and the engine, opening on a thread of its own. A plugin's setup runs inside
/// `Builder::build`, before the event loop starts and Tauri makes the window (the app's own
/// `setup` runs only after that), so the engine opens while the toolkit starts and the window and
/// its web process are made, instead of after them.
pub fn open_early<R: Runtime>(events: tauri_specta::Builder<R>) -> TauriPlugin<R> {
    tauri::plugin::Builder::new("clawboo-start")
        .setup(move |app, _api| {
            milestone("plugins set up");
            // Before the engine can forward its first event.
            events.mount_events(app);
            // First, so everything after it is logged; in the data folder the engine will use.
            if let Ok(config) = EngineConfig::resolve(app.path().app_data_dir().ok()) {
                crate::logging::install(&config.log_dir(), Default::default(), cfg!(debug_assertions));
            }
            crate::install_engine(app);
            milestone("engine opening");
            let tray_app = app.clone();
            app.manage(AfterFirstScreen::new(move || crate::tray::create(&tray_app)));
            Ok(())
        })
        .build()
}

/// A step on the way to the first interactive screen (the engine open, the page's load started
/// and finished), printed like `interactive` when `CLAWBOO_STARTUP_REPORT` is set, so a slow start
/// can be placed: before the page, in its load, or in the UI's first render.
pub fn milestone(what: &str) {
    if std::env::var_os("CLAWBOO_STARTUP_REPORT").is_none() {
        return;
    }
    let since = ms_since_start();
    tracing::info!(what, ms = since, "start-up milestone");
    // Printed as well: scripts/bench reads it from stderr, in release builds too.
    eprintln!("clawboo: {what} {since:.1} ms after start");
}

/// The engine's open, step by step (the database and its migrations, the agents' folders, the
/// servers, the recoveries), printed like the milestones when `CLAWBOO_STARTUP_REPORT` is set.
pub fn engine_steps(steps: &clawboo_engine::OpenSteps) {
    if std::env::var_os("CLAWBOO_STARTUP_REPORT").is_none() {
        return;
    }
    let total = steps.total().as_secs_f64() * 1000.0;
    eprintln!("clawboo: engine open steps ({total:.1} ms): {}", steps.summary());
}

/// The UI reports its first interactive screen (sidebar rendered with its data) and the page's
/// steps on the way. What the first screen does not need starts now (the tray, on the main
/// thread this is called on). The first report of the process is printed to stderr when
/// `CLAWBOO_STARTUP_REPORT` is set, for `scripts/bench`.
pub fn interactive(after: &AfterFirstScreen, page_steps: &[crate::commands::app::PageStartStep]) {
    after.run();
    report_interactive(page_steps);
}

/// What waits for the first interactive screen (the tray), run once on the main thread: when the
/// page reports that screen, or after [`SHOW_AT_THE_LATEST`] if it never does (a page that could
/// not start). Managed by the app, so the command that reports the screen needs no runtime type.
pub struct AfterFirstScreen(Mutex<Option<Box<dyn FnOnce() + Send>>>);

impl AfterFirstScreen {
    pub fn new(work: impl FnOnce() + Send + 'static) -> Self {
        Self(Mutex::new(Some(Box::new(work))))
    }

    /// Runs the work, the first time only.
    pub fn run(&self) {
        let work = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(work) = work {
            work();
        }
    }
}

fn report_interactive(page_steps: &[crate::commands::app::PageStartStep]) {
    if REPORTED.swap(true, Ordering::Relaxed) || std::env::var_os("CLAWBOO_STARTUP_REPORT").is_none() {
        return;
    }
    let since = ms_since_start();
    tracing::info!(ms = since, "interactive");
    // The page counts from its own start (its load began): placed against "page load started".
    let steps: Vec<String> = page_steps.iter().map(|s| format!("{} {:.1}", s.name, s.ms)).collect();
    eprintln!("clawboo: page steps (ms after its load began): {}", steps.join(", "));
    // Printed as well: tests/e2e/bench-app.mjs reads it from stderr, in release builds too.
    eprintln!("clawboo: interactive {since:.1} ms after start");
}

/// The main window starts hidden (tauri.conf.json) and is shown once its page has loaded. Shown
/// earlier, WebKitGTK (compositing off) held the main thread up to 500 ms, waiting for a web
/// process not yet up to draw it: 4 launches in 10 took ~1,050 ms to the first interactive
/// screen instead of ~550 ms. Shown once: later loads (a reload) leave the window as it is.
pub fn show_main_window_once<R: Runtime>(window: &tauri::Window<R>) {
    if window.label() == MAIN && !SHOWN.swap(true, Ordering::SeqCst) {
        let _ = window.show();
    }
}

/// Shows the main window after [`SHOW_AT_THE_LATEST`] if its page has not loaded by then, and
/// makes the tray if no first interactive screen was reported (a page that failed to start).
pub fn show_main_window_later<R: Runtime>(app: &tauri::AppHandle<R>) {
    let app = app.clone();
    std::thread::spawn(move || {
        std::thread::sleep(SHOW_AT_THE_LATEST);
        if let Some(window) = app.get_webview_window(MAIN) {
            show_main_window_once(&window.as_ref().window());
        }
        let on_main = app.clone();
        let _ = app.run_on_main_thread(move || {
            if let Some(after) = on_main.try_state::<AfterFirstScreen>() {
                after.run();
            }
        });
    });
}

fn ms_since_start() -> f64 {
    STARTED.get().map_or(0.0, |t| t.elapsed().as_secs_f64() * 1000.0)
}
