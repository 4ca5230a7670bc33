//! `clawboo-memory`: shared memory. It may use `clawboo-vocab`, `clawboo-store` and
//! `clawboo-context` (its facts and notes convert into context's views there); the engine
//! re-exports it as `clawboo_engine::memory`.
//!
//! Facts with scope, tags, history (every edit kept) and a short citable id,
//! searched with FTS5 `bm25()`; "cited" records of which runs were given which facts; each
//! agent's saved notes; scratch notes in three scopes, where copying a note to a wider scope
//! waits for the user's approval. Every change publishes [`EngineEvent::MemoryChanged`] after
//! its transaction commits.
//!
//! **Ids.** `m-` and four random lowercase hex digits; after a few collisions at one length the
//! id grows a digit (`m-7f3a0`…). Every id ever issued is kept (`memory_ids`) and fact rows are
//! never removed, so an id is never issued twice: not after a delete, not after the fact's
//! team or agent is deleted (the fact stays, visible to the user, to no agent).
//!
//! **Search.** The query's words (runs of Unicode letters and digits, at most 32) are quoted
//! and joined with OR, never passed as raw FTS5 syntax; bm25 ranks facts matching more (and
//! rarer) words first. Deleted facts are never found. At scale a query keeps its rarest words
//! while the facts they are in add up to at most 1,500 (always at least one word): the
//! commonest words barely move bm25 but would make most facts matches to rank (counts of facts
//! per word and per tag are kept with every change, `memory_term_counts`).
//!
//! **What "related" means.** Up to `MAX_RELATED` visible live facts not in the top hits that
//! share the most tags with the top hits (their score: the number of tags shared). Only the
//! top hits' rarer tags count: the rarest while the facts carrying them add up to at most
//! 3,000 (a tag on a fifth of all facts says little). Ties go to the better bm25 for the same
//! query (among its 100 best matches), then the newest. Slots left (no tags shared, or fewer
//! such facts) go to the next best text neighbours: the facts ranked just after the top hits
//! (their score: bm25, negative, so the two kinds are told apart).
//!
//! **Saved notes** have no history: deleting one removes it (its id stays issued).

mod checks;
mod held;
mod ids;
mod notes;
mod scratch;
mod search;
mod store;
mod types;

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

pub use types::*;

use clawboo_store::events::{EngineEvent, EventBus};
use clawboo_store::store::Store;
use clawboo_vocab::error::{Error, Result};

/// The Memory view's list shows at most this many facts (default `DEFAULT_LIST`).
pub const MAX_LIST: usize = 200;
pub const DEFAULT_LIST: usize = 100;

pub struct Memory {
    store: Arc<Store>,
    events: EventBus,
}

impl Memory {
    pub fn new(store: Arc<Store>, events: EventBus) -> Self {
        Self { store, events }
    }

    /// Runs a write, then tells subscribers memory changed (only once it is committed).
    fn change<T>(&self, f: impl FnOnce(&rusqlite::Transaction) -> Result<T>) -> Result<T> {
        let value = self.store.write(f)?;
        self.events.publish(EngineEvent::MemoryChanged);
        Ok(value)
    }

    // --- Facts ---------------------------------------------------------------------------

    /// Saves a fact after the checks (secret-looking text, over `MAX_FACT_CHARS`, empty, bad
    /// tags, a scope whose team or agent does not exist: `InvalidInput` with a clear message).
    /// Exactly the same text in the same scope returns the existing fact (`existing: true`).
    pub fn save(&self, input: FactInput, by: Author) -> Result<Saved> {
        let saved = self.store.write(|tx| save_in(tx, input, &by, now_ms()))?;
        if !saved.existing {
            self.events.publish(EngineEvent::MemoryChanged);
        }
        Ok(saved)
    }

    /// Holds a fact `by` an agent asked to save to a wider scope, under the approval request
    /// `request_id`, after the checks `save` makes (so the user is never asked to allow what
    /// would be refused). Returns what is held: trimmed, tags normalised. Nothing is saved
    /// until [`save_held`] runs, when the user allows it.
    pub fn hold(&self, request_id: &str, input: FactInput, by: &Author) -> Result<FactInput> {
        let checked = checked(input)?;
        self.store.write(|tx| {
            store::check_scope(tx, &checked.scope)?;
            held::insert(tx, request_id, &checked, by, now_ms())
        })?;
        Ok(checked)
    }

