//! Connectors (MCP servers the user plugs in): secrets go in, only "is set" comes out.

use clawboo_engine::connectors::{Connector, ConnectorInput, SuggestedConnector, SUGGESTED};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn list_connectors(state: State<'_, AppState>) -> Result<Vec<Connector>, AppError> {
    state.run(|e| e.connectors().list()).await
}

/// Well-known MCP servers the user could add (hints for the form).
#[tauri::command]
#[specta::specta]
pub fn suggested_connectors() -> Vec<SuggestedConnector> {
    SUGGESTED.to_vec()
}

#[tauri::command]
#[specta::specta]
pub async fn create_connector(state: State<'_, AppState>, input: ConnectorInput) -> Result<Connector, AppError> {
    state.run(move |e| e.connectors().create(input)).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_connector(
    state: State<'_, AppState>,
    id: String,
    input: ConnectorInput,
) -> Result<Connector, AppError> {
    state.run(move |e| e.connectors().update(&id, input)).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_connector(state: State<'_, AppState>, id: String) -> Result<(), AppError> {
    state.run(move |e| e.connectors().delete(&id)).await
}

/// Shares a connector with exactly these agents.
#[tauri::command]
#[specta::specta]
pub async fn set_connector_shares(
    state: State<'_, AppState>,
    id: String,
    agent_ids: Vec<String>,
) -> Result<Connector, AppError> {
    state.run(move |e| e.connectors().set_shares(&id, &agent_ids)).await
}

/// Shares or unshares one connector with one agent (the agent page's toggles).
#[tauri::command]
#[specta::specta]
pub async fn share_connector(
    state: State<'_, AppState>,
    id: String,
    agent_id: String,
    shared: bool,
) -> Result<Connector, AppError> {
    state.run(move |e| e.connectors().share(&id, &agent_id, shared)).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_connector_secret(
    state: State<'_, AppState>,
    id: String,
    key: String,
    value: String,
) -> Result<Connector, AppError> {
    state.run(move |e| e.connectors().set_secret(&id, &key, &value)).await
}

#[tauri::command]
#[specta::specta]
pub async fn clear_connector_secret(
    state: State<'_, AppState>,
    id: String,
    key: String,
) -> Result<Connector, AppError> {
    state.run(move |e| e.connectors().clear_secret(&id, &key)).await
}
