//! Traces of task-runner runs for Settings > Observability: per run, what it was sent (chars
//! per tier), what it cost (tokens, cache reads, dollars, from the run's usage events), how long
//! it took and how it ended; newest first. Each opens to its exact context (`run_context`).

use rusqlite::{params, Connection};
use serde::Serialize;

use super::store;
use crate::board::records::{run_from_row, RUN_COLUMNS};
use crate::board::{CardRunKind, CardRunStatus};
use crate::context::{SectionKind, Stability};
use crate::error::Result;
use crate::runtimes::RunEvent;

/// At most this many traces are listed.
pub const MAX_TRACES: u32 = 500;

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TaskTrace {
    pub run_id: String,
    pub card_id: String,
    pub card_number: u32,
    pub card_title: String,
    pub agent_handle: Option<String>,
    pub runtime: String,
    pub attempt: u32,
    pub kind: CardRunKind,
    pub status: CardRunStatus,
    pub reason: Option<String>,
    pub started_at: i64,
    pub finished_at: Option<i64>,
    /// Chars sent in each tier: steady for the task, context, changes most (the memory block).
    pub steady_chars: u32,
    pub context_chars: u32,
    pub changing_chars: u32,
    /// Facts given in the memory block.
    pub cited: u32,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    /// When the runtime reports a price.
    pub cost_usd: Option<f64>,
}

/// The newest `limit` task runs (hand-offs are team chat's: not listed).
pub fn traces(conn: &Connection, limit: u32) -> Result<Vec<TaskTrace>> {
    // The card run's own columns first, read by the Board's row reader.
    let run_columns = RUN_COLUMNS.split(", ").map(|c| format!("cr.{c}")).collect::<Vec<_>>().join(", ");
    let mut stmt = conn.prepare(&format!(
        "SELECT {run_columns}, c.number, c.title, a.handle, r.runtime
         FROM card_runs cr
         JOIN cards c ON c.id = cr.card_id
         JOIN runs r ON r.id = cr.run_id
         LEFT JOIN agents a ON a.id = r.agent_id
         WHERE cr.kind != 'handoff'
         ORDER BY cr.started_at DESC, cr.attempt DESC
         LIMIT ?1"
    ))?;
    let rows = stmt.query_map(params![limit.min(MAX_TRACES)], |r| {
        let run = run_from_row(r)?;
        Ok(TaskTrace {
            run_id: run.run_id,
            card_id: run.card_id,
            card_number: r.get(9)?,
            card_title: r.get(10)?,
            agent_handle: r.get(11)?,
            runtime: r.get(12)?,
            attempt: run.attempt,
            kind: run.kind,
            status: run.status,
            reason: run.reason,
            started_at: run.started_at,
            finished_at: run.finished_at,
            steady_chars: 0,
            context_chars: 0,
            changing_chars: 0,
            cited: 0,
            input_tokens: 0,
            output_tokens: 0,
            cache_read_tokens: 0,
            cache_write_tokens: 0,
            cost_usd: None,
        })
    })?;
    let mut traces = Vec::new();
    for row in rows {
        let mut trace = row?;
        if let Some(context) = store::context(conn, &trace.run_id)? {
            // The message (the card's title) is not a tier.
            for section in context.sections.iter().filter(|s| s.kind != SectionKind::Message) {
                match section.stability {
                    Stability::Steady => trace.steady_chars += section.chars,
                    Stability::Turn => trace.context_chars += section.chars,
                    Stability::Volatile => trace.changing_chars += section.chars,
                }
            }
            trace.cited = context.cited.len() as u32;
        }
        add_usage(conn, &mut trace)?;
        traces.push(trace);
    }
    Ok(traces)
}

/// Sums the run's usage events (a runtime reports one per model call, or one per run).
fn add_usage(conn: &Connection, trace: &mut TaskTrace) -> Result<()> {
    let mut stmt = conn
        .prepare_cached("SELECT event FROM run_events WHERE run_id = ?1 AND event LIKE '%\"usage\"%' ORDER BY seq")?;
    let events = stmt.query_map(params![trace.run_id], |r| r.get::<_, String>(0))?;
    for event in events {
        if let Ok(RunEvent::Usage { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd }) =
            serde_json::from_str::<RunEvent>(&event?)
        {
            trace.input_tokens += input_tokens;
            trace.output_tokens += output_tokens;
            trace.cache_read_tokens += cache_read_tokens;
            trace.cache_write_tokens += cache_write_tokens;
            if let Some(cost) = cost_usd {
                trace.cost_usd = Some(trace.cost_usd.unwrap_or(0.0) + cost);
            }
        }
    }
    Ok(())
}
