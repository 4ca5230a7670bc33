//! What a turn recalls from memory, request-only, in front of the message:
//! - on the first turn of a one-to-one conversation (a new chat, or after `/reset`), up to
//!   [`RECALLED_NOTES`] of the agent's own saved notes, never the team's (seed, "Conversation
//!   history");
//! - the bounded projection of the scratch notes in scope (session, team, global; Mobius). A
//!   runtime that keeps its own session holds what it was sent, so the projection goes only when
//!   the session is new or the notes changed since they were last delivered into it; for Native
//!   the preamble is never stored in its transcript, so it goes with every request. What each
//!   runtime session holds is tracked per session, as the agent's files are (`file_deliveries`,
//!   recorded when a run completes in it): a new session, one that lost what it was given
//!   (compacted by its runtime), or a run that failed before its session kept anything, sends
//!   the projection again.
//!
//! Facts are never added here: agents look them up with their memory tools (only task-runner
//! runs get the injection block).

use rusqlite::{params, OptionalExtension};

use super::setup::SessionSetup;
use super::Chat;
use crate::context;
use crate::error::Result;

/// Saved notes recalled on a conversation's first turn.
pub const RECALLED_NOTES: usize = context::SAVED_NOTES;
// The scratch projection's row among a runtime session's deliveries (`file_deliveries`).
pub(in crate::chat) use crate::run::prepare::files::SCRATCH_ITEM;

pub(in crate::chat) struct RecallRequest<'a> {
    pub agent_id: &'a str,
    pub conversation_id: &'a str,
    pub team_id: Option<&'a str>,
    /// The first turn of this conversation epoch of a one-to-one chat.
    pub with_notes: bool,
    /// The preamble is sent with every request and never kept (Native).
    pub request_only: bool,
    /// The runtime session this turn continues (None: it starts a new one, which holds nothing).
    pub resumed: Option<&'a str>,
}

/// What to put in front of the message (may be empty), and what to record once it is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::chat) struct Recall {
    pub text: String,
    /// One line for the Activity card, e.g. "Recalled 3 saved notes and 2 scratch notes".
    pub summary: String,
    /// The projection's fingerprint, when this turn delivers it.
    scratch: Option<String>,
}

impl Chat {
    /// What this turn recalls (None: nothing). A memory that cannot be read is an error for the
    /// caller to report; it never stops the turn.
    pub(in crate::chat) fn recall(&self, request: &RecallRequest<'_>) -> Result<Option<Recall>> {
        let Some(memory) = &self.memory else { return Ok(None) };
        let notes = if request.with_notes { memory.notes(request.agent_id, RECALLED_NOTES)? } else { Vec::new() };
        let note_texts: Vec<&str> = notes.iter().map(|n| n.text.as_str()).collect();
        let notes_block = context::saved_notes_block(&note_texts);

        let projection = memory.scratch_projection(request.conversation_id, request.team_id, context::SCRATCH_CHARS)?;
        let items: Vec<context::ScratchItem> = projection.iter().map(context::ScratchItem::from).collect();
        let scratch_block = context::scratch_block(&items);
        let fingerprint =
            SessionSetup::default().with(SCRATCH_ITEM, scratch_block.as_deref().unwrap_or("")).fingerprint();
        let delivered = match request.resumed {
            Some(session) => self.store.read(|c| {
                Ok(c.query_row(
                    "SELECT hash FROM file_deliveries WHERE conversation_id = ?1 AND session_key = ?2 AND file = ?3",
                    params![request.conversation_id, session, SCRATCH_ITEM],
                    |r| r.get::<_, String>(0),
                )
                .optional()?)
            })?,
            None => None,
        };
        let current = delivered.as_deref() == Some(fingerprint.as_str());
        let fresh = request.resumed.is_none();
        let scratch_text = if request.request_only || fresh {
            scratch_block.clone()
        } else if current || (delivered.is_none() && scratch_block.is_none()) {
            None
        } else {
            // Changed since it was delivered into this session: the new projection, or word
            // that the earlier notes are gone.
            Some(scratch_block.clone().unwrap_or_else(|| context::SCRATCH_CLEARED.to_owned()))
        };
        // What the session holds once the run completes, sent this turn or not (an empty
        // projection into a new session included, so no "cleared" note follows later).
        let record = (!request.request_only && (!current || fresh)).then(|| fingerprint.clone());

        let parts: Vec<&str> = [notes_block.as_deref(), scratch_text.as_deref()].into_iter().flatten().collect();
        if parts.is_empty() && record.is_none() {
            return Ok(None);
        }
        let mut said = Vec::new();
        if notes_block.is_some() {
            said.push(count(notes.len().min(RECALLED_NOTES), "saved note"));
        }
        match (&scratch_text, scratch_block.is_some()) {
            (Some(block), true) => {
                let shown = projection.iter().filter(|n| block.contains(&format!("[{}]", n.id))).count();
                said.push(count(shown, "scratch note"));
            }
            (Some(_), false) => said.push("word that the scratch notes were cleared".to_owned()),
            (None, _) => {}
        }
        Ok(Some(Recall {
            text: parts.join("\n\n"),
            summary: format!("Recalled {}", said.join(" and ")),
            scratch: record,
        }))
    }
}

impl Recall {
    /// The scratch projection's fingerprint the session holds once this turn's run completes
    /// (recorded with the agent's files, `PendingDeliveries`).
    pub(in crate::chat) fn delivered_scratch(&self) -> Option<String> {
        self.scratch.clone()
    }
}

fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}
