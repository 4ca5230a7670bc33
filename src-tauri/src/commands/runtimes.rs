use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::runtimes::catalog::RuntimeAccess;
use clawboo_engine::runtimes::detect::RuntimeInfo;
use clawboo_engine::runtimes::signin::Access;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// Each runtime: found (path, version) or not (with how to install it).
#[tauri::command]
#[specta::specta]
pub async fn list_runtimes(state: State<'_, AppState>) -> Result<Vec<RuntimeInfo>, AppError> {
    state.run(|e| e.block_on(e.runtimes().list())).await
}

/// Sets (or, with `null`, clears) the path of a runtime's program.
#[tauri::command]
#[specta::specta]
pub async fn set_runtime_path(
    state: State<'_, AppState>,
    kind: RuntimeKind,
    path: Option<String>,
) -> Result<RuntimeInfo, AppError> {
    state
        .run(move |e| {
            e.block_on(e.runtimes().set_custom_path(kind, path.as_deref()))?;
            e.block_on(e.runtimes().info(kind))
        })
        .await
}

/// What Claude Code and Codex use to reach their models: the user's own sign-in or a key.
#[tauri::command]
#[specta::specta]
pub async fn list_runtime_access(state: State<'_, AppState>) -> Result<Vec<RuntimeAccess>, AppError> {
    state.run(|e| e.runtimes().access_statuses(e.secrets())).await
}

/// Sets (or, with `null`, returns to automatic) what a runtime uses to reach its model.
#[tauri::command]
#[specta::specta]
pub async fn set_runtime_access(
    state: State<'_, AppState>,
    kind: RuntimeKind,
    access: Option<Access>,
) -> Result<Vec<RuntimeAccess>, AppError> {
    state
        .run(move |e| {
            e.runtimes().set_access(kind, access)?;
            e.runtimes().access_statuses(e.secrets())
        })
        .await
}

/// One runtime, looked for now: lets the first-run page show each as its probe ends.
#[tauri::command]
#[specta::specta]
pub async fn runtime_info(state: State<'_, AppState>, kind: RuntimeKind) -> Result<RuntimeInfo, AppError> {
    state.run(move |e| e.block_on(e.runtimes().info(kind))).await
}
