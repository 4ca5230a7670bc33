//! Team chat end to end over real SQLite, with a scripted runtime standing in for every agent's
//! model: routing by `@handle`, hand-offs (by tool and by `@handle` in a reply), one batch of
//! results, the reply-chain bound, Stop, `/reset`, `/rule`, restarts.

mod common;

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::attention::UserAnswer;
use clawboo_engine::board::{
    ActivityKind, Actor, Card, CardFilter, CardOrigin, CardRunKind, CardRunStatus, CardStatus, CommentKind, NewCard,
};
use clawboo_engine::chat::team::{RoomMessage, RoomMessageKind};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::context::{SectionKind, ToolName};
use clawboo_engine::runtimes::{Capabilities, RunChannels, RunEvent, RunOutcome, RunResult, Runtime, TurnInput};
use clawboo_engine::teams::NewRoom;
use clawboo_engine::{Engine, ErrorCode};
use clawboo_testkit::wait_for;
use serde_json::json;

/// Plays every agent by the message it gets:
/// - "plan"         → replies with two `@handle` lines (hand-offs to scout and writer);
/// - "tool-plan"    → hands off through the `handoff` tool, 9 times (the 9th must fail);
/// - "research…"/"write…" → answers "found …"/"wrote …";
/// - "loop"         → hands "loop" on to the next member by `@handle` (chain bound);
/// - "wait"         → waits for Stop;
/// - "chain-stop" → a chain lead → scout → writer whose writer works until Stop;
/// - "relay" → a chain lead → scout → writer whose results go back up ("relayed-2", "relayed-1",
///   then "Final relay");
/// - "post-many"/"post-one" → six long peer posts / one short one;
/// - a batch of results → "Final: <how many results>".
#[derive(Default)]
struct Scripted {
    inputs: Mutex<Vec<TurnInput>>,
    tool_replies: Mutex<Vec<String>>,
}

impl Runtime for Scripted {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> Capabilities {
        clawboo_engine::runtimes::native::CAPABILITIES
    }

    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> Pin<Box<dyn std::future::Future<Output = clawboo_engine::Result<RunResult>> + Send + '_>> {
        self.inputs.lock().unwrap().push(input.clone());
        Box::pin(async move {
            let say = |text: String| channels.emit(RunEvent::TextDelta { text });
            // "@scout wait" is "wait" for @scout.
            let message = match input.message.strip_prefix('@').and_then(|m| m.split_once(' ')) {
                Some((_, rest)) => rest.to_owned(),
                None => input.message.clone(),
            };
            let post = |text: String| (grant_of(&input).invoker)(ToolName::PeerPost, json!({ "text": text }));
            if message == "post-many" {
                for i in 1..=6 {
                    post(format!("Post {i}: {}", "x".repeat(790))).await;
                }
                say("Posted.".into());
            } else if message == "post-one" {
                post("A note of my own.".into()).await;
                say("Posted mine.".into());
            } else if message == "chain-stop" {
                say("Starting the chain.\n@scout chain-stop-1 count the stock".into());
            } else if message == "chain-stop-1 count the stock" {
                say("Asking the writer.\n@writer chain-stop-2 draft the note".into());
            } else if message == "chain-stop-2 draft the note" {
                say("Half a draft".into());
                let mut cancel = channels.cancel.clone();
                let _ = cancel.wait_for(|c| *c).await;
                return Ok(RunResult::with_outcome(RunOutcome::Cancelled, "Stopped by the user."));
            } else if message == "relay" {
                say("@scout relay-1".into());
            } else if message == "relay-1" {
                say("@writer relay-2".into());
            } else if message == "relay-2" {
                say("relayed-2".into());
            } else if message.starts_with("Your task:") && message.contains("relayed-2") {
                say("relayed-1".into());
            } else if message.contains("relayed-1") {
                say("Final relay".into());
            } else if message == "fail-at-once" {
                return Ok(RunResult::failed("The model could not be reached."));
            } else if message == "ask" {
                say("@user which flavour?".into());
            } else if message == "delegate-wait" {
                say("@scout wait".into());
            } else if message == "delegate-try" {
                say("@scout try-tools".into());
            } else if message == "try-tools" {
                // A teammate on a hand-off: a tool it was not offered, and a task handed back.
                let grant = grant_of(&input);
                let routine = json!({"name": "n", "prompt": "p", "every_minutes": 60});
                let back = json!({"to": "lead", "task": "do it yourself"});
                for (tool, args) in [(ToolName::RoutineCreate, routine), (ToolName::Handoff, back)] {
                    let out = (grant.invoker)(tool, args).await;
                    self.tool_replies.lock().unwrap().push(format!("{}:{}", out.is_error, out.text));
                }
                say("tried".into());
            } else if message == "plan" {
                say("On it.\n@scout research the market\n@writer write the brief".into());
            } else if message == "tool-plan" {
                let grant = input.tools.clone().expect("a leader gets Clawboo's tools");
                for i in 0..9 {
                    let out =
                        (grant.invoker)(ToolName::Handoff, json!({"to": "scout", "task": format!("research {i}")}))
                            .await;
                    self.tool_replies.lock().unwrap().push(format!("{}:{}", out.is_error, out.text));
                }
                say("Handed off.".into());
            } else if let Some(topic) = message.strip_prefix("research") {
                say(format!("found{topic}"));
            } else if let Some(topic) = message.strip_prefix("write") {
                say(format!("wrote{topic}"));
            } else if message.starts_with("loop") {
                let me = &input.agent.handle;
                let next = if me == "lead" {
                    "scout"
                } else if me == "scout" {
                    "writer"
                } else {
                    "lead"
                };
                say(format!("@{next} loop again"));
            } else if message == "wait" {
                let mut cancel = channels.cancel.clone();
                let _ = cancel.wait_for(|c| *c).await;
                return Ok(RunResult::with_outcome(RunOutcome::Cancelled, "Stopped by the user."));
            } else if message.contains("found") || message.contains("wrote") || message.contains("loop") {
                say(format!(
                    "Final: {} results",
                    message.matches("@scout").count() + message.matches("@writer").count()
                ));
            } else {
                say(format!("{} heard: {message}", input.agent.handle));
            }
            Ok(RunResult::succeeded())
        })
    }
}

