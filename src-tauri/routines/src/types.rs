//! Routines' vocabulary, limits and what the UI sees.

use serde::{Deserialize, Serialize};

use super::schedule::Schedule;

/// A routine's name, in characters (it becomes its cards' title).
pub const MAX_NAME_CHARS: usize = 120;
/// What a routine asks for each run, in characters.
pub const MAX_PROMPT_CHARS: usize = 8_000;
/// Failed runs in a row after which a routine pauses itself (the first run and its retries).
/// The run guards show it as their routine breaker's limit (`Limits::routine_failures`).
pub const MAX_CONSECUTIVE_FAILURES: u32 = 3;
/// The wait before each retry of a failed run, in minutes: 1, then 5 (the third failure pauses).
pub const RETRY_BACKOFF_MINUTES: [i64; 2] = [1, 5];
/// A slot the scheduler reaches later than this (the app was closed, the machine asleep) is
/// missed: it runs as a catch-up, saying so.
pub const LATE_AFTER_MS: i64 = 2 * 60_000;
/// Missed slots are counted up to this many (beyond it, the history says "more than").
pub const MAX_COUNTED_MISSES: u32 = 10_000;
/// The runs a routine's history keeps showing by default.
pub const DEFAULT_RUNS_SHOWN: u32 = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RoutineState {
    Active,
    /// Paused by the user, or by itself after failing [`MAX_CONSECUTIVE_FAILURES`] times.
    Paused,
}

impl RoutineState {
    pub fn as_str(self) -> &'static str {
        match self {
            RoutineState::Active => "active",
            RoutineState::Paused => "paused",
        }
    }

    pub fn parse(s: &str) -> Self {
        if s == "paused" {
            RoutineState::Paused
        } else {
            RoutineState::Active
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum CreatedBy {
    User,
    /// Proposed by an agent (`routine_create`) and approved by the user.
    Agent,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RoutineOutcome {
    Running,
    /// The card went to In review or Done; the team leader replied.
    Succeeded,
    Failed,
    /// The run finished by asking the user (an open question on its card).
    NeedsYou,
    /// Stopped by the user (the card taken back, the team stopped).
    Stopped,
    /// Its slot came while the previous run was still going: not run.
    SkippedOverlap,
}

impl RoutineOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            RoutineOutcome::Running => "running",
            RoutineOutcome::Succeeded => "succeeded",
            RoutineOutcome::Failed => "failed",
            RoutineOutcome::NeedsYou => "needs_you",
            RoutineOutcome::Stopped => "stopped",
            RoutineOutcome::SkippedOverlap => "skipped_overlap",
        }
    }

    pub fn parse(s: &str) -> Self {
        match s {
            "succeeded" => RoutineOutcome::Succeeded,
            "failed" => RoutineOutcome::Failed,
            "needs_you" => RoutineOutcome::NeedsYou,
            "stopped" => RoutineOutcome::Stopped,
            "skipped_overlap" => RoutineOutcome::SkippedOverlap,
            _ => RoutineOutcome::Running,
        }
    }
}

/// Why a run happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RunTrigger {
    /// Its slot came.
    Schedule,
    /// Slots were missed (the app was closed): one run stands for them all.
    CatchUp,
    /// The previous run failed.
    Retry,
    /// Run now.
    Manual,
}

impl RunTrigger {
    pub fn as_str(self) -> &'static str {
        match self {
            RunTrigger::Schedule => "schedule",
            RunTrigger::CatchUp => "catch_up",
            RunTrigger::Retry => "retry",
            RunTrigger::Manual => "manual",
        }
    }

    pub fn parse(s: &str) -> Self {
        match s {
            "catch_up" => RunTrigger::CatchUp,
            "retry" => RunTrigger::Retry,
            "manual" => RunTrigger::Manual,
            _ => RunTrigger::Schedule,
        }
    }
}

/// A routine as the UI lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Routine {
    /// `rt-` and 10 hex digits.
    pub id: String,
    pub name: String,
    /// The owner: an agent (each run a card for it) xor a team (each run a message to its leader).
    pub agent_id: Option<String>,
    pub team_id: Option<String>,
    /// The agent's or team's name now.
    pub owner_name: String,
    pub prompt: String,
    pub schedule: Schedule,
    /// The schedule in words.
    pub schedule_text: String,
    /// An agent routine whose runs carry HEARTBEAT.md.
    pub heartbeat: bool,
    /// An agent routine that reports to this team (the agent is a member): its cards are the
    /// team's, so a result goes to the team's leader and runs work in the team's project folder.
    pub reports_to_team_id: Option<String>,
    pub state: RoutineState,
    pub paused_reason: Option<String>,
    pub created_by: CreatedBy,
    /// The agent that proposed it, when an agent did.
    pub creator_agent_id: Option<String>,
    /// The approval the user allowed it with, when an agent proposed it.
    pub approval_id: Option<String>,
    /// When it runs next (None: paused, or a one-time routine that has run).
    pub next_fire_at: Option<i64>,
    /// When a failed run is tried again.
    pub retry_at: Option<i64>,
    pub consecutive_failures: u32,
    pub created_at: i64,
    pub updated_at: i64,
    pub last_run: Option<RoutineRun>,
}

/// One run of a routine, or a slot it skipped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RoutineRun {
    pub id: String,
    pub routine_id: String,
    /// The slot it ran for (a catch-up: the first missed one; run now: when asked).
    pub scheduled_for: i64,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub outcome: RoutineOutcome,
    pub trigger: RunTrigger,
    /// A catch-up run: it stands for missed slots.
    pub catch_up: bool,
    /// How many slots were missed (a catch-up run).
    pub missed: u32,
    /// The card of an agent routine's run.
    pub card_id: Option<String>,
    pub card_number: Option<u32>,
    /// Where a team routine's message went.
    pub team_id: Option<String>,
    pub room_id: Option<String>,
    /// The task run (the card's claim) or the leader's run.
    pub run_id: Option<String>,
    /// What happened, in words ("Missed 3 runs; ran once to catch up.", why it failed).
    pub note: Option<String>,
}

/// A routine as the user (or an approved proposal) creates or edits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RoutineInput {
    pub name: String,
    /// Exactly one of the agent and the team.
    pub agent_id: Option<String>,
    pub team_id: Option<String>,
    pub prompt: String,
    pub schedule: Schedule,
    /// Only for an agent routine.
    #[serde(default)]
    pub heartbeat: bool,
    /// Only for an agent routine: a team the agent is a member of, whose leader gets each run's
    /// result (the editor's "Report to <team>", on by default for a member).
    #[serde(default)]
    pub reports_to_team_id: Option<String>,
}

/// A routine with its latest runs (newest first).
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RoutineDetail {
    pub routine: Routine,
    pub runs: Vec<RoutineRun>,
}

/// What the editor shows for a schedule being typed.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SchedulePreview {
    pub text: String,
    /// The next fire times (epoch ms), at most `schedule::PREVIEW_COUNT`.
    pub next: Vec<i64>,
}

/// The presets and the user's time zone, for the editor.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SchedulePresets {
    pub presets: Vec<super::schedule::Preset>,
    pub default_time_zone: String,
}
