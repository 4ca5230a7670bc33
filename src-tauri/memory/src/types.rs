//! Memory's vocabulary: facts (with history and citations), saved notes, scratch notes and
//! promotions. Serialized for the UI as they are.

use serde::{Deserialize, Serialize};

use clawboo_context::{BlockFact, ScratchItem, ScratchLabel};

/// A fact has at most this many characters; longer text is refused, never cut.
pub const MAX_FACT_CHARS: usize = 2_000;
/// A fact has at most this many tags, each at most `MAX_TAG_CHARS`.
pub const MAX_TAGS: usize = 8;
pub const MAX_TAG_CHARS: usize = 40;
/// A saved note or a scratch note has at most this many characters.
pub const MAX_NOTE_CHARS: usize = 2_000;
/// Top matches a search returns by default (the task runner's injection takes 5).
pub const DEFAULT_TOP: usize = 5;
/// Related facts a search adds at most.
pub const MAX_RELATED: usize = 2;

/// Who may read a fact.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Scope {
    Global,
    Team { team_id: String },
    Agent { agent_id: String },
}

/// Who wrote something: the user in the app, or an agent (bound by its run's token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Author {
    User,
    /// `handle` is the agent's handle when it wrote (kept if the agent is renamed or deleted).
    Agent {
        agent_id: String,
        handle: String,
        run_id: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Fact {
    /// Short, stable, never reused in this store: `m-7f3a` (longer when the short ones run out).
    pub id: String,
    pub text: String,
    pub scope: Scope,
    pub tags: Vec<String>,
    /// Who created it.
    pub author: Author,
    pub created_at: i64,
    pub updated_at: i64,
    /// Soft-deleted: hidden from search, shown in history, restorable.
    pub deleted: bool,
    /// 1 for a new fact; +1 on every edit, delete and restore.
    pub version: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum FactChange {
    Created,
    Edited,
    Deleted,
    Restored,
}

/// One entry of a fact's history: the fact as it was after `change`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct FactVersion {
    pub version: u32,
    pub change: FactChange,
    pub text: String,
    pub tags: Vec<String>,
    pub scope: Scope,
    pub by: Author,
    pub at: i64,
}

/// A run was given this fact ("cited").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Citation {
    pub run_id: String,
    pub agent_id: String,
    /// The agent's handle when cited.
    pub agent_handle: String,
    pub at: i64,
}

/// A fact, its history (oldest first) and where it was cited (newest first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct FactDetail {
    pub fact: Fact,
    pub versions: Vec<FactVersion>,
    pub citations: Vec<Citation>,
}

/// A new fact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct FactInput {
    pub text: String,
    pub scope: Scope,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// An edit: fields left `None` stay as they are. The scope of a fact never changes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct FactEdit {
    pub text: Option<String>,
    pub tags: Option<Vec<String>>,
}

/// What a save did: a new fact, or the existing one with exactly this text in this scope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Saved {
    pub fact: Fact,
    pub existing: bool,
}

/// Whose facts a search may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Visibility {
    /// The user: every fact.
    Everything,
    /// An agent: global facts, its teams' facts (membership read from the store) and its own.
    Agent { agent_id: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub fact: Fact,
    /// bm25 (lower is better) for top hits; for related facts, how they relate (see
    /// `SearchResult::related`).
    pub score: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    /// Best first.
    pub top: Vec<SearchHit>,
    /// Up to `MAX_RELATED` visible facts not in `top` that share the most tags with the top
    /// hits (ties: the better-ranked text neighbour, then the newest).
    pub related: Vec<SearchHit>,
}

/// Which facts the Memory view lists.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct FactFilter {
    /// Search text (sanitised like an agent's); empty lists newest first.
    pub query: Option<String>,
    pub scope: Option<Scope>,
    /// "user", or an agent id.
    pub author: Option<String>,
    #[serde(default)]
    pub include_deleted: bool,
    /// At most 200; default 100.
    pub limit: Option<u32>,
}

/// One of an agent's own saved notes (`note_save`): recalled on the first turn of its
/// one-to-one chat and after `/reset`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SavedNote {
    pub id: String,
    pub agent_id: String,
    pub text: String,
    pub author: Author,
    pub created_at: i64,
}

/// Where a scratch note lives.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ScratchScope {
    /// One conversation (an agent's one-to-one chat, or its private conversation in a room).
    Session {
        conversation_id: String,
    },
    Team {
        team_id: String,
    },
    Global,
}

/// A short durable conclusion (not reasoning, not raw output).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ScratchNote {
    pub id: String,
    pub scope: ScratchScope,
    pub text: String,
    pub author: Author,
    /// The note this one was copied from by an approved promotion.
    pub promoted_from: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum PromotionStatus {
    Pending,
    Approved,
    Rejected,
}

/// An agent asked to copy a scratch note, exactly, to a wider scope; the user decides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Promotion {
    pub id: String,
    pub note_id: String,
    /// The note's text when asked (what an approval copies).
    pub text: String,
    pub to: ScratchScope,
    pub requested_by: Author,
    pub status: PromotionStatus,
    pub created_at: i64,
    pub decided_at: Option<i64>,
    /// The copy an approval made.
    pub copy_id: Option<String>,
}

// How context assembly shows facts and notes: its own views, so `clawboo-context` needs no memory.

impl<'a> From<&'a Fact> for BlockFact<'a> {
    fn from(fact: &'a Fact) -> Self {
        Self { id: &fact.id, text: &fact.text }
    }
}

impl From<&ScratchScope> for ScratchLabel {
    fn from(scope: &ScratchScope) -> Self {
        match scope {
            ScratchScope::Session { .. } => ScratchLabel::Session,
            ScratchScope::Team { .. } => ScratchLabel::Team,
            ScratchScope::Global => ScratchLabel::Global,
        }
    }
}

impl<'a> From<&'a ScratchNote> for ScratchItem<'a> {
    fn from(note: &'a ScratchNote) -> Self {
        Self { scope: ScratchLabel::from(&note.scope), id: &note.id, text: &note.text }
    }
}