fn grant_of(input: &TurnInput) -> clawboo_engine::tools::ToolGrant {
    input.tools.clone().expect("a team run gets Clawboo's tools")
}

/// The shared fixture's engine on the scripted runtime, with the team Launch (@lead leading
/// @scout and @writer).
struct Fixture {
    data: common::Fixture,
    engine: Engine,
    runtime: Arc<Scripted>,
    team_id: String,
    general: String,
    ids: Vec<String>,
}

fn agent(handle: &str) -> NewAgent {
    NewAgent {
        name: handle.to_uppercase(),
        description: format!("{handle} does {handle} things"),
        model: "some-model".into(),
        ..common::new_agent(handle, RuntimeKind::Native)
    }
}

fn fixture() -> Fixture {
    let data = common::Fixture::new();
    let runtime = Arc::new(Scripted::default());
    let engine = data.open_with(vec![runtime.clone()]);
    let ids: Vec<String> = ["lead", "scout", "writer"].iter().map(|h| common::add_agent(&engine, agent(h))).collect();
    let common::ChatTeam { team, general } = common::chat_team(&engine, "Launch", &ids, "I am Ada, a product manager.");
    Fixture { data, engine, runtime, team_id: team.id, general, ids }
}

impl Fixture {
    fn messages(&self) -> Vec<RoomMessage> {
        self.engine.chat().room_page(&self.general, None, 500).unwrap().messages
    }

    /// Waits until the room has a message matching `what` and no run of the team is going.
    fn settle(&self, what: &str, done: impl Fn(&[RoomMessage]) -> bool) -> Vec<RoomMessage> {
        wait_for(what, Duration::from_secs(20), || {
            // Runs first: once every run has ended, a message read after holds all they wrote (read
            // the other way round, a run ending between the two reads lost its last message).
            let idle = self
                .engine
                .chat()
                .room_runs(&self.general, 100)
                .unwrap()
                .iter()
                .all(|r| r.status != RunStatus::Running);
            let messages = self.messages();
            (idle && done(&messages)).then_some(messages)
        })
    }

    /// The card of the hand-off to `agent_id`, once `ready` says it is as expected.
    fn card_of(&self, agent_id: &str, ready: impl Fn(&Card) -> bool) -> Card {
        wait_for("the hand-off's card", Duration::from_secs(20), || {
            let filter = CardFilter { assignee_id: Some(agent_id.to_owned()), ..CardFilter::default() };
            self.engine.board().list(&filter).unwrap().into_iter().find(&ready)
        })
    }

    fn input_for(&self, message: &str) -> TurnInput {
        self.runtime.inputs.lock().unwrap().iter().find(|i| i.message == message).cloned().unwrap()
    }

    fn input_for_prefix(&self, prefix: &str) -> TurnInput {
        self.runtime.inputs.lock().unwrap().iter().find(|i| i.message.starts_with(prefix)).cloned().unwrap()
    }
}

