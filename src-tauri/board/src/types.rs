//! The Board's vocabulary: cards, their columns and the one table of allowed moves, comments
//! (the agent's report is one) and activity. Serialized for the UI as they are.

use serde::{Deserialize, Deserializer, Serialize};

/// A card's title, in characters (the runner sends it as the run's message).
pub const MAX_TITLE_CHARS: usize = 200;
/// A card's description, in characters (steady tier of every run of the card).
pub const MAX_DESCRIPTION_CHARS: usize = 20_000;
/// A comment, in characters (an agent's report is a comment: longer text is refused by the
/// tools, while the runner keeps a report whole by storing its tail note, see the runner).
pub const MAX_COMMENT_CHARS: usize = 20_000;
/// A check command, in characters.
pub const MAX_CHECK_COMMAND_CHARS: usize = 2_000;
/// A card depends on at most this many others.
pub const MAX_DEPENDENCIES: usize = 32;
/// Why a card is blocked, in characters.
pub const MAX_REASON_CHARS: usize = 2_000;
/// A project folder's path, in characters.
pub const MAX_FOLDER_CHARS: usize = 4_096;

/// The Board's columns, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum CardStatus {
    Backlog,
    Todo,
    InProgress,
    InReview,
    Blocked,
    Done,
    Cancelled,
}

impl CardStatus {
    pub const ALL: [CardStatus; 7] = [
        CardStatus::Backlog,
        CardStatus::Todo,
        CardStatus::InProgress,
        CardStatus::InReview,
        CardStatus::Blocked,
        CardStatus::Done,
        CardStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CardStatus::Backlog => "backlog",
            CardStatus::Todo => "todo",
            CardStatus::InProgress => "in_progress",
            CardStatus::InReview => "in_review",
            CardStatus::Blocked => "blocked",
            CardStatus::Done => "done",
            CardStatus::Cancelled => "cancelled",
        }
    }

    /// As the user reads it ("In progress").
    pub fn label(self) -> &'static str {
        match self {
            CardStatus::Backlog => "Backlog",
            CardStatus::Todo => "To do",
            CardStatus::InProgress => "In progress",
            CardStatus::InReview => "In review",
            CardStatus::Blocked => "Blocked",
            CardStatus::Done => "Done",
            CardStatus::Cancelled => "Cancelled",
        }
    }

    /// Where a card may go from here: THE table of allowed moves (every move, the user's, an
    /// agent's or the runner's, is checked against it; an illegal one is refused with a message
    /// naming both columns). `InProgress` is entered only by a claim (a run starting, or a
    /// hand-off's teammate picking up its task), never by a plain move, so a card in progress
    /// always has its run.
    pub fn allowed_moves(self) -> &'static [CardStatus] {
        use CardStatus::*;
        match self {
            Backlog => &[Todo, Cancelled],
            Todo => &[Backlog, Blocked, Cancelled],
            // Leaving InProgress ends the claim: the runner's outcome, or the user cancelling.
            InProgress => &[InReview, Done, Blocked, Todo, Cancelled],
            InReview => &[Done, Todo, Blocked, Cancelled],
            Blocked => &[Todo, Backlog, Cancelled],
            // Reopen.
            Done => &[Todo],
            Cancelled => &[Backlog, Todo],
        }
    }

    pub fn can_move_to(self, to: CardStatus) -> bool {
        self.allowed_moves().contains(&to)
    }

    /// Statuses a claim may start from (the card must also be unclaimed and its dependencies
    /// done).
    pub fn claimable(self) -> bool {
        matches!(self, CardStatus::Backlog | CardStatus::Todo | CardStatus::Blocked | CardStatus::InReview)
    }

    /// Done or cancelled: no run, no claim.
    pub fn is_closed(self) -> bool {
        matches!(self, CardStatus::Done | CardStatus::Cancelled)
    }
}

/// A column as the Board shows it, with the moves the table allows from it (the UI offers
/// exactly these; it keeps no copy of the table).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct BoardColumn {
    pub status: CardStatus,
    pub label: String,
    pub allowed_moves: Vec<CardStatus>,
}

impl BoardColumn {
    /// Every column, in the order shown.
    pub fn all() -> Vec<BoardColumn> {
        CardStatus::ALL
            .iter()
            .map(|&status| BoardColumn {
                status,
                label: status.label().to_owned(),
                allowed_moves: status.allowed_moves().to_vec(),
            })
            .collect()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    Low,
    Medium,
    High,
    Urgent,
}

/// Who did something to a card: the user in the app, an agent (bound by its run's token, never
/// by what it claims), or Clawboo itself (the runner moving a card, a hand-off creating one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Actor {
    User,
    Agent { agent_id: String, handle: String, run_id: Option<String> },
    Clawboo,
}

