//! The chat service's side of "edits always apply", over real SQLite with a scripted runtime:
//! what a turn hands the runtime when SOUL.md changed since its session started, by the
//! runtime's `SetupChange`, what the activity says, and that the fingerprint survives a
//! restart and is cleared by /reset. The real CLIs are driven in `edits_apply.rs`.

mod common;

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::chat::{RunStatus, RunSummary};
use clawboo_engine::runtimes::{
    Capabilities, HistoryMode, PersonaDelivery, RunChannels, RunEvent, RunResult, Runtime, SetupChange, TurnInput,
};
use clawboo_engine::Engine;
use clawboo_testkit::wait_for;

/// A runtime that keeps its sessions (`session-N`) and answers "fail" with a failure before any
/// session. It stands in for the Native adapter, which needs no program to be found.
struct Scripted {
    change: SetupChange,
    inputs: Mutex<Vec<TurnInput>>,
}

impl Runtime for Scripted {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            streams_text: true,
            context_window: None,
            history: HistoryMode::RuntimeSession,
            persona: PersonaDelivery::SentByClawboo,
            setup_change: self.change,
            team_history: clawboo_engine::runtimes::TeamHistory {
                leader: clawboo_engine::runtimes::TurnHistory::ContinueRoom,
                teammate: clawboo_engine::runtimes::TurnHistory::Fresh,
            },
        }
    }

    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> Pin<Box<dyn std::future::Future<Output = clawboo_engine::Result<RunResult>> + Send + '_>> {
        let mut inputs = self.inputs.lock().unwrap();
        inputs.push(input.clone());
        let session = match &input.resume_session {
            Some(resumed) if !input.fork_session => resumed.clone(),
            _ => format!("session-{}", inputs.len()),
        };
        Box::pin(async move {
            if input.message == "fail" {
                return Ok(RunResult::failed("the model said no"));
            }
            channels.emit(RunEvent::SessionStarted { session_id: session });
            channels.emit(RunEvent::TextDelta { text: format!("reply to {}", input.message) });
            // "compact…" (or a team turn's message saying it): the runtime summarised its
            // session during the turn, as Claude Code and Codex report it.
            Ok(RunResult { compacted: input.message.contains("compact"), ..RunResult::succeeded() })
        })
    }
}

/// The shared fixture's engine on the scripted runtime, with the agent @pip.
struct Fixture {
    data: common::Fixture,
    engine: Engine,
    runtime: Arc<Scripted>,
    agent_id: String,
}

/// The engine on `data`; `agent_id` is @pip's after a restart, None to make it.
fn open(data: common::Fixture, change: SetupChange, agent_id: Option<String>) -> Fixture {
    let runtime = Arc::new(Scripted { change, inputs: Mutex::default() });
    let engine = data.open_with(vec![runtime.clone()]);
    let agent_id = agent_id.unwrap_or_else(|| {
        common::add_agent(&engine, NewAgent { name: "Pip".into(), ..common::new_agent("pip", RuntimeKind::Native) })
    });
    Fixture { data, engine, runtime, agent_id }
}

impl Fixture {
    fn soul(&self, text: &str) {
        self.engine.agents().write_file(&self.agent_id, "SOUL.md", text).unwrap();
    }

    fn turn(&self, text: &str) -> (RunSummary, Vec<String>) {
        let run = self.engine.chat().send(&self.agent_id, text).unwrap().run.unwrap();
        let done = wait_for("the run to finish", Duration::from_secs(10), || {
            let history = self.engine.chat().history_page(&self.agent_id, None, 500).unwrap();
            history.runs.into_iter().find(|r| r.id == run.id && r.status != RunStatus::Running)
        });
        let warnings = self
            .engine
            .chat()
            .run_activity(&run.id)
            .unwrap()
            .into_iter()
            .filter_map(|r| match r.event {
                RunEvent::Warning { message } => Some(message),
                _ => None,
            })
            .collect();
        (done, warnings)
    }

    fn input(&self, turn: usize) -> TurnInput {
        self.runtime.inputs.lock().unwrap()[turn - 1].clone()
    }
}

