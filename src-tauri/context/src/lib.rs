//! `clawboo-context`: what an agent sees — pure functions that assemble the context of a turn
//! from its inputs (no I/O, no clock, no store). It may use only `clawboo-vocab`: the services
//! that gather the inputs (memory, agents, teams, chat, the task runner) sit above it and hand it
//! plain values (memory's facts and notes become this crate's `BlockFact` and `ScratchItem` in
//! `clawboo-memory`). The engine re-exports it as `clawboo_engine::context`.
//!
//! The order, budgets and left-outs follow `shared/seeds/clawboo-what-an-agent-sees.md`
//! ("A turn in team chat", "A task-runner run"); the golden snapshots in the engine's
//! `tests/context/snapshots` are that contract made executable.
//!
//! CONTRACT (types below are fixed): `team_turn(&TeamTurn) -> Assembled` (built in `team.rs`) and
//! `task_tiers(&TaskRun) -> TaskContext` (built in `task.rs`).

pub mod boo_zero;
pub mod files;
mod memory;
mod task;
mod team;

use serde::{Deserialize, Serialize};

pub use memory::{
    memory_block, saved_notes_block, scratch_block, BlockFact, MemoryBlock, ScratchItem, ScratchLabel,
    MEMORY_BLOCK_CHARS, MEMORY_RELATED, MEMORY_TOP, SAVED_NOTES, SAVED_NOTES_CHARS, SCRATCH_CHARS, SCRATCH_CLEARED,
};
pub use task::{task_tiers, FailedCheck, TaskContext, TaskRun, FAILURE_TAIL_CHARS, PROGRESS_NOTE_CHARS};
pub use team::{
    team_turn, team_turn_with_files, tool_name_on, tool_namespace_on, ABOUT_YOU_BUDGET, MAX_HANDOFFS_PER_TURN,
    ROLE_BUDGET, RULES_BUDGET, TASK_LINE_BUDGET,
};

use clawboo_vocab::RuntimeKind;

/// Characters of SOUL.md sent as the persona.
pub const PERSONA_BUDGET: usize = files::SOUL_BUDGET;
/// Results, alerts and notices share this budget.
pub const INBOX_BUDGET: usize = 4_000;
/// Peer-room posts have their own budget…
pub const PEER_BUDGET: usize = 4_000;
/// …and each post at most this much of it.
pub const PEER_POST_BUDGET: usize = 800;

/// Why this agent is running this turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnKind {
    /// The chat's leader, answering the user (or a batch of its teammates' results).
    Leader,
    /// A member the user addressed with `@handle`.
    Mentioned,
    /// A teammate working on a task handed to it by `from` (a handle).
    Teammate { from: String },
}

impl TurnKind {
    /// The user reads this turn's reply: the leader's, or an agent the user @mentioned.
    pub fn user_reads(&self) -> bool {
        matches!(self, TurnKind::Leader | TurnKind::Mentioned)
    }
}

/// A member of this chat (General: the team; a room: its own members).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub handle: String,
    pub name: String,
    pub runtime: RuntimeKind,
    /// What the member does (its description, or its role in the team).
    pub role: String,
    pub is_leader: bool,
}

/// Clawboo tools a run has (a tool it cannot use is left out, never refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ToolName {
    Handoff,
    PeerPost,
    PeerRead,
    MemorySave,
    MemorySearch,
    MemoryGet,
    NoteSave,
    ScratchWrite,
    ScratchPromote,
    BoardList,
    BoardUpdate,
    BoardComment,
    AskUser,
    RoutineCreate,
    SearchThreads,
}

impl ToolName {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolName::Handoff => "handoff",
            ToolName::PeerPost => "peer_post",
            ToolName::PeerRead => "peer_read",
            ToolName::MemorySave => "memory_save",
            ToolName::MemorySearch => "memory_search",
            ToolName::MemoryGet => "memory_get",
            ToolName::NoteSave => "note_save",
            ToolName::ScratchWrite => "scratch_write",
            ToolName::ScratchPromote => "scratch_promote",
            ToolName::BoardList => "board_list",
            ToolName::BoardUpdate => "board_update",
            ToolName::BoardComment => "board_comment",
            ToolName::AskUser => "ask_user",
            ToolName::RoutineCreate => "routine_create",
            ToolName::SearchThreads => "search_threads",
        }
    }
}

