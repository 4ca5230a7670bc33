//! What the relay keeps of each request: the body the model received (gzipped, bounded; as what
//! it adds to its conversation's previous request where that is shorter, see [`lineage`]) and the
//! usage in the answer, in `run_requests`. Never a header.

use std::collections::HashMap;
use std::io::Read;
use std::rc::Rc;
use std::sync::atomic::Ordering;

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use super::lineage::{self, Delta, Last, LineageKey, Lineages};
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

/// Compresses and stores `entry` for `run` (as what it adds to its lineage's last request, when
/// that is worth it: see [`super::lineage`]), then tells the run's driver a model call with usage
/// was recorded (its budgets are checked then). Called off the async workers.
pub(crate) fn store(
    store: &Store,
    lineages: &Lineages,
    run: &RunLog,
    entry: Entry,
    call: super::RecordedCall,
) -> Result<()> {
    let with_usage = entry.usage.is_some();
    store_entry(store, lineages, run, entry)?;
    if with_usage {
        run.recorded(call);
    }
    Ok(())
}

fn store_entry(store: &Store, lineages: &Lineages, run: &RunLog, entry: Entry) -> Result<()> {
    let whole = entry.body.len() <= MAX_STORED_BODY_BYTES;
    let kept = &entry.body[..entry.body.len().min(MAX_STORED_BODY_BYTES)];
    let lineage = if whole { run.lineage.get_or_init(|| lineage_of(store, &run.run_id)).as_ref() } else { None };
    let delta = lineage.and_then(|key| lineages.last(key)).and_then(|base| lineage::delta(base, kept));
    let compressed = gzip(lineages, delta.as_ref().map_or(kept, |d| d.middle(kept)))?;
    let stored = run.stored_bytes.fetch_add(compressed.len() as u64, Ordering::Relaxed) + compressed.len() as u64;
    let (body_gz, body_stored) =
        if stored <= MAX_STORED_RUN_BYTES { (Some(compressed), kept.len() as i64) } else { (None, 0) };
    let recoverable = whole && body_gz.is_some();
    let usage =
        entry.usage.as_ref().map(serde_json::to_string).transpose().map_err(|e| Error::Internal(e.to_string()))?;
    let model = clawboo_spend::backfill::model_in_body(&entry.body);
    let provider = entry.provider.as_str();
    let delta = delta.filter(|_| body_gz.is_some());
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
                 model, cost_micros, base_run_id, base_seq, base_prefix, base_suffix, chain)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)")?.execute(params![
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
                delta.as_ref().map(|d| &d.base.run_id),
                delta.as_ref().map(|d| d.base.seq),
                delta.as_ref().map(|d| d.prefix as i64),
                delta.as_ref().map(|d| d.suffix as i64),
                delta.as_ref().map_or(0, Delta::chain),
            ])?;
        Ok(())
    })?;
    if let (Some(key), true) = (lineage, recoverable) {
        let chain = delta.as_ref().map_or(0, Delta::chain);
        lineages.remember(key.clone(), Last { run_id: run.run_id.clone(), seq: entry.seq, body: entry.body, chain });
    }
    Ok(())
}

/// The agent and conversation of `run_id`, when the store holds the run.
fn lineage_of(store: &Store, run_id: &str) -> Option<LineageKey> {
    let found = store.read(|conn| {
        Ok(conn
            .prepare_cached("SELECT agent_id, conversation_id FROM runs WHERE id = ?1")?
            .query_row([run_id], |r| Ok(LineageKey { agent_id: r.get(0)?, conversation_id: r.get(1)? }))
            .optional()?)
    });
    found.unwrap_or_else(|e| {
        tracing::warn!(%run_id, error = %e, "could not read a run's conversation; its requests are stored whole");
        None
    })
}

