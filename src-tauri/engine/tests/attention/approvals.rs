//! Approvals: a runtime's permission question waits for the user, expires denied, is withdrawn
//! when its run ends or Clawboo stops; "Allow always" grants and their revocation; what answers
//! what; the audit.

use std::sync::Arc;

use clawboo_engine::attention::{
    AttentionSettings, AuditAction, Decision, Origin, Raised, RequestKind, RequestStatus, Source, UserAnswer,
};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::runtimes::{PendingPermission, PermissionAnswer};
use clawboo_engine::ErrorCode;
use clawboo_testkit::wait_for;

use super::{fixture, now_ms, team, Scripted, HOUR_MS, LIMIT};

fn decision(decision: Decision) -> UserAnswer {
    UserAnswer::Decision { decision }
}

fn text(text: &str) -> UserAnswer {
    UserAnswer::Text { text: text.into() }
}

/// (actor, action) of a request's audit, oldest first.
fn audit_of(engine: &clawboo_engine::Engine, request_id: &str) -> Vec<(String, AuditAction)> {
    let mut lines: Vec<_> = engine
        .attention()
        .audit(Some(request_id), None, 100)
        .unwrap()
        .into_iter()
        .map(|e| (e.actor, e.action))
        .collect();
    lines.reverse();
    lines
}

/// The runtime's id of the permission question in run `run_id`'s activity.
fn runtime_question(f: &super::Fixture, run_id: &str) -> String {
    wait_for("the question in the run's activity", LIMIT, || {
        f.engine.chat().run_activity(run_id).unwrap().into_iter().find_map(|e| match e.event {
            clawboo_engine::runtimes::RunEvent::PermissionRequest { request_id, .. } => Some(request_id),
            _ => None,
        })
    })
}

fn line(actor: &str, action: AuditAction) -> (String, AuditAction) {
    (actor.to_owned(), action)
}

#[test]
fn the_expiry_is_one_to_720_hours() {
    let f = fixture(&["worker"]);
    let attention = f.engine.attention();
    assert_eq!(attention.settings().unwrap(), AttentionSettings { approval_expiry_hours: 24 }, "the default");
    for hours in [0, 721, u32::MAX] {
        let err = attention.set_settings(AttentionSettings { approval_expiry_hours: hours }).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput, "{hours} h: {err}");
    }
    assert_eq!(attention.settings().unwrap().approval_expiry_hours, 24, "nothing refused was kept");
    for hours in [720, 1] {
        attention.set_settings(AttentionSettings { approval_expiry_hours: hours }).unwrap();
        assert_eq!(attention.settings().unwrap().approval_expiry_hours, hours);
    }
    let super::Fixture { data, engine, .. } = f;
    drop(engine);
    let engine = data.open_with(vec![Arc::new(Scripted::default())]);
    assert_eq!(engine.attention().settings().unwrap().approval_expiry_hours, 1, "kept across a restart");
}

#[test]
fn an_unanswered_approval_stays_open_then_expires_denied_and_its_run_is_told() {
    let f = fixture(&["worker"]);
    let worker = &f.ids[0];
    let attention = f.engine.attention();
    let run = f.send(worker, "ask Write");
    let asked = f.open_permission(worker);
    assert_eq!(
        (asked.tool.as_deref(), asked.origin, asked.run_id.as_deref()),
        (Some("Write"), Origin::Chat, Some(run.as_str()))
    );
    assert_eq!((asked.team_id.as_deref(), asked.card_id.as_deref()), (None, None));
    assert_eq!(asked.text, "Write notes.md", "the runtime's description");
    assert!(asked.input.as_deref().unwrap().contains("\"file_path\": \"notes.md\""), "{:?}", asked.input);
    assert_eq!(asked.expires_at, Some(asked.created_at + 24 * HOUR_MS));

    // It waits: nothing is due yet, not even a millisecond before its expiry.
    assert_eq!(attention.expire_due(now_ms()).unwrap(), 0);
    assert_eq!(attention.expire_due(asked.created_at + 24 * HOUR_MS - 1).unwrap(), 0);
    assert_eq!(f.status(&asked.id), RequestStatus::Open);
    assert_eq!(f.engine.chat().run(&run).unwrap().status, RunStatus::Running, "the run waits for the user");
    assert!(f.runtime.told(&run).is_empty());

    // A day later: denied, and the run hears so.
    assert_eq!(attention.expire_due(now_ms() + 25 * HOUR_MS).unwrap(), 1);
    let expired = attention.get(&asked.id).unwrap();
    assert_eq!((expired.status, expired.decision), (RequestStatus::Expired, Some(Decision::Deny)));
    assert_eq!(f.reply_of(worker, &run), "allowed=false");
    assert_eq!(f.runtime.told(&run), [false]);
    assert!(attention.open().unwrap().is_empty());
    assert_eq!(
        audit_of(&f.engine, &asked.id),
        [line("@worker", AuditAction::Raised), line("clawboo", AuditAction::Expired)]
    );
    let err = f.engine.answer_attention(&asked.id, decision(Decision::AllowOnce)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict, "too late: {err}");

    // A shorter limit applies to the approvals raised after it.
    attention.set_settings(AttentionSettings { approval_expiry_hours: 1 }).unwrap();
    let second = f.send(worker, "ask Bash");
    let asked = f.open_permission(worker);
    assert_eq!(asked.expires_at, Some(asked.created_at + HOUR_MS));
    assert_eq!(attention.expire_due(asked.created_at + HOUR_MS - 1).unwrap(), 0);
    assert_eq!(attention.expire_due(asked.created_at + HOUR_MS).unwrap(), 1);
    assert_eq!(f.reply_of(worker, &second), "allowed=false");
}

