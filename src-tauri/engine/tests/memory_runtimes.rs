//! Shared memory across real runtimes against the fake model server: a Claude Code agent saves
//! a fact with `memory_save` over MCP in its one-to-one chat (global: the user allows it); a
//! Codex agent, in its own chat, finds it with `memory_search`. The fact is bound to the run that saved it (author, run), and
//! the search result the Codex run got carries the fact's id and text.
#![cfg(unix)]

mod common;

use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::attention::{Decision, UserAnswer};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::memory::{Author, FactFilter, Scope};
use clawboo_engine::runtimes::{ApprovalPolicy, RunEvent};
use clawboo_engine::secrets::Provider;
use clawboo_engine::Engine;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, Reply};
use common::Fixture;
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(180);
const FACT: &str = "The walk-in fridge is serviced on the first Monday of each month.";

fn agent(handle: &str, runtime: RuntimeKind, model: &str, provider: Provider) -> NewAgent {
    NewAgent {
        name: handle.to_uppercase(),
        model: model.into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider: Some(provider),
        ..common::new_agent(handle, runtime)
    }
}

fn behavior() -> Behavior {
    Behavior::text("(unscripted)")
        .when(
            "Remember when the fridge",
            vec![
                Reply::ToolCall {
                    name: "~memory_save".into(),
                    // "author" is not an argument: the author comes from the run's token.
                    input: json!({"text": FACT, "tags": ["Kitchen", "maintenance"], "scope": "global"}),
                },
                Reply::Text("Saved it.".into()),
            ],
        )
        .when(
            "When is the fridge serviced",
            vec![
                Reply::ToolCall {
                    name: "~memory_search".into(),
                    input: json!({"query": "fridge serviced (when?) \"AND\""}),
                },
                Reply::Text("Found it in memory.".into()),
            ],
        )
}

fn run_and_wait(engine: &Engine, agent_id: &str, text: &str) -> String {
    let run = engine.chat().send(agent_id, text).unwrap().run.unwrap();
    let done = wait_for("the run to end", LIMIT, || {
        let page = engine.chat().history_page(agent_id, None, 50).unwrap();
        page.runs.into_iter().find(|r| r.id == run.id && r.status != RunStatus::Running)
    });
    assert_eq!(done.status, RunStatus::Succeeded, "{:?}", engine.chat().run_activity(&run.id).unwrap());
    run.id
}

#[test]
fn a_fact_saved_by_claude_code_is_found_by_codex() {
    let server = FakeModelServer::start_blocking(behavior());
    let kinds = [RuntimeKind::ClaudeCode, RuntimeKind::Codex];
    let Some((fixture, runtimes)) = Fixture::for_clis_on(&kinds, &server, "sk-fake-memory") else { return };
    let engine = fixture.open_with(runtimes);
    let keeper = engine
        .agents()
        .create(agent("keeper", RuntimeKind::ClaudeCode, "claude-sonnet-4-5", Provider::Anthropic))
        .unwrap();
    let finder = engine.agents().create(agent("finder", RuntimeKind::Codex, "gpt-5.5", Provider::OpenAi)).unwrap();

    let saving_run = run_and_wait(&engine, &keeper.id, "Remember when the fridge gets serviced.");
    // A global fact waits for the user's approval; allowed, it is saved as the run asked.
    assert!(engine.memory().list(&FactFilter::default()).unwrap().is_empty());
    let asked = engine.attention().open().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let allow = UserAnswer::Decision { decision: Decision::AllowOnce };
    engine.answer_attention(&asked[0].id, allow).unwrap();
    let facts = engine.memory().list(&FactFilter::default()).unwrap();
    assert_eq!(facts.len(), 1, "{facts:?}");
    let fact = &facts[0];
    assert_eq!(fact.text, FACT);
    assert_eq!(fact.scope, Scope::Global);
    assert_eq!(fact.tags, ["kitchen", "maintenance"]);
    assert_eq!(
        fact.author,
        Author::Agent { agent_id: keeper.id.clone(), handle: "keeper".into(), run_id: Some(saving_run.clone()) }
    );

    let finding_run = run_and_wait(&engine, &finder.id, "When is the fridge serviced?");
    let results: Vec<String> = engine
        .chat()
        .run_activity(&finding_run)
        .unwrap()
        .into_iter()
        .filter_map(|r| match r.event {
            RunEvent::ToolResult { output, is_error: false, .. } => Some(output),
            _ => None,
        })
        .collect();
    assert!(
        results.iter().any(|o| o.contains(&fact.id) && o.contains(FACT)),
        "the Codex run's memory_search result carries the fact and its id: {results:?}"
    );
    // Both runs' tokens ended with them.
    assert!(!engine.tools().has_grant(&saving_run) && !engine.tools().has_grant(&finding_run));
}
