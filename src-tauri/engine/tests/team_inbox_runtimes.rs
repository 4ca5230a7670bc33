//! The Waiting-for-you inbox on every runtime, the real CLIs on the fake model server: a member
//! on that runtime (@scout, with a Native leader and a Native @writer) receives every kind of
//! item production creates, and the captured request bodies carry each once, in the section it
//! belongs to. *Addressed to you*: the user's answer to its question, its cards commented on,
//! blocked and moved to Done by the user, a hand-off of its that was not made, and the result of
//! the work it handed out. *Ambient*: a peer post and the team's notices (a member joined and one
//! left, a rule added and one removed, a room made; in that room: renamed, a member joined it and
//! one left it). Then no lost peer posts: posts held back by the peer budget reach it on its
//! next turn, once, though it posted its own in between. Six turns of the runtime (OpenClaw
//! starts a Gateway once: slow, so one test per runtime). And a leader on that runtime (but
//! OpenClaw) receives a member's routine result once.
#![cfg(unix)]

mod common;

use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::attention::UserAnswer;
use clawboo_engine::board::{Actor, CardStatus, CommentKind, NewCard};
use clawboo_engine::chat::team::{RoomMessage, RoomMessageKind, RunContext};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::context::SectionKind;
use clawboo_engine::routines::{RoutineInput, RoutineOutcome, Schedule};
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::secrets::Provider;
use clawboo_engine::teams::{NewRoom, RoomPatch};
use clawboo_engine::Engine;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, Reply};
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(300);
const KEY: &str = "sk-fake-inbox";

/// Each turn's trigger, the later turns' first: a CLI on a fresh session carries the room's
/// earlier turns, so its request holds the earlier triggers too.
fn behavior() -> Behavior {
    let too_long = "x".repeat(16_100);
    let many =
        (1..=HELD_POSTS).map(|i| Reply::ToolCall { name: "~peer_post".into(), input: json!({"text": held_post(i)}) });
    Behavior::text("(unscripted)")
        .when("HELD-CHECK", vec![Reply::Text("HELD-SEEN all read.".into())])
        .when(
            "OWN-NOTE",
            vec![
                Reply::ToolCall { name: "~peer_post".into(), input: json!({"text": SCOUT_POST}) },
                Reply::Text("Noted mine.".into()),
            ],
        )
        .when("MANY-NOTES", many.chain([Reply::Text("Posted six.".into())]).collect())
        .when("ROOM-CHECK", vec![Reply::Text("ROOM-CHECKED the shelves are full.".into())])
        .when("TALLY-RESULT", vec![Reply::Text("INBOX-DONE all in.".into())])
        .when("TALLY-TASK", vec![Reply::Text("TALLY-RESULT 12 crates".into())])
        .when(
            "VANILLA-ANSWER",
            vec![Reply::Text(format!("Thanks.\n@writer TALLY-TASK count the crates\n@writer {too_long}"))],
        )
        .when(
            "POST-NOTE",
            vec![
                Reply::ToolCall {
                    name: "~peer_post".into(),
                    input: json!({"text": "PEER-KETTLE the kettle is fixed"}),
                },
                Reply::Text("Posted.".into()),
            ],
        )
        .when("ASK-FLAVOUR", vec![Reply::Text("@user which flavour?".into())])
}

/// The leader's posts for the budget turns: six that fill more than the peer budget (4,000
/// chars: four fit, two are held back for the scout's next turn).
const HELD_POSTS: usize = 6;
const SCOUT_POST: &str = "SCOUT-SAYS the till is balanced";

fn held_post(i: usize) -> String {
    format!("HELD-POST {i}: {}", "x".repeat(785))
}

/// An agent on `runtime` with the provider its adapter is pointed at (Native: Anthropic, at the
/// server's root).
fn agent(handle: &str, runtime: RuntimeKind) -> NewAgent {
    let (model, provider) = match runtime {
        RuntimeKind::Native | RuntimeKind::ClaudeCode => ("claude-sonnet-4-5", Provider::Anthropic),
        RuntimeKind::Codex => ("gpt-5.5", Provider::OpenAi),
        RuntimeKind::Hermes | RuntimeKind::Openclaw => ("fake-model", Provider::Custom),
    };
    NewAgent {
        name: handle.to_uppercase(),
        description: format!("{handle}, who does the {handle} work"),
        model: model.into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider: Some(provider),
        ..common::new_agent(handle, runtime)
    }
}