fn two_turns_then_an_edit(change: SetupChange) -> (Fixture, Vec<String>) {
    let f = open(common::Fixture::new(), change, None);
    f.soul("You are Pip. OLD");
    f.turn("one");
    let (_, warnings) = f.turn("two");
    assert!(warnings.is_empty());
    assert_eq!(f.input(2).resume_session.as_deref(), Some("session-1"));
    f.soul("You are Pip. NEW");
    let (_, warnings) = f.turn("three");
    // A Native agent: its persona is the setup Clawboo builds its system prompt from.
    assert_eq!(f.input(3).setup.as_deref().map(|s| s.lines().next().unwrap_or_default()), Some("You are Pip. NEW"));
    (f, warnings)
}

#[test]
fn a_runtime_that_keeps_its_setup_gets_a_fresh_session_with_the_conversation() {
    let (f, warnings) = two_turns_then_an_edit(SetupChange::FreshSession);
    let third = f.input(3);
    assert_eq!(third.resume_session, None);
    assert!(!third.fork_session);
    let carried: Vec<_> = third.transcript.iter().map(|t| (&*t.user, &*t.assistant)).collect();
    assert_eq!(carried, [("one", "reply to one"), ("two", "reply to two")]);
    assert_eq!(third.message, "three", "the message goes as typed");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("SOUL.md changed since this Native"), "{warnings:?}");
    assert!(
        warnings[0].ends_with(
            "session started: started a fresh session carrying the conversation forward (4 earlier messages)."
        ),
        "{warnings:?}"
    );
    let (_, warnings) = f.turn("four");
    assert!(warnings.is_empty());
    assert_eq!(f.input(4).resume_session.as_deref(), Some("session-3"), "the fresh session is resumed");
    assert!(f.input(4).transcript.is_empty());
}

#[test]
fn a_runtime_that_can_fork_branches_the_session() {
    let (f, warnings) = two_turns_then_an_edit(SetupChange::Fork);
    let third = f.input(3);
    assert_eq!(third.resume_session.as_deref(), Some("session-1"));
    assert!(third.fork_session);
    assert!(third.transcript.is_empty(), "the fork keeps its own history");
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("session started: continued in a new session branched from it"), "{warnings:?}");
    f.turn("four");
    assert_eq!(f.input(4).resume_session.as_deref(), Some("session-3"), "the fork is resumed");
    assert!(!f.input(4).fork_session);
}

#[test]
fn a_runtime_that_applies_edits_keeps_resuming() {
    let (f, warnings) = two_turns_then_an_edit(SetupChange::AppliedOnResume);
    assert!(warnings.is_empty());
    assert_eq!(f.input(3).resume_session.as_deref(), Some("session-1"));
    assert!(!f.input(3).fork_session && f.input(3).transcript.is_empty());
}

#[test]
fn a_turn_that_failed_before_its_session_leaves_the_edit_pending() {
    let f = open(common::Fixture::new(), SetupChange::FreshSession, None);
    f.soul("OLD");
    f.turn("one");
    f.soul("NEW");
    let (run, warnings) = f.turn("fail");
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(warnings.len(), 1);
    let (_, warnings) = f.turn("again");
    assert_eq!(warnings.len(), 1, "the old session is still not resumed: {warnings:?}");
    assert_eq!(f.input(3).resume_session, None);
    assert_eq!(f.input(3).transcript.len(), 1, "the failed message had no reply and is not carried");
}

#[test]
fn the_fingerprint_survives_a_restart_and_reset_clears_it() {
    let f = open(common::Fixture::new(), SetupChange::FreshSession, None);
    f.soul("OLD");
    f.turn("one");
    let Fixture { data, engine, agent_id, .. } = f;
    drop(engine);

    let f = open(data, SetupChange::FreshSession, Some(agent_id));
    f.soul("NEW");
    let (_, warnings) = f.turn("two");
    assert_eq!(warnings.len(), 1, "the edit made while closed is seen after reopening");

    f.soul("NEWER");
    f.engine.chat().send(&f.agent_id, "/reset").unwrap();
    let (_, warnings) = f.turn("three");
    assert!(warnings.is_empty(), "after /reset a new session starts anyway: nothing to say");
    assert_eq!(f.input(2).resume_session, None);
    assert!(f.input(2).transcript.is_empty());
}

