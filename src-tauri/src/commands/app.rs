use clawboo_engine::context::files::SOUL_BUDGET;
use serde::{Deserialize, Serialize};
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

/// A step of the page's own start (its script fetched and run, its first render, its first
/// commands answered), in milliseconds since the page began to load.
#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PageStartStep {
    pub name: String,
    pub ms: f64,
}

/// The UI's first interactive screen is up, with the page's steps on the way to it (see
/// `startup::interactive`). A plain (not async) command: it runs on the main thread, where what
/// waited for the first screen (the tray) must be made.
#[tauri::command]
#[specta::specta]
pub fn report_interactive(after: State<'_, crate::startup::AfterFirstScreen>, steps: Vec<PageStartStep>) {
    crate::startup::interactive(&after, &steps);
}
