//! A task run cut off by a real `kill -9` of the app. A helper process (this test binary, run
//! again) opens the engine with a Codex agent whose CLI is started through the engine's own
//! spawner (so it is in the process registry, as in the app), starts a card whose run starts a
//! long shell command and then stalls on the fake model server, and is killed with SIGKILL
//! mid-turn. The test then reopens the same data folder: the run is marked cut off, the card is
//! back in To do, nothing stored before the kill is missing, no process of the killed run
//! survives (neither the CLI's group nor its tool's command, whether parent-death signals ended
//! them with the app or the next start's sweep of the process registry did), and the card's
//! retry is warned in its real model request to check what the cut-off run did.
//! Opens the engine on a folder it hands to the helper process rather than through
//! `common::Fixture`: two processes open the same folder, one of them killed.
#![cfg(unix)]

mod common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::board::{Actor, CardRunStatus, CardStatus, CommentKind, NewCard};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::context::SectionKind;
use clawboo_engine::runner::StartOptions;
use clawboo_engine::runtimes::codex::CodexRuntime;
use clawboo_engine::runtimes::process::{group_has_live_member, CommandSpec, SpawnedChild, Spawner, SystemSpawner};
use clawboo_engine::runtimes::{ApprovalPolicy, Endpoint, Runtime};
use clawboo_engine::secrets::Provider;
use clawboo_engine::{Engine, EngineConfig};
use clawboo_testkit::{last_user_text, wait_for, Behavior, FakeModelServer, Reply};
use common::Fixed;
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(180);
const HELPER_DIR: &str = "CLAWBOO_RUNNER_CRASH_DIR";
const HELPER_SERVER: &str = "CLAWBOO_RUNNER_CRASH_SERVER";
const TITLE: &str = "Stall on the quarterly report";
const OTHERS: [&str; 2] = ["Water the ferns", "Sort the invoices"];

/// The engine's own spawner, known only once the engine is open: the Codex adapter is built
/// before. Remembers the group of the last process it started.
#[derive(Clone, Default)]
struct LateSpawner {
    engine: Arc<OnceLock<Arc<dyn Spawner>>>,
    last: Arc<Mutex<Option<u32>>>,
}

impl Spawner for LateSpawner {
    fn spawn(&self, spec: &CommandSpec) -> std::io::Result<SpawnedChild> {
        let child = self.engine.get().expect("set once the engine is open").spawn(spec)?;
        *self.last.lock().unwrap() = child.control.pid();
        Ok(child)
    }
}

fn codex(spawner: Arc<dyn Spawner>, server_url: &str) -> Arc<dyn Runtime> {
    let endpoint =
        Arc::new(Fixed(Endpoint { base_url: format!("{server_url}/v1"), api_key: Some("sk-fake-crash".into()) }));
    let quiet = ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"]
        .iter()
        .map(|n| ((*n).to_owned(), server_url.to_owned()))
        .chain(["NO_PROXY", "no_proxy"].iter().map(|n| ((*n).to_owned(), "127.0.0.1,localhost".to_owned())));
    Arc::new(CodexRuntime::new(spawner, endpoint).with_env(quiet.collect()))
}

fn open(dir: &Path, adapter: Arc<dyn Runtime>, program: &Path) -> Engine {
    let engine = Engine::open_with(EngineConfig::for_dir(dir.to_owned()), vec![adapter]).unwrap();
    let program = program.display().to_string();
    engine.block_on(engine.runtimes().set_custom_path(RuntimeKind::Codex, Some(&program))).unwrap();
    engine
}

fn new_card(engine: &Engine, title: &str, assignee: &str) -> String {
    let card = NewCard {
        title: title.into(),
        description: format!("{title}, as every quarter."),
        assignee_id: Some(assignee.into()),
        team_id: None,
        status: None,
        priority: None,
        depends_on: vec![],
        check_command: None,
        project_folder: None,
    };
    let card = engine.board().create(Actor::User, card).unwrap();
    engine.board().comment(Actor::User, &card.id, CommentKind::Comment, &format!("A note on {title}."), None).unwrap();
    card.id
}