#[test]
fn an_approval_whose_run_ended_is_withdrawn_and_can_no_longer_be_answered() {
    let f = fixture(&["worker"]);
    let worker = &f.ids[0];
    let run = f.send(worker, "ask Write");
    let asked = f.open_permission(worker);
    f.engine.chat().cancel(&run).unwrap();
    assert_eq!(f.finished(&run), RunStatus::Cancelled);
    wait_for("the withdrawal", LIMIT, || (f.status(&asked.id) == RequestStatus::Withdrawn).then_some(()));
    let err = f.engine.answer_attention(&asked.id, decision(Decision::AllowOnce)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::RunNotActive, "{err}");
    let err = f.engine.answer_permission(&run, &runtime_question(&f, &run), Decision::AllowOnce).unwrap_err();
    assert_eq!(err.code(), ErrorCode::RunNotActive, "from the run's timeline too: {err}");
    assert!(f.runtime.told(&run).is_empty(), "nothing reached the ended run");
    assert_eq!(f.status(&asked.id), RequestStatus::Withdrawn);
    assert_eq!(
        audit_of(&f.engine, &asked.id),
        [line("@worker", AuditAction::Raised), line("clawboo", AuditAction::Withdrawn)]
    );
    assert!(f.engine.attention().open().unwrap().is_empty());
    assert_eq!(f.engine.attention().tray_state().unwrap().open, 0);
}

#[test]
fn after_a_restart_a_permission_left_open_is_withdrawn_and_a_question_stays_open() {
    let f = fixture(&["worker", "asker"]);
    let (worker, asker) = (f.ids[0].clone(), f.ids[1].clone());
    let asked_run = f.send(&asker, "askuser Which shelf do the new teas go on?");
    assert!(f.reply_of(&asker, &asked_run).contains("inbox"));
    let question = f.open_request("the question", |r| r.kind == RequestKind::Question);
    f.send(&worker, "ask Write");
    let permission = f.open_permission(&worker);

    let super::Fixture { data, engine, .. } = f;
    drop(engine); // the app quits
    let engine = data.open_with(vec![Arc::new(Scripted::default())]);
    let attention = engine.attention();
    assert_eq!(attention.get(&permission.id).unwrap().status, RequestStatus::Withdrawn);
    assert_eq!(attention.get(&question.id).unwrap().status, RequestStatus::Open);
    let open: Vec<String> = attention.open().unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(open, [question.id.clone()]);
    assert_eq!(attention.tray_state().unwrap().open, 1);
    let err = engine.answer_attention(&permission.id, decision(Decision::AllowOnce)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::RunNotActive, "{err}");
    // The question is answered into the asker's chat, by the new app.
    engine.answer_attention(&question.id, text("The top shelf.")).unwrap();
    let page = engine.chat().history_page(&asker, None, 100).unwrap();
    assert!(page.messages.iter().any(|m| m.content == "The top shelf."), "{:?}", page.messages);
}

