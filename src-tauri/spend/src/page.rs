//! The Spend page in one read: today, this week and this month; the chosen days per day and
//! agent or team (the chart); the top agents, teams and routines; the names behind the keys.
//! Everything comes from `spend_days`, so it costs the same at a million requests as at ten.

use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::totals::{by_day, filtered, top, DaySpend, GroupBy, SpendFilter, TopSpend, Totals};
use super::Date;
use clawboo_vocab::error::{Error, Result};

/// Top lists are this long.
pub const TOP: u32 = 5;

/// What the page shows: days `from` to `to` ("YYYY-MM-DD", local, both included), stacked by
/// `group` (agent or team), narrowed by `filter`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SpendQuery {
    pub from: String,
    pub to: String,
    pub group: GroupBy,
    #[serde(default)]
    pub filter: SpendFilter,
}

/// A key (agent, team or routine id) and what the user calls it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Named {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SpendPage {
    /// The local day "today" is.
    pub today: String,
    pub today_totals: Totals,
    /// Since Monday.
    pub week_totals: Totals,
    /// Since the 1st.
    pub month_totals: Totals,
    /// The chosen days.
    pub range_totals: Totals,
    /// Per day and group, oldest first; days without spend are absent.
    pub days: Vec<DaySpend>,
    pub top_agents: Vec<TopSpend>,
    pub top_teams: Vec<TopSpend>,
    pub top_routines: Vec<TopSpend>,
    /// Names of every agent, team and routine the page mentions (deleted ones are absent).
    pub agents: Vec<Named>,
    pub teams: Vec<Named>,
    pub routines: Vec<Named>,
    /// The runtimes that spent anything, for the filter.
    pub runtimes: Vec<String>,
}

/// A "YYYY-MM-DD" day.
pub fn parse_day(day: &str) -> Result<Date> {
    day.trim().parse::<Date>().map_err(|_| Error::InvalidInput(format!("“{day}” is not a day (YYYY-MM-DD).")))
}

pub fn page(conn: &Connection, today: Date, query: &SpendQuery) -> Result<SpendPage> {
    let (from, to) = (parse_day(&query.from)?, parse_day(&query.to)?);
    if from > to {
        return Err(Error::InvalidInput("The first day comes after the last.".into()));
    }
    let filter = &query.filter;
    let monday =
        today.checked_sub(jiff::Span::new().days(i64::from(today.weekday().to_monday_zero_offset()))).unwrap_or(today);
    let first = today.first_of_month();
    let days = by_day(conn, from, to, query.group, filter)?;
    let top_agents = top(conn, from, to, GroupBy::Agent, filter, TOP)?;
    let top_teams = top(conn, from, to, GroupBy::Team, filter, TOP)?;
    let top_routines = top(conn, from, to, GroupBy::Routine, filter, TOP)?;

    let mut agent_ids: Vec<&str> = top_agents.iter().map(|t| t.key.as_str()).collect();
    let mut team_ids: Vec<&str> = top_teams.iter().map(|t| t.key.as_str()).collect();
    let stacked = days.iter().map(|d| d.key.as_str()).filter(|k| !k.is_empty());
    match query.group {
        GroupBy::Agent => agent_ids.extend(stacked),
        GroupBy::Team => team_ids.extend(stacked),
        GroupBy::Routine => {}
    }
    let routine_ids: Vec<&str> = top_routines.iter().map(|t| t.key.as_str()).collect();
    let mut runtimes = Vec::new();
    {
        let mut stmt =
            conn.prepare_cached("SELECT DISTINCT runtime FROM spend_days WHERE runtime != '' ORDER BY runtime")?;
        for runtime in stmt.query_map([], |r| r.get::<_, String>(0))? {
            runtimes.push(runtime?);
        }
    }
    let agents = names(conn, "SELECT name FROM agents WHERE id = ?1", agent_ids)?;
    let teams = names(conn, "SELECT name FROM teams WHERE id = ?1", team_ids)?;
    let routines = names(conn, "SELECT name FROM routines WHERE id = ?1", routine_ids)?;
    Ok(SpendPage {
        today: today.to_string(),
        today_totals: filtered(conn, today, today, filter)?,
        week_totals: filtered(conn, monday, today, filter)?,
        month_totals: filtered(conn, first, today, filter)?,
        range_totals: filtered(conn, from, to, filter)?,
        days,
        top_agents,
        top_teams,
        top_routines,
        agents,
        teams,
        routines,
        runtimes,
    })
}

fn names(conn: &Connection, sql: &str, mut ids: Vec<&str>) -> Result<Vec<Named>> {
    ids.sort_unstable();
    ids.dedup();
    let mut stmt = conn.prepare_cached(sql)?;
    let mut out = Vec::new();
    for id in ids {
        if let Some(name) = stmt.query_row([id], |r| r.get::<_, String>(0)).optional()? {
            out.push(Named { id: id.to_owned(), name });
        }
    }
    Ok(out)
}

/// The runs behind the page as CSV (one line per run, money in dollars with six decimals,
/// empty when unpriced or on a subscription).
pub fn runs_csv(conn: &Connection, query: &SpendQuery) -> Result<String> {
    let (from, to) = (parse_day(&query.from)?, parse_day(&query.to)?);
    let runs = super::runs_between(conn, from, to, &query.filter)?;
    let mut agent_names = conn.prepare_cached("SELECT name FROM agents WHERE id = ?1")?;
    let mut team_names = conn.prepare_cached("SELECT name FROM teams WHERE id = ?1")?;
    let mut out = String::from(
        "run_id,day,agent,team,routine_id,card_id,runtime,provider,model,billing,requests,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,cost_usd,unpriced_tokens\n",
    );
    for run in runs {
        let agent: String =
            agent_names.query_row([&run.agent_id], |r| r.get(0)).optional()?.unwrap_or(run.agent_id.clone());
        let team: String =
            team_names.query_row([&run.team_id], |r| r.get(0)).optional()?.unwrap_or(run.team_id.clone());
        let cost = run.cost_micros.map(dollars).unwrap_or_default();
        let fields = [
            run.run_id.clone(),
            run.day.clone(),
            agent,
            team,
            run.routine_id.clone(),
            run.card_id.clone(),
            run.runtime.clone(),
            run.provider.clone(),
            run.model.clone(),
            run.billing.as_str().to_owned(),
            run.requests.to_string(),
            run.input_tokens.to_string(),
            run.output_tokens.to_string(),
            run.cache_read_tokens.to_string(),
            run.cache_write_tokens.to_string(),
            cost,
            run.unpriced_tokens.to_string(),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    Ok(out)
}

/// Micro-USD as dollars, exactly: `1234567` → `1.234567`.
pub fn dollars(micros: i64) -> String {
    let sign = if micros < 0 { "-" } else { "" };
    let m = micros.unsigned_abs();
    format!("{sign}{}.{:06}", m / 1_000_000, m % 1_000_000)
}

/// Quoted when it holds a comma, a quote or a line break; a leading `=`, `+`, `-` or `@` is
/// escaped so a spreadsheet does not run a name as a formula.
fn csv_field(field: &str) -> String {
    let guarded = if field.starts_with(['=', '+', '-', '@']) { format!("'{field}") } else { field.to_owned() };
    if guarded.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", guarded.replace('"', "\"\""))
    } else {
        guarded
    }
}
