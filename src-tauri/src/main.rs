// Hide the console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // Answered before any window or GTK starts, so it works without a display (packaging checks).
    if std::env::args().nth(1).as_deref() == Some("--version") {
        println!("Clawboo {}", clawboo_lib::VERSION);
        return;
    }
    clawboo_lib::run();
}