#[test]
fn a_leader_hands_off_and_gets_the_results_in_one_batch() {
    let f = fixture();
    let bootstrap = "# First run\n\nSay hello to the team once.\n";
    f.engine.agents().write_file(&f.ids[0], "BOOTSTRAP.md", bootstrap).unwrap();
    f.engine.chat().send_team(&f.general, "plan").unwrap();
    let messages = f.settle("the leader's final answer", |m| m.iter().any(|m| m.content.starts_with("Final:")));
    let kinds: Vec<_> = messages.iter().map(|m| m.kind).collect();
    use RoomMessageKind::*;
    assert_eq!(kinds.iter().filter(|k| **k == Handoff).count(), 2);
    assert_eq!(kinds.iter().filter(|k| **k == Batch).count(), 1, "both results arrive as one batch: {kinds:?}");
    assert_eq!(kinds.first(), Some(&User));
    assert_eq!(kinds.last(), Some(&Reply));
    let last = messages.last().unwrap();
    assert_eq!(last.content, "Final: 2 results");
    assert_eq!(last.author_id.as_deref(), Some(f.ids[0].as_str()));

    // The hand-off cards show the exact task text the teammates received.
    let cards: Vec<_> = messages.iter().filter(|m| m.kind == Handoff).collect();
    assert_eq!(cards[0].content, "research the market");
    assert_eq!(cards[0].target_id.as_deref(), Some(f.ids[1].as_str()));
    let scout = f.input_for("research the market");
    assert_eq!(scout.message, "research the market", "a teammate works on the task text alone");
    assert!(scout.transcript.is_empty() && scout.resume_session.is_none(), "a teammate starts fresh");
    let seen = f.engine.chat().run_context(cards[0].run_id.as_deref().unwrap()).unwrap();
    let given = format!("{}\n{}", seen.system_text.unwrap_or_default(), seen.preamble.unwrap_or_default());
    assert!(given.contains("@scout") || given.contains("@lead"), "the teammates are listed: {given}");
    assert!(!given.contains("Ada"), "no About you on a teammate's turn");
    assert!(!given.contains("plan"), "not the user's conversation either");
    assert!(!scout.persona.unwrap_or_default().contains("Ada"));

    // The leader saw About you; its batch turn continues its room conversation.
    let leader = f.input_for("plan");
    assert!(leader.persona.as_deref().unwrap_or_default().contains("I am Ada"), "About you, in the system slot");
    assert!(!leader.preamble.as_deref().unwrap_or_default().contains("I am Ada"), "and only there");
    let batch = f.runtime.inputs.lock().unwrap().iter().find(|i| i.message.contains("found")).cloned().unwrap();
    assert_eq!(batch.agent.handle, "lead");
    assert!(batch.message.contains("found the market") && batch.message.contains("wrote the brief"));
    assert_eq!(batch.transcript.len(), 1, "the leader continues its conversation in General");
    // The carried transcript holds the message and the workspace files it went out with
    // (BOOTSTRAP.md as the user edited it, once), never the steady context.
    let carried = &batch.transcript[0].user;
    assert!(carried.starts_with("## Workspace files\n") && carried.ends_with("\n\nplan"), "{carried}");
    assert!(!carried.contains("I am Ada"), "{carried}");
    assert!(!batch.preamble.as_deref().unwrap_or_default().contains("# First run"), "not sent again");
}

/// Each role is offered only the tools it uses (`run::prepare::offer`): the leader hands off,
/// asks the user and proposes routines; a teammate on a hand-off does neither of the last two
/// ("nobody can answer its questions mid-task"), may hand on to another teammate but not back
/// to who handed it the task, and a call of a tool it was not offered is refused, naming its own.
#[test]
fn each_role_is_offered_only_the_tools_it_uses() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "delegate-try").unwrap();
    f.settle("the teammate's result", |m| m.iter().any(|m| m.kind == RoomMessageKind::Batch));
    let names = |input: &TurnInput| -> Vec<ToolName> { grant_of(input).specs.iter().map(|s| s.name).collect() };
    let leader = names(&f.input_for("delegate-try"));
    for tool in [ToolName::Handoff, ToolName::AskUser, ToolName::RoutineCreate, ToolName::PeerPost] {
        assert!(leader.contains(&tool), "the leader lacks {}: {leader:?}", tool.as_str());
    }
    let teammate = names(&f.input_for("try-tools"));
    for tool in [ToolName::AskUser, ToolName::RoutineCreate] {
        assert!(!teammate.contains(&tool), "a teammate is offered {}: {teammate:?}", tool.as_str());
    }
    assert!(teammate.contains(&ToolName::Handoff), "@writer is left to hand to: {teammate:?}");
    let replies = f.runtime.tool_replies.lock().unwrap().clone();
    assert!(
        replies[0].starts_with("true:There is no tool named routine_create in this run; its tools are handoff, "),
        "{replies:?}"
    );
    assert!(replies[1].starts_with("true:") && replies[1].contains("@lead handed you this task"), "{replies:?}");
    // Nothing was proposed, nothing handed back.
    let handoffs = f.messages().iter().filter(|m| m.kind == RoomMessageKind::Handoff).count();
    assert_eq!(handoffs, 1, "only the leader's hand-off");
}

#[test]
fn mentions_address_members_and_a_non_member_is_an_error() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "@writer hello there").unwrap();
    let messages = f.settle("writer's reply", |m| m.iter().any(|m| m.kind == RoomMessageKind::Reply));
    assert!(messages.last().unwrap().content.starts_with("writer heard"));
    let err = f.engine.chat().send_team(&f.general, "@nobody hi").unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("@nobody"), "{err}");
    let outsider = f.engine.agents().create(agent("outsider")).unwrap();
    let err = f.engine.chat().send_team(&f.general, "@outsider hi").unwrap_err();
    assert!(err.to_string().contains("not a member"), "{err}");
    assert!(f.engine.teams().get(&f.team_id).unwrap().members.iter().all(|m| m.agent_id != outsider.id));
}

#[test]
fn about_you_comes_before_the_first_message() {
    let f = fixture();
    f.engine.teams().set_about_you(&f.team_id, "").unwrap();
    let err = f.engine.chat().send_team(&f.general, "hello").unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(f.messages().is_empty(), "nothing stored");
}

