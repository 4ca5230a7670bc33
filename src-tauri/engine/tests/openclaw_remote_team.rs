//! A team across machines (issue #29, "Proof"), with the real, pinned `openclaw` CLI on the
//! two-namespace rig (`common::gateway_rig`): a Native leader @lead here, a local OpenClaw
//! teammate @loc (on a Gateway Clawboo starts here) and a remote OpenClaw teammate @rio (on the
//! Gateway of "the other machine", reached only over the link). The whole engine runs in the
//! user's namespace. On the model requests the fake model server captured of @rio (told apart
//! by the API key of the Gateway that sent them) it checks:
//! - its persona once per request (SOUL.md, AGENTS.md, IDENTITY.md), never another agent's;
//! - a hand-off's exact task text reaches it, and never what the user said to the leader;
//! - the leader hands work to both teammates in one turn and gets both results in ONE later
//!   turn, as for local teammates;
//! - its tool calls land in Clawboo under its own identity: `peer_post` (the post's author),
//!   `memory_save` (the fact's author), `board_update` (the card change's actor), and
//!   `ask_user` from a turn where the user addressed it, the question in the Inbox as its own,
//!   answered there and the answer back to it.
//!
//! A permission request answered from the Inbox is proven by `openclaw_remote_agents.rs`, a
//! Gateway lost mid-run by `openclaw_remote_gateway.rs`; not repeated here.
//!
//! Figures are printed (see docs/remote-gateway.md): hand-off round trip (hand-off made → its
//! result in the leader's next turn) to @rio vs to @loc, alternating, `CLAWBOO_TEAM_ROUNDS`
//! rounds each (2 unless set); and the bytes of @rio's request against @loc's for the same task.
//!
//! Needs root (to make namespaces) and `ip`; skipped with the reason otherwise, and when the CLI
//! is not installed (see `common::cli`). Run under `scripts/with-test-keyring` (the Gateway's
//! token is saved as the app saves it).
#![cfg(target_os = "linux")]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use clawboo_engine::agents::{NewAgent, OpenclawGatewayInput, RuntimeKind};
use clawboo_engine::attention::{RequestKind, UserAnswer};
use clawboo_engine::board::{Actor, NewCard};
use clawboo_engine::chat::team::{RoomMessage, RoomMessageKind};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::memory::FactFilter;
use clawboo_engine::runtimes::openclaw::OpenclawRuntime;
use clawboo_engine::runtimes::process::SystemSpawner;
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{ApprovalPolicy, Endpoint};
use clawboo_engine::secrets::Provider;
use clawboo_engine::Engine;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, RecordedRequest, Reply};
use common::gateway_rig::{self, path_with, Inside, OneToken, OtherMachine, PORT};
use serde_json::{json, Value};

/// Set (to "CB_NS GW_NS CB_IP GW_IP") when this binary runs inside the user's namespace.
const INNER: &str = "CLAWBOO_TEST_REMOTE_TEAM";
// The remote member's first turn that works makes its agent there, sets its rules, sends its
// files and pairs the node: several Node starts, each 20–40 s on a loaded 2-core machine.
const LIMIT: Duration = Duration::from_secs(480);
const TOKEN: &str = "other-machines-gateway-token-29-team";
/// The model keys: each Gateway's provider (the rig's for the other machine's), and the Native
/// leader's. They tell the captured
/// requests apart (the `Authorization` header), without trusting what the bodies hold.
const REMOTE_KEY: &str = "sk-other-machines-key";
const LOCAL_KEY: &str = "sk-local-openclaw-key";
const LEAD_KEY: &str = "sk-fake-lead-key";
/// Each member's persona; @rio's and @loc's of the same lengths, so their requests compare.
const RIO_FILES: [(&str, &str); 3] = [
    ("SOUL.md", "You are Rio, who counts stock on the other machine. RIO-SOUL-MARK."),
    ("AGENTS.md", "Count twice, report once. RIO-AGENTS-MARK."),
    ("IDENTITY.md", "Name: Rio. RIO-IDENTITY-MARK."),
];
const LOC_FILES: [(&str, &str); 3] = [
    ("SOUL.md", "You are Loc, who counts stock on the user's computer. LOC-SOUL-MARK."),
    ("AGENTS.md", "Count twice, report once. LOC-AGENTS-MARK."),
    ("IDENTITY.md", "Name: Loc. LOC-IDENTITY-MARK."),
];
const LEAD_SOUL: &str = "You are Lead, who plans the stock take. LEAD-SOUL-MARK.";
/// What the user tells the leader only; it must never reach a teammate.
const SAID_TO_LEAD: &str = "USER-SECRET-7f3a our margin is thin this year, keep it between us.";
const FACT: &str = "RIO-FACT the back room holds the winter blend";
const POST: &str = "RIO-POST the back room is open from nine";
const DESCRIPTION: &str = "RIO-DESC counted from the other machine";
const QUESTION: &str = "RIO-QUESTION which crate size do we count in?";
const TASK_BACK: &str = "BOTH-TASK count the crates in the back room";
const TASK_FRONT: &str = "BOTH-TASK count the crates in the front room";

