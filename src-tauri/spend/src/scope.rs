//! Which agent, team, routine and card a run's spend counts for, read from the tables their
//! owners write: a one-to-one run is its agent's; a team turn or hand-off is its room's team's;
//! a task run is its card's (and the card's team's); a routine's run is the routine's (a team
//! routine's leader run by `routine_runs.run_id`, an agent routine's by its card).

use rusqlite::{Connection, OptionalExtension};

use clawboo_vocab::error::Result;

/// "None" is the empty string (the tables' key columns are never NULL).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RunScope {
    pub agent_id: String,
    pub team_id: String,
    pub routine_id: String,
    pub card_id: String,
    pub runtime: String,
    /// The agent's configured model: what a CLI on its own sign-in is counted under.
    pub agent_model: String,
}

pub(crate) fn of_run(conn: &Connection, run_id: &str) -> Result<RunScope> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.agent_id, r.runtime, COALESCE(rm.team_id, ''),
                COALESCE((SELECT card_id FROM card_runs WHERE run_id = r.id), c.card_id, ''),
                COALESCE(a.model, '')
         FROM runs r
         JOIN conversations c ON c.id = r.conversation_id
         LEFT JOIN rooms rm ON rm.id = c.room_id
         LEFT JOIN agents a ON a.id = r.agent_id
         WHERE r.id = ?1",
    )?;
    let found = stmt
        .query_row([run_id], |r| {
            Ok(RunScope {
                agent_id: r.get(0)?,
                runtime: r.get(1)?,
                team_id: r.get(2)?,
                card_id: r.get(3)?,
                agent_model: r.get(4)?,
                routine_id: String::new(),
            })
        })
        .optional()?;
    // A run the store does not hold (yet): counted, under no scope but "all".
    let Some(mut scope) = found else { return Ok(RunScope::default()) };
    if scope.team_id.is_empty() && !scope.card_id.is_empty() {
        let mut stmt = conn.prepare_cached("SELECT COALESCE(team_id, '') FROM cards WHERE id = ?1")?;
        scope.team_id = stmt.query_row([&scope.card_id], |r| r.get(0)).optional()?.unwrap_or_default();
    }
    let mut stmt = conn.prepare_cached(
        "SELECT routine_id, COALESCE(team_id, '') FROM routine_runs WHERE run_id = ?1
         UNION ALL
         SELECT routine_id, COALESCE(team_id, '') FROM routine_runs WHERE card_id = ?2
         LIMIT 1",
    )?;
    if let Some((routine_id, team_id)) = stmt
        .query_row(rusqlite::params![run_id, scope.card_id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        .optional()?
    {
        scope.routine_id = routine_id;
        if scope.team_id.is_empty() {
            scope.team_id = team_id;
        }
    }
    Ok(scope)
}