    /// The checks `save` makes, without saving: the fact as it would be held and saved.
    pub fn check(&self, input: FactInput) -> Result<FactInput> {
        let checked = checked(input)?;
        self.store.read(|conn| store::check_scope(conn, &checked.scope))?;
        Ok(checked)
    }

    /// Tells subscribers memory changed (after [`save_held`] committed in another's transaction).
    pub fn changed(&self) {
        self.events.publish(EngineEvent::MemoryChanged);
    }

    /// Edits text and/or tags (same checks as `save`); the earlier version stays in history.
    /// An edit that changes nothing adds no version. A deleted fact must be restored first.
    pub fn edit(&self, id: &str, edit: FactEdit, by: Author) -> Result<Fact> {
        let text = edit.text.as_deref().map(|t| checks::text("The fact", t, MAX_FACT_CHARS)).transpose()?;
        let tags = edit.tags.as_deref().map(checks::tags).transpose()?;
        let now = now_ms();
        let (fact, changed) = self.store.write(|tx| {
            let (seq, before) = store::find(tx, id)?.ok_or_else(|| store::not_found(id))?;
            let mut fact = before.clone();
            if fact.deleted {
                return Err(Error::InvalidInput(format!("The fact {id} is deleted; restore it before editing.")));
            }
            let text_changed = text.as_ref().is_some_and(|t| *t != fact.text);
            let tags_changed = tags.as_ref().is_some_and(|t| *t != fact.tags);
            if !text_changed && !tags_changed {
                return Ok((fact, false));
            }
            if let Some(text) = text.filter(|_| text_changed) {
                if let Some(other) = store::live_duplicate(tx, &fact.scope, &text)? {
                    return Err(Error::InvalidInput(format!(
                        "The fact {} in the same scope already says exactly this.",
                        other.id
                    )));
                }
                fact.text = text;
            }
            if let Some(tags) = tags.filter(|_| tags_changed) {
                fact.tags = tags;
            }
            fact.version += 1;
            fact.updated_at = now;
            store::update(tx, seq, &before, &fact)?;
            store::add_version(tx, &fact, FactChange::Edited, &by)?;
            Ok((fact, true))
        })?;
        if changed {
            self.events.publish(EngineEvent::MemoryChanged);
        }
        Ok(fact)
    }

    /// Soft delete (kept in history, hidden from search).
    pub fn delete(&self, id: &str, by: Author) -> Result<Fact> {
        self.set_deleted(id, true, by)
    }

    pub fn restore(&self, id: &str, by: Author) -> Result<Fact> {
        self.set_deleted(id, false, by)
    }

    fn set_deleted(&self, id: &str, deleted: bool, by: Author) -> Result<Fact> {
        let now = now_ms();
        self.change(|tx| {
            let (seq, before) = store::find(tx, id)?.ok_or_else(|| store::not_found(id))?;
            let mut fact = before.clone();
            if fact.deleted == deleted {
                let state = if deleted { "already deleted" } else { "not deleted" };
                return Err(Error::InvalidInput(format!("The fact {id} is {state}.")));
            }
            fact.deleted = deleted;
            fact.version += 1;
            fact.updated_at = now;
            store::update(tx, seq, &before, &fact)?;
            let change = if deleted { FactChange::Deleted } else { FactChange::Restored };
            store::add_version(tx, &fact, change, &by)?;
            Ok(fact)
        })
    }

    /// A fact with its history and citations (deleted ones too). `NotFound` for an unknown id.
    pub fn detail(&self, id: &str) -> Result<FactDetail> {
        self.store.read(|conn| {
            let fact = store::load(conn, id.trim())?;
            Ok(FactDetail {
                versions: store::versions(conn, &fact.id)?,
                citations: store::citations(conn, &fact.id)?,
                fact,
            })
        })
    }

