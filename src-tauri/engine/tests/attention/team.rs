//! Questions in team chat: `@user` in a reply asks the user (the message stays as written); a
//! message the user types in the team's chat clears the questions asked there (not approvals,
//! nor questions of the team's cards); an answer from the inbox closes only its own request.

use std::sync::Arc;

use clawboo_engine::attention::{AuditAction, Decision, Origin, RequestKind, RequestStatus, UserAnswer};
use clawboo_engine::board::{Actor, CardStatus, NewCard};
use clawboo_engine::chat::team::RoomMessageKind;
use clawboo_engine::routines::ManualClock;
use clawboo_engine::runner::StartOptions;
use clawboo_testkit::wait_for;

use super::{fixture, team, LIMIT};

#[test]
fn at_user_in_a_team_reply_raises_a_question_and_the_message_stays_as_written() {
    let f = fixture(&["lead", "scout"]);
    let (team_id, general) = team(&f.engine, "Shop", &f.ids);
    let scout = &f.ids[1];
    f.engine
        .chat()
        .send_team(
            &general,
            "@scout say Working on it.\nsay\nsay %user which budget, 5k or 10k?\nsay\nsay Meanwhile I assume 5k.",
        )
        .unwrap();
    let written = "Working on it.\n\n@user which budget, 5k or 10k?\n\nMeanwhile I assume 5k.";
    let reply = f.room_reply(&general, scout, "Meanwhile");
    assert_eq!(reply.content, written);
    let question = f.open_request("the @user question", |r| r.agent_id == *scout);
    assert_eq!((question.kind, question.origin), (RequestKind::Question, Origin::Team));
    assert_eq!(question.text, "@user which budget, 5k or 10k?", "the paragraph that asks");
    assert_eq!(question.message_id.as_deref(), Some(reply.id.as_str()));
    assert_eq!(question.team_id.as_deref(), Some(team_id.as_str()));
    assert_eq!(question.team_name.as_deref(), Some("Shop"));
    assert_eq!(question.room_id.as_deref(), Some(general.as_str()));
    assert_eq!(question.room_name.as_deref(), Some("General"));
    assert_eq!(question.run_id, reply.run_id);
    assert_eq!((question.agent_name.as_str(), question.agent_handle.as_str()), ("SCOUT", "scout"));
    assert_eq!(question.expires_at, None, "questions do not expire");
    // The room message is as the agent wrote it, once.
    let messages = f.engine.chat().room_page(&general, None, 100).unwrap().messages;
    let replies: Vec<_> = messages.iter().filter(|m| m.kind == RoomMessageKind::Reply).collect();
    assert_eq!(replies.len(), 1);
    assert_eq!((replies[0].id.as_str(), replies[0].content.as_str()), (reply.id.as_str(), written));
    let tray = f.engine.attention().tray_state().unwrap();
    assert_eq!((tray.open, tray.questions, tray.approvals), (1, 1, 0));
    assert_eq!(tray.tooltip, "Clawboo: 1 request needs you");
    assert_eq!(tray.newest[0].label, "SCOUT asks: @user which budget, 5k or 10k?");

    // An address is no mention: a reply without `@user` asks nobody.
    f.engine.chat().send_team(&general, "@scout say email me at shop@example.com").unwrap();
    f.room_reply(&general, scout, "example.com");
    assert_eq!(f.engine.attention().history(None, 10).unwrap().len(), 1);
}

