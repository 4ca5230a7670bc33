use clawboo_engine::agents::{
    Agent, AgentFile, AgentFileInfo, AgentPatch, NewAgent, OpenclawGateway, OpenclawGatewayInput,
};
use clawboo_engine::vocab::GatewayHealth;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn list_agents(state: State<'_, AppState>) -> Result<Vec<Agent>, AppError> {
    state.run(|e| e.agents().list()).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_agent(state: State<'_, AppState>, input: NewAgent) -> Result<Agent, AppError> {
    state.run(move |e| e.agents().create(input)).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_agent(state: State<'_, AppState>, id: String, patch: AgentPatch) -> Result<Agent, AppError> {
    state.run(move |e| e.agents().update(&id, patch)).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_agent(state: State<'_, AppState>, id: String) -> Result<(), AppError> {
    state.run(move |e| e.delete_agent(&id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn list_agent_files(state: State<'_, AppState>, agent_id: String) -> Result<Vec<AgentFileInfo>, AppError> {
    state.run(move |e| e.agents().list_files(&agent_id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn read_agent_file(
    state: State<'_, AppState>,
    agent_id: String,
    name: String,
) -> Result<AgentFile, AppError> {
    state.run(move |e| e.agents().read_file(&agent_id, &name)).await
}

#[tauri::command]
#[specta::specta]
pub async fn write_agent_file(
    state: State<'_, AppState>,
    agent_id: String,
    name: String,
    content: String,
) -> Result<AgentFile, AppError> {
    state.run(move |e| e.agents().write_file(&agent_id, &name, &content)).await
}

/// Which Gateway an OpenClaw agent uses; whether its token is set, never the token.
#[tauri::command]
#[specta::specta]
pub async fn get_openclaw_gateway(state: State<'_, AppState>, agent_id: String) -> Result<OpenclawGateway, AppError> {
    state.run(move |e| e.openclaw_gateway(&agent_id)).await
}

/// Points an OpenClaw agent at a Gateway the user runs (URL + token, the token to the
/// keychain), or back to one Clawboo starts (`url: null`).
#[tauri::command]
#[specta::specta]
pub async fn set_openclaw_gateway(
    state: State<'_, AppState>,
    agent_id: String,
    input: OpenclawGatewayInput,
) -> Result<OpenclawGateway, AppError> {
    state.run(move |e| e.set_openclaw_gateway(&agent_id, input)).await
}

/// The health of the link to each OpenClaw Gateway an agent runs on (connected / connecting /
/// lost, latency, version, since, last error); updates arrive as `GatewayHealthChanged`.
#[tauri::command]
#[specta::specta]
pub async fn gateway_healths(state: State<'_, AppState>) -> Result<Vec<GatewayHealth>, AppError> {
    state.run(move |e| Ok(e.gateway_healths())).await
}