/// A room of the team: General, or a named one.
struct Room<'a> {
    engine: &'a Engine,
    id: String,
}

impl Room<'_> {
    fn messages(&self) -> Vec<RoomMessage> {
        self.engine.chat().room_page(&self.id, None, 200).unwrap().messages
    }

    fn settled(&self, what: &str, done: impl Fn(&[RoomMessage]) -> bool) -> Vec<RoomMessage> {
        wait_for(what, LIMIT, || {
            let messages = self.messages();
            // A failed run (a Gateway that did not start, say) says why at once.
            if let Some(failed) =
                messages.iter().find(|m| m.kind == RoomMessageKind::Notice && m.content.contains("run ended"))
            {
                panic!("waiting for {what}: {}", failed.content);
            }
            let runs = self.engine.chat().room_runs(&self.id, 100).unwrap();
            (done(&messages) && runs.iter().all(|r| r.status != RunStatus::Running)).then_some(messages)
        })
    }

    /// The newest run of `agent_id` and what it was given.
    fn last_run(&self, agent_id: &str) -> (String, RunContext) {
        let runs = self.engine.chat().room_runs(&self.id, 100).unwrap();
        let run = runs.iter().rev().find(|r| r.agent_id == agent_id).expect("a run of the agent");
        assert_eq!(run.status, RunStatus::Succeeded, "{:?}", self.engine.chat().run_activity(&run.id).unwrap());
        (run.id.clone(), self.engine.chat().run_context(&run.id).unwrap())
    }
}

fn section(context: &RunContext, kind: SectionKind) -> String {
    context.sections.iter().find(|s| s.kind == kind).map(|s| s.text.clone()).unwrap_or_default()
}

/// The captured request bodies of a run's turn: those holding its message.
fn bodies_of(server: &FakeModelServer, context: &RunContext) -> Vec<String> {
    let message = context.sections.last().unwrap().text.trim().to_owned();
    let needle = json_text(&message);
    server.model_requests().into_iter().map(|r| r.raw_body).filter(|b| b.contains(&needle)).collect()
}

/// `text` as it appears inside a JSON string.
fn json_text(text: &str) -> String {
    let escaped = serde_json::to_string(text.trim()).unwrap();
    escaped[1..escaped.len() - 1].to_owned()
}

/// Each of the run's inbox sections reached the model in its first request, exactly once.
fn assert_sent_once(server: &FakeModelServer, context: &RunContext, kinds: &[SectionKind]) -> String {
    let bodies = bodies_of(server, context);
    let first = bodies.first().expect("the run's request was captured").clone();
    for kind in kinds {
        let text = section(context, *kind);
        assert!(!text.is_empty(), "the run was given no {kind:?}");
        assert_eq!(first.matches(&json_text(&text)).count(), 1, "{kind:?} once in the request: {text}");
    }
    first
}

