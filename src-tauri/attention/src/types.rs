//! Attention's vocabulary: a request for the user (a question, or a typed approval), where it
//! came from, how it was answered, the "Allow always" grants and the audit. Serialized for the
//! UI as they are.

use serde::{Deserialize, Serialize};

/// A question for the user, in characters (an `ask_user` call or an `@user` message).
pub const MAX_QUESTION_CHARS: usize = 4_000;
/// The user's answer to a question, in characters (it becomes a chat message).
pub const MAX_ANSWER_CHARS: usize = 16_000;
/// An unanswered approval expires after this many hours unless the user set another limit.
pub const DEFAULT_EXPIRY_HOURS: u32 = 24;
/// The longest expiry the user may set (30 days).
pub const MAX_EXPIRY_HOURS: u32 = 720;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    /// An agent asks the user something (`ask_user`, `@user`); answered with text.
    Question,
    /// A runtime asks before using a tool.
    Permission,
    /// An agent asks to copy a scratch note to a wider scope.
    Promotion,
    /// An agent proposes a routine (`routine_create`); Allow creates it.
    RoutineProposal,
    /// A routine paused itself after failing again and again; Allow resumes it.
    RoutinePaused,
    /// An agent's `memory_save` to a wider scope than its own (global, or a team its run is not
    /// in); Allow saves the fact exactly as shown. Decided each time.
    MemorySave,
    /// A circuit breaker paused an agent or a room (too many runs, hand-offs back and forth, the
    /// same tool call repeated): the text says what it saw. Allow resumes it; Deny keeps it paused.
    ScopePaused,
    /// A budget reached 80% of its figure: a line to read (any answer dismisses it).
    BudgetWarning,
    /// A budget is spent: new runs in its scope are refused. Allow lets them run until tomorrow;
    /// Deny keeps them stopped (raising the budget is done where it is edited).
    BudgetReached,
}

impl RequestKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RequestKind::Question => "question",
            RequestKind::Permission => "permission",
            RequestKind::Promotion => "promotion",
            RequestKind::RoutineProposal => "routine_proposal",
            RequestKind::RoutinePaused => "routine_paused",
            RequestKind::MemorySave => "memory_save",
            RequestKind::ScopePaused => "scope_paused",
            RequestKind::BudgetWarning => "budget_warning",
            RequestKind::BudgetReached => "budget_reached",
        }
    }

    pub fn parse(s: &str) -> Self {
        match s {
            "permission" => RequestKind::Permission,
            "promotion" => RequestKind::Promotion,
            "routine_proposal" => RequestKind::RoutineProposal,
            "routine_paused" => RequestKind::RoutinePaused,
            "memory_save" => RequestKind::MemorySave,
            "scope_paused" => RequestKind::ScopePaused,
            "budget_warning" => RequestKind::BudgetWarning,
            "budget_reached" => RequestKind::BudgetReached,
            _ => RequestKind::Question,
        }
    }

    /// A budget's line (at 80%, or spent): it stands until its period ends, not an approval's
    /// expiry, and is never denied for want of an answer.
    pub fn is_budget(self) -> bool {
        matches!(self, RequestKind::BudgetWarning | RequestKind::BudgetReached)
    }

    /// Whether it is answered with a decision (Allow once / Allow always / Deny).
    pub fn is_approval(self) -> bool {
        self != RequestKind::Question
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RequestStatus {
    Open,
    /// The user answered it in the app.
    Answered,
    /// The user wrote in the team chat it came from, which clears the team's open questions.
    Cleared,
    /// Nobody answered in time: an approval is denied.
    Expired,
    /// Its run ended (finished, stopped, or cut off by a quit) before an answer.
    Withdrawn,
}

impl RequestStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RequestStatus::Open => "open",
            RequestStatus::Answered => "answered",
            RequestStatus::Cleared => "cleared",
            RequestStatus::Expired => "expired",
            RequestStatus::Withdrawn => "withdrawn",
        }
    }

    pub fn parse(s: &str) -> Self {
        match s {
            "answered" => RequestStatus::Answered,
            "cleared" => RequestStatus::Cleared,
            "expired" => RequestStatus::Expired,
            "withdrawn" => RequestStatus::Withdrawn,
            _ => RequestStatus::Open,
        }
    }
}

/// Where a request came from, and so where its answer goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The agent's one-to-one chat.
    Chat,
    /// A team's chat (a leader's turn or a teammate's hidden task).
    Team,
    /// A run of a card on the Board.
    Card,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Chat => "chat",
            Origin::Team => "team",
            Origin::Card => "card",
        }
    }

    pub fn parse(s: &str) -> Self {
        match s {
            "team" => Origin::Team,
            "card" => Origin::Card,
            _ => Origin::Chat,
        }
    }
}

/// An approval's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    AllowOnce,
    /// Allow, and from now on allow this agent this tool without asking (until revoked); for a
    /// shell tool, only the commands that start with this one's prefix.
    AllowAlways,
    Deny,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::AllowOnce => "allow_once",
            Decision::AllowAlways => "allow_always",
            Decision::Deny => "deny",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "allow_once" => Some(Decision::AllowOnce),
            "allow_always" => Some(Decision::AllowAlways),
            "deny" => Some(Decision::Deny),
            _ => None,
        }
    }

    pub fn allows(self) -> bool {
        self != Decision::Deny
    }
}