#[test]
fn the_reply_chain_stops_at_its_bound_and_says_so() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "loop").unwrap();
    let messages = f.settle("the bound notice", |m| {
        m.iter().any(|m| m.kind == RoomMessageKind::Notice && m.content.contains("bound"))
    });
    let handoffs = messages.iter().filter(|m| m.kind == RoomMessageKind::Handoff).count();
    assert_eq!(handoffs, 3, "depth 3: lead→scout→writer→lead, then stopped");
    // The leader finds it in its inbox too, on its next turn.
    let lead = f.ids[0].clone();
    f.settle("the chain's end", |m| {
        m.last().is_some_and(|m| m.content.starts_with("Final:") && m.author_id.as_deref() == Some(lead.as_str()))
    });
    let addressed = section_text(&last_context(&f, &f.ids[0]), SectionKind::AddressedToYou);
    assert!(
        addressed
            .contains("Your hand-off to @scout was not made: the reply chain reached its bound (3 hand-offs deep)"),
        "{addressed}"
    );
}

#[test]
fn a_turn_makes_at_most_eight_hand_offs() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "tool-plan").unwrap();
    f.settle("the leader's reply", |m| m.iter().any(|m| m.content == "Handed off."));
    let replies = f.runtime.tool_replies.lock().unwrap().clone();
    assert_eq!(replies.iter().filter(|r| r.starts_with("false:")).count(), 8);
    assert!(replies[8].starts_with("true:") && replies[8].contains("At most 8"), "{replies:?}");
}

#[test]
fn stop_ends_every_run_of_the_team() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "@scout wait").unwrap();
    f.engine.chat().send_team(&f.general, "@writer wait").unwrap();
    wait_for("both runs", Duration::from_secs(10), || {
        let runs = f.engine.chat().room_runs(&f.general, 10).unwrap();
        (runs.iter().filter(|r| r.status == RunStatus::Running).count() == 2).then_some(())
    });
    f.engine.chat().stop_team(&f.team_id).unwrap();
    let messages = f.settle("the runs to end", |m| m.iter().any(|m| m.content.starts_with("Stopped")));
    let runs = f.engine.chat().room_runs(&f.general, 10).unwrap();
    assert!(runs.iter().all(|r| r.status == RunStatus::Cancelled), "{runs:?}");
    assert!(messages.iter().all(|m| m.kind != RoomMessageKind::Batch));
}

#[test]
fn a_result_stopped_with_the_team_never_rides_along_with_a_later_batch() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "delegate-wait").unwrap();
    wait_for("the teammate's waiting run", Duration::from_secs(10), || {
        let runs = f.engine.chat().room_runs(&f.general, 10).unwrap();
        runs.iter().any(|r| r.status == RunStatus::Running && r.agent_id == f.ids[1]).then_some(())
    });
    f.engine.chat().stop_team(&f.team_id).unwrap();
    f.settle("the stop", |m| m.iter().any(|m| m.content.starts_with("Stopped")));
    // A batch goes out the moment its last result is in: one that should not come would come now.
    std::thread::sleep(Duration::from_millis(500));
    f.engine.chat().send_team(&f.general, "plan").unwrap();
    let messages = f.settle("the final answer", |m| m.iter().any(|m| m.content.starts_with("Final:")));
    assert_eq!(messages.last().unwrap().content, "Final: 2 results", "only this round's results");
    assert_eq!(messages.iter().filter(|m| m.kind == RoomMessageKind::Batch).count(), 1);
}

#[test]
fn reset_and_rules_are_commands_not_messages() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "first").unwrap();
    f.settle("the reply", |m| m.iter().any(|m| m.kind == RoomMessageKind::Reply));
    let added = f.engine.chat().send_team(&f.general, "/rule Answer in English.").unwrap();
    assert_eq!(added.message.kind, RoomMessageKind::Notice);
    assert!(added.addressed.is_empty());
    assert_eq!(f.engine.teams().get(&f.team_id).unwrap().rules[0].text, "Answer in English.");
    let listed = f.engine.chat().send_team(&f.general, "/rule").unwrap();
    assert!(listed.message.content.contains("1. Answer in English."));
    let err = f.engine.chat().send_team(&f.general, &format!("/rule {}", "x".repeat(4_001))).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    f.engine.chat().send_team(&f.general, "/reset").unwrap();
    f.engine.chat().send_team(&f.general, "second").unwrap();
    f.settle("the second reply", |m| m.iter().filter(|m| m.kind == RoomMessageKind::Reply).count() == 2);
    let second = f.input_for("second");
    assert!(second.transcript.is_empty(), "/reset ends what the leader carries");
    assert!(second.persona.unwrap_or_default().contains("Answer in English."), "the rule applies from the next turn");
    f.engine.chat().send_team(&f.general, "/rule remove 1").unwrap();
    assert!(f.engine.teams().get(&f.team_id).unwrap().rules.is_empty());
}

