//! A member on an OpenClaw Gateway on "another machine", with the real, pinned `openclaw` CLI.
//!
//! The test makes two network namespaces joined by a veth pair and nothing else (no address
//! outside them, no route anywhere): the Gateway runs in one ("the other machine", with its own
//! home and config, its model being the fake server across the link), and this test re-runs
//! itself in the other ("the user's computer"), where the engine's runtime, the bridge and every
//! `openclaw gateway call` run. So the Gateway is reached only over that link, never over a
//! shared loopback. It checks, on the captured model requests: the first contact asks the
//! Gateway's owner to approve this computer (and says how); after that the persona files reach
//! that Gateway's agent through its protocol (`agents.files.set`), once, and again only when one
//! changes; a Gateway killed mid-run cuts the run off with the reason. Figures are printed.
//!
//! Needs root (to make namespaces) and `ip`; skipped with the reason otherwise, and when the CLI
//! is not installed (see `common::cli`).
#![cfg(target_os = "linux")]

mod common;

use common::gateway_rig::{self, detached_child_groups, path_with, Inside, NoEndpoint, OtherMachine, Recording, PORT};

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clawboo_engine::agents::{Agent, RuntimeKind};
use clawboo_engine::runtimes::openclaw::{GatewayTokens, OpenclawRuntime};
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{ApprovalPolicy, RunChannels, RunEvent, RunOutcome, RunResult, Runtime, TurnInput};
use clawboo_testkit::{Behavior, FakeModelServer, Reply};
use tokio::sync::{mpsc, watch};

/// Set (to "CB_NS GW_NS CB_IP GW_IP") when this binary runs inside the user's namespace.
const INNER: &str = "CLAWBOO_TEST_REMOTE_GATEWAY";
const LIMIT: Duration = Duration::from_secs(240);
const TOKEN: &str = "other-machines-gateway-token-29";
const TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(180), grace: Duration::from_secs(3) };
const SOUL: &str = "You are Ivy, the team's remote reviewer. SOUL-MARK-ONE.";
const AGENTS: &str = "Review every change twice. AGENTS-MARK.";
const IDENTITY: &str = "Name: Ivy. IDENTITY-MARK.";

#[test]
fn a_member_on_a_gateway_across_a_network_link_gets_its_persona_through_the_gateways_protocol() {
    gateway_rig::run_inside(INNER, "inner_turns_on_the_other_machines_gateway");
}

struct Tokens(HashMap<String, String>);

impl GatewayTokens for Tokens {
    fn gateway_token(&self, agent_id: &str) -> clawboo_engine::Result<Option<String>> {
        Ok(self.0.get(agent_id).cloned())
    }
}

async fn run(rt: &Arc<OpenclawRuntime>, input: TurnInput) -> (RunResult, Vec<RunEvent>) {
    run_cancelled_by(rt, input, None).await
}

async fn run_cancelled_by(
    rt: &Arc<OpenclawRuntime>,
    input: TurnInput,
    during: Option<Box<dyn FnOnce() + Send>>,
) -> (RunResult, Vec<RunEvent>) {
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let (permissions, _permissions_rx) = mpsc::unbounded_channel();
    let (_cancel, cancel) = watch::channel(false);
    let channels = RunChannels { events: events_tx, permissions, cancel };
    let turn = rt.run(input, channels);
    let mut seen = Vec::new();
    tokio::pin!(turn);
    let mut during = during;
    let result = tokio::time::timeout(LIMIT, async {
        loop {
            tokio::select! {
                result = &mut turn => return result,
                Some(event) = events.recv() => {
                    let started = matches!(&event, RunEvent::TextDelta { .. });
                    seen.push(event);
                    if started {
                        if let Some(act) = during.take() {
                            act();
                        }
                    }
                }
            }
        }
    })
    .await
    .expect("the run ends in time")
    .expect("the run ends with a result");
    while let Ok(event) = events.try_recv() {
        seen.push(event);
    }
    (result, seen)
}

fn member(url: &str) -> Agent {
    Agent {
        id: "ivy".into(),
        name: "Ivy".into(),
        handle: "ivy".into(),
        openclaw_gateway_url: Some(url.to_owned()),
        ..common::agent_record(RuntimeKind::Openclaw, ApprovalPolicy::AllowAll)
    }
}

