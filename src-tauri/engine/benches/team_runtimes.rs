//! A team exchange on each of the five runtimes as leader, the real CLIs on the fake model
//! server (which answers at once), so what is timed is everything but the model: the CLI's own
//! start and work, Clawboo's context assembly, the tools bridge and the store.
//! - plain: the user asks, the leader answers (a warm session: exchanges 2 to 6);
//! - hand-off: the leader hands a task to a Native teammate, which answers; the result goes back
//!   to the leader at once (no timer), who answers again.
//!
//! `cargo bench -p clawboo-engine --bench team_runtimes` (scripts/bench runs it with a keychain).
//! A runtime whose CLI is not installed is skipped with a note; `BENCH_RUNTIMES=hermes,openclaw`
//! measures only those.
#![cfg(unix)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::chat::team::RoomMessageKind;
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::secrets::Provider;
use clawboo_engine::{Engine, EngineEvent};
use clawboo_testkit::bench::{self, ms};
use clawboo_testkit::{Behavior, FakeModelServer, Reply};
use serde_json::json;

const KEY: &str = "sk-fake-bench";
const LIMIT: Duration = Duration::from_secs(240);

fn behavior() -> Behavior {
    Behavior::text("(unscripted)")
        .when("bench-done", vec![Reply::Text("Final: the count is in.".into())])
        .when("bench-task", vec![Reply::Text("bench-done: 12 crates".into())])
        .when(
            "Delegate",
            vec![
                Reply::ToolCall { name: "~handoff".into(), input: json!({"to": "helper", "task": "bench-task count"}) },
                Reply::Text("Handed.".into()),
            ],
        )
        .when("Question", vec![Reply::Text("A short answer.".into())])
}

fn leader(kind: RuntimeKind) -> NewAgent {
    let (model, provider) = match kind {
        RuntimeKind::ClaudeCode => ("claude-sonnet-4-5", Provider::Anthropic),
        RuntimeKind::Codex => ("gpt-5.5", Provider::OpenAi),
        RuntimeKind::Hermes | RuntimeKind::Openclaw => ("some-model", Provider::Custom),
        RuntimeKind::Native => ("claude-sonnet-4-5", Provider::Anthropic),
    };
    NewAgent {
        model: model.into(),
        provider: Some(provider),
        approval_policy: ApprovalPolicy::AllowAll,
        ..common::new_agent("lead", kind)
    }
}

/// Sends to the room and waits for the leader's reply starting with `prefix`.
fn exchange(engine: &Engine, room_id: &str, text: &str, prefix: &str) -> Duration {
    let mut events = engine.events().subscribe();
    let started = Instant::now();
    engine.chat().send_team(room_id, text).expect("send");
    loop {
        match events.blocking_recv() {
            Ok(EngineEvent::RoomMessageAdded { message, .. })
                if message.room_id == room_id
                    && message.kind == RoomMessageKind::Reply
                    && message.content.starts_with(prefix) =>
            {
                return started.elapsed();
            }
            Ok(EngineEvent::RoomMessageAdded { message, .. }) if message.kind == RoomMessageKind::Notice => {
                panic!("the run failed: {}", message.content)
            }
            Ok(_) if started.elapsed() > LIMIT => panic!("no reply to {text:?} within {LIMIT:?}"),
            Ok(_) => {}
            Err(e) => panic!("event stream: {e}"),
        }
    }
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let plain_rounds = bench::samples(5, 2);
    let handoff_rounds = bench::samples(3, 1);
    let kinds =
        [RuntimeKind::Native, RuntimeKind::ClaudeCode, RuntimeKind::Codex, RuntimeKind::Hermes, RuntimeKind::Openclaw];
    let only = std::env::var("BENCH_RUNTIMES").ok();
    let wanted =
        |kind: RuntimeKind| only.as_deref().is_none_or(|list| list.split(',').any(|k| k.trim() == kind.as_str()));
    println!("team exchange per leader runtime, real CLIs on the fake model server (answers at once):");
    for kind in kinds.into_iter().filter(|k| wanted(*k)) {
        let server = FakeModelServer::start_blocking(behavior());
        let Some((fixture, mut runtimes)) = (match kind {
            RuntimeKind::Native => Some((common::Fixture::for_clis(), Vec::new())),
            _ => common::Fixture::for_clis_on(&[kind], &server, KEY),
        }) else {
            println!("  {}: skipped (its CLI is not installed)", kind.as_str());
            continue;
        };
        runtimes.push(common::native_runtime(server.base_url(), KEY));
        let engine = fixture.open_with(runtimes);
        let lead = common::add_agent(&engine, leader(kind));
        let helper = common::add_agent(
            &engine,
            NewAgent {
                model: "claude-sonnet-4-5".into(),
                provider: Some(Provider::Anthropic),
                approval_policy: ApprovalPolicy::AllowAll,
                ..common::new_agent("helper", RuntimeKind::Native)
            },
        );
        let common::ChatTeam { general, .. } =
            common::chat_team(&engine, "Bench", &[lead, helper], "I run a tea shop.");

        // The first exchange starts the session (and, for OpenClaw, its Gateway): not counted.
        let first = exchange(&engine, &general, "Question 0", "A short answer.");
        let mut plain: Vec<Duration> = (1..=plain_rounds)
            .map(|i| exchange(&engine, &general, &format!("Question {i}"), "A short answer."))
            .collect();
        let mut handoff: Vec<Duration> =
            (0..handoff_rounds).map(|i| exchange(&engine, &general, &format!("Delegate {i}"), "Final:")).collect();
        let (plain, handoff) = (median(&mut plain), median(&mut handoff));
        println!(
            "  {:<11} first exchange {:>7.0} ms; then {:>7.0} ms per exchange; with a hand-off {:>7.0} ms (medians)",
            kind.as_str(),
            ms(first),
            ms(plain),
            ms(handoff)
        );
        let id = kind.as_str().replace('-', "_");
        bench::report(
            &format!("team_runtimes.exchange_ms.{id}"),
            &format!("Team exchange, {} leader, instant model (wall time)", kind.as_str()),
            "ms",
            ms(plain),
            plain_rounds,
        );
        bench::report(
            &format!("team_runtimes.handoff_ms.{id}"),
            &format!("Team exchange with a hand-off, {} leader, instant model (wall time)", kind.as_str()),
            "ms",
            ms(handoff),
            handoff_rounds,
        );
        drop(engine);
        drop(fixture);
    }
}
