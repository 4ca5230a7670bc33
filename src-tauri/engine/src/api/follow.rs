//! A run's events: as stored (JSON), or followed live as server-sent events. A follower gets
//! what happened so far, then each event as the runtime reports it, in order, attempt after
//! attempt, then one `end` event with the run as it ended, and the stream closes.
//!
//! Events are published on the engine's bus as they happen and stored in batches a moment later
//! (every 50 ms), so the stream takes them from the bus when they come in order and fills any gap
//! from the store; the end is read from the store, where a run's every event is kept before the
//! run is marked ended.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::header::{self, HeaderValue};
use axum::http::StatusCode;
use axum::response::Response;
use bytes::Bytes;
use rusqlite::{params, Connection};
use tokio::sync::{broadcast, mpsc};

use super::runs::{self, ApiRun, ApiRunStatus};
use super::LocalApiParts;
use crate::error::{Error, Result};
use crate::events::{EngineEvent, EventReceiver};
use crate::runtimes::RunEvent;
use crate::vocab::RunEventRecord;

/// How often a follower looks at the store even when the bus says nothing.
const POLL: Duration = Duration::from_millis(250);
/// A comment line this often keeps proxies and idle timeouts from closing a quiet stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The run and every event stored for its attempts, in order.
pub(super) fn stored(parts: &LocalApiParts, run_id: &str) -> Result<(ApiRun, Vec<RunEventRecord>)> {
    let run = runs::get(parts, run_id, false)?;
    let events = parts.store.read(|c| {
        let mut all = Vec::new();
        for id in run.attempt_ids() {
            all.extend(events_after(c, &id, 0)?);
        }
        Ok(all)
    })?;
    Ok((run, events))
}

fn events_after(conn: &Connection, run_id: &str, after: u32) -> Result<Vec<RunEventRecord>> {
    let mut stmt =
        conn.prepare_cached("SELECT seq, at, event FROM run_events WHERE run_id = ?1 AND seq > ?2 ORDER BY seq")?;
    let rows = stmt.query_map(params![run_id, after], |r| {
        Ok((r.get::<_, u32>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?))
    })?;
    rows.map(|row| {
        let (seq, at, json) = row?;
        let event: RunEvent = serde_json::from_str(&json)
            .unwrap_or_else(|e| RunEvent::Warning { message: format!("An event could not be read back: {e}") });
        Ok(RunEventRecord { run_id: run_id.to_owned(), seq, at, event })
    })
    .collect()
}

/// The event-stream response; a task on the engine's runtime feeds it until the run ends or the
/// client goes away.
pub(super) fn stream(parts: Arc<LocalApiParts>, run: ApiRun) -> Response {
    let (tx, rx) = mpsc::channel::<Bytes>(256);
    let bus = parts.events.subscribe();
    parts.handle.clone().spawn(async move {
        let mut follower = Follower {
            parts,
            run_id: run.run_id.clone(),
            card_id: run.card.id.clone(),
            tx: Some(tx),
            sent: HashMap::new(),
            waiting: HashMap::new(),
            attempts: Vec::new(),
        };
        follower.follow(bus).await;
    });
    let chunks = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|bytes| (Ok::<_, Infallible>(bytes), rx))
    });
    let mut response = Response::new(Body::from_stream(chunks));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

struct Follower {
    parts: Arc<LocalApiParts>,
    run_id: String,
    card_id: String,
    tx: Option<mpsc::Sender<Bytes>>,
    /// Per attempt, the last seq sent.
    sent: HashMap<String, u32>,
    /// Per attempt, events come ahead of one still missing.
    waiting: HashMap<String, BTreeMap<u32, RunEventRecord>>,
    attempts: Vec<String>,
}

