//! First run: whether it is one, the starter team proposed for this machine, and making it.

use clawboo_engine::onboarding::{OnboardingState, StarterProposal, StarterTeamInput};
use clawboo_engine::teams::Team;
use tauri::State;

use crate::error::AppError;
use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn onboarding_state(state: State<'_, AppState>) -> Result<OnboardingState, AppError> {
    state.run(|e| e.onboarding().state()).await
}

/// The starter team for what this machine offers, with what is missing and how to add it.
#[tauri::command]
#[specta::specta]
pub async fn starter_team_proposal(state: State<'_, AppState>) -> Result<StarterProposal, AppError> {
    state.run(|e| e.block_on(e.onboarding().proposal())).await
}

/// Makes the starter team (once: a second call returns the same team).
#[tauri::command]
#[specta::specta]
pub async fn create_starter_team(state: State<'_, AppState>, input: StarterTeamInput) -> Result<Team, AppError> {
    state.run(move |e| e.block_on(e.onboarding().create_starter_team(input))).await
}

/// Onboarding skipped (or done): the app opens normally from now on.
#[tauri::command]
#[specta::specta]
pub async fn finish_onboarding(state: State<'_, AppState>) -> Result<OnboardingState, AppError> {
    state.run(|e| e.onboarding().finish()).await
}
