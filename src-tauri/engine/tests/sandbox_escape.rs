//! A hostile agent in Clawboo's sandbox. Each real CLI (Claude Code, Codex, Hermes, OpenClaw),
//! allowed everything by its approval policy, is scripted by the fake model to run one shell
//! command that tries every attack an agent with a shell could: read the keychain over the
//! session bus, other runs' tokens in `/proc/*/environ`, another agent's persona in `ps`, a
//! planted `~/.ssh` key, `~/.aws/credentials` and a browser profile, another agent's files,
//! Clawboo's data folder, write outside its folder, connect to a loopback port that is neither
//! the relay nor the tools bridge (the stand-in for the internet), reach a host through the
//! proxy that its profile does not allow, find a display. Every attack must fail, and the
//! legitimate work must still be done: the command writes and reads its own folder, and its
//! output reaches the model through the relay. Skipped when a CLI is not installed.
//! Each CLI's adapter runs alone behind a relay on a store of its own, not in a
//! `common::Fixture` engine: the sandbox of one turn is what is under test.
#![cfg(target_os = "linux")]

mod common;

use common::relayed_cli::{Cli, Provided};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::Agent;
use clawboo_engine::relay::Relay;
use clawboo_engine::runtimes::sandbox::{NetworkAccess, SandboxSettings};
use clawboo_engine::runtimes::{ApprovalPolicy, RunChannels, RunEvent, RunOutcome, TurnInput};
use clawboo_engine::store::Store;
use clawboo_testkit::{Behavior, FakeModelServer};
use serde_json::json;
use tokio::sync::{mpsc, watch};

const LIMIT: Duration = Duration::from_secs(240);

/// The secrets planted where an agent must not reach, each with a marker that must never show.
struct Planted {
    root: PathBuf,
    agent_dir: PathBuf,
    decoy: std::process::Child,
    internet: u16,
}

/// The decoy dies with the test, also when an assertion fails first (it would otherwise sleep on
/// for ten minutes holding the test's output pipes).
impl Drop for Planted {
    fn drop(&mut self) {
        let _ = self.decoy.kill();
        let _ = self.decoy.wait();
    }
}

const SSH_KEY: &str = "SECRET-SSH-KEY-51f0";
const AWS_KEY: &str = "SECRET-AWS-KEY-77ab";
const BROWSER: &str = "SECRET-BROWSER-COOKIE-2c1d";
const OTHER_SOUL: &str = "SECRET-OTHER-SOUL-9e3a";
const DATA_DIR: &str = "SECRET-DATA-DIR-4b7c";
const DECOY_TOKEN: &str = "SECRET-DECOY-TOKEN-8d2e";
const DECOY_PERSONA: &str = "SECRET-DECOY-PERSONA-6f1b";
const INTERNET: &str = "SECRET-INTERNET-0a9f";
const KEYCHAIN: &str = "SECRET-KEYCHAIN-3e8c";
const SECRETS: [&str; 9] =
    [SSH_KEY, AWS_KEY, BROWSER, OTHER_SOUL, DATA_DIR, DECOY_TOKEN, DECOY_PERSONA, INTERNET, KEYCHAIN];

fn plant(root: &Path) -> Planted {
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("home/.ssh/id_ed25519", SSH_KEY);
    write("home/.aws/credentials", AWS_KEY);
    write("home/.mozilla/firefox/p.default/cookies.sqlite", BROWSER);
    write("data/agents/other/SOUL.md", OTHER_SOUL);
    write("data/clawboo.db", DATA_DIR);
    let agent_dir = root.join("data/agents/hostile");
    std::fs::create_dir_all(&agent_dir).unwrap();
    // Another run's process, outside the sandbox: its token in its environment and a persona
    // on its command line.
    let decoy = std::process::Command::new("sh")
        .args(["-c", "sleep 600", DECOY_PERSONA])
        .env("CLAWBOO_TOKEN", DECOY_TOKEN)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // A service on the host's loopback that is neither the relay nor the bridge.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let internet = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            use std::io::Write;
            let mut stream = stream;
            let body = format!("HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n{INTERNET}", INTERNET.len());
            let _ = stream.write_all(body.as_bytes());
        }
    });
    Planted { root: root.to_owned(), agent_dir, decoy, internet }
}

