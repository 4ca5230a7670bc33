//! A question's whole life, with Native agents on the fake model server calling `ask_user`: it
//! is stored with its source, listed newest first and counted in the tray; the user's answer
//! goes back where it came from (the team chat as the user's message to the agent, the agent's
//! one-to-one chat, or its card as a comment with the card run again), the request closes, and
//! the agent's next model request carries the answer.

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::attention::{Origin, RequestKind, RequestStatus, UserAnswer};
use clawboo_engine::board::{Actor, CardStatus, CommentKind, NewCard};
use clawboo_engine::chat::team::RoomMessageKind;
use clawboo_engine::chat::{ChatRole, RunStatus};
use clawboo_engine::runner::StartOptions;
use clawboo_engine::secrets::Provider;
use clawboo_engine::Engine;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, Reply};
use serde_json::json;

use super::{common, team, LIMIT};

/// Native on the fake model server: every request goes there.
fn native_engine(server: &FakeModelServer) -> (common::Fixture, Engine) {
    let data = common::Fixture::new();
    let engine = data.open_with(vec![common::native_runtime(server.base_url(), "sk-fake-attention")]);
    (data, engine)
}

fn native_agent(engine: &Engine, handle: &str) -> String {
    let agent = NewAgent {
        name: handle.to_uppercase(),
        description: format!("{handle}, who plans"),
        model: "claude-sonnet-4-5".into(),
        provider: Some(Provider::Anthropic),
        ..common::new_agent(handle, RuntimeKind::Native)
    };
    common::add_agent(engine, agent)
}

fn ask(question: &str) -> Reply {
    Reply::ToolCall { name: "~ask_user".into(), input: json!({"question": question}) }
}

/// The model requests whose body holds `needle`.
fn requests_with(server: &FakeModelServer, needle: &str) -> Vec<String> {
    server.model_requests().into_iter().map(|r| r.raw_body).filter(|b| b.contains(needle)).collect()
}