/// A run deaf to Stop keeps its approval open until Clawboo is gone, as after a crash: the next
/// start withdraws it. (Closing waits for the run, up to its limit of 8 s.)
#[test]
fn an_approval_left_open_when_clawboo_went_away_is_withdrawn_at_the_next_start() {
    let f = fixture(&["worker"]);
    let worker = f.ids[0].clone();
    let run = f.send(&worker, "ask! Write");
    let permission = f.open_permission(&worker);
    let super::Fixture { data, engine, .. } = f;
    drop(engine);
    let engine = data.open_with(vec![Arc::new(Scripted::default())]);
    let found = engine.attention().get(&permission.id).unwrap();
    assert_eq!(found.status, RequestStatus::Withdrawn);
    let audit = engine.attention().audit(Some(&permission.id), None, 10).unwrap();
    assert_eq!((audit[0].actor.as_str(), audit[0].action), ("clawboo", AuditAction::Withdrawn));
    assert!(audit[0].detail.contains("closed before an answer"), "withdrawn at start: {}", audit[0].detail);
    assert_ne!(engine.chat().run(&run).unwrap().status, RunStatus::Running);
}

#[test]
fn allow_always_lets_that_agent_use_that_tool_without_asking_until_revoked() {
    let f = fixture(&["ada", "bo"]);
    let (ada, bo) = (f.ids[0].clone(), f.ids[1].clone());
    let attention = f.engine.attention();
    assert!(attention.grants().unwrap().is_empty());

    let run = f.send(&ada, "ask Write");
    let asked = f.open_permission(&ada);
    let answered = f.engine.answer_attention(&asked.id, decision(Decision::AllowAlways)).unwrap();
    assert_eq!((answered.status, answered.decision), (RequestStatus::Answered, Some(Decision::AllowAlways)));
    assert_eq!(f.reply_of(&ada, &run), "allowed=true");
    let grants = attention.grants().unwrap();
    assert_eq!(grants.len(), 1);
    let grant = grants[0].clone();
    assert_eq!(
        (grant.agent_id.as_str(), grant.agent_name.as_str(), grant.tool.as_str(), grant.request_id.as_deref()),
        (ada.as_str(), "ADA", "Write", Some(asked.id.as_str()))
    );

    // The next Write of @ada goes through without asking; it is kept in the history all the same.
    let through = f.send(&ada, "ask Write");
    assert_eq!(f.reply_of(&ada, &through), "allowed=true");
    assert!(attention.open().unwrap().is_empty(), "nothing waited for the user");
    let kept = attention.history(None, 10).unwrap().into_iter().find(|r| r.run_id.as_deref() == Some(through.as_str()));
    let kept = kept.expect("the granted request is in the history");
    assert_eq!((kept.status, kept.decision), (RequestStatus::Answered, Some(Decision::AllowAlways)));
    assert_eq!(
        audit_of(&f.engine, &kept.id),
        [line("@ada", AuditAction::Raised), line("clawboo", AuditAction::AllowedByGrant)]
    );
    // The same, asked directly: Granted, and the runtime is told yes at once.
    let (reply, answer) = tokio::sync::oneshot::channel();
    let source = Source { agent_id: ada.clone(), run_id: Some("run-direct".into()), ..Source::default() };
    let pending = PendingPermission {
        request_id: "direct-1".into(),
        tool: "Write".into(),
        input: serde_json::json!({"file_path": "x"}),
        description: "Write x".into(),
        reply,
    };
    let raised = attention.ask_permission(&source, pending).unwrap();
    assert!(matches!(&raised, Raised::Granted(r) if r.status == RequestStatus::Answered), "{raised:?}");
    assert_eq!(answer.blocking_recv().unwrap(), PermissionAnswer { allow: true });

    // Another tool of @ada, and Write for another agent, still ask.
    let bash = f.send(&ada, "ask Bash");
    let asked = f.open_permission(&ada);
    assert_eq!(asked.tool.as_deref(), Some("Bash"));
    f.engine.answer_attention(&asked.id, decision(Decision::Deny)).unwrap();
    assert_eq!(f.reply_of(&ada, &bash), "allowed=false");
    let other = f.send(&bo, "ask Write");
    let asked = f.open_permission(&bo);
    f.engine.answer_attention(&asked.id, decision(Decision::AllowOnce)).unwrap();
    assert_eq!(f.reply_of(&bo, &other), "allowed=true");
    assert_eq!(attention.grants().unwrap(), [grant.clone()], "Allow once and Deny grant nothing");

    // Revoked: @ada asks again.
    attention.revoke_grant(&grant.id).unwrap();
    assert!(attention.grants().unwrap().is_empty());
    let revoked = attention.audit(None, None, 100).unwrap().into_iter().find(|e| e.action == AuditAction::GrantRevoked);
    let revoked = revoked.expect("the revocation is audited");
    assert_eq!(revoked.actor, "you");
    assert!(revoked.detail.contains("@ada") && revoked.detail.contains("Write"), "{}", revoked.detail);
    let again = f.send(&ada, "ask Write");
    let asked = f.open_permission(&ada);
    assert_eq!(asked.run_id.as_deref(), Some(again.as_str()));
    assert_eq!(f.engine.chat().run(&again).unwrap().status, RunStatus::Running, "it waits for the user again");
    f.engine.answer_attention(&asked.id, decision(Decision::Deny)).unwrap();
    assert_eq!(f.reply_of(&ada, &again), "allowed=false");
    assert_eq!(attention.revoke_grant(&grant.id).unwrap_err().code(), ErrorCode::NotFound);
}

