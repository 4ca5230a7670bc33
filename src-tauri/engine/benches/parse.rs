//! Stream parsing throughput per adapter: each CLI's recorded output (tests/fixtures, real runs
//! against the fake model server) replayed through its protocol, events counted per second.
//! Also Clawboo's own time from "send" to the runtime process being spawned, for a CLI agent.
//!
//! `cargo bench -p clawboo-engine --bench parse`

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::runtimes::claude_code::{ClaudeCodeRuntime, DuplexProtocol};
use clawboo_engine::runtimes::codex::{AppServerProtocol, ThreadSetup};
use clawboo_engine::runtimes::hermes::AcpProtocol;
use clawboo_engine::runtimes::openclaw::OpenclawAcp;
use clawboo_engine::runtimes::process::{CommandSpec, SpawnedChild, Spawner, SystemSpawner};
use clawboo_engine::runtimes::supervise::{Step, StreamProtocol};
use clawboo_engine::runtimes::{ApprovalPolicy, Endpoint, EndpointSource};
use clawboo_engine::secrets::Provider;
use clawboo_engine::{Engine, EngineConfig};
use clawboo_testkit::TempDataDir;

fn main() {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let lines = |rel: &str| -> Vec<String> {
        std::fs::read_to_string(fixtures.join(rel)).unwrap().lines().map(str::to_owned).collect()
    };
    throughput("Claude Code (duplex stream-json)", &lines("claude-code/duplex-tool-turn.stdout.jsonl"), || {
        Box::new(DuplexProtocol::new("Run echo", false))
    });
    throughput("Codex (app-server)", &lines("codex/app-server-tool-turn.stdout.jsonl"), || {
        let setup = ThreadSetup {
            cwd: "/w".into(),
            model: "gpt-5.5".into(),
            approval_policy: "never",
            sandbox: Some("workspace-write"),
            developer_instructions: None,
            config: None,
        };
        Box::new(AppServerProtocol::new(setup, None, "Run echo".into()))
    });
    throughput("Hermes (ACP)", &lines("hermes/acp-tool-turn.stdout.jsonl"), || {
        Box::new(AcpProtocol::new("/w".into(), "Run echo".into(), None))
    });
    throughput("OpenClaw (ACP bridge to its Gateway)", &lines("openclaw/acp-tool-turn.stdout.jsonl"), || {
        Box::new(OpenclawAcp::new("/w".into(), "Run echo".into(), None, None, None))
    });
    spawn_overhead();
}

fn throughput(name: &str, lines: &[String], protocol: impl Fn() -> Box<dyn StreamProtocol>) {
    let mut rates = Vec::new();
    for _ in 0..7 {
        let started = Instant::now();
        let mut events = 0u64;
        let mut out = Vec::new();
        while started.elapsed() < Duration::from_millis(300) {
            let mut p = protocol();
            for line in lines {
                p.on_line(line, &mut out);
                events += out.iter().filter(|s| matches!(s, Step::Emit(_) | Step::Ask { .. })).count() as u64;
                out.clear();
            }
        }
        rates.push(events as f64 / started.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    println!("parse {name}: median {:.0} events/s ({} lines per recorded turn)", rates[rates.len() / 2], lines.len());
}

struct AnyKey;

impl EndpointSource for AnyKey {
    fn endpoint(&self, _: Provider, _run_id: &str) -> clawboo_engine::Result<Endpoint> {
        Ok(Endpoint { base_url: "http://127.0.0.1:9".into(), api_key: Some("bench".into()) })
    }
}

/// Notes when the engine asks for the process, then starts `/bin/true` in its place.
#[derive(Clone, Default)]
struct Stopwatch(Arc<Mutex<Option<Instant>>>);

impl Spawner for Stopwatch {
    fn spawn(&self, spec: &CommandSpec) -> std::io::Result<SpawnedChild> {
        *self.0.lock().unwrap() = Some(Instant::now());
        SystemSpawner.spawn(&CommandSpec { program: "/bin/true".into(), args: Vec::new(), ..spec.clone() })
    }
}

fn spawn_overhead() {
    let dir = TempDataDir::new();
    let stopwatch = Stopwatch::default();
    let runtime = Arc::new(ClaudeCodeRuntime::new(Arc::new(stopwatch.clone()), Arc::new(AnyKey)));
    let engine = Engine::open_with(EngineConfig::for_dir(dir.path().into()), vec![runtime]).unwrap();
    // A stand-in that answers --version like Claude Code (paths are checked when set).
    let program = dir.path().join("claude");
    std::fs::write(&program, "#!/bin/sh\necho '2.1.332 (Claude Code)'\n").unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(&program, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    engine
        .block_on(engine.runtimes().set_custom_path(RuntimeKind::ClaudeCode, Some(program.to_str().unwrap())))
        .unwrap();
    let agent = engine
        .agents()
        .create(NewAgent {
            name: "Bench".into(),
            handle: "bench".into(),
            description: String::new(),
            tint: "#000000".into(),
            runtime: RuntimeKind::ClaudeCode,
            model: String::new(),
            approval_policy: ApprovalPolicy::AllowAll,
            provider: None,
        })
        .unwrap();
    let mut done = 0;
    for history in [0, 100, 400] {
        let mut samples = Vec::new();
        while done < history + 30 {
            *stopwatch.0.lock().unwrap() = None;
            let started = Instant::now();
            let run = engine.chat().send(&agent.id, "hello").unwrap().run.unwrap();
            let spawned = loop {
                if let Some(at) = *stopwatch.0.lock().unwrap() {
                    break at;
                }
                std::thread::yield_now();
            };
            if done >= history {
                samples.push(spawned - started);
            }
            while engine.chat().cancel(&run.id).is_ok() {
                std::thread::sleep(Duration::from_millis(1));
            }
            done += 1;
        }
        samples.sort();
        println!(
            "Claude Code: send → process spawned with {history:>3} earlier messages: median {:.2} ms",
            samples[samples.len() / 2].as_secs_f64() * 1000.0
        );
    }
}