/// The helper process: a Board with three commented cards, one of them started on Codex, whose
/// model turn stalls. Says so on stdout once the CLI is running, and waits to be killed. Only
/// run by the crash test.
#[test]
#[ignore = "helper process for the crash test; run by it"]
fn helper_starts_a_card_run_and_waits_to_be_killed() {
    let dir = PathBuf::from(std::env::var_os(HELPER_DIR).expect("run by the crash test"));
    let server_url = std::env::var(HELPER_SERVER).unwrap();
    let program = common::cli("codex").expect("the crash test checked");
    let late = LateSpawner::default();
    let engine = open(&dir, codex(Arc::new(late.clone()), &server_url), &program);
    let _ = late.engine.set(engine.spawner());
    let agent = engine
        .agents()
        .create(NewAgent {
            name: "Clerk".into(),
            handle: "clerk".into(),
            description: String::new(),
            tint: "#663366".into(),
            runtime: RuntimeKind::Codex,
            model: "gpt-5.5".into(),
            approval_policy: ApprovalPolicy::AllowAll,
            provider: Some(Provider::OpenAi),
        })
        .unwrap();
    for title in OTHERS {
        new_card(&engine, title, &agent.id);
    }
    let card_id = new_card(&engine, TITLE, &agent.id);
    let run_id = engine.runner().start(&card_id, StartOptions::default()).unwrap().run_id;
    let pgid = wait_for("the CLI to start", LIMIT, || *late.last.lock().unwrap());
    while !group_has_live_member(pgid) {
        std::thread::sleep(Duration::from_millis(10));
    }
    println!("READY {pgid} {card_id} {run_id}");
    loop {
        std::thread::sleep(Duration::from_secs(60));
    }
}

struct Helper(Child);

/// A failed assertion must not leave the helper running.
impl Drop for Helper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The live processes running `sleep <marker>` (zombies left out).
fn alive(marker: u32) -> Vec<u32> {
    let wanted = format!("sleep\0{marker}\0");
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat.rfind(')').is_some_and(|i| stat[i + 1..].split_whitespace().next() == Some("Z"));
        if String::from_utf8_lossy(&cmdline).ends_with(&wanted) && !zombie {
            pids.push(pid);
        }
    }
    pids
}

/// What must survive the kill: every card, comment and activity id, every run event.
fn stored(db: &Path) -> [BTreeSet<String>; 4] {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let ids = |sql: &str| -> BTreeSet<String> {
        let mut stmt = conn.prepare(sql).unwrap();
        stmt.query_map([], |r| r.get::<_, String>(0)).unwrap().map(Result::unwrap).collect()
    };
    [
        ids("SELECT id FROM cards"),
        ids("SELECT id FROM card_comments"),
        ids("SELECT id FROM card_activity"),
        ids("SELECT run_id || '/' || seq FROM run_events"),
    ]
}

