//! Teams, their rules, brief, About you and rooms: one thin command per `Teams` method.

use clawboo_engine::teams::{NewRoom, NewTeam, Room, RoomPatch, Team, TeamRule};
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

/// Every team, archived ones included, by name.
#[tauri::command]
#[specta::specta]
pub async fn list_teams(state: State<'_, AppState>) -> Result<Vec<Team>, AppError> {
    state.run(|e| e.teams().list()).await
}

#[tauri::command]
#[specta::specta]
pub async fn get_team(state: State<'_, AppState>, id: String) -> Result<Team, AppError> {
    state.run(move |e| e.teams().get(&id)).await
}

/// A team with its General room; the leader defaults to the first member.
#[tauri::command]
#[specta::specta]
pub async fn create_team(state: State<'_, AppState>, input: NewTeam) -> Result<Team, AppError> {
    state.run(move |e| e.teams().create(input)).await
}

#[tauri::command]
#[specta::specta]
pub async fn rename_team(state: State<'_, AppState>, id: String, name: String) -> Result<Team, AppError> {
    state.run(move |e| e.teams().rename(&id, &name)).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_team_archived(state: State<'_, AppState>, id: String, archived: bool) -> Result<Team, AppError> {
    state.run(move |e| e.teams().set_archived(&id, archived)).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_team(state: State<'_, AppState>, id: String) -> Result<(), AppError> {
    state.run(move |e| e.teams().delete(&id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_team_members(
    state: State<'_, AppState>,
    id: String,
    member_ids: Vec<String>,
) -> Result<Team, AppError> {
    state.run(move |e| e.teams().set_members(&id, member_ids)).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_team_leader(state: State<'_, AppState>, id: String, agent_id: String) -> Result<Team, AppError> {
    state.run(move |e| e.teams().set_leader(&id, &agent_id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_member_role(
    state: State<'_, AppState>,
    id: String,
    agent_id: String,
    role: String,
) -> Result<Team, AppError> {
    state.run(move |e| e.teams().set_member_role(&id, &agent_id, &role)).await
}

#[tauri::command]
#[specta::specta]
pub async fn add_team_rule(state: State<'_, AppState>, id: String, text: String) -> Result<TeamRule, AppError> {
    state.run(move |e| e.teams().add_rule(&id, &text)).await
}

#[tauri::command]
#[specta::specta]
pub async fn remove_team_rule(state: State<'_, AppState>, id: String, rule_id: String) -> Result<Team, AppError> {
    state.run(move |e| e.teams().remove_rule(&id, &rule_id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_team_brief(state: State<'_, AppState>, id: String, text: String) -> Result<Team, AppError> {
    state.run(move |e| e.teams().set_brief(&id, &text)).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_about_you(state: State<'_, AppState>, id: String, text: String) -> Result<Team, AppError> {
    state.run(move |e| e.teams().set_about_you(&id, &text)).await
}

/// Where runs of the team's cards work when a card names no folder of its own (a full path;
/// null or blank clears it). In a git repository each card gets its own worktree and branch.
#[tauri::command]
#[specta::specta]
pub async fn set_team_project_folder(
    state: State<'_, AppState>,
    id: String,
    folder: Option<String>,
) -> Result<Team, AppError> {
    state.run(move |e| e.teams().set_project_folder(&id, folder.as_deref())).await
}

#[tauri::command]
#[specta::specta]
pub async fn create_room(state: State<'_, AppState>, id: String, input: NewRoom) -> Result<Room, AppError> {
    state.run(move |e| e.teams().create_room(&id, input)).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_room(state: State<'_, AppState>, room_id: String, patch: RoomPatch) -> Result<Room, AppError> {
    state.run(move |e| e.teams().update_room(&room_id, patch)).await
}

#[tauri::command]
#[specta::specta]
pub async fn delete_room(state: State<'_, AppState>, room_id: String) -> Result<(), AppError> {
    state.run(move |e| e.teams().delete_room(&room_id)).await
}
