//! Memory in chats over real SQLite, with a scripted runtime standing in for a model: the
//! agent's saved notes on the first turn and after `/reset` only; the scratch projection once
//! into a kept session (again when it changes), on every request for Native; the memory tools
//! granted to one-to-one runs, bound to the run's agent whatever the arguments say.

mod common;

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::memory::{Author, FactFilter, PromotionStatus, Scope, ScratchScope};
use clawboo_engine::runtimes::native::transcript::{trim_transcript, TRANSCRIPT_BUDGET_CHARS};
use clawboo_engine::runtimes::{
    ApprovalPolicy, Capabilities, HistoryMode, PersonaDelivery, RunChannels, RunEvent, RunResult, Runtime, TurnInput,
};
use clawboo_engine::tools::ToolName;
use clawboo_engine::Engine;
use clawboo_testkit::wait_for;

/// Records every input; "call <tool> <json>" calls one of Clawboo's tools in-process and
/// answers with its output.
struct ScriptedRuntime {
    history: HistoryMode,
    inputs: Mutex<Vec<TurnInput>>,
}

impl Runtime for ScriptedRuntime {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            streams_text: true,
            context_window: Some(200_000),
            history: self.history,
            persona: PersonaDelivery::OwnSetup,
            setup_change: clawboo_engine::runtimes::SetupChange::AppliedOnResume,
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
        self.inputs.lock().unwrap().push(input.clone());
        Box::pin(async move {
            channels.emit(RunEvent::SessionStarted { session_id: "the-session".into() });
            let reply = match input.message.strip_prefix("call ") {
                Some(call) => {
                    let (name, args) = call.split_once(' ').unwrap_or((call, "{}"));
                    let grant = input.tools.as_ref().expect("one-to-one runs hold Clawboo's tools");
                    let tool = clawboo_engine::tools::specs::parse(name).expect("a known tool");
                    let output = (grant.invoker)(tool, serde_json::from_str(args).unwrap()).await;
                    format!("{}{}", if output.is_error { "ERROR: " } else { "" }, output.text)
                }
                None => "ok".to_owned(),
            };
            channels.emit(RunEvent::TextDelta { text: reply });
            Ok(RunResult::succeeded())
        })
    }
}

struct Fixture {
    _data: common::Fixture,
    engine: Engine,
    runtime: Arc<ScriptedRuntime>,
    agent_id: String,
}

fn fixture(history: HistoryMode) -> Fixture {
    let data = common::Fixture::new();
    let runtime = Arc::new(ScriptedRuntime { history, inputs: Mutex::default() });
    let engine = data.open_with(vec![runtime.clone()]);
    let agent_id = common::add_agent(&engine, agent("scout"));
    Fixture { _data: data, engine, runtime, agent_id }
}

fn agent(handle: &str) -> NewAgent {
    NewAgent {
        name: handle.to_uppercase(),
        model: "some-model".into(),
        approval_policy: ApprovalPolicy::AllowAll,
        ..common::new_agent(handle, RuntimeKind::Native)
    }
}

impl Fixture {
    /// Sends and waits; returns the reply and the preamble the run was given.
    fn turn(&self, text: &str) -> (String, Option<String>) {
        self.turn_of(&self.agent_id, text)
    }

    fn turn_of(&self, agent_id: &str, text: &str) -> (String, Option<String>) {
        let run = self.engine.chat().send(agent_id, text).unwrap().run.expect("a run");
        wait_for("the run to finish", Duration::from_secs(10), || {
            let page = self.engine.chat().history_page(agent_id, None, 500).unwrap();
            page.runs.iter().any(|r| r.id == run.id && r.status != RunStatus::Running).then_some(())
        });
        let page = self.engine.chat().history_page(agent_id, None, 500).unwrap();
        let reply = page.messages.last().unwrap().content.clone();
        let input = self.runtime.inputs.lock().unwrap().iter().find(|i| i.run_id == run.id).cloned().unwrap();
        (reply, input.preamble)
    }

    fn context_added(&self, run_index: usize) -> Vec<String> {
        let run_id = self.runtime.inputs.lock().unwrap()[run_index].run_id.clone();
        self.engine
            .chat()
            .run_activity(&run_id)
            .unwrap()
            .into_iter()
            .filter_map(|r| match r.event {
                RunEvent::ContextAdded { summary, .. } => Some(summary),
                _ => None,
            })
            .collect()
    }
}