#[test]
fn a_question_takes_text_an_approval_a_decision_and_each_is_answered_once() {
    let f = fixture(&["worker", "asker"]);
    let (worker, asker) = (f.ids[0].clone(), f.ids[1].clone());
    let asked_run = f.send(&asker, "askuser Which supplier?");
    f.reply_of(&asker, &asked_run);
    let question = f.open_request("the question", |r| r.kind == RequestKind::Question);
    let run = f.send(&worker, "ask Write");
    let permission = f.open_permission(&worker);

    for wrong in [decision(Decision::AllowOnce), decision(Decision::AllowAlways), text("  ")] {
        let err = f.engine.answer_attention(&question.id, wrong.clone()).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput, "{wrong:?}: {err}");
    }
    let err = f.engine.answer_attention(&question.id, text(&"x".repeat(16_001))).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    let err = f.engine.answer_attention(&permission.id, text("yes, allow it")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput, "{err}");
    assert_eq!(f.engine.answer_attention("r-0000000000", text("hi")).unwrap_err().code(), ErrorCode::NotFound);
    assert_eq!(
        f.engine.answer_permission(&run, "no-such-question", Decision::AllowOnce).unwrap_err().code(),
        ErrorCode::NotFound
    );
    // Nothing wrong changed anything.
    assert_eq!(f.status(&question.id), RequestStatus::Open);
    assert_eq!(f.status(&permission.id), RequestStatus::Open);
    assert!(f.runtime.told(&run).is_empty());
    assert_eq!(f.engine.attention().tray_state().unwrap().open, 2);

    let answered = f.engine.answer_attention(&question.id, text("  Kettle & Co.  ")).unwrap();
    assert_eq!((answered.status, answered.answer.as_deref()), (RequestStatus::Answered, Some("Kettle & Co.")));
    let err = f.engine.answer_attention(&question.id, text("Another one")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict, "{err}");
    // The button in the run's timeline answers the same request (by the runtime's question id).
    let allowed = f.engine.answer_permission(&run, &runtime_question(&f, &run), Decision::AllowOnce).unwrap();
    assert_eq!((allowed.id.as_str(), allowed.status), (permission.id.as_str(), RequestStatus::Answered));
    let err = f.engine.answer_attention(&permission.id, decision(Decision::Deny)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict, "{err}");
    assert_eq!(f.reply_of(&worker, &run), "allowed=true");
    assert_eq!(f.runtime.told(&run), [true], "told once");
    assert!(f.engine.attention().open().unwrap().is_empty());
}