fn inbox_kinds_reach(kind: RuntimeKind) {
    let server = FakeModelServer::start_blocking(behavior());
    // Native is in-process: only the CLI (if any) comes from the fixture; one Native for all.
    let clis: Vec<RuntimeKind> = [kind].into_iter().filter(|k| *k != RuntimeKind::Native).collect();
    let Some((fixture, mut runtimes)) = common::Fixture::for_clis_on(&clis, &server, KEY) else { return };
    runtimes.push(common::native_runtime(server.base_url(), KEY));
    let engine = fixture.open_with(runtimes);
    let native = |handle| agent(handle, RuntimeKind::Native);
    let ids: Vec<String> = [native("lead"), agent("scout", kind), native("writer"), native("clerk"), native("helper")]
        .into_iter()
        .map(|a| common::add_agent(&engine, a))
        .collect();
    let [lead, scout, writer, clerk, helper] = [0, 1, 2, 3, 4].map(|i| ids[i].clone());
    let common::ChatTeam { team, general } =
        common::chat_team(&engine, "Launch", &ids[..4], "I am Ada, I run a tea shop.");
    let room = Room { engine: &engine, id: general };
    let short = engine.teams().add_rule(&team.id, "Keep it short.").unwrap();

    // The leader posts in the peer room.
    engine.chat().send_team(&room.id, "@lead POST-NOTE for the team").unwrap();
    room.settled("the leader's post", |m| m.iter().any(|m| m.content == "Posted."));

    // Turn 1 of @scout: the post reaches it as a peer's words; it asks the user a question.
    engine.chat().send_team(&room.id, "@scout ASK-FLAVOUR which tea do we push?").unwrap();
    room.settled("the scout's question", |m| m.iter().any(|m| m.content.contains("which flavour?")));
    let question = wait_for("the question in the Inbox", LIMIT, || {
        engine.attention().open().unwrap().into_iter().find(|r| r.text.contains("which flavour?"))
    });
    let (_, ask_turn) = room.last_run(&scout);
    assert_sent_once(&server, &ask_turn, &[SectionKind::Ambient]);
    let ambient = section(&ask_turn, SectionKind::Ambient);
    assert!(ambient.contains("@lead") && ambient.contains("PEER-KETTLE the kettle is fixed"), "{kind:?}: {ambient}");

    // Meanwhile in the team (nothing said in the room, which would clear the question): a rule
    // added and one removed (the added one is rule 2: turn 1's "rule 1" notice rides along in the
    // history a CLI session keeps), @clerk leaves and @helper joins, a room made (renamed, joined and
    // left after), and the scout's cards commented on, blocked and done by the user.
    let teams = engine.teams();
    teams.add_rule(&team.id, "Answer in plain English.").unwrap();
    teams.remove_rule(&team.id, &short.id).unwrap();
    teams.set_members(&team.id, vec![lead.clone(), scout.clone(), writer.clone(), helper.clone()]).unwrap();
    assert!(!teams.get(&team.id).unwrap().is_member(&clerk));
    let members = vec![lead.clone(), scout.clone(), writer.clone()];
    let stockroom = NewRoom { name: "Stockroom".into(), member_ids: members, leader_id: Some(lead.clone()) };
    let backroom = teams.create_room(&team.id, stockroom).unwrap().id;
    let rename = RoomPatch { name: Some("Backroom".into()), member_ids: None, leader_id: None };
    teams.update_room(&backroom, rename).unwrap();
    let reseat = RoomPatch { name: None, member_ids: Some(vec![lead.clone(), scout.clone(), helper]), leader_id: None };
    teams.update_room(&backroom, reseat).unwrap();
    let board = engine.board();
    let new = |title: &str| NewCard {
        title: title.into(),
        description: String::new(),
        assignee_id: Some(scout.clone()),
        team_id: Some(team.id.clone()),
        status: None,
        priority: None,
        depends_on: Vec::new(),
        check_command: None,
        project_folder: None,
    };
    let card = board.create(Actor::User, new("Stock count")).unwrap();
    board.comment(Actor::User, &card.id, CommentKind::Comment, "Add the prices too.", None).unwrap();
    board.move_card(Actor::User, &card.id, CardStatus::Blocked, Some("Waiting on the supplier".into()), None).unwrap();
    // A card its run left in review, which the user moves to Done.
    let done = board.create(Actor::User, new("Price list")).unwrap();
    board.claim(&done.id, "run-prices").unwrap();
    board.release(&done.id, "run-prices", CardStatus::InReview, None).unwrap();
    board.move_card(Actor::User, &done.id, CardStatus::Done, None, None).unwrap();

    // Turn 2: the user's answer, with everything that waited.
    engine.answer_attention(&question.id, UserAnswer::Text { text: "VANILLA-ANSWER".into() }).unwrap();
    room.settled("the scout's reply to its results", |m| {
        m.iter().any(|m| m.kind == RoomMessageKind::Reply && m.content.starts_with("INBOX-DONE"))
    });
    let (_, answer_turn) = room.last_run_before(&scout, "INBOX-DONE");
    let raw = assert_sent_once(&server, &answer_turn, &[SectionKind::AddressedToYou, SectionKind::Ambient]);
    let addressed = section(&answer_turn, SectionKind::AddressedToYou);
    let number = card.number;
    let items = [
        "The message below is the user's answer to your question \"@user which flavour?\".".to_owned(),
        format!("The user commented on your card #{number} \"Stock count\":\nAdd the prices too."),
        format!("Your card #{number} \"Stock count\" was blocked by the user: Waiting on the supplier"),
        format!("Your card #{} \"Price list\" was moved to Done by the user.", done.number),
    ];
    for item in &items {
        assert!(addressed.contains(item.as_str()), "{kind:?}: {item:?} in {addressed}");
    }
    for item in &items {
        assert_eq!(raw.matches(&json_text(item)).count(), 1, "{kind:?}: {item:?} once in the request");
    }
    let ambient = section(&answer_turn, SectionKind::Ambient);
    let notices = [
        "The user added team rule 2 (see Team rules).",
        "The user removed the team rule: Keep it short.",
        "@clerk left the team.",
        "@helper joined the team.",
        "The user made the room Stockroom with @lead, @scout, @writer.",
    ];
    for notice in notices {
        assert_eq!(ambient.matches(notice).count(), 1, "{kind:?}: {notice:?} in {ambient}");
        assert_eq!(raw.matches(&json_text(notice)).count(), 1, "{kind:?}: {notice:?} once in the request");
    }
    // The room's own changes wait for a turn in that room.
    assert!(!ambient.contains("Backroom"), "{kind:?}: {ambient}");
    assert!(!ambient.contains("PEER-KETTLE"), "{kind:?}: the post was delivered once, on turn 1: {ambient}");
    assert!(raw.contains("VANILLA-ANSWER"), "the answer is the turn's message");

    // Turn 3: the result of its hand-off, and the one it could not make.
    let (_, batch_turn) = room.last_run(&scout);
    let raw = assert_sent_once(&server, &batch_turn, &[SectionKind::AddressedToYou]);
    let addressed = section(&batch_turn, SectionKind::AddressedToYou);
    assert!(
        addressed.contains("Your hand-off to @writer was not made: A task has at most 16000 characters."),
        "{kind:?}: {addressed}"
    );
    let message = batch_turn.sections.last().unwrap().text.clone();
    assert!(message.starts_with("Results of the work you handed out (1):"), "{kind:?}: {message}");
    assert!(message.contains("### @writer\nTask: TALLY-TASK count the crates\nTALLY-RESULT 12 crates"), "{message}");
    assert!(raw.contains(&json_text("TALLY-RESULT 12 crates")), "the result reached the model");
    // Each item once: nothing of turn 2's inbox rides again.
    for gone in ["which flavour?", "Add the prices too.", "see Team rules", "PEER-KETTLE"] {
        assert_eq!(section(&batch_turn, SectionKind::AddressedToYou).matches(gone).count(), 0, "{gone}");
        assert_eq!(section(&batch_turn, SectionKind::Ambient).matches(gone).count(), 0, "{gone}");
    }

    // Turn 4, in the renamed room: its own notices, each once.
    let backroom = Room { engine: &engine, id: backroom };
    engine.chat().send_team(&backroom.id, "@scout ROOM-CHECK how is the stock?").unwrap();
    backroom.settled("the scout's reply in the room", |m| m.iter().any(|m| m.content.starts_with("ROOM-CHECKED")));
    let (_, room_turn) = backroom.last_run(&scout);
    let raw = assert_sent_once(&server, &room_turn, &[SectionKind::Ambient]);
    let ambient = section(&room_turn, SectionKind::Ambient);
    for notice in [
        "The user renamed the room Stockroom to Backroom.",
        "@helper joined the room Backroom.",
        "@writer left the room Backroom.",
    ] {
        assert_eq!(ambient.matches(notice).count(), 1, "{kind:?}: {notice:?} in {ambient}");
        assert_eq!(raw.matches(&json_text(notice)).count(), 1, "{kind:?}: {notice:?} once in the request");
    }
    assert!(
        !ambient.contains("left the team") && !ambient.contains("rule"),
        "{kind:?}: General's stay there: {ambient}"
    );

    held_back_posts_reach_the_scout_once(kind, &server, &room, &team.id, &lead, &scout);
}

