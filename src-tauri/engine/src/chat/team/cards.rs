//! A hand-off's card on the Board: made with the hand-off (assigned to the teammate, holding the
//! exact task text), claimed by the teammate's run when it starts, released when it ends (done →
//! Done; failed, stopped or cut off → Blocked, saying why), with the teammate's final reply
//! posted on it as its report.
//!
//! Best effort: the hand-off is the chat's and is stored first; a Board failure is written to
//! stderr and the chat goes on. A card the user (or the agent, with `board_update`) moved
//! meanwhile keeps their choice: Clawboo releases only a claim its run still holds, and blocks an
//! unstarted card only while it is still in To do.

use super::store::Handoff;
use crate::agents::Agent;
use crate::board::{self, Actor, Card, CardRunKind, CardRunStatus, CardStatus, CommentKind, HandoffCard};
use crate::chat::store as chat_store;
use crate::chat::Chat;

/// Why a hand-off's card is blocked when the user stopped the team.
pub const STOPPED: &str = "Stopped by the user";
/// Why a hand-off's card is blocked when Clawboo quit (or crashed) before it finished.
pub const CUT_OFF: &str = "Cut off when Clawboo quit";

impl Chat {
    /// Makes the card of a hand-off just stored.
    pub(super) fn card_for_handoff(&self, team_id: &str, handoff: &Handoff) {
        let Some(board) = &self.board else { return };
        let made = board.create_for_handoff(HandoffCard {
            handoff_id: &handoff.id,
            room_id: &handoff.room_id,
            team_id,
            from_agent_id: &handoff.from_agent_id,
            to_agent_id: &handoff.to_agent_id,
            task: &handoff.task,
        });
        if let Err(e) = made {
            board_failed("make the card of a hand-off", &e);
        }
    }

    /// The teammate's run started: it claims the card, and the run is recorded on it.
    pub(super) fn card_claimed(&self, handoff_id: &str, run_id: &str) {
        let Some((board, card)) = self.handoff_card(handoff_id) else { return };
        if let Err(e) = board.claim(&card.id, run_id) {
            board_failed(&format!("give #{} to its teammate's run", card.number), &e);
        }
        let attempt = board.runs(&card.id).map_or(1, |runs| runs.len() as u32 + 1);
        if let Err(e) = board.record_run(&card.id, run_id, attempt, CardRunKind::Handoff) {
            board_failed(&format!("record the run of #{}", card.number), &e);
        }
    }

    /// The teammate goes on with its task (the results of the work it handed out came back):
    /// the run before it is recorded as ended, the new one on the card; the card stays held by
    /// the run that claimed it until the task ends.
    pub(super) fn card_continued(&self, handoff_id: &str, before: &str, run_id: &str) {
        let Some((board, card)) = self.handoff_card(handoff_id) else { return };
        if let Err(e) = board.finish_run(before, CardRunStatus::Succeeded, None) {
            board_failed(&format!("record the end of a run of #{}", card.number), &e);
        }
        let attempt = board.runs(&card.id).map_or(1, |runs| runs.len() as u32 + 1);
        if let Err(e) = board.record_run(&card.id, run_id, attempt, CardRunKind::Handoff) {
            board_failed(&format!("record the run of #{}", card.number), &e);
        }
    }

    /// The hand-off ended (`handoff` as stored at the end; `agent` the teammate whose run ended
    /// it, None when stopped while it waited): the final reply becomes the card's report, and
    /// the card goes to Done or Blocked.
    pub(super) fn card_finished(&self, handoff: &Handoff, agent: Option<&Agent>, reply: &str) {
        let Some((board, card)) = self.handoff_card(&handoff.id) else { return };
        let Some(run_id) = handoff.run_id.as_deref() else { return };
        if let Some(agent) = agent.filter(|_| !reply.trim().is_empty()) {
            let author =
                Actor::Agent { agent_id: agent.id.clone(), handle: agent.handle.clone(), run_id: Some(run_id.into()) };
            let posted = board.comment(author, &card.id, CommentKind::Report, &report(reply), Some(run_id.into()));
            if let Err(e) = posted {
                board_failed(&format!("post the report on #{}", card.number), &e);
            }
        }
        let result = handoff.result.clone().unwrap_or_default();
        let quitting = self.quitting.load(std::sync::atomic::Ordering::SeqCst);
        let (to, reason, status) = match handoff.status.as_str() {
            "done" => (CardStatus::Done, None, CardRunStatus::Succeeded),
            "stopped" if quitting => (CardStatus::Blocked, Some(CUT_OFF.to_owned()), CardRunStatus::Interrupted),
            // Stopped by the user, or by a budget or breaker: the run's own reason says which.
            "stopped" => (CardStatus::Blocked, Some(self.stopped_reason(run_id)), CardRunStatus::Cancelled),
            "interrupted" => (CardStatus::Blocked, Some(CUT_OFF.to_owned()), CardRunStatus::Interrupted),
            _ => (CardStatus::Blocked, Some(reason_from(&result)), CardRunStatus::Failed),
        };
        // The run's end first: whoever sees the card move finds its run already ended.
        if let Err(e) = board.finish_run(run_id, status, reason.clone()) {
            board_failed(&format!("record the end of the run of #{}", card.number), &e);
        }
        // Held by this run, or by the first run of a task that went on (a chain).
        let holder = card.claimed_by_run.as_deref().filter(|holder| {
            *holder == run_id || board.runs(&card.id).is_ok_and(|runs| runs.iter().any(|r| r.run_id == *holder))
        });
        if let Some(holder) = holder {
            if let Err(e) = board.release(&card.id, holder, to, reason) {
                board_failed(&format!("move #{} to {}", card.number, to.label()), &e);
            }
        }
    }