/// The workspace files a turn carried (what "What this agent saw" says was sent).
fn sent_files(f: &Fixture, turn: usize) -> Vec<&'static str> {
    let run_id = f.input(turn).run_id;
    let seen = f.engine.chat().chat_run_context(&run_id).unwrap();
    seen.files
        .iter()
        .filter(|d| d.status == clawboo_engine::context::files::FileStatus::Sent)
        .filter(|d| d.route == clawboo_engine::context::files::FileRoute::Reference)
        .map(|d| d.file.as_str())
        .collect()
}

#[test]
fn a_session_keeps_what_it_was_given_across_a_restart_and_a_new_session_gets_it_all_again() {
    let f = open(common::Fixture::new(), SetupChange::AppliedOnResume, None);
    f.engine.agents().write_file(&f.agent_id, "BOOTSTRAP.md", "Say hello first. BOOT-1").unwrap();
    f.turn("one");
    assert!(f.input(1).preamble.unwrap_or_default().contains("BOOT-1"));
    assert_eq!(sent_files(&f, 1), ["BOOTSTRAP.md"]);
    let Fixture { data, engine, agent_id, .. } = f;
    drop(engine);

    // Reopened: the session it resumes already holds BOOTSTRAP.md.
    let f = open(data, SetupChange::AppliedOnResume, Some(agent_id));
    f.turn("two");
    assert_eq!(f.input(1).resume_session.as_deref(), Some("session-1"));
    assert!(!f.input(1).preamble.unwrap_or_default().contains("BOOT-1"), "not sent again");
    assert!(sent_files(&f, 1).is_empty());

    // A turn that fails records nothing: the edit it carried goes again next time.
    f.engine.agents().write_file(&f.agent_id, "BOOTSTRAP.md", "Now ask about hours. BOOT-2").unwrap();
    let (run, _) = f.turn("fail");
    assert_eq!(run.status, RunStatus::Failed);
    assert!(f.input(2).preamble.unwrap_or_default().contains("BOOT-2"));
    f.turn("three");
    assert!(f.input(3).preamble.unwrap_or_default().contains("BOOT-2"), "the failed turn's delivery did not count");
    f.turn("four");
    assert!(!f.input(4).preamble.unwrap_or_default().contains("BOOT-2"));

    // /reset: a new session gets everything again.
    f.engine.chat().send(&f.agent_id, "/reset").unwrap();
    f.turn("five");
    assert_eq!(f.input(5).resume_session, None);
    assert!(f.input(5).preamble.unwrap_or_default().contains("BOOT-2"));
}

/// Issue #24, item 9: after the runtime compacts its session, BOOTSTRAP.md and the scratch notes
/// go again with the next turn (the same session resumed), then not again while it holds them.
#[test]
fn after_the_runtime_compacts_its_session_bootstrap_and_scratch_notes_go_again() {
    let f = open(common::Fixture::new(), SetupChange::AppliedOnResume, None);
    f.engine.agents().write_file(&f.agent_id, "BOOTSTRAP.md", "Say hello first. BOOT-C").unwrap();
    let scratch = clawboo_engine::memory::ScratchScope::Global;
    f.engine.memory().scratch_add(scratch, "The oven is booked on Fridays. SCRATCH-C").unwrap();
    let carries = |turn: usize, mark: &str| f.input(turn).preamble.unwrap_or_default().contains(mark);
    f.turn("one");
    assert!(carries(1, "BOOT-C") && carries(1, "SCRATCH-C"), "a new session gets both");
    f.turn("two");
    assert!(!carries(2, "BOOT-C") && !carries(2, "SCRATCH-C"), "the session holds both");
    f.turn("compact three");
    assert!(!carries(3, "BOOT-C") && !carries(3, "SCRATCH-C"));
    f.turn("four");
    assert_eq!(f.input(4).resume_session.as_deref(), Some("session-1"), "the same session, resumed");
    assert!(carries(4, "BOOT-C"), "BOOTSTRAP.md again after compaction");
    assert!(carries(4, "SCRATCH-C"), "the scratch notes again after compaction");
    assert_eq!(sent_files(&f, 4), ["BOOTSTRAP.md"]);
    f.turn("five");
    assert!(!carries(5, "BOOT-C") && !carries(5, "SCRATCH-C"), "held again");
}

