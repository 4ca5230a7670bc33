//! What agents spent: the Spend page, a run's and a scope's spend, the prices of Settings >
//! Spend, and the CSV of the runs behind the page (saved where the user picks).

use clawboo_engine::spend::prices::{Price, PriceTable};
use clawboo_engine::spend::{RunSpend, Scope, SpendPage, SpendQuery, Totals};
use clawboo_engine::ErrorCode;
use tauri::State;

use crate::desktop::{Desktop, FileKind};
use crate::error::AppError;
use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn spend_page(state: State<'_, AppState>, query: SpendQuery) -> Result<SpendPage, AppError> {
    state.run(move |e| e.spend_page(&query)).await
}

/// Everything `scope` ever spent (a card's runs and fix rounds, an agent, a team, a routine).
#[tauri::command]
#[specta::specta]
pub async fn spend_of(state: State<'_, AppState>, scope: Scope) -> Result<Totals, AppError> {
    state.run(move |e| e.spend_of(&scope)).await
}

/// The spend of each of `run_ids` that has any.
#[tauri::command]
#[specta::specta]
pub async fn runs_spend(state: State<'_, AppState>, run_ids: Vec<String>) -> Result<Vec<RunSpend>, AppError> {
    state.run(move |e| e.runs_spend(&run_ids)).await
}

#[tauri::command]
#[specta::specta]
pub async fn spend_prices(state: State<'_, AppState>) -> Result<PriceTable, AppError> {
    state.run(|e| e.spend_prices()).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_spend_price(
    state: State<'_, AppState>,
    provider: String,
    model: String,
    price: Price,
) -> Result<PriceTable, AppError> {
    state.run(move |e| e.set_spend_price(&provider, &model, &price)).await
}

#[tauri::command]
#[specta::specta]
pub async fn remove_spend_price(
    state: State<'_, AppState>,
    provider: String,
    model: String,
) -> Result<PriceTable, AppError> {
    state.run(move |e| e.remove_spend_price(&provider, &model)).await
}

/// Saves the runs behind the Spend page as CSV where the user picks: the path, or `None` when
/// the user cancelled.
#[tauri::command]
#[specta::specta]
pub async fn export_spend_csv(
    state: State<'_, AppState>,
    desktop: State<'_, Desktop>,
    query: SpendQuery,
) -> Result<Option<String>, AppError> {
    let name = format!("clawboo-spend-{}-to-{}.csv", query.from, query.to);
    let contents = state.run(move |e| e.spend_runs_csv(&query)).await?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    desktop.0.ask_save_path(
        &name,
        FileKind { name: "CSV", extensions: &["csv"] },
        Box::new(move |path| {
            let _ = tx.send(path);
        }),
    );
    let Some(path) = rx.await.ok().flatten() else { return Ok(None) };
    let target = path.clone();
    tauri::async_runtime::spawn_blocking(move || std::fs::write(&target, contents))
        .await
        .map_err(|e| AppError::new(ErrorCode::Internal, format!("A background task failed: {e}")))?
        .map_err(|e| AppError::new(ErrorCode::Io, format!("Could not save {}: {e}", path.display())))?;
    Ok(Some(path.display().to_string()))
}