/// The rounds of the round-trip figure, per teammate.
fn rounds() -> usize {
    std::env::var("CLAWBOO_TEAM_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(2)
}

fn round_task(round: usize) -> String {
    format!("ROUND-{round} tally the shelf stock")
}

/// OpenClaw 2026.9.6 lists a node's tools for search, not in the request's tool list: the model
/// calls them through its `tool_call`, by name.
fn node_tool(tool: &str, args: Value) -> Reply {
    Reply::ToolCall { name: "tool_call".into(), input: json!({ "id": format!("clawboo__{tool}"), "args": args }) }
}

fn handoff(to: &str, task: &str) -> Reply {
    Reply::ToolCall { name: "~handoff".into(), input: json!({ "to": to, "task": task }) }
}

/// One fake model plays every member, by what each turn's message says. The leader's results
/// come first: its batch turn quotes the tasks.
fn behavior(card: u32) -> Behavior {
    let mut behavior = Behavior::text("(unscripted)")
        .when("Results of the work you handed out", vec![Reply::Text("LEAD-DONE all results are in.".into())])
        .when(
            "TOOLS-NOW",
            vec![
                node_tool("peer_post", json!({ "text": POST })),
                node_tool("memory_save", json!({ "text": FACT, "tags": ["stock"] })),
                node_tool("board_update", json!({ "card": card, "description": DESCRIPTION })),
                node_tool("ask_user", json!({ "question": QUESTION })),
                Reply::Text("RIO-ASKED the user.".into()),
            ],
        )
        .when("RIO-ANSWER", vec![Reply::Text("RIO-NOTED the big crates.".into())])
        .when(
            "PLAN-BOTH",
            vec![handoff("rio", TASK_BACK), handoff("loc", TASK_FRONT), Reply::Text("Handed out both counts.".into())],
        )
        .when("crates in the back room", vec![Reply::Text("CRATES-BACK 14 crates".into())])
        .when("crates in the front room", vec![Reply::Text("CRATES-FRONT 9 crates".into())])
        .when("tally the shelf stock", vec![Reply::Text("SHELF-TALLIED 31 tins".into())]);
    for round in 1..=rounds() {
        for who in ["rio", "loc"] {
            behavior = behavior.when(
                format!("SEND-{round}-{who}"),
                vec![handoff(who, &round_task(round)), Reply::Text(format!("Handed round {round} to @{who}."))],
            );
        }
    }
    behavior
}

#[test]
fn a_team_with_a_member_on_another_machines_gateway_keeps_the_contract() {
    gateway_rig::run_inside(INNER, "inner_a_team_across_machines");
}

struct Room<'a> {
    engine: &'a Engine,
    id: String,
}

