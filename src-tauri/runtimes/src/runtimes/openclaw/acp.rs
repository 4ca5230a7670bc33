//! One turn over `openclaw acp`: the Agent Client Protocol as Hermes speaks it (see
//! [`AcpProtocol`]), plus what OpenClaw's bridge leaves out and its transcript has: the
//! turn's token usage, and the model's error when a call failed (the bridge then ends the
//! prompt with a plain `end_turn` and no text).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::transcript::{self, Mark};
use crate::runtimes::hermes::AcpProtocol;
use crate::runtimes::process::ExitInfo;
use crate::runtimes::supervise::{Step, StreamProtocol};
use crate::runtimes::{PermissionAnswer, RunEvent, RunOutcome, RunResult};

pub struct OpenclawAcp {
    inner: AcpProtocol,
    /// OpenClaw's agent database (None: no usage or error details).
    database: Option<PathBuf>,
    /// Where the resumed session's transcript stood before this turn.
    since: Option<Mark>,
    session_id: Option<String>,
    failed: Option<RunResult>,
    /// On a Gateway whose database Clawboo cannot read (the user's own), tell a loaded session
    /// from one the Gateway quietly opened because it did not know the id (see
    /// [`OpenclawAcp::on_existing_gateway`]).
    check_loaded_key: bool,
    loaded_unknown: bool,
}

impl OpenclawAcp {
    pub fn new(
        cwd: String,
        message: String,
        resume: Option<String>,
        database: Option<PathBuf>,
        since: Option<Mark>,
    ) -> Self {
        Self {
            session_id: resume.clone(),
            inner: AcpProtocol::new(cwd, message, resume).for_agent("OpenClaw", false),
            database,
            since,
            failed: None,
            check_loaded_key: false,
            loaded_unknown: false,
        }
    }

    /// For a Gateway the user runs, where the transcript is out of reach: OpenClaw 2026.9.6
    /// files a session its bridge created under `[agent:<name>:]acp-bridge:<id>`, and for an id
    /// it does not know, `session/load` answers as if it did, under the bare id. That answer is
    /// turned into "session missing", so the conversation starts afresh and says so instead of
    /// going on in an empty session.
    pub fn on_existing_gateway(mut self) -> Self {
        self.check_loaded_key = true;
        self
    }

    /// Notes a loaded session filed under a key the bridge would not have given it.
    fn watch_loaded_key(&mut self, msg: &Value) {
        let Some(resume) = self.session_id.as_deref().filter(|_| self.check_loaded_key) else { return };
        let params = &msg["params"];
        let update = &params["update"];
        if msg["method"] != "session/update"
            || params["sessionId"] != resume
            || update["sessionUpdate"] != "session_info_update"
        {
            return;
        }
        if let Some(key) = update["_meta"]["sessionKey"].as_str() {
            self.loaded_unknown |= !key.ends_with(&format!("acp-bridge:{resume}"));
        }
    }

    /// The prompt's answer arrived: read the turn back from the transcript.
    fn on_prompt_result(&mut self, stop_reason: &str, out: &mut Vec<Step>) {
        let (Some(db), Some(session)) = (&self.database, &self.session_id) else { return };
        let mut summary = transcript::TurnSummary::default();
        // The Gateway writes the transcript before it reports the run final; allow a moment.
        for attempt in 0..5 {
            match transcript::events_since(db, session, self.since.as_ref()) {
                Ok(events) => summary = transcript::summarize(&events),
                Err(e) if attempt == 4 => {
                    out.push(Step::Emit(RunEvent::Warning {
                        message: format!("Could not read OpenClaw's transcript: {e}"),
                    }));
                }
                Err(_) => {}
            }
            if summary.usage.is_some() || summary.error.is_some() || stop_reason == "cancelled" {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        if let Some([input, output, cache_read, cache_write]) = summary.usage {
            out.push(Step::Emit(RunEvent::Usage {
                input_tokens: input,
                output_tokens: output,
                cache_read_tokens: cache_read,
                cache_write_tokens: cache_write,
                cost_usd: None,
            }));
        }
        if let Some(error) = summary.error.filter(|_| stop_reason == "end_turn") {
            out.push(Step::Emit(RunEvent::Error { message: error.clone() }));
            self.failed = Some(RunResult::failed(error));
        }
    }
}

impl StreamProtocol for OpenclawAcp {
    fn opening(&mut self) -> Vec<String> {
        self.inner.opening()
    }

    fn on_line(&mut self, line: &str, out: &mut Vec<Step>) {
        if let Ok(msg) = serde_json::from_str::<Value>(line) {
            self.watch_loaded_key(&msg);
            // The answer to `session/load` (request 2) for a session the Gateway did not know:
            // answered as an unknown session is (an empty result).
            if self.loaded_unknown && msg["id"] == 2 && msg.get("result").is_some() {
                self.loaded_unknown = false;
                self.inner.on_line(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#, out);
                return;
            }
            let result = msg.get("result").filter(|_| msg.get("method").is_none());
            if let Some(id) = result.and_then(|r| r.get("sessionId")).and_then(Value::as_str) {
                self.session_id = Some(id.to_owned());
            }
            if let Some(stop) = result.and_then(|r| r.get("stopReason")).and_then(Value::as_str) {
                self.on_prompt_result(stop, out);
            }
        }
        self.inner.on_line(line, out);
    }

    fn on_permission(&mut self, request_id: &str, answer: PermissionAnswer, out: &mut Vec<Step>) {
        self.inner.on_permission(request_id, answer, out);
    }

    fn interrupt(&mut self) -> Option<String> {
        self.inner.interrupt()
    }

    fn has_result(&self) -> bool {
        self.inner.has_result()
    }

    fn finish(&mut self, exit: ExitInfo, stderr_tail: &str) -> RunResult {
        let result = self.inner.finish(exit, stderr_tail);
        match self.failed.take() {
            Some(failed) if result.outcome == RunOutcome::Succeeded => failed,
            _ => result,
        }
    }
}
