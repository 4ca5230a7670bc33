//! What both parts share: the runtimes under test, the fake model's script, and the data folder
//! they are set up in (agents, keys in the keychain, base URLs pointing at the fake model).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clawboo_engine::agents::{Agent, NewAgent, RuntimeKind};
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::secrets::Provider;
use clawboo_engine::Engine;
use clawboo_testkit::{last_user_text, Behavior, FakeModelServer, Reply, Rule};
use serde_json::json;

/// A runtime under test: its agent and, for a CLI, its program.
#[derive(Debug, Clone)]
pub struct Subject {
    pub kind: RuntimeKind,
    pub handle: &'static str,
    pub model: &'static str,
    pub provider: Provider,
    pub program: Option<PathBuf>,
}

/// Native plus each pinned CLI found under `CLAWBOO_RUNTIMES_DIR` (scripts/install-runtimes).
/// OpenClaw is left out: its Gateway is a lasting process per agent, not one per run.
pub fn subjects() -> Vec<Subject> {
    let dir = std::env::var_os("CLAWBOO_RUNTIMES_DIR").map(PathBuf::from);
    let cli = |rel: &str| dir.as_ref().map(|d| d.join(rel)).filter(|p| p.is_file());
    let mut found = vec![Subject {
        kind: RuntimeKind::Native,
        handle: "soak-native",
        model: "claude-sonnet-4-5",
        provider: Provider::Anthropic,
        program: None,
    }];
    let clis = [
        (RuntimeKind::Codex, "soak-codex", "gpt-5.5", Provider::OpenAi, "codex/node_modules/.bin/codex"),
        (
            RuntimeKind::ClaudeCode,
            "soak-claude",
            "claude-sonnet-4-5",
            Provider::Anthropic,
            "claude/node_modules/.bin/claude",
        ),
        (RuntimeKind::Hermes, "soak-hermes", "some-model", Provider::OpenAi, "hermes/bin/hermes"),
    ];
    for (kind, handle, model, provider, rel) in clis {
        match cli(rel) {
            Some(program) => found.push(Subject { kind, handle, model, provider, program: Some(program) }),
            None => eprintln!("soak: {rel} is not installed (scripts/install-runtimes): {handle} left out"),
        }
    }
    found
}

/// The tag a run's task carries, for whoever reads the Board.
pub fn tag(subject: &Subject, run: u32) -> String {
    format!("[soak {} run {run:04}]", subject.handle)
}

/// The card number of run `run` of subject `index`: the soak makes its cards in this order on a
/// fresh Board (one per subject per run), and checks it got these numbers.
pub fn card_number(subjects: usize, index: usize, run: u32) -> u32 {
    run * subjects as u32 + index as u32 + 1
}

/// What picks a run's script on the fake model: the task itself rides in the system prompt,
/// and the turn's message names the card ("Board (this task is card #7): …").
pub fn needle(card_number: u32) -> String {
    format!("(this task is card #{card_number})")
}

/// The shell command a CLI run's tool starts: a `sleep` whose length names the run, so the
/// soak can find it (and whatever is left of it) in the process table.
pub fn tool_command(subject_index: usize, run: u32) -> String {
    // Not a bare `sleep`: Claude Code refuses a standalone one.
    format!("echo soak-tool && sleep {}", marker(subject_index, run))
}

pub fn marker(subject_index: usize, run: u32) -> u32 {
    8_000_000 + run * 10 + subject_index as u32
}

/// What the fake model does with run `run` of each subject: a CLI runs a long shell command
/// (Codex gets its session back after half a second and the model then stalls); Native saves a
/// fact through Clawboo's memory tool, then its answer stalls (one chunk a minute).
pub fn behavior(subjects: &[Subject], runs: u32) -> Behavior {
    let stall = Reply::Slow { text: "still thinking about it".into(), chunks: 100, delay: Duration::from_secs(60) };
    let mut rules = Vec::new();
    for run in 0..runs {
        for (index, subject) in subjects.iter().enumerate() {
            let first = match subject.kind {
                RuntimeKind::Native => Reply::ToolCall {
                    name: "~memory_save".into(),
                    input: json!({"text": format!("Soak fact of {}", tag(subject, run))}),
                },
                RuntimeKind::Codex => Reply::ToolCall {
                    name: "*".into(),
                    input: json!({"cmd": tool_command(index, run), "yield_time_ms": 500}),
                },
                _ => Reply::ToolCall { name: "*".into(), input: json!({"command": tool_command(index, run)}) },
            };
            let needle = needle(card_number(subjects.len(), index, run));
            rules.push(Rule { contains: needle, steps: vec![first, stall.clone()] });
        }
    }
    Behavior { on_user: stall.clone(), on_tool_result: stall, rules }
}

