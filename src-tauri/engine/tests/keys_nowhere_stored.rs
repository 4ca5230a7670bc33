//! The provider keys live in the keychain only. Two distinctive fake keys are stored there, then
//! Native agents (through the model relay, against the fake model server) do a one-to-one chat,
//! a team turn with a hand-off, a task run and a routine run. Afterwards neither key appears in
//! any file of the data folder (SQLite with its WAL, gzipped request records inflated, every
//! other file), in any event the engine published, or in any run's stored context and recorded
//! requests, nor in an export of any of its chats, its room or its card: not raw, not base64,
//! not split across lines. The fake server saw both keys, so they were in use. Run under scripts/with-test-keyring on Linux. `scripts/soak.d/secrets` runs this
//! with CLAWBOO_SOAK_REPORT set (the figures) and scans the test's own output (the logs) too.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::board::{Actor, CardStatus, NewCard};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::history::{ExportFormat, ExportTarget};
use clawboo_engine::routines::{RoutineInput, RoutineOutcome, Schedule};
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::secrets::Provider;
use clawboo_engine::teams::NewTeam;
use clawboo_engine::Engine;
use clawboo_testkit::secret_scan::{self, base64, STANDARD, URL_SAFE};
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, Reply, TempDataDir};
use common::Fixture;
use serde_json::json;

const ANTHROPIC_KEY: &str = "sk-ant-SOAK-k3yQ7-only-in-the-keychain-4f1c2a9e";
const OPENAI_KEY: &str = "sk-proj-SOAK-Zb2x-only-in-the-keychain-9e0d71c3";
const LIMIT: Duration = Duration::from_secs(60);

/// Where either key shows in `haystack`: raw, base64 at each alignment, split across lines.
fn findings(what: &str, haystack: &[u8]) -> Vec<String> {
    secret_scan::findings(what, haystack, &[ANTHROPIC_KEY, OPENAI_KEY])
}

/// Every gzip stream inside `bytes` (the relay stores request bodies gzipped), inflated.
fn inflated_parts(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut parts = Vec::new();
    for start in 0..bytes.len().saturating_sub(3) {
        if bytes[start..start + 3] == [0x1f, 0x8b, 0x08] {
            let mut out = Vec::new();
            let mut decoder = flate2::read::GzDecoder::new(&bytes[start..]);
            if decoder.read_to_end(&mut out).is_ok() || !out.is_empty() {
                parts.push(out);
            }
        }
    }
    parts
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[derive(Default)]
struct Scan {
    files: usize,
    bytes: usize,
    gzip_parts: usize,
    wal_files: usize,
    found: Vec<String>,
}

impl Scan {
    fn file(&mut self, path: &Path, root: &Path) {
        let Ok(bytes) = std::fs::read(path) else { return };
        let name = path.strip_prefix(root).unwrap_or(path).display().to_string();
        self.files += 1;
        self.bytes += bytes.len();
        self.wal_files += usize::from(name.ends_with("-wal") && !bytes.is_empty());
        self.found.extend(findings(&name, &bytes));
        for part in inflated_parts(&bytes) {
            self.gzip_parts += 1;
            self.found.extend(findings(&format!("{name} (inflated)"), &part));
        }
    }

    fn dir(&mut self, dir: &Path) {
        for path in files_under(dir) {
            self.file(&path, dir);
        }
    }
}

#[test]
fn the_scan_finds_a_key_in_every_form_it_looks_for() {
    let key = ANTHROPIC_KEY.as_bytes();
    let planted = |data: &[u8]| !findings("planted", data).is_empty();
    assert!(planted(format!("{{\"key\":\"{ANTHROPIC_KEY}\"}}").as_bytes()));
    for shift in 0..3 {
        let mut data = b"xyz"[..shift].to_vec();
        data.extend_from_slice(key);
        data.extend_from_slice(b"tail");
        assert!(planted(base64(&data, STANDARD).as_bytes()), "base64 at offset {shift}");
        assert!(planted(base64(&data, URL_SAFE).as_bytes()), "base64url at offset {shift}");
    }
    let (head, tail) = ANTHROPIC_KEY.split_at(20);
    assert!(planted(format!("{head}\n{tail}").as_bytes()));
    assert!(planted(format!("{head}\\n  {tail}").as_bytes()));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, key).unwrap();
    let mut file = b"SQLite page ".to_vec();
    file.extend(gz.finish().unwrap());
    let dir = TempDataDir::new();
    std::fs::write(dir.join("blob"), &file).unwrap();
    let mut scan = Scan::default();
    scan.dir(dir.path());
    assert!(!scan.found.is_empty(), "a gzipped key is found");
    assert!(findings("clean", b"sk-ant-SOAK-nothing-here").is_empty());
}

