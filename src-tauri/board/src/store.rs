//! SQL for cards and their dependencies (comments, activity and runs are in `records.rs`).

use std::collections::HashMap;

use rusqlite::types::ToSql;
use rusqlite::{params, params_from_iter, Connection, OptionalExtension, Row, Transaction};

use super::types::*;
use clawboo_vocab::error::{Error, Result};

/// Room between positions appended at the end of a column (the UI puts a dragged card halfway).
pub const POSITION_STEP: f64 = 1024.0;

const CARD_COLUMNS: &str = "id, number, title, description, assignee_id, team_id, status, priority, check_command, \
                            project_folder, task_text, origin, claimed_by_run, blocked_reason, position, created_at, \
                            updated_at";

/// The Board's column order, for `ORDER BY`.
const COLUMN_ORDER: &str = "CASE status WHEN 'backlog' THEN 0 WHEN 'todo' THEN 1 WHEN 'in_progress' THEN 2 \
                            WHEN 'in_review' THEN 3 WHEN 'blocked' THEN 4 WHEN 'done' THEN 5 ELSE 6 END";

pub fn status_from(text: &str) -> Option<CardStatus> {
    CardStatus::ALL.into_iter().find(|s| s.as_str() == text)
}

pub fn priority_str(priority: Priority) -> &'static str {
    match priority {
        Priority::Low => "low",
        Priority::Medium => "medium",
        Priority::High => "high",
        Priority::Urgent => "urgent",
    }
}

fn priority_from(text: &str) -> Option<Priority> {
    [Priority::Low, Priority::Medium, Priority::High, Priority::Urgent].into_iter().find(|p| priority_str(*p) == text)
}

pub fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Internal(format!("cannot encode a board record: {e}")))
}

/// A value the database holds that this build cannot read is an error, never a guess.
fn corrupt(what: &str, value: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        0,
        rusqlite::types::Type::Text,
        format!("the Board has an unknown {what}: {value}").into(),
    )
}

pub fn from_json<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> rusqlite::Result<T> {
    serde_json::from_str(text).map_err(|_| corrupt(what, text))
}

fn card_from_row(r: &Row<'_>) -> rusqlite::Result<Card> {
    let status: String = r.get(6)?;
    let priority: String = r.get(7)?;
    let origin: String = r.get(11)?;
    Ok(Card {
        id: r.get(0)?,
        number: r.get(1)?,
        title: r.get(2)?,
        description: r.get(3)?,
        assignee_id: r.get(4)?,
        team_id: r.get(5)?,
        status: status_from(&status).ok_or_else(|| corrupt("status", &status))?,
        priority: priority_from(&priority).ok_or_else(|| corrupt("priority", &priority))?,
        depends_on: Vec::new(),
        waiting_on: Vec::new(),
        check_command: r.get(8)?,
        project_folder: r.get(9)?,
        task_text: r.get(10)?,
        origin: from_json("origin", &origin)?,
        claimed_by_run: r.get(12)?,
        blocked_reason: r.get(13)?,
        position: r.get(14)?,
        created_at: r.get(15)?,
        updated_at: r.get(16)?,
    })
}

pub fn not_found(id: &str) -> Error {
    Error::NotFound(format!("The card {id}"))
}

/// The card with its dependencies, if it exists.
pub fn find(conn: &Connection, id: &str) -> Result<Option<Card>> {
    one(conn, "id = ?1", id)
}

pub fn load(conn: &Connection, id: &str) -> Result<Card> {
    find(conn, id)?.ok_or_else(|| not_found(id))
}

pub fn by_number(conn: &Connection, number: u32) -> Result<Option<Card>> {
    one(conn, "number = ?1", number)
}

pub fn by_handoff(conn: &Connection, handoff_id: &str) -> Result<Option<Card>> {
    one(conn, "handoff_id = ?1", handoff_id)
}

fn one(conn: &Connection, condition: &str, value: impl ToSql) -> Result<Option<Card>> {
    let sql = format!("SELECT {CARD_COLUMNS} FROM cards WHERE {condition}");
    let Some(mut card) = conn.prepare_cached(&sql)?.query_row([value], card_from_row).optional()? else {
        return Ok(None);
    };
    let id: &dyn ToSql = &card.id;
    let mut deps = dependencies(conn, "d.card_id = ?1", &[id])?;
    fill(&mut card, &mut deps);
    Ok(Some(card))
}

