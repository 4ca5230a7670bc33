//! An agent's `memory_save` to global memory (or a team its run is not in) waits for the user's
//! approval: nothing is saved until they allow it, then the fact is saved exactly as shown. Saves
//! to the agent's own scope or its run's team go through at once.

use clawboo_engine::attention::{AuditAction, Decision, Origin, RequestKind, RequestStatus, Source, UserAnswer};
use clawboo_engine::memory::{Author, Fact, FactFilter, FactInput, Scope};
use clawboo_engine::ErrorCode;

use super::{fixture, team, Fixture, HOUR_MS};

fn decision(decision: Decision) -> UserAnswer {
    UserAnswer::Decision { decision }
}

/// The agent calls `memory_save` with `args` from its one-to-one chat; its reply.
fn save(f: &Fixture, agent_id: &str, args: serde_json::Value) -> String {
    let run = f.send(agent_id, &format!("mcp memory_save {args}"));
    f.reply_of(agent_id, &run)
}

fn facts(f: &Fixture, scope: Scope) -> Vec<Fact> {
    let filter = FactFilter { scope: Some(scope), ..FactFilter::default() };
    f.engine.memory().list(&filter).unwrap()
}

fn texts(f: &Fixture, scope: Scope) -> Vec<String> {
    facts(f, scope).into_iter().map(|fact| fact.text).collect()
}