    /// A live fact `visible` may read (an agent's `memory_get`): `NotFound` otherwise, the
    /// same message whether it does not exist or is out of the caller's scope.
    pub fn get(&self, id: &str, visible: &Visibility) -> Result<Fact> {
        let id = id.trim();
        self.store.read(|conn| {
            let fact = store::find(conn, id)?.map(|(_, f)| f).filter(|f| !f.deleted);
            match (fact, visible) {
                (Some(fact), Visibility::Everything) => Ok(fact),
                (Some(fact), Visibility::Agent { agent_id }) if store::visible_to(conn, &fact, agent_id)? => Ok(fact),
                _ => Err(store::not_found(id)),
            }
        })
    }

    /// Top `top` live facts for `query` (sanitised: any text is a valid query) plus up to
    /// `MAX_RELATED` related ones. An empty or all-punctuation query finds nothing.
    pub fn search(&self, query: &str, visible: &Visibility, top: usize) -> Result<SearchResult> {
        self.store.read(|conn| search::search(conn, query, viewer(visible), top))
    }

    /// The Memory view's list (newest first without a query, best first with one).
    pub fn list(&self, filter: &FactFilter) -> Result<Vec<Fact>> {
        let limit = filter.limit.map_or(DEFAULT_LIST, |l| (l as usize).min(MAX_LIST));
        self.store.read(|conn| search::list(conn, filter, limit))
    }

    /// Records that run `run_id` of `agent_id` was given these facts (idempotent per pair).
    /// An unknown fact id is `NotFound` and records nothing.
    pub fn cite(&self, run_id: &str, agent_id: &str, fact_ids: &[String]) -> Result<()> {
        if fact_ids.is_empty() {
            return Ok(());
        }
        let now = now_ms();
        let added = self.store.write(|tx| {
            let handle = store::agent_handle(tx, agent_id)?.unwrap_or_default();
            let mut added = false;
            for id in fact_ids {
                let fact = store::load(tx, id)?;
                added |= store::cite(tx, &fact.id, run_id, agent_id, &handle, now)?;
            }
            Ok(added)
        })?;
        if added {
            self.events.publish(EngineEvent::MemoryChanged);
        }
        Ok(())
    }

    // --- Saved notes -----------------------------------------------------------------------

    /// An agent's own note (same secret and size checks as facts; an exact duplicate of one of
    /// its notes returns that note).
    pub fn save_note(&self, agent_id: &str, text: &str, by: Author) -> Result<SavedNote> {
        let (note, added) = self.store.write(|tx| notes::save(tx, agent_id, text, &by, now_ms()))?;
        if added {
            self.events.publish(EngineEvent::MemoryChanged);
        }
        Ok(note)
    }

    /// The agent's newest `limit` notes, newest first.
    pub fn notes(&self, agent_id: &str, limit: usize) -> Result<Vec<SavedNote>> {
        self.store.read(|conn| notes::newest(conn, agent_id, limit))
    }

    /// Removes the note for good (notes have no history).
    pub fn delete_note(&self, id: &str) -> Result<()> {
        self.change(|tx| notes::delete(tx, id))
    }

    // --- Scratch notes ---------------------------------------------------------------------

    /// An agent writes to its session scope (the conversation it runs in).
    pub fn scratch_write(&self, conversation_id: &str, text: &str, by: Author) -> Result<ScratchNote> {
        let scope = ScratchScope::Session { conversation_id: conversation_id.to_owned() };
        self.change(|tx| scratch::insert(tx, scope, text, by, None, now_ms()))
    }

    /// The user adds a team or global note (a session scope is refused).
    pub fn scratch_add(&self, scope: ScratchScope, text: &str) -> Result<ScratchNote> {
        if matches!(scope, ScratchScope::Session { .. }) {
            return Err(Error::InvalidInput(
                "Session scratch notes are written by the agent in that session; add a team or global note instead."
                    .into(),
            ));
        }
        self.change(|tx| scratch::insert(tx, scope, text, Author::User, None, now_ms()))
    }

    /// The user edits a team or global note (a session note is refused).
    pub fn scratch_edit(&self, id: &str, text: &str) -> Result<ScratchNote> {
        self.change(|tx| scratch::edit(tx, id, text, now_ms()))
    }

