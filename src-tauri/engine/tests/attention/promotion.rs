//! Scratch-note promotions are approvals: an agent's `scratch_promote` raises one; answering it
//! in the inbox decides the promotion in memory, and deciding it on the Memory page answers it.

use clawboo_engine::attention::{AuditAction, Decision, Origin, RequestKind, RequestStatus, UserAnswer};
use clawboo_engine::memory::{Promotion, PromotionStatus, ScratchScope};
use clawboo_engine::ErrorCode;

use super::{fixture, Fixture, HOUR_MS};

fn decision(decision: Decision) -> UserAnswer {
    UserAnswer::Decision { decision }
}

/// The agent writes a session note through its tool; its id.
fn write_note(f: &Fixture, agent_id: &str, text: &str) -> String {
    let run = f.send(agent_id, &format!("mcp scratch_write {}", serde_json::json!({"text": text})));
    let reply = f.reply_of(agent_id, &run);
    let id = reply.strip_prefix("Written to your session scratchpad (").and_then(|r| r.strip_suffix(")."));
    id.unwrap_or_else(|| panic!("a note id in {reply:?}")).to_owned()
}

/// The agent asks to promote `note_id` to the global scratchpad; its reply.
fn promote(f: &Fixture, agent_id: &str, note_id: &str) -> String {
    let run =
        f.send(agent_id, &format!("mcp scratch_promote {}", serde_json::json!({"note_id": note_id, "to": "global"})));
    f.reply_of(agent_id, &run)
}

fn promotion(f: &Fixture, id: &str) -> Promotion {
    f.engine.memory().promotions(100).unwrap().into_iter().find(|p| p.id == id).expect("the promotion")
}

fn global_texts(f: &Fixture) -> Vec<String> {
    f.engine.memory().scratch_list(&ScratchScope::Global).unwrap().into_iter().map(|n| n.text).collect()
}