    /// Why a stopped hand-off's card is blocked: its run's own reason (the user's stop, or the
    /// budget or breaker that ended it; the hand-off's result is the room's notice, which a
    /// partial reply leaves without one), as the Board writes reasons, with no closing full stop.
    fn stopped_reason(&self, run_id: &str) -> String {
        let run = self.store.read(|c| chat_store::run(c, run_id)).ok().flatten();
        let why = run.and_then(|r| r.error).unwrap_or_default();
        let why = why.trim().trim_end_matches('.');
        if why.is_empty() {
            STOPPED.to_owned()
        } else {
            reason_from(why)
        }
    }

    /// A hand-off ended before its run started (it could not start, or the team was stopped):
    /// its card, still in To do, is blocked with `why`.
    pub(super) fn card_not_run(&self, handoff_id: &str, why: &str) {
        let Some((board, card)) = self.handoff_card(handoff_id) else { return };
        if card.status == CardStatus::Todo && card.claimed_by_run.is_none() {
            if let Err(e) = board.move_card(Actor::Clawboo, &card.id, CardStatus::Blocked, Some(reason_from(why)), None)
            {
                board_failed(&format!("block #{}", card.number), &e);
            }
        }
    }

    /// At start: a hand-off the previous process left queued or running was cut off; so is its
    /// card (and its run, if it had started).
    pub(super) fn card_cut_off(&self, handoff: &Handoff) {
        let Some((board, card)) = self.handoff_card(&handoff.id) else { return };
        match handoff.run_id.as_deref() {
            Some(run_id) => {
                if card.claimed_by_run.as_deref() == Some(run_id) {
                    if let Err(e) = board.release(&card.id, run_id, CardStatus::Blocked, Some(CUT_OFF.into())) {
                        board_failed(&format!("block #{}", card.number), &e);
                    }
                }
                // A run Clawboo never recorded (it quit in between) has nothing to finish.
                let _ = board.finish_run(run_id, CardRunStatus::Interrupted, Some(CUT_OFF.into()));
            }
            None => self.card_not_run(&handoff.id, CUT_OFF),
        }
    }

    fn handoff_card(&self, handoff_id: &str) -> Option<(&board::Board, Card)> {
        let board = self.board.as_deref()?;
        match board.card_of_handoff(handoff_id) {
            Ok(card) => card.map(|card| (board, card)),
            Err(e) => {
                board_failed("find the card of a hand-off", &e);
                None
            }
        }
    }
}

/// A reply as a report comment: whole when it fits, else its start and a note saying where the
/// rest is (never cut quietly).
fn report(reply: &str) -> String {
    const NOTE: &str = "\n\n[Cut to fit a card comment: the whole reply is in the team chat.]";
    let reply = reply.trim();
    if reply.chars().count() <= board::MAX_COMMENT_CHARS {
        return reply.to_owned();
    }
    let kept = board::MAX_COMMENT_CHARS - NOTE.chars().count();
    format!("{}{NOTE}", reply.chars().take(kept).collect::<String>().trim_end())
}

/// A failure text as a blocked reason, cut visibly to the Board's limit.
fn reason_from(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() {
        return "The run failed without saying why".to_owned();
    }
    board::cut(text, board::MAX_REASON_CHARS)
}

fn board_failed(what: &str, e: &crate::Error) {
    tracing::warn!(what, error = %e, "the Board could not do what team chat asked (the chat goes on)");
}