#[test]
fn a_global_save_waits_for_the_user_and_allow_saves_the_exact_fact() {
    let f = fixture(&["scout"]);
    let scout = f.ids[0].clone();
    let fact = "The shop opens at nine on Sundays; the back door sticks.";
    let said =
        save(&f, &scout, serde_json::json!({"text": format!("  {fact}\n"), "scope": "global", "tags": ["Hours"]}));
    assert!(said.starts_with("Not saved yet: saving to global memory waits for the user's approval (r-"), "{said}");
    assert!(texts(&f, Scope::Global).is_empty(), "nothing saved before the user allows it");

    let asked = f.open_request("the memory save", |r| r.kind == RequestKind::MemorySave);
    assert!(said.contains(&asked.id), "{said}");
    assert_eq!(asked.input.as_deref(), Some(fact), "the fact as it will be saved, whole");
    assert_eq!(asked.text, "Save a fact to global memory, which every agent can read, tagged hours.");
    assert_eq!(
        (asked.tool.as_deref(), asked.origin, asked.agent_id.as_str(), asked.allow_always),
        (Some("memory_save"), Origin::Chat, scout.as_str(), false)
    );
    assert_eq!(asked.expires_at, Some(asked.created_at + 24 * HOUR_MS));
    let tray = f.engine.attention().tray_state().unwrap();
    assert_eq!((tray.open, tray.approvals), (1, 1));
    assert_eq!(tray.newest[0].label, "SCOUT wants to save a fact to memory");

    // Asked again while it waits: the same request, nothing new.
    let again = save(&f, &scout, serde_json::json!({"text": fact, "scope": "global", "tags": ["hours"]}));
    assert!(again.starts_with("This fact already waits") && again.contains(&asked.id), "{again}");
    assert_eq!(f.engine.attention().open().unwrap().len(), 1);

    // Not "Allow always": each such fact is decided.
    let err = f.engine.answer_attention(&asked.id, decision(Decision::AllowAlways)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert_eq!(f.status(&asked.id), RequestStatus::Open);
    assert!(texts(&f, Scope::Global).is_empty());

    let answered = f.engine.answer_attention(&asked.id, decision(Decision::AllowOnce)).unwrap();
    assert_eq!((answered.status, answered.decision), (RequestStatus::Answered, Some(Decision::AllowOnce)));
    let saved = facts(&f, Scope::Global);
    assert_eq!(saved.len(), 1);
    assert_eq!((saved[0].text.as_str(), saved[0].tags.as_slice()), (fact, ["hours".to_owned()].as_slice()));
    assert!(
        matches!(&saved[0].author, Author::Agent { agent_id, handle, run_id: Some(_) } if *agent_id == scout && handle == "scout"),
        "{:?}",
        saved[0].author
    );
    assert!(f.engine.attention().grants().unwrap().is_empty());
    // Answered once only.
    let err = f.engine.answer_attention(&asked.id, decision(Decision::AllowOnce)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert_eq!(texts(&f, Scope::Global).len(), 1);
    let audit = f.engine.attention().audit(Some(&asked.id), None, 10).unwrap();
    assert_eq!((audit[1].actor.as_str(), audit[1].action), ("@scout", AuditAction::Raised));
    assert!(audit[1].detail.contains(fact), "{}", audit[1].detail);
    assert_eq!((audit[0].actor.as_str(), audit[0].action), ("you", AuditAction::Allowed));
}

#[test]
fn a_denied_or_expired_global_save_saves_nothing() {
    let f = fixture(&["scout"]);
    let scout = f.ids[0].clone();
    save(&f, &scout, serde_json::json!({"text": "Oolong sells best.", "scope": "global"}));
    let denied = f.open_request("the memory save", |r| r.kind == RequestKind::MemorySave);
    f.engine.answer_attention(&denied.id, decision(Decision::Deny)).unwrap();
    assert_eq!(f.status(&denied.id), RequestStatus::Answered);

    save(&f, &scout, serde_json::json!({"text": "Deliveries come on Tuesdays.", "scope": "global"}));
    let expiring = f.open_request("the second save", |r| r.kind == RequestKind::MemorySave);
    assert_eq!(f.engine.attention().expire_due(expiring.created_at + 24 * HOUR_MS).unwrap(), 1);
    assert_eq!(f.status(&expiring.id), RequestStatus::Expired);
    let err = f.engine.answer_attention(&expiring.id, decision(Decision::AllowOnce)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);

    assert!(texts(&f, Scope::Global).is_empty());
    assert!(f.engine.memory().list(&FactFilter::default()).unwrap().is_empty(), "nor anywhere else");
}

#[test]
fn saves_to_the_agents_own_scope_or_its_runs_team_go_through_at_once() {
    let f = fixture(&["lead", "scout"]);
    let scout = f.ids[1].clone();
    let said = save(&f, &scout, serde_json::json!({"text": "My notes are in notes.md.", "scope": "agent"}));
    assert!(said.starts_with("Saved as m-"), "{said}");
    assert_eq!(texts(&f, Scope::Agent { agent_id: scout.clone() }), ["My notes are in notes.md."]);

    let (team_id, general) = team(&f.engine, "Shop", &f.ids);
    let args = |scope: &str, text: &str| serde_json::json!({"text": text, "scope": scope});
    f.engine
        .chat()
        .send_team(&general, &format!("@scout mcp memory_save {}", args("team", "The till sticks in the cold.")))
        .unwrap();
    let reply = f.room_reply(&general, &scout, "Saved as m-");
    assert!(reply.content.starts_with("Saved as m-"), "{}", reply.content);
    assert_eq!(texts(&f, Scope::Team { team_id: team_id.clone() }), ["The till sticks in the cold."]);
    assert!(f.engine.attention().open().unwrap().is_empty(), "nothing asked");

    // From the team's chat, global still waits, and the request says where it came from.
    f.engine
        .chat()
        .send_team(&general, &format!("@scout mcp memory_save {}", args("global", "Loose leaf outsells bags.")))
        .unwrap();
    f.room_reply(&general, &scout, "waits for the user's approval");
    let asked = f.open_request("the memory save", |r| r.kind == RequestKind::MemorySave);
    assert_eq!((asked.origin, asked.team_id.as_deref()), (Origin::Team, Some(team_id.as_str())));
    assert!(texts(&f, Scope::Global).is_empty());
    f.engine.answer_attention(&asked.id, decision(Decision::AllowOnce)).unwrap();
    assert_eq!(texts(&f, Scope::Global), ["Loose leaf outsells bags."]);
}

#[test]
fn a_global_save_that_would_be_refused_is_refused_at_once_not_asked() {
    let f = fixture(&["scout"]);
    let scout = f.ids[0].clone();
    let key = "The key is sk-ant-api03-Xk9f2LmQ8vR4tY7uP1sD3gH6jK0zB5nCw2Ee";
    let said = save(&f, &scout, serde_json::json!({"text": key, "scope": "global"}));
    assert!(said.starts_with("ERROR:") && said.contains("secret"), "{said}");
    assert!(f.engine.attention().history(None, 10).unwrap().is_empty(), "nothing asked");
}

#[test]
fn a_held_fact_that_can_no_longer_be_saved_leaves_its_request_open_to_deny() {
    let f = fixture(&["lead", "scout"]);
    let scout = f.ids[1].clone();
    let (team_id, _) = team(&f.engine, "Shop", &f.ids);
    // A save to a team the run is not in (its run is a one-to-one chat), held as the tools host holds one.
    let by = Author::Agent { agent_id: scout.clone(), handle: "scout".into(), run_id: Some("run-1".into()) };
    let input = FactInput {
        text: "The shop's alarm code changes monthly.".into(),
        scope: Scope::Team { team_id: team_id.clone() },
        tags: vec![],
    };
    let source = Source { agent_id: scout.clone(), run_id: Some("run-1".into()), ..Source::default() };
    let memory = f.engine.memory();
    let (asked, raised) = f
        .engine
        .attention()
        .raise_memory_save(&source, "memory_save", "Save a fact to that team.", &input.text, |id| {
            memory.hold(id, input.clone(), &by).map(|_| ())
        })
        .unwrap();
    assert!(raised);

    f.engine.teams().delete(&team_id).unwrap();
    let err = f.engine.answer_attention(&asked.id, decision(Decision::AllowOnce)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput, "{err}");
    assert_eq!(f.status(&asked.id), RequestStatus::Open, "neither saved nor answered");
    assert!(f.engine.memory().list(&FactFilter::default()).unwrap().is_empty());
    f.engine.answer_attention(&asked.id, decision(Decision::Deny)).unwrap();
    assert_eq!(f.status(&asked.id), RequestStatus::Answered);
}