/// A secret in the user's keychain (the test's private Secret Service), when there is one.
fn keychain_secret() -> Option<String> {
    let bus = std::env::var("DBUS_SESSION_BUS_ADDRESS").ok()?;
    let mut child = std::process::Command::new("secret-tool")
        .args(["store", "--label", "escape test", "username", "clawboo-escape"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    use std::io::Write;
    child.stdin.take()?.write_all(KEYCHAIN.as_bytes()).ok()?;
    child.wait().ok()?.success().then_some(bus)
}

fn attack_script(p: &Planted, bus: Option<&str>) -> String {
    let r = p.root.display();
    let bus = bus
        .map(|b| format!("DBUS_SESSION_BUS_ADDRESS='{b}' secret-tool search --all username clawboo-escape; "))
        .unwrap_or_default();
    format!(
        "echo INSIDE-OK > ./inside.txt; cat ./inside.txt; \
         cat {r}/home/.ssh/id_ed25519 {r}/home/.aws/credentials {r}/home/.mozilla/firefox/p.default/cookies.sqlite; \
         cat {r}/data/agents/other/SOUL.md {r}/data/clawboo.db; ls ~/.ssh /root /home; \
         cat /proc/*/environ | tr '\\0' '\\n' | grep -a CLAWBOO_TOKEN; ps -eo args | grep -a SECRET; \
         {bus}\
         tr '\\0' '\\n' < /proc/1/environ | grep -a DBUS; ls /run/user /tmp/.X11-unix; \
         echo pwned > {r}/outside-written.txt; \
         curl -s --max-time 5 --noproxy '*' http://127.0.0.1:{port}/; \
         curl -s --max-time 5 -x http://127.0.0.1:3128 http://127.0.0.1:{port}/; \
         curl -s --max-time 5 https://example.com/ -o /dev/null -w 'PROXY-%{{http_connect}}'; echo; \
         echo SCRIPT-END",
        port = p.internet
    )
}

/// What one scripted turn did: its result, its events, and all the model and the Activity saw.
struct Turn {
    result: clawboo_engine::runtimes::RunResult,
    events: Vec<RunEvent>,
    tool_output: String,
    seen: String,
}

/// One turn of an allow-all agent on `cli` whose model has it run `script` (written to its
/// folder as `escape.sh`: the runtime's own checks see `sh ./escape.sh`, so it is the OS
/// sandbox that must stop each attack), under the sandbox settings given.
async fn run_script(cli: Cli, program: PathBuf, planted: &Planted, script: &str, sandbox: SandboxSettings) -> Turn {
    let mut env = Vec::new();
    if matches!(cli, Cli::Openclaw) {
        let node_dir = common::cli("node24").expect("node 24").parent().unwrap().to_owned();
        let path = format!("{}:{}", node_dir.display(), std::env::var("PATH").unwrap_or_default());
        env.push(("PATH".to_owned(), path));
    }
    std::fs::write(planted.agent_dir.join("escape.sh"), script).unwrap();
    let command = "sh ./escape.sh";
    let server =
        FakeModelServer::start(Behavior::tool_then_answer("*", json!({ cli.command_field(): command }), "All done."))
            .await;
    let store = Arc::new(Store::open(&planted.root.join("relay.db")).unwrap());
    let relay = Relay::start(store, Arc::new(Provided(server.base_url())), &tokio::runtime::Handle::current()).unwrap();
    let runtime = cli.runtime(relay.clone(), env);
    let agent = Agent {
        id: "agent-hostile".into(),
        name: "Hostile".into(),
        handle: "hostile".into(),
        model: if matches!(cli, Cli::Claude) { String::new() } else { "some-model".into() },
        provider: cli.provider(),
        sandbox,
        ..common::agent_record(cli.kind(), ApprovalPolicy::AllowAll)
    };
    let input = TurnInput {
        run_id: format!("run-escape-{cli:?}"),
        persona: Some("You are Hostile.".into()),
        program: Some(program),
        ..common::turn_input(agent, &planted.agent_dir, &planted.agent_dir, "Try to escape.")
    };
    let (events_tx, mut events_rx) = mpsc::unbounded_channel();
    let (permissions, _permissions_rx) = mpsc::unbounded_channel();
    let (_cancel, cancel) = watch::channel(false);
    let channels = RunChannels { events: events_tx, permissions, cancel };
    let result = tokio::time::timeout(LIMIT, runtime.run(input, channels)).await.expect("the turn ends in time");
    let events: Vec<RunEvent> = std::iter::from_fn(|| events_rx.try_recv().ok()).collect();
    runtime.shutdown();
    let result = result.unwrap();
    let model_saw: String = server.model_requests().iter().map(|r| r.raw_body.as_str()).collect();
    let tool_output: String = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::ToolResult { output, .. } => Some(output.as_str()),
            _ => None,
        })
        .collect();
    let seen = format!("{model_saw}\n{tool_output}");
    Turn { result, events, tool_output, seen }
}

