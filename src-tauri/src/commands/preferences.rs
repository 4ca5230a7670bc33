//! What the window remembers between starts: the theme, and the place it showed last.

use clawboo_engine::preferences::{Theme, WindowPreferences};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn window_preferences(state: State<'_, AppState>) -> Result<WindowPreferences, AppError> {
    state.run(|e| e.window_preferences()).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_theme(state: State<'_, AppState>, theme: Theme) -> Result<Theme, AppError> {
    state.run(move |e| e.set_theme(theme)).await
}

/// `place` is the UI's route as JSON (at most 1 KiB); `null` forgets it.
#[tauri::command]
#[specta::specta]
pub async fn set_last_place(state: State<'_, AppState>, place: Option<String>) -> Result<(), AppError> {
    state.run(move |e| e.set_last_place(place.as_deref())).await
}