#[test]
fn a_team_question_is_listed_answered_into_the_room_and_carried_to_the_agents_next_run() {
    // Later rules first: a request's text may quote earlier turns of the room.
    let server = FakeModelServer::start_blocking(
        Behavior::text("(unscripted)")
            .when("ANSWER-MAY-47", vec![Reply::Text("May it is.".into())])
            .when("ANSWER-HILLS-31", vec![Reply::Text("The hills it is.".into())])
            .when(
                "Plan the staff outing",
                vec![
                    ask("Where to, the coast or the hills?"),
                    ask("Which month suits the shop?"),
                    Reply::Text("I asked the user two things; meanwhile I plan for the coast in June.".into()),
                ],
            ),
    );
    let (_dir, engine) = native_engine(&server);
    let lead = native_agent(&engine, "lead");
    let (team_id, general) = team(&engine, "Shop", std::slice::from_ref(&lead));
    engine.chat().send_team(&general, "Plan the staff outing for this summer.").unwrap();

    let (first, second) = wait_for("both questions", LIMIT, || match engine.attention().open().unwrap().as_slice() {
        [newer, older] => Some((older.clone(), newer.clone())),
        _ => None,
    });
    // Newest first.
    assert_eq!(first.text, "Where to, the coast or the hills?");
    assert_eq!(second.text, "Which month suits the shop?");
    let reply = wait_for("the leader's reply", LIMIT, || {
        let messages = engine.chat().room_page(&general, None, 100).unwrap().messages;
        messages.into_iter().find(|m| m.kind == RoomMessageKind::Reply)
    });
    assert!(reply.content.starts_with("I asked the user two things"), "{}", reply.content);
    for asked in [&first, &second] {
        assert_eq!(
            (asked.kind, asked.status, asked.origin),
            (RequestKind::Question, RequestStatus::Open, Origin::Team)
        );
        assert_eq!(asked.team_id.as_deref(), Some(team_id.as_str()));
        assert_eq!(asked.room_id.as_deref(), Some(general.as_str()));
        assert_eq!(asked.agent_id, lead);
        assert_eq!(asked.run_id, reply.run_id, "the run that called ask_user");
        assert_eq!((asked.card_id.as_deref(), asked.message_id.as_deref()), (None, None));
        assert!(asked.id.starts_with("r-") && asked.id.len() == 12, "{}", asked.id);
    }
    let tray = engine.attention().tray_state().unwrap();
    assert_eq!((tray.open, tray.questions, tray.approvals), (2, 2, 0));
    assert_eq!(tray.tooltip, "Clawboo: 2 requests need you");
    let labels: Vec<&str> = tray.newest.iter().map(|i| i.label.as_str()).collect();
    assert_eq!(labels, ["LEAD asks: Which month suits the shop?", "LEAD asks: Where to, the coast or the hills?"]);
    // The tool told the model where the answer will come from.
    let told = requests_with(&server, "Your question is in the user");
    assert!(told.iter().any(|b| b.contains(&first.id) && b.contains("team chat")), "{told:?}");

    // The user answers the older one from the inbox.
    let answered = engine.answer_attention(&first.id, UserAnswer::Text { text: "ANSWER-HILLS-31".into() }).unwrap();
    assert_eq!((answered.status, answered.answer.as_deref()), (RequestStatus::Answered, Some("ANSWER-HILLS-31")));
    assert_eq!(engine.attention().get(&second.id).unwrap().status, RequestStatus::Open);
    assert_eq!(engine.attention().tray_state().unwrap().open, 1);
    let messages = wait_for("the leader's next reply", LIMIT, || {
        let messages = engine.chat().room_page(&general, None, 100).unwrap().messages;
        messages.iter().any(|m| m.content == "The hills it is.").then_some(messages)
    });
    let typed =
        messages.iter().filter(|m| m.kind == RoomMessageKind::User).map(|m| m.content.as_str()).collect::<Vec<_>>();
    assert_eq!(
        typed,
        ["Plan the staff outing for this summer.", "@lead ANSWER-HILLS-31"],
        "the user's message to the agent"
    );
    let carried = requests_with(&server, "ANSWER-HILLS-31");
    assert!(!carried.is_empty(), "the leader's next request carries the answer");

    // And the newer one: its answer is the leader's next turn too; nothing is left.
    engine.answer_attention(&second.id, UserAnswer::Text { text: "ANSWER-MAY-47".into() }).unwrap();
    wait_for("the third reply", LIMIT, || {
        let messages = engine.chat().room_page(&general, None, 100).unwrap().messages;
        messages.iter().any(|m| m.content == "May it is.").then_some(())
    });
    assert!(!requests_with(&server, "ANSWER-MAY-47").is_empty());
    assert!(engine.attention().open().unwrap().is_empty());
    assert_eq!(engine.attention().tray_state().unwrap().open, 0);
    assert_eq!(engine.attention().tray_state().unwrap().tooltip, "Clawboo");
}

#[test]
fn a_one_to_one_question_is_answered_as_the_users_next_message() {
    let server = FakeModelServer::start_blocking(
        Behavior::text("(unscripted)")
            .when("ANSWER-FOUR-58", vec![Reply::Text("Booked for four.".into())])
            .when("Book the table", vec![ask("For how many people?"), Reply::Text("I asked the user.".into())]),
    );
    let (_dir, engine) = native_engine(&server);
    let booker = native_agent(&engine, "booker");
    let run = engine.chat().send(&booker, "Book the table for tonight.").unwrap().run.unwrap().id;
    let asked = wait_for("the question", LIMIT, || engine.attention().open().unwrap().into_iter().next());
    assert_eq!(
        (asked.origin, asked.agent_id.as_str(), asked.run_id.as_deref()),
        (Origin::Chat, booker.as_str(), Some(run.as_str()))
    );
    assert_eq!((asked.team_id.as_deref(), asked.room_id.as_deref(), asked.card_id.as_deref()), (None, None, None));
    assert_eq!(asked.text, "For how many people?");
    assert_eq!(engine.attention().tray_state().unwrap().open, 1);
    wait_for("the run to end", LIMIT, || (engine.chat().run(&run).unwrap().status != RunStatus::Running).then_some(()));

    let answered = engine.answer_attention(&asked.id, UserAnswer::Text { text: "ANSWER-FOUR-58".into() }).unwrap();
    assert_eq!(answered.status, RequestStatus::Answered);
    assert_eq!(engine.attention().tray_state().unwrap().open, 0);
    let messages = wait_for("the agent's answer", LIMIT, || {
        let page = engine.chat().history_page(&booker, None, 100).unwrap();
        page.messages.iter().any(|m| m.content == "Booked for four.").then_some(page.messages)
    });
    let said: Vec<(ChatRole, &str)> = messages.iter().map(|m| (m.role, m.content.as_str())).collect();
    assert_eq!(
        said,
        [
            (ChatRole::User, "Book the table for tonight."),
            (ChatRole::Assistant, "I asked the user."),
            (ChatRole::User, "ANSWER-FOUR-58"),
            (ChatRole::Assistant, "Booked for four."),
        ]
    );
    let carried = requests_with(&server, "ANSWER-FOUR-58");
    assert_eq!(carried.len(), 1, "the next turn's request carries it");
}