pub(crate) fn requests(conn: &Connection, run_id: &str) -> Result<Vec<RelayedRequest>> {
    let mut statement = conn.prepare_cached(
        "SELECT seq, at, provider, method, path, status, body_gz, body_bytes, body_stored, usage_json, model, cost_micros,
                base_run_id, base_seq, base_prefix, base_suffix
         FROM run_requests WHERE run_id = ?1 ORDER BY seq",
    )?;
    let rows = statement.query_map([run_id], |r| {
        Ok((
            (
                r.get::<_, u32>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, u16>(5)?,
            ),
            StoredBody::from_row(r, 6, 8, 12)?,
            r.get::<_, i64>(7)?,
            r.get::<_, Option<String>>(9)?,
            r.get::<_, Option<String>>(10)?,
            r.get::<_, Option<i64>>(11)?,
        ))
    })?;
    let rows = rows.collect::<rusqlite::Result<Vec<_>>>()?;
    let mut bodies = Bodies::new(conn);
    let mut out = Vec::new();
    for ((seq, at, provider, method, path, status), stored, body_bytes, usage, model, cost_micros) in rows {
        let provider = Provider::parse(&provider)
            .ok_or_else(|| Error::Internal(format!("run_requests holds an unknown provider “{provider}”")))?;
        let body_stored = stored.stored;
        let body = bodies.body((run_id.to_owned(), seq), stored)?;
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

/// A request's body as its row keeps it: whole, or what it adds to a base (see [`lineage`]).
struct StoredBody {
    gz: Option<Vec<u8>>,
    /// Bytes the body has once decompressed (and rebuilt).
    stored: i64,
    /// The base request, and how many bytes of its start and end the body shares.
    base: Option<((String, u32), usize, usize)>,
}

impl StoredBody {
    /// Reads `body_gz` at `gz`, `body_stored` at `stored` and the four `base_*` columns from `base`.
    fn from_row(r: &rusqlite::Row<'_>, gz: usize, stored: usize, base: usize) -> rusqlite::Result<Self> {
        let base_run = r.get::<_, Option<String>>(base)?;
        let numbers = (
            r.get::<_, Option<u32>>(base + 1)?,
            r.get::<_, Option<i64>>(base + 2)?,
            r.get::<_, Option<i64>>(base + 3)?,
        );
        let base = match (base_run, numbers) {
            (Some(run), (Some(seq), Some(prefix), Some(suffix))) => {
                Some(((run, seq), prefix.max(0) as usize, suffix.max(0) as usize))
            }
            _ => None,
        };
        Ok(Self { gz: r.get(gz)?, stored: r.get(stored)?, base })
    }
}

type RequestKey = (String, u32);

/// Bodies rebuilt while reading, each once however many requests stand on it.
struct Bodies<'c> {
    conn: &'c Connection,
    done: HashMap<RequestKey, Option<Rc<Vec<u8>>>>,
}

impl<'c> Bodies<'c> {
    fn new(conn: &'c Connection) -> Self {
        Self { conn, done: HashMap::new() }
    }

    /// The body of request `key` stored as `stored`; `None` when it was not kept, or its base is
    /// gone or damaged.
    fn body(&mut self, key: RequestKey, stored: StoredBody) -> Result<Option<Rc<Vec<u8>>>> {
        // Down the chain of bases to one stored whole (or already rebuilt, or gone) ...
        let mut chain = vec![(key, stored)];
        while let Some(base) = chain.last().and_then(|(_, s)| s.base.as_ref()).map(|(base, _, _)| base.clone()) {
            if self.done.contains_key(&base) {
                break;
            }
            let row = if chain.len() > 2 * lineage::KEYFRAME_EVERY as usize { None } else { self.row(&base)? };
            match row {
                Some(row) => chain.push((base, row)),
                None => {
                    self.done.insert(base, None);
                    break;
                }
            }
        }
        // ... then back up, each body rebuilt on the one below it.
        let mut below =
            chain.last().and_then(|(_, s)| s.base.as_ref()).and_then(|(base, _, _)| self.done[base].clone());
        for (key, stored) in chain.into_iter().rev() {
            let body = match (&stored.gz, &stored.base) {
                (None, _) => None,
                (Some(gz), None) => Some(Rc::new(gunzip(gz)?)),
                (Some(gz), Some((_, prefix, suffix))) => match &below {
                    Some(base) => lineage::rebuild(base, *prefix, *suffix, &gunzip(gz)?).map(Rc::new),
                    None => None,
                },
            };
            let body = body.filter(|b| {
                let fits = b.len() as i64 == stored.stored;
                if !fits {
                    tracing::warn!(run_id = %key.0, seq = key.1, "a recorded request's body did not rebuild to its length");
                }
                fits
            });
            self.done.insert(key, body.clone());
            below = body;
        }
        Ok(below)
    }

    fn row(&self, (run_id, seq): &RequestKey) -> Result<Option<StoredBody>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT body_gz, body_stored, base_run_id, base_seq, base_prefix, base_suffix
                 FROM run_requests WHERE run_id = ?1 AND seq = ?2",
            )?
            .query_row(params![run_id, seq], |r| StoredBody::from_row(r, 0, 1, 2))
            .optional()?)
    }
}

/// A gzip member's header (RFC 1952): deflate, no name or time, unknown OS.
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];

/// `bytes` as one gzip member, deflated with the relay's kept state (see [`Lineages`]).
fn gzip(lineages: &Lineages, bytes: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(GZIP_HEADER.len() + bytes.len() / 2 + 64);
    out.extend_from_slice(&GZIP_HEADER);
    lineages.with_compressor(|deflate| loop {
        if out.capacity() - out.len() < 1024 {
            out.reserve(out.capacity().max(1024));
        }
        let read = usize::try_from(deflate.total_in()).unwrap_or(usize::MAX).min(bytes.len());
        match deflate.compress_vec(&bytes[read..], &mut out, flate2::FlushCompress::Finish) {
            Ok(flate2::Status::StreamEnd) => return Ok(()),
            Ok(_) => {}
            Err(e) => return Err(Error::io("Cannot compress a request body", std::io::Error::other(e))),
        }
    })?;
    let mut crc = flate2::Crc::new();
    crc.update(bytes);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    // The size modulo 2^32, as the format has it.
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    Ok(out)
}

fn gunzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .map_err(|e| Error::io("Cannot decompress a recorded request body", e))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_compressed_with_the_kept_state_read_back_exactly_one_after_another() {
        let lineages = Lineages::default();
        // Text that compresses, then bytes that barely do (its output outgrows the first guess).
        let json = "{\"role\":\"user\",\"content\":\"How are you? \u{1F600}\"},".repeat(20_000);
        let noise: Vec<u8> = (0u32..300_000).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for body in [&b""[..], b"x", json.as_bytes(), &noise, b"{\"a\":1}"] {
            let stored = gzip(&lineages, body).unwrap();
            assert_eq!(gunzip(&stored).unwrap(), body, "a body of {} bytes", body.len());
        }
        assert!(gzip(&lineages, json.as_bytes()).unwrap().len() < json.len() / 10, "it still compresses");
    }

    #[test]
    fn the_kept_state_goes_once_unused() {
        let lineages = Lineages::default();
        gzip(&lineages, b"{}").unwrap();
        assert!(lineages.keeps_compressor());
        lineages.forget_unused_since(std::time::Instant::now());
        assert!(!lineages.keeps_compressor(), "given back once quiet");
        // Made again on the next record.
        assert_eq!(gunzip(&gzip(&lineages, b"{\"b\":2}").unwrap()).unwrap(), b"{\"b\":2}");
        assert!(lineages.keeps_compressor());
    }
}