/// Issue #24, item 9: the scratch notes are tracked per runtime session, as the agent's files
/// are, and count as held only once a run completed in that session: a changed projection that
/// went with a failed turn goes again, and a new session gets it again.
#[test]
fn scratch_notes_count_as_held_only_once_a_run_completed_in_the_session() {
    let f = open(common::Fixture::new(), SetupChange::FreshSession, None);
    let note =
        f.engine.memory().scratch_add(clawboo_engine::memory::ScratchScope::Global, "Ovens: two. NOTE-V1").unwrap();
    let carries = |turn: usize, mark: &str| f.input(turn).preamble.unwrap_or_default().contains(mark);
    f.turn("one");
    assert!(carries(1, "NOTE-V1"));
    f.turn("two");
    assert!(!carries(2, "NOTE-V1"), "held by session-1");
    f.engine.memory().scratch_edit(&note.id, "Ovens: three. NOTE-V2").unwrap();
    let (run, _) = f.turn("fail");
    assert_eq!(run.status, RunStatus::Failed);
    assert!(carries(3, "NOTE-V2"));
    f.turn("four");
    assert!(carries(4, "NOTE-V2"), "the failed turn's delivery did not count");
    f.turn("five");
    assert!(!carries(5, "NOTE-V2"));
    // SOUL.md edited: this runtime starts a fresh session, which gets the notes again.
    f.soul("You are Pip, now brisk.");
    f.turn("six");
    assert_eq!(f.input(6).resume_session, None);
    assert!(carries(6, "NOTE-V2"), "a new session holds nothing yet");
}

/// Issue #24, item 9, on a team turn: a team run's end that reports compaction forgets what the
/// room's session held (`deliver.rs`), so BOOTSTRAP.md and the scratch notes go again with the
/// leader's next turn in the same session, then not again. The real Codex compacting a room's
/// thread on the fake model: `team_compaction_runtimes.rs`.
#[test]
fn after_the_runtime_compacts_a_team_session_bootstrap_and_scratch_notes_go_again() {
    let f = open(common::Fixture::new(), SetupChange::AppliedOnResume, None);
    f.engine.agents().write_file(&f.agent_id, "BOOTSTRAP.md", "Say hello first. BOOT-T").unwrap();
    let scratch = clawboo_engine::memory::ScratchScope::Global;
    f.engine.memory().scratch_add(scratch, "The oven is booked on Fridays. SCRATCH-T").unwrap();
    let common::ChatTeam { general, .. } =
        common::chat_team(&f.engine, "Bakery", std::slice::from_ref(&f.agent_id), "I am Ada.");
    let carries = |turn: usize, mark: &str| format!("{:?}", f.input(turn)).contains(mark);
    f.team_turn(&general, "one");
    assert!(carries(1, "BOOT-T") && carries(1, "SCRATCH-T"), "a new session gets both");
    f.team_turn(&general, "two");
    assert!(!carries(2, "BOOT-T") && !carries(2, "SCRATCH-T"), "the session holds both");
    f.team_turn(&general, "compact three");
    assert!(!carries(3, "BOOT-T") && !carries(3, "SCRATCH-T"));
    f.team_turn(&general, "four");
    assert_eq!(f.input(4).resume_session.as_deref(), Some("session-1"), "the same session, resumed");
    assert!(carries(4, "BOOT-T"), "BOOTSTRAP.md again after compaction");
    assert!(carries(4, "SCRATCH-T"), "the scratch notes again after compaction");
    f.team_turn(&general, "five");
    assert!(!carries(5, "BOOT-T") && !carries(5, "SCRATCH-T"), "held again");
}

impl Fixture {
    /// The user says `text` in the room; its leader (@pip) answers. Returns the run once ended.
    fn team_turn(&self, room_id: &str, text: &str) -> clawboo_engine::chat::team::RunContext {
        let before = self.runtime.inputs.lock().unwrap().len();
        self.engine.chat().send_team(room_id, text).unwrap();
        let run = wait_for("the team run to finish", Duration::from_secs(10), || {
            let runs = self.engine.chat().room_runs(room_id, 100).unwrap();
            let done = self.runtime.inputs.lock().unwrap().len() > before;
            runs.last().filter(|r| done && r.status != RunStatus::Running).cloned()
        });
        assert_eq!(run.status, RunStatus::Succeeded);
        self.engine.chat().run_context(&run.id).unwrap()
    }
}