fn turn(url: &str, agent_dir: &Path, program: &Path, message: &str, session: Option<String>) -> TurnInput {
    TurnInput {
        run_id: format!("run-{}", message.len()),
        resume_session: session,
        program: Some(program.to_owned()),
        ..common::turn_input(member(url), agent_dir, agent_dir, message)
    }
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

fn reply(events: &[RunEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn inner_turns_on_the_other_machines_gateway() {
    let Some(Inside { gw, cb_ip, gw_ip }) = gateway_rig::inside(INNER) else { return };
    let program = common::cli("openclaw").unwrap();
    let node_dir = common::cli("node24").unwrap().parent().unwrap().to_owned();
    let dir = common::scratch_dir();
    let root = dir.path().to_owned();

    let behavior = Behavior::text("Reviewed from the other machine.").when(
        "SLOWLY",
        vec![Reply::Slow { text: "a long review ".repeat(40), chunks: 40, delay: Duration::from_millis(500) }],
    );
    let model = FakeModelServer::start_at(cb_ip.parse().unwrap(), behavior).await;
    let other = OtherMachine::start(&gw, &root.join("other-machine"), &program, &node_dir, &model, TOKEN).await;
    let url = format!("ws://{gw_ip}:{PORT}");

    let spawner = Recording::default();
    let rt = Arc::new(
        OpenclawRuntime::new(Arc::new(spawner.clone()), Arc::new(NoEndpoint))
            .with_gateway_tokens(Arc::new(Tokens(HashMap::from([("ivy".to_owned(), TOKEN.to_owned())]))))
            .with_env(vec![("PATH".to_owned(), path_with(&node_dir))])
            .with_timeouts(TIMEOUTS),
    );
    let agent_dir = root.join("ivy");
    std::fs::create_dir_all(&agent_dir).unwrap();
    std::fs::write(agent_dir.join("SOUL.md"), SOUL).unwrap();
    std::fs::write(agent_dir.join("AGENTS.md"), AGENTS).unwrap();
    std::fs::write(agent_dir.join("IDENTITY.md"), IDENTITY).unwrap();

    // First contact: the Gateway asks its owner to approve this computer; the turn says how.
    let (result, events) = run(&rt, turn(&url, &agent_dir, &program, "Say hello", None)).await;
    assert_eq!(result.outcome, RunOutcome::Failed, "{result:?} {events:?}");
    let message = result.message.unwrap_or_default();
    eprintln!("first contact: {message}");
    assert!(message.contains("does not know this computer yet"), "{message}");
    let request = message
        .split("openclaw devices approve ")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .expect("the command that approves this computer")
        .to_owned();
    assert!(!message.contains(TOKEN));
    assert!(model.model_requests().is_empty(), "nothing reached the model");
    other.approve(&request).await;

    // Now the persona reaches the Gateway's agent, before the turn's prompt.
    let calls_before = spawner.calls().len();
    let clock = Instant::now();
    let (result, events) = run(&rt, turn(&url, &agent_dir, &program, "Review the plan", None)).await;
    let first = clock.elapsed();
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:?}");
    assert_eq!(reply(&events), "Reviewed from the other machine.");
    let calls = spawner.calls()[calls_before..].to_vec();
    let mut set: Vec<&str> =
        calls.iter().filter(|(m, _)| m == "agents.files.set").map(|(_, p)| p["name"].as_str().unwrap()).collect();
    set.sort_unstable();
    // All four the first time in an app session (the Gateway's files may have been changed there
    // meanwhile); USER.md, absent here, is sent empty.
    assert_eq!(set, ["AGENTS.md", "IDENTITY.md", "SOUL.md", "USER.md"], "{calls:?}");
    let sent_bytes: usize =
        calls.iter().filter(|(m, _)| m == "agents.files.set").map(|(_, p)| p.to_string().len()).sum();
    // The member's own agent there (agents.create), in its own workspace under the Gateway's.
    assert!(calls.iter().any(|(m, p)| m == "agents.create" && p["name"] == "clawboo-ivy"), "{calls:?}");
    let workspace = std::fs::read_to_string(other.home.join("workspace/clawboo-ivy/SOUL.md")).unwrap();
    assert_eq!(workspace, SOUL, "the file landed in the member's own agent workspace there");
    assert!(!other.home.join("workspace/SOUL.md").exists(), "not in the Gateway's default agent's");
    let requests = model.model_requests();
    let asked = requests.iter().find(|r| r.raw_body.contains("Review the plan")).expect("the member's request");
    for mark in ["SOUL-MARK-ONE", "AGENTS-MARK", "IDENTITY-MARK"] {
        assert_eq!(count(&asked.raw_body, mark), 1, "{mark} once in the request");
    }
    assert_eq!(count(&asked.raw_body, "Review the plan"), 1, "the task text once");
    let session = events
        .iter()
        .find_map(|e| match e {
            RunEvent::SessionStarted { session_id } => Some(session_id.clone()),
            _ => None,
        })
        .expect("a session id");

    // Unchanged files are not sent again; the persona is still there, once.
    let calls_before = spawner.calls().len();
    let clock = Instant::now();
    let (result, events) = run(&rt, turn(&url, &agent_dir, &program, "And the tests?", Some(session.clone()))).await;
    let again = clock.elapsed();
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:?}");
    assert_eq!(spawner.calls().len(), calls_before, "no call when nothing changed");
    let requests = model.model_requests();
    let asked = requests.iter().find(|r| r.raw_body.contains("And the tests?")).unwrap();
    assert_eq!(count(&asked.raw_body, "SOUL-MARK-ONE"), 1);
    let warned = events.iter().any(|e| {
        matches!(e, RunEvent::Warning { message }
        if message.contains("Clawboo's tools") && message.contains("as its own agent there (clawboo-ivy"))
    });
    assert!(warned, "the activity says what does and does not apply: {events:?}");

    // A changed SOUL.md is sent again, alone, and the next request has the new one only.
    std::fs::write(agent_dir.join("SOUL.md"), "You are Ivy. SOUL-MARK-TWO.").unwrap();
    let calls_before = spawner.calls().len();
    let (result, events) = run(&rt, turn(&url, &agent_dir, &program, "One more look", Some(session.clone()))).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:?}");
    let calls = spawner.calls()[calls_before..].to_vec();
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].1["name"], "SOUL.md");
    let requests = model.model_requests();
    let asked = requests.iter().find(|r| r.raw_body.contains("One more look")).unwrap();
    assert_eq!(count(&asked.raw_body, "SOUL-MARK-TWO"), 1);
    assert!(!asked.raw_body.contains("SOUL-MARK-ONE"), "the old persona is gone");

    // No token on any command line.
    assert!(spawner.0.lock().unwrap().iter().all(|s| s.args.iter().all(|a| !a.contains(TOKEN))));

    // The Gateway dies mid-reply: the run is cut off with the reason, never left hanging.
    let pid = other.pid;
    let killed_at = Arc::new(Mutex::new(None));
    let killed = killed_at.clone();
    let kill: Box<dyn FnOnce() + Send> = Box::new(move || {
        *killed.lock().unwrap() = Some(Instant::now());
        let mut groups = vec![pid];
        groups.extend(detached_child_groups(pid));
        for group in groups {
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{group}")]).status();
        }
    });
    let (result, events) =
        run_cancelled_by(&rt, turn(&url, &agent_dir, &program, "Review it SLOWLY", Some(session)), Some(kill)).await;
    let cut = killed_at.lock().unwrap().expect("the Gateway was killed while it replied").elapsed();
    assert_eq!(result.outcome, RunOutcome::Failed, "{result:?} {events:?}");
    let message = result.message.unwrap_or_default();
    eprintln!("the Gateway killed mid-run: {message}");
    assert!(message.contains("was lost") || message.contains("cannot be reached"), "{message}");
    assert!(cut < Duration::from_secs(30), "cut off {cut:?} after the kill, not hung");

    eprintln!(
        "figures: first turn with the persona sent {first:?} ({sent_bytes} bytes of agents.files.set params, once); \
         next turn with nothing to send {again:?}; Gateway killed mid-reply, turn ended {cut:?} later"
    );
}
