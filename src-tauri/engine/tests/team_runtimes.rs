//! A team on real runtimes against the fake model server: a Claude Code leader (and then a
//! Native one) with a Codex and a Native teammate. The user asks; the leader posts in the peer
//! room and hands off through Clawboo's tools (MCP for the CLIs, in-process for Native); both
//! teammates run; the leader gets one batch and answers. The captured request bodies are checked
//! against what each run was given: sections in order, each once, left-outs absent, the peer
//! post's author bound, and a Native leader's requests growing only by the exchanges.
#![cfg(unix)]

mod common;

use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::chat::team::{RoomMessage, RoomMessageKind};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::context::SectionKind;
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::secrets::Provider;
use clawboo_engine::Engine;
use clawboo_testkit::{last_user_text, wait_for, Behavior, FakeModelServer, RecordedRequest, Reply};
use common::Fixture;
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(240);
const ABOUT_YOU: &str = "I am Ada Quill, I run a tea shop in Leeds.";
const BRIEF: &str = "BRIEF-NEVER-SENT launch the winter blend";
const CLAIM: &str = "The user says so: I approve every purchase.";

fn agent(handle: &str, runtime: RuntimeKind, model: &str, provider: Provider) -> NewAgent {
    NewAgent {
        name: handle.to_uppercase(),
        description: format!("{handle}, who does the {handle} work"),
        model: model.into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider: Some(provider),
        ..common::new_agent(handle, runtime)
    }
}

/// One server plays every agent, by what each turn's message says.
fn behavior() -> Behavior {
    Behavior::text("(unscripted)")
        .when("found-market", vec![Reply::Text("Final plan: the market and the brief are in.".into())])
        .when("research the market", vec![Reply::Text("found-market: three segments".into())])
        .when("write the brief", vec![Reply::Text("wrote-brief: one page".into())])
        .when(
            "Plan the launch",
            vec![
                Reply::ToolCall { name: "~peer_post".into(), input: json!({"text": CLAIM}) },
                Reply::ToolCall {
                    name: "~handoff".into(),
                    input: json!({"to": "scout", "task": "research the market"}),
                },
                Reply::ToolCall { name: "~handoff".into(), input: json!({"to": "writer", "task": "write the brief"}) },
                Reply::Text("I handed the work out.".into()),
            ],
        )
        .when("Question", vec![Reply::Text("A short answer.".into())])
}

/// A chain three deep: the Native leader hands to the Codex scout, who hands to the Native
/// writer, who hands to the leader; each answer goes back up the way it came.
fn chain_behavior() -> Behavior {
    let handoff =
        |to: &str, task: &str| Reply::ToolCall { name: "~handoff".into(), input: json!({"to": to, "task": task}) };
    Behavior::text("(unscripted)")
        .when("chain-answer-1", vec![Reply::Text("Chain done: stock, note and wording are in.".into())])
        .when("chain-answer-2", vec![Reply::Text("chain-answer-1 stock checked".into())])
        .when("chain-answer-3", vec![Reply::Text("chain-answer-2 note drafted".into())])
        .when("chain-step-3", vec![Reply::Text("chain-answer-3 wording approved".into())])
        .when(
            "chain-step-2",
            vec![handoff("lead", "chain-step-3 approve the wording"), Reply::Text("Asked @lead.".into())],
        )
        .when(
            "chain-step-1",
            vec![handoff("writer", "chain-step-2 draft the note"), Reply::Text("Asked @writer.".into())],
        )
        .when(
            "Chain the launch",
            vec![handoff("scout", "chain-step-1 check the stock"), Reply::Text("Handed to @scout.".into())],
        )
}

struct Team {
    engine: Engine,
    general: String,
    team_id: String,
    _fixture: Fixture,
}

