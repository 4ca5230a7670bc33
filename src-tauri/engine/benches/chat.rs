//! Clawboo's own costs in a chat, measured with real SQLite and real HTTP on loopback:
//! - events into the store: a runtime printing a flood of events, every one stored;
//! - Native overhead: send → reply stored with a Native agent on the fake model server, as the
//!   history grows, compared with the bare model round trip on the same server;
//! - chats that grow: reading the newest page at 10 / 1,000 / 10,000 messages, and Clawboo's
//!   own time per exchange at exchange 10 and at exchange 1,000 (the store seeded to get there).
//!
//! `cargo bench -p clawboo-engine --bench chat [-- PART]` (scripts/bench runs it with a keychain).

use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::runtimes::native::NativeRuntime;
use clawboo_engine::runtimes::{
    ApprovalPolicy, Capabilities, Endpoint, EndpointSource, HistoryMode, PersonaDelivery, RunChannels, RunEvent,
    RunResult, Runtime, TurnInput,
};
use clawboo_engine::secrets::Provider;
use clawboo_engine::{Engine, EngineConfig, EngineEvent};
use clawboo_testkit::{bench, Behavior, FakeModelServer, TempDataDir};

fn main() {
    // `cargo bench --bench chat -- exchanges`: only the parts whose name holds that word (to
    // profile one alone).
    let only = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
    let runs = |part: &str| only.as_deref().is_none_or(|word| part.contains(word));
    if runs("page_reads") {
        page_reads();
    }
    if runs("exchanges_as_the_chat_grows") {
        exchanges_as_the_chat_grows();
    }
    if runs("events_into_store") {
        events_into_store();
    }
    if runs("native_overhead") {
        native_overhead(Route::Relay);
        if !bench::quick() {
            native_overhead(Route::Direct);
        }
    }
}

/// How a Native agent reaches the model: through the engine's model relay (as in the app), or
/// straight to the server with the key in hand (as before the relay), for comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Route {
    Relay,
    Direct,
}

struct Direct(String);

impl EndpointSource for Direct {
    fn endpoint(&self, _: Provider, _run_id: &str) -> clawboo_engine::Result<Endpoint> {
        Ok(Endpoint { base_url: self.0.clone(), api_key: None })
    }
}

/// Emits `n` text deltas as fast as it can.
struct Flood(u32);

impl Runtime for Flood {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            streams_text: true,
            context_window: None,
            history: HistoryMode::ClawbooTranscript,
            persona: PersonaDelivery::OwnSetup,
            setup_change: clawboo_engine::runtimes::SetupChange::AppliedOnResume,
            team_history: clawboo_engine::runtimes::TeamHistory {
                leader: clawboo_engine::runtimes::TurnHistory::ContinueRoom,
                teammate: clawboo_engine::runtimes::TurnHistory::Fresh,
            },
        }
    }
    fn run(
        &self,
        _input: TurnInput,
        channels: RunChannels,
    ) -> Pin<Box<dyn std::future::Future<Output = clawboo_engine::Result<RunResult>> + Send + '_>> {
        let n = self.0;
        Box::pin(async move {
            for _ in 0..n {
                channels.emit(RunEvent::TextDelta { text: "token ".into() });
            }
            Ok(RunResult::succeeded())
        })
    }
}

/// A bench sends hundreds of messages an hour (and seeds a thousand runs): far past the circuit
/// breaker that pauses an agent after 60 runs in an hour, which would stop it half-way.
fn lift_run_limit(engine: &Engine) {
    let limits = clawboo_engine::guard::Limits { runs_per_hour: 1_000_000, ..Default::default() };
    engine.guard().set_limits(limits).expect("lifting the runs-per-hour limit");
}

fn agent(runtime: RuntimeKind, provider: Option<Provider>) -> NewAgent {
    NewAgent {
        name: "Bench".into(),
        handle: "bench".into(),
        description: String::new(),
        tint: "#000000".into(),
        runtime,
        model: "some-model".into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider,
    }
}

/// Sends and waits for the run's end to be stored and announced; returns the elapsed time.
fn send_and_wait(engine: &Engine, agent_id: &str, text: &str) -> Duration {
    send_and_wait_for_run(engine, agent_id, text).0
}

