// Hide the console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::time::Duration;

fn main() {
    // Answered before any window or GTK starts, so it works without a display (packaging checks).
    if std::env::args().nth(1).as_deref() == Some("--version") {
        println!("Clawboo {}", clawboo_lib::VERSION);
        return;
    }
    clawboo_lib::resident::limit_arenas();
    clawboo_lib::resident::give_back_periodically(Duration::from_secs(10), Duration::from_secs(60));
    clawboo_lib::run();
}