/// Item 3 of issue 24, no lost peer posts: the leader posts more than the peer budget takes; the
/// scout's turn 5 carries the first four and holds two back, and the scout posts its own note
/// then (which once moved its read cursor past the two); turn 6 carries the two, each once in
/// the captured request, and neither the four again nor its own note.
fn held_back_posts_reach_the_scout_once(
    kind: RuntimeKind,
    server: &FakeModelServer,
    room: &Room<'_>,
    team_id: &str,
    lead: &str,
    scout: &str,
) {
    let engine = room.engine;
    engine.chat().send_team(&room.id, "@lead MANY-NOTES for the team").unwrap();
    room.settled("the leader's six posts", |m| m.iter().any(|m| m.content == "Posted six."));
    room.last_run(lead);

    // Turn 5: four posts fit, two wait; the scout posts in between.
    engine.chat().send_team(&room.id, "@scout OWN-NOTE tell the team").unwrap();
    room.settled("the scout's own post", |m| m.iter().any(|m| m.content == "Noted mine."));
    let (_, fifth) = room.last_run(scout);
    let raw = assert_sent_once(server, &fifth, &[SectionKind::Ambient]);
    let ambient = section(&fifth, SectionKind::Ambient);
    for i in 1..=HELD_POSTS {
        let expected = usize::from(i <= 4);
        assert_eq!(ambient.matches(&held_post(i)).count(), expected, "{kind:?}: post {i} in turn 5: {ambient}");
        assert_eq!(raw.matches(&json_text(&held_post(i))).count(), expected, "{kind:?}: post {i} in turn 5's request");
    }
    assert_eq!(fifth.deferred.len(), 2, "{kind:?}: two posts wait");
    let (posts, _) = engine.chat().peer_posts(team_id, None, 50).unwrap();
    let own = posts.iter().filter(|p| p.author_id.as_deref() == Some(scout) && p.text == SCOUT_POST).count();
    assert_eq!(own, 1, "{kind:?}: the scout posted in between");

    // Turn 6: the two that waited, once; nothing of turn 5's again, not its own post.
    engine.chat().send_team(&room.id, "@scout HELD-CHECK did you read everything?").unwrap();
    room.settled("the scout's next reply", |m| m.iter().any(|m| m.content.starts_with("HELD-SEEN")));
    let (_, sixth) = room.last_run(scout);
    let raw = assert_sent_once(server, &sixth, &[SectionKind::Ambient]);
    let ambient = section(&sixth, SectionKind::Ambient);
    for i in 1..=HELD_POSTS {
        let expected = usize::from(i > 4);
        assert_eq!(ambient.matches(&held_post(i)).count(), expected, "{kind:?}: post {i} in turn 6: {ambient}");
    }
    for i in 5..=HELD_POSTS {
        assert_eq!(raw.matches(&json_text(&held_post(i))).count(), 1, "{kind:?}: post {i} once in turn 6's request");
    }
    assert!(!ambient.contains(SCOUT_POST), "{kind:?}: its own post is not given back: {ambient}");
}

