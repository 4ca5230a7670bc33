//! Shared memory as the user sees it in the Memory view: facts (list, search, history, edits),
//! agents' saved notes, scratch notes and pending promotions. One thin command per `Memory` call;
//! the user is the author of every change made here.

use clawboo_engine::memory::{
    Author, Fact, FactDetail, FactEdit, FactFilter, FactInput, Promotion, Saved, SavedNote, ScratchNote, ScratchScope,
    SearchResult, Visibility,
};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// How many facts the view's search shows.
const SEARCH_TOP: usize = 10;
/// How many of an agent's saved notes the view lists.
const NOTES_SHOWN: usize = 50;
/// How many scratch notes the view lists across every scope.
const SCRATCH_SHOWN: usize = 500;
/// How many promotions (pending first) the view lists.
const PROMOTIONS_SHOWN: usize = 100;

/// Facts matching the filter: newest first without a query, best first with one.
#[tauri::command]
#[specta::specta]
pub async fn memory_list(state: State<'_, AppState>, filter: FactFilter) -> Result<Vec<Fact>, AppError> {
    state.run(move |e| e.memory().list(&filter)).await
}

/// The top facts for `query` across every scope, with related ones.
#[tauri::command]
#[specta::specta]
pub async fn memory_search(state: State<'_, AppState>, query: String) -> Result<SearchResult, AppError> {
    state.run(move |e| e.memory().search(&query, &Visibility::Everything, SEARCH_TOP)).await
}

/// A fact with its versions (oldest first) and the runs it was given to.
#[tauri::command]
#[specta::specta]
pub async fn memory_detail(state: State<'_, AppState>, id: String) -> Result<FactDetail, AppError> {
    state.run(move |e| e.memory().detail(&id)).await
}

/// A new fact by the user; the same text in the same scope returns the existing one.
#[tauri::command]
#[specta::specta]
pub async fn memory_save(state: State<'_, AppState>, input: FactInput) -> Result<Saved, AppError> {
    state.run(move |e| e.memory().save(input, Author::User)).await
}

#[tauri::command]
#[specta::specta]
pub async fn memory_edit(state: State<'_, AppState>, id: String, edit: FactEdit) -> Result<Fact, AppError> {
    state.run(move |e| e.memory().edit(&id, edit, Author::User)).await
}

/// A soft delete: the fact stays in its history and can be restored.
#[tauri::command]
#[specta::specta]
pub async fn memory_delete(state: State<'_, AppState>, id: String) -> Result<Fact, AppError> {
    state.run(move |e| e.memory().delete(&id, Author::User)).await
}

#[tauri::command]
#[specta::specta]
pub async fn memory_restore(state: State<'_, AppState>, id: String) -> Result<Fact, AppError> {
    state.run(move |e| e.memory().restore(&id, Author::User)).await
}

/// An agent's newest saved notes, newest first.
#[tauri::command]
#[specta::specta]
pub async fn memory_notes(state: State<'_, AppState>, agent_id: String) -> Result<Vec<SavedNote>, AppError> {
    state.run(move |e| e.memory().notes(&agent_id, NOTES_SHOWN)).await
}

#[tauri::command]
#[specta::specta]
pub async fn memory_delete_note(state: State<'_, AppState>, id: String) -> Result<(), AppError> {
    state.run(move |e| e.memory().delete_note(&id)).await
}

/// The scratch notes of one scope, newest first.
#[tauri::command]
#[specta::specta]
pub async fn scratch_list(state: State<'_, AppState>, scope: ScratchScope) -> Result<Vec<ScratchNote>, AppError> {
    state.run(move |e| e.memory().scratch_list(&scope)).await
}

/// Every scratch note (team, global and session), newest first.
#[tauri::command]
#[specta::specta]
pub async fn scratch_all(state: State<'_, AppState>) -> Result<Vec<ScratchNote>, AppError> {
    state.run(move |e| e.memory().scratch_all(SCRATCH_SHOWN)).await
}

/// The user adds a team or global note.
#[tauri::command]
#[specta::specta]
pub async fn scratch_add(
    state: State<'_, AppState>,
    scope: ScratchScope,
    text: String,
) -> Result<ScratchNote, AppError> {
    state.run(move |e| e.memory().scratch_add(scope, &text)).await
}

#[tauri::command]
#[specta::specta]
pub async fn scratch_edit(state: State<'_, AppState>, id: String, text: String) -> Result<ScratchNote, AppError> {
    state.run(move |e| e.memory().scratch_edit(&id, &text)).await
}

#[tauri::command]
#[specta::specta]
pub async fn scratch_delete(state: State<'_, AppState>, id: String) -> Result<(), AppError> {
    state.run(move |e| e.memory().scratch_delete(&id)).await
}

/// Pending promotions first, then the latest decided ones.
#[tauri::command]
#[specta::specta]
pub async fn promotions(state: State<'_, AppState>) -> Result<Vec<Promotion>, AppError> {
    state.run(move |e| e.memory().promotions(PROMOTIONS_SHOWN)).await
}

/// Approve copies the note's exact text to the target scope; reject leaves it where it is.
#[tauri::command]
#[specta::specta]
pub async fn decide_promotion(state: State<'_, AppState>, id: String, approve: bool) -> Result<Promotion, AppError> {
    state.run(move |e| e.decide_promotion(&id, approve)).await
}