#[test]
fn the_leader_carries_its_room_turn_after_turn_and_a_fresh_read_gives_the_same() {
    // The room's conversation is kept between the leader's turns (each reads only what is new);
    // an engine opened afresh reads it whole, and carries exactly the same.
    let f = fixture();
    for (i, text) in ["one", "two", "three"].iter().enumerate() {
        f.engine.chat().send_team(&f.general, text).unwrap();
        f.settle("the reply", |m| m.iter().filter(|m| m.kind == RoomMessageKind::Reply).count() == i + 1);
    }
    let carried = |input: &TurnInput| -> Vec<(String, String)> {
        input.transcript.iter().map(|t| (t.user.to_string(), t.assistant.to_string())).collect()
    };
    let (two, three) = (carried(&f.input_for("two")), carried(&f.input_for("three")));
    assert_eq!(two.len(), 1, "{two:?}");
    assert_eq!(three.len(), 2, "{three:?}");
    assert_eq!(three[..1], two[..], "the turn before, carried as it was");
    assert_eq!(three[1].0, "two");

    let Fixture { data, engine, runtime, general, .. } = f;
    drop(engine);
    let reopened = data.open_with(vec![runtime.clone()]);
    reopened.chat().send_team(&general, "four").unwrap();
    let four = wait_for("the fourth turn", Duration::from_secs(20), || {
        runtime.inputs.lock().unwrap().iter().find(|i| i.message == "four").cloned()
    });
    let four = carried(&four);
    assert_eq!(four.len(), 3, "{four:?}");
    assert_eq!(four[..2], three[..], "read whole, the same turns");
}

#[test]
fn a_restart_shows_the_same_room_and_marks_a_run_cut_off_by_the_quit() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "hello").unwrap();
    f.settle("the reply", |m| m.iter().any(|m| m.kind == RoomMessageKind::Reply));
    f.engine.chat().send_team(&f.general, "@scout wait").unwrap();
    wait_for("the waiting run", Duration::from_secs(10), || {
        let runs = f.engine.chat().room_runs(&f.general, 10).unwrap();
        runs.iter().any(|r| r.status == RunStatus::Running).then_some(())
    });
    let Fixture { data, engine, general, .. } = f;
    drop(engine); // the app quits: its runs are stopped
    let engine = data.open_with(vec![Arc::new(Scripted::default())]);
    let page = engine.chat().room_page(&general, None, 100).unwrap();
    let kinds: Vec<_> = page.messages.iter().map(|m| m.kind).collect();
    use RoomMessageKind::*;
    assert_eq!(kinds, [User, Reply, User, Notice], "{:?}", page.messages);
    assert!(page.messages[3].content.contains("cancelled"), "{}", page.messages[3].content);
    let runs = engine.chat().room_runs(&general, 10).unwrap();
    assert_eq!(runs.iter().filter(|r| r.status == RunStatus::Cancelled).count(), 1);
}

#[test]
fn pages_read_a_long_room_from_the_newest() {
    let f = fixture();
    for i in 0..30 {
        f.engine.chat().send_team(&f.general, &format!("/rule r{i}")).ok();
    }
    let newest = f.engine.chat().room_page(&f.general, None, 10).unwrap();
    assert_eq!(newest.messages.len(), 10);
    assert!(newest.has_older);
    let older = f.engine.chat().room_page(&f.general, Some(newest.messages[0].seq), 10).unwrap();
    assert_eq!(older.messages.last().unwrap().seq + 1, newest.messages[0].seq);
    assert!(older.messages.windows(2).all(|w| w[0].seq < w[1].seq));
}

#[test]
fn a_hand_off_makes_a_card_for_the_teammate_that_ends_done_with_its_report() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "plan").unwrap();
    let messages = f.settle("the leader's final answer", |m| m.iter().any(|m| m.content.starts_with("Final:")));
    let card = f.card_of(&f.ids[1], |c| c.status == CardStatus::Done);
    let task = "research the market";
    assert_eq!(card.title, task);
    assert_eq!(card.description, task);
    assert_eq!(card.task_text.as_deref(), Some(task), "the exact task text the teammate received");
    assert_eq!(f.input_for(task).message, task);
    assert_eq!(card.team_id.as_deref(), Some(f.team_id.as_str()));
    assert_eq!(card.claimed_by_run, None);
    let handoff = messages.iter().find(|m| m.kind == RoomMessageKind::Handoff && m.content == task).unwrap();
    assert_eq!(
        card.origin,
        CardOrigin::Handoff {
            handoff_id: handoff.handoff_id.clone().unwrap(),
            room_id: f.general.clone(),
            from_agent_id: f.ids[0].clone(),
        }
    );
    let run_id = handoff.run_id.clone().expect("the hand-off card shows the teammate's run");

    let detail = f.engine.board().detail(&card.id).unwrap();
    assert_eq!(detail.comments.len(), 1);
    let report = &detail.comments[0];
    assert_eq!((report.kind, report.text.as_str()), (CommentKind::Report, "found the market"));
    let scout = Actor::Agent { agent_id: f.ids[1].clone(), handle: "scout".into(), run_id: Some(run_id.clone()) };
    assert_eq!(report.author, scout);
    let kinds: Vec<ActivityKind> = detail.activity.iter().map(|a| a.activity.clone()).collect();
    assert_eq!(
        kinds,
        [
            ActivityKind::Created,
            ActivityKind::Claimed { run_id: run_id.clone() },
            ActivityKind::Commented { comment_id: report.id.clone() },
            ActivityKind::Moved { from: CardStatus::InProgress, to: CardStatus::Done, reason: None },
            ActivityKind::Released { run_id: run_id.clone() },
        ]
    );
    let runs = f.engine.board().runs(&card.id).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(
        (runs[0].run_id.as_str(), runs[0].kind, runs[0].status),
        (run_id.as_str(), CardRunKind::Handoff, CardRunStatus::Succeeded)
    );
    // The writer got its own card.
    assert_eq!(f.card_of(&f.ids[2], |c| c.status == CardStatus::Done).task_text.as_deref(), Some("write the brief"));
}

