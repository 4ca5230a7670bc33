//! The Board as the user sees it: cards (list, detail, create, edit, move, delete), comments
//! and each card's runs. One thin command per `Board` call; the user is the actor of every
//! change made here.

use clawboo_engine::board::{
    Actor, Card, CardDetail, CardEdit, CardFilter, CardRun, CardStatus, Comment, CommentKind, NewCard,
};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// Cards matching the filter, in column order, then by position.
#[tauri::command]
#[specta::specta]
pub async fn board_list(state: State<'_, AppState>, filter: CardFilter) -> Result<Vec<Card>, AppError> {
    state.run(move |e| e.board().list(&filter)).await
}

/// A card with its comments and activity, oldest first.
#[tauri::command]
#[specta::specta]
pub async fn board_card(state: State<'_, AppState>, id: String) -> Result<CardDetail, AppError> {
    state.run(move |e| e.board().detail(&id)).await
}

/// A new card at the end of its column (Backlog or To do).
#[tauri::command]
#[specta::specta]
pub async fn board_create(state: State<'_, AppState>, card: NewCard) -> Result<Card, AppError> {
    state.run(move |e| e.board().create(Actor::User, card)).await
}

/// Changes the fields `edit` sets (`null` clears an optional one).
#[tauri::command]
#[specta::specta]
pub async fn board_edit(state: State<'_, AppState>, id: String, edit: CardEdit) -> Result<Card, AppError> {
    state.run(move |e| e.board().edit(Actor::User, &id, edit)).await
}

/// Moves a card to another column (checked against the allowed moves; Blocked needs a reason),
/// or, within its column, to `position`.
#[tauri::command]
#[specta::specta]
pub async fn board_move(
    state: State<'_, AppState>,
    id: String,
    to: CardStatus,
    reason: Option<String>,
    position: Option<f64>,
) -> Result<Card, AppError> {
    state.run(move |e| e.board().move_card(Actor::User, &id, to, reason, position)).await
}

#[tauri::command]
#[specta::specta]
pub async fn board_comment(state: State<'_, AppState>, id: String, text: String) -> Result<Comment, AppError> {
    state.run(move |e| e.board().comment(Actor::User, &id, CommentKind::Comment, &text, None)).await
}

/// Deletes a card (refused while a run works on it); its number is never reused.
#[tauri::command]
#[specta::specta]
pub async fn board_delete(state: State<'_, AppState>, id: String) -> Result<(), AppError> {
    state.run(move |e| e.board().delete(&id)).await
}

/// A card's runs, oldest first.
#[tauri::command]
#[specta::specta]
pub async fn board_runs(state: State<'_, AppState>, id: String) -> Result<Vec<CardRun>, AppError> {
    state.run(move |e| e.board().runs(&id)).await
}
