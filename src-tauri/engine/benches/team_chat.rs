//! Team chat's own costs, with a Native leader (Anthropic Messages API) on the fake model
//! server, real SQLite and real HTTP on loopback:
//! - Clawboo's own time per team message: send → the leader's reply stored in the room, minus
//!   the same request sent bare to the same server, at exchanges 1 to 16;
//! - request bytes per exchange: what each request adds over the one before (the exchange
//!   itself, never a re-sent preamble);
//! - the share of each request's input that sits before its last cache breakpoint of the
//!   carried conversation (what the provider can read from its cache), from the 2nd request on.
//!
//! - Clawboo's own time per team exchange with a hand-off: send → the leader hands a task to a
//!   teammate (`@scout …` in its reply) → the teammate answers → its result reaches the leader
//!   (the batch goes the moment the last hand-off ends, no timer) → the leader's final reply
//!   stored; minus the three model requests sent bare.
//!
//! `cargo bench -p clawboo-engine --bench team_chat` (scripts/bench runs it with a keychain).

use std::time::{Duration, Instant};

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::chat::team::RoomMessageKind;
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::secrets::Provider;
use clawboo_engine::teams::NewTeam;
use clawboo_engine::{Engine, EngineConfig, EngineEvent};
use clawboo_testkit::{bench, Behavior, FakeModelServer, Reply, TempDataDir};
use serde_json::Value;

const EXCHANGES: usize = 16;
/// Rounds of 16 exchanges, each in a fresh room, for the medians (3 under `--quick`).
fn rounds() -> usize {
    clawboo_testkit::bench::samples(9, 3)
}

fn agent(handle: &str) -> NewAgent {
    NewAgent {
        name: handle.to_uppercase(),
        handle: handle.into(),
        description: format!("The team's {handle}."),
        tint: "#000000".into(),
        runtime: RuntimeKind::Native,
        model: "claude-sonnet-4-5".into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider: Some(Provider::Anthropic),
    }
}

