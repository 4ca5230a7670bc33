//! Search everything, exports, and opening what a reply links to. The engine decides: what the
//! palette finds, what an export holds, and whether a link or a path may open at all (see
//! `clawboo_engine::links`); these commands only ask where to save and hand what passed to the
//! desktop ([`crate::desktop`]).

use clawboo_engine::history::{ExportFormat, ExportTarget, Found};
use clawboo_engine::ErrorCode;
use tauri::State;

use crate::desktop::{Desktop, FileKind};
use crate::error::AppError;
use crate::state::AppState;

/// What the search everything palette shows for `query` (any text): things by name first,
/// then messages, best first.
#[tauri::command]
#[specta::specta]
pub async fn search_everything(state: State<'_, AppState>, query: String) -> Result<Vec<Found>, AppError> {
    state.run(move |e| e.search(&query)).await
}

/// Renders `target` as `format` and saves it where the user picks in the system's save dialog:
/// the path saved, or `None` when the user cancelled.
#[tauri::command]
#[specta::specta]
pub async fn export_thread(
    state: State<'_, AppState>,
    desktop: State<'_, Desktop>,
    target: ExportTarget,
    format: ExportFormat,
) -> Result<Option<String>, AppError> {
    let export = state.run(move |e| e.export(&target, format)).await?;
    let kind = match format {
        ExportFormat::Markdown => FileKind { name: "Markdown", extensions: &["md"] },
        ExportFormat::Json => FileKind { name: "JSON", extensions: &["json"] },
    };
    let (tx, rx) = tokio::sync::oneshot::channel();
    desktop.0.ask_save_path(
        &export.file_name,
        kind,
        Box::new(move |path| {
            let _ = tx.send(path);
        }),
    );
    let Some(path) = rx.await.ok().flatten() else { return Ok(None) };
    let contents = export.contents;
    let target = path.clone();
    tauri::async_runtime::spawn_blocking(move || std::fs::write(&target, contents))
        .await
        .map_err(|e| AppError::new(ErrorCode::Internal, format!("A background task failed: {e}")))?
        .map_err(|e| AppError::new(ErrorCode::Io, format!("Could not save {}: {e}", path.display())))?;
    Ok(Some(path.display().to_string()))
}

/// Opens a link from a reply in the default browser (or mail app), once the user confirmed it:
/// only http, https and mailto links; the engine checks.
#[tauri::command]
#[specta::specta]
pub async fn open_link(state: State<'_, AppState>, desktop: State<'_, Desktop>, url: String) -> Result<(), AppError> {
    let url = state.run(move |e| e.checked_link(&url)).await?;
    desktop.0.open_url(&url).map_err(|e| AppError::new(ErrorCode::Io, format!("The link could not be opened: {e}")))
}

/// Shows a path from a reply in the file manager (a folder opened, a file selected in its
/// folder), when the engine finds it inside an agent's folder, a card's worktree or a project
/// folder. A relative path is taken inside `agent_id`'s folder.
#[tauri::command]
#[specta::specta]
pub async fn open_path(
    state: State<'_, AppState>,
    desktop: State<'_, Desktop>,
    path: String,
    agent_id: Option<String>,
) -> Result<(), AppError> {
    let real = state.run(move |e| e.checked_path(&path, agent_id.as_deref())).await?;
    let opened = if real.is_dir() { desktop.0.open_folder(&real) } else { desktop.0.reveal(&real) };
    opened.map_err(|e| AppError::new(ErrorCode::Io, format!("The file manager could not be opened: {e}")))
}