/// Cards matching `filter`, in column order, then by position (then number).
pub fn list(conn: &Connection, filter: &CardFilter) -> Result<Vec<Card>> {
    let mut conditions: Vec<&str> = Vec::new();
    let mut values: Vec<&dyn ToSql> = Vec::new();
    if let Some(team) = &filter.team_id {
        conditions.push("team_id = ?");
        values.push(team);
    }
    if let Some(assignee) = &filter.assignee_id {
        conditions.push("assignee_id = ?");
        values.push(assignee);
    }
    let status = filter.status.map(CardStatus::as_str);
    if let Some(status) = &status {
        conditions.push("status = ?");
        values.push(status);
    }
    let condition = if conditions.is_empty() { "1".to_owned() } else { conditions.join(" AND ") };
    let sql = format!("SELECT {CARD_COLUMNS} FROM cards WHERE {condition} ORDER BY {COLUMN_ORDER}, position, number");
    let mut cards: Vec<Card> = conn
        .prepare(&sql)?
        .query_map(params_from_iter(values.iter()), card_from_row)?
        .collect::<rusqlite::Result<_>>()?;
    let mut deps = dependencies(conn, &format!("d.card_id IN (SELECT id FROM cards WHERE {condition})"), &values)?;
    for card in &mut cards {
        fill(card, &mut deps);
    }
    Ok(cards)
}

type Dependencies = HashMap<String, Vec<(String, CardStatus)>>;

/// Each card's dependencies (in the order added) with their statuses, for cards `condition`
/// selects (on `card_dependencies d`).
fn dependencies(conn: &Connection, condition: &str, values: &[&dyn ToSql]) -> Result<Dependencies> {
    let sql = format!(
        "SELECT d.card_id, d.depends_on_id, c.status FROM card_dependencies d JOIN cards c ON c.id = d.depends_on_id
         WHERE {condition} ORDER BY d.card_id, d.position"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(values.iter()), |r| {
        let status: String = r.get(2)?;
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            status_from(&status).ok_or_else(|| corrupt("status", &status))?,
        ))
    })?;
    let mut map = Dependencies::new();
    for row in rows {
        let (card, dependency, status) = row?;
        map.entry(card).or_default().push((dependency, status));
    }
    Ok(map)
}

/// A card waits on those of its dependencies not done (a cancelled one still counts: the user
/// removes it, so nothing starts on work that was dropped).
fn fill(card: &mut Card, deps: &mut Dependencies) {
    let mine = deps.remove(&card.id).unwrap_or_default();
    card.waiting_on = mine.iter().filter(|(_, s)| *s != CardStatus::Done).map(|(id, _)| id.clone()).collect();
    card.depends_on = mine.into_iter().map(|(id, _)| id).collect();
}

/// The next card number: one more than the last ever issued.
pub fn issue_number(tx: &Transaction) -> Result<u32> {
    Ok(tx.query_row("UPDATE card_numbers SET last = last + 1 WHERE id = 1 RETURNING last", [], |r| r.get(0))?)
}

/// A position after every card in `status`'s column.
pub fn end_of_column(conn: &Connection, status: CardStatus) -> Result<f64> {
    let last: Option<f64> = conn
        .prepare_cached("SELECT MAX(position) FROM cards WHERE status = ?1")?
        .query_row([status.as_str()], |r| r.get(0))?;
    Ok(last.map_or(POSITION_STEP, |p| p + POSITION_STEP))
}

pub fn insert(tx: &Transaction, card: &Card, handoff_id: Option<&str>) -> Result<()> {
    tx.execute(
        &format!(
            "INSERT INTO cards ({CARD_COLUMNS}, handoff_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)"
        ),
        params![
            card.id,
            card.number,
            card.title,
            card.description,
            card.assignee_id,
            card.team_id,
            card.status.as_str(),
            priority_str(card.priority),
            card.check_command,
            card.project_folder,
            card.task_text,
            to_json(&card.origin)?,
            card.claimed_by_run,
            card.blocked_reason,
            card.position,
            card.created_at,
            card.updated_at,
            handoff_id,
        ],
    )?;
    Ok(())
}

/// Writes every field a card's owner may change (its number, origin and creation stay).
pub fn update(tx: &Transaction, card: &Card) -> Result<()> {
    tx.execute(
        "UPDATE cards SET title = ?2, description = ?3, assignee_id = ?4, team_id = ?5, status = ?6, priority = ?7,
         check_command = ?8, project_folder = ?9, task_text = ?10, claimed_by_run = ?11, blocked_reason = ?12,
         position = ?13, updated_at = ?14 WHERE id = ?1",
        params![
            card.id,
            card.title,
            card.description,
            card.assignee_id,
            card.team_id,
            card.status.as_str(),
            priority_str(card.priority),
            card.check_command,
            card.project_folder,
            card.task_text,
            card.claimed_by_run,
            card.blocked_reason,
            card.position,
            card.updated_at,
        ],
    )?;
    Ok(())
}

/// Replaces a card's dependencies with `ids`, in that order.
pub fn set_dependencies(tx: &Transaction, card_id: &str, ids: &[String]) -> Result<()> {
    tx.execute("DELETE FROM card_dependencies WHERE card_id = ?1", [card_id])?;
    let mut stmt =
        tx.prepare_cached("INSERT INTO card_dependencies (card_id, depends_on_id, position) VALUES (?1, ?2, ?3)")?;
    for (position, id) in ids.iter().enumerate() {
        stmt.execute(params![card_id, id, position as i64])?;
    }
    Ok(())
}