    /// The user deletes a note of any scope.
    pub fn scratch_delete(&self, id: &str) -> Result<()> {
        self.change(|tx| scratch::delete(tx, id))
    }

    /// Notes of one scope, newest first (the Memory view).
    pub fn scratch_list(&self, scope: &ScratchScope) -> Result<Vec<ScratchNote>> {
        self.store.read(|conn| scratch::of_scope(conn, scope, None))
    }

    /// Every team and global note plus every session note, newest first, at most `limit`.
    pub fn scratch_all(&self, limit: usize) -> Result<Vec<ScratchNote>> {
        self.store.read(|conn| scratch::all(conn, limit))
    }

    /// What reaches an agent: its session's notes, then its team's, then global ones, newest
    /// first within each, whole notes only, within `budget_chars` in all (a note that does not
    /// fit is skipped; smaller ones after it may still fit).
    pub fn scratch_projection(
        &self,
        conversation_id: &str,
        team_id: Option<&str>,
        budget_chars: usize,
    ) -> Result<Vec<ScratchNote>> {
        self.store.read(|conn| scratch::projection(conn, conversation_id, team_id, budget_chars))
    }

    /// An agent asks to copy its own session note `note_id` exactly to `to` (team or global):
    /// a pending promotion. Only notes of the caller's conversation can be promoted. Asking
    /// again while one is pending returns that one.
    pub fn request_promotion(
        &self,
        conversation_id: &str,
        note_id: &str,
        to: ScratchScope,
        by: Author,
    ) -> Result<Promotion> {
        self.change(|tx| scratch::request_promotion(tx, conversation_id, note_id, to, &by, now_ms()))
    }

    /// Pending first, then the latest decided ones (at most `limit` in all).
    pub fn promotions(&self, limit: usize) -> Result<Vec<Promotion>> {
        self.store.read(|conn| scratch::promotions(conn, limit))
    }

    /// The user approves (the exact text is copied to the target scope) or rejects. Only a
    /// pending promotion can be decided.
    pub fn decide_promotion(&self, id: &str, approve: bool) -> Result<Promotion> {
        self.change(|tx| scratch::decide(tx, id, approve, now_ms()))
    }
}

fn viewer(visible: &Visibility) -> Option<&str> {
    match visible {
        Visibility::Everything => None,
        Visibility::Agent { agent_id } => Some(agent_id),
    }
}

/// Saves the fact held under approval request `request_id`, exactly as held, in `tx` (the one
/// that records the user's "Allow", so the fact is saved if and only if the answer is stored).
/// Call [`Memory::changed`] once `tx` has committed.
pub fn save_held(tx: &rusqlite::Transaction, request_id: &str) -> Result<Saved> {
    let (input, by, already) = held::get(tx, request_id)?;
    if let Some(fact_id) = already {
        return Err(Error::Conflict(format!("This fact was already saved as {fact_id}.")));
    }
    let saved = save_in(tx, input, &by, now_ms())?;
    held::mark_saved(tx, request_id, &saved)?;
    Ok(saved)
}

/// The fact trimmed and its tags normalised, if it passes the checks (see `checks`).
fn checked(input: FactInput) -> Result<FactInput> {
    Ok(FactInput {
        text: checks::text("The fact", &input.text, MAX_FACT_CHARS)?,
        tags: checks::tags(&input.tags)?,
        scope: input.scope,
    })
}

/// Saves a fact in `tx` after the checks; exactly the same text in the same scope is the
/// existing fact.
fn save_in(tx: &rusqlite::Transaction, input: FactInput, by: &Author, now: i64) -> Result<Saved> {
    let input = checked(input)?;
    store::check_scope(tx, &input.scope)?;
    if let Some(fact) = store::live_duplicate(tx, &input.scope, &input.text)? {
        return Ok(Saved { fact, existing: true });
    }
    let fact = Fact {
        id: ids::issue(tx, ids::FACT)?,
        text: input.text,
        scope: input.scope,
        tags: input.tags,
        author: by.clone(),
        created_at: now,
        updated_at: now,
        deleted: false,
        version: 1,
    };
    store::insert(tx, &fact)?;
    store::add_version(tx, &fact, FactChange::Created, by)?;
    Ok(Saved { fact, existing: false })
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}