/// The kind of an item waiting for the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum WaitingKind {
    /// The final reply of a task this agent handed out (addressed).
    Result,
    /// Something about this agent's work that needs it (addressed).
    Alert,
    /// Information (ambient).
    Notice,
}

/// An item in the agent's inbox, oldest first. Read when the run starts, not when queued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitingItem {
    /// Stable id: the caller marks delivered ids as read and keeps the rest for the next turn.
    pub id: String,
    pub kind: WaitingKind,
    /// Handle of whoever it is from, when an agent.
    pub from: Option<String>,
    pub text: String,
}

/// A peer-room post since this agent last spoke, oldest first. `author` is the handle the
/// tools bridge bound to the poster's token, never a name the post claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerPost {
    pub id: String,
    pub author: String,
    pub text: String,
}

/// Section 6: a Routine sent the message (team turns), or started the task (task-runner runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutineNote {
    pub routine_name: String,
}

/// Section 7: connectors (a later issue fills these).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Connectors {
    pub connected: Vec<String>,
    pub suggested: Vec<String>,
}

/// One teammate's final reply, in a batch for the agent that handed out the work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskResult {
    pub from: String,
    pub task: String,
    pub reply: String,
    /// The run did not succeed (failed, stopped, cut off): `reply` says why.
    pub failed: bool,
}

/// Section 9.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnMessage {
    /// The user's words.
    User(String),
    /// The task text a teammate wrote.
    Task(String),
    /// Teammates' results, gathered into one message.
    Results(Vec<TaskResult>),
    /// The results of the work a teammate handed out for its own task (a chain), with that
    /// task's text: the teammate finishes the task with them.
    TaskResults { task: String, results: Vec<TaskResult> },
}

impl TurnMessage {
    /// The message brings results of work this agent handed out.
    pub fn brings_results(&self) -> bool {
        matches!(self, TurnMessage::Results(_) | TurnMessage::TaskResults { .. })
    }
}

/// Everything a team-chat turn's context is built from.
#[derive(Debug, Clone)]
pub struct TeamTurn<'a> {
    pub runtime: RuntimeKind,
    /// Where the agent's files go this turn (`files::plan`): the persona and instructions
    /// sections (Claude Code, Codex, Hermes; OpenClaw gets instructions only), the workspace-file
    /// references.
    pub files: &'a files::FilePlan,
    /// Team rules as the user set them, in order.
    pub rules: &'a [String],
    /// The user's introduction ("About you").
    pub about_you: &'a str,
    pub team_name: &'a str,
    /// "General" or the room's name.
    pub room_name: &'a str,
    pub is_general: bool,
    /// The handle of the agent this turn is for.
    pub me: &'a str,
    /// Members of this chat, the agent itself included.
    pub members: &'a [Member],
    pub kind: TurnKind,
    pub tools: &'a [ToolName],
    pub routine: Option<&'a RoutineNote>,
    pub connectors: Option<&'a Connectors>,
    /// Waiting items: results, alerts, notices (oldest first).
    pub waiting: &'a [WaitingItem],
    pub peer_posts: &'a [PeerPost],
    pub message: &'a TurnMessage,
}

/// Which part of the contract a section is (its place in the order is its place in a team turn;
/// a task run orders its own, see `task.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum SectionKind {
    Persona,
    // AGENTS.md when the runtime does not read it itself, and the MEMORY.md pointer.
    Instructions,
    Rules,
    AboutYou,
    Teammates,
    HowToWork,
    // Workspace-file references (BOOTSTRAP.md, MEMORY.md without memory tools): only when the
    // runtime session does not hold them yet.
    WorkspaceFiles,
    Routine,
    Connectors,
    AddressedToYou,
    Ambient,
    Message,
    // Task-runner runs only. Plain comments keep the generated TypeScript a one-line union.
    // The card's title and description.
    Task,
    // Where the last attempt left off.
    Resume,
    // Clawboo's tools the run has, and how to use shared memory.
    ToolsNote,
    // A feature the runtime lacks (live streaming).
    RuntimeNote,
    // An earlier attempt was cut off by a quit or crash.
    CutOff,
    // The check that failed, on a fix round.
    FailureNote,
    // The last session's progress, after a restart in a fresh session.
    HandoffNote,
    // The memory facts for the task.
    Memory,
}

