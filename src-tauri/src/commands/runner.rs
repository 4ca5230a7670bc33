//! The task runner: start a card's run, stop it, see exactly what a run was given and what it
//! changed (its diff), and the runner's settings (runs at once, time limits). One thin command
//! per `Runner` call.

use clawboo_engine::runner::worktree::CardDiff;
use clawboo_engine::runner::{RunnerSettings, StartOptions, TaskRunContext, TaskStart, TaskTrace};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// Claims the card and runs it for its assignee (or queues it while the limit of runs at once
/// is reached). `disableMemoryAutoInject` leaves the memory facts out of the run's context.
#[tauri::command]
#[specta::specta]
pub async fn board_run_start(
    state: State<'_, AppState>,
    card_id: String,
    disable_memory_auto_inject: bool,
) -> Result<TaskStart, AppError> {
    let options = StartOptions { disable_memory_auto_inject };
    state.run(move |e| e.runner().start(&card_id, options)).await
}

/// Stops the card's run (or takes it out of the queue); the card goes back to To do.
#[tauri::command]
#[specta::specta]
pub async fn board_run_cancel(state: State<'_, AppState>, card_id: String) -> Result<(), AppError> {
    state.run(move |e| e.runner().cancel(&card_id)).await
}

/// Exactly what a task run was given: its tiers, section by section, and where each went.
#[tauri::command]
#[specta::specta]
pub async fn board_run_context(state: State<'_, AppState>, run_id: String) -> Result<TaskRunContext, AppError> {
    state.run(move |e| e.runner().run_context(&run_id)).await
}

/// Traces of the newest task runs (Settings > Observability), newest first.
#[tauri::command]
#[specta::specta]
pub async fn runner_traces(state: State<'_, AppState>, limit: u32) -> Result<Vec<TaskTrace>, AppError> {
    state.run(move |e| e.runner().traces(limit)).await
}

/// What the card's runs changed in its git worktree (uncommitted and untracked files included),
/// against where its branch `clawboo/card-<number>` left the user's HEAD; once the card is Done,
/// the branch's commits. Codes: `invalid_input` (no project folder, or not a git repository),
/// `not_found` (it never ran there), `git` (git is missing or failed).
#[tauri::command]
#[specta::specta]
pub async fn board_run_diff(state: State<'_, AppState>, card_id: String) -> Result<CardDiff, AppError> {
    state.run(move |e| e.runner().diff(&card_id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn runner_settings(state: State<'_, AppState>) -> Result<RunnerSettings, AppError> {
    state.run(move |e| e.runner().settings()).await
}

/// Stores the runner's settings (runs at once 1–32, time limits of at least a second).
#[tauri::command]
#[specta::specta]
pub async fn runner_set_settings(
    state: State<'_, AppState>,
    settings: RunnerSettings,
) -> Result<RunnerSettings, AppError> {
    state.run(move |e| e.runner().set_settings(settings)).await
}
