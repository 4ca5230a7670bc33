//! The drive loop's promise to a runtime that settles (`RunChannels::settle`): every event it
//! sent is taken, and a stop the guards call for is in its `cancel`, before it goes on. A
//! runtime here whose work never waits (as a fast reply on a busy machine can be) makes the same
//! tool call again and again: the run ends at the fifth, with no sixth started.

use std::sync::Arc;

use super::*;
use crate::agents::RuntimeKind;
use crate::guard::Guard;
use crate::runtimes::Capabilities;
use crate::store::Store;
use crate::vocab::{RunStatus, RunSummary};

const SEED: &str = "
    INSERT INTO agents (id, name, handle, tint, runtime, model, created_at, updated_at)
        VALUES ('a1', 'Ada', 'ada', '#000', 'native', 'claude-sonnet-4-5', 0, 0);
    INSERT INTO conversations (id, agent_id, kind, epoch, created_at) VALUES ('direct', 'a1', 'direct', 0, 0);
    INSERT INTO runs (id, conversation_id, agent_id, runtime, status, started_at)
        VALUES ('r1', 'direct', 'a1', 'native', 'running', 0);
";

/// Calls `list_files` with the same input up to ten times, settling after each call and
/// stopping when told to; never waits for anything else.
struct Looping {
    settles: bool,
    started: std::sync::atomic::AtomicUsize,
}

impl Runtime for Looping {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> Capabilities {
        crate::runtimes::native::CAPABILITIES
    }

    fn run(
        &self,
        _input: TurnInput,
        channels: RunChannels,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = crate::error::Result<RunResult>> + Send + '_>> {
        Box::pin(async move {
            for i in 0..10 {
                if *channels.cancel.borrow() {
                    return Ok(RunResult::stopped_by_user());
                }
                self.started.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let call_id = format!("c{i}");
                let name = "list_files".to_string();
                channels.emit(RunEvent::ToolCallStarted {
                    call_id: call_id.clone(),
                    name,
                    input: serde_json::json!({}),
                });
                channels.emit(RunEvent::ToolResult { call_id, output: "SOUL.md".into(), is_error: false });
                if self.settles && channels.settle().await {
                    return Ok(RunResult::stopped_by_user());
                }
            }
            Ok(RunResult::succeeded())
        })
    }
}

fn input(dir: &std::path::Path) -> TurnInput {
    let agent = crate::agents::Agent {
        id: "a1".into(),
        name: "Ada".into(),
        handle: "ada".into(),
        description: String::new(),
        tint: "#000".into(),
        runtime: RuntimeKind::Native,
        model: "claude-sonnet-4-5".into(),
        approval_policy: crate::runtimes::ApprovalPolicy::AllowAll,
        provider: None,
        openclaw_gateway_url: None,
        sandbox: Default::default(),
        created_at: 0,
        updated_at: 0,
    };
    TurnInput {
        run_id: "r1".into(),
        approval: agent.approval_policy,
        agent,
        workspace: dir.to_owned(),
        homes: crate::runtimes::home::RuntimeHomes::for_agent_dir(dir),
        message: "Loop.".into(),
        persona: None,
        setup: None,
        resume_session: None,
        fork_session: false,
        preamble: None,
        tools: None,
        connectors: Vec::new(),
        transcript: Default::default(),
        program: None,
    }
}

/// The tool calls the run started, and how it ended.
fn drive_looping(settles: bool) -> (usize, Driven) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("clawboo.db")).unwrap());
    store.write(|tx| Ok(tx.execute_batch(SEED)?)).unwrap();
    let guard = Guard::new(store.clone());
    let summary = RunSummary {
        id: "r1".into(),
        agent_id: "a1".into(),
        runtime: RuntimeKind::Native,
        status: RunStatus::Running,
        error: None,
        error_code: None,
        started_at: 0,
        finished_at: None,
    };
    let mut recorder = Recorder::new(store, crate::events::EventBus::new(), &summary);
    let runtime = Looping { settles, started: Default::default() };
    let source = Source { agent_id: "a1".into(), run_id: Some("r1".into()), ..Default::default() };
    let (_user, cancel) = watch::channel(false);
    let turn = Turn { runtime: &runtime, input: input(dir.path()), cancel, source: &source, policies: Policies::CHAT };
    let services = RunServices { guard: Some(&guard), ..Default::default() };
    // One thread: nothing runs beside the loop, so only the drive loop's own order decides.
    let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let driven = tokio.block_on(drive(turn, &services, &mut recorder, || {}));
    (runtime.started.into_inner(), driven)
}

#[test]
fn a_runtime_that_settles_is_stopped_at_the_call_that_trips_the_guard() {
    let (started, driven) = drive_looping(true);
    assert_eq!(started, 5, "the fifth identical call ends the run");
    assert_eq!(driven.stop, Some(Stop::RepeatedToolCall { times: 5 }));
    assert_eq!(driven.result.outcome, RunOutcome::Cancelled);
    let note = driven.result.message.unwrap_or_default();
    assert!(note.contains("same call to list_files with the same input 5 times"), "{note}");
}

#[test]
fn a_runtime_that_never_settles_outruns_the_guard() {
    // Why Native settles: without it, all ten calls are made (and the run over) before the loop
    // sees the first.
    let (started, driven) = drive_looping(false);
    assert_eq!(started, 10);
    assert_eq!(driven.stop, None);
}