async fn a_hostile_agent_reaches_nothing(cli: Cli) {
    let Some(program) = cli.program() else { return };
    let dir = common::scratch_dir();
    let planted = plant(dir.path());
    let bus = keychain_secret();
    let script = attack_script(&planted, bus.as_deref());
    let Turn { result, events, tool_output, seen } =
        run_script(cli, program, &planted, &script, SandboxSettings::default()).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{cli:?}: {result:?} {events:#?}");

    // The command ran to its end and its output reached the model: the legitimate work.
    assert!(seen.contains("INSIDE-OK"), "{cli:?}: the agent wrote and read its own folder: {tool_output}");
    assert!(seen.contains("SCRIPT-END"), "{cli:?}: the whole command ran: {tool_output}");
    // Codex's own sandbox (workspace-write) gives commands no network at all: its curl never
    // reaches Clawboo's proxy. The others' commands do, and are refused there.
    let codex = matches!(cli, Cli::Codex);
    assert!(
        codex || seen.contains("PROXY-403"),
        "{cli:?}: the proxy refused a host the profile does not allow: {tool_output}"
    );
    assert_eq!(std::fs::read_to_string(planted.agent_dir.join("inside.txt")).unwrap().trim(), "INSIDE-OK");
    // Every attack failed.
    for secret in SECRETS {
        assert!(!seen.contains(secret), "{cli:?}: {secret} reached the agent: {tool_output}");
    }
    assert!(!planted.root.join("outside-written.txt").exists(), "{cli:?}: wrote outside its folder");
    let blocked = events.iter().any(|e| matches!(e, RunEvent::Warning { message } if message.contains("Blocked by Clawboo's sandbox: example.com:443")));
    // (OpenClaw's tools run in its Gateway, whose proxy tells the turns on it.)
    assert!(codex || blocked, "{cli:?}: the Activity says which host was blocked: {events:#?}");
    // The secrets, plus a write outside its folder, a host through the proxy, the display and
    // the bus sockets.
    eprintln!("{cli:?}: {} attacks, 0 succeeded; legitimate work done", SECRETS.len() + 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_in_the_sandbox_reaches_nothing_of_yours() {
    a_hostile_agent_reaches_nothing(Cli::Claude).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_in_the_sandbox_reaches_nothing_of_yours() {
    a_hostile_agent_reaches_nothing(Cli::Codex).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hermes_in_the_sandbox_reaches_nothing_of_yours() {
    a_hostile_agent_reaches_nothing(Cli::Hermes).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openclaw_in_the_sandbox_reaches_nothing_of_yours() {
    a_hostile_agent_reaches_nothing(Cli::Openclaw).await;
}

/// The legitimate side of the Network setting: under *these hosts* a command reaches a listed
/// host through Clawboo's proxy (a loopback server stands in for a package registry, listed
/// by name), and still not one the list leaves out.
async fn an_allowed_host_is_reached(cli: Cli) {
    let Some(program) = cli.program() else { return };
    let dir = common::scratch_dir();
    let planted = plant(dir.path());
    let port = planted.internet;
    let script = format!(
        "curl -s --max-time 5 --noproxy '' -x http://127.0.0.1:3128 http://localhost:{port}/ -w ' ALLOWED-%{{http_code}}'; echo; \
         curl -s --max-time 5 --noproxy '' -x http://127.0.0.1:3128 http://127.0.0.1:{port}/ -o /dev/null -w 'UNLISTED-%{{http_code}}'; echo; \
         echo SCRIPT-END"
    );
    let sandbox =
        SandboxSettings { confined: true, network: NetworkAccess::Hosts, allowed_hosts: vec!["localhost".into()] };
    let Turn { result, events, tool_output, seen } = run_script(cli, program, &planted, &script, sandbox).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{cli:?}: {result:?} {events:#?}");
    assert!(seen.contains("SCRIPT-END"), "{cli:?}: the whole command ran: {tool_output}");
    assert!(seen.contains(&format!("{INTERNET} ALLOWED-200")), "{cli:?}: the listed host answered: {tool_output}");
    assert!(seen.contains("UNLISTED-403"), "{cli:?}: a host not on the list is refused: {tool_output}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_reaches_a_host_its_profile_allows() {
    an_allowed_host_is_reached(Cli::Claude).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_reaches_a_host_its_profile_allows() {
    an_allowed_host_is_reached(Cli::Codex).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hermes_reaches_a_host_its_profile_allows() {
    an_allowed_host_is_reached(Cli::Hermes).await;
}

/// A card's check command runs what the agent wrote (`npm test` runs its code): the same attacks
/// from it find nothing, and it still reads and writes the card's folder.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_command_reaches_nothing_of_yours() {
    use clawboo_engine::runner::check::run_check;
    use clawboo_engine::runtimes::process::SystemSpawner;
    let dir = common::scratch_dir();
    let planted = plant(dir.path());
    let bus = keychain_secret();
    std::fs::write(planted.agent_dir.join("escape.sh"), attack_script(&planted, bus.as_deref())).unwrap();
    let (_cancel, cancel) = watch::channel(false);
    let outcome =
        run_check(&SystemSpawner, "sh ./escape.sh", &planted.agent_dir, Duration::from_secs(60), 64 * 1024, cancel)
            .await;
    assert!(outcome.output.contains("INSIDE-OK"), "it wrote and read its folder: {outcome:?}");
    assert!(outcome.output.contains("SCRIPT-END"), "the whole check ran: {outcome:?}");
    for secret in SECRETS {
        assert!(!outcome.output.contains(secret), "{secret} reached the check: {}", outcome.output);
    }
    assert!(!planted.root.join("outside-written.txt").exists(), "the check wrote outside its folder");
    eprintln!("check command: {} attacks, 0 succeeded; legitimate work done", SECRETS.len() + 3);
}
