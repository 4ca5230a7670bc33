//! The chat service end to end over real SQLite, with a scripted runtime standing in for a
//! model: storing, streaming, resuming, resetting, cancelling, permissions and restarts.

mod common;

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::attention::Decision;
use clawboo_engine::chat::{ChatRole, RunErrorCode, RunStatus};
use clawboo_engine::home::RunningKind;
use clawboo_engine::runtimes::{
    Capabilities, HistoryMode, PendingPermission, PermissionAnswer, PersonaDelivery, RunChannels, RunEvent, RunOutcome,
    RunResult, Runtime, TurnInput,
};
use clawboo_engine::{Engine, EngineEvent, ErrorCode};
use clawboo_testkit::wait_for;
use tokio::sync::oneshot;

/// Answers by the message it gets: "flood N", "ask", "wait", "wait, then fail", "fail", "blank"
/// (whitespace only), else a greeting.
/// `refusing`: the runtime cannot take a run now, as an OpenClaw Gateway whose link is lost.
#[derive(Default)]
struct ScriptedRuntime {
    inputs: Mutex<Vec<TurnInput>>,
    refusing: std::sync::atomic::AtomicBool,
}

impl Runtime for ScriptedRuntime {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            streams_text: true,
            context_window: Some(200_000),
            history: HistoryMode::ClawbooTranscript,
            persona: PersonaDelivery::OwnSetup,
            setup_change: clawboo_engine::runtimes::SetupChange::AppliedOnResume,
            team_history: clawboo_engine::runtimes::TeamHistory {
                leader: clawboo_engine::runtimes::TurnHistory::ContinueRoom,
                teammate: clawboo_engine::runtimes::TurnHistory::Fresh,
            },
        }
    }

    fn ready(&self, agent: &clawboo_engine::agents::Agent) -> clawboo_engine::Result<()> {
        if self.refusing.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(clawboo_engine::Error::GatewayUnreachable(format!("@{} cannot run there now.", agent.handle)));
        }
        Ok(())
    }

    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> Pin<Box<dyn std::future::Future<Output = clawboo_engine::Result<RunResult>> + Send + '_>> {
        self.inputs.lock().unwrap().push(input.clone());
        Box::pin(async move {
            let message = input.message.clone();
            channels.emit(RunEvent::SessionStarted { session_id: format!("session-for-{}", input.run_id) });
            if let Some(n) = message.strip_prefix("flood ") {
                for i in 0..n.parse::<u32>().unwrap() {
                    channels.emit(RunEvent::TextDelta { text: if i == 0 { "x".into() } else { String::new() } });
                }
                return Ok(RunResult::succeeded());
            }
            match message.as_str() {
                "ask" => {
                    let (reply, answer) = oneshot::channel();
                    channels.emit(RunEvent::PermissionRequest {
                        request_id: "p1".into(),
                        tool: "write_file".into(),
                        input: serde_json::json!({"path": "notes.md"}),
                        description: "write notes.md".into(),
                    });
                    channels
                        .permissions
                        .send(PendingPermission {
                            request_id: "p1".into(),
                            tool: "write_file".into(),
                            input: serde_json::json!({"path": "notes.md"}),
                            description: "write notes.md".into(),
                            reply,
                        })
                        .unwrap();
                    let PermissionAnswer { allow } = answer.await.unwrap();
                    channels.emit(RunEvent::TextDelta { text: format!("allowed={allow}") });
                    Ok(RunResult::succeeded())
                }
                "wait" => {
                    let mut cancel = channels.cancel.clone();
                    let _ = cancel.wait_for(|c| *c).await;
                    Ok(RunResult::with_outcome(RunOutcome::Cancelled, "Stopped by the user."))
                }
                // Meets the user's Stop as a failure (a CLI whose call was cut off by it).
                "wait, then fail" => {
                    let mut cancel = channels.cancel.clone();
                    let _ = cancel.wait_for(|c| *c).await;
                    Ok(RunResult::failed("the connection to the model was cut"))
                }
                "fail" => Ok(RunResult::failed("the model said no")),
                "blank" => {
                    channels.emit(RunEvent::TextDelta { text: " \n\t ".into() });
                    Ok(RunResult::succeeded())
                }
                _ => {
                    channels.emit(RunEvent::TextDelta { text: "Hello, ".into() });
                    channels.emit(RunEvent::TextDelta { text: "friend.".into() });
                    Ok(RunResult::succeeded())
                }
            }
        })
    }
}