impl Room<'_> {
    /// The run of `agent_id` just before the one whose reply starts with `later_reply`.
    fn last_run_before(&self, agent_id: &str, later_reply: &str) -> (String, RunContext) {
        let messages = self.messages();
        let later = messages.iter().find(|m| m.content.starts_with(later_reply)).unwrap().run_id.clone().unwrap();
        let runs = self.engine.chat().room_runs(&self.id, 100).unwrap();
        let mine: Vec<_> = runs.iter().filter(|r| r.agent_id == agent_id).collect();
        let at = mine.iter().position(|r| r.id == later).expect("the later run is the agent's");
        let run = mine[at.checked_sub(1).expect("a run before it")];
        assert_eq!(run.status, RunStatus::Succeeded);
        (run.id.clone(), self.engine.chat().run_context(&run.id).unwrap())
    }
}

/// A member's routine that reports to its team (a Native @cook's): its result wakes the leader
/// on `kind` in General, and the leader's request carries it once, as the routine's message
/// (production's way; it waits in the leader's *Addressed to you* only when the room cannot take
/// it). Not on OpenClaw: a second Gateway start for one more turn.
fn routine_result_reaches_the_leader(kind: RuntimeKind) {
    let behavior = Behavior::text("(unscripted)")
        .when("ROUTINE-REPORT", vec![Reply::Text("LEAD-ACK the jars are counted.".into())])
        .when("ROUTINE-TALLY", vec![Reply::Text("ROUTINE-REPORT 40 jars on the shelf".into())]);
    let server = FakeModelServer::start_blocking(behavior);
    let clis: Vec<RuntimeKind> = [kind].into_iter().filter(|k| *k != RuntimeKind::Native).collect();
    let Some((fixture, mut runtimes)) = common::Fixture::for_clis_on(&clis, &server, KEY) else { return };
    runtimes.push(common::native_runtime(server.base_url(), KEY));
    let engine = fixture.open_with(runtimes);
    let ids: Vec<String> = [agent("lead", kind), agent("cook", RuntimeKind::Native)]
        .into_iter()
        .map(|a| common::add_agent(&engine, a))
        .collect();
    let common::ChatTeam { team, general } = common::chat_team(&engine, "Pantry", &ids, "I am Ada, I run a tea shop.");
    let room = Room { engine: &engine, id: general };
    let routine = engine
        .routines()
        .create(RoutineInput {
            // The card's title (the routine's name) is its run's message.
            name: "ROUTINE-TALLY jars".into(),
            agent_id: Some(ids[1].clone()),
            team_id: None,
            prompt: "Count the jars.".into(),
            schedule: Schedule::Cron { expr: "0 8 * * *".into(), tz: "Europe/Berlin".into() },
            heartbeat: false,
            reports_to_team_id: Some(team.id.clone()),
        })
        .unwrap();
    let run = engine.routines().run_now(&routine.id).unwrap();
    let run = wait_for("the routine's run to end", LIMIT, || {
        engine.routines().tick(clawboo_engine::vocab::clock::now_ms()).unwrap();
        let latest = engine.routines().detail(&routine.id, 5).unwrap().runs.into_iter().find(|r| r.id == run.id)?;
        (latest.outcome != RoutineOutcome::Running).then_some(latest)
    });
    assert_eq!(run.outcome, RoutineOutcome::Succeeded, "{kind:?}: {:?}", run.note);
    room.settled("the leader's answer to the routine's result", |m| {
        m.iter().any(|m| m.content.starts_with("LEAD-ACK"))
    });

    let (run_id, woken) = room.last_run(&ids[0]);
    let runs = engine.chat().room_runs(&room.id, 100).unwrap();
    let leader_run = runs.iter().find(|r| r.id == run_id).unwrap();
    assert_eq!(leader_run.runtime, kind, "the leader's run was on its runtime");
    let message = woken.sections.last().unwrap().text.clone();
    let result =
        "Routine card #1 \"ROUTINE-TALLY jars\" by @cook ended done, waiting for the user's review.\nIts report:\n\
                  ROUTINE-REPORT 40 jars on the shelf";
    assert!(message.contains(result), "{kind:?}: {message}");
    let raw = bodies_of(&server, &woken).into_iter().next().expect("the leader's request was captured");
    assert_eq!(raw.matches(&json_text(result)).count(), 1, "{kind:?}: the result once in the leader's request");
    assert!(!section(&woken, SectionKind::AddressedToYou).contains("ROUTINE-TALLY"), "{kind:?}: not again as an alert");
}

