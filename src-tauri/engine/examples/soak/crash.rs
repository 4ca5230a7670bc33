//! `kill -9` of the real app mid-run, round after round. Each round the app (started on a data
//! folder of its own, its local API switched on as the Settings switch does) gets one task run
//! per runtime through the local API; once every run is mid-flight (a CLI's shell tool running,
//! Native's fact saved and its answer streaming), the soak notes the runtime processes under the
//! app and every stored row, and SIGKILLs the app. It counts the processes still running a
//! second later, restarts the app, counts again, and checks that every row is still there and
//! every run reads as cut off.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clawboo_engine::{Engine, EngineConfig};
use clawboo_testkit::FakeModelServer;
use serde_json::{json, Value};

use crate::procs::{self, Proc};
use crate::setup;
use crate::{store, Args, Report, Row};

const START_LIMIT: Duration = Duration::from_secs(60);
const MID_RUN_LIMIT: Duration = Duration::from_secs(120);

pub fn run(args: &Args) -> Report {
    let app_path = args.app.clone().expect("--app PATH: the built clawboo binary");
    let rounds = args.rounds.max(1);
    let subjects = setup::subjects();
    let server = FakeModelServer::start_blocking(setup::behavior(&subjects, rounds));
    let root = setup::fresh_dir(&args.work, "crash");
    let data = root.join("data");
    let token = {
        let engine = Engine::open(EngineConfig::for_dir(data.clone())).expect("open the data folder");
        setup::seed(&engine, &subjects, &server.base_url());
        engine.local_api().set_enabled(true).expect("switch the local API on");
        engine.local_api().token().expect("the API token")
    };
    let http = Http::new(token);
    let log = root.join("app.log");
    let mut app = App::start(&app_path, &data, &log, &http);

    let mut started_runs = 0;
    let (mut mid_flight, mut runtime_procs, mut after_kill, mut after_restart) = (0, 0, 0, 0);
    let (mut lost, mut stored, mut cut_off) = (0, 0, 0);
    for round in 0..rounds {
        let runs: Vec<(usize, String)> = subjects
            .iter()
            .enumerate()
            .filter_map(|(index, subject)| {
                let task = format!("{} Write the quarterly summary for round {round}.", setup::tag(subject, round));
                let body = json!({"task": task, "title": format!("Soak round {round} on {}", subject.handle)});
                match http.post(&app, &format!("/api/runtimes/{}/run", subject.handle), &body) {
                    Ok(started) => {
                        let expected = setup::card_number(subjects.len(), index, round);
                        if started["cardNumber"] != expected {
                            eprintln!(
                                "soak crash: card #{} where #{expected} was expected: its script will not match",
                                started["cardNumber"]
                            );
                        }
                        Some((index, started["runId"].as_str().expect("runId").to_owned()))
                    }
                    Err(e) => {
                        eprintln!("soak crash: round {round}: {} did not start: {e}", subject.handle);
                        None
                    }
                }
            })
            .collect();
        started_runs += runs.len();
        let ready = setup::wait_mid_flight(&server, &subjects, round, &runs, MID_RUN_LIMIT);
        mid_flight += ready;

        let tree: Vec<Proc> =
            procs::descendants(app.pid()).into_iter().filter(|p| !is_webview(p) && !procs::is_watchdog(p)).collect();
        runtime_procs += tree.len();
        let before = store::snapshot(&data.join("clawboo.db"));
        stored = before.len();
        app.kill9();
        std::thread::sleep(Duration::from_secs(1));
        let survived = procs::still_running(&tree);
        after_kill += survived.len();
        app = App::start(&app_path, &data, &log, &http);
        let orphans = procs::still_running(&tree);
        after_restart += orphans.len();
        let after = store::snapshot(&data.join("clawboo.db"));
        let missing: Vec<&String> = before.difference(&after).collect();
        lost += missing.len();
        let mut interrupted = 0;
        for (_, run_id) in &runs {
            let run = http.get(&app, &format!("/api/runs/{run_id}")).unwrap_or(Value::Null);
            if run["outcome"] == "interrupted" {
                interrupted += 1;
            } else {
                eprintln!("soak crash: round {round}: run {run_id} is not cut off: {run}");
            }
        }
        cut_off += interrupted;
        eprintln!(
            "soak crash: round {}/{rounds}: {} runs ({ready} mid-flight), {} runtime processes, {} alive 1 s after kill -9, \
             {} after the restart; {} rows lost ({}); {interrupted} cut off",
            round + 1,
            runs.len(),
            tree.len(),
            survived.len(),
            orphans.len(),
            missing.len(),
            store::summary(&before),
        );
        for p in &survived {
            eprintln!("    alive after kill -9: {}", p.describe());
        }
        for p in orphans.iter() {
            eprintln!("    left after restart: {}", p.describe());
        }
        for row in missing.iter().take(10) {
            eprintln!("    lost: {row}");
        }
    }
    // The last app goes the same way; the next open sweeps what it left.
    let last = procs::descendants(app.pid())
        .into_iter()
        .filter(|p| !is_webview(p) && !procs::is_watchdog(p))
        .collect::<Vec<_>>();
    app.kill9();
    drop(Engine::open(EngineConfig::for_dir(data.clone())).expect("reopen"));
    let leftover = procs::still_running(&last);
    if !leftover.is_empty() {
        eprintln!("soak crash: {} processes of the last app outlived the cleanup sweep", leftover.len());
    }

    let names: Vec<&str> = subjects.iter().map(|s| s.handle.trim_start_matches("soak-")).collect();
    Report {
        part: "crash",
        title: format!("kill -9 of the app mid-run ×{rounds}"),
        how: format!(
            "The debug app under Xvfb on its own data folder; each round one task run per runtime ({}) through the \
             local API, all mid-flight on the fake model server, then kill -9; processes counted from /proc \
             (the app's whole tree, webview left out), rows from SQLite, cut off from GET /api/runs/:id after a restart.",
            names.join(", ")
        ),
        rows: vec![
            Row::zero("stored items lost (cards, comments, activity, runs, messages, events, facts)", lost),
            Row::all("interrupted runs marked cut off after the restart", cut_off, started_runs),
            Row::zero("runtime processes left after the restart (orphans)", after_restart + leftover.len()),
            Row::zero("runtime processes alive 1 s after kill -9, before any restart", after_kill),
            Row::all("runs mid-flight when killed", mid_flight, started_runs),
            Row::info("runtime processes running at the kills (all rounds)", json!(runtime_procs)),
            Row::info("stored rows checked at the last round", json!(stored)),
        ],
    }
}