#[test]
fn saved_notes_reach_the_first_turn_and_the_first_after_reset_only_the_agents_own_and_newest_eight() {
    let f = fixture(HistoryMode::RuntimeSession);
    let other = f.engine.agents().create(agent("other")).unwrap().id;
    for i in 1..=10 {
        f.engine.memory().save_note(&f.agent_id, &format!("scout note {i:02}"), Author::User).unwrap();
    }
    f.engine.memory().save_note(&other, "OTHER-AGENT-NOTE", Author::User).unwrap();

    let (_, first) = f.turn("hello");
    let first = first.expect("the first turn recalls notes");
    for i in 3..=10 {
        assert_eq!(first.matches(&format!("scout note {i:02}")).count(), 1, "note {i} once");
    }
    assert!(!first.contains("scout note 01") && !first.contains("scout note 02"), "only the newest 8");
    assert!(!first.contains("OTHER-AGENT-NOTE"));
    assert_eq!(f.context_added(0), ["Recalled 8 saved notes"]);

    let (_, second) = f.turn("and again");
    assert_eq!(second, None, "notes come once, not on warm turns");
    assert!(f.context_added(1).is_empty());

    f.engine.chat().send(&f.agent_id, "/reset").unwrap();
    let (_, after_reset) = f.turn("fresh start");
    assert!(after_reset.is_some_and(|p| p.contains("scout note 10")), "after /reset the notes come again");
}

#[test]
fn the_scratch_projection_goes_once_into_a_kept_session_and_again_when_it_changes() {
    let f = fixture(HistoryMode::RuntimeSession);
    let note = f.engine.memory().scratch_add(ScratchScope::Global, "The staging server is down until Monday.").unwrap();
    let (_, one) = f.turn("one");
    assert!(one.as_deref().is_some_and(|p| p.contains("staging server is down")), "{one:?}");
    let (_, two) = f.turn("two");
    assert_eq!(two, None, "an unchanged projection is not sent again into the same session");

    f.engine.memory().scratch_edit(&note.id, "The staging server is back.").unwrap();
    let (_, three) = f.turn("three");
    let three = three.expect("a changed projection is sent");
    assert!(three.contains("staging server is back") && !three.contains("down until Monday"));

    f.engine.memory().scratch_delete(&note.id).unwrap();
    let (_, four) = f.turn("four");
    assert_eq!(four.as_deref(), Some(clawboo_engine::context::SCRATCH_CLEARED), "the agent hears they are gone");
    let (_, five) = f.turn("five");
    assert_eq!(five, None);
}

#[test]
fn native_gets_the_scratch_projection_with_every_request_as_its_preamble_is_never_kept() {
    let f = fixture(HistoryMode::ClawbooTranscript);
    f.engine.memory().scratch_add(ScratchScope::Global, "Prices are in GBP.").unwrap();
    for text in ["one", "two", "three"] {
        let (_, preamble) = f.turn(text);
        assert!(preamble.is_some_and(|p| p.contains("Prices are in GBP.")), "turn {text}");
    }
}