fn main() {
    let server = FakeModelServer::start_blocking(
        Behavior::text("Noted; here is my short answer.")
            .when("stock-found", vec![Reply::Text("Final: 12 crates on Monday.".into())])
            .when("look up the stock", vec![Reply::Text("stock-found: 12 crates".into())])
            .when("Delegate", vec![Reply::Text("On it.\n@scout look up the stock for Monday".into())]),
    );
    let dir = TempDataDir::new();
    let mut config = EngineConfig::for_dir(dir.path().into());
    config.keychain_service = clawboo_testkit::unique_keychain_service("bench-team");
    let engine = Engine::open(config).unwrap();
    // 9 rounds of 16 messages and the hand-offs: past the breaker that pauses an agent after 60
    // runs in an hour, which would stop the bench half-way.
    let limits = clawboo_engine::guard::Limits { runs_per_hour: 1_000_000, ..Default::default() };
    engine.guard().set_limits(limits).expect("lifting the runs-per-hour limit");
    engine.secrets().set_api_key(Provider::Anthropic, "sk-ant-bench-0000").unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    let ids: Vec<String> =
        ["lead", "scout", "writer"].iter().map(|h| engine.agents().create(agent(h)).unwrap().id).collect();
    let team = engine
        .teams()
        .create(NewTeam { name: "Bench".into(), member_ids: ids.clone(), leader_id: Some(ids[0].clone()) })
        .unwrap();
    engine.teams().set_about_you(&team.id, &"I run a small shop and like short answers. ".repeat(20)).unwrap();
    for rule in ["Answer in English.", "Cite sources when you make a claim.", "Keep replies under 200 words."] {
        engine.teams().add_rule(&team.id, rule).unwrap();
    }

    let rounds = rounds();
    let mut own: Vec<Vec<Duration>> = vec![Vec::new(); EXCHANGES];
    let mut growth: Vec<Vec<usize>> = vec![Vec::new(); EXCHANGES];
    let mut whole: Vec<Vec<usize>> = vec![Vec::new(); EXCHANGES];
    let mut cacheable: Vec<Vec<f64>> = vec![Vec::new(); EXCHANGES];
    for round in 0..rounds {
        let room = new_room(&engine, &team.id, &ids, format!("Round {round}"));
        // The round's sends first, then the bench's own work on them (bare round trips, JSON
        // reads): its garbage, freed between two sends, was charged to the next send (glibc's
        // malloc consolidating it on the engine's next large allocation).
        let mut sent = Vec::with_capacity(EXCHANGES);
        for exchange in 0..EXCHANGES {
            let before = server.model_request_count();
            let total =
                send_and_wait(&engine, &room.id, &format!("Question {exchange}: what should we stock next week?"));
            let mut requests = server.model_requests_from(before);
            assert_eq!(requests.len(), 1, "one model request per exchange");
            sent.push((total, requests.remove(0)));
        }
        let mut previous_bytes = 0;
        for (exchange, (total, request)) in sent.into_iter().enumerate() {
            let bare = bare_round_trip(&server.base_url(), &request.raw_body);
            own[exchange].push(total.saturating_sub(bare));
            let bytes = request.raw_body.len();
            growth[exchange].push(bytes.saturating_sub(previous_bytes));
            whole[exchange].push(bytes);
            previous_bytes = bytes;
            if round == 0 && exchange == 0 {
                keep_first_request(&request.raw_body);
            }
            if round == 0 {
                log_request(exchange + 1, &request.body);
            }
            cacheable[exchange].push(cacheable_share(&request.body));
        }
    }

    let handoff_own = handoff_exchanges(&engine, &server, &team.id, &ids, rounds);
    let (long_early, long_late) = long_room(&engine, &server, &team.id, &ids);

    println!(
        "team chat, Native leader (Anthropic API) on the fake model server, {rounds} rounds of {EXCHANGES} exchanges:"
    );
    for exchange in 0..EXCHANGES {
        println!(
            "  exchange {:>2}: Clawboo's own {:.2} ms (median); request grew by {:>5} bytes; {:>3.0}% of the input before a cache breakpoint",
            exchange + 1,
            ms(median(&own[exchange])),
            median_usize(&growth[exchange]),
            median_f(&cacheable[exchange]) * 100.0
        );
    }
    let first = ms(median(&own[0]));
    let last = ms(median(&own[EXCHANGES - 1]));
    println!("  own time at exchange 16 vs 1: {:.2}x", last / first);
    for exchange in [1, 8, 16] {
        let at = exchange - 1;
        bench::report(
            &format!("team_chat.own_ms.x{exchange}"),
            &format!("Own overhead per team message, exchange {exchange}"),
            "ms",
            ms(median(&own[at])),
            rounds,
        );
        bench::report(
            &format!("team_chat.request_bytes.x{exchange}"),
            &format!("Request bytes added by exchange {exchange}"),
            "B",
            median_usize(&growth[at]) as f64,
            rounds,
        );
        bench::report(
            &format!("team_chat.request_total_bytes.x{exchange}"),
            &format!("Whole request body at exchange {exchange}"),
            "B",
            median_usize(&whole[at]) as f64,
            rounds,
        );
    }
    println!(
        "  exchange with a hand-off (leader → teammate → leader): Clawboo's own {:.2} ms (median)",
        ms(handoff_own)
    );
    bench::report(
        "team_chat.handoff_exchange_own_ms",
        "Own time per team exchange with a hand-off (leader → teammate → leader)",
        "ms",
        ms(handoff_own),
        rounds,
    );
    println!(
        "  a room of {LONG_ROOM} exchanges: Clawboo's own {:.2} ms at exchanges 11–40, {:.2} ms over the last 30 ({:.2}x)",
        ms(long_early),
        ms(long_late),
        ms(long_late) / ms(long_early)
    );
    bench::report(
        "team_chat.own_ms.long_early",
        "Own overhead per team message, exchanges 11–40 of a 600-exchange room",
        "ms",
        ms(long_early),
        30,
    );
    bench::report(
        "team_chat.own_ms.long_late",
        "Own overhead per team message, the last 30 exchanges of a 600-exchange room",
        "ms",
        ms(long_late),
        30,
    );
    for exchange in [8, 16] {
        bench::report(
            &format!("team_chat.cacheable.x{exchange}"),
            &format!("Input marked cacheable, exchange {exchange}"),
            "%",
            median_f(&cacheable[exchange - 1]) * 100.0,
            rounds,
        );
    }
}

/// A room of the team with all of `ids`, `ids[0]` leading.
fn new_room(engine: &Engine, team_id: &str, ids: &[String], name: impl Into<String>) -> clawboo_engine::teams::Room {
    let room =
        clawboo_engine::teams::NewRoom { name: name.into(), member_ids: ids.to_vec(), leader_id: Some(ids[0].clone()) };
    engine.teams().create_room(team_id, room).unwrap()
}

/// Exchanges in one room, as a long-lived team chat grows.
const LONG_ROOM: usize = 600;

/// One room of [`LONG_ROOM`] exchanges: the medians of Clawboo's own time at exchanges 11–40 and
/// over the last 30, to see whether a team message costs more as its room's history grows (the
/// leader carries the room's conversation).
fn long_room(engine: &Engine, server: &FakeModelServer, team_id: &str, ids: &[String]) -> (Duration, Duration) {
    let room = new_room(engine, team_id, ids, "Long");
    let measured = |exchange: usize| (10..40).contains(&exchange) || exchange >= LONG_ROOM - 30;
    let mut sent = Vec::new();
    for exchange in 0..LONG_ROOM {
        let before = server.model_request_count();
        let total = send_and_wait(engine, &room.id, &format!("Question {exchange}: what should we stock next week?"));
        if measured(exchange) {
            sent.push((exchange, total, server.model_requests_from(before).remove(0)));
        }
    }
    // The bare round trips after the sends, as in the rounds above.
    let (mut early, mut late) = (Vec::new(), Vec::new());
    for (exchange, total, request) in sent {
        let own = total.saturating_sub(bare_round_trip(&server.base_url(), &request.raw_body));
        if exchange < 40 {
            early.push(own)
        } else {
            late.push(own)
        }
    }
    (median(&early), median(&late))
}

