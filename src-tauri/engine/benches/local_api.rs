//! The local API's own cost to start a run: from sending `POST /api/runtimes/:agent/run` over
//! loopback (a kept-alive connection, with the bearer token) to its `201` answer (the Host and
//! token checked, the body parsed, the agent found, the card made, the task claimed and queued),
//! 200 runs one after another on a real SQLite store; the runtime answers at once. The token is
//! in the keychain: run through scripts/bench (a private keyring on Linux).
//!
//! `cargo bench -p clawboo-engine --bench local_api`

use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::runner::RunnerSettings;
use clawboo_engine::runtimes::{ApprovalPolicy, Capabilities, RunChannels, RunEvent, RunResult, Runtime, TurnInput};
use clawboo_engine::{Engine, EngineConfig};
use clawboo_testkit::TempDataDir;

const RUNS: usize = 200;

struct AnswersAtOnce;

impl Runtime for AnswersAtOnce {
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
        Box::pin(async move {
            channels.emit(RunEvent::TextDelta { text: format!("Done: {}", input.message) });
            Ok(RunResult::succeeded())
        })
    }
}

fn main() {
    let dir = TempDataDir::new();
    let engine = Engine::open_with(EngineConfig::for_dir(dir.path().into()), vec![Arc::new(AnswersAtOnce)]).unwrap();
    engine
        .agents()
        .create(NewAgent {
            name: "Worker".into(),
            handle: "worker".into(),
            description: "does the work".into(),
            tint: "#445566".into(),
            runtime: RuntimeKind::Native,
            model: "some-model".into(),
            approval_policy: ApprovalPolicy::Ask,
            provider: None,
        })
        .unwrap();
    let settings = engine.runner().settings().unwrap();
    engine.runner().set_settings(RunnerSettings { max_concurrent: 32, ..settings }).unwrap();
    let port = engine.local_api().set_enabled(true).unwrap().port.unwrap();
    let token = engine.local_api().token().unwrap();
    let url = format!("http://127.0.0.1:{port}/api/runtimes/worker/run");
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();

    let mut times: Vec<Duration> = rt.block_on(async {
        let mut times = Vec::with_capacity(RUNS);
        for n in 0..RUNS {
            let body = serde_json::json!({"task": format!("Task {n}\nDo the thing number {n}, carefully.")});
            let started = Instant::now();
            let response = client.post(&url).bearer_auth(&token).json(&body).send().await.unwrap();
            let status = response.status();
            response.bytes().await.unwrap();
            times.push(started.elapsed());
            assert!(status.is_success(), "{status}");
        }
        times
    });
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "local_api POST /run → 201, {RUNS} runs: median {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        ms(times[RUNS / 2]),
        ms(times[RUNS * 9 / 10]),
        ms(times[RUNS - 1])
    );
}
