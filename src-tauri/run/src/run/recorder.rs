//! Numbers, stores (in batches) and publishes a run's events, and gathers the reply text and
//! the runtime's session id from them.

use std::sync::Arc;

use super::store;
use crate::events::{EngineEvent, EventBus};
use crate::runtimes::{RunEvent, RunResult};
use crate::store::Store;
use crate::vocab::clock::now_ms;
use crate::vocab::{RunEventRecord, RunSummary};

/// Events are written in one transaction per batch: a runtime printing thousands of events a
/// second costs a few commits a second, not thousands.
const BATCH: usize = 512;

pub struct Recorder {
    store: Arc<Store>,
    events: EventBus,
    run_id: String,
    agent_id: String,
    seq: u32,
    pending: Vec<RunEventRecord>,
    reply: String,
    session_id: Option<String>,
}

impl Recorder {
    pub fn new(store: Arc<Store>, events: EventBus, run: &RunSummary) -> Self {
        Self {
            store,
            events,
            run_id: run.id.clone(),
            agent_id: run.agent_id.clone(),
            seq: 0,
            pending: Vec::new(),
            reply: String::new(),
            session_id: None,
        }
    }

    pub fn record(&mut self, event: RunEvent) {
        add_to_reply(&mut self.reply, &event);
        if let RunEvent::SessionStarted { session_id } = &event {
            self.session_id = Some(session_id.clone());
        }
        self.seq += 1;
        let record = RunEventRecord { run_id: self.run_id.clone(), seq: self.seq, at: now_ms(), event };
        self.events.publish(EngineEvent::RunEvent { agent_id: self.agent_id.clone(), record: record.clone() });
        self.pending.push(record);
        if self.pending.len() >= BATCH {
            self.flush();
        }
    }

    pub fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let batch = std::mem::take(&mut self.pending);
        if let Err(e) = self.store.write(|tx| store::insert_events(tx, &batch)) {
            // Keep them for the next flush rather than lose them.
            tracing::warn!(run_id = %self.run_id, events = batch.len(), error = %e, "could not store a run's events (kept for the next flush)");
            self.pending = batch;
        }
    }

    /// The run's last event, its result, recorded and everything stored.
    pub fn finish(&mut self, result: &RunResult) {
        self.record(result.to_event());
        self.flush();
    }

    pub fn reply(&self) -> String {
        self.reply.clone()
    }

    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }
}

/// How a run's reply is gathered from its events: text deltas joined, whole messages set apart
/// by a blank line. The recorder does it live; the task runner again from stored events.
pub fn add_to_reply(reply: &mut String, event: &RunEvent) {
    match event {
        RunEvent::TextDelta { text } => reply.push_str(text),
        RunEvent::Message { text } => {
            if !reply.is_empty() && !reply.ends_with('\n') {
                reply.push_str("\n\n");
            }
            reply.push_str(text);
        }
        _ => {}
    }
}