#[test]
fn a_message_typed_in_the_team_chat_clears_its_questions_but_not_approvals_nor_card_questions() {
    let f = fixture(&["lead", "scout", "worker"]);
    let (lead, scout, worker) = (f.ids[0].clone(), f.ids[1].clone(), f.ids[2].clone());
    let (team_id, general) = team(&f.engine, "Shop", &f.ids);

    // A card of the team whose run asks the user: its answer goes to the card.
    let card = f
        .engine
        .board()
        .create(
            Actor::User,
            NewCard {
                title: "askuser Which vendor for the new shelves?".into(),
                description: "Order the shelves.".into(),
                assignee_id: Some(scout.clone()),
                team_id: Some(team_id.clone()),
                status: None,
                priority: None,
                depends_on: Vec::new(),
                check_command: None,
                project_folder: None,
            },
        )
        .unwrap();
    f.engine.runner().start(&card.id, StartOptions::default()).unwrap();
    let on_card = f.open_request("the card's question", |r| r.card_id.is_some());
    assert_eq!((on_card.origin, on_card.team_id.as_deref()), (Origin::Card, Some(team_id.as_str())));
    assert_eq!(
        (on_card.card_number, on_card.card_title.as_deref()),
        (Some(i64::from(card.number)), Some(card.title.as_str()))
    );
    wait_for("the card's run to end", LIMIT, || {
        (f.engine.board().get(&card.id).unwrap().status != CardStatus::InProgress).then_some(())
    });

    // In the team chat: @user from scout, ask_user from the leader, a permission from worker.
    f.engine
        .chat()
        .send_team(&general, "@scout say %user which budget?\n@lead askuser Which supplier?\n@worker ask Write")
        .unwrap();
    let by_scout = f.open_request("scout's question", |r| r.agent_id == scout && r.origin == Origin::Team);
    let by_lead = f.open_request("lead's question", |r| r.agent_id == lead && r.kind == RequestKind::Question);
    let approval = f.open_permission(&worker);
    assert_eq!(
        (approval.team_id.as_deref(), approval.room_id.as_deref()),
        (Some(team_id.as_str()), Some(general.as_str()))
    );
    assert_eq!(f.status(&on_card.id), RequestStatus::Open, "the message that asked cleared no card question");
    let tray = f.engine.attention().tray_state().unwrap();
    assert_eq!((tray.open, tray.questions, tray.approvals), (4, 3, 1));

    // The user writes in the team chat.
    f.engine.chat().send_team(&general, "Thanks, carry on.").unwrap();
    assert_eq!(f.status(&by_scout.id), RequestStatus::Cleared);
    assert_eq!(f.status(&by_lead.id), RequestStatus::Cleared);
    assert_eq!(f.status(&approval.id), RequestStatus::Open, "an approval takes a decision");
    assert_eq!(f.status(&on_card.id), RequestStatus::Open, "a card's question is answered on the card");
    let cleared = f.engine.attention().audit(Some(&by_scout.id), None, 10).unwrap();
    assert_eq!((cleared[0].actor.as_str(), cleared[0].action), ("you", AuditAction::Cleared));
    let open: Vec<String> = f.engine.attention().open().unwrap().into_iter().map(|r| r.id).collect();
    assert_eq!(open, [approval.id.clone(), on_card.id.clone()], "newest first");

    // Commands are not messages: they clear nothing.
    f.engine.chat().send_team(&general, "@scout say %user one more thing?").unwrap();
    let again = f.open_request("scout's second question", |r| r.agent_id == scout && r.origin == Origin::Team);
    f.engine.chat().send_team(&general, "/rule Answer in English.").unwrap();
    assert_eq!(f.status(&again.id), RequestStatus::Open);

    // The worker still waits for its answer.
    assert!(f.runtime.told(approval.run_id.as_deref().unwrap()).is_empty());
    f.engine.answer_attention(&approval.id, UserAnswer::Decision { decision: Decision::Deny }).unwrap();
    f.room_reply(&general, &worker, "allowed=false");
}