impl Room<'_> {
    fn messages(&self) -> Vec<RoomMessage> {
        self.engine.chat().room_page(&self.id, None, 500).unwrap().messages
    }

    fn failed_runs(&self) -> Vec<clawboo_engine::chat::RunSummary> {
        let runs = self.engine.chat().room_runs(&self.id, 200).unwrap();
        runs.into_iter().filter(|r| !matches!(r.status, RunStatus::Running | RunStatus::Succeeded)).collect()
    }

    /// Waits until `done` holds for the room's messages and no run in it is running; a run
    /// that fails meanwhile ends the wait at once, with its reason.
    fn settled(&self, what: &str, done: impl Fn(&[RoomMessage]) -> bool) -> Vec<RoomMessage> {
        let failed_before = self.failed_runs().len();
        wait_for(what, LIMIT, || {
            // Runs first: a run seen ended before the messages were read wrote them already.
            let runs = self.engine.chat().room_runs(&self.id, 200).unwrap();
            let failed = self.failed_runs();
            assert_eq!(failed.len(), failed_before, "a run failed while waiting for {what}: {failed:#?}");
            let messages = self.messages();
            (done(&messages) && runs.iter().all(|r| r.status != RunStatus::Running)).then_some(messages)
        })
    }

    /// Sends `text`; waits for a reply of `agent` starting with `reply`, written after it.
    fn turn(&self, text: &str, agent: &str, reply: &str) -> Vec<RoomMessage> {
        let after = self.messages().last().map_or(0, |m| m.seq);
        let clock = Instant::now();
        self.engine.chat().send_team(&self.id, text).unwrap();
        let messages = self.settled(reply, |all| {
            all.iter().any(|m| {
                m.seq > after
                    && m.kind == RoomMessageKind::Reply
                    && m.author_id.as_deref() == Some(agent)
                    && m.content.starts_with(reply)
            })
        });
        eprintln!(
            "{:?} settled after {:.1} s",
            text.split_whitespace().next().unwrap_or(""),
            clock.elapsed().as_secs_f64()
        );
        messages
    }
}

/// The captured model requests sent with `key`.
fn requests_with(model: &FakeModelServer, key: &str) -> Vec<RecordedRequest> {
    model.model_requests().into_iter().filter(|r| r.header("authorization").is_some_and(|h| h.contains(key))).collect()
}

