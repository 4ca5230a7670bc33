//! Home: what is running and what needs the user. The runs in progress come from the runs the
//! store holds as `running` — the run layer writes a run's row before it starts and its end in
//! the same hold as it frees its slot ([`crate::run::AgentSlots::end`]), and runs a previous
//! process left running are marked interrupted at start — each with what it works on and where
//! it shows (a chat, a team room, a card). Besides: the open attention requests (attention's own
//! list), the blocked cards and the routines due next. Kept fresh by the events each of them already sends
//! (a run's change, a room's run, the Board, attention, routines).

use rusqlite::{params, Connection};
use serde::Serialize;

use crate::attention::AttentionRequest;
use crate::error::Result;
use crate::store::Store;

/// What a piece of work in progress is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RunningKind {
    /// A one-to-one chat's reply.
    Chat,
    /// A team member's or the leader's turn in a room.
    Team,
    /// A Board card's task.
    Card,
    /// A routine's run: an agent routine's card, or a team routine's leader turn.
    Routine,
}

/// A run in progress: who, on what, since when, and where it shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunningWork {
    pub run_id: String,
    pub agent_id: String,
    pub agent_name: String,
    pub kind: RunningKind,
    /// What it works on: the message, the hand-off's task, the card's title (one line, cut short).
    pub what: String,
    pub started_at: i64,
    /// Where it shows: the team and room (team runs), or the card (card and agent-routine runs);
    /// a chat's run shows in its agent's chat, `chat_id`.
    pub team_id: Option<String>,
    /// The chat (conversation) of a one-to-one run.
    pub chat_id: Option<String>,
    pub room_id: Option<String>,
    pub card_id: Option<String>,
}

