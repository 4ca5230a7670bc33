//! The task runner's vocabulary, limits and what it hands the UI.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::board::{Card, CardRunKind};
use crate::context::Section;
use crate::run::prepare::placement::Placement;

/// Task runs going at once, unless the user set another number (setting `runner.max_concurrent`).
pub const DEFAULT_MAX_CONCURRENT: u32 = 4;
/// The most the user may set: each run may be a CLI with its own model traffic.
pub const MAX_CONCURRENT_LIMIT: u32 = 32;
/// A run (one attempt) is stopped after this long, whatever it is doing (setting
/// `runner.wall_clock_secs`).
pub const DEFAULT_WALL_CLOCK: Duration = Duration::from_secs(30 * 60);
/// A run that reports nothing for this long is stopped (setting `runner.silence_secs`). The same
/// bound the CLI supervisor holds every runtime process to (`supervise::Timeouts`), applied here
/// to every runtime, Native included.
pub const DEFAULT_SILENCE: Duration = Duration::from_secs(600);
/// A task restarts in a fresh session at most this many times (context window full, turn limit)
/// before its card is blocked.
pub const MAX_ROTATIONS: u32 = 3;
/// A run that reports using more than this share of its runtime's context window (percent)
/// is stopped and continued in a fresh session.
pub const CONTEXT_FILL_PERCENT: u64 = 85;
/// Agent attempts judged by the card's check command, in all: the first and one fix round.
pub const MAX_CHECK_ATTEMPTS: u32 = 2;
/// The check command is stopped after this long (counted as failed).
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// Of the check's combined output, the last this many bytes are kept (the failure note keeps
/// the last `FAILURE_TAIL_CHARS` of them).
pub const CHECK_OUTPUT_BYTES: usize = 64 * 1024;
/// A blocked card's reason quotes at most this many chars of the check's output tail.
pub const REASON_TAIL_CHARS: usize = 800;

/// How a run is started (the API's `disableMemoryAutoInject`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct StartOptions {
    /// Leave the memory facts out of the run's context (the agent can still search memory).
    #[serde(default)]
    pub disable_memory_auto_inject: bool,
}

/// What `start` did: the card, claimed, and whether its run is going or waits for a free slot.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TaskStart {
    pub card: Card,
    /// The claim's id: the id of the task's first run.
    pub run_id: String,
    /// Waiting for one of the runs going to end (at most `maxConcurrent` at once).
    pub queued: bool,
}

/// The runner's settings, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunnerSettings {
    pub max_concurrent: u32,
    pub wall_clock_secs: u32,
    pub silence_secs: u32,
}

impl Default for RunnerSettings {
    fn default() -> Self {
        Self {
            max_concurrent: DEFAULT_MAX_CONCURRENT,
            wall_clock_secs: DEFAULT_WALL_CLOCK.as_secs() as u32,
            silence_secs: DEFAULT_SILENCE.as_secs() as u32,
        }
    }
}

/// Exactly what a task-runner run was given ("What this agent saw"), its tiers with their
/// section boundaries.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TaskRunContext {
    pub run_id: String,
    pub card_id: String,
    pub attempt: u32,
    pub kind: CardRunKind,
    pub placement: Placement,
    /// The runtime's system/developer slot, when Clawboo filled it (the steady tier).
    pub system_text: Option<String>,
    /// The text in front of the message, sent with it.
    pub preamble: Option<String>,
    /// The message: the card's title.
    pub message: String,
    /// Every section, in order, each with its tier (`stability`); the last is the message.
    pub sections: Vec<Section>,
    /// Where each agent file went and whether this run carried it (empty for runs from before
    /// it was kept).
    pub files: Vec<crate::context::files::FileDelivery>,
    /// The repository's own instructions, when the run worked in a project folder or worktree.
    pub project_file: Option<crate::context::files::ProjectFileDelivery>,
    /// The fact ids of the memory block (recorded as cited).
    pub cited: Vec<String>,
    pub created_at: i64,
}