/// The shared fixture's engine on the scripted runtime, with one agent (@scout).
struct Fixture {
    data: common::Fixture,
    engine: Engine,
    runtime: Arc<ScriptedRuntime>,
    agent_id: String,
}

fn fixture() -> Fixture {
    let data = common::Fixture::new();
    let runtime = Arc::new(ScriptedRuntime::default());
    let engine = data.open_with(vec![runtime.clone()]);
    let agent_id = common::add_agent(&engine, native_agent("scout"));
    Fixture { data, engine, runtime, agent_id }
}

fn native_agent(handle: &str) -> NewAgent {
    NewAgent { name: "Scout".into(), model: "some-model".into(), ..common::new_agent(handle, RuntimeKind::Native) }
}

impl Fixture {
    fn send_and_wait(&self, text: &str) -> clawboo_engine::chat::RunSummary {
        let outcome = self.engine.chat().send(&self.agent_id, text).unwrap();
        let run = outcome.run.expect("a run");
        self.wait_done(&run.id)
    }

    fn wait_done(&self, run_id: &str) -> clawboo_engine::chat::RunSummary {
        wait_for("the run to finish", Duration::from_secs(10), || {
            let history = self.engine.chat().history_page(&self.agent_id, None, 500).unwrap();
            history.runs.into_iter().find(|r| r.id == run_id && r.status != RunStatus::Running)
        })
    }
}

#[test]
fn a_message_runs_and_the_reply_is_stored_with_its_events() {
    let f = fixture();
    let mut events = f.engine.events().subscribe();
    let run = f.send_and_wait("hi there");
    assert_eq!(run.status, RunStatus::Succeeded);

    let history = f.engine.chat().history_page(&f.agent_id, None, 500).unwrap();
    let roles: Vec<_> = history.messages.iter().map(|m| (m.role, m.content.as_str())).collect();
    assert_eq!(roles, [(ChatRole::User, "hi there"), (ChatRole::Assistant, "Hello, friend.")]);
    assert!(history.active_run.is_none());

    let activity = f.engine.chat().run_activity(&run.id).unwrap();
    let seqs: Vec<_> = activity.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, (1..=activity.len() as u32).collect::<Vec<_>>(), "events are numbered in order");
    assert!(matches!(activity.last().unwrap().event, RunEvent::Finished { outcome: RunOutcome::Succeeded, .. }));

    // The run's row is stored before its news is published: read on until the run's end is heard.
    let mut published = Vec::new();
    wait_for("the run's end to be published", Duration::from_secs(10), || {
        published.extend(std::iter::from_fn(|| events.try_recv().ok()));
        published
            .iter()
            .any(|e| matches!(e, EngineEvent::RunChanged { run, .. } if run.status != RunStatus::Running))
            .then_some(())
    });
    assert!(published.iter().any(
        |e| matches!(e, EngineEvent::RunEvent { record, .. } if matches!(record.event, RunEvent::TextDelta { .. }))
    ));
    // The chat's own news, in order: the message and its run, then the reply and the run's end.
    let chat_news: Vec<String> = published
        .iter()
        .filter_map(|e| match e {
            EngineEvent::ChatMessageAdded { message, .. } => {
                Some(format!("message {} {:?}", message.seq, message.role))
            }
            EngineEvent::RunChanged { run, .. } => Some(format!("run {:?}", run.status)),
            _ => None,
        })
        .collect();
    assert_eq!(chat_news, ["message 1 User", "run Running", "message 2 Assistant", "run Succeeded"]);
}