#[test]
fn the_audit_names_who_did_what() {
    let f = fixture(&["lead", "scout", "worker"]);
    let (lead, scout, worker) = (f.ids[0].clone(), f.ids[1].clone(), f.ids[2].clone());
    let (_, general) = team(&f.engine, "Shop", &f.ids);
    let attention = f.engine.attention();

    // Raised by @lead and @scout in the team chat, then the user answers one and clears the other.
    f.engine.chat().send_team(&general, "@lead askuser Which supplier?\n@scout say %user which budget?").unwrap();
    let asked = f.open_request("lead's question", |r| r.agent_id == lead);
    let at_user = f.open_request("scout's question", |r| r.agent_id == scout);
    f.engine.answer_attention(&asked.id, text("Kettle & Co.")).unwrap();
    f.engine.chat().send_team(&general, "Thanks, all.").unwrap();
    // Raised by @worker, one allowed always, one denied, one expired, one withdrawn.
    let mut ids = Vec::new();
    for (how, tool) in [("always", "Write"), ("deny", "Bash"), ("expire", "Edit"), ("withdraw", "Read")] {
        let run = f.send(&worker, &format!("ask {tool}"));
        let asked = f.open_permission(&worker);
        match how {
            "always" => drop(f.engine.answer_attention(&asked.id, decision(Decision::AllowAlways)).unwrap()),
            "deny" => drop(f.engine.answer_attention(&asked.id, decision(Decision::Deny)).unwrap()),
            "expire" => assert_eq!(attention.expire_due(now_ms() + 25 * HOUR_MS).unwrap(), 1),
            _ => f.engine.chat().cancel(&run).unwrap(),
        }
        f.finished(&run);
        ids.push(asked.id);
    }
    wait_for("the withdrawal", LIMIT, || (f.status(&ids[3]) == RequestStatus::Withdrawn).then_some(()));
    let granted_run = f.send(&worker, "ask Write");
    f.reply_of(&worker, &granted_run);
    let grant = attention.grants().unwrap()[0].id.clone();
    attention.revoke_grant(&grant).unwrap();

    use AuditAction::*;
    assert_eq!(audit_of(&f.engine, &asked.id), [line("@lead", Raised), line("you", Answered)]);
    assert_eq!(audit_of(&f.engine, &at_user.id), [line("@scout", Raised), line("you", Cleared)]);
    assert_eq!(audit_of(&f.engine, &ids[0]), [line("@worker", Raised), line("you", AllowedAlways)]);
    assert_eq!(audit_of(&f.engine, &ids[1]), [line("@worker", Raised), line("you", Denied)]);
    assert_eq!(audit_of(&f.engine, &ids[2]), [line("@worker", Raised), line("clawboo", Expired)]);
    assert_eq!(audit_of(&f.engine, &ids[3]), [line("@worker", Raised), line("clawboo", Withdrawn)]);
    // The whole audit, newest first: every line names you, an agent, or Clawboo.
    let all = attention.audit(None, None, 100).unwrap();
    assert!(all.windows(2).all(|w| w[0].seq > w[1].seq), "newest first");
    assert_eq!((all[0].actor.as_str(), all[0].action, all[0].request_id.as_deref()), ("you", GrantRevoked, None));
    assert_eq!((all[1].actor.as_str(), all[1].action), ("clawboo", AllowedByGrant));
    assert_eq!(all.len(), 2 + 2 + 4 * 2 + 2 + 1, "{all:#?}");
    for entry in &all {
        assert!(["you", "clawboo", "@lead", "@scout", "@worker"].contains(&entry.actor.as_str()), "{entry:?}");
        assert!(!entry.detail.is_empty());
    }
    // Paging by sequence.
    let older = attention.audit(None, Some(all[4].seq), 100).unwrap();
    assert_eq!(older.first().map(|e| e.seq), Some(all[5].seq));
    assert_eq!(older.len(), all.len() - 5);
}

#[test]
fn a_deleted_agents_one_to_one_questions_are_withdrawn_its_team_questions_stay() {
    let f = fixture(&["lead", "asker"]);
    let asker = f.ids[1].clone();
    let (_, general) = team(&f.engine, "Shop", &f.ids);
    let run = f.send(&asker, "askuser Which shelf?");
    f.reply_of(&asker, &run);
    let in_chat = f.open_request("the chat question", |r| r.origin == Origin::Chat);
    f.engine.chat().send_team(&general, "@asker askuser Which supplier?").unwrap();
    let in_team = f.open_request("the team question", |r| r.origin == Origin::Team);
    f.room_reply(&general, &asker, "inbox");

    f.engine.delete_agent(&asker).unwrap();
    assert_eq!(f.status(&in_chat.id), RequestStatus::Withdrawn, "its chat is gone: nobody could get the answer");
    let err = f.engine.answer_attention(&in_chat.id, text("The top one.")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::RunNotActive, "{err}");
    assert_eq!(audit_of(&f.engine, &in_chat.id)[1], line("clawboo", AuditAction::Withdrawn));
    // The team question still reaches the team: the user's answer goes to the room's leader.
    assert_eq!(f.status(&in_team.id), RequestStatus::Open);
    f.engine.answer_attention(&in_team.id, text("Kettle & Co.")).unwrap();
    assert_eq!(f.room_reply(&general, &f.ids[0], "Kettle").content, "heard: Kettle & Co.");
    assert!(f.engine.attention().open().unwrap().is_empty());
}

