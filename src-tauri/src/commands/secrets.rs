//! API keys go in and only a yes/no comes out: no command returns a key.

use clawboo_engine::models::ProviderModels;
use clawboo_engine::secrets::{Provider, ProviderStatus};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn list_providers(state: State<'_, AppState>) -> Result<Vec<ProviderStatus>, AppError> {
    state.run(|e| e.secrets().statuses()).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_api_key(state: State<'_, AppState>, provider: Provider, key: String) -> Result<(), AppError> {
    state.run(move |e| e.secrets().set_api_key(provider, &key)).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_api_key(state: State<'_, AppState>, provider: Provider) -> Result<(), AppError> {
    state.run(move |e| e.secrets().delete_api_key(provider)).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_base_url(state: State<'_, AppState>, provider: Provider, url: Option<String>) -> Result<(), AppError> {
    state.run(move |e| e.secrets().set_base_url(provider, url.as_deref()).map(drop)).await
}

/// The models the provider offers (its `GET /v1/models`), asked by the engine with the stored
/// key; kept from the last time unless `refresh`. Only model ids come back.
#[tauri::command]
#[specta::specta]
pub async fn provider_models(
    state: State<'_, AppState>,
    provider: Provider,
    refresh: bool,
) -> Result<ProviderModels, AppError> {
    state.run(move |e| e.provider_models(provider, refresh)).await
}