#[test]
fn native_receives_every_kind_of_inbox_item_once() {
    inbox_kinds_reach(RuntimeKind::Native);
}

#[test]
fn claude_code_receives_every_kind_of_inbox_item_once() {
    inbox_kinds_reach(RuntimeKind::ClaudeCode);
}

#[test]
fn codex_receives_every_kind_of_inbox_item_once() {
    inbox_kinds_reach(RuntimeKind::Codex);
}

#[test]
fn hermes_receives_every_kind_of_inbox_item_once() {
    inbox_kinds_reach(RuntimeKind::Hermes);
}

#[test]
fn openclaw_receives_every_kind_of_inbox_item_once() {
    inbox_kinds_reach(RuntimeKind::Openclaw);
}

#[test]
fn a_routine_result_reaches_a_native_leader_once() {
    routine_result_reaches_the_leader(RuntimeKind::Native);
}

#[test]
fn a_routine_result_reaches_a_claude_code_leader_once() {
    routine_result_reaches_the_leader(RuntimeKind::ClaudeCode);
}

#[test]
fn a_routine_result_reaches_a_codex_leader_once() {
    routine_result_reaches_the_leader(RuntimeKind::Codex);
}

#[test]
fn a_routine_result_reaches_a_hermes_leader_once() {
    routine_result_reaches_the_leader(RuntimeKind::Hermes);
}