#[test]
fn a_promotion_waits_for_the_user_and_allow_once_copies_the_note() {
    let f = fixture(&["scout"]);
    let scout = f.ids[0].clone();
    let note = write_note(&f, &scout, "The shop opens at nine on Sundays.");
    let said = promote(&f, &scout, &note);
    assert!(said.contains("pending"), "{said}");
    let asked = f.open_request("the promotion", |r| r.kind == RequestKind::Promotion);
    let promotion_id = asked.promotion_id.clone().expect("the promotion it asks for");
    assert_eq!(
        (asked.tool.as_deref(), asked.origin, asked.agent_id.as_str()),
        (Some("scratch_promote"), Origin::Chat, scout.as_str())
    );
    assert!(asked.text.contains(&note) && asked.text.contains("global scratchpad"), "{}", asked.text);
    assert!(asked.text.contains("The shop opens at nine on Sundays."), "{}", asked.text);
    assert_eq!(asked.expires_at, Some(asked.created_at + 24 * HOUR_MS));
    assert_eq!(promotion(&f, &promotion_id).status, PromotionStatus::Pending);
    assert!(global_texts(&f).is_empty(), "nothing copied before the user says so");
    let tray = f.engine.attention().tray_state().unwrap();
    assert_eq!((tray.open, tray.approvals), (1, 1));
    assert_eq!(tray.newest[0].label, "SCOUT wants to share a note");

    // Asking again for the same note: the same pending promotion, and no second request.
    let again = promote(&f, &scout, &note);
    assert!(again.contains(&promotion_id), "{again}");
    let open = f.engine.attention().open().unwrap();
    assert_eq!(open.len(), 1, "one request for one promotion: {open:#?}");

    let answered = f.engine.answer_attention(&asked.id, decision(Decision::AllowOnce)).unwrap();
    assert_eq!((answered.status, answered.decision), (RequestStatus::Answered, Some(Decision::AllowOnce)));
    let decided = promotion(&f, &promotion_id);
    assert_eq!(decided.status, PromotionStatus::Approved);
    assert!(decided.copy_id.is_some(), "the copy was made");
    assert_eq!(global_texts(&f), ["The shop opens at nine on Sundays."]);
    assert!(f.engine.attention().open().unwrap().is_empty());
    assert!(f.engine.attention().grants().unwrap().is_empty(), "allowed once");
    let err = f.engine.answer_attention(&asked.id, decision(Decision::Deny)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert_eq!(promotion(&f, &promotion_id).status, PromotionStatus::Approved, "unchanged");
}

#[test]
fn a_promotion_decided_on_the_memory_page_closes_its_request() {
    let f = fixture(&["scout"]);
    let scout = f.ids[0].clone();
    let mut asked = Vec::new();
    for text in ["Deliveries come on Tuesdays.", "The till sticks in the cold.", "Oolong sells best."] {
        let note = write_note(&f, &scout, text);
        promote(&f, &scout, &note);
        asked.push(f.open_request("the promotion", |r| r.promotion_id.is_some() && r.text.contains(&note)));
    }
    let id = |i: usize| asked[i].promotion_id.clone().unwrap();

    let approved = f.engine.decide_promotion(&id(0), true).unwrap();
    assert_eq!(approved.status, PromotionStatus::Approved);
    let closed = f.engine.attention().get(&asked[0].id).unwrap();
    assert_eq!((closed.status, closed.decision), (RequestStatus::Answered, Some(Decision::AllowOnce)));
    let rejected = f.engine.decide_promotion(&id(1), false).unwrap();
    assert_eq!(rejected.status, PromotionStatus::Rejected);
    let closed = f.engine.attention().get(&asked[1].id).unwrap();
    assert_eq!((closed.status, closed.decision), (RequestStatus::Answered, Some(Decision::Deny)));
    let audit = f.engine.attention().audit(Some(&asked[1].id), None, 10).unwrap();
    assert_eq!((audit[0].actor.as_str(), audit[0].action), ("you", AuditAction::Denied));
    // And a request decided there cannot be answered again in the inbox.
    let err = f.engine.answer_attention(&asked[0].id, decision(Decision::Deny)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert_eq!(promotion(&f, &id(0)).status, PromotionStatus::Approved);

    // Deny in the inbox rejects it in memory.
    f.engine.answer_attention(&asked[2].id, decision(Decision::Deny)).unwrap();
    assert_eq!(promotion(&f, &id(2)).status, PromotionStatus::Rejected);
    assert_eq!(global_texts(&f), ["Deliveries come on Tuesdays."]);
    assert!(f.engine.attention().open().unwrap().is_empty());
}

#[test]
fn allow_always_for_promotions_copies_the_agents_next_ones_without_asking() {
    let f = fixture(&["scout"]);
    let scout = f.ids[0].clone();
    let note = write_note(&f, &scout, "Keep the green tea away from the window.");
    promote(&f, &scout, &note);
    let asked = f.open_request("the promotion", |r| r.kind == RequestKind::Promotion);
    f.engine.answer_attention(&asked.id, decision(Decision::AllowAlways)).unwrap();
    let grants = f.engine.attention().grants().unwrap();
    assert_eq!((grants.len(), grants[0].tool.as_str()), (1, "scratch_promote"));

    let next = write_note(&f, &scout, "Sunday hours are 9 to 1.");
    let said = promote(&f, &scout, &next);
    assert!(said.contains("without asking"), "{said}");
    assert!(f.engine.attention().open().unwrap().is_empty());
    assert_eq!(global_texts(&f).len(), 2, "{:?}", global_texts(&f));
    let granted = f.engine.attention().history(None, 1).unwrap().remove(0);
    assert_eq!((granted.kind, granted.status), (RequestKind::Promotion, RequestStatus::Answered));
    let audit = f.engine.attention().audit(Some(&granted.id), None, 10).unwrap();
    assert_eq!((audit[0].actor.as_str(), audit[0].action), ("clawboo", AuditAction::AllowedByGrant));
}

#[test]
fn an_expired_promotion_is_rejected_in_memory_too() {
    let f = fixture(&["scout"]);
    let scout = f.ids[0].clone();
    let note = write_note(&f, &scout, "The kettle needs descaling.");
    promote(&f, &scout, &note);
    let asked = f.open_request("the promotion", |r| r.kind == RequestKind::Promotion);
    let promotion_id = asked.promotion_id.clone().unwrap();
    assert_eq!(f.engine.attention().expire_due(asked.created_at + 24 * HOUR_MS).unwrap(), 1);
    let expired = f.engine.attention().get(&asked.id).unwrap();
    assert_eq!((expired.status, expired.decision), (RequestStatus::Expired, Some(Decision::Deny)));
    assert_eq!(promotion(&f, &promotion_id).status, PromotionStatus::Rejected, "denied, as the request says");
    assert!(global_texts(&f).is_empty());
    // Nor can the Memory page copy it afterwards.
    assert_eq!(f.engine.decide_promotion(&promotion_id, true).unwrap_err().code(), ErrorCode::InvalidInput);
    assert!(global_texts(&f).is_empty());
}
