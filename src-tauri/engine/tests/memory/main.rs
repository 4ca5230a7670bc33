//! Shared memory through the engine, on a real SQLite store: facts (ranking, scopes, related
//! facts, ids, history, checks, duplicates, citations), saved notes, scratch notes,
//! promotions and the projection an agent gets.

// `[fact.id.clone()]` reads better than `std::slice::from_ref(&fact.id)` in assertions.
#![allow(clippy::cloned_ref_to_slice_refs)]

#[path = "../common/mod.rs"]
mod common;
mod facts;
mod notes;
mod search;

use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::memory::{
    Author, Fact, FactChange, FactEdit, FactFilter, FactInput, PromotionStatus, Scope, ScratchScope, Visibility,
    MAX_RELATED, MAX_TAGS,
};
use clawboo_engine::{Engine, EngineEvent, Error};
use common::{add_team, Fixture};

fn agent(engine: &Engine, handle: &str) -> String {
    common::add_agent(engine, common::new_agent(handle, RuntimeKind::Native))
}

fn by_agent(agent_id: &str, handle: &str) -> Author {
    Author::Agent { agent_id: agent_id.into(), handle: handle.into(), run_id: Some("run-1".into()) }
}

fn save(engine: &Engine, text: &str, scope: Scope, tags: &[&str]) -> Fact {
    let input = FactInput { text: text.into(), scope, tags: tags.iter().map(|t| (*t).into()).collect() };
    let saved = engine.memory().save(input, Author::User).unwrap();
    assert!(!saved.existing, "{text}");
    saved.fact
}

fn global(engine: &Engine, text: &str, tags: &[&str]) -> Fact {
    save(engine, text, Scope::Global, tags)
}

fn invalid(result: Result<impl std::fmt::Debug, Error>) -> String {
    match result {
        Err(Error::InvalidInput(message)) => message,
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

fn ids(facts: impl IntoIterator<Item = Fact>) -> Vec<String> {
    facts.into_iter().map(|f| f.id).collect()
}

fn top_ids(engine: &Engine, query: &str, visible: &Visibility) -> Vec<String> {
    ids(engine.memory().search(query, visible, 5).unwrap().top.into_iter().map(|h| h.fact))
}

/// A conversation row (scratch notes' session scope), straight into the database.
fn conversation(engine: &Engine, agent_id: &str) -> String {
    let conn = rusqlite::Connection::open(engine.config().database_path()).unwrap();
    conn.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    let id = format!("conv-{agent_id}");
    conn.execute(
        "INSERT INTO conversations (id, agent_id, kind, created_at) VALUES (?1, ?2, 'direct', 0)",
        [&id, agent_id],
    )
    .unwrap();
    id
}