#[test]
fn a_card_run_killed_with_the_app_is_cut_off_and_its_retry_is_warned() {
    let Some(program) = common::cli("codex") else { return };
    // The run starts a long command with its shell tool (Codex hands back the running session
    // after half a second), then its turn never finishes: one word a minute.
    let marker = 30_000 + std::process::id() % 10_000;
    let stalling = FakeModelServer::start_blocking(Behavior {
        on_user: Reply::ToolCall {
            name: "*".into(),
            input: json!({"cmd": format!("sleep {marker}"), "yield_time_ms": 500}),
        },
        on_tool_result: Reply::Slow { text: "never finished".into(), chunks: 100, delay: Duration::from_secs(60) },
        rules: Vec::new(),
    });
    let dir = common::scratch_dir();
    let data = dir.path().join("data");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "helper_starts_a_card_run_and_waits_to_be_killed", "--ignored", "--nocapture"])
        .env(HELPER_DIR, &data)
        .env(HELPER_SERVER, stalling.base_url())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut helper = Helper(child);
    let ready = stdout.lines().map(Result::unwrap).find_map(|l| l.strip_prefix("READY ").map(str::to_owned));
    let ready = ready.expect("the helper ended before it was ready");
    let parts: Vec<&str> = ready.split(' ').collect();
    let (pgid, card_id, run_id): (u32, &str, &str) = (parts[0].parse().unwrap(), parts[1], parts[2]);
    // The run is mid-turn: its tool's result went back to the model, whose answer stalls.
    wait_for("the stalled model request", LIMIT, || {
        stalling
            .model_requests()
            .iter()
            .any(|r| last_user_text(&r.body).is_some_and(|(text, results)| text.contains(TITLE) && results == 1))
            .then_some(())
    });
    assert!(group_has_live_member(pgid), "the CLI is running");
    assert!(!alive(marker).is_empty(), "the run's tool process is running");
    let before = stored(&data.join("clawboo.db"));
    assert_eq!((before[0].len(), before[1].len()), (3, 3), "three cards, three comments");

    helper.0.kill().unwrap(); // SIGKILL: no destructor, no quit handling
    helper.0.wait().unwrap();

    let answering = FakeModelServer::start_blocking(Behavior::text("Checked what was done; the report is finished."));
    let engine = open(&data, codex(Arc::new(SystemSpawner), &answering.base_url()), &program);
    assert!(!group_has_live_member(pgid), "a process of the killed run survived the next start");
    let registry = std::fs::read_to_string(data.join("processes.json")).unwrap_or_else(|_| "[]".into());
    assert_eq!(registry.trim(), "[]", "the registry holds no group of the killed app");
    assert_eq!(alive(marker), Vec::<u32>::new(), "the run's tool process survived the next start");

    // Nothing stored before the kill is missing.
    let after = stored(&data.join("clawboo.db"));
    for (what, (was, is)) in ["card", "comment", "activity", "run event"].iter().zip(before.iter().zip(&after)) {
        let missing: Vec<_> = was.difference(is).collect();
        assert!(missing.is_empty(), "{what}s lost in the crash: {missing:?}");
    }
    assert_eq!(after[0].len(), 3);
    assert_eq!(after[1].len(), 3, "no comment added or lost");

    // The run is cut off; the card is back in To do.
    let card = engine.board().get(card_id).unwrap();
    assert_eq!(card.status, CardStatus::Todo, "{:?}", card.blocked_reason);
    assert!(card.claimed_by_run.is_none());
    let runs = engine.board().runs(card_id).unwrap();
    assert_eq!((runs.len(), runs[0].run_id.as_str(), runs[0].status), (1, run_id, CardRunStatus::Interrupted));
    let run = engine.chat().run(run_id).unwrap();
    assert_eq!(run.status, RunStatus::Interrupted);
    assert!(run.error.as_deref().unwrap_or_default().contains("cut off"), "{:?}", run.error);
    for other in engine.board().list(&Default::default()).unwrap().iter().filter(|c| c.title != TITLE) {
        assert_eq!(other.status, CardStatus::Todo, "#{} was not touched", other.number);
    }

    // The retry is warned, in its real request, to check what the cut-off run did.
    let retry = engine.runner().start(card_id, StartOptions::default()).unwrap().run_id;
    let done = wait_for("the retry to end", LIMIT, || {
        let card = engine.board().get(card_id).unwrap();
        (card.status != CardStatus::InProgress).then_some(card)
    });
    assert_eq!(done.status, CardStatus::InReview, "{:?}", done.blocked_reason);
    let seen = engine.runner().run_context(&retry).unwrap();
    let warning = seen.sections.iter().find(|s| s.kind == SectionKind::CutOff).expect("the cut-off warning");
    assert!(warning.text.contains("cut off (Clawboo quit or crashed)"), "{}", warning.text);
    let request = answering
        .model_requests()
        .into_iter()
        .find(|r| last_user_text(&r.body).is_some_and(|(text, _)| text.contains(TITLE)))
        .expect("the retry's model request");
    let (text, _) = last_user_text(&request.body).unwrap();
    assert_eq!(text.matches(warning.text.trim()).count(), 1, "the warning, once: {text}");
    let runs = engine.board().runs(card_id).unwrap();
    assert_eq!(
        runs.iter().map(|r| (r.attempt, r.status)).collect::<Vec<_>>(),
        [(1, CardRunStatus::Interrupted), (2, CardRunStatus::Succeeded)]
    );
}