#[test]
fn a_card_question_is_answered_as_a_comment_and_the_card_runs_again_with_it() {
    let server = FakeModelServer::start_blocking(
        Behavior::text("(unscripted)").when("ANSWER-GREEN-64", vec![Reply::Text("Painted it green.".into())]).when(
            "Paint the fence",
            vec![ask("Which colour?"), Reply::Text("Asked; I will wait for the colour.".into())],
        ),
    );
    let (_dir, engine) = native_engine(&server);
    let painter = native_agent(&engine, "painter");
    let card = engine
        .board()
        .create(
            Actor::User,
            NewCard {
                title: "Paint the fence".into(),
                description: "The back fence, before the weekend.".into(),
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
    let run = engine.runner().start(&card.id, StartOptions::default()).unwrap().run_id;
    let asked = wait_for("the question", LIMIT, || engine.attention().open().unwrap().into_iter().next());
    assert_eq!(
        (asked.origin, asked.card_id.as_deref(), asked.run_id.as_deref()),
        (Origin::Card, Some(card.id.as_str()), Some(run.as_str()))
    );
    assert_eq!(
        (asked.card_number, asked.card_title.as_deref()),
        (Some(i64::from(card.number)), Some("Paint the fence"))
    );
    let first = wait_for("the first run to end", LIMIT, || {
        let now = engine.board().get(&card.id).unwrap();
        (now.status != CardStatus::InProgress && now.claimed_by_run.is_none()).then_some(now)
    });
    // A run that asked waits in Blocked for the answer, saying so.
    assert_eq!(first.status, CardStatus::Blocked, "{:?}", first.blocked_reason);
    let reason = first.blocked_reason.as_deref().unwrap_or_default();
    assert!(reason.starts_with("Waiting for your answer") && reason.contains("Which colour?"), "{reason}");

    engine.answer_attention(&asked.id, UserAnswer::Text { text: "ANSWER-GREEN-64".into() }).unwrap();
    assert_eq!(engine.attention().get(&asked.id).unwrap().status, RequestStatus::Answered);
    assert_eq!(engine.attention().tray_state().unwrap().open, 0);
    let comments = wait_for("the second run's report", LIMIT, || {
        let detail = engine.board().detail(&card.id).unwrap();
        detail.comments.iter().any(|c| c.text == "Painted it green.").then_some(detail.comments)
    });
    let answer = comments.iter().find(|c| c.text.contains("ANSWER-GREEN-64")).expect("the answer as a comment");
    assert_eq!((answer.author.clone(), answer.kind), (Actor::User, CommentKind::Comment));
    assert_eq!(answer.text, "Answer to \"Which colour?\":\n\nANSWER-GREEN-64");
    let runs = engine.board().runs(&card.id).unwrap();
    assert_eq!(runs.len(), 2, "the card ran again");
    let carried = requests_with(&server, "ANSWER-GREEN-64");
    assert!(!carried.is_empty(), "the next run's request carries the answer");
    assert!(carried.iter().all(|b| b.contains("Paint the fence")), "in the card's run");
}
