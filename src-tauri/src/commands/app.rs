use clawboo_engine::agents::PERSONA_BUDGET_CHARS;
use serde::Serialize;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    pub version: String,
    pub data_dir: String,
    /// Characters of SOUL.md that runtimes without a persona of their own receive.
    pub persona_budget: u32,
}

#[tauri::command]
#[specta::specta]
pub async fn app_info(state: State<'_, AppState>) -> Result<AppInfo, AppError> {
    let engine = state.engine()?;
    Ok(AppInfo {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        data_dir: engine.config().data_dir.display().to_string(),
        persona_budget: PERSONA_BUDGET_CHARS,
    })
}
