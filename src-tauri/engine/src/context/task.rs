//! The context of a task-runner run, in the seed's three tiers ("A task-runner run"), steadiest
//! first so providers reuse it between runs (prompt caching):
//!
//! 1. **Steady for the whole task** ([`Stability::Steady`]): the persona (Claude Code, Codex and
//!    Hermes only, within [`PERSONA_BUDGET`]), then the task's title and description. Byte-
//!    identical across every run, fix round and restart of one task (tested): nothing in it may
//!    depend on the attempt, the session, the clock or the waiting items.
//! 2. **Context** ([`Stability::Turn`]), in this order, empty parts left out: where the last
//!    attempt left off (on resume); the note on Clawboo's board, memory and peer-room tools the
//!    run has and how to use shared memory (names as the runtime shows them, see
//!    `tool_name_on`); a note when the runtime lacks a feature (no live streaming); a warning when
//!    an earlier attempt was cut off (check before repeating anything it did); the failure note
//!    on a fix round (the check command, its exit code, its output tail); the hand-off note after
//!    a restart in a fresh session; waiting items within [`INBOX_BUDGET`] (what does not fit waits:
//!    `deferred`, as in team turns).
//! 3. **Changes most** ([`Stability::Volatile`]): the memory injection block (`memory_block`),
//!    its ids returned in `cited` so the runner records them. Left out when the run was started
//!    with memory injection off (the caller passes `None`).
//!
//! The message is the task's title. No team rules, teammates, About you, routine note,
//! connectors, brief or time of day (tested as absent).
//!
//! CONTRACT: `task_tiers(&TaskRun) -> TaskContext`. Pure: inputs in, text out.

use super::{Assembled, MemoryBlock, ToolName, WaitingItem};
use crate::vocab::RuntimeKind;

/// The failure note's output tail keeps at most this many chars (the end of the output, where
/// errors are).
pub const FAILURE_TAIL_CHARS: usize = 2_000;
/// "Where the last attempt left off" and the hand-off note after a restart, each at most this
/// many chars (the runner writes them from the last run's final text or progress).
pub const PROGRESS_NOTE_CHARS: usize = 2_000;

/// A fix round: the card's check command failed after the agent finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedCheck<'a> {
    pub command: &'a str,
    pub exit_code: Option<i32>,
    /// Its combined output; the note keeps the last [`FAILURE_TAIL_CHARS`].
    pub output: &'a str,
}

/// Everything a task-runner run's context is built from.
#[derive(Debug, Clone)]
pub struct TaskRun<'a> {
    pub runtime: RuntimeKind,
    /// SOUL.md as on disk; sent only to Claude Code, Codex and Hermes.
    pub persona: &'a str,
    /// The card's number, title and description.
    pub number: u32,
    pub title: &'a str,
    pub description: &'a str,
    /// Clawboo tools this run has (left out of the note when it has none).
    pub tools: &'a [ToolName],
    /// The runtime streams its text as it writes (false: Hermes' note).
    pub streams_text: bool,
    /// Where the last attempt left off, when the task resumes.
    pub resume: Option<&'a str>,
    /// An earlier attempt of this task was cut off (quit or crash).
    pub cut_off: bool,
    pub failed_check: Option<&'a FailedCheck<'a>>,
    /// The short note on the last session's progress, after a restart in a fresh session.
    pub handoff_note: Option<&'a str>,
    pub waiting: &'a [WaitingItem],
    /// The memory injection block, `None` when injection is off for this run.
    pub memory: Option<&'a MemoryBlock>,
}

/// The three tiers as sections (steady, context, changes most, then the message) and what the
/// runner records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskContext {
    pub assembled: Assembled,
    /// Fact ids given in the memory block (record as cited).
    pub cited: Vec<String>,
}
