//! `routine_create`: an agent proposes, the user decides.

use clawboo_engine::attention::{Decision, Origin, RequestKind, RequestStatus, UserAnswer};
use clawboo_engine::chat::{ChatRole, RunStatus};
use clawboo_engine::routines::{CreatedBy, RoutineState};
use clawboo_engine::ErrorCode;

use super::*;

impl Fixture {
    /// Sends `text` to `agent_id`'s one-to-one chat and returns the agent's reply.
    fn ask_one_to_one(&self, agent_id: &str, text: &str) -> String {
        let sent = self.engine.chat().send(agent_id, text).unwrap();
        let run = sent.run.unwrap().id;
        wait_for("the reply", LIMIT, || {
            let summary = self.engine.chat().run(&run).unwrap();
            (summary.status != RunStatus::Running).then_some(())
        });
        let page = self.engine.chat().history_page(agent_id, None, 50).unwrap();
        page.messages
            .iter()
            .rev()
            .find(|m| m.role == ChatRole::Assistant)
            .map(|m| m.content.clone())
            .unwrap_or_default()
    }

    fn proposals(&self) -> Vec<clawboo_engine::attention::AttentionRequest> {
        self.engine.attention().open().unwrap().into_iter().filter(|r| r.kind == RequestKind::RoutineProposal).collect()
    }
}

#[test]
fn an_agents_proposal_waits_for_approval_and_becomes_a_routine_only_on_allow() {
    let t0 = crate::ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let reply = f.ask_one_to_one(
        &f.agent_id,
        r#"propose {"name": "Morning digest", "prompt": "Summarise yesterday's orders.", "cron": "0 9 * * 1-5", "time_zone": "Europe/Berlin"}"#,
    );
    assert!(reply.contains("waits for the user's approval"), "{reply}");
    assert!(f.engine.routines().list().unwrap().is_empty(), "nothing until the user allows it");
    let proposals = f.proposals();
    assert_eq!(proposals.len(), 1);
    let request = &proposals[0];
    assert_eq!((request.origin, request.agent_id.as_str()), (Origin::Chat, f.agent_id.as_str()));
    assert!(request.text.contains("\"Morning digest\" for itself"), "{}", request.text);
    assert!(request.text.contains("Weekdays at 09:00 (Europe/Berlin)"), "{}", request.text);
    assert!(request.text.contains("Summarise yesterday's orders."), "{}", request.text);
    assert!(request.expires_at.is_some(), "an approval");

    f.engine.answer_attention(&request.id, UserAnswer::Decision { decision: Decision::AllowOnce }).unwrap();
    let routines = f.engine.routines().list().unwrap();
    assert_eq!(routines.len(), 1);
    let routine = &routines[0];
    assert_eq!((routine.name.as_str(), routine.agent_id.as_deref()), ("Morning digest", Some(f.agent_id.as_str())));
    assert_eq!(
        (routine.created_by, routine.creator_agent_id.as_deref()),
        (CreatedBy::Agent, Some(f.agent_id.as_str()))
    );
    assert_eq!(routine.approval_id.as_deref(), Some(request.id.as_str()));
    assert_eq!((routine.state, routine.next_fire_at), (RoutineState::Active, Some(crate::ms("2026-03-02T08:00:00Z"))));
    assert_eq!(f.engine.attention().get(&request.id).unwrap().status, RequestStatus::Answered);

    // Denied: nothing is created.
    f.ask_one_to_one(&f.agent_id, r#"propose {"name": "Spam", "prompt": "Email everyone.", "every_minutes": 1}"#);
    let denied = f.proposals().pop().unwrap();
    f.engine.answer_attention(&denied.id, UserAnswer::Decision { decision: Decision::Deny }).unwrap();
    assert_eq!(f.engine.routines().list().unwrap().len(), 1);
    // Answered once: a second answer cannot create it after all.
    let e = f.engine.answer_attention(&denied.id, UserAnswer::Decision { decision: Decision::AllowOnce }).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Conflict);
    assert_eq!(f.engine.routines().list().unwrap().len(), 1);
}

#[test]
fn what_the_agent_sends_is_checked_and_a_bad_proposal_raises_nothing() {
    let t0 = crate::ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let (_team, _general, helper) = f.team();
    for (args, says) in [
        (r#"{"name": "x", "prompt": "y", "cron": "0 8 * *"}"#, "has 5 fields"),
        (r#"{"name": "x", "prompt": "y", "cron": "0 8 * * *", "time_zone": "Moon/Base"}"#, "not a known time zone"),
        (r#"{"name": "x", "prompt": "y", "at": "2026-03-01T09:00:00Z"}"#, "already passed"),
        (r#"{"name": "x", "prompt": "y", "every_minutes": 0}"#, "at least 1"),
        (r#"{"name": "x", "prompt": "y"}"#, "exactly one of"),
        (r#"{"name": "x", "prompt": "y", "cron": "0 8 * * *", "every_minutes": 5}"#, "exactly one of"),
        (r#"{"name": "x", "prompt": "y", "every_minutes": 5, "for": "@helper"}"#, "only for yourself"),
        (r#"{"name": "x", "prompt": "y", "every_minutes": 5, "owner": "me"}"#, "unknown argument"),
    ] {
        let reply = f.ask_one_to_one(&f.agent_id, &format!("propose {args}"));
        assert!(reply.starts_with("ERROR: ") && reply.contains(says), "{args}: {reply}");
    }
    assert!(f.proposals().is_empty(), "no request for a bad proposal");
    let _ = helper;
}

#[test]
fn a_leader_proposes_for_a_member_of_its_team_only_through_the_approval() {
    let t0 = crate::ms("2026-03-02T07:00:00Z");
    let f = fixture(t0);
    let (team_id, general, helper) = f.team();
    let outsider = f.engine.agents().create(agent("outsider")).unwrap();
    let _ = outsider;
    f.engine
        .chat()
        .send_team(
            &general,
            r#"propose {"name": "Restock", "prompt": "Check stock levels.", "every_minutes": 120, "for": "helper"}"#,
        )
        .unwrap();
    let request = wait_for("the proposal", LIMIT, || f.proposals().pop());
    assert_eq!((request.origin, request.team_id.as_deref()), (Origin::Team, Some(team_id.as_str())));
    assert!(request.text.contains("\"Restock\" for @helper"), "{}", request.text);
    f.engine.answer_attention(&request.id, UserAnswer::Decision { decision: Decision::AllowOnce }).unwrap();
    let routine = f.engine.routines().list().unwrap().pop().unwrap();
    assert_eq!(routine.agent_id.as_deref(), Some(helper.as_str()), "the member's routine");
    assert_eq!(routine.creator_agent_id.as_deref(), Some(f.agent_id.as_str()), "proposed by the leader");
    assert_eq!(routine.next_fire_at, Some(t0 + 120 * MINUTE));

    // Not for someone outside the team.
    let reply_of = |text: &str| {
        wait_for("the leader's reply", LIMIT, || {
            let page = f.engine.chat().room_page(&general, None, 100).unwrap();
            page.messages.iter().rev().find(|m| m.content.contains(text)).map(|m| m.content.clone())
        })
    };
    f.engine
        .chat()
        .send_team(
            &general,
            r#"propose {"name": "Snoop", "prompt": "Read mail.", "every_minutes": 60, "for": "outsider"}"#,
        )
        .unwrap();
    let reply = reply_of("not a member of Shop");
    assert!(reply.starts_with("ERROR: "), "{reply}");
    assert_eq!(f.engine.routines().list().unwrap().len(), 1);
}
