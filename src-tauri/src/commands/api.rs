//! The local API in Settings: whether it is on, its address, and its token (the one command that
//! returns a secret: the user asked to see or copy it). One thin command per `LocalApi` call.

use clawboo_engine::api::LocalApiStatus;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn local_api_status(state: State<'_, AppState>) -> Result<LocalApiStatus, AppError> {
    state.run(|e| e.local_api().status()).await
}

/// Switches the API on (listening at once, a token made on first use) or off (it stops at once);
/// kept across restarts. Codes: `keychain_unavailable` (no token can be kept), `io`.
#[tauri::command]
#[specta::specta]
pub async fn local_api_set_enabled(state: State<'_, AppState>, enabled: bool) -> Result<LocalApiStatus, AppError> {
    state.run(move |e| e.local_api().set_enabled(enabled)).await
}

/// The bearer token, for the user to reveal or copy (made when there is none yet).
#[tauri::command]
#[specta::specta]
pub async fn local_api_token(state: State<'_, AppState>) -> Result<String, AppError> {
    state.run(|e| e.local_api().token()).await
}

/// A new token; the old one stops working at once. Returns the new one.
#[tauri::command]
#[specta::specta]
pub async fn local_api_regenerate_token(state: State<'_, AppState>) -> Result<String, AppError> {
    state.run(|e| e.local_api().regenerate_token()).await
}
