use clawboo_engine::context::files::SOUL_BUDGET;
use serde::Serialize;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    pub version: String,
    pub data_dir: String,
    /// SOUL.md's budget in characters: over it, runs are refused (the file is never cut).
    pub persona_budget: u32,
}

#[tauri::command]
#[specta::specta]
pub async fn app_info(state: State<'_, AppState>) -> Result<AppInfo, AppError> {
    let engine = state.engine().await?;
    Ok(AppInfo {
        version: crate::VERSION.to_owned(),
        data_dir: engine.config().data_dir.display().to_string(),
        persona_budget: SOUL_BUDGET as u32,
    })
}

/// The UI's first interactive screen is up (see `startup::interactive`).
#[tauri::command]
#[specta::specta]
pub fn report_interactive() {
    crate::startup::interactive();
}