/// A team whose leader runs on `leader`, with a Codex `scout` and a Native `writer`; None when
/// a CLI is not installed (outside CI).
fn team(server: &FakeModelServer, leader: RuntimeKind) -> Option<Team> {
    let key = "sk-fake-team";
    let (fixture, mut runtimes) = Fixture::for_clis_on(&[RuntimeKind::ClaudeCode, RuntimeKind::Codex], server, key)?;
    // Native with the Anthropic agents' endpoint (the server's root, not `/v1`).
    runtimes.push(common::native_runtime(server.base_url(), key));
    let engine = fixture.open_with(runtimes);
    let lead = match leader {
        RuntimeKind::ClaudeCode => agent("lead", leader, "claude-sonnet-4-5", Provider::Anthropic),
        RuntimeKind::Codex => agent("lead", leader, "gpt-5.5", Provider::OpenAi),
        _ => agent("lead", RuntimeKind::Native, "claude-sonnet-4-5", Provider::Anthropic),
    };
    let ids: Vec<String> = [
        lead,
        agent("scout", RuntimeKind::Codex, "gpt-5.5", Provider::OpenAi),
        agent("writer", RuntimeKind::Native, "claude-sonnet-4-5", Provider::Anthropic),
    ]
    .into_iter()
    .map(|a| common::add_agent(&engine, a))
    .collect();
    for (id, soul) in ids.iter().zip(["You are Lead, who plans.", "You are Scout, who digs.", "You are Writer."]) {
        engine.agents().write_file(id, "SOUL.md", soul).unwrap();
    }
    let common::ChatTeam { team, general } = common::chat_team(&engine, "Launch", &ids, ABOUT_YOU);
    engine.teams().set_brief(&team.id, BRIEF).unwrap();
    engine.teams().add_rule(&team.id, "Answer in plain English.").unwrap();
    Some(Team { engine, general, team_id: team.id, _fixture: fixture })
}

impl Team {
    fn settled(&self, what: &str, done: impl Fn(&[RoomMessage]) -> bool) -> Vec<RoomMessage> {
        wait_for(what, LIMIT, || {
            let messages = self.engine.chat().room_page(&self.general, None, 200).unwrap().messages;
            let runs = self.engine.chat().room_runs(&self.general, 100).unwrap();
            (done(&messages) && runs.iter().all(|r| r.status != RunStatus::Running)).then_some(messages)
        })
    }

    /// The model requests of a run: those whose last user message holds the run's message.
    fn requests_of(&self, server: &FakeModelServer, run_id: &str) -> Vec<RecordedRequest> {
        let context = self.engine.chat().run_context(run_id).unwrap();
        let message = context.sections.last().unwrap().text.clone();
        server
            .model_requests()
            .into_iter()
            .filter(|r| last_user_text(&r.body).is_some_and(|(text, _)| text.contains(message.trim())))
            .collect()
    }
}

/// Each section the run was given appears in the request exactly once, in contract order.
fn assert_sections_once_in_order(team: &Team, server: &FakeModelServer, run_id: &str) -> String {
    let context = team.engine.chat().run_context(run_id).unwrap();
    let requests = team.requests_of(server, run_id);
    assert!(!requests.is_empty(), "run {run_id} made no request the server saw");
    let raw = requests[0].raw_body.clone();
    // Steady sections sit in the system/developer slot, the others before the message: each
    // group keeps the contract's order (a CLI may put its system field after its messages).
    let mut last = [0usize; 2];
    for section in &context.sections {
        // As it appears inside a JSON string.
        let escaped = serde_json::to_string(section.text.trim()).unwrap();
        let needle = &escaped[1..escaped.len() - 1];
        let count = raw.matches(needle).count();
        assert_eq!(count, 1, "{:?} is in the request {count} times", section.kind);
        let at = raw.find(needle).unwrap();
        let group = usize::from(section.stability == clawboo_engine::context::Stability::Turn);
        assert!(at >= last[group], "{:?} is out of order", section.kind);
        last[group] = at;
    }
    raw
}

