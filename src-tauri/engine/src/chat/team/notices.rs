//! Where the inbox items come from: what happens in a team becomes an alert (*Addressed to you*)
//! or a notice (*Ambient*) waiting for the agents it concerns, read when their next turn in that
//! room starts (see [`super::inbox`]). The words are here, one function each, so the golden
//! snapshots use exactly what production sends.
//!
//! - The teams service tells [`TeamInbox`] of every change: a member who joined or left, a rule
//!   added or removed, a room made or renamed, someone joining or leaving a room (notices).
//! - The Board tells it of card news: a card of an agent blocked, done or commented on by
//!   someone else (alerts for its assignee); a routine's team card ending (an alert with its
//!   result for the team's leader).
//! - Team chat itself: the user's answer to an agent's question, an agent's hand-off in its reply
//!   that was not made (alerts).

use std::sync::{Arc, Weak};

use super::inbox::{self, NewItem};
use crate::board::{Actor, Card, CardNews, CardOrigin, CardWatcher, CommentKind};
use crate::chat::Chat;
use crate::context::WaitingKind;
use crate::teams::{Team, TeamWatcher};
use crate::vocab::clock::now_ms;

/// A comment or a report is quoted in an item up to this many chars (cut visibly; the card
/// holds it whole).
pub const QUOTE_CHARS: usize = 1_000;

pub fn member_joined(handle: &str) -> String {
    format!("@{handle} joined the team.")
}

pub fn member_left(handle: &str) -> String {
    format!("@{handle} left the team.")
}

/// The rule itself is in Team rules on every turn: the notice points there, never repeats it.
pub fn rule_added(number: usize) -> String {
    format!("The user added team rule {number} (see Team rules).")
}

pub fn rule_removed(rule: &str) -> String {
    format!("The user removed the team rule: {}", rule.trim())
}

pub fn room_made(room: &str, handles: &[String]) -> String {
    let members: Vec<String> = handles.iter().map(|h| format!("@{h}")).collect();
    format!("The user made the room {room} with {}.", members.join(", "))
}

pub fn room_renamed(from: &str, to: &str) -> String {
    format!("The user renamed the room {from} to {to}.")
}

pub fn room_joined(handle: &str, room: &str) -> String {
    format!("@{handle} joined the room {room}.")
}

pub fn room_left(handle: &str, room: &str) -> String {
    format!("@{handle} left the room {room}.")
}

/// Who did something to a card, as an item says it.
pub fn by(actor: &Actor) -> String {
    match actor {
        Actor::User => "the user".to_owned(),
        Actor::Agent { handle, .. } => format!("@{handle}"),
        Actor::Clawboo => "Clawboo".to_owned(),
    }
}

pub fn card_blocked(number: u32, title: &str, by: &str, reason: &str) -> String {
    format!("Your card #{number} \"{title}\" was blocked by {by}: {}", reason.trim())
}

pub fn card_done(number: u32, title: &str, by: &str) -> String {
    format!("Your card #{number} \"{title}\" was moved to Done by {by}.")
}

pub fn card_commented(number: u32, title: &str, by: &str, text: &str) -> String {
    format!("{} commented on your card #{number} \"{title}\":\n{}", capital(by), quote(text))
}

/// How a routine's team card ended, for its result.
pub enum RoutineEnd<'a> {
    Done,
    InReview,
    Blocked(&'a str),
}

/// A routine's team card ended (Done, In review or Blocked): its result, for the team's leader.
pub fn routine_result(number: u32, title: &str, handle: &str, end: RoutineEnd<'_>, report: Option<&str>) -> String {
    let how = match end {
        RoutineEnd::Blocked(reason) => format!("blocked: {}", reason.trim()),
        RoutineEnd::InReview => "done, waiting for the user's review".to_owned(),
        RoutineEnd::Done => "done".to_owned(),
    };
    let mut text = format!("Routine card #{number} \"{title}\" by @{handle} ended {how}.");
    if let Some(report) = report.filter(|r| !r.trim().is_empty()) {
        text.push_str(&format!("\nIts report:\n{}", quote(report)));
    }
    text
}

/// The user answered `question` in the inbox; `answer` is None when the turn's message is the
/// answer itself.
pub fn answered(question: &str, answer: Option<&str>) -> String {
    match answer {
        Some(answer) => format!("The user answered your question \"{}\": {}", question.trim(), answer.trim()),
        None => format!("The message below is the user's answer to your question \"{}\".", question.trim()),
    }
}

pub fn handoff_not_made(to: &str, why: &str) -> String {
    format!("Your hand-off to @{to} was not made: {}", why.trim())
}

