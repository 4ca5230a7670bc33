//! Routines: work on a schedule. Thin wrappers over the engine's `Routines` service.

use clawboo_engine::routines::{
    Routine, RoutineDetail, RoutineInput, RoutineRun, Schedule, SchedulePresets, SchedulePreview,
};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// Every routine, by name, each with its last run.
#[tauri::command]
#[specta::specta]
pub async fn routines_list(state: State<'_, AppState>) -> Result<Vec<Routine>, AppError> {
    state.run(|e| e.routines().list()).await
}

/// A routine and its newest `limit` runs (newest first).
#[tauri::command]
#[specta::specta]
pub async fn routine_get(state: State<'_, AppState>, id: String, limit: u32) -> Result<RoutineDetail, AppError> {
    state.run(move |e| e.routines().detail(&id, limit)).await
}

/// A new routine; an invalid schedule is refused (`invalid_schedule`) before anything is saved.
#[tauri::command]
#[specta::specta]
pub async fn routine_create(state: State<'_, AppState>, input: RoutineInput) -> Result<Routine, AppError> {
    state.run(move |e| e.routines().create(input)).await
}

/// Edits a routine; its next run is computed again from now.
#[tauri::command]
#[specta::specta]
pub async fn routine_update(state: State<'_, AppState>, id: String, input: RoutineInput) -> Result<Routine, AppError> {
    state.run(move |e| e.routines().update(&id, input)).await
}

#[tauri::command]
#[specta::specta]
pub async fn routine_delete(state: State<'_, AppState>, id: String) -> Result<(), AppError> {
    state.run(move |e| e.routines().delete(&id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn routine_pause(state: State<'_, AppState>, id: String) -> Result<Routine, AppError> {
    state.run(move |e| e.routines().pause(&id)).await
}

/// Resumes from now: the next slot after now, none of those missed while paused.
#[tauri::command]
#[specta::specta]
pub async fn routine_resume(state: State<'_, AppState>, id: String) -> Result<Routine, AppError> {
    state.run(move |e| e.routines().resume(&id)).await
}

/// Runs a routine now (refused while its previous run is going).
#[tauri::command]
#[specta::specta]
pub async fn routine_run_now(state: State<'_, AppState>, id: String) -> Result<RoutineRun, AppError> {
    state.run(move |e| e.routines().run_now(&id)).await
}

/// Checks a schedule being edited and gives its next 5 fire times, or why it is invalid.
#[tauri::command]
#[specta::specta]
pub async fn routine_preview(state: State<'_, AppState>, schedule: Schedule) -> Result<SchedulePreview, AppError> {
    state.run(move |e| e.routines().preview(&schedule)).await
}

/// The schedule presets and the user's time zone, for the editor.
#[tauri::command]
#[specta::specta]
pub async fn routine_presets(state: State<'_, AppState>) -> Result<SchedulePresets, AppError> {
    state.run(|e| Ok(e.routines().presets())).await
}