impl Follower {
    async fn follow(&mut self, mut bus: EventReceiver) {
        let mut poll = tokio::time::interval(POLL);
        let mut keep_alive = tokio::time::interval(KEEP_ALIVE);
        keep_alive.reset();
        loop {
            match self.look().await {
                Ok(None) => {}
                Ok(Some(run)) => {
                    let data = serde_json::to_string(&run).unwrap_or_else(|_| "{}".into());
                    self.send(format!("event: end\ndata: {data}\n\n")).await;
                    return;
                }
                Err(e) => {
                    let data = serde_json::json!({"error": {"code": e.code(), "message": e.to_string()}});
                    self.send(format!("event: error\ndata: {data}\n\n")).await;
                    return;
                }
            }
            // Wait for a reason to look again, sending the live events meanwhile.
            loop {
                let Some(tx) = self.tx.clone() else { return };
                tokio::select! {
                    received = bus.recv() => match received {
                        Ok(EngineEvent::RunEvent { record, .. }) => {
                            if self.attempts.contains(&record.run_id) {
                                self.take(record);
                                if !self.flush().await {
                                    return;
                                }
                            }
                        }
                        Ok(EngineEvent::BoardChanged { card_id }) => {
                            if card_id.is_none_or(|c| c == self.card_id) {
                                break;
                            }
                        }
                        Ok(_) => {}
                        Err(broadcast::error::RecvError::Lagged(_)) => break,
                        Err(broadcast::error::RecvError::Closed) => return,
                    },
                    _ = poll.tick() => break,
                    _ = keep_alive.tick() => {
                        if !self.send(": keep-alive\n\n".into()).await {
                            return;
                        }
                    }
                    _ = tx.closed() => return,
                }
            }
        }
    }

    /// Reads the run and the events stored since those sent, and sends what is in order; the run
    /// once it has ended.
    async fn look(&mut self) -> Result<Option<ApiRun>> {
        let parts = self.parts.clone();
        let run_id = self.run_id.clone();
        let sent = self.sent.clone();
        let (run, fresh) = tokio::task::spawn_blocking(move || -> Result<_> {
            let run = runs::get(&parts, &run_id, false)?;
            let fresh = parts.store.read(|c| {
                let mut fresh = Vec::new();
                for id in run.attempt_ids() {
                    fresh.extend(events_after(c, &id, sent.get(&id).copied().unwrap_or(0))?);
                }
                Ok(fresh)
            })?;
            Ok((run, fresh))
        })
        .await
        .map_err(|e| Error::Internal(format!("following a run failed: {e}")))??;
        self.attempts = run.attempt_ids();
        for record in fresh {
            self.take(record);
        }
        if !self.flush().await {
            // The client went away.
            self.tx = None;
            return Ok(None);
        }
        Ok((run.status == ApiRunStatus::Ended).then_some(run))
    }

    fn take(&mut self, record: RunEventRecord) {
        let sent = self.sent.get(&record.run_id).copied().unwrap_or(0);
        if record.seq > sent {
            self.waiting.entry(record.run_id.clone()).or_default().insert(record.seq, record);
        }
    }

    /// Sends, attempt by attempt, the events that follow those sent without a gap. False when the
    /// client went away.
    async fn flush(&mut self) -> bool {
        for id in self.attempts.clone() {
            loop {
                let next = self.sent.get(&id).copied().unwrap_or(0) + 1;
                let Some(record) = self.waiting.get_mut(&id).and_then(|w| w.remove(&next)) else { break };
                let data = serde_json::to_string(&record).unwrap_or_else(|_| "{}".into());
                self.sent.insert(id.clone(), next);
                if !self.send(format!("id: {}:{}\nevent: run_event\ndata: {data}\n\n", record.run_id, record.seq)).await
                {
                    return false;
                }
            }
        }
        true
    }

    async fn send(&mut self, text: String) -> bool {
        let Some(tx) = &self.tx else { return false };
        if tx.send(Bytes::from(text)).await.is_err() {
            self.tx = None;
            return false;
        }
        true
    }
}
