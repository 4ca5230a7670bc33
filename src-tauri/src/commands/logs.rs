//! The app's log: its level (applied at once) and its last lines, for an error's "Copy details".

use clawboo_engine::logs::LogLevel;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn log_level(state: State<'_, AppState>) -> Result<LogLevel, AppError> {
    state.run(|e| e.log_level()).await
}

/// Stores the level and logs at it from the next event on.
#[tauri::command]
#[specta::specta]
pub async fn set_log_level(state: State<'_, AppState>, level: LogLevel) -> Result<LogLevel, AppError> {
    let level = state.run(move |e| e.set_log_level(level)).await?;
    if let Some(logging) = crate::logging::installed() {
        logging.apply(level);
    }
    Ok(level)
}

/// The log's last `lines` lines, oldest first (at most 50, and 16 KiB in all).
#[tauri::command]
#[specta::specta]
pub async fn recent_log_lines(state: State<'_, AppState>, lines: u32) -> Result<Vec<String>, AppError> {
    state.run(move |e| e.recent_log_lines(lines)).await
}