fn native_agent(engine: &Engine, handle: &str, provider: Provider) -> String {
    let agent = NewAgent {
        name: handle.to_uppercase(),
        description: format!("{handle} helps"),
        model: "some-model".into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider: Some(provider),
        ..common::new_agent(handle, RuntimeKind::Native)
    };
    common::add_agent(engine, agent)
}

#[test]
fn provider_keys_are_nowhere_but_the_keychain() {
    let behavior = Behavior::text("All done.")
        .when(
            "plan the release",
            vec![
                Reply::ToolCall { name: "~handoff".into(), input: json!({"to": "mate", "task": "check the numbers"}) },
                Reply::Text("Handed off.".into()),
            ],
        )
        .when(
            "remember",
            vec![
                Reply::ToolCall { name: "~memory_save".into(), input: json!({"text": "The release is on Friday."}) },
                Reply::Text("Saved.".into()),
            ],
        );
    let server = FakeModelServer::start_blocking(behavior);
    let fixture = Fixture::new().keychain("keys-nowhere-stored");
    let engine = fixture.open();
    let mut events = engine.events().subscribe();
    engine.secrets().set_api_key(Provider::Anthropic, ANTHROPIC_KEY).unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    engine.secrets().set_api_key(Provider::OpenAi, OPENAI_KEY).unwrap();
    engine.secrets().set_base_url(Provider::OpenAi, Some(&format!("{}/v1", server.base_url()))).unwrap();
    let lead = native_agent(&engine, "lead", Provider::Anthropic);
    let mate = native_agent(&engine, "mate", Provider::OpenAi);
    let mut runs: Vec<(&str, String)> = Vec::new();

    // One-to-one chats, one per provider, one with a tool call.
    for (agent, text) in [(&lead, "Hello"), (&mate, "Please remember the date")] {
        let run = engine.chat().send(agent, text).unwrap().run.unwrap();
        let done = wait_for("the chat run to end", LIMIT, || {
            let run = engine.chat().run(&run.id).unwrap();
            (run.status != RunStatus::Running).then_some(run)
        });
        assert_eq!(done.status, RunStatus::Succeeded, "{:?}", done.error);
        runs.push(("chat", run.id));
    }

    // A team turn: the leader hands off to its teammate, whose reply comes back to it.
    let team = engine
        .teams()
        .create(NewTeam {
            name: "Release".into(),
            member_ids: vec![lead.clone(), mate.clone()],
            leader_id: Some(lead.clone()),
        })
        .unwrap();
    engine.teams().set_about_you(&team.id, "I am the release manager.").unwrap();
    let general = team.rooms.iter().find(|r| r.is_general).unwrap().id.clone();
    engine.chat().send_team(&general, "Please plan the release").unwrap();
    let team_runs = wait_for("the team turn and its hand-off to end", LIMIT, || {
        let runs = engine.chat().room_runs(&general, 100).unwrap();
        (runs.len() >= 3 && runs.iter().all(|r| r.status != RunStatus::Running)).then_some(runs)
    });
    for run in &team_runs {
        assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
        runs.push(("team", run.id.clone()));
    }

    // A task run of a card.
    let card = engine
        .board()
        .create(
            Actor::User,
            NewCard {
                title: "Count the release notes".into(),
                description: String::new(),
                assignee_id: Some(mate.clone()),
                team_id: None,
                status: None,
                priority: None,
                depends_on: Vec::new(),
                check_command: None,
                project_folder: None,
            },
        )
        .unwrap();
    let started = engine.runner().start(&card.id, Default::default()).unwrap();
    settle_card(&engine, &card.id);
    runs.push(("task", started.run_id));

    // A routine's run (a card of its own, run by the task runner).
    let routine = engine
        .routines()
        .create(RoutineInput {
            name: "nightly check".into(),
            agent_id: Some(lead.clone()),
            team_id: None,
            prompt: "Check the nightly build.".into(),
            schedule: Schedule::Every { minutes: 60 },
            heartbeat: false,
            reports_to_team_id: None,
        })
        .unwrap();
    engine.routines().run_now(&routine.id).unwrap();
    let routine_run = wait_for("the routine's run to end", LIMIT, || {
        let runs = engine.routines().detail(&routine.id, 10).unwrap().runs;
        runs.into_iter().find(|r| !matches!(r.outcome, RoutineOutcome::Running) && r.run_id.is_some())
    });
    assert_eq!(routine_run.outcome, RoutineOutcome::Succeeded);
    runs.push(("routine", routine_run.run_id.clone().unwrap()));

    // The keys were in use: the fake provider received each.
    let requests = server.model_requests();
    assert!(requests.iter().any(|r| r.header("x-api-key") == Some(ANTHROPIC_KEY)), "the Anthropic key was sent");
    let bearer = format!("Bearer {OPENAI_KEY}");
    assert!(requests.iter().any(|r| r.header("authorization") == Some(bearer.as_str())), "the OpenAI key was sent");

    // Stored run contexts and recorded requests, as the app shows them.
    let mut in_runs = Vec::new();
    let mut contexts = 0;
    let mut recorded = 0;
    for (kind, run_id) in &runs {
        let context = match *kind {
            "chat" => format!("{:?}", engine.chat().chat_run_context(run_id).unwrap()),
            "team" => format!("{:?}", engine.chat().run_context(run_id).unwrap()),
            _ => format!("{:?}", engine.runner().run_context(run_id).unwrap()),
        };
        contexts += 1;
        in_runs.extend(findings(&format!("{kind} run {run_id}'s context"), context.as_bytes()));
        for request in engine.relay().requests(run_id).unwrap() {
            recorded += 1;
            in_runs.extend(findings(
                &format!("{kind} run {run_id}'s recorded request"),
                format!("{request:?}").as_bytes(),
            ));
        }
    }
    assert!(recorded >= runs.len(), "every run's requests were recorded ({recorded} for {} runs)", runs.len());

    // Exports of every chat, the room and the card, as Markdown and as JSON with the exact
    // stored events of runs that used the keys.
    let mut exports = 0;
    let targets = [
        ExportTarget::AgentChat { agent_id: lead.clone() },
        ExportTarget::AgentChat { agent_id: mate.clone() },
        ExportTarget::Room { id: general.clone() },
        ExportTarget::Card { id: card.id.clone() },
    ];
    for target in &targets {
        for format in [ExportFormat::Markdown, ExportFormat::Json] {
            let export = engine.export(target, format).unwrap();
            assert!(export.contents.len() > 100, "{target:?} {format:?}: {}", export.contents);
            exports += 1;
            in_runs.extend(findings(&format!("the export of {target:?} as {format:?}"), export.contents.as_bytes()));
        }
    }

    // Every event the engine published.
    let mut published = 0;
    let mut in_events = Vec::new();
    loop {
        match events.try_recv() {
            Ok(event) => {
                published += 1;
                in_events.extend(findings("an event", format!("{event:?}").as_bytes()));
            }
            Err(tokio::sync::broadcast::error::TryRecvError::Lagged(n)) => panic!("{n} events were missed"),
            Err(_) => break,
        }
    }

    // Every file of the data folder, with the database's WAL still open, then after closing.
    let mut scan = Scan::default();
    scan.dir(&fixture.data_dir());
    drop(engine);
    scan.dir(&fixture.data_dir());

    let summary = json!({
        "runs": runs.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        "files_scanned": scan.files,
        "bytes_scanned": scan.bytes,
        "gzip_streams_inflated": scan.gzip_parts,
        "wal_files_scanned": scan.wal_files,
        "events_scanned": published,
        "contexts_scanned": contexts,
        "recorded_requests_scanned": recorded,
        "exports_scanned": exports,
        "found_in_files": scan.found,
        "found_in_events": in_events,
        "found_in_runs": in_runs,
    });
    println!("keys scan: {summary}");
    if let Some(path) = std::env::var_os("CLAWBOO_SOAK_REPORT") {
        std::fs::write(path, summary.to_string()).unwrap();
    }
    assert!(published > 0 && scan.files > 0 && scan.wal_files > 0, "events, files and a WAL were scanned");
    let found: Vec<_> = scan.found.iter().chain(&in_events).chain(&in_runs).collect();
    assert!(found.is_empty(), "a key was found: {found:#?}");
}

fn settle_card(engine: &Engine, card_id: &str) {
    wait_for("the card's run to end", LIMIT, || {
        let card = engine.board().get(card_id).unwrap();
        let (running, queued) = engine.runner().active();
        let idle = !running.iter().any(|c| c == card_id) && !queued.iter().any(|c| c == card_id);
        (card.status != CardStatus::InProgress && card.claimed_by_run.is_none() && idle).then_some(card)
    });
}