#[test]
fn the_events_carry_the_stored_rows_and_a_send_on_a_run_s_end_is_taken() {
    let f = fixture();
    let mut events = f.engine.events().subscribe();
    let mut checked = 0;
    for text in ["one", "fail", "/reset", "two"] {
        f.engine.chat().send(&f.agent_id, text).unwrap();
        loop {
            match events.blocking_recv().unwrap() {
                EngineEvent::ChatMessageAdded { agent_id, message } => {
                    let page = f.engine.chat().history_page(&agent_id, Some(message.seq + 1), 1).unwrap();
                    assert_eq!(page.messages, std::slice::from_ref(&message));
                    checked += 1;
                    if message.role == ChatRole::Notice {
                        break;
                    }
                }
                EngineEvent::RunChanged { run, .. } => {
                    checked += 1;
                    // The run's slot is free by now: the next send goes through.
                    if run.status != RunStatus::Running {
                        assert_eq!(f.engine.chat().run(&run.id).unwrap(), run);
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    // one: message, run, reply, end; fail: message, run, end; /reset: notice; two: four.
    assert_eq!(checked, 12);
}

#[test]
fn an_event_is_published_only_once_its_row_is_committed() {
    let f = fixture();
    let mut events = f.engine.events().subscribe();
    let chat = f.engine.chat().clone();
    let agent_id = f.agent_id.clone();
    // A listener that reads the store the moment it hears: it must always find what it heard of.
    let listener = std::thread::spawn(move || {
        let mut seen = 0;
        while seen < 8 {
            match events.blocking_recv().unwrap() {
                EngineEvent::ChatMessageAdded { message, .. } => {
                    let page = chat.history_page(&agent_id, None, 500).unwrap();
                    assert!(page.messages.iter().any(|m| m.id == message.id), "message {} not yet stored", message.seq);
                    seen += 1;
                }
                EngineEvent::RunChanged { run, .. } => {
                    let stored = chat.run(&run.id).expect("the run's row is stored");
                    if run.status != RunStatus::Running {
                        assert_eq!(stored, run, "the run's end is stored");
                    }
                    seen += 1;
                }
                _ => {}
            }
        }
    });
    f.send_and_wait("one");
    f.send_and_wait("two");
    listener.join().unwrap();
}

#[test]
fn history_comes_in_pages_newest_first_without_gaps_or_overlaps() {
    let f = fixture();
    f.send_and_wait("fail");
    f.send_and_wait("hello");
    for _ in 0..117 {
        f.engine.chat().send(&f.agent_id, "/reset").unwrap();
    }
    // 1: "fail", 2: "hello", 3: its reply, 4..=120: notices.
    let chat = f.engine.chat();
    let newest = chat.history_page(&f.agent_id, None, 50).unwrap();
    let seqs = |p: &clawboo_engine::chat::ChatPage| p.messages.iter().map(|m| m.seq).collect::<Vec<_>>();
    assert_eq!(seqs(&newest), (71..=120).collect::<Vec<_>>(), "the newest 50, oldest first");
    assert!(newest.has_older);
    assert!(newest.runs.is_empty(), "notices refer to no run");
    let middle = chat.history_page(&f.agent_id, Some(71), 50).unwrap();
    assert_eq!(seqs(&middle), (21..=70).collect::<Vec<_>>());
    let oldest = chat.history_page(&f.agent_id, Some(21), 50).unwrap();
    assert_eq!(seqs(&oldest), (1..=20).collect::<Vec<_>>());
    assert!(!oldest.has_older);
    let statuses: Vec<_> = oldest.runs.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [RunStatus::Failed, RunStatus::Succeeded], "each run the page refers to, once");
    assert_eq!(oldest.messages[2].run_id.as_deref(), Some(oldest.runs[1].id.as_str()));
    assert!(chat.history_page(&f.agent_id, Some(1), 50).unwrap().messages.is_empty());

    let err = chat.history_page(&f.agent_id, None, 0).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert_eq!(chat.history_page("nobody", None, 50).unwrap_err().code(), ErrorCode::NotFound);
}

#[test]
fn the_active_run_is_found_whichever_page_its_message_is_on() {
    let f = fixture();
    let run = f.engine.chat().send(&f.agent_id, "wait").unwrap().run.unwrap();
    let page = f.engine.chat().history_page(&f.agent_id, None, 5).unwrap();
    assert_eq!(page.active_run.as_ref().map(|r| r.id.as_str()), Some(run.id.as_str()));
    f.engine.chat().cancel(&run.id).unwrap();
    f.wait_done(&run.id);
    assert!(f.engine.chat().history_page(&f.agent_id, None, 5).unwrap().active_run.is_none());
}

#[test]
fn the_next_turn_carries_the_conversation_and_resumes_the_session() {
    let f = fixture();
    // Edited by the user: Clawboo's own starting text would not be sent at all.
    let bootstrap = "# First run\n\nIntroduce yourself in one line.\n";
    f.engine.agents().write_file(&f.agent_id, "BOOTSTRAP.md", bootstrap).unwrap();
    let first = f.send_and_wait("one");
    f.send_and_wait("two");
    let inputs = f.runtime.inputs.lock().unwrap();
    assert!(inputs[0].transcript.is_empty());
    assert_eq!(inputs[0].resume_session, None);
    assert_eq!(inputs[1].transcript.len(), 1);
    // The carried first message keeps the workspace files it went out with (BOOTSTRAP.md), as
    // a runtime's own session would; the second turn does not repeat them.
    let carried = &inputs[1].transcript[0].user;
    assert!(carried.starts_with("## Workspace files\n") && carried.contains("# First run"), "{carried}");
    assert!(carried.ends_with("\n\none"), "{carried}");
    assert_eq!(inputs[0].preamble.as_deref().map(|p| p.contains("# First run")), Some(true));
    assert!(!inputs[1].preamble.as_deref().unwrap_or_default().contains("# First run"));
    assert_eq!(&*inputs[1].transcript[0].assistant, "Hello, friend.");
    assert_eq!(inputs[1].resume_session.as_deref(), Some(format!("session-for-{}", first.id).as_str()));
    assert_eq!(inputs[1].message, "two", "the message is sent as typed, with nothing piled on it");
}

/// A reply of whitespace alone is not stored, so never carried: a carried text is never blank
/// (`TranscriptTurn`), and a runtime tells an empty one by its length alone.
#[test]
fn a_blank_reply_is_neither_stored_nor_carried() {
    let f = fixture();
    f.send_and_wait("blank");
    f.send_and_wait("two");
    let inputs = f.runtime.inputs.lock().unwrap();
    assert!(inputs[1].transcript.is_empty(), "{:?}", inputs[1].transcript);
    let messages = f.engine.chat().history_page(&f.agent_id, None, 50).unwrap().messages;
    let mut texts: Vec<_> = messages.iter().map(|m| m.content.as_str()).collect();
    texts.sort_unstable();
    assert_eq!(texts, ["Hello, friend.", "blank", "two"], "no reply stored for the blank one");
}

/// A one-to-one run has no team: no hand-off and no peer room are offered (`run::prepare::offer`).
#[test]
fn a_one_to_one_run_is_offered_no_team_tools() {
    use clawboo_engine::context::ToolName;
    let f = fixture();
    f.send_and_wait("one");
    let input = f.runtime.inputs.lock().unwrap()[0].clone();
    let offered: Vec<ToolName> = input.tools.expect("Clawboo's tools").specs.iter().map(|s| s.name).collect();
    for tool in [ToolName::Handoff, ToolName::PeerPost, ToolName::PeerRead] {
        assert!(!offered.contains(&tool), "{} offered: {offered:?}", tool.as_str());
    }
    assert!(offered.contains(&ToolName::MemorySearch) && offered.contains(&ToolName::AskUser), "{offered:?}");
}

/// A workspace file still holding the starting text Clawboo wrote says nothing about this agent:
/// it is not sent (and "What this agent saw" says why), until the user edits it.
#[test]
fn unedited_starting_files_are_not_sent() {
    use clawboo_engine::context::files::FileStatus;
    use clawboo_engine::vocab::AgentFileName;
    let f = fixture();
    let first = f.send_and_wait("one");
    let input = f.runtime.inputs.lock().unwrap()[0].clone();
    let given = [&input.setup, &input.persona, &input.preamble].map(|p| p.clone().unwrap_or_default()).join("\n");
    for starter in ["# First run", "# About the user", "# Operating instructions", "# Identity", "## Memory"] {
        assert!(!given.contains(starter), "{starter} went out: {given}");
    }
    let seen = f.engine.chat().chat_run_context(&first.id).unwrap();
    let status = |file| seen.files.iter().find(|d| d.file == file).unwrap().status;
    for file in [AgentFileName::Bootstrap, AgentFileName::User, AgentFileName::Agents, AgentFileName::Identity] {
        assert_eq!(status(file), FileStatus::Unedited, "{file:?}");
    }
    assert_eq!(status(AgentFileName::Soul), FileStatus::Sent, "the persona goes, whoever wrote it");

    f.engine.agents().write_file(&f.agent_id, "USER.md", "# About the user\n\nAda, who likes tables.\n").unwrap();
    let second = f.send_and_wait("two");
    let seen = f.engine.chat().chat_run_context(&second.id).unwrap();
    let user = seen.files.iter().find(|d| d.file == AgentFileName::User).unwrap();
    assert_eq!(user.status, FileStatus::Sent, "once edited, it goes");
}

#[test]
fn reset_ends_the_carried_session_but_keeps_the_messages() {
    let f = fixture();
    f.send_and_wait("one");
    let reset = f.engine.chat().send(&f.agent_id, "/reset").unwrap();
    assert!(reset.run.is_none());
    assert_eq!(reset.message.role, ChatRole::Notice);
    f.send_and_wait("two");
    let inputs = f.runtime.inputs.lock().unwrap();
    assert!(inputs[1].transcript.is_empty(), "nothing from before the reset is carried");
    assert_eq!(inputs[1].resume_session, None);
    let history = f.engine.chat().history_page(&f.agent_id, None, 500).unwrap();
    assert_eq!(history.messages.len(), 5, "one, its reply, the notice, two, its reply");
    f.engine.chat().send(&f.agent_id, "/new").unwrap();
    assert_eq!(
        f.engine.chat().history_page(&f.agent_id, None, 500).unwrap().messages.last().unwrap().role,
        ChatRole::Notice
    );
}

#[test]
fn stop_cancels_the_run() {
    let f = fixture();
    let run = f.engine.chat().send(&f.agent_id, "wait").unwrap().run.unwrap();
    let err = f.engine.chat().send(&f.agent_id, "again").unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput, "one run at a time per agent");
    f.engine.chat().cancel(&run.id).unwrap();
    let done = f.wait_done(&run.id);
    assert_eq!(done.status, RunStatus::Cancelled);
    let late =
        wait_for("the run to leave the active list", Duration::from_secs(5), || f.engine.chat().cancel(&run.id).err());
    assert_eq!(late.code(), ErrorCode::RunNotActive);
}

#[test]
fn permission_questions_wait_for_the_user() {
    let f = fixture();
    let run = f.engine.chat().send(&f.agent_id, "ask").unwrap().run.unwrap();
    wait_for("the question", Duration::from_secs(5), || {
        f.engine.answer_permission(&run.id, "p1", Decision::AllowOnce).ok()
    });
    f.wait_done(&run.id);
    let reply = f.engine.chat().history_page(&f.agent_id, None, 500).unwrap().messages.last().unwrap().content.clone();
    assert_eq!(reply, "allowed=true");
}

#[test]
fn a_failed_run_keeps_its_error_and_stores_no_reply() {
    let f = fixture();
    let run = f.send_and_wait("fail");
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(run.error.as_deref(), Some("the model said no"));
    let history = f.engine.chat().history_page(&f.agent_id, None, 500).unwrap();
    assert_eq!(history.messages.len(), 1);
}

#[test]
fn a_failed_run_keeps_its_error_code_after_a_restart() {
    let f = fixture();
    let run = f.send_and_wait("fail");
    assert_eq!(run.error_code, Some(RunErrorCode::RunFailed));
    let Fixture { data, engine, runtime, agent_id } = f;
    drop(engine);
    let engine = data.open_with(vec![runtime]);
    let history = engine.chat().history_page(&agent_id, None, 500).unwrap();
    let stored = history.runs.iter().find(|r| r.id == run.id).unwrap();
    assert_eq!((stored.status, stored.error_code), (RunStatus::Failed, Some(RunErrorCode::RunFailed)));
}

#[test]
fn home_lists_a_run_while_it_goes_with_who_what_and_where() {
    let f = fixture();
    let run = f.engine.chat().send(&f.agent_id, "wait").unwrap().run.unwrap();
    let running = f.engine.home_summary().unwrap().running;
    assert_eq!(running.len(), 1, "{running:?}");
    let work = &running[0];
    assert_eq!((work.run_id.as_str(), work.agent_id.as_str()), (run.id.as_str(), f.agent_id.as_str()));
    assert_eq!((work.kind, work.agent_name.as_str(), work.what.as_str()), (RunningKind::Chat, "Scout", "wait"));
    assert_eq!(work.started_at, run.started_at);
    assert!(
        work.team_id.is_none() && work.room_id.is_none() && work.card_id.is_none(),
        "a chat's run shows in its chat"
    );
    f.engine.chat().cancel(&run.id).unwrap();
    f.wait_done(&run.id);
    let summary = f.engine.home_summary().unwrap();
    assert!(summary.running.is_empty(), "{:?}", summary.running);
    assert_eq!((summary.open_requests, summary.blocked_cards.len()), (0, 0));
}

#[test]
fn every_event_of_a_flood_is_stored() {
    let f = fixture();
    let run = f.send_and_wait("flood 20000");
    let activity = f.engine.chat().run_activity(&run.id).unwrap();
    // SessionStarted + 20,000 deltas + Finished.
    assert_eq!(activity.len(), 20_002);
}

#[test]
fn of_two_sends_at_once_one_is_refused_and_the_other_can_be_cancelled() {
    let f = fixture();
    for _ in 0..20 {
        let barrier = std::sync::Barrier::new(2);
        let (a, b) = std::thread::scope(|scope| {
            let send = || {
                barrier.wait();
                f.engine.chat().send(&f.agent_id, "wait")
            };
            let a = scope.spawn(send);
            let b = scope.spawn(send);
            (a.join().unwrap(), b.join().unwrap())
        });
        let (run, refused) = match (a, b) {
            (Ok(sent), Err(e)) | (Err(e), Ok(sent)) => (sent.run.unwrap(), e),
            (a, b) => panic!("exactly one send must win: {:?} / {:?}", a.map(|_| ()), b.map(|_| ())),
        };
        assert_eq!(refused.code(), ErrorCode::InvalidInput);
        f.engine.chat().cancel(&run.id).unwrap();
        assert_eq!(f.wait_done(&run.id).status, RunStatus::Cancelled);
        wait_for("the slot to be free", Duration::from_secs(5), || f.engine.chat().cancel(&run.id).err());
    }
}

#[test]
fn deleting_an_agent_stops_its_run_first() {
    let f = fixture();
    let run = f.engine.chat().send(&f.agent_id, "wait").unwrap().run.unwrap();
    f.engine.delete_agent(&f.agent_id).unwrap();
    // Delete returned only once the run had ended.
    assert_eq!(f.engine.chat().cancel(&run.id).unwrap_err().code(), ErrorCode::RunNotActive);
    assert_eq!(f.engine.agents().get(&f.agent_id).unwrap_err().code(), ErrorCode::NotFound);
    assert!(!f.data.data_dir().join(format!("agents/{}", f.agent_id)).exists());
    assert_eq!(f.engine.chat().send(&f.agent_id, "hello").unwrap_err().code(), ErrorCode::NotFound);
}

#[cfg(unix)]
#[test]
fn a_cli_agent_whose_program_is_missing_gets_a_clear_error() {
    let f = fixture();
    let agent = f
        .engine
        .agents()
        .create(NewAgent { runtime: RuntimeKind::ClaudeCode, ..native_agent("claude-agent") })
        .unwrap();
    // Set while it was there (the path is checked then), removed since.
    let program = f.data.path().join("claude");
    std::fs::write(&program, "#!/bin/sh\necho '2.1.332 (Claude Code)'\n").unwrap();
    std::fs::set_permissions(&program, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let runtimes = f.engine.runtimes();
    f.engine.block_on(runtimes.set_custom_path(RuntimeKind::ClaudeCode, Some(program.to_str().unwrap()))).unwrap();
    std::fs::remove_file(&program).unwrap();
    let err = f.engine.chat().send(&agent.id, "hello").unwrap_err();
    assert!(matches!(err.code(), ErrorCode::RuntimeNotFound), "{err}");
    assert!(err.to_string().contains(program.to_str().unwrap()));
    assert!(f.engine.chat().history_page(&agent.id, None, 500).unwrap().messages.is_empty(), "nothing half-stored");
}

#[test]
fn an_agent_that_cannot_run_now_says_why_even_while_its_last_run_holds_its_slot() {
    let f = fixture();
    // A run still ending (as one cut off by a lost Gateway, while its runtime tears down).
    let run = f.engine.chat().send(&f.agent_id, "wait").unwrap().run.unwrap();
    f.runtime.refusing.store(true, std::sync::atomic::Ordering::SeqCst);
    let err = f.engine.chat().send(&f.agent_id, "are you there?").unwrap_err();
    assert_eq!(err.code(), ErrorCode::GatewayUnreachable, "the reason, not \"still answering\": {err}");
    // Once it can run again, the held slot is what it hears.
    f.runtime.refusing.store(false, std::sync::atomic::Ordering::SeqCst);
    let busy = f.engine.chat().send(&f.agent_id, "are you there?").unwrap_err();
    assert!(busy.to_string().contains("still answering"), "{busy}");
    f.engine.chat().cancel(&run.id).unwrap();
    f.wait_done(&run.id);
    let history = f.engine.chat().history_page(&f.agent_id, None, 500).unwrap();
    assert_eq!(
        history.messages.iter().filter(|m| m.role == ChatRole::User).count(),
        1,
        "nothing of the refused sends stored"
    );
}

#[test]
fn a_run_the_user_stopped_ends_stopped_even_when_its_runtime_calls_it_a_failure() {
    let f = fixture();
    let run = f.engine.chat().send(&f.agent_id, "wait, then fail").unwrap().run.unwrap();
    f.engine.chat().cancel(&run.id).unwrap();
    let ended = f.wait_done(&run.id);
    assert_eq!((ended.status, ended.error.as_deref()), (RunStatus::Cancelled, Some("Stopped by the user.")));
}

#[test]
fn the_benchmarks_seed_fills_a_chat_the_app_reads_back() {
    let f = fixture();
    clawboo_testkit::seed_chat(&f.engine.config().database_path(), &f.agent_id, 30);
    clawboo_testkit::seed_chat(&f.engine.config().database_path(), &f.agent_id, 5);
    let page = f.engine.chat().history_page(&f.agent_id, None, 500).unwrap();
    assert_eq!(page.messages.len(), 70);
    assert_eq!(page.messages.iter().filter(|m| m.role == ChatRole::User).count(), 35);
    assert!(page.runs.iter().all(|r| r.status == RunStatus::Succeeded));
}
