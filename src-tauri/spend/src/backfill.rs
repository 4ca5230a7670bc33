//! Usage recorded before migration 28 counted once, at the first open after it (the migration
//! leaves a row in `spend_backfill_pending`): the relay's requests, their model read from the
//! stored body (a request whose body was not kept counts under no model, unpriced); then the
//! CLI `Usage` events of runs that sent nothing through the relay. Priced at today's prices.

use std::io::Read;

use rusqlite::{params, Connection, OptionalExtension};
use serde::Deserialize;

use super::record::{self, Usage};
use clawboo_vocab::error::Result;
use clawboo_vocab::RunEvent;

/// The relay's usage JSON (`RequestUsage` in the relay), counts as the provider reported them.
#[derive(Deserialize, Default)]
struct StoredUsage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_read_tokens: Option<u64>,
    cache_write_tokens: Option<u64>,
}

/// Counts what was recorded before the aggregates existed, when that is still to do. Returns
/// the lines counted. Runs inside the caller's write transaction.
pub fn backfill_if_pending(conn: &Connection) -> Result<u64> {
    let pending = conn.query_row("SELECT 1 FROM spend_backfill_pending", [], |_| Ok(())).optional()?.is_some();
    if !pending {
        return Ok(0);
    }
    let mut counted = 0;
    let requests = {
        let mut stmt = conn.prepare(
            "SELECT run_id, seq, at, provider, body_gz, usage_json FROM run_requests
             WHERE model IS NULL AND base_run_id IS NULL ORDER BY at, run_id, seq",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<Vec<u8>>>(4)?,
                r.get::<_, Option<String>>(5)?,
            ))
        })?;
        rows.collect::<rusqlite::Result<Vec<_>>>()?
    };
    for (run_id, seq, at, provider, body_gz, usage_json) in requests {
        record::mark_relayed(conn, &run_id)?;
        let Some(usage) = usage_json.and_then(|u| serde_json::from_str::<StoredUsage>(&u).ok()) else { continue };
        let usage = Usage::from_provider_counts(
            &provider,
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
        );
        // Only bodies stored whole are read here (all of them, before migration 32): a body stored
        // as what it adds to another was recorded with its model already.
        let model = body_gz.as_deref().and_then(model_in_gzipped_body).unwrap_or_default();
        let cost = record::record_relayed(conn, &run_id, at, &provider, &model, &usage)?;
        conn.execute(
            "UPDATE run_requests SET model = ?1, cost_micros = ?2 WHERE run_id = ?3 AND seq = ?4",
            params![model, cost, run_id, seq],
        )?;
        counted += 1;
    }
    let events = {
        let mut stmt = conn.prepare(
            "SELECT e.run_id, e.at, e.event FROM run_events e
             WHERE e.event LIKE '%\"usage\"%'
               AND NOT EXISTS (SELECT 1 FROM run_requests q WHERE q.run_id = e.run_id)
             ORDER BY e.at, e.run_id, e.seq",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?)))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()?
    };
    for (run_id, at, event) in events {
        if let Ok(RunEvent::Usage { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, .. }) =
            serde_json::from_str(&event)
        {
            let usage = Usage { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens };
            if record::record_cli_usage(conn, &run_id, at, &usage)? {
                counted += 1;
            }
        }
    }
    conn.execute("DELETE FROM spend_backfill_pending", [])?;
    Ok(counted)
}

/// The `model` field of a request body (every provider's API names it at the top level).
pub use super::request_model::model_in_body;

fn model_in_gzipped_body(gz: &[u8]) -> Option<String> {
    let mut body = Vec::new();
    flate2::read::GzDecoder::new(gz).read_to_end(&mut body).ok()?;
    model_in_body(&body)
}
