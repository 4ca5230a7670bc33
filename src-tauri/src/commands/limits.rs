//! Limits: the circuit breakers that pause a team that loops, and the budgets. Thin wrappers
//! over the engine's `Guard`.

use clawboo_engine::guard::{Budget, BudgetInput, BudgetPeriod, BudgetScope, Limits, PausedScope, ScopeKind};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// The breakers' limits (defaults: 60 runs an hour, 30 hand-offs in ten minutes, the same tool
/// call 5 times, 3 routine failures in a row).
#[tauri::command]
#[specta::specta]
pub async fn limits_get(state: State<'_, AppState>) -> Result<Limits, AppError> {
    state.run(|e| e.guard().limits()).await
}

#[tauri::command]
#[specta::specta]
pub async fn limits_set(state: State<'_, AppState>, limits: Limits) -> Result<Limits, AppError> {
    state.run(move |e| e.guard().set_limits(limits)).await
}

/// The agents, rooms and routines paused now, and why.
#[tauri::command]
#[specta::specta]
pub async fn paused_scopes(state: State<'_, AppState>) -> Result<Vec<PausedScope>, AppError> {
    state.run(|e| e.guard().paused()).await
}

/// Resumes an agent or a room a breaker paused.
#[tauri::command]
#[specta::specta]
pub async fn scope_resume(state: State<'_, AppState>, scope: ScopeKind, id: String) -> Result<(), AppError> {
    state.run(move |e| e.guard().resume(scope, &id)).await
}

/// Every budget, with what its period spent so far.
#[tauri::command]
#[specta::specta]
pub async fn budgets_list(state: State<'_, AppState>) -> Result<Vec<Budget>, AppError> {
    state.run(|e| e.guard().budgets()).await
}

/// Sets or raises a budget.
#[tauri::command]
#[specta::specta]
pub async fn budget_set(state: State<'_, AppState>, budget: BudgetInput) -> Result<Budget, AppError> {
    state.run(move |e| e.guard().set_budget(budget)).await
}

#[tauri::command]
#[specta::specta]
pub async fn budget_remove(
    state: State<'_, AppState>,
    scope: BudgetScope,
    scope_id: String,
    period: BudgetPeriod,
) -> Result<(), AppError> {
    state.run(move |e| e.guard().remove_budget(scope, &scope_id, period)).await
}