#[test]
fn a_question_whose_team_or_card_was_deleted_leaves_the_inbox_when_answered() {
    let f = fixture(&["lead", "painter"]);
    let painter = f.ids[1].clone();
    let (team_id, general) = team(&f.engine, "Shop", &f.ids);
    f.engine.chat().send_team(&general, "@painter askuser Which supplier?").unwrap();
    let in_team = f.open_request("the team question", |r| r.origin == Origin::Team);
    f.room_reply(&general, &painter, "inbox");
    let card = f
        .engine
        .board()
        .create(
            clawboo_engine::board::Actor::User,
            clawboo_engine::board::NewCard {
                title: "askuser Which colour?".into(),
                description: String::new(),
                assignee_id: Some(painter.clone()),
                team_id: None,
                status: None,
                priority: None,
                depends_on: Vec::new(),
                check_command: None,
                project_folder: None,
            },
        )
        .unwrap();
    f.engine.runner().start(&card.id, clawboo_engine::runner::StartOptions::default()).unwrap();
    let on_card = f.open_request("the card question", |r| r.origin == Origin::Card);
    wait_for("the card's run to end", LIMIT, || {
        f.engine.board().get(&card.id).unwrap().claimed_by_run.is_none().then_some(())
    });

    f.engine.teams().delete(&team_id).unwrap();
    f.engine.board().delete(&card.id).unwrap();
    assert_eq!(f.engine.attention().tray_state().unwrap().open, 2, "still listed until someone answers");
    for asked in [&in_team, &on_card] {
        let err = f.engine.answer_attention(&asked.id, text("Kettle & Co.")).unwrap_err();
        assert_eq!(err.code(), ErrorCode::NotFound, "{err}");
        assert_eq!(f.status(&asked.id), RequestStatus::Withdrawn, "nobody can ever get its answer");
        assert_eq!(audit_of(&f.engine, &asked.id)[1], line("clawboo", AuditAction::Withdrawn));
    }
    assert!(f.engine.attention().open().unwrap().is_empty());
}

#[test]
fn a_card_run_waiting_for_the_users_answer_is_not_stopped_for_silence() {
    let f = fixture(&["worker"]);
    let worker = f.ids[0].clone();
    let runner = f.engine.runner();
    runner
        .set_settings(clawboo_engine::runner::RunnerSettings { silence_secs: 1, ..runner.settings().unwrap() })
        .unwrap();
    let card = f
        .engine
        .board()
        .create(
            clawboo_engine::board::Actor::User,
            clawboo_engine::board::NewCard {
                // After the answer the model thinks for over half the silence limit: the answer
                // may come just before the runner's silence check, which must then give the run
                // a whole limit from there (it stopped it at once before).
                title: "ask Write think 600".into(),
                description: "Write the notes.".into(),
                assignee_id: Some(worker.clone()),
                team_id: None,
                status: None,
                priority: None,
                depends_on: Vec::new(),
                check_command: None,
                project_folder: None,
            },
        )
        .unwrap();
    let run = runner.start(&card.id, clawboo_engine::runner::StartOptions::default()).unwrap().run_id;
    let asked = f.open_permission(&worker);
    assert_eq!((asked.origin, asked.card_id.as_deref()), (Origin::Card, Some(card.id.as_str())));
    // The user answers after several times the silence limit.
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert_eq!(f.status(&asked.id), RequestStatus::Open, "the run still waits for the answer");
    assert_eq!(f.engine.chat().run(&run).unwrap().status, RunStatus::Running);
    f.engine.answer_attention(&asked.id, decision(Decision::AllowOnce)).unwrap();
    let done = wait_for("the card's run to end", LIMIT, || {
        let card = f.engine.board().get(&card.id).unwrap();
        (card.claimed_by_run.is_none() && card.status != clawboo_engine::board::CardStatus::InProgress).then_some(card)
    });
    assert_eq!(done.status, clawboo_engine::board::CardStatus::InReview, "{:?}", done.blocked_reason);
    assert_eq!(f.runtime.told(&run), [true]);
}
