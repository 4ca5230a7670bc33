//! Team chat: messages to a room, its pages and runs, the peer room, Stop, and what a run was
//! given ("What this agent saw").

use clawboo_engine::chat::team::{PeerPost, RoomPage, RunContext, TeamSendOutcome};
use clawboo_engine::chat::RunSummary;
use clawboo_engine::relay::RelayedRequest;
use serde::Serialize;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// Stores the message and starts (or queues) the runs it addresses; replies arrive as events.
#[tauri::command]
#[specta::specta]
pub async fn send_team_message(
    state: State<'_, AppState>,
    room_id: String,
    text: String,
) -> Result<TeamSendOutcome, AppError> {
    state.run(move |e| e.chat().send_team(&room_id, &text)).await
}

/// Ends every run of the team and drops its queued work.
#[tauri::command]
#[specta::specta]
pub async fn stop_team(state: State<'_, AppState>, team_id: String) -> Result<(), AppError> {
    state.run(move |e| e.chat().stop_team(&team_id)).await
}

/// Up to `limit` messages before `before_seq` (the newest when absent), oldest first.
#[tauri::command]
#[specta::specta]
pub async fn room_page(
    state: State<'_, AppState>,
    room_id: String,
    before_seq: Option<i64>,
    limit: u32,
) -> Result<RoomPage, AppError> {
    state.run(move |e| e.chat().room_page(&room_id, before_seq, limit)).await
}

/// The room's newest runs, for its Activity card.
#[tauri::command]
#[specta::specta]
pub async fn room_runs(state: State<'_, AppState>, room_id: String, limit: u32) -> Result<Vec<RunSummary>, AppError> {
    state.run(move |e| e.chat().room_runs(&room_id, limit)).await
}

#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PeerPage {
    pub posts: Vec<PeerPost>,
    pub has_older: bool,
}

#[tauri::command]
#[specta::specta]
pub async fn peer_posts(
    state: State<'_, AppState>,
    team_id: String,
    before_seq: Option<i64>,
    limit: u32,
) -> Result<PeerPage, AppError> {
    state
        .run(move |e| {
            let (posts, has_older) = e.chat().peer_posts(&team_id, before_seq, limit)?;
            Ok(PeerPage { posts, has_older })
        })
        .await
}

/// What a team run was given, section by section.
#[tauri::command]
#[specta::specta]
pub async fn run_context(state: State<'_, AppState>, run_id: String) -> Result<RunContext, AppError> {
    state.run(move |e| e.chat().run_context(&run_id)).await
}

/// The exact request bodies a run's model received through the model relay, with usage.
#[tauri::command]
#[specta::specta]
pub async fn run_requests(state: State<'_, AppState>, run_id: String) -> Result<Vec<RelayedRequest>, AppError> {
    state.run(move |e| e.relay().requests(&run_id)).await
}