/// `text` as it appears inside a JSON string.
fn json_text(text: &str) -> String {
    let escaped = serde_json::to_string(text).unwrap();
    escaped[1..escaped.len() - 1].to_owned()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// Bytes of a chat-completions request by part: the whole body, its tool list (and the tools'
/// names), its system message, and the rest of its messages.
fn parts(request: &RecordedRequest) -> (usize, usize, Vec<String>, usize, usize) {
    let body = &request.body;
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let names =
        tools.iter().filter_map(|t| t["function"]["name"].as_str().or(t["name"].as_str()).map(str::to_owned)).collect();
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let system: usize = messages
        .iter()
        .filter(|m| m["role"] == "system" || m["role"] == "developer")
        .map(|m| m.to_string().len())
        .sum();
    let rest: usize = messages
        .iter()
        .filter(|m| m["role"] != "system" && m["role"] != "developer")
        .map(|m| m.to_string().len())
        .sum();
    (request.raw_body.len(), Value::Array(tools).to_string().len(), names, system, rest)
}

#[test]
fn inner_a_team_across_machines() {
    let Some(Inside { gw, cb_ip, gw_ip }) = gateway_rig::inside(INNER) else { return };
    let program = common::cli("openclaw").unwrap();
    let node_dir = common::cli("node24").unwrap().parent().unwrap().to_owned();
    let io = tokio::runtime::Runtime::new().unwrap();
    // The card the user gives @rio before anything else: the first of a fresh board.
    let card_number = 1;
    let model = io.block_on(FakeModelServer::start_at(cb_ip.parse().unwrap(), behavior(card_number)));
    let fixture = common::Fixture::for_clis().keychain("remote-team").program(RuntimeKind::Openclaw, &program);
    let other = io.block_on(OtherMachine::start(
        &gw,
        &fixture.path().join("other-machine"),
        &program,
        &node_dir,
        &model,
        TOKEN,
    ));
    let url = format!("ws://{gw_ip}:{PORT}");
    let v1 = format!("{}/v1", model.base_url());

    // One OpenClaw adapter for both: @loc on the Gateway it starts here (the fake model as its
    // provider), @rio on the other machine's.
    let local = common::Fixed(Endpoint { base_url: v1.clone(), api_key: Some(LOCAL_KEY.into()) });
    let openclaw = OpenclawRuntime::new(Arc::new(SystemSpawner), Arc::new(local))
        .with_gateway_tokens(Arc::new(OneToken(TOKEN)))
        .with_env(vec![("PATH".to_owned(), path_with(&node_dir))])
        // At load ~15 (other builds on 2 cores) a remote turn was seen silent for over 180 s.
        .with_timeouts(Timeouts { silence: Duration::from_secs(300), grace: Duration::from_secs(3) });
    let native = common::native_runtime(v1, LEAD_KEY);
    let engine = fixture.open_with(vec![Arc::new(openclaw), native]);
    let member = |handle: &str, runtime: RuntimeKind, model: &str, provider: Provider| {
        common::add_agent(
            &engine,
            NewAgent {
                name: handle.to_uppercase(),
                description: format!("{handle}, who counts stock"),
                model: model.into(),
                approval_policy: ApprovalPolicy::AllowAll,
                provider: Some(provider),
                ..common::new_agent(handle, runtime)
            },
        )
    };
    let lead = member("lead", RuntimeKind::Native, "gpt-5.5", Provider::OpenAi);
    let loc = member("loc", RuntimeKind::Openclaw, "some-model", Provider::Custom);
    let rio = member("rio", RuntimeKind::Openclaw, "some-model", Provider::Custom);
    engine.agents().write_file(&lead, "SOUL.md", LEAD_SOUL).unwrap();
    for (id, files) in [(&loc, LOC_FILES), (&rio, RIO_FILES)] {
        for (name, text) in files {
            engine.agents().write_file(id, name, text).unwrap();
        }
    }
    engine
        .set_openclaw_gateway(&rio, OpenclawGatewayInput { url: Some(url.clone()), token: Some(TOKEN.into()) })
        .unwrap();
    let common::ChatTeam { team, general } =
        common::chat_team(&engine, "Stock", &[lead.clone(), loc.clone(), rio.clone()], "I am Ada, I run a tea shop.");
    let room = Room { engine: &engine, id: general };
    let card = engine
        .board()
        .create(
            Actor::User,
            NewCard {
                title: "Back room count".into(),
                description: String::new(),
                assignee_id: Some(rio.clone()),
                team_id: Some(team.id.clone()),
                status: None,
                priority: None,
                depends_on: Vec::new(),
                check_command: None,
                project_folder: None,
            },
        )
        .unwrap();
    assert_eq!(card.number, card_number, "the model's board_update names this card");

    // First contact: the Gateway's owner approves this computer once (the bridge's device).
    // Proven on its own by `openclaw_remote_gateway.rs`; here it is set-up, so a first contact
    // that fails otherwise (seen once at load ~12: "did not take agents.list: missing scope:
    // operator.read", no pairing request made) is said and tried again.
    let mut request = None;
    for attempt in 1..=3 {
        engine.chat().send_team(&room.id, "@rio PAIR-HELLO").unwrap();
        let first = wait_for("the first contact ends", LIMIT, || {
            let runs = engine.chat().room_runs(&room.id, 100).unwrap();
            let mine: Vec<_> = runs.into_iter().filter(|r| r.agent_id == rio).collect();
            (mine.len() == attempt && mine.iter().all(|r| r.status != RunStatus::Running))
                .then(|| mine.into_iter().max_by_key(|r| r.started_at).unwrap())
        });
        let said = first.error.clone().unwrap_or_default();
        if said.contains("does not know this computer yet") {
            request =
                said.split("openclaw devices approve ").nth(1).and_then(|r| r.split('`').next()).map(str::to_owned);
            break;
        }
        let activity = engine.chat().run_activity(&first.id).unwrap();
        eprintln!("first contact, attempt {attempt}, did not ask for pairing: {first:?}\n{activity:#?}");
    }
    let request = request.expect("the Gateway asked its owner to approve this computer");
    io.block_on(other.approve(&request));

    // The user addresses @rio: its tools, through the node connection, act as @rio.
    room.turn("@rio TOOLS-NOW: note what you know and ask me what you need", &rio, "RIO-ASKED");
    let (posts, _) = engine.chat().peer_posts(&team.id, None, 10).unwrap();
    let post = posts.iter().find(|p| p.text == POST).unwrap_or_else(|| panic!("@rio's post: {posts:?}"));
    assert_eq!((post.author_handle.as_str(), post.author_id.as_deref()), ("rio", Some(rio.as_str())), "{post:?}");
    let facts = engine.memory().list(&FactFilter::default()).unwrap();
    let fact = facts.iter().find(|f| f.text == FACT).unwrap_or_else(|| panic!("@rio's fact: {facts:?}"));
    assert!(format!("{:?}", fact.author).contains(&rio), "saved as @rio: {fact:?}");
    let detail = engine.board().detail(&card.id).unwrap();
    assert_eq!(detail.card.description, DESCRIPTION);
    assert!(
        detail.activity.iter().any(|a| matches!(&a.actor, Actor::Agent { agent_id, .. } if *agent_id == rio)),
        "the card change is @rio's: {:?}",
        detail.activity
    );
    let question = wait_for("@rio's question in the Inbox", LIMIT, || {
        engine.attention().open().unwrap().into_iter().find(|r| r.kind == RequestKind::Question && r.text == QUESTION)
    });
    assert_eq!((question.agent_id.as_str(), question.agent_handle.as_str()), (rio.as_str(), "rio"), "{question:?}");
    // Answered in the Inbox: the answer goes back to @rio on the other machine.
    let after = room.messages().last().map_or(0, |m| m.seq);
    engine.answer_attention(&question.id, UserAnswer::Text { text: "RIO-ANSWER the big crates".into() }).unwrap();
    room.settled("@rio's reply to the answer", |all| {
        all.iter().any(|m| {
            m.seq > after && m.author_id.as_deref() == Some(rio.as_str()) && m.content.starts_with("RIO-NOTED")
        })
    });
    let answered = requests_with(&model, REMOTE_KEY);
    assert!(answered.iter().any(|r| r.raw_body.contains("RIO-ANSWER the big crates")), "the answer reached @rio");

    // The leader hands work to both in one turn; both results come back in ONE later turn.
    let before_both = room.messages().last().map_or(0, |m| m.seq);
    let messages = room.turn(&format!("PLAN-BOTH the stock take. {SAID_TO_LEAD}"), &lead, "LEAD-DONE");
    let this_round: Vec<&RoomMessage> = messages.iter().filter(|m| m.seq > before_both).collect();
    let handoffs: Vec<&&RoomMessage> = this_round.iter().filter(|m| m.kind == RoomMessageKind::Handoff).collect();
    assert_eq!(handoffs.len(), 2, "{this_round:#?}");
    let batches: Vec<&&RoomMessage> = this_round.iter().filter(|m| m.kind == RoomMessageKind::Batch).collect();
    assert_eq!(batches.len(), 1, "one batch: {this_round:#?}");
    let lead_requests = requests_with(&model, LEAD_KEY);
    let with_results: Vec<&RecordedRequest> = lead_requests
        .iter()
        .filter(|r| r.raw_body.contains("CRATES-BACK") || r.raw_body.contains("CRATES-FRONT"))
        .collect();
    let first_with = with_results.first().expect("the leader's batch request");
    assert!(
        first_with.raw_body.contains("CRATES-BACK 14 crates") && first_with.raw_body.contains("CRATES-FRONT 9 crates"),
        "both results in the leader's one request.\nthe batch: {:?}\nthe teammates' runs: {:#?}\nthe request: {}",
        batches[0].content,
        this_round.iter().filter(|m| m.kind != RoomMessageKind::User).map(|m| (m.kind, &m.content)).collect::<Vec<_>>(),
        first_with.raw_body.chars().rev().take(3000).collect::<String>().chars().rev().collect::<String>()
    );
    let rio_handoff = handoffs.iter().find(|m| m.target_id.as_deref() == Some(rio.as_str())).unwrap();
    assert_eq!(rio_handoff.content, TASK_BACK);
    let rio_run = rio_handoff.run_id.clone().expect("the hand-off shows @rio's run");
    let context = engine.chat().run_context(&rio_run).unwrap();
    assert_eq!(context.sections.last().unwrap().text.trim(), TASK_BACK, "the task text, exactly");
    let remote = requests_with(&model, REMOTE_KEY);
    let task_request = remote.iter().find(|r| r.raw_body.contains(TASK_BACK)).expect("@rio's hand-off request");
    assert_eq!(task_request.raw_body.matches(&json_text(TASK_BACK)).count(), 1, "the task text once");

    // The round-trip figure: hand-offs to one teammate at a time, alternating.
    let mut trips: Vec<(String, usize, f64)> = Vec::new();
    for round in 1..=rounds() {
        for (who, id) in [("rio", &rio), ("loc", &loc)] {
            let before = room.messages().last().map_or(0, |m| m.seq);
            let messages = room.turn(&format!("SEND-{round}-{who}"), &lead, "LEAD-DONE");
            let of_round: Vec<&RoomMessage> = messages.iter().filter(|m| m.seq > before).collect();
            let made = of_round.iter().find(|m| m.kind == RoomMessageKind::Handoff).expect("the hand-off");
            assert_eq!(made.target_id.as_deref(), Some(id.as_str()));
            assert_eq!(made.content, round_task(round));
            let back = of_round.iter().find(|m| m.kind == RoomMessageKind::Batch).expect("the result back");
            trips.push((who.to_owned(), round, (back.created_at - made.created_at) as f64 / 1000.0));
        }
    }

    // The remote member's requests: its persona once in each, no one else's, never what the
    // user said to the leader.
    let remote = requests_with(&model, REMOTE_KEY);
    assert!(remote.len() >= 4, "@rio's requests were captured: {}", remote.len());
    for request in &remote {
        for (_, text) in RIO_FILES {
            let mark = text.split_whitespace().last().unwrap();
            assert_eq!(request.raw_body.matches(mark).count(), 1, "{mark} once in each of @rio's requests");
        }
        for other in ["LOC-SOUL-MARK", "LOC-AGENTS-MARK", "LEAD-SOUL-MARK"] {
            assert!(!request.raw_body.contains(other), "{other} is not in @rio's request");
        }
        assert!(!request.raw_body.contains("USER-SECRET-7f3a"), "what the user said to the leader stays there");
    }
    let local = requests_with(&model, LOCAL_KEY);
    assert!(!local.is_empty(), "@loc's requests were captured");
    for request in &local {
        // @rio's post reaches @loc as a peer's words; its persona never does.
        assert_eq!(request.raw_body.matches("LOC-SOUL-MARK").count(), 1, "@loc's own persona once");
        assert!(!request.raw_body.contains("RIO-SOUL-MARK"), "not @rio's persona");
    }
    assert!(local.iter().all(|r| !r.raw_body.contains("USER-SECRET-7f3a")), "nor to the local teammate");
    drop(other);

    // Figures.
    for (who, round, seconds) in &trips {
        eprintln!("figures: round {round}, hand-off to @{who} → its result in the leader's next turn: {seconds:.1} s");
    }
    let of = |who: &str| trips.iter().filter(|(w, ..)| w == who).map(|(.., s)| *s).collect::<Vec<_>>();
    let (remote_median, local_median) = (median(of("rio")), median(of("loc")));
    eprintln!(
        "figures: hand-off round trip, median of {} rounds: remote @rio {remote_median:.1} s, local OpenClaw @loc \
         {local_median:.1} s, ratio {:.2}",
        rounds(),
        remote_median / local_median
    );
    let task = round_task(1);
    let first_of = |requests: &[RecordedRequest]| {
        requests.iter().find(|r| r.raw_body.contains(&task)).cloned().expect("the round-1 request")
    };
    let (r, l) = (first_of(&requests_with(&model, REMOTE_KEY)), first_of(&requests_with(&model, LOCAL_KEY)));
    let ((r_all, r_tools, r_names, r_system, r_rest), (l_all, l_tools, l_names, l_system, l_rest)) =
        (parts(&r), parts(&l));
    eprintln!(
        "figures: the same task's first request, remote @rio vs local @loc: body {r_all} vs {l_all} bytes ({:+}); \
         tools {r_tools} vs {l_tools} ({:+}); system {r_system} vs {l_system} ({:+}); the other messages {r_rest} vs \
         {l_rest} ({:+})\n  @rio's tools: {r_names:?}\n  @loc's tools: {l_names:?}",
        r_all as i64 - l_all as i64,
        r_tools as i64 - l_tools as i64,
        r_system as i64 - l_system as i64,
        r_rest as i64 - l_rest as i64,
    );
}
