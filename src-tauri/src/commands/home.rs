//! Home: what is running and what needs the user.

use clawboo_engine::home::HomeSummary;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// The runs in progress (who, on what, since when, where), the open requests, the blocked cards
/// and the routines due next.
#[tauri::command]
#[specta::specta]
pub async fn home_summary(state: State<'_, AppState>) -> Result<HomeSummary, AppError> {
    state.run(|e| e.home_summary()).await
}
