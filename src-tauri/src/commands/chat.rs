use clawboo_engine::chat::{ChatHistory, RunEventRecord, SendOutcome};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn chat_history(state: State<'_, AppState>, agent_id: String) -> Result<ChatHistory, AppError> {
    state.run(move |e| e.chat().history(&agent_id)).await
}

/// Starts the run and returns at once; the reply arrives through events.
#[tauri::command]
#[specta::specta]
pub async fn send_chat_message(
    state: State<'_, AppState>,
    agent_id: String,
    text: String,
) -> Result<SendOutcome, AppError> {
    state.run(move |e| e.chat().send(&agent_id, &text)).await
}

#[tauri::command]
#[specta::specta]
pub async fn cancel_run(state: State<'_, AppState>, run_id: String) -> Result<(), AppError> {
    state.run(move |e| e.chat().cancel(&run_id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn answer_permission(
    state: State<'_, AppState>,
    run_id: String,
    request_id: String,
    allow: bool,
) -> Result<(), AppError> {
    state.run(move |e| e.chat().answer_permission(&run_id, &request_id, allow)).await
}

#[tauri::command]
#[specta::specta]
pub async fn run_activity(state: State<'_, AppState>, run_id: String) -> Result<Vec<RunEventRecord>, AppError> {
    state.run(move |e| e.chat().run_activity(&run_id)).await
}
