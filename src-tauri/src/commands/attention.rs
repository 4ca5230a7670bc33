//! Attention as the user sees it: the inbox of open requests, their history and audit, the
//! user's answers, "Allow always" grants and the expiry setting. Answering here is the user
//! acting in the app: the only way any request is answered.

use clawboo_engine::attention::{
    AttentionRequest, AttentionSettings, AuditEntry, Decision, Grant, TrayState, UserAnswer, Viewing,
};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;
use crate::tray::TrayWatch;

/// Open requests, newest first.
#[tauri::command]
#[specta::specta]
pub async fn attention_open(state: State<'_, AppState>) -> Result<Vec<AttentionRequest>, AppError> {
    state.run(|e| e.attention().open()).await
}

/// Every request, newest first, `limit` at most, after request `before` (the id of the last
/// one of the previous page) when given.
#[tauri::command]
#[specta::specta]
pub async fn attention_history(
    state: State<'_, AppState>,
    before: Option<String>,
    limit: u32,
) -> Result<Vec<AttentionRequest>, AppError> {
    state.run(move |e| e.attention().history(before.as_deref(), limit)).await
}

#[tauri::command]
#[specta::specta]
pub async fn attention_get(state: State<'_, AppState>, id: String) -> Result<AttentionRequest, AppError> {
    state.run(move |e| e.attention().get(&id)).await
}

/// The user's answer: text for a question, a decision for an approval.
#[tauri::command]
#[specta::specta]
pub async fn attention_answer(
    state: State<'_, AppState>,
    id: String,
    answer: UserAnswer,
) -> Result<AttentionRequest, AppError> {
    state.run(move |e| e.answer_attention(&id, answer)).await
}

/// The audit, newest first (of one request when `requestId` is given), older than `before` (seq).
#[tauri::command]
#[specta::specta]
pub async fn attention_audit(
    state: State<'_, AppState>,
    request_id: Option<String>,
    before: Option<i64>,
    limit: u32,
) -> Result<Vec<AuditEntry>, AppError> {
    state.run(move |e| e.attention().audit(request_id.as_deref(), before, limit)).await
}

#[tauri::command]
#[specta::specta]
pub async fn attention_grants(state: State<'_, AppState>) -> Result<Vec<Grant>, AppError> {
    state.run(|e| e.attention().grants()).await
}

#[tauri::command]
#[specta::specta]
pub async fn attention_revoke_grant(state: State<'_, AppState>, id: String) -> Result<(), AppError> {
    state.run(move |e| e.attention().revoke_grant(&id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn attention_settings(state: State<'_, AppState>) -> Result<AttentionSettings, AppError> {
    state.run(|e| e.attention().settings()).await
}

#[tauri::command]
#[specta::specta]
pub async fn attention_set_settings(
    state: State<'_, AppState>,
    settings: AttentionSettings,
) -> Result<AttentionSettings, AppError> {
    state.run(move |e| e.attention().set_settings(settings)).await
}

/// What the tray shows now (the count, the tooltip, the newest few): WebDriver cannot see the
/// tray, so tests and the UI's badge read it here.
#[tauri::command]
#[specta::specta]
pub async fn tray_state(state: State<'_, AppState>) -> Result<TrayState, AppError> {
    state.run(|e| e.attention().tray_state()).await
}

/// What the window shows (a team's chat, an agent's chat, or neither): no notification is
/// raised for it while the window has focus.
#[tauri::command]
#[specta::specta]
pub fn attention_viewing(watch: State<'_, TrayWatch>, viewing: Option<Viewing>) {
    watch.set_viewing(viewing);
}

/// Answers a runtime's permission question in a run's timeline (Allow once, Allow always,
/// Deny): the same approval the inbox shows.
#[tauri::command]
#[specta::specta]
pub async fn answer_permission(
    state: State<'_, AppState>,
    run_id: String,
    request_id: String,
    decision: Decision,
) -> Result<AttentionRequest, AppError> {
    state.run(move |e| e.answer_permission(&run_id, &request_id, decision)).await
}