/// Keys (test values) and base URLs pointing at the fake model, the CLIs' paths, and one agent
/// per subject: what a user would set up in Settings and on the agent page.
pub fn seed(engine: &Engine, subjects: &[Subject], model_url: &str) -> Vec<Agent> {
    for provider in [Provider::Anthropic, Provider::OpenAi] {
        engine.secrets().set_api_key(provider, &format!("sk-soak-{}", provider.as_str())).expect("keychain");
    }
    engine.secrets().set_base_url(Provider::Anthropic, Some(model_url)).expect("base URL");
    engine.secrets().set_base_url(Provider::OpenAi, Some(&format!("{model_url}/v1"))).expect("base URL");
    let mut agents = Vec::new();
    for subject in subjects {
        if let Some(program) = &subject.program {
            let path = program.display().to_string();
            engine.block_on(engine.runtimes().set_custom_path(subject.kind, Some(&path))).expect("runtime path");
        }
        let agent = engine
            .agents()
            .create(NewAgent {
                name: subject.handle.to_owned(),
                handle: subject.handle.to_owned(),
                description: String::new(),
                tint: "#446688".into(),
                runtime: subject.kind,
                model: subject.model.to_owned(),
                approval_policy: ApprovalPolicy::AllowAll,
                provider: Some(subject.provider),
            })
            .expect("agent");
        agents.push(agent);
    }
    agents
}

/// A fresh folder under `root` (removed first when it is there).
pub fn fresh_dir(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Waits until each run is mid-flight: a CLI's shell tool runs its `sleep` (for Codex, whose
/// tool hands back after half a second, also its next model turn has begun), Native's fact is
/// saved and its answer is streaming. Returns how many got there.
pub fn wait_mid_flight(
    server: &FakeModelServer,
    subjects: &[Subject],
    round: u32,
    runs: &[(usize, String)],
    limit: Duration,
) -> usize {
    let deadline = Instant::now() + limit;
    loop {
        let requests = server.model_requests();
        let answered_tool = |tag: &str| {
            requests
                .iter()
                .any(|r| last_user_text(&r.body).is_some_and(|(text, results)| text.contains(tag) && results >= 1))
        };
        let is_ready = |index: &usize| {
            let subject = &subjects[*index];
            let tag = needle(card_number(subjects.len(), *index, round));
            let tool = format!("sleep {}", marker(*index, round));
            match subject.kind {
                clawboo_engine::agents::RuntimeKind::Native => answered_tool(&tag),
                clawboo_engine::agents::RuntimeKind::Codex => {
                    answered_tool(&tag) && !crate::procs::with_marker(&tool).is_empty()
                }
                _ => !crate::procs::with_marker(&tool).is_empty(),
            }
        };
        let ready = runs.iter().filter(|(index, _)| is_ready(index)).count();
        if ready == runs.len() || Instant::now() > deadline {
            for (index, _) in runs.iter().filter(|(index, _)| !is_ready(index)) {
                let needle = needle(card_number(subjects.len(), *index, round));
                let asked = requests
                    .iter()
                    .filter(|r| last_user_text(&r.body).is_some_and(|(t, _)| t.contains(&needle)))
                    .count();
                eprintln!(
                    "soak: round {round}: {} did not get mid-flight ({asked} model requests for it)",
                    subjects[*index].handle
                );
            }
            // A moment for what the last step started to settle (events stored, tools forked).
            std::thread::sleep(Duration::from_millis(300));
            return ready;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
