//! A run's stored events (`run_events`), which the [`Recorder`](super::Recorder) writes and the
//! Activity card reads back.

use rusqlite::{params, Connection, Transaction};

use crate::error::{Error, Result};
use crate::runtimes::RunEvent;
use crate::vocab::RunEventRecord;

pub fn insert_events(tx: &Transaction, records: &[RunEventRecord]) -> Result<()> {
    let mut stmt = tx.prepare_cached("INSERT INTO run_events (run_id, seq, at, event) VALUES (?1, ?2, ?3, ?4)")?;
    for record in records {
        let json = serde_json::to_string(&record.event).map_err(|e| Error::Internal(e.to_string()))?;
        stmt.execute(params![record.run_id, record.seq, record.at, json])?;
        // A CLI's usage report is counted with the event that stores it (unless the relay
        // counts the run: see `clawboo_spend`).
        if let RunEvent::Usage { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, .. } = record.event
        {
            let usage = clawboo_spend::Usage { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens };
            clawboo_spend::record::record_cli_usage(tx, &record.run_id, record.at, &usage)?;
        }
    }
    Ok(())
}

pub fn events(conn: &Connection, run_id: &str) -> Result<Vec<RunEventRecord>> {
    let mut stmt = conn.prepare_cached("SELECT seq, at, event FROM run_events WHERE run_id = ?1 ORDER BY seq")?;
    let rows = stmt.query_map([run_id], |r| Ok((r.get::<_, u32>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?)))?;
    rows.map(|row| {
        let (seq, at, json) = row?;
        let event: RunEvent = serde_json::from_str(&json)
            .unwrap_or_else(|e| RunEvent::Warning { message: format!("An event could not be read back: {e}") });
        Ok(RunEventRecord { run_id: run_id.to_owned(), seq, at, event })
    })
    .collect()
}
