//! Boo Zero, the user's own coordinator: which agent it is, its rules and the global brief.

use clawboo_engine::boo_zero::BooZeroInfo;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// Boo Zero's agent id, its rules (with the default and budget) and the global brief.
#[tauri::command]
#[specta::specta]
pub async fn boo_zero(state: State<'_, AppState>) -> Result<BooZeroInfo, AppError> {
    state.run(|e| e.boo_zero().info()).await
}

/// Sets Boo Zero's rules; `None` goes back to the default.
#[tauri::command]
#[specta::specta]
pub async fn set_boo_zero_rules(state: State<'_, AppState>, text: Option<String>) -> Result<BooZeroInfo, AppError> {
    state.run(move |e| e.boo_zero().set_rules(text.as_deref())).await
}

/// Saves the global brief (Details > Brief on Boo Zero's page): sent to no agent.
#[tauri::command]
#[specta::specta]
pub async fn set_global_brief(state: State<'_, AppState>, text: String) -> Result<BooZeroInfo, AppError> {
    state.run(move |e| e.boo_zero().set_global_brief(&text)).await
}