fn quote(text: &str) -> String {
    crate::board::cut(text.trim(), QUOTE_CHARS)
}

fn capital(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// An item to store for one agent in one room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Item {
    pub room_id: String,
    pub agent_id: String,
    pub kind: WaitingKind,
    pub from_agent_id: Option<String>,
    pub text: String,
}

impl Chat {
    /// Stores items for their agents. Best effort: a team change or a card move has already
    /// happened; an item that cannot be stored is logged.
    pub(super) fn add_inbox_items(&self, items: &[Item]) {
        if items.is_empty() {
            return;
        }
        let now = now_ms();
        let stored = self.store.write(|tx| {
            for item in items {
                let new = NewItem {
                    room_id: &item.room_id,
                    agent_id: &item.agent_id,
                    kind: item.kind,
                    from_agent_id: item.from_agent_id.as_deref(),
                    text: &item.text,
                };
                inbox::add_item(tx, &new, now)?;
            }
            Ok(())
        });
        if let Err(e) = stored {
            tracing::warn!(error = %e, "inbox items were not stored");
        }
    }

    fn handle_of_agent(&self, agent_id: &str) -> Option<String> {
        self.agents.get(agent_id).ok().map(|a| a.handle)
    }

    /// The notices a team change makes: to the members it concerns, in General (a room's own
    /// changes: in that room).
    fn team_notices(&self, before: &Team, after: &Team) -> Vec<Item> {
        let Some(general) = after.general() else { return Vec::new() };
        let notice = |room_id: &str, agent_id: &str, text: String| Item {
            room_id: room_id.to_owned(),
            agent_id: agent_id.to_owned(),
            kind: WaitingKind::Notice,
            from_agent_id: None,
            text,
        };
        let (was, is) = (before.member_ids(), after.member_ids());
        let mut team_wide: Vec<(Option<&str>, String)> = Vec::new();
        for id in is.iter().filter(|id| !was.contains(id)) {
            team_wide.extend(self.handle_of_agent(id).map(|h| (Some(id.as_str()), member_joined(&h))));
        }
        for id in was.iter().filter(|id| !is.contains(id)) {
            team_wide.extend(self.handle_of_agent(id).map(|h| (Some(id.as_str()), member_left(&h))));
        }
        for (i, _) in after.rules.iter().enumerate().filter(|(_, r)| !before.rules.iter().any(|b| b.id == r.id)) {
            team_wide.push((None, rule_added(i + 1)));
        }
        for rule in before.rules.iter().filter(|r| !after.rules.iter().any(|a| a.id == r.id)) {
            team_wide.push((None, rule_removed(&rule.text)));
        }
        let mut items = Vec::new();
        for (subject, text) in &team_wide {
            for id in is.iter().filter(|id| Some(id.as_str()) != *subject) {
                items.push(notice(&general.id, id, text.clone()));
            }
        }
        for room in after.rooms.iter().filter(|r| !r.is_general) {
            let Some(old) = before.rooms.iter().find(|r| r.id == room.id) else {
                let handles: Vec<String> = room.member_ids.iter().filter_map(|id| self.handle_of_agent(id)).collect();
                let text = room_made(&room.name, &handles);
                items.extend(room.member_ids.iter().map(|id| notice(&general.id, id, text.clone())));
                continue;
            };
            let mut in_room = Vec::new();
            if old.name != room.name {
                in_room.push((None, room_renamed(&old.name, &room.name)));
            }
            for id in room.member_ids.iter().filter(|id| !old.member_ids.contains(id)) {
                in_room.extend(self.handle_of_agent(id).map(|h| (Some(id.clone()), room_joined(&h, &room.name))));
            }
            // Who left the team left its rooms too: said once, as leaving the team.
            for id in old.member_ids.iter().filter(|id| !room.member_ids.contains(id) && is.contains(id)) {
                in_room.extend(self.handle_of_agent(id).map(|h| (Some(id.clone()), room_left(&h, &room.name))));
            }
            for (subject, text) in in_room {
                for id in room.member_ids.iter().filter(|id| Some(*id) != subject.as_ref()) {
                    items.push(notice(&room.id, id, text.clone()));
                }
            }
        }
        items
    }