/// WebKitGTK's web and network processes belong to the window, not to a run.
fn is_webview(p: &Proc) -> bool {
    p.comm.starts_with("WebKit") || p.cmdline.contains("WebKitWebProcess") || p.cmdline.contains("WebKitNetworkProcess")
}

/// The app, started on the soak's data folder with its output appended to a log.
struct App {
    child: Child,
    port: u16,
}

impl App {
    /// Starts the app and waits until its local API answers (its engine is open: a sweep of a
    /// killed predecessor's processes and the cut-off marking are done by then).
    fn start(program: &Path, data: &Path, log: &Path, http: &Http) -> App {
        let out = std::fs::OpenOptions::new().create(true).append(true).open(log).expect("app log");
        let err = out.try_clone().expect("app log");
        let child = Command::new(program)
            .env("CLAWBOO_DATA_DIR", data)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", program.display()));
        let pid = child.id();
        let deadline = Instant::now() + START_LIMIT;
        let port_file: PathBuf = data.join("api.json");
        let mut app = App { child, port: 0 };
        loop {
            // The port file names the app that wrote it: a killed one's is stale.
            let port = std::fs::read(&port_file)
                .ok()
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
                .filter(|v| v["pid"] == pid)
                .and_then(|v| v["port"].as_u64());
            if let Some(port) = port {
                app.port = port as u16;
                if http.get(&app, "/api/runs?limit=1").is_ok() {
                    return app;
                }
            }
            if let Ok(Some(status)) = app.child.try_wait() {
                panic!("the app exited ({status}) before its local API answered; see {}", log.display());
            }
            assert!(Instant::now() < deadline, "the app did not open its local API in time; see {}", log.display());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL: no destructor, no quit handling.
    fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A blocking client of the local API.
struct Http {
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
    token: String,
}

impl Http {
    fn new(token: String) -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let client = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(20)).build().expect("client");
        Http { runtime, client, token }
    }

    fn get(&self, app: &App, path: &str) -> Result<Value, String> {
        self.send(self.client.get(format!("http://127.0.0.1:{}{path}", app.port)))
    }

    fn post(&self, app: &App, path: &str, body: &Value) -> Result<Value, String> {
        self.send(self.client.post(format!("http://127.0.0.1:{}{path}", app.port)).json(body))
    }

    fn send(&self, request: reqwest::RequestBuilder) -> Result<Value, String> {
        self.runtime.block_on(async {
            let response = request.bearer_auth(&self.token).send().await.map_err(|e| e.to_string())?;
            let status = response.status();
            let body: Value = response.json().await.map_err(|e| e.to_string())?;
            if status.is_success() {
                Ok(body)
            } else {
                Err(format!("{status}: {body}"))
            }
        })
    }
}