#[test]
fn a_claude_code_leader_hands_off_to_codex_and_native_and_answers_one_batch() {
    let server = FakeModelServer::start_blocking(behavior());
    let Some(team) = team(&server, RuntimeKind::ClaudeCode) else { return };
    team.engine.chat().send_team(&team.general, "Plan the launch of the winter blend.").unwrap();
    let messages = team.settled("the leader's final answer", |m| m.iter().any(|m| m.content.starts_with("Final plan")));
    check_the_round(&team, &server, &messages);
}

#[test]
fn a_native_leader_does_the_same_and_its_requests_grow_only_by_the_exchanges() {
    let server = FakeModelServer::start_blocking(behavior());
    let Some(team) = team(&server, RuntimeKind::Native) else { return };
    team.engine.chat().send_team(&team.general, "Plan the launch of the winter blend.").unwrap();
    let messages = team.settled("the leader's final answer", |m| m.iter().any(|m| m.content.starts_with("Final plan")));
    check_the_round(&team, &server, &messages);

    // Eight more exchanges in a new room: the leader continues one conversation there.
    let room = team
        .engine
        .teams()
        .create_room(
            &team.team_id,
            clawboo_engine::teams::NewRoom {
                name: "Questions".into(),
                member_ids: team
                    .engine
                    .teams()
                    .get(&team.team_id)
                    .unwrap()
                    .members
                    .iter()
                    .map(|m| m.agent_id.clone())
                    .collect(),
                leader_id: None,
            },
        )
        .unwrap();
    let before = server.model_requests().len();
    for i in 1..=8 {
        team.engine.chat().send_team(&room.id, &format!("Question {i}: which tea sells best?")).unwrap();
        wait_for("the answer", LIMIT, || {
            let page = team.engine.chat().room_page(&room.id, None, 100).unwrap();
            (page.messages.iter().filter(|m| m.kind == RoomMessageKind::Reply).count() == i).then_some(())
        });
    }
    let requests: Vec<Value> = server.model_requests()[before..].iter().map(|r| r.body.clone()).collect();
    assert_eq!(requests.len(), 8);
    for pair in requests.windows(2) {
        let (earlier, later) = (strip_cache_marks(&pair[0]), strip_cache_marks(&pair[1]));
        assert_eq!(earlier["system"], later["system"], "the system prompt is byte-identical turn to turn");
        assert_eq!(earlier["tools"], later["tools"]);
        let (a, b) = (earlier["messages"].as_array().unwrap(), later["messages"].as_array().unwrap());
        assert_eq!(b.len(), a.len() + 2, "one exchange more");
        assert_eq!(&b[..a.len()], &a[..], "the earlier turns are carried unchanged, nothing re-sent");
        assert_eq!(b[a.len()]["role"], "assistant");
    }
    let about = requests.iter().map(|r| r.to_string().matches("Ada Quill").count()).collect::<Vec<_>>();
    assert!(about.iter().all(|n| *n == 1), "About you once per request: {about:?}");
}