    /// The alert a card's news makes: for its assignee when someone else blocked, finished or
    /// commented on it; for the team's leader when a routine's card ended.
    fn card_alerts(&self, card: &Card, actor: &Actor, news: CardNews<'_>) -> Vec<Item> {
        let Some(team) = card.team_id.as_deref().and_then(|id| self.teams().ok()?.get(id).ok()) else {
            return Vec::new();
        };
        let Some(general) = team.general() else { return Vec::new() };
        let alert = |room_id: &str, agent_id: &str, from: Option<&str>, text: String| Item {
            room_id: room_id.to_owned(),
            agent_id: agent_id.to_owned(),
            kind: WaitingKind::Alert,
            from_agent_id: from.map(str::to_owned),
            text,
        };
        let title = card.title.as_str();
        if let (Actor::Clawboo, CardOrigin::Routine { .. }) = (actor, &card.origin) {
            let (Some(leader), Some(assignee)) = (team.leader_id.as_deref(), card.assignee_id.as_deref()) else {
                return Vec::new();
            };
            let end = match news {
                CardNews::Blocked { reason } => RoutineEnd::Blocked(reason),
                CardNews::InReview => RoutineEnd::InReview,
                CardNews::Done => RoutineEnd::Done,
                CardNews::Commented { .. } => return Vec::new(),
            };
            let report = self
                .board
                .as_ref()
                .and_then(|b| b.detail(&card.id).ok())
                .and_then(|d| d.comments.into_iter().rev().find(|c| c.kind == CommentKind::Report).map(|c| c.text));
            let handle = self.handle_of_agent(assignee).unwrap_or_else(|| "former-member".into());
            let text = routine_result(card.number, title, &handle, end, report.as_deref());
            return vec![alert(&general.id, leader, Some(assignee), text)];
        }
        let Some(assignee) = card.assignee_id.as_deref().filter(|id| team.is_member(id)) else { return Vec::new() };
        let by_someone_else = match actor {
            Actor::User => true,
            Actor::Agent { agent_id, .. } => agent_id != assignee,
            Actor::Clawboo => false,
        };
        if !by_someone_else {
            return Vec::new();
        }
        let from = match actor {
            Actor::Agent { agent_id, .. } => Some(agent_id.as_str()),
            _ => None,
        };
        // A hand-off's card speaks in the room the work was handed out in.
        let room_id = match &card.origin {
            CardOrigin::Handoff { room_id, .. } if team.rooms.iter().any(|r| r.id == *room_id) => room_id.as_str(),
            _ => general.id.as_str(),
        };
        let by = by(actor);
        let text = match news {
            CardNews::Blocked { reason } => card_blocked(card.number, title, &by, reason),
            CardNews::Done => card_done(card.number, title, &by),
            // A person reviews it next: nothing the assignee must act on.
            CardNews::InReview => return Vec::new(),
            CardNews::Commented { text, .. } => card_commented(card.number, title, &by, text),
        };
        vec![alert(room_id, assignee, from, text)]
    }
}

/// Team chat's inbox as the teams service and the Board see it. Weak: they must not keep the
/// chat alive.
pub struct TeamInbox(pub Weak<Chat>);

impl TeamInbox {
    fn chat(&self) -> Option<Arc<Chat>> {
        self.0.upgrade()
    }
}

impl TeamWatcher for TeamInbox {
    fn team_changed(&self, before: &Team, after: &Team) {
        if let Some(chat) = self.chat() {
            chat.add_inbox_items(&chat.team_notices(before, after));
        }
    }
}

impl CardWatcher for TeamInbox {
    fn card_news(&self, card: &Card, actor: &Actor, news: CardNews<'_>) {
        if let Some(chat) = self.chat() {
            let alerts = chat.card_alerts(card, actor, news);
            if !woke_leader_for_routine(&chat, card, actor, &alerts) {
                chat.add_inbox_items(&alerts);
            }
        }
    }
}

/// A member's routine that reports to its team ended: its result lands in General as the
/// routine's message and wakes the leader there, in a fresh conversation with the routine note
/// (as a team routine's own message does). Whether it did: when the room cannot take it (no
/// About you yet, no leader), the result waits in the leader's inbox instead.
fn woke_leader_for_routine(chat: &Arc<Chat>, card: &Card, actor: &Actor, alerts: &[Item]) -> bool {
    let (Actor::Clawboo, CardOrigin::Routine { routine_run_id, .. }) = (actor, &card.origin) else { return false };
    let Some(alert) = alerts.first() else { return false };
    let tag = crate::vocab::routine::RoutineTag {
        name: card.title.clone(),
        routine_run_id: routine_run_id.clone(),
        agent_id: card.assignee_id.clone(),
        card_id: Some(card.id.clone()),
    };
    match chat.send_routine(&alert.room_id, &alert.text, tag) {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(card_id = %card.id, error = %e, "a routine's result did not wake the team's leader");
            false
        }
    }
}