#[test]
fn an_answer_from_the_inbox_closes_only_its_own_request_and_reaches_its_agent() {
    let f = fixture(&["lead", "scout"]);
    let (lead, scout) = (f.ids[0].clone(), f.ids[1].clone());
    let (_, general) = team(&f.engine, "Shop", &f.ids);
    f.engine.chat().send_team(&general, "@scout say %user which budget?\n@lead askuser Which supplier?").unwrap();
    let by_scout = f.open_request("scout's question", |r| r.agent_id == scout);
    let by_lead = f.open_request("lead's question", |r| r.agent_id == lead);
    f.room_settled(&general, "both replies", |m| m.iter().filter(|m| m.kind == RoomMessageKind::Reply).count() == 2);

    let answered = f.engine.answer_attention(&by_scout.id, UserAnswer::Text { text: "10k, no more".into() }).unwrap();
    assert_eq!((answered.status, answered.answer.as_deref()), (RequestStatus::Answered, Some("10k, no more")));
    assert!(answered.answered_at.is_some());
    assert_eq!(f.status(&by_lead.id), RequestStatus::Open, "the other question still waits");
    // The answer is the user's message to the agent that asked, in the room it asked in.
    let messages = f.room_settled(&general, "scout's next reply", |m| {
        m.iter().any(|m| m.kind == RoomMessageKind::Reply && m.content.contains("10k, no more"))
    });
    let typed = messages.iter().find(|m| m.kind == RoomMessageKind::User && m.content.contains("10k")).unwrap();
    assert_eq!(typed.content, "@scout 10k, no more");
    let next = messages.iter().find(|m| m.kind == RoomMessageKind::Reply && m.content.contains("10k")).unwrap();
    assert_eq!(next.author_id.as_deref(), Some(scout.as_str()));
    assert_eq!(next.content, "heard: 10k, no more", "scout's next run got the answer");
    assert_eq!(f.status(&by_lead.id), RequestStatus::Open, "the answer's message cleared nothing else");
    assert_eq!(f.engine.attention().tray_state().unwrap().open, 1);
}

#[test]
fn a_run_asks_at_most_10_questions_a_minute_and_past_that_at_user_in_its_reply_asks_nothing() {
    let f = fixture(&["lead", "scout"]);
    // The rate limit's clock stands still: every call falls in the same minute, however slow the machine.
    f.engine.tools().use_clock(Arc::new(ManualClock::new(super::now_ms())));
    let (_, general) = team(&f.engine, "Shop", &f.ids);
    let scout = &f.ids[1];
    let asks: Vec<String> = (1..=11).map(|i| format!("@scout askuser Question {i}?")).collect();
    let message = format!("{}\n@scout say %user one more: which colour?", asks.join("\n"));
    f.engine.chat().send_team(&general, &message).unwrap();
    let reply = f.room_reply(&general, scout, "which colour?");
    let lines: Vec<&str> = reply.content.lines().collect();
    assert_eq!(lines.len(), 12, "{}", reply.content);
    assert!(lines[..10].iter().all(|l| l.starts_with("Your question is in the user's inbox")), "{}", reply.content);
    assert_eq!(lines[10], "ERROR: (200) Rate limit: at most 10 ask_user calls a minute per run; wait 60 s.");

    // The scout's next run has a bound of its own; it starts once the first has ended (its
    // `@user` handled).
    let seq = f.last_seq(&general);
    f.engine.chat().send_team(&general, "@scout askuser Still there?").unwrap();
    let next = f.room_reply_after(&general, scout, "inbox", seq);
    assert_ne!(next.run_id, reply.run_id);
    let questions: Vec<String> = f
        .engine
        .attention()
        .history(None, 100)
        .unwrap()
        .into_iter()
        .filter(|r| r.agent_id == *scout && r.kind == RequestKind::Question)
        .map(|r| r.text)
        .collect();
    let mut expected: Vec<String> = (1..=10).map(|i| format!("Question {i}?")).collect();
    expected.push("Still there?".into());
    let mut asked = questions.clone();
    asked.sort_by_key(|q| expected.iter().position(|e| e == q));
    assert_eq!(asked, expected, "no 11th question, no @user question: {questions:?}");
}
