//! How a turn's runtime session goes on, decided in the transaction that records the turn: the
//! session plan (`setup`), the conversation carried where the runtime needs it, and where the
//! agent's files go in that session. One-to-one chat and team turns decide it here alike.

use rusqlite::Transaction;

use super::carried::CarriedTurns;
use super::conversation::{self, Conversation};
use super::files;
use super::setup::{self, Plan};
use super::PreparedRun;
use crate::context::files::{FilePlan, FileSession};
use crate::error::Result;
use crate::runtimes::{HistoryMode, Transcript, TurnHistory};

/// What decides a turn's session besides its conversation.
#[derive(Debug, Clone, Copy)]
pub struct SessionAsk<'a> {
    /// Which conversation the turn continues (a one-to-one chat's is always its own:
    /// [`TurnHistory::ContinueRoom`]).
    pub history: TurnHistory,
    /// The fingerprint of the setup a new session would start with now.
    pub fingerprint: &'a str,
    /// A retry or an edit replaced the last exchange: a runtime session that held it is not
    /// continued (the caller forgot it), and a fresh one carries the conversation without it.
    pub replaced: bool,
    /// What was read of the conversation before, kept between turns: a turn that carries it
    /// then reads only the messages stored since.
    pub carried: Option<&'a CarriedTurns>,
}

/// How the turn's session goes on.
pub struct TurnSession {
    pub conversation: Conversation,
    pub plan: Plan,
    /// The turns carried in front of this one, oldest first.
    pub transcript: Transcript,
    /// Where the agent's files go in this session.
    pub file_plan: FilePlan,
    /// The turn goes on in the conversation (its messages are stored there).
    pub continues: bool,
    /// The resumed session already holds the steady sections (same fingerprint).
    pub session_has_steady: bool,
}

impl PreparedRun {
    /// How the turn goes on in `conversation`: resumed, forked or fresh (with its turns carried
    /// where the runtime needs them), and where the agent's files go in it.
    pub fn session(&self, tx: &Transaction, conversation: Conversation, ask: SessionAsk<'_>) -> Result<TurnSession> {
        let capabilities = &self.runtime.capabilities;
        let resumable = conversation.session_id.is_some() && conversation.session_runtime == Some(self.agent.runtime);
        let plan = match ask.history {
            TurnHistory::Fresh => Plan::New,
            // The session held the replaced exchange: a fresh one carries the conversation without it.
            _ if ask.replaced && capabilities.history == HistoryMode::RuntimeSession => {
                Plan::Fresh { changed: Vec::new() }
            }
            TurnHistory::ContinueRoom | TurnHistory::OwnSession => setup::plan(
                capabilities.setup_change,
                resumable,
                conversation.session_setup.as_deref(),
                ask.fingerprint,
            ),
        };
        let continues = ask.history == TurnHistory::ContinueRoom;
        let carried = match (continues, capabilities.history, &plan, ask.carried) {
            // Read whole when replacing: this transaction may yet roll the replacement back.
            (true, HistoryMode::ClawbooTranscript, _, Some(kept)) if !ask.replaced => kept.read(tx, &conversation)?,
            (true, HistoryMode::ClawbooTranscript, _, _) | (true, _, Plan::Fresh { .. }, _) => {
                Transcript::from(conversation::transcript(tx, &conversation)?)
            }
            _ => Transcript::default(),
        };
        // A session that already holds the steady sections (same fingerprint) is not sent
        // them again.
        let session_has_steady =
            matches!(plan, Plan::Resume) && conversation.session_setup.as_deref() == Some(ask.fingerprint);
        // What the session this turn continues holds of the agent's files.
        let resumed = conversation.session_id.as_deref().filter(|_| matches!(plan, Plan::Resume));
        let file_session = match ask.history {
            TurnHistory::Fresh => FileSession::New,
            _ => files::turn_session(tx, &conversation, capabilities.history, resumed, &carried)?,
        };
        let file_plan = self.files.plan(&file_session)?;
        Ok(TurnSession { conversation, plan, transcript: carried, file_plan, continues, session_has_steady })
    }
}

impl TurnSession {
    /// The runtime session the turn resumes (or branches from).
    pub fn resume_session(&self) -> Option<String> {
        self.conversation.session_id.clone().filter(|_| matches!(self.plan, Plan::Resume | Plan::Fork { .. }))
    }

    /// The carried turns the runtime is given (for a fresh session, the newest that fit its
    /// budget), and (pairs carried, pairs in all) for the notice that says so.
    pub fn take_transcript(&mut self) -> (Transcript, (usize, usize)) {
        let transcript = std::mem::take(&mut self.transcript);
        match self.plan {
            Plan::Fresh { .. } => setup::carry_forward(transcript, setup::CARRY_BUDGET_CHARS),
            _ => (transcript, (0, 0)),
        }
    }
}
