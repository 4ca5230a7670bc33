//! Shared memory: facts with scope, tags, history (every edit kept) and a short citable id,
//! searched with FTS5 `bm25()`; "cited" records of which runs were given which facts; each
//! agent's saved notes; scratch notes in three scopes, where copying a note to a wider scope
//! waits for the user's approval. Every change publishes [`EngineEvent::MemoryChanged`].
//!
//! CONTRACT (types and signatures fixed; bodies by the memory helper).

pub mod tools;
mod types;

use std::sync::Arc;

pub use types::*;

use crate::error::Result;
use crate::events::EventBus;
use crate::store::Store;

pub struct Memory {
    store: Arc<Store>,
    events: EventBus,
}

impl Memory {
    pub fn new(store: Arc<Store>, events: EventBus) -> Self {
        Self { store, events }
    }

    // --- Facts ---------------------------------------------------------------------------

    /// Saves a fact after the checks (secret-looking text, over `MAX_FACT_CHARS`, empty, bad
    /// tags, a scope whose team or agent does not exist: `InvalidInput` with a clear message).
    /// Exactly the same text in the same scope returns the existing fact (`existing: true`).
    pub fn save(&self, input: FactInput, by: Author) -> Result<Saved> {
        let _ = (&self.store, &self.events, input, by);
        todo!("memory helper")
    }

    /// Edits text and/or tags (same checks as `save`); the earlier version stays in history.
    pub fn edit(&self, id: &str, edit: FactEdit, by: Author) -> Result<Fact> {
        let _ = (id, edit, by);
        todo!("memory helper")
    }

    /// Soft delete (kept in history, hidden from search).
    pub fn delete(&self, id: &str, by: Author) -> Result<Fact> {
        let _ = (id, by);
        todo!("memory helper")
    }

    pub fn restore(&self, id: &str, by: Author) -> Result<Fact> {
        let _ = (id, by);
        todo!("memory helper")
    }

    /// A fact with its history and citations (deleted ones too). `NotFound` for an unknown id.
    pub fn detail(&self, id: &str) -> Result<FactDetail> {
        let _ = id;
        todo!("memory helper")
    }

    /// A live fact `visible` may read (an agent's `memory_get`): `NotFound` otherwise, the
    /// same message whether it does not exist or is out of the caller's scope.
    pub fn get(&self, id: &str, visible: &Visibility) -> Result<Fact> {
        let _ = (id, visible);
        todo!("memory helper")
    }

    /// Top `top` live facts for `query` (sanitised: any text is a valid query) plus up to
    /// `MAX_RELATED` related ones. An empty or all-punctuation query finds nothing.
    pub fn search(&self, query: &str, visible: &Visibility, top: usize) -> Result<SearchResult> {
        let _ = (query, visible, top);
        todo!("memory helper")
    }

    /// The Memory view's list (newest first without a query, best first with one).
    pub fn list(&self, filter: &FactFilter) -> Result<Vec<Fact>> {
        let _ = filter;
        todo!("memory helper")
    }

    /// Records that run `run_id` of `agent_id` was given these facts (idempotent per pair).
    pub fn cite(&self, run_id: &str, agent_id: &str, fact_ids: &[String]) -> Result<()> {
        let _ = (run_id, agent_id, fact_ids);
        todo!("memory helper")
    }

    // --- Saved notes -----------------------------------------------------------------------

    /// An agent's own note (same secret and size checks as facts; an exact duplicate of one of
    /// its notes returns that note).
    pub fn save_note(&self, agent_id: &str, text: &str, by: Author) -> Result<SavedNote> {
        let _ = (agent_id, text, by);
        todo!("memory helper")
    }

    /// The agent's newest `limit` notes, newest first.
    pub fn notes(&self, agent_id: &str, limit: usize) -> Result<Vec<SavedNote>> {
        let _ = (agent_id, limit);
        todo!("memory helper")
    }

    pub fn delete_note(&self, id: &str) -> Result<()> {
        let _ = id;
        todo!("memory helper")
    }

    // --- Scratch notes ---------------------------------------------------------------------

    /// An agent writes to its session scope (the conversation it runs in).
    pub fn scratch_write(&self, conversation_id: &str, text: &str, by: Author) -> Result<ScratchNote> {
        let _ = (conversation_id, text, by);
        todo!("memory helper")
    }

    /// The user adds a team or global note (a session scope is refused).
    pub fn scratch_add(&self, scope: ScratchScope, text: &str) -> Result<ScratchNote> {
        let _ = (scope, text);
        todo!("memory helper")
    }

    /// The user edits or deletes a team or global note.
    pub fn scratch_edit(&self, id: &str, text: &str) -> Result<ScratchNote> {
        let _ = (id, text);
        todo!("memory helper")
    }

    pub fn scratch_delete(&self, id: &str) -> Result<()> {
        let _ = id;
        todo!("memory helper")
    }

    /// Notes of one scope, newest first (the Memory view).
    pub fn scratch_list(&self, scope: &ScratchScope) -> Result<Vec<ScratchNote>> {
        let _ = scope;
        todo!("memory helper")
    }

    /// Every team and global note plus every session note, newest first, at most `limit`.
    pub fn scratch_all(&self, limit: usize) -> Result<Vec<ScratchNote>> {
        let _ = limit;
        todo!("memory helper")
    }

    /// What reaches an agent: its session's notes, then its team's, then global ones, newest
    /// first within each, whole notes only, within `budget_chars` in all.
    pub fn scratch_projection(
        &self,
        conversation_id: &str,
        team_id: Option<&str>,
        budget_chars: usize,
    ) -> Result<Vec<ScratchNote>> {
        let _ = (conversation_id, team_id, budget_chars);
        todo!("memory helper")
    }

    /// An agent asks to copy its own session note `note_id` exactly to `to` (team or global):
    /// a pending promotion. Only notes of the caller's conversation can be promoted.
    pub fn request_promotion(
        &self,
        conversation_id: &str,
        note_id: &str,
        to: ScratchScope,
        by: Author,
    ) -> Result<Promotion> {
        let _ = (conversation_id, note_id, to, by);
        todo!("memory helper")
    }

    /// Pending first, then the latest decided ones (at most `limit` in all).
    pub fn promotions(&self, limit: usize) -> Result<Vec<Promotion>> {
        let _ = limit;
        todo!("memory helper")
    }

    /// The user approves (the exact text is copied to the target scope) or rejects. Only a
    /// pending promotion can be decided.
    pub fn decide_promotion(&self, id: &str, approve: bool) -> Result<Promotion> {
        let _ = (id, approve);
        todo!("memory helper")
    }
}