#[test]
fn a_hand_off_stopped_by_the_user_or_cut_off_by_a_quit_leaves_its_card_blocked() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "delegate-wait").unwrap();
    let claimed = f.card_of(&f.ids[1], |c| c.status == CardStatus::InProgress);
    assert!(claimed.claimed_by_run.is_some(), "the teammate's run holds its card while it works");
    f.engine.chat().stop_team(&f.team_id).unwrap();
    let stopped = f.card_of(&f.ids[1], |c| c.status == CardStatus::Blocked);
    assert_eq!(stopped.blocked_reason.as_deref(), Some("Stopped by the user"));
    assert_eq!(f.engine.board().runs(&stopped.id).unwrap()[0].status, CardRunStatus::Cancelled);

    // Again, and this time the app quits while the teammate works.
    f.settle("the stop", |m| m.iter().any(|m| m.content.starts_with("Stopped")));
    f.engine.chat().send_team(&f.general, "delegate-wait").unwrap();
    let second = f.card_of(&f.ids[1], |c| c.status == CardStatus::InProgress);
    let Fixture { data, engine, .. } = f;
    drop(engine);
    let engine = data.open_with(vec![Arc::new(Scripted::default())]);
    let cut = engine.board().get(&second.id).unwrap();
    assert_eq!((cut.status, cut.blocked_reason.as_deref()), (CardStatus::Blocked, Some("Cut off when Clawboo quit")));
    assert_eq!(engine.board().runs(&cut.id).unwrap()[0].status, CardRunStatus::Interrupted);
}

/// The run context of the newest run of `agent_id` in the room (what it was given).
fn last_context(f: &Fixture, agent_id: &str) -> clawboo_engine::chat::team::RunContext {
    let runs = f.engine.chat().room_runs(&f.general, 100).unwrap();
    let run = runs.iter().rev().find(|r| r.agent_id == agent_id).expect("a run of the agent");
    f.engine.chat().run_context(&run.id).unwrap()
}

fn section_text(context: &clawboo_engine::chat::team::RunContext, kind: SectionKind) -> String {
    context.sections.iter().find(|s| s.kind == kind).map(|s| s.text.clone()).unwrap_or_default()
}

#[test]
fn a_chain_returns_its_results_up_to_the_leader() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "relay").unwrap();
    let messages = f.settle("the leader's final answer", |m| m.iter().any(|m| m.content == "Final relay"));
    let handoffs: Vec<&RoomMessage> = messages.iter().filter(|m| m.kind == RoomMessageKind::Handoff).collect();
    assert_eq!(handoffs.len(), 2, "{messages:#?}");
    // The scout's task went on with the writer's result, framed as its task and its results.
    let scout = f.input_for_prefix("Your task:");
    assert_eq!(scout.agent.handle, "scout");
    assert!(scout.message.starts_with("Your task:\nrelay-1\n\nResults of the work you handed out (1):"));
    assert!(scout.message.contains("relayed-2"), "{}", scout.message);
    let how = section_text(&last_context(&f, &f.ids[1]), SectionKind::HowToWork);
    assert!(how.contains("@lead handed you the task below, and the results of the work you handed out"), "{how}");
    assert!(!how.contains("The user addressed you directly"), "{how}");
    // The scout's reply to its results went up to the leader as its task's result, once.
    let leader = f.input_for_prefix("Results of the work you handed out");
    assert_eq!(leader.agent.handle, "lead");
    assert!(leader.message.contains("### @scout\nTask: relay-1\nrelayed-1"), "{}", leader.message);
    assert!(!leader.message.contains("relay-2"), "the writer's result went to the scout only");
    assert_eq!(messages.iter().filter(|m| m.kind == RoomMessageKind::Batch).count(), 2);
    // The scout's card ends done with its final reply as the report.
    let card = f.card_of(&f.ids[1], |c| c.status == CardStatus::Done);
    let detail = f.engine.board().detail(&card.id).unwrap();
    assert_eq!(detail.comments.last().unwrap().text, "relayed-1");
    assert_eq!(f.engine.board().runs(&card.id).unwrap().len(), 2, "the task's two runs");
}

#[test]
fn a_peer_post_held_back_by_the_budget_reaches_the_agent_though_it_posted_meanwhile() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "@scout post-many").unwrap();
    f.settle("the scout's posts", |m| m.iter().any(|m| m.content == "Posted."));
    f.engine.chat().send_team(&f.general, "post-one").unwrap();
    f.settle("the leader's post", |m| m.iter().any(|m| m.content == "Posted mine."));
    let first = last_context(&f, &f.ids[0]);
    let ambient = section_text(&first, SectionKind::Ambient);
    assert!(ambient.contains("Post 4:") && !ambient.contains("Post 5:"), "four fit the budget: {ambient}");
    assert_eq!(first.deferred.len(), 2, "two wait");
    f.engine.chat().send_team(&f.general, "hello").unwrap();
    f.settle("the leader's reply", |m| m.iter().any(|m| m.content.starts_with("lead heard")));
    let second = section_text(&last_context(&f, &f.ids[0]), SectionKind::Ambient);
    assert!(second.contains("Post 5:") && second.contains("Post 6:"), "{second}");
    assert!(!second.contains("Post 4:") && !second.contains("A note of my own."), "{second}");
}

