//! The task runner's own cost to get a card going: from `runner.start(card)` (the claim) to the
//! runtime being handed its `TurnInput` (the card read, the task conversation, a memory search
//! over 40 facts, the three tiers assembled, the run row, its context, its record on the card,
//! the citations, the tools granted), per card, over 200 cards started one after another on a
//! real SQLite store. The runtime is a scripted one that notes the instant it is called and
//! answers at once.
//!
//! `cargo bench -p clawboo-engine --bench runner`

use std::pin::Pin;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::board::{Actor, CardStatus, NewCard};
use clawboo_engine::memory::{Author, FactInput, Scope};
use clawboo_engine::runner::StartOptions;
use clawboo_engine::runtimes::{ApprovalPolicy, Capabilities, RunChannels, RunEvent, RunResult, Runtime, TurnInput};
use clawboo_engine::{Engine, EngineConfig};
use clawboo_testkit::TempDataDir;

const CARDS: usize = 200;

/// Notes when it is handed each run's input (with the run's message), then answers at once.
struct Stamping(Mutex<mpsc::Sender<(String, Instant)>>);

impl Runtime for Stamping {
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
        let called = Instant::now();
        let _ = self.0.lock().unwrap().send((input.message.clone(), called));
        Box::pin(async move {
            channels.emit(RunEvent::TextDelta { text: format!("Done: {}", input.message) });
            Ok(RunResult::succeeded())
        })
    }
}

fn main() {
    let (stamps_tx, stamps) = mpsc::channel();
    let dir = TempDataDir::new();
    let engine =
        Engine::open_with(EngineConfig::for_dir(dir.path().into()), vec![Arc::new(Stamping(Mutex::new(stamps_tx)))])
            .unwrap();
    let agent = engine
        .agents()
        .create(NewAgent {
            name: "Worker".into(),
            handle: "worker".into(),
            description: "Does the cards.".into(),
            tint: "#000000".into(),
            runtime: RuntimeKind::Native,
            model: "some-model".into(),
            approval_policy: ApprovalPolicy::AllowAll,
            provider: None,
        })
        .unwrap();
    for i in 0..40 {
        let text = format!("Fact {i}: the stock room shelf {i} holds the spare parts of kind {}.", i % 7);
        engine.memory().save(FactInput { text, scope: Scope::Global, tags: vec![] }, Author::User).unwrap();
    }
    let cards: Vec<_> = (0..CARDS)
        .map(|i| {
            let card = NewCard {
                title: format!("Count the spare parts on shelf {i}"),
                description: format!("Count what is on stock room shelf {i} and report the spare parts by kind."),
                assignee_id: Some(agent.id.clone()),
                team_id: None,
                status: None,
                priority: None,
                depends_on: vec![],
                check_command: None,
                project_folder: None,
            };
            engine.board().create(Actor::User, card).unwrap()
        })
        .collect();

    let mut samples = Vec::with_capacity(CARDS);
    for card in &cards {
        let started = Instant::now();
        engine.runner().start(&card.id, StartOptions::default()).unwrap();
        let (message, called) = stamps.recv_timeout(Duration::from_secs(30)).expect("the runtime was called");
        assert_eq!(message, card.title);
        samples.push(called.duration_since(started));
        // One card at a time: wait for it to settle before the next claim.
        let limit = Instant::now() + Duration::from_secs(30);
        while engine.board().get(&card.id).unwrap().status == CardStatus::InProgress
            || !engine.runner().active().0.is_empty()
        {
            assert!(Instant::now() < limit, "#{} did not settle", card.number);
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(engine.board().get(&card.id).unwrap().status, CardStatus::InReview);
    }

    samples.sort();
    let at = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)];
    println!("task runner, start(card) to the runtime handed its TurnInput, {CARDS} cards one at a time:");
    println!("  median {:.2} ms, p90 {:.2} ms, max {:.2} ms", ms(at(0.5)), ms(at(0.9)), ms(samples[CARDS - 1]));
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