/// Where a card came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CardOrigin {
    /// Made on the Board by the user.
    User,
    /// A leader's hand-off in team chat (`handoff` tool or `@handle` in its reply).
    Handoff { handoff_id: String, room_id: String, from_agent_id: String },
    /// Made and started by the user's script through the local API.
    Api,
    /// A run of a routine (an agent routine's runs are cards).
    Routine { routine_id: String, routine_run_id: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Card {
    pub id: String,
    /// Short number, unique in the store and never reused (`#12`), for people and agents.
    pub number: u32,
    pub title: String,
    pub description: String,
    pub assignee_id: Option<String>,
    pub team_id: Option<String>,
    pub status: CardStatus,
    pub priority: Priority,
    /// Ids of the cards this one waits for, in the order added.
    pub depends_on: Vec<String>,
    /// Of `depends_on`, those not done yet: the card cannot be claimed while any is left.
    pub waiting_on: Vec<String>,
    /// Run after the agent finishes; its exit code judges the work (fix round on failure).
    pub check_command: Option<String>,
    /// A folder the runs work in, else its team's (a git repository: the card's own worktree and
    /// branch `clawboo/card-<number>`; any other folder: in place, one run at a time).
    pub project_folder: Option<String>,
    /// The exact task text the agent received last (a hand-off's task; the runner's message
    /// and tiers are in each run's context).
    pub task_text: Option<String>,
    pub origin: CardOrigin,
    /// The run holding the claim, while in progress.
    pub claimed_by_run: Option<String>,
    /// Why the card is blocked (set when moved to Blocked, cleared when it leaves).
    pub blocked_reason: Option<String>,
    /// Position within its column (lower first); the UI sorts by it.
    pub position: f64,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum CommentKind {
    Comment,
    /// A run's final reply, posted by the runner.
    Report,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    pub id: String,
    pub card_id: String,
    pub author: Actor,
    pub kind: CommentKind,
    pub text: String,
    pub run_id: Option<String>,
    pub created_at: i64,
}

/// One line of a card's activity (runs' tool calls are in the runs' events, listed by run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ActivityKind {
    Created,
    Edited { fields: Vec<String> },
    Moved { from: CardStatus, to: CardStatus, reason: Option<String> },
    Assigned { from: Option<String>, to: Option<String> },
    Claimed { run_id: String },
    Released { run_id: String },
    Commented { comment_id: String },
    DependencyAdded { card_id: String },
    DependencyRemoved { card_id: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Activity {
    pub id: String,
    pub card_id: String,
    pub actor: Actor,
    pub activity: ActivityKind,
    pub at: i64,
}

/// What the user (or a hand-off) sends to make a card.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewCard {
    pub title: String,
    #[serde(default)]
    pub description: String,
    pub assignee_id: Option<String>,
    pub team_id: Option<String>,
    /// Default `Todo`; only Backlog or Todo (InProgress comes by a claim).
    pub status: Option<CardStatus>,
    pub priority: Option<Priority>,
    #[serde(default)]
    pub depends_on: Vec<String>,
    pub check_command: Option<String>,
    pub project_folder: Option<String>,
}

/// A partial edit: `None` leaves a field as it is; `Some(None)` clears an optional one. From
/// the UI: a field left out is `None`, `null` is `Some(None)` (plain serde would read both as
/// `None`, and nothing could be cleared); in TypeScript such a field is `x?: string | null`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CardEdit {
    pub title: Option<String>,
    pub description: Option<String>,
    #[serde(default, deserialize_with = "present")]
    #[specta(type = Option<String>)]
    pub assignee_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[specta(type = Option<String>)]
    pub team_id: Option<Option<String>>,
    pub priority: Option<Priority>,
    pub depends_on: Option<Vec<String>>,
    #[serde(default, deserialize_with = "present")]
    #[specta(type = Option<String>)]
    pub check_command: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[specta(type = Option<String>)]
    pub project_folder: Option<Option<String>>,
}

/// A field that is there (value or `null`) is `Some`; `default` makes a missing one `None`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// Board filters (all optional, AND-ed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CardFilter {
    pub team_id: Option<String>,
    pub assignee_id: Option<String>,
    pub status: Option<CardStatus>,
}

/// A card with its comments and activity, as the card view opens it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CardDetail {
    pub card: Card,
    pub comments: Vec<Comment>,
    pub activity: Vec<Activity>,
}

/// Why a run of a card exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum CardRunKind {
    /// A first run of the card, or a retry.
    Run,
    /// A fix round after the check command failed.
    Fix,
    /// A fresh session continuing the work when the context window filled or turns ran out.
    Rotation,
    /// A teammate working on a hand-off in team chat.
    Handoff,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum CardRunStatus {
    Running,
    Succeeded,
    Failed,
    Cancelled,
    /// Cut off by a crash or a quit.
    Interrupted,
}

/// One run of a card (the task runner's attempts; a hand-off's teammate run).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CardRun {
    pub run_id: String,
    pub card_id: String,
    /// 1 for the card's first run, counting up.
    pub attempt: u32,
    pub kind: CardRunKind,
    pub status: CardRunStatus,
    pub started_at: i64,
    pub finished_at: Option<i64>,
    /// How it ended, when there is more to say than its status.
    pub reason: Option<String>,
    /// Why it failed, for the way to the fix (none for runs before codes were recorded).
    pub error_code: Option<clawboo_vocab::RunErrorCode>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_tells_a_missing_field_from_a_cleared_one() {
        let edit: CardEdit = serde_json::from_str(r#"{"assigneeId": null, "teamId": "t1"}"#).unwrap();
        assert_eq!(edit.assignee_id, Some(None), "null clears");
        assert_eq!(edit.team_id, Some(Some("t1".into())));
        assert_eq!(edit.check_command, None, "missing leaves as it is");
    }

    #[test]
    fn in_progress_is_entered_only_by_a_claim() {
        for status in CardStatus::ALL {
            assert!(!status.can_move_to(CardStatus::InProgress), "{status:?} → InProgress must be a claim");
        }
    }

    #[test]
    fn every_column_can_be_left_and_reached() {
        for status in CardStatus::ALL {
            assert!(!status.allowed_moves().is_empty(), "{status:?} is a dead end");
            assert!(!status.can_move_to(status), "{status:?} → itself is not a move");
            let reachable =
                CardStatus::ALL.iter().any(|from| from.can_move_to(status)) || status == CardStatus::InProgress;
            assert!(reachable, "{status:?} cannot be reached");
        }
    }
}