/// [`send_and_wait`], and the run's id.
fn send_and_wait_for_run(engine: &Engine, agent_id: &str, text: &str) -> (Duration, String) {
    let mut events = engine.events().subscribe();
    let started = Instant::now();
    let run = engine.chat().send(agent_id, text).expect("send").run.expect("run");
    loop {
        match events.blocking_recv() {
            Ok(EngineEvent::RunChanged { run: done, .. }) if done.id == run.id && done.status != RunStatus::Running => {
                assert_eq!(done.status, RunStatus::Succeeded, "{:?}", done.error);
                return (started.elapsed(), run.id);
            }
            Ok(_) => {}
            Err(e) => panic!("event stream: {e}"),
        }
    }
}

/// The newest 50 messages of chats of ~10, ~1,000 and ~10,000 messages: should be flat.
fn page_reads() {
    let dir = TempDataDir::new();
    let config = EngineConfig::for_dir(dir.path().into());
    let db = config.database_path();
    let engine = Engine::open_with(config, vec![Arc::new(Flood(1))]).unwrap();
    let mut medians = Vec::new();
    for messages in [10u32, 1_000, 10_000] {
        let handle = format!("pages{messages}");
        let id = engine.agents().create(NewAgent { handle, ..agent(RuntimeKind::Native, None) }).unwrap().id;
        clawboo_testkit::seed_chat(&db, &id, messages / 2);
        let samples: Vec<_> = (0..500)
            .map(|_| {
                let started = Instant::now();
                let page = engine.chat().history_page(&id, None, 50).unwrap();
                let elapsed = started.elapsed();
                assert_eq!(page.messages.len(), 50.min(messages as usize));
                elapsed
            })
            .collect();
        let older = median(
            (0..500)
                .map(|_| {
                    let started = Instant::now();
                    engine.chat().history_page(&id, Some(i64::from(messages / 2)), 50).unwrap();
                    started.elapsed()
                })
                .collect(),
        );
        let newest = median(samples);
        medians.push(newest);
        println!(
            "chat page: newest 50 of {messages:>6} messages: median {:.3} ms (a page from the middle: {:.3} ms)",
            ms(newest),
            ms(older)
        );
    }
    // The 10-message chat returns 10 rows, the others a full page of 50.
    println!(
        "chat page: 10,000 vs 1,000 messages: {:.2}x the time (10,000 vs 10: {:.2}x)",
        medians[2].as_secs_f64() / medians[1].as_secs_f64(),
        medians[2].as_secs_f64() / medians[0].as_secs_f64()
    );
}