impl SectionKind {
    /// How often a section of this kind changes; it decides its tier.
    pub fn stability(self) -> Stability {
        match self {
            SectionKind::Persona
            | SectionKind::Instructions
            | SectionKind::Rules
            | SectionKind::AboutYou
            | SectionKind::Teammates
            | SectionKind::HowToWork
            // Changes only when the user adds or shares a connector: steady, so it stays in a
            // carried conversation's cached prefix instead of riding in front of every message.
            | SectionKind::Connectors
            | SectionKind::Task => Stability::Steady,
            SectionKind::WorkspaceFiles
            | SectionKind::Routine
            | SectionKind::AddressedToYou
            | SectionKind::Ambient
            | SectionKind::Message
            | SectionKind::Resume
            | SectionKind::ToolsNote
            | SectionKind::RuntimeNote
            | SectionKind::CutOff
            | SectionKind::FailureNote
            | SectionKind::HandoffNote => Stability::Turn,
            SectionKind::Memory => Stability::Volatile,
        }
    }
}

/// Steady sections change only when the user edits something; turn sections are new each time;
/// volatile ones (a task run's memory facts) change most, so they come last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Stability {
    Steady,
    Turn,
    Volatile,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Section {
    pub kind: SectionKind,
    pub stability: Stability,
    pub title: String,
    /// Exactly the text sent, heading included.
    pub text: String,
    pub chars: u32,
    /// The budget it is held to, when it has one.
    pub budget: Option<u32>,
    /// The full length of what was cut to the budget (the persona), when it was cut.
    pub cut_from: Option<u32>,
}

/// What was assembled, and which waiting items were left for the next turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Assembled {
    /// In contract order, empty ones left out; the last is the message.
    pub sections: Vec<Section>,
    /// Ids of waiting items and peer posts included (to mark read).
    pub delivered: Vec<String>,
    /// Ids that did not fit and wait for the next turn (nothing is dropped).
    pub deferred: Vec<String>,
}

impl Assembled {
    /// The steady sections (a team turn's persona … how to work; a task run's tier 1), joined by
    /// a blank line.
    pub fn steady_text(&self) -> String {
        self.join(|s| s.stability == Stability::Steady)
    }

    /// The sections that change each turn, before the message (team: routine, connectors,
    /// waiting; task: tier 2 only).
    pub fn turn_text(&self) -> String {
        self.join(|s| s.stability == Stability::Turn && s.kind != SectionKind::Message)
    }

    /// Everything between the steady part and the message: turn sections, then volatile ones (a
    /// task run's tiers 2 and 3; equal to [`Self::turn_text`] for a team turn, which has none).
    pub fn changing_text(&self) -> String {
        self.join(|s| s.stability != Stability::Steady && s.kind != SectionKind::Message)
    }

    /// Everything before the message, in contract order: steady, then turn, then volatile
    /// sections (a team turn's connectors, steady, follow its routine note: see `team.rs`).
    pub fn preamble(&self) -> String {
        self.join(|s| s.kind != SectionKind::Message)
    }

    pub fn message_text(&self) -> String {
        self.sections.iter().find(|s| s.kind == SectionKind::Message).map(|s| s.text.clone()).unwrap_or_default()
    }

    fn join(&self, keep: impl Fn(&Section) -> bool) -> String {
        let parts: Vec<&str> = self.sections.iter().filter(|s| keep(s)).map(|s| s.text.as_str()).collect();
        parts.join("\n\n")
    }
}