#[test]
fn what_happens_in_the_team_waits_in_the_inbox_once() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "plan").unwrap();
    f.settle("the leader's final answer", |m| m.iter().any(|m| m.content.starts_with("Final:")));
    // The user adds a rule (a notice for every member) and comments on the scout's card (an
    // alert for the scout).
    f.engine.teams().add_rule(&f.team_id, "Answer in English.").unwrap();
    let card = f.card_of(&f.ids[1], |c| c.status == CardStatus::Done);
    f.engine.board().comment(Actor::User, &card.id, CommentKind::Comment, "Add the prices too.", None).unwrap();
    f.engine.chat().send_team(&f.general, "@scout hello").unwrap();
    f.settle("the scout's reply", |m| m.iter().any(|m| m.content.starts_with("scout heard")));
    let scout = last_context(&f, &f.ids[1]);
    let addressed = section_text(&scout, SectionKind::AddressedToYou);
    let comment =
        format!("The user commented on your card #{} \"research the market\":\nAdd the prices too.", card.number);
    assert!(addressed.contains(&comment), "{addressed}");
    let ambient = section_text(&scout, SectionKind::Ambient);
    assert!(ambient.contains("The user added team rule 1 (see Team rules)."), "{ambient}");
    // The user answers the scout's question in the inbox: the answer is its next message, and
    // an alert says what it answers.
    f.engine.chat().send_team(&f.general, "@scout ask").unwrap();
    let question = wait_for("the scout's question", Duration::from_secs(20), || {
        f.engine.attention().open().unwrap().into_iter().find(|r| r.text.contains("which flavour?"))
    });
    f.engine.answer_attention(&question.id, UserAnswer::Text { text: "Vanilla".into() }).unwrap();
    f.settle("the scout's answer", |m| m.iter().any(|m| m.content == "scout heard: Vanilla"));
    let addressed = section_text(&last_context(&f, &f.ids[1]), SectionKind::AddressedToYou);
    assert!(
        addressed.contains("The message below is the user's answer to your question \"@user which flavour?\"."),
        "{addressed}"
    );
    // A new member joins; a routine of the scout's ends on the team's card: a notice for the
    // members, the routine's result in General, waking the leader.
    let newbie = common::add_agent(&f.engine, agent("newbie"));
    let mut members = f.ids.clone();
    members.push(newbie);
    f.engine.teams().set_members(&f.team_id, members).unwrap();
    let board = f.engine.board();
    let new = NewCard {
        title: "Morning stock count".into(),
        description: String::new(),
        assignee_id: Some(f.ids[1].clone()),
        team_id: Some(f.team_id.clone()),
        status: None,
        priority: None,
        depends_on: Vec::new(),
        check_command: None,
        project_folder: None,
    };
    let origin = CardOrigin::Routine { routine_id: "r-1".into(), routine_run_id: "rr-1".into() };
    let routine_card = board.create_for_routine(new, origin).unwrap();
    board.claim(&routine_card.id, "run-routine").unwrap();
    let scout = Actor::Agent { agent_id: f.ids[1].clone(), handle: "scout".into(), run_id: Some("run-routine".into()) };
    board.comment(scout, &routine_card.id, CommentKind::Report, "12 crates.", Some("run-routine".into())).unwrap();
    board.release(&routine_card.id, "run-routine", CardStatus::Done, None).unwrap();
    // A room made with the leader and the scout: a notice for each, in General.
    let room = NewRoom { name: "Design".into(), member_ids: f.ids[..2].to_vec(), leader_id: None };
    f.engine.teams().create_room(&f.team_id, room).unwrap();
    // A turn of the leader that never really starts (no reply, no session) reads nothing: what it
    // carried waits for the next one.
    f.engine.chat().send_team(&f.general, "fail-at-once").unwrap();
    f.settle("the failed turn", |m| m.iter().any(|m| m.content.contains("The model could not be reached.")));
    assert!(section_text(&last_context(&f, &f.ids[0]), SectionKind::Ambient).contains("@newbie joined the team."));
    // The leader gets each notice and alert on its next turn, and never again.
    for (i, text) in ["first", "second"].into_iter().enumerate() {
        f.engine.chat().send_team(&f.general, text).unwrap();
        f.settle("the leader's reply", |m| m.iter().any(|m| m.content == format!("lead heard: {text}")));
        let context = last_context(&f, &f.ids[0]);
        let ambient = section_text(&context, SectionKind::Ambient);
        assert_eq!(ambient.contains("The user added team rule 1"), i == 0, "turn {i}: {ambient}");
        assert_eq!(ambient.contains("@newbie joined the team."), i == 0, "turn {i}: {ambient}");
        assert_eq!(
            ambient.contains("The user made the room Design with @lead, @scout."),
            i == 0,
            "turn {i}: {ambient}"
        );
        // The routine's result woke the leader as the routine's own message: it is not also waiting.
        let addressed = section_text(&context, SectionKind::AddressedToYou);
        assert!(!addressed.contains("Morning stock count"), "turn {i}: {addressed}");
    }
    let routine = format!(
        "Routine \"Morning stock count\": Routine card #{} \"Morning stock count\" by @scout ended done.\nIts report:\n12 crates.",
        routine_card.number
    );
    let page = f.engine.chat().room_page(&f.general, None, 100).unwrap();
    let shown = page.messages.iter().find(|m| m.content == routine).expect("the result in General");
    // The room knows it as the routine's: its name, the member that ran it, the card.
    let expected = clawboo_engine::chat::team::RoomRoutine {
        name: "Morning stock count".into(),
        agent_id: Some(f.ids[1].clone()),
        card_id: Some(routine_card.id.clone()),
    };
    assert_eq!((shown.kind, shown.routine.as_ref()), (RoomMessageKind::User, Some(&expected)));
    assert!(page.messages.iter().filter(|m| m.id != shown.id).all(|m| m.routine.is_none()));
}