/// An open request from an agent, as Home lists it (the Inbox has the rest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct WaitingRequest {
    pub id: String,
    pub agent_name: String,
    pub text: String,
    pub created_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct BlockedCard {
    pub id: String,
    pub number: i64,
    pub title: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DueRoutine {
    pub id: String,
    pub name: String,
    /// The agent's name, or the team's.
    pub owner: String,
    pub next_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct HomeSummary {
    /// Oldest first.
    pub running: Vec<RunningWork>,
    /// How many requests are open in the Inbox; the newest few in `requests`.
    pub open_requests: u32,
    pub requests: Vec<WaitingRequest>,
    pub blocked_cards: Vec<BlockedCard>,
    /// The active routines due next, soonest first.
    pub next_routines: Vec<DueRoutine>,
}

/// How many of each list Home shows; the page it links to has them all.
const LISTED: u32 = 5;
/// A line of "what" is cut to this many characters.
const WHAT_CHARS: usize = 120;

/// What is running and what needs the user, now. `open` is attention's list of open requests
/// (newest first): Home shows how many and the newest few.
pub fn summary(store: &Store, open: Vec<AttentionRequest>) -> Result<HomeSummary> {
    let open_requests = open.len() as u32;
    let requests = open
        .into_iter()
        .take(LISTED as usize)
        .map(|r| WaitingRequest {
            text: one_line(&r.text),
            id: r.id,
            agent_name: r.agent_name,
            created_at: r.created_at,
        })
        .collect();
    store.read(|conn| {
        Ok(HomeSummary {
            running: running(conn)?,
            open_requests,
            requests,
            blocked_cards: blocked_cards(conn)?,
            next_routines: next_routines(conn)?,
        })
    })
}

fn running(conn: &Connection) -> Result<Vec<RunningWork>> {
    // A run's conversation says what kind it is; a routine's run is found by its card (agent
    // routines) or its run id (team routines).
    let mut stmt = conn.prepare_cached(
        "SELECT r.id, r.agent_id, COALESCE(a.name, 'A deleted agent'), c.kind, r.started_at,
                c.room_id, rm.team_id, c.card_id,
                (SELECT m.content FROM messages m WHERE m.run_id = r.id AND m.role = 'user' ORDER BY m.seq LIMIT 1),
                (SELECT h.content FROM room_messages h WHERE h.run_id = r.id AND h.kind = 'handoff' LIMIT 1),
                t.name, rm.name, rm.is_general, cd.number, cd.title,
                EXISTS (SELECT 1 FROM routine_runs rr WHERE rr.outcome = 'running'
                          AND ((c.card_id IS NOT NULL AND rr.card_id = c.card_id) OR rr.run_id = r.id)),
                CASE c.kind WHEN 'direct' THEN c.id END
         FROM runs r
         JOIN conversations c ON c.id = r.conversation_id
         LEFT JOIN agents a ON a.id = r.agent_id
         LEFT JOIN rooms rm ON rm.id = c.room_id
         LEFT JOIN teams t ON t.id = rm.team_id
         LEFT JOIN cards cd ON cd.id = c.card_id
         WHERE r.status = 'running'
         ORDER BY r.started_at, r.rowid",
    )?;
    let rows = stmt.query_map([], |r| {
        let kind: String = r.get(3)?;
        let routine: bool = r.get(15)?;
        let (message, handoff): (Option<String>, Option<String>) = (r.get(8)?, r.get(9)?);
        let (team, room, general): (Option<String>, Option<String>, Option<bool>) =
            (r.get(10)?, r.get(11)?, r.get(12)?);
        let (number, title): (Option<i64>, Option<String>) = (r.get(13)?, r.get(14)?);
        let (kind, what) = match kind.as_str() {
            "room" => {
                let place = match (team, general.unwrap_or(false)) {
                    (Some(team), true) => format!("{team} · General"),
                    (Some(team), false) => format!("{team} · {}", room.unwrap_or_default()),
                    (None, _) => "a team room".to_owned(),
                };
                let what = handoff.map_or_else(|| format!("A turn in {place}"), |task| one_line(&task));
                (if routine { RunningKind::Routine } else { RunningKind::Team }, what)
            }
            "task" => {
                let what = match (number, title) {
                    (Some(n), Some(title)) => format!("#{n} {}", one_line(&title)),
                    _ => "A card's task".to_owned(),
                };
                (if routine { RunningKind::Routine } else { RunningKind::Card }, what)
            }
            _ => (RunningKind::Chat, message.map_or_else(|| "A reply".to_owned(), |m| one_line(&m))),
        };
        Ok(RunningWork {
            run_id: r.get(0)?,
            agent_id: r.get(1)?,
            agent_name: r.get(2)?,
            kind,
            what,
            started_at: r.get(4)?,
            room_id: r.get(5)?,
            team_id: r.get(6)?,
            card_id: r.get(7)?,
            chat_id: r.get(16)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn blocked_cards(conn: &Connection) -> Result<Vec<BlockedCard>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, number, title, blocked_reason FROM cards WHERE status = 'blocked'
         ORDER BY updated_at DESC LIMIT ?1",
    )?;
    let rows = stmt.query_map([LISTED], |r| {
        Ok(BlockedCard {
            id: r.get(0)?,
            number: r.get(1)?,
            title: one_line(&r.get::<_, String>(2)?),
            reason: one_line(&r.get::<_, Option<String>>(3)?.unwrap_or_default()),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn next_routines(conn: &Connection) -> Result<Vec<DueRoutine>> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.id, r.name, COALESCE(a.name, t.name, ''), COALESCE(r.retry_at, r.next_fire_at) AS due
         FROM routines r
         LEFT JOIN agents a ON a.id = r.agent_id
         LEFT JOIN teams t ON t.id = r.team_id
         WHERE r.state = 'active' AND COALESCE(r.retry_at, r.next_fire_at) IS NOT NULL
         ORDER BY due LIMIT ?1",
    )?;
    let rows = stmt.query_map(params![LISTED], |r| {
        Ok(DueRoutine { id: r.get(0)?, name: r.get(1)?, owner: r.get(2)?, next_at: r.get(3)? })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The first non-empty line, cut to [`WHAT_CHARS`] characters.
fn one_line(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let mut cut: String = line.chars().take(WHAT_CHARS).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn what_is_the_first_line_cut_short() {
        assert_eq!(one_line("\n  Fix the login page\nthen more"), "Fix the login page");
        assert_eq!(one_line(&"x".repeat(130)).chars().count(), 121);
        assert_eq!(one_line(""), "");
    }
}