/// `rounds` exchanges with a hand-off, each in a fresh room: the median of Clawboo's own time
/// (send → the leader's final reply stored, minus its three model requests sent bare).
fn handoff_exchanges(
    engine: &Engine,
    server: &FakeModelServer,
    team_id: &str,
    ids: &[String],
    rounds: usize,
) -> Duration {
    let mut sent = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let room = new_room(engine, team_id, ids, format!("Hand-off {round}"));
        let before = server.model_request_count();
        let total = send_and_wait_for(engine, &room.id, "Delegate: how much stock do we have for Monday?", "Final:");
        let requests = server.model_requests_from(before);
        assert_eq!(requests.len(), 3, "the leader, the teammate, the leader again");
        sent.push((total, requests));
    }
    // The bare round trips after every round's sends (see the exchanges above).
    let own: Vec<Duration> = sent
        .into_iter()
        .map(|(total, requests)| {
            let bare: Duration = requests.iter().map(|r| bare_round_trip(&server.base_url(), &r.raw_body)).sum();
            total.saturating_sub(bare)
        })
        .collect();
    median(&own)
}

/// Sends to the room and waits for the leader's reply to be stored; returns the elapsed time.
fn send_and_wait(engine: &Engine, room_id: &str, text: &str) -> Duration {
    send_and_wait_for(engine, room_id, text, "")
}

/// Sends to the room and waits for a reply starting with `reply_prefix`; returns the elapsed time.
fn send_and_wait_for(engine: &Engine, room_id: &str, text: &str, reply_prefix: &str) -> Duration {
    let mut events = engine.events().subscribe();
    let started = Instant::now();
    engine.chat().send_team(room_id, text).expect("send");
    loop {
        match events.blocking_recv() {
            Ok(EngineEvent::RoomMessageAdded { message, .. })
                if message.room_id == room_id
                    && message.kind == RoomMessageKind::Reply
                    && message.content.starts_with(reply_prefix) =>
            {
                return started.elapsed();
            }
            Ok(EngineEvent::RoomMessageAdded { message, .. }) if message.kind == RoomMessageKind::Notice => {
                panic!("the run failed: {}", message.content)
            }
            Ok(_) => {}
            Err(e) => panic!("event stream: {e}"),
        }
    }
}

/// The share of the request's JSON (system, tools and messages) that comes before the last
/// cache breakpoint placed on the carried conversation (every breakpoint but the one on the
/// newest message, which only serves the tool rounds of this turn).
/// With `BENCH_FIRST_REQUEST=<file>`, the first team request's body is written there, to see
/// where its bytes go (system, tools, messages).
fn keep_first_request(body: &str) {
    if let Ok(path) = std::env::var("BENCH_FIRST_REQUEST") {
        std::fs::write(&path, body).unwrap_or_else(|e| panic!("writing {path}: {e}"));
    }
}

/// With `BENCH_REQUEST_LOG=<file>`, the first round's requests are written there as JSON lines
/// `{"exchange": N, "body": …}`, for `scripts/bench-public/billed-tokens.mjs` (what the chat
/// bills, cache-weighted, beside the public Clawboo's).
fn log_request(exchange: usize, body: &Value) {
    use std::io::Write;
    let Ok(path) = std::env::var("BENCH_REQUEST_LOG") else { return };
    // The first exchange starts the file afresh.
    let opened =
        if exchange == 1 { std::fs::File::create(&path) } else { std::fs::OpenOptions::new().append(true).open(&path) };
    let mut file = opened.unwrap_or_else(|e| panic!("opening {path}: {e}"));
    writeln!(file, "{}", serde_json::json!({"exchange": exchange, "body": body}))
        .unwrap_or_else(|e| panic!("writing {path}: {e}"));
}

fn cacheable_share(body: &Value) -> f64 {
    let size = |v: &Value| v.to_string().len();
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let total = size(&body["system"]) + size(&body["tools"]) + messages.iter().map(size).sum::<usize>();
    let marked =
        |m: &Value| m["content"].as_array().is_some_and(|b| b.iter().any(|x| x.get("cache_control").is_some()));
    let carried_end = messages[..messages.len().saturating_sub(1)].iter().rposition(marked);
    let prefix = size(&body["system"])
        + size(&body["tools"])
        + carried_end.map_or(0, |end| messages[..=end].iter().map(size).sum::<usize>());
    prefix as f64 / total as f64
}

fn bare_round_trip(base: &str, body: &str) -> Duration {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let client = reqwest::Client::new();
    let samples: Vec<Duration> = (0..5)
        .map(|_| {
            runtime.block_on(async {
                let started = Instant::now();
                let response = client
                    .post(format!("{base}/v1/messages"))
                    .header("content-type", "application/json")
                    .body(body.to_owned())
                    .send()
                    .await
                    .unwrap();
                let _ = response.bytes().await.unwrap();
                started.elapsed()
            })
        })
        .collect();
    median(&samples)
}

fn median(samples: &[Duration]) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

fn median_f(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn median_usize(samples: &[usize]) -> usize {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    sorted[sorted.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
