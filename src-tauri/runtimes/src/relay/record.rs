//! What the relay keeps of each request: the body the model received (gzipped, bounded) and the
//! usage in the answer, in `run_requests`. Never a header.

use std::io::{Read, Write};
use std::sync::atomic::Ordering;

use rusqlite::{params, Connection};
use serde::Serialize;

use super::usage::RequestUsage;
use super::RunLog;
use crate::error::{Error, Result};
use crate::secrets::Provider;
use crate::store::Store;

/// A body is stored up to this many bytes (before compression); the rest is counted, not kept.
pub const MAX_STORED_BODY_BYTES: usize = 8 * 1024 * 1024;
/// Compressed bodies stored per run; later requests of the run keep their usage, not their body.
pub const MAX_STORED_RUN_BYTES: u64 = 32 * 1024 * 1024;

/// One request a run sent through the relay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RelayedRequest {
    pub run_id: String,
    /// 1, 2, … in order of arrival within the run.
    pub seq: u32,
    /// Unix milliseconds when it arrived.
    pub at: i64,
    pub provider: Provider,
    pub method: String,
    /// The API path, e.g. "/v1/messages?beta=true".
    pub path: String,
    /// The provider's HTTP status; 502 when it could not be reached or was refused.
    pub status: u16,
    /// The body as the model received it (UTF-8, lossy), or its first
    /// [`MAX_STORED_BODY_BYTES`]; `None` once the run's budget was spent.
    pub body: Option<String>,
    /// The body's whole size.
    pub body_bytes: u64,
    /// Whether `body` is the whole body.
    pub body_complete: bool,
    pub usage: Option<RequestUsage>,
    /// The model the body asked for (`None`: it named none, or it could not be read).
    pub model: Option<String>,
    /// What it cost in micro-USD at the price of when it was recorded; `None` when its model
    /// has no known price or it reported no usage.
    pub cost_micros: Option<i64>,
}

/// One finished request, ready to store.
pub(crate) struct Entry {
    pub(crate) seq: u32,
    pub(crate) at: i64,
    pub(crate) provider: Provider,
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) status: u16,
    pub(crate) body: bytes::Bytes,
    pub(crate) usage: Option<RequestUsage>,
}

/// Compresses and stores `entry` for `run`, then tells the run's driver a model call with usage
/// was recorded (its budgets are checked then). Called off the async workers.
pub(crate) fn store(store: &Store, run: &RunLog, entry: Entry, call: super::RecordedCall) -> Result<()> {
    let with_usage = entry.usage.is_some();
    store_entry(store, run, entry)?;
    if with_usage {
        run.recorded(call);
    }
    Ok(())
}

fn store_entry(store: &Store, run: &RunLog, entry: Entry) -> Result<()> {
    let kept = &entry.body[..entry.body.len().min(MAX_STORED_BODY_BYTES)];
    let compressed = gzip(kept)?;
    let stored = run.stored_bytes.fetch_add(compressed.len() as u64, Ordering::Relaxed) + compressed.len() as u64;
    let (body_gz, body_stored) =
        if stored <= MAX_STORED_RUN_BYTES { (Some(compressed), kept.len() as i64) } else { (None, 0) };
    let usage =
        entry.usage.as_ref().map(serde_json::to_string).transpose().map_err(|e| Error::Internal(e.to_string()))?;
    let model = clawboo_spend::backfill::model_in_body(&entry.body);
    let provider = entry.provider.as_str();
    store.write(|tx| {
        // Counted in the same transaction as the request is stored (see `clawboo_spend`).
        let cost = match &entry.usage {
            Some(u) => {
                let counts = clawboo_spend::Usage::from_provider_counts(
                    provider,
                    u.input_tokens,
                    u.output_tokens,
                    u.cache_read_tokens,
                    u.cache_write_tokens,
                );
                let model = model.as_deref().unwrap_or("");
                clawboo_spend::record::record_relayed(tx, &run.run_id, entry.at, provider, model, &counts)?
            }
            None => None,
        };
        tx.prepare_cached("INSERT INTO run_requests (run_id, seq, at, provider, method, path, status, body_gz, body_bytes, body_stored, usage_json,
                 model, cost_micros)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")?.execute(params![
                run.run_id,
                entry.seq,
                entry.at,
                provider,
                entry.method,
                entry.path,
                entry.status,
                body_gz,
                entry.body.len() as i64,
                body_stored,
                usage,
                model,
                cost,
            ])?;
        Ok(())
    })
}

pub(crate) fn requests(conn: &Connection, run_id: &str) -> Result<Vec<RelayedRequest>> {
    let mut statement = conn.prepare_cached(
        "SELECT seq, at, provider, method, path, status, body_gz, body_bytes, body_stored, usage_json, model, cost_micros
         FROM run_requests WHERE run_id = ?1 ORDER BY seq",
    )?;
    let rows = statement.query_map([run_id], |r| {
        Ok((
            r.get::<_, u32>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, String>(4)?,
            r.get::<_, u16>(5)?,
            r.get::<_, Option<Vec<u8>>>(6)?,
            r.get::<_, i64>(7)?,
            r.get::<_, i64>(8)?,
            r.get::<_, Option<String>>(9)?,
            r.get::<_, Option<String>>(10)?,
            r.get::<_, Option<i64>>(11)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (seq, at, provider, method, path, status, body_gz, body_bytes, body_stored, usage, model, cost_micros) =
            row?;
        let provider = Provider::parse(&provider)
            .ok_or_else(|| Error::Internal(format!("run_requests holds an unknown provider “{provider}”")))?;
        let body = body_gz.map(|gz| gunzip(&gz)).transpose()?;
        let usage = usage.map(|u| serde_json::from_str(&u)).transpose().map_err(|e| Error::Internal(e.to_string()))?;
        out.push(RelayedRequest {
            run_id: run_id.to_owned(),
            seq,
            at,
            provider,
            method,
            path,
            status,
            body_complete: body.is_some() && body_stored == body_bytes,
            body: body.map(|b| String::from_utf8_lossy(&b).into_owned()),
            body_bytes: body_bytes.max(0) as u64,
            usage,
            model,
            cost_micros,
        });
    }
    Ok(out)
}

fn gzip(bytes: &[u8]) -> Result<Vec<u8>> {
    // Fast level: JSON bodies still shrink several times, at a fraction of the CPU.
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).and_then(|()| encoder.finish()).map_err(|e| Error::io("Cannot compress a request body", e))
}

fn gunzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .map_err(|e| Error::io("Cannot decompress a recorded request body", e))?;
    Ok(out)
}