#[test]
fn stop_during_a_chain_three_deep_ends_every_run_and_the_next_message_starts_clean() {
    let f = fixture();
    f.engine.chat().send_team(&f.general, "chain-stop").unwrap();
    let writer_run = wait_for("the writer at work, at the chain's end", Duration::from_secs(20), || {
        let runs = f.engine.chat().room_runs(&f.general, 10).unwrap();
        runs.into_iter().find(|r| r.status == RunStatus::Running && r.agent_id == f.ids[2])
    });
    // Its words so far are streamed (what the room shows while it works).
    wait_for("the writer's first words", Duration::from_secs(20), || {
        let activity = f.engine.chat().run_activity(&writer_run.id).unwrap();
        activity
            .iter()
            .any(|r| matches!(&r.event, RunEvent::TextDelta { text } if text.contains("Half a draft")))
            .then_some(())
    });
    f.engine.chat().stop_team(&f.team_id).unwrap();
    let messages = f.settle("every run to end", |m| m.iter().any(|m| m.content.starts_with("Stopped")));

    // Every run of the chain is over: the writer's cut off, none left going, no batch sent up.
    let runs = f.engine.chat().room_runs(&f.general, 100).unwrap();
    assert_eq!(runs.len(), 3, "{runs:?}");
    let status_of = |agent: &str| runs.iter().find(|r| r.agent_id == agent).unwrap().status;
    assert_eq!(status_of(&f.ids[2]), RunStatus::Cancelled);
    assert_eq!((status_of(&f.ids[0]), status_of(&f.ids[1])), (RunStatus::Succeeded, RunStatus::Succeeded));
    use RoomMessageKind::*;
    assert!(messages.iter().all(|m| m.kind != Batch), "nothing went up the chain: {messages:#?}");
    // What the leader and the scout said stays in the room, and so do both hand-offs.
    for said in ["Starting the chain.", "Asking the writer."] {
        assert!(messages.iter().any(|m| m.kind == Reply && m.content.contains(said)), "{said}: {messages:#?}");
    }
    let handoffs: Vec<&str> = messages.iter().filter(|m| m.kind == Handoff).map(|m| m.content.as_str()).collect();
    assert_eq!(handoffs, ["chain-stop-1 count the stock", "chain-stop-2 draft the note"]);
    // The writer's words before the stop stay too, said to be partial.
    let partial = messages.iter().find(|m| m.kind == Reply && m.author_id.as_deref() == Some(f.ids[2].as_str()));
    assert_eq!(partial.map(|m| m.content.as_str()), Some("Half a draft"), "{messages:#?}");
    assert!(messages.iter().any(|m| m.content == "@writer was stopped; its reply above is partial."));
    // Both hand-off cards say they were stopped: the writer's cut off while it worked, the
    // scout's while it waited for the writer.
    for (agent, who) in [(&f.ids[1], "scout"), (&f.ids[2], "writer")] {
        let card = f.card_of(agent, |c| c.status == CardStatus::Blocked);
        assert_eq!(card.blocked_reason.as_deref(), Some("Stopped by the user"), "@{who}'s card");
        assert!(card.claimed_by_run.is_none(), "@{who}'s card is not held by a run");
    }

    // A result the stop cut off never arrives later, and the next message starts clean: a
    // fresh round with its own batch, the leader told nothing of the stopped chain.
    std::thread::sleep(Duration::from_millis(500));
    f.engine.chat().send_team(&f.general, "plan").unwrap();
    let messages = f.settle("the next round's answer", |m| m.iter().any(|m| m.content.starts_with("Final:")));
    assert_eq!(messages.last().unwrap().content, "Final: 2 results", "only this round's results");
    assert_eq!(messages.iter().filter(|m| m.kind == Batch).count(), 1);
    let leader = f.input_for("plan");
    assert!(!leader.message.contains("chain-stop"), "{}", leader.message);
    let batch = f.input_for_prefix("Results of the work you handed out");
    assert!(!batch.message.contains("chain-stop") && !batch.message.contains("Half a draft"), "{}", batch.message);
    assert!(f.engine.chat().room_runs(&f.general, 100).unwrap().iter().all(|r| r.status != RunStatus::Running));
}