/// Cards that depend on `id`.
pub fn dependents(conn: &Connection, id: &str) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached("SELECT card_id FROM card_dependencies WHERE depends_on_id = ?1")?;
    let rows = stmt.query_map([id], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// What `id` depends on, in order (the edges the cycle check walks).
pub fn depends_on(conn: &Connection, id: &str) -> Result<Vec<String>> {
    let mut stmt =
        conn.prepare_cached("SELECT depends_on_id FROM card_dependencies WHERE card_id = ?1 ORDER BY position")?;
    let rows = stmt.query_map([id], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The number of card `id` (`None`: no such card).
pub fn number(conn: &Connection, id: &str) -> Result<Option<u32>> {
    Ok(conn.prepare_cached("SELECT number FROM cards WHERE id = ?1")?.query_row([id], |r| r.get(0)).optional()?)
}

/// `#3, #5` for card ids (an unknown one as its id).
pub fn numbers_text(conn: &Connection, ids: &[String]) -> Result<String> {
    let mut names = Vec::with_capacity(ids.len());
    for id in ids {
        names.push(number(conn, id)?.map_or_else(|| id.clone(), |n| format!("#{n}")));
    }
    Ok(names.join(", "))
}

/// The one statement that claims a card: only while no run holds it, it is claimable, and every
/// card it depends on is done. Returns whether it claimed.
pub fn claim(tx: &Transaction, id: &str, run_id: &str, now: i64) -> Result<bool> {
    let claimable: Vec<String> =
        CardStatus::ALL.iter().filter(|s| s.claimable()).map(|s| format!("'{}'", s.as_str())).collect();
    let sql = format!(
        "UPDATE cards SET status = 'in_progress', claimed_by_run = ?2, blocked_reason = NULL, updated_at = ?3,
             position = COALESCE((SELECT MAX(position) FROM cards WHERE status = 'in_progress'), 0) + ?4
         WHERE id = ?1 AND claimed_by_run IS NULL AND status IN ({})
           AND NOT EXISTS (SELECT 1 FROM card_dependencies d JOIN cards c ON c.id = d.depends_on_id
                           WHERE d.card_id = ?1 AND c.status <> 'done')",
        claimable.join(", ")
    );
    Ok(tx.prepare_cached(&sql)?.execute(params![id, run_id, now, POSITION_STEP])? == 1)
}

pub fn delete(tx: &Transaction, id: &str) -> Result<()> {
    tx.execute("DELETE FROM cards WHERE id = ?1", [id])?;
    Ok(())
}

/// Cards held by a run: (card id, run id).
pub fn claimed(conn: &Connection) -> Result<Vec<(String, String)>> {
    let mut stmt =
        conn.prepare_cached("SELECT id, claimed_by_run FROM cards WHERE claimed_by_run IS NOT NULL ORDER BY number")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

// --- who may hold a card -------------------------------------------------------------------------

pub fn agent_handle(conn: &Connection, id: &str) -> Result<Option<String>> {
    Ok(conn.prepare_cached("SELECT handle FROM agents WHERE id = ?1")?.query_row([id], |r| r.get(0)).optional()?)
}

/// An assignee and a team that exist, the assignee in the team when both are set.
pub fn check_people(conn: &Connection, assignee_id: Option<&str>, team_id: Option<&str>) -> Result<()> {
    let handle = match assignee_id {
        Some(id) => {
            Some(agent_handle(conn, id)?.ok_or_else(|| Error::InvalidInput(format!("There is no agent {id}.")))?)
        }
        None => None,
    };
    let team: Option<String> = match team_id {
        Some(id) => Some(
            conn.prepare_cached("SELECT name FROM teams WHERE id = ?1")?
                .query_row([id], |r| r.get(0))
                .optional()?
                .ok_or_else(|| Error::InvalidInput(format!("There is no team {id}.")))?,
        ),
        None => None,
    };
    if let (Some(agent_id), Some(team_id), Some(handle), Some(team)) = (assignee_id, team_id, handle, team) {
        let member: bool = conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM team_members WHERE team_id = ?1 AND agent_id = ?2)")?
            .query_row([team_id, agent_id], |r| r.get(0))?;
        if !member {
            return Err(Error::InvalidInput(format!(
                "@{handle} is not a member of {team}: assign the card to one of its members, or take it off the team."
            )));
        }
    }
    Ok(())
}

/// Every id in `ids` is a card.
pub fn check_cards_exist(conn: &Connection, ids: &[String]) -> Result<()> {
    for id in ids {
        if number(conn, id)?.is_none() {
            return Err(Error::InvalidInput(format!("A card to wait on does not exist: {id}.")));
        }
    }
    Ok(())
}