/// Clawboo's own time per exchange (send → reply stored; the model's round trip taken out) at
/// exchange 10 and at exchange 1,000, with a Native agent on the fake model server: two agents,
/// one chat seeded to each point, sent to in blocks taken in turn, so both figures are measured
/// under the same conditions (this machine's speed drifts between runs by more than the difference sought).
/// The model server runs in a process of its own, as a provider's does: its parsing of a
/// 190 KB body (~0.5 ms, megabytes of small allocations) is not Clawboo's work, and in the
/// bench's process it churned the allocator and caches the engine's next steps ran on (the
/// long chat's own time read ~0.3 ms higher for it).
/// Four rounds, each on two chats seeded afresh (so "exchange 10" stays within 10–60), their
/// samples pooled: one round's median moved by ±10 % from run to run.
/// `BENCH_CHAT_AT=10` (or `1000`) sends to that chat only: to profile one with `perf`.
fn exchanges_as_the_chat_grows() {
    let server = ServerProcess::start("Fine, thanks.");
    let dir = TempDataDir::new();
    let mut config = EngineConfig::for_dir(dir.path().into());
    config.keychain_service = clawboo_testkit::unique_keychain_service("bench");
    let db = config.database_path();
    let base_url = format!("{}/v1", server.base_url());
    let engine = Engine::open_with(config, Vec::new()).unwrap();
    lift_run_limit(&engine);
    engine.secrets().set_base_url(Provider::Custom, Some(&base_url)).unwrap();
    let only: Option<u32> = std::env::var("BENCH_CHAT_AT").ok().and_then(|v| v.parse().ok());
    let points: Vec<u32> = [10, 1_000].into_iter().filter(|p| only.is_none_or(|o| o == *p)).collect();
    let n = bench::samples(50, 10);
    let rounds = if bench::quick() { 1 } else { 4 };
    let bare_client = BareClient::new(server.base_url());
    let mut pooled: Vec<Samples> = points.iter().map(|_| Samples::default()).collect();
    let mut ids = Vec::new();
    for round in 0..rounds {
        // Only this round's chats kept (their turns, their written JSON, the relay's last bodies).
        engine.forget_unused_since(Instant::now());
        ids = points
            .iter()
            .map(|exchange| {
                let handle = format!("bench{exchange}r{round}");
                let new = NewAgent { handle, ..agent(RuntimeKind::Native, Some(Provider::Custom)) };
                let id = engine.agents().create(new).unwrap().id;
                clawboo_testkit::seed_chat(&db, &id, exchange - 1);
                id
            })
            .collect();
        for (all, round) in pooled.iter_mut().zip(own_samples(&engine, &ids, n, &bare_client)) {
            all.extend(round);
        }
    }
    let measured: Vec<OwnTimes> = pooled.into_iter().map(Samples::medians).collect();
    let n = n * rounds;
    for ((exchange, id), &OwnTimes { total, bare, own: mine, body_bytes }) in points.iter().zip(&ids).zip(&measured) {
        println!(
            "chat exchange {exchange:>5} (Native, fake model): median {:.2} ms send → reply stored; the same request sent bare {:.2} ms; Clawboo's own {:.2} ms ({} KB request: the carried transcript)",
            ms(total),
            ms(bare),
            ms(mine),
            body_bytes / 1024
        );
        bench::report(
            &format!("chat.own_ms.x{exchange}"),
            &format!("Own overhead per chat exchange at exchange {exchange} (engine)"),
            "ms",
            ms(mine),
            n,
        );
        let recent = recent_requests(&db, id, n / rounds);
        let stored = recent.iter().map(|(_, stored)| *stored as f64).sum::<f64>() / recent.len() as f64;
        println!(
            "chat exchange {exchange:>5}: the relay stored {stored:.0} B per request (compressed) of {} KB bodies",
            body_bytes / 1024
        );
        bench::report(
            &format!("chat.stored_bytes.x{exchange}"),
            &format!("Stored per chat request at exchange {exchange} (relay record, compressed)"),
            "B",
            stored,
            n / rounds,
        );
        // What storing a request as what it adds costs when it is read ("what the model saw"):
        // a request is rebuilt from the last one stored whole (up to 31 rows before it).
        let reads: Vec<_> = recent
            .iter()
            .map(|(run, _)| {
                let started = Instant::now();
                let requests = engine.relay().requests(run).expect("read a run's requests");
                let elapsed = started.elapsed();
                assert!(requests[0].body_complete, "run {run}'s body reads back whole");
                elapsed
            })
            .collect();
        let slowest = *reads.iter().max().unwrap();
        let read = median(reads);
        println!(
            "chat exchange {exchange:>5}: reading a run's recorded request: median {:.2} ms, slowest {:.2} ms",
            ms(read),
            ms(slowest)
        );
        bench::report(
            &format!("chat.read_request_ms.x{exchange}"),
            &format!("Reading a run's recorded request at exchange {exchange}"),
            "ms",
            ms(read),
            n / rounds,
        );
    }
    // One chat alone (`BENCH_CHAT_AT`): nothing to compare.
    let [at_10, at_1000] = &measured[..] else { return };
    let (at_10, at_1000) = (at_10.own, at_1000.own);
    let long = ids.last().expect("the long chat");
    // What the long chat's turns keep between them (its carried turns, Native's written messages,
    // the relay's last body), given back once the chat is quiet (the engine does it after 10
    // minutes): the short chat's share is small beside it.
    let given_back = engine.forget_unused_since(Instant::now()) as f64 / 1024.0;
    println!("chat exchange  1000: kept between turns, given back once the chat is quiet: {given_back:.0} KiB");
    bench::report(
        "chat.kept_kib.x1000",
        "Kept between turns of a 1,000-exchange chat, given back once it is quiet (engine)",
        "KiB",
        given_back,
        1,
    );
    // A Native agent carries the conversation to the model: at exchange 1,000 the request holds
    // 1,000 exchanges. After /reset the chat is as long but carries nothing: the chat's length alone.
    engine.chat().send(long, "/reset").unwrap();
    let OwnTimes { total, bare, own: after_reset, body_bytes } =
        own_samples(&engine, std::slice::from_ref(long), n / rounds, &bare_client).remove(0).medians();
    println!(
        "chat exchange {:>5} after /reset (same chat, nothing carried): median {:.2} ms; bare {:.2} ms; Clawboo's own {:.2} ms ({} KB request)",
        1_000 + n / rounds,
        ms(total),
        ms(bare),
        ms(after_reset),
        body_bytes / 1024
    );
    println!(
        "chat exchange: Clawboo's own at 1,000 vs 10: {:.2}x with the transcript carried, {:.2}x after /reset",
        at_1000.as_secs_f64() / at_10.as_secs_f64(),
        after_reset.as_secs_f64() / at_10.as_secs_f64()
    );
}

