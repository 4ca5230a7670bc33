//! What Boo Zero's one-to-one chat gathers for a message: its rules, and for each team the
//! message names with `@TeamName` that team's brief, open cards, team facts and recent General
//! chat. `context::boo_zero` assembles the text within its budgets; the chat sends it in front of
//! the message and never stores it in the carried history. The global brief is not read here:
//! it is sent to no agent.

use std::collections::HashMap;

use crate::board::{CardFilter, CardStatus};
use crate::context::boo_zero::{
    boo_zero_context, mentioned_teams, BooZeroContext, BooZeroTurn, TeamCard, TeamChatLine, TeamFact, TeamSnapshot,
    MAX_TEAMS_PER_MESSAGE,
};
use crate::error::Result;
use crate::memory::{FactFilter, Scope};
use crate::teams::Team;
use crate::vocab::RoomMessageKind;

use super::Chat;

/// The General messages read for a mentioned team (its budget keeps the newest that fit).
const CHAT_MESSAGES_READ: u32 = 100;
/// The team facts read for a mentioned team, newest first.
const FACTS_READ: u32 = 200;

impl Chat {
    /// What rides in front of `text` when `agent_id` is Boo Zero; None for every other agent.
    pub(in crate::chat) fn boo_zero_context(&self, agent_id: &str, text: &str) -> Result<Option<BooZeroContext>> {
        let (boo_zero, rules) = self.store.read(|c| Ok((crate::boo_zero::agent_id(c)?, crate::boo_zero::rules(c)?)))?;
        if boo_zero.as_deref() != Some(agent_id) {
            return Ok(None);
        }
        let mut turn = BooZeroTurn { rules: &rules, ..Default::default() };
        if let Some(teams) = &self.teams {
            let all = teams.list()?;
            let names: Vec<&str> = all.iter().map(|t| t.name.as_str()).collect();
            for (n, i) in mentioned_teams(text, &names).into_iter().enumerate() {
                if n < MAX_TEAMS_PER_MESSAGE {
                    turn.teams.push(self.team_snapshot(&all[i])?);
                } else {
                    turn.over_cap.push(all[i].name.clone());
                }
            }
        }
        Ok(boo_zero_context(&turn))
    }

    fn team_snapshot(&self, team: &Team) -> Result<TeamSnapshot> {
        let handles: HashMap<String, String> =
            self.agents.list()?.into_iter().map(|a| (a.id, format!("@{}", a.handle))).collect();
        let handle = |id: &Option<String>| id.as_ref().and_then(|id| handles.get(id)).cloned();

        let mut cards = match &self.board {
            Some(board) => board.list(&CardFilter { team_id: Some(team.id.clone()), ..Default::default() })?,
            None => Vec::new(),
        };
        cards.retain(|c| !matches!(c.status, CardStatus::Done | CardStatus::Cancelled));
        // Most pressing first: what is moving or stuck, then what waits; higher priority first.
        cards.sort_by_key(|c| (status_rank(c.status), std::cmp::Reverse(c.priority)));
        let cards = cards
            .into_iter()
            .map(|c| TeamCard {
                number: c.number,
                title: c.title,
                status: c.status.as_str().replace('_', " "),
                assignee: handle(&c.assignee_id).map(|h| h.trim_start_matches('@').to_owned()),
            })
            .collect();

        let facts = match &self.memory {
            Some(memory) => memory.list(&FactFilter {
                scope: Some(Scope::Team { team_id: team.id.clone() }),
                limit: Some(FACTS_READ),
                ..Default::default()
            })?,
            None => Vec::new(),
        };
        let facts = facts.into_iter().filter(|f| !f.deleted).map(|f| TeamFact { id: f.id, text: f.text }).collect();

        let chat = match team.general() {
            Some(general) => self.room_page(&general.id, None, CHAT_MESSAGES_READ)?.messages,
            None => Vec::new(),
        };
        let chat = chat
            .into_iter()
            .filter_map(|m| {
                let who = match m.kind {
                    RoomMessageKind::User => "you".to_owned(),
                    RoomMessageKind::Reply => handle(&m.author_id).unwrap_or_else(|| "a deleted agent".into()),
                    RoomMessageKind::Handoff => format!(
                        "{} handed {} a task",
                        handle(&m.author_id).unwrap_or_else(|| "an agent".into()),
                        handle(&m.target_id).unwrap_or_else(|| "a teammate".into())
                    ),
                    // Batches repeat teammates' replies; notices are Clawboo's own words.
                    RoomMessageKind::Batch | RoomMessageKind::Notice => return None,
                };
                Some(TeamChatLine { who, text: m.content })
            })
            .collect();

        Ok(TeamSnapshot { name: team.name.clone(), brief: team.brief.clone(), cards, facts, chat })
    }
}

fn status_rank(status: CardStatus) -> u8 {
    match status {
        CardStatus::InProgress => 0,
        CardStatus::Blocked => 1,
        CardStatus::InReview => 2,
        CardStatus::Todo => 3,
        CardStatus::Backlog => 4,
        CardStatus::Done | CardStatus::Cancelled => 5,
    }
}