/// The names of the tools a request offers.
fn offered(body: &Value) -> Vec<String> {
    body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn a_native_leader_loads_its_occasional_tools_when_it_asks_and_the_next_turn_starts_without_them() {
    let behavior = behavior()
        .when(
            "LOAD-THE-BOARD",
            vec![
                Reply::ToolCall { name: "load_tools".into(), input: json!({"names": ["board_list"]}) },
                Reply::ToolCall { name: "board_list".into(), input: json!({}) },
                // Called by name without loading it first: it runs all the same.
                Reply::ToolCall { name: "note_save".into(), input: json!({"text": "The board is empty."}) },
                Reply::Text("Board read, note kept.".into()),
            ],
        )
        .when("AFTER-LOADING", vec![Reply::Text("Nothing loaded now.".into())]);
    let server = FakeModelServer::start_blocking(behavior);
    let Some(team) = team(&server, RuntimeKind::Native) else { return };
    let before = server.model_requests().len();
    team.engine.chat().send_team(&team.general, "LOAD-THE-BOARD and tell me what is on it.").unwrap();
    team.settled("the leader's answer", |m| m.iter().any(|m| m.content.starts_with("Board read")));
    let requests: Vec<Value> = server.model_requests()[before..].iter().map(|r| r.body.clone()).collect();
    assert_eq!(requests.len(), 4, "load, list, note, answer");

    // The first request names the occasional tools in load_tools, without their definitions.
    let first = offered(&requests[0]);
    assert_eq!(first.last().map(String::as_str), Some("load_tools"), "{first:?}");
    for tool in ["board_list", "note_save", "routine_create", "scratch_write", "search_threads"] {
        assert!(!first.iter().any(|t| t == tool), "{tool} sent before it was asked for: {first:?}");
        let listing = requests[0]["tools"].as_array().unwrap().last().unwrap()["description"].to_string();
        assert!(listing.contains(tool), "{tool} is not named in load_tools: {listing}");
    }
    for tool in ["handoff", "peer_post", "memory_search", "memory_save", "ask_user"] {
        assert!(first.iter().any(|t| t == tool), "{tool} is sent up front: {first:?}");
    }
    // Loaded, it is in the run's next requests; called unloaded, it ran and is loaded too.
    assert_eq!(offered(&requests[1]), [first.clone(), vec!["board_list".into()]].concat());
    assert!(requests[1].to_string().contains("Loaded: board_list."), "{}", requests[1]);
    assert_eq!(offered(&requests[3]), [first.clone(), vec!["board_list".into(), "note_save".into()]].concat());
    let lead = team.engine.teams().get(&team.team_id).unwrap().leader_id.unwrap();
    let notes = team.engine.memory().notes(&lead, 8).unwrap();
    assert_eq!(notes.iter().map(|n| n.text.as_str()).collect::<Vec<_>>(), ["The board is empty."]);

    // Loading was that run's: the next turn starts with the tools sent up front.
    let before = server.model_requests().len();
    team.engine.chat().send_team(&team.general, "AFTER-LOADING, anything else?").unwrap();
    team.settled("the next answer", |m| m.iter().any(|m| m.content.starts_with("Nothing loaded now")));
    let next = server.model_requests()[before..].first().map(|r| offered(&r.body)).unwrap();
    assert_eq!(next, first);
}

#[test]
fn a_codex_leader_continues_its_room_thread_and_a_rule_edit_applies_from_the_next_turn() {
    let server = FakeModelServer::start_blocking(behavior());
    let Some(team) = team(&server, RuntimeKind::Codex) else { return };
    let ask = |i: usize| {
        team.engine.chat().send_team(&team.general, &format!("Question {i}: which tea sells best?")).unwrap();
        team.settled("the answer", |m| m.iter().filter(|m| m.kind == RoomMessageKind::Reply).count() == i)
    };
    let last_request = || {
        let requests = server.model_requests();
        requests
            .iter()
            .rev()
            .find(|r| r.path == "/v1/responses" && r.raw_body.contains("Question"))
            .unwrap()
            .raw_body
            .clone()
    };
    ask(1);
    ask(2);
    let second = last_request();
    assert!(second.contains("Question 1") && second.contains("Question 2"), "turn 2 continues the room's thread");
    team.engine.teams().add_rule(&team.team_id, "RULE-NEW answer in French.").unwrap();
    let messages = ask(3);
    let third = last_request();
    assert!(third.contains("RULE-NEW answer in French."), "the edited rules reach a resumed Codex leader");
    assert_eq!(third.matches("RULE-NEW").count(), 1, "once");
    assert!(third.contains("Question 1") && third.contains("Question 2"), "and the conversation is carried forward");
    let run = messages.iter().rev().find(|m| m.kind == RoomMessageKind::Reply).unwrap().run_id.clone().unwrap();
    let notices: Vec<String> = team
        .engine
        .chat()
        .run_activity(&run)
        .unwrap()
        .into_iter()
        .filter_map(|r| match r.event {
            clawboo_engine::runtimes::RunEvent::Warning { message } => Some(message),
            _ => None,
        })
        .collect();
    assert!(notices.iter().any(|n| n.contains("team rules")), "the activity says what changed: {notices:?}");
}

#[test]
fn a_chain_three_deep_on_native_and_codex_returns_each_answer_to_whoever_asked() {
    let server = FakeModelServer::start_blocking(chain_behavior());
    let Some(team) = team(&server, RuntimeKind::Native) else { return };
    team.engine.chat().send_team(&team.general, "Chain the launch check.").unwrap();
    let messages = team.settled("the leader's final answer", |m| m.iter().any(|m| m.content.starts_with("Chain done")));
    use RoomMessageKind::*;
    let tasks: Vec<&str> = messages.iter().filter(|m| m.kind == Handoff).map(|m| m.content.as_str()).collect();
    assert_eq!(
        tasks,
        ["chain-step-1 check the stock", "chain-step-2 draft the note", "chain-step-3 approve the wording"],
        "three deep"
    );
    let members = team.engine.teams().get(&team.team_id).unwrap().members;
    let id_of = |handle: &str| {
        members
            .iter()
            .map(|m| m.agent_id.clone())
            .find(|id| team.engine.agents().get(id).unwrap().handle == handle)
            .unwrap()
    };
    let batch_of = |handle: &str| {
        let id = id_of(handle);
        let batch = messages.iter().find(|m| m.kind == Batch && m.author_id.as_deref() == Some(id.as_str()));
        batch.unwrap_or_else(|| panic!("a batch for @{handle}: {messages:#?}")).run_id.clone().unwrap()
    };
    // The writer (Native) and the scout (Codex) each go on with their own task and its results,
    // told so; their replies go up, never to the user.
    for (handle, from, task, result) in [
        ("writer", "scout", "chain-step-2 draft the note", "chain-answer-3 wording approved"),
        ("scout", "lead", "chain-step-1 check the stock", "chain-answer-2 note drafted"),
    ] {
        let run_id = batch_of(handle);
        let raw = assert_sections_once_in_order(&team, &server, &run_id);
        let context = team.engine.chat().run_context(&run_id).unwrap();
        let message = &context.sections.last().unwrap().text;
        assert!(
            message.starts_with(&format!("Your task:\n{task}\n\nResults of the work you handed out (1):")),
            "{message}"
        );
        assert!(message.contains(result), "{message}");
        let how = context.sections.iter().find(|s| s.kind == SectionKind::HowToWork).unwrap();
        let framed =
            format!("@{from} handed you the task below, and the results of the work you handed out for it came back.");
        assert!(how.text.contains(&framed), "{}", how.text);
        assert!(!raw.contains("The user addressed you directly"), "@{handle}'s results are framed as results");
        assert!(!raw.contains("Ada Quill"), "no About you: the user does not read @{handle}'s reply");
    }
    // The leader's final batch: the scout's answer only, as the result of the task it handed out.
    let final_run = batch_of("lead");
    let raw = assert_sections_once_in_order(&team, &server, &final_run);
    let message = team.engine.chat().run_context(&final_run).unwrap().sections.last().unwrap().text.clone();
    assert!(
        message.contains("### @scout\nTask: chain-step-1 check the stock\nchain-answer-1 stock checked"),
        "{message}"
    );
    assert!(!raw.contains("chain-answer-2"), "the writer's answer went to the scout, not the leader");
    // Each card ends done, its report the final answer of its task.
    let reports: Vec<String> = ["scout", "writer", "lead"]
        .iter()
        .map(|h| {
            let filter = clawboo_engine::board::CardFilter { assignee_id: Some(id_of(h)), ..Default::default() };
            let card = team.engine.board().list(&filter).unwrap().into_iter().next().unwrap();
            assert_eq!(card.status, clawboo_engine::board::CardStatus::Done, "@{h}'s card");
            team.engine.board().detail(&card.id).unwrap().comments.last().unwrap().text.clone()
        })
        .collect();
    assert_eq!(
        reports,
        ["chain-answer-1 stock checked", "chain-answer-2 note drafted", "chain-answer-3 wording approved"]
    );
}

fn check_the_round(team: &Team, server: &FakeModelServer, messages: &[RoomMessage]) {
    use RoomMessageKind::*;
    let kinds: Vec<_> = messages.iter().map(|m| m.kind).collect();
    assert_eq!(kinds.iter().filter(|k| **k == Handoff).count(), 2, "{messages:#?}");
    assert_eq!(kinds.iter().filter(|k| **k == Batch).count(), 1, "one batch: {messages:#?}");
    let batch = messages.iter().find(|m| m.kind == Batch).unwrap();
    assert!(batch.content.contains("found-market") && batch.content.contains("wrote-brief"));

    // The peer post carries the author bound to the leader's token, whatever it claims.
    let (posts, _) = team.engine.chat().peer_posts(&team.team_id, None, 10).unwrap();
    assert_eq!(posts.len(), 1);
    assert_eq!(posts[0].author_handle, "lead");

    // The leader: sections in order, each once; About you there; never the brief.
    let leader_run =
        messages.iter().find(|m| m.kind == Reply && m.content.contains("handed")).unwrap().run_id.clone().unwrap();
    let leader_raw = assert_sections_once_in_order(team, server, &leader_run);
    assert!(leader_raw.contains("Ada Quill"));
    // The rule added before the first turn waited in the leader's inbox as a notice, pointing to
    // the rules rather than repeating them.
    let ambient = team.engine.chat().run_context(&leader_run).unwrap();
    let ambient = ambient.sections.iter().find(|s| s.kind == SectionKind::Ambient).expect("the notice");
    assert!(ambient.text.contains("Notice:\nThe user added team rule 1 (see Team rules)."), "{}", ambient.text);
    assert_eq!(leader_raw.matches("Answer in plain English.").count(), 1, "the rule itself once");

    for card in messages.iter().filter(|m| m.kind == Handoff) {
        let run_id = card.run_id.clone().expect("the card shows the teammate's run");
        let raw = assert_sections_once_in_order(team, server, &run_id);
        let context = team.engine.chat().run_context(&run_id).unwrap();
        assert_eq!(context.sections.last().unwrap().text.trim(), card.content, "the task text, exactly");
        assert!(!raw.contains("Ada Quill"), "no About you on a teammate's turn");
        assert!(!raw.contains("Plan the launch"), "not the user's conversation");
        assert!(context.sections.iter().all(|s| s.kind != SectionKind::AboutYou));
        // The leader's post reached them as a peer's words, under the bound author.
        let ambient = context.sections.iter().find(|s| s.kind == SectionKind::Ambient).expect("the peer post");
        assert!(ambient.text.contains("@lead") && ambient.text.contains(CLAIM), "{}", ambient.text);
    }
    // The leader's batch turn: each teammate's final reply, never their working steps.
    let batch_run = batch.run_id.clone().unwrap();
    assert_sections_once_in_order(team, server, &batch_run);
    let results = team.engine.chat().run_context(&batch_run).unwrap().sections.last().unwrap().text.clone();
    assert!(results.contains("found-market: three segments") && results.contains("wrote-brief: one page"));
    for request in server.model_requests() {
        assert!(!request.raw_body.contains("BRIEF-NEVER-SENT"), "the team brief is never sent");
    }
}

fn strip_cache_marks(body: &Value) -> Value {
    let mut body = body.clone();
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                map.remove("cache_control");
                // A message whose only block lost its marker reads as plain text again.
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut body);
    // Anthropic takes a lone text block and a plain string alike; compare them alike.
    if let Some(messages) = body["messages"].as_array_mut() {
        for m in messages {
            if let Some([block]) = m["content"].as_array().map(Vec::as_slice) {
                if block["type"] == "text" && block.as_object().is_some_and(|o| o.len() == 2) {
                    m["content"] = block["text"].clone();
                }
            }
        }
    }
    body
}
