//! One turn over `openclaw acp`: the Agent Client Protocol as Hermes speaks it (see
//! [`AcpProtocol`]), plus what OpenClaw's bridge leaves out and its transcript has: the
//! turn's token usage, and the model's error when a call failed (the bridge then ends the
//! prompt with a plain `end_turn` and no text).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::gateway_node::LiveSession;
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
    /// On a Gateway the user runs: the Gateway agent the session belongs to (see
    /// [`OpenclawAcp::on_existing_gateway`]).
    existing: Option<ExistingGateway>,
    /// The session to resume, as asked.
    resume: Option<String>,
    loaded_unknown: bool,
}

/// The Clawboo agent's own agent on a Gateway the user runs, and where the turn's session key
/// goes once the bridge names it (the node answers only that session's tool calls).
struct ExistingGateway {
    agent: String,
    live: LiveSession,
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
            inner: AcpProtocol::new(cwd, message, resume.clone()).for_agent("OpenClaw", false),
            database,
            since,
            failed: None,
            existing: None,
            resume,
            loaded_unknown: false,
        }
    }

    /// For a Gateway the user runs, where the transcript is out of reach, and where the turn
    /// runs as the Clawboo agent's own Gateway agent `agent` (see [`super::remote_agent`]):
    /// - a new session is created under the key `agent:<agent>:acp-bridge:<uuid>` (ACP
    ///   `session/new` `_meta.sessionKey`; without it OpenClaw 2026.9.6's bridge files it as
    ///   `acp-bridge:<id>`, which the Gateway gives its default agent). A resumed one keeps its
    ///   key: the bridge finds it in its own ledger by the session id.
    /// - a session loaded under another agent's key (a session of the Gateway's default agent,
    ///   from before agents of their own) or under the bare id (OpenClaw answers a load of an id
    ///   it does not know as if it knew it, filed under that id) is reported missing, so the
    ///   conversation starts afresh as this agent and says so.
    /// - the session's key, once the bridge names it, goes to `live`.
    pub fn on_existing_gateway(mut self, agent: &str, live: LiveSession) -> Self {
        let key = format!("agent:{agent}:acp-bridge:{}", uuid::Uuid::new_v4());
        self.inner.set_new_session_meta(serde_json::json!({ "sessionKey": key }));
        self.existing = Some(ExistingGateway { agent: agent.to_owned(), live });
        self
    }

    /// Reads the session key the bridge reports (`session_info_update`): this agent's session
    /// goes live; a resumed one under another key is noted as unknown.
    fn watch_session_key(&mut self, msg: &Value) {
        let Some(existing) = &self.existing else { return };
        let params = &msg["params"];
        let update = &params["update"];
        if msg["method"] != "session/update" || update["sessionUpdate"] != "session_info_update" {
            return;
        }
        let Some(key) = update["_meta"]["sessionKey"].as_str() else { return };
        let mine = key.starts_with(&format!("agent:{}:", existing.agent));
        if mine {
            existing.live.set(key.to_owned());
        } else if self.resume.as_deref().is_some_and(|resume| params["sessionId"] == resume) {
            self.loaded_unknown = true;
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
            self.watch_session_key(&msg);
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