/// Who raised a request and from where: the run's owner fills it in from what it knows (the
/// token's binding for tools), never from what an agent claims.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Source {
    pub agent_id: String,
    pub team_id: Option<String>,
    pub room_id: Option<String>,
    pub run_id: Option<String>,
    pub card_id: Option<String>,
    /// The `@user` message in team chat.
    pub message_id: Option<String>,
}

impl Source {
    pub fn origin(&self) -> Origin {
        if self.card_id.is_some() {
            Origin::Card
        } else if self.team_id.is_some() {
            Origin::Team
        } else {
            Origin::Chat
        }
    }
}

/// A request for the user, as the inbox and the audit show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AttentionRequest {
    /// `r-` and 10 hex digits.
    pub id: String,
    pub kind: RequestKind,
    pub status: RequestStatus,
    pub origin: Origin,
    pub agent_id: String,
    pub agent_name: String,
    pub agent_handle: String,
    pub team_id: Option<String>,
    /// The team's name now (None once the team is gone).
    pub team_name: Option<String>,
    pub room_id: Option<String>,
    pub room_name: Option<String>,
    pub run_id: Option<String>,
    pub card_id: Option<String>,
    pub card_number: Option<i64>,
    pub card_title: Option<String>,
    pub message_id: Option<String>,
    /// The question, or what the approval asks ("Write file notes.md").
    pub text: String,
    /// For a permission: the tool the runtime wants to use.
    pub tool: Option<String>,
    /// For a permission: the tool's input (JSON, pretty), whole: what is allowed is what shows.
    /// For a memory save: the fact, exactly as it is saved if allowed.
    pub input: Option<String>,
    /// For a permission: the runtime's own id of its question (the run's timeline answers by it).
    pub runtime_request_id: Option<String>,
    /// For a shell tool's permission: the command's leading words ("git status") that "Allow
    /// always" lets through from then on; never the whole shell.
    pub command_prefix: Option<String>,
    /// Whether "Allow always" is offered: for a permission (a shell command only when it has a
    /// plain prefix) and a promotion; never for a question, a routine or a memory save.
    pub allow_always: bool,
    pub promotion_id: Option<String>,
    pub created_at: i64,
    /// For an approval: when it is denied if nobody answers.
    pub expires_at: Option<i64>,
    pub decision: Option<Decision>,
    /// The user's answer to a question.
    pub answer: Option<String>,
    pub answered_at: Option<i64>,
}

/// "Allow always for this agent and tool" (for a shell tool: and this command prefix).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    pub id: String,
    pub agent_id: String,
    pub agent_name: String,
    pub tool: String,
    /// For a shell tool: the commands it lets through start with these words (`git status`);
    /// None for any other tool, allowed whole.
    pub command_prefix: Option<String>,
    /// The approval whose answer made it.
    pub request_id: Option<String>,
    pub created_at: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum AuditAction {
    Raised,
    Answered,
    Allowed,
    AllowedAlways,
    /// Let through without asking, by an earlier "Allow always".
    AllowedByGrant,
    Denied,
    Expired,
    Cleared,
    Withdrawn,
    GrantRevoked,
}

impl AuditAction {
    pub fn as_str(self) -> &'static str {
        match self {
            AuditAction::Raised => "raised",
            AuditAction::Answered => "answered",
            AuditAction::Allowed => "allowed",
            AuditAction::AllowedAlways => "allowed_always",
            AuditAction::AllowedByGrant => "allowed_by_grant",
            AuditAction::Denied => "denied",
            AuditAction::Expired => "expired",
            AuditAction::Cleared => "cleared",
            AuditAction::Withdrawn => "withdrawn",
            AuditAction::GrantRevoked => "grant_revoked",
        }
    }

    pub fn parse(s: &str) -> Self {
        match s {
            "answered" => AuditAction::Answered,
            "allowed" => AuditAction::Allowed,
            "allowed_always" => AuditAction::AllowedAlways,
            "allowed_by_grant" => AuditAction::AllowedByGrant,
            "denied" => AuditAction::Denied,
            "expired" => AuditAction::Expired,
            "cleared" => AuditAction::Cleared,
            "withdrawn" => AuditAction::Withdrawn,
            "grant_revoked" => AuditAction::GrantRevoked,
            _ => AuditAction::Raised,
        }
    }
}

/// One line of the audit: who did what, when, to which request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub seq: i64,
    pub at: i64,
    pub request_id: Option<String>,
    /// "you" (the user, in the app), "@handle" (an agent), or "clawboo" (expiry, a grant, a run
    /// that ended).
    pub actor: String,
    pub action: AuditAction,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AttentionSettings {
    /// An unanswered approval is denied after this many hours (1 to 720).
    pub approval_expiry_hours: u32,
}

impl Default for AttentionSettings {
    fn default() -> Self {
        Self { approval_expiry_hours: DEFAULT_EXPIRY_HOURS }
    }
}

/// What the tray shows: the count of open requests and the newest few.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TrayState {
    pub open: u32,
    pub questions: u32,
    pub approvals: u32,
    /// "Clawboo: 2 need you" or "Clawboo".
    pub tooltip: String,
    /// Newest first, at most [`TRAY_ITEMS`].
    pub newest: Vec<TrayItem>,
}

/// The most requests the tray's menu lists.
pub const TRAY_ITEMS: usize = 5;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TrayItem {
    pub request_id: String,
    /// "Ada asks: Which region?" shortened to a menu line.
    pub label: String,
}

/// The user's answer, given in the app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum UserAnswer {
    /// To a question.
    Text { text: String },
    /// To an approval.
    Decision { decision: Decision },
}