#[test]
fn one_to_one_runs_hold_the_memory_tools_and_what_they_save_is_bound_to_the_run_agent() {
    let f = fixture(HistoryMode::RuntimeSession);
    let (reply, _) =
        f.turn(r#"call memory_save {"text":"Deploys happen on Thursdays.","tags":["Deploy"],"scope":"global"}"#);
    // Global memory waits for the user's approval; the fact is saved once they allow it.
    assert!(reply.starts_with("Not saved yet: saving to global memory waits for the user's approval"), "{reply}");
    assert!(f.engine.memory().list(&FactFilter::default()).unwrap().is_empty());
    let asked = f.engine.attention().open().unwrap().remove(0);
    let allow =
        clawboo_engine::attention::UserAnswer::Decision { decision: clawboo_engine::attention::Decision::AllowOnce };
    f.engine.answer_attention(&asked.id, allow).unwrap();
    let facts = f.engine.memory().list(&FactFilter::default()).unwrap();
    assert_eq!(facts.len(), 1);
    let run_id = f.runtime.inputs.lock().unwrap()[0].run_id.clone();
    assert_eq!(
        facts[0].author,
        Author::Agent { agent_id: f.agent_id.clone(), handle: "scout".into(), run_id: Some(run_id) }
    );
    assert_eq!((facts[0].scope.clone(), facts[0].tags.clone()), (Scope::Global, vec!["deploy".to_owned()]));

    // An argument claiming another author is refused before anything is saved.
    let (reply, _) = f.turn(r#"call memory_save {"text":"x","author":"user"}"#);
    assert!(reply.starts_with("ERROR:") && reply.contains("author"), "{reply}");

    let (reply, _) = f.turn(r#"call memory_search {"query":"when are deploys?"}"#);
    assert!(reply.contains(&facts[0].id) && reply.contains("Deploys happen on Thursdays."), "{reply}");

    // Outside a team, "team" scope is a clear error.
    let (reply, _) = f.turn(r#"call memory_save {"text":"y","scope":"team"}"#);
    assert!(reply.starts_with("ERROR:"), "{reply}");

    let (reply, _) = f.turn(r#"call note_save {"text":"The user likes short answers."}"#);
    assert!(!reply.starts_with("ERROR:"), "{reply}");
    assert_eq!(f.engine.memory().notes(&f.agent_id, 8).unwrap()[0].text, "The user likes short answers.");
    let grant =
        f.runtime.inputs.lock().unwrap()[0].tools.as_ref().map(|g| g.specs.iter().map(|s| s.name).collect::<Vec<_>>());
    assert!(
        grant.is_some_and(|names| names.contains(&ToolName::MemorySearch) && names.contains(&ToolName::ScratchPromote))
    );
}

#[test]
fn a_scratch_note_is_promoted_only_by_the_user_and_the_copy_is_exact() {
    let f = fixture(HistoryMode::RuntimeSession);
    let (reply, _) = f.turn(r#"call scratch_write {"text":"The supplier prefers email."}"#);
    assert!(!reply.starts_with("ERROR:"), "{reply}");
    let (_, preamble) = f.turn("next");
    assert!(preamble.is_some_and(|p| p.contains("The supplier prefers email.")), "the session note reaches the agent");

    let all = f.engine.memory().scratch_all(100).unwrap();
    let note = all.iter().find(|n| n.text == "The supplier prefers email.").unwrap().clone();
    let (reply, _) = f.turn(&format!(r#"call scratch_promote {{"note_id":"{}","to":"global"}}"#, note.id));
    assert!(!reply.starts_with("ERROR:"), "{reply}");
    let pending = f.engine.memory().promotions(10).unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].status, PromotionStatus::Pending);
    assert!(
        f.engine.memory().scratch_list(&ScratchScope::Global).unwrap().is_empty(),
        "nothing copied before approval"
    );

    let decided = f.engine.memory().decide_promotion(&pending[0].id, true).unwrap();
    assert_eq!(decided.status, PromotionStatus::Approved);
    let global = f.engine.memory().scratch_list(&ScratchScope::Global).unwrap();
    assert_eq!(global.len(), 1);
    assert_eq!(
        (global[0].text.as_str(), global[0].promoted_from.as_deref()),
        (note.text.as_str(), Some(note.id.as_str()))
    );
    assert!(f.engine.memory().scratch_all(100).unwrap().iter().any(|n| n.id == note.id), "the original stays");

    // Another agent now gets the global copy.
    let other = f.engine.agents().create(agent("other")).unwrap().id;
    let (_, preamble) = f.turn_of(&other, "hello");
    assert!(preamble.is_some_and(|p| p.contains("The supplier prefers email.")));
}

#[test]
fn memory_get_reads_the_runs_own_memory_md_the_file_its_pointer_names() {
    let f = fixture(HistoryMode::RuntimeSession);
    let other = f.engine.agents().create(agent("other")).unwrap().id;
    f.engine.agents().write_file(&f.agent_id, "MEMORY.md", "- Sam prefers oat milk. SCOUT-MEMORY").unwrap();
    f.engine.agents().write_file(&other, "MEMORY.md", "OTHER-MEMORY").unwrap();
    let (reply, preamble) = f.turn(r#"call memory_get {"id":"MEMORY.md"}"#);
    assert_eq!(reply, "MEMORY.md (36 characters):\n- Sam prefers oat milk. SCOUT-MEMORY");
    // The run has the memory tools, so its context carries the pointer, never the file.
    let input = f.runtime.inputs.lock().unwrap().last().cloned().unwrap();
    assert!(input.setup.unwrap_or_default().contains(r#"`memory_get` (id "MEMORY.md")"#));
    assert!(!preamble.unwrap_or_default().contains("SCOUT-MEMORY"));
    f.engine.agents().write_file(&f.agent_id, "MEMORY.md", "").unwrap();
    let (reply, _) = f.turn(r#"call memory_get {"id":"MEMORY.md"}"#);
    assert_eq!(reply, "MEMORY.md is empty.");
}

#[test]
fn a_carried_history_trimmed_past_the_turn_that_carried_the_files_gets_them_again() {
    let f = fixture(HistoryMode::ClawbooTranscript);
    f.engine.agents().write_file(&f.agent_id, "BOOTSTRAP.md", "Say hello first. BOOT-TRIM").unwrap();
    let (_, first) = f.turn("one");
    assert!(first.unwrap_or_default().contains("BOOT-TRIM"));
    let (_, second) = f.turn("two");
    assert!(!second.unwrap_or_default().contains("BOOT-TRIM"), "the carried first turn holds it");
    // A message big enough that the next request's history (240,000 characters at most) no
    // longer holds turn one: the file goes again, once, and then rides in that history.
    let (_, _) = f.turn(&"x".repeat(239_990));
    let (_, fourth) = f.turn("four");
    assert!(fourth.unwrap_or_default().contains("BOOT-TRIM"), "turn one was trimmed away");
    // What Native sends of the carried history no longer holds it (the adapter trims).
    let input = f.runtime.inputs.lock().unwrap().last().cloned().unwrap();
    let sent = trim_transcript(&input.transcript, TRANSCRIPT_BUDGET_CHARS);
    assert_eq!((input.transcript.len(), sent.len()), (3, 2));
    assert!(!sent.iter().any(|t| t.user.contains("BOOT-TRIM")));
    let (_, fifth) = f.turn("five");
    assert!(!fifth.unwrap_or_default().contains("BOOT-TRIM"), "turn four carried it, and is kept");
}