/// The agent's last `n` requests the relay recorded: each one's run and the bytes of its body
/// stored compressed (keyframes included: one request in 32 of a chat is stored whole).
fn recent_requests(db: &std::path::Path, agent_id: &str, n: usize) -> Vec<(String, i64)> {
    let conn = rusqlite::Connection::open(db).expect("open the database");
    let mut statement = conn
        .prepare(
            "SELECT q.run_id, COALESCE(length(q.body_gz), 0) FROM run_requests q JOIN runs r ON r.id = q.run_id
             WHERE r.agent_id = ?1 ORDER BY q.at DESC LIMIT ?2",
        )
        .unwrap();
    let requests = statement.query_map(rusqlite::params![agent_id, n as i64], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    requests.collect::<rusqlite::Result<_>>().unwrap()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn events_into_store() {
    const N: u32 = 100_000;
    let mut rates = Vec::new();
    let runs = bench::samples(5, 2);
    for _ in 0..runs {
        let dir = TempDataDir::new();
        let engine = Engine::open_with(EngineConfig::for_dir(dir.path().into()), vec![Arc::new(Flood(N))]).unwrap();
        let id = engine.agents().create(agent(RuntimeKind::Native, None)).unwrap().id;
        let elapsed = send_and_wait(&engine, &id, "go");
        let run_id = engine.chat().history_page(&id, None, 1).unwrap().runs[0].id.clone();
        let stored = engine.chat().run_activity(&run_id).unwrap().len() as u32;
        assert_eq!(stored, N + 1, "every event stored, plus Finished");
        rates.push(Duration::from_secs_f64(elapsed.as_secs_f64() / f64::from(N)));
    }
    let per_event = median(rates);
    println!(
        "events into the store: {N} events per run, median {:.0} events/s stored and published ({:.2} µs/event), none dropped",
        1.0 / per_event.as_secs_f64(),
        per_event.as_secs_f64() * 1e6
    );
    bench::report("chat.events_per_s", "Events/s into the store", "events/s", 1.0 / per_event.as_secs_f64(), runs);
}

fn native_overhead(route: Route) {
    let server = FakeModelServer::start_blocking(Behavior::text("Fine, thanks."));
    let dir = TempDataDir::new();
    let mut config = EngineConfig::for_dir(dir.path().into());
    config.keychain_service = clawboo_testkit::unique_keychain_service("bench");
    let base_url = format!("{}/v1", server.base_url());
    let replace: Vec<Arc<dyn Runtime>> = match route {
        Route::Relay => Vec::new(),
        Route::Direct => vec![Arc::new(NativeRuntime::new(Arc::new(Direct(base_url.clone()))))],
    };
    let engine = Engine::open_with(config, replace).unwrap();
    lift_run_limit(&engine);
    engine.secrets().set_base_url(Provider::Custom, Some(&base_url)).unwrap();
    if route == Route::Relay {
        // The relay reads the key when a run is granted a token and again for every request.
        let reads: Vec<_> = (0..30)
            .map(|_| {
                let started = Instant::now();
                engine.secrets().api_key(Provider::Custom).unwrap();
                started.elapsed()
            })
            .collect();
        println!("keychain: one key lookup, median {:.2} ms", ms(median(reads)));
    }
    let id = engine.agents().create(agent(RuntimeKind::Native, Some(Provider::Custom))).unwrap().id;

    let mut turns = 0;
    for history in [0, 100, 400] {
        while turns < history {
            send_and_wait(&engine, &id, "filler message to grow the history");
            turns += 1;
        }
        let samples: Vec<_> = (0..30).map(|_| send_and_wait(&engine, &id, "How are you?")).collect();
        turns += 30;
        let total = median(samples);
        // The same request body, sent straight to the same server: the model's share.
        let last = server.model_requests().last().unwrap().raw_body.clone();
        let bare = bare_model_round_trip(&server.base_url(), &last);
        println!(
            "native ({route:?}): send → reply stored with {history:>3} earlier turns: median {:.2} ms total; the same request sent bare {:.2} ms; Clawboo's own {:.2} ms ({} KB request)",
            ms(total),
            ms(bare),
            ms(total.saturating_sub(bare)),
            last.len() / 1024
        );
    }
}

/// One chat's medians: send → reply stored, the same body sent bare, Clawboo's own (their
/// differences), and the size of its last request.
struct OwnTimes {
    total: Duration,
    bare: Duration,
    own: Duration,
    body_bytes: usize,
}

/// Sends in a row to one chat before the next chat's turn (see [`own_samples`]).
const BLOCK: usize = 5;

/// One chat's sends: each one's whole time, its bare round trip and the difference.
#[derive(Default)]
struct Samples {
    totals: Vec<Duration>,
    bares: Vec<Duration>,
    own: Vec<Duration>,
    body_bytes: usize,
}

impl Samples {
    fn extend(&mut self, other: Samples) {
        self.totals.extend(other.totals);
        self.bares.extend(other.bares);
        self.own.extend(other.own);
        self.body_bytes = other.body_bytes;
    }

    fn medians(self) -> OwnTimes {
        OwnTimes {
            total: median(self.totals),
            bare: median(self.bares),
            own: median(self.own),
            body_bytes: self.body_bytes,
        }
    }
}

/// `n` sends in each agent's chat, in blocks of [`BLOCK`] per chat taken in turn, each send
/// paired with the same request sent bare right after it: the machine's drift (its load, its
/// clock) is in both halves of each difference, and in every chat's figure alike. (Blocks, not
/// single sends in turn: a send right after another chat's runs on what that one left in the
/// caches, and the short chat would be charged for the long one's.) One [`Samples`] per agent.
fn own_samples(engine: &Engine, agent_ids: &[String], n: usize, bare_client: &BareClient) -> Vec<Samples> {
    let mut samples: Vec<Samples> = agent_ids.iter().map(|_| Samples::default()).collect();
    for block in 0..n.div_ceil(BLOCK) {
        let sends = BLOCK.min(n - block * BLOCK);
        for (agent_id, chat) in agent_ids.iter().zip(&mut samples) {
            for _ in 0..sends {
                let (total, run_id) = send_and_wait_for_run(engine, agent_id, "How are you?");
                let last = sent_body(engine, &run_id);
                let bare = bare_client.round_trip(&last);
                chat.own.push(total.saturating_sub(bare));
                chat.totals.push(total);
                chat.bares.push(bare);
                chat.body_bytes = last.len();
            }
        }
    }
    samples
}

/// The body the run's model request carried, as the relay recorded it (once its answer has
/// ended: maybe just after the run's end was announced).
fn sent_body(engine: &Engine, run_id: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    let last = loop {
        let requests = engine.relay().requests(run_id).expect("read the run's requests");
        if let Some(last) = requests.into_iter().last() {
            break last;
        }
        assert!(Instant::now() < deadline, "run {run_id}'s model request is never recorded");
        std::thread::sleep(Duration::from_millis(1));
    };
    assert!(last.body_complete, "the run's request body is recorded whole");
    last.body.expect("its body")
}

/// The fake model server as a process of its own (`testkit/examples/fake_model_server`, built
/// beside the bench by `scripts/bench`), logging nothing; killed when dropped.
struct ServerProcess {
    child: std::process::Child,
    base_url: String,
}

impl ServerProcess {
    fn start(answer: &str) -> Self {
        let exe = std::env::current_exe().expect("the bench's path");
        let release = exe.parent().and_then(std::path::Path::parent).expect("target/release");
        let program = release.join("examples").join("fake_model_server");
        assert!(
            program.is_file(),
            "{} is missing: build it first with `cargo build --release -p clawboo-testkit --example fake_model_server` (scripts/bench does)",
            program.display()
        );
        let mut child = std::process::Command::new(&program)
            .args(["text", answer, "--no-log", "--exit-after", "7200"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start the fake model server");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("its stdout");
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line).expect("its address");
        let base_url = line.trim().strip_prefix("listening ").expect("\"listening URL\"").to_owned();
        Self { child, base_url }
    }

    fn base_url(&self) -> &str {
        &self.base_url
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The model's round trip alone, one request at a time, on a client kept warm between them.
struct BareClient {
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
    url: String,
}

impl BareClient {
    fn new(base: &str) -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        Self { runtime, client: reqwest::Client::new(), url: format!("{base}/v1/chat/completions") }
    }

    fn round_trip(&self, body: &str) -> Duration {
        let body = body.to_owned();
        self.runtime.block_on(async {
            let started = Instant::now();
            let response =
                self.client.post(&self.url).header("content-type", "application/json").body(body).send().await.unwrap();
            let _ = response.bytes().await.unwrap();
            started.elapsed()
        })
    }
}

/// The median of 30 bare round trips of `body`.
fn bare_model_round_trip(base: &str, body: &str) -> Duration {
    let client = BareClient::new(base);
    median((0..30).map(|_| client.round_trip(body)).collect())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
