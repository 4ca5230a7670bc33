use clawboo_engine::chat::{ChatPage, ChatRunContext, ReadThreadKind, RunEventRecord, SendOutcome, UnreadThread};
use clawboo_engine::context::files::FileRouteInfo;
use clawboo_engine::history::chats::ChatSummary;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

#[tauri::command]
#[specta::specta]
/// Up to `limit` messages of one of the agent's chats (null: its most recently used) before
/// `before_seq` (the newest when null), oldest first.
pub async fn chat_history_page(
    state: State<'_, AppState>,
    agent_id: String,
    chat_id: Option<String>,
    before_seq: Option<i64>,
    limit: u32,
) -> Result<ChatPage, AppError> {
    state.run(move |e| e.chat().history_page_in(&agent_id, chat_id.as_deref(), before_seq, limit)).await
}

/// Starts the run and returns at once; the reply arrives through events.
#[tauri::command]
#[specta::specta]
pub async fn send_chat_message(
    state: State<'_, AppState>,
    agent_id: String,
    chat_id: Option<String>,
    text: String,
) -> Result<SendOutcome, AppError> {
    state.run(move |e| e.chat().send_in(&agent_id, chat_id.as_deref(), &text)).await
}

/// The agent's chats (archived included): pinned first, then the most recently used.
#[tauri::command]
#[specta::specta]
pub async fn list_chats(state: State<'_, AppState>, agent_id: String) -> Result<Vec<ChatSummary>, AppError> {
    state.run(move |e| e.chat().chats(&agent_id)).await
}

/// A new, empty chat with its own runtime session.
#[tauri::command]
#[specta::specta]
pub async fn new_chat(state: State<'_, AppState>, agent_id: String) -> Result<ChatSummary, AppError> {
    state.run(move |e| e.chat().new_chat(&agent_id)).await
}

/// Names a chat (an empty title: named by its first message again).
#[tauri::command]
#[specta::specta]
pub async fn rename_chat(state: State<'_, AppState>, chat_id: String, title: String) -> Result<ChatSummary, AppError> {
    state.run(move |e| e.chat().rename_chat(&chat_id, &title)).await
}

#[tauri::command]
#[specta::specta]
pub async fn pin_chat(state: State<'_, AppState>, chat_id: String, pinned: bool) -> Result<ChatSummary, AppError> {
    state.run(move |e| e.chat().pin_chat(&chat_id, pinned)).await
}

#[tauri::command]
#[specta::specta]
pub async fn archive_chat(
    state: State<'_, AppState>,
    chat_id: String,
    archived: bool,
) -> Result<ChatSummary, AppError> {
    state.run(move |e| e.chat().archive_chat(&chat_id, archived)).await
}

/// Deletes a chat; `restore_chat` undoes it for a few seconds, then it is purged.
#[tauri::command]
#[specta::specta]
pub async fn delete_chat(state: State<'_, AppState>, chat_id: String) -> Result<(), AppError> {
    state.run(move |e| e.chat().delete_chat(&chat_id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn restore_chat(state: State<'_, AppState>, chat_id: String) -> Result<ChatSummary, AppError> {
    state.run(move |e| e.chat().restore_chat(&chat_id)).await
}

/// A new run with the user's last message; its reply stays, folded away as an earlier reply.
#[tauri::command]
#[specta::specta]
pub async fn retry_chat_message(state: State<'_, AppState>, message_id: String) -> Result<SendOutcome, AppError> {
    state.run(move |e| e.chat().retry(&message_id)).await
}

/// The user's last message replaced by `text` and sent; the replaced exchange stays, folded away.
#[tauri::command]
#[specta::specta]
pub async fn edit_chat_message(
    state: State<'_, AppState>,
    message_id: String,
    text: String,
) -> Result<SendOutcome, AppError> {
    state.run(move |e| e.chat().edit_and_resend(&message_id, &text)).await
}

/// Marks a one-to-one conversation or a team room read up to its newest message.
#[tauri::command]
#[specta::specta]
pub async fn mark_thread_read(state: State<'_, AppState>, kind: ReadThreadKind, id: String) -> Result<(), AppError> {
    state.run(move |e| e.chat().mark_read(kind, &id)).await
}

/// Every conversation and room with replies the user has not read.
#[tauri::command]
#[specta::specta]
pub async fn unread_threads(state: State<'_, AppState>) -> Result<Vec<UnreadThread>, AppError> {
    state.run(move |e| e.chat().unread()).await
}

#[tauri::command]
#[specta::specta]
pub async fn cancel_run(state: State<'_, AppState>, run_id: String) -> Result<(), AppError> {
    state.run(move |e| e.chat().cancel(&run_id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn run_activity(state: State<'_, AppState>, run_id: String) -> Result<Vec<RunEventRecord>, AppError> {
    state.run(move |e| e.chat().run_activity(&run_id)).await
}

/// Exactly what a one-to-one run was given ("What this agent saw"), agent files included.
#[tauri::command]
#[specta::specta]
pub async fn chat_run_context(state: State<'_, AppState>, run_id: String) -> Result<ChatRunContext, AppError> {
    state.run(move |e| e.chat().chat_run_context(&run_id)).await
}

/// How each of the agent's files reaches its runtime, with its budget (the editor's meter).
#[tauri::command]
#[specta::specta]
pub async fn agent_file_routes(state: State<'_, AppState>, agent_id: String) -> Result<Vec<FileRouteInfo>, AppError> {
    state.run(move |e| e.chat().file_routes(&agent_id)).await
}
