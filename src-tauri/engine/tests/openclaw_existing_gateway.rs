//! An OpenClaw agent pointed at a Gateway the user already runs, with the real, pinned
//! `openclaw` CLI: the test starts that Gateway itself, as the user would (its own home and
//! config, pointed at the fake model server, `--auth token`), then runs the agent's turns
//! against it. Clawboo must start no Gateway of its own and never stop the user's; a wrong token
//! and an address nobody listens on are clear errors. Skipped when the CLI is not installed
//! (see `common::cli`); a Gateway takes ~10–30 s to start here.
#![cfg(unix)]

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clawboo_engine::agents::{Agent, RuntimeKind};
use clawboo_engine::runtimes::home::RuntimeHomes;
use clawboo_engine::runtimes::openclaw::{GatewayTokens, OpenclawRuntime};
use clawboo_engine::runtimes::process::{group_has_live_member, CommandSpec, SpawnedChild, Spawner, SystemSpawner};
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{
    ApprovalPolicy, Endpoint, EndpointSource, RunChannels, RunEvent, RunOutcome, RunResult, Runtime, TurnInput,
};
use clawboo_engine::secrets::Provider;
use clawboo_engine::ErrorCode;
use clawboo_testkit::{Behavior, FakeModelServer};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::{mpsc, watch};

const LIMIT: Duration = Duration::from_secs(240);
const TOKEN: &str = "users-own-gateway-token-5b1e";
const TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(180), grace: Duration::from_secs(3) };

/// Never asked: an existing Gateway calls its own model.
struct NoEndpoint;

impl EndpointSource for NoEndpoint {
    fn endpoint(&self, _provider: Provider, _run_id: &str) -> clawboo_engine::Result<Endpoint> {
        panic!("an agent on an existing Gateway needs no endpoint from Clawboo")
    }
}

/// Tokens by agent id, as the keychain would hand them out.
struct Tokens(HashMap<String, String>);

impl GatewayTokens for Tokens {
    fn gateway_token(&self, agent_id: &str) -> clawboo_engine::Result<Option<String>> {
        Ok(self.0.get(agent_id).cloned())
    }
}

/// Remembers every command it started.
#[derive(Default, Clone)]
struct Recording(Arc<Mutex<Vec<CommandSpec>>>);

impl Spawner for Recording {
    fn spawn(&self, spec: &CommandSpec) -> std::io::Result<SpawnedChild> {
        self.0.lock().unwrap().push(spec.clone());
        SystemSpawner.spawn(spec)
    }
}

fn path_with(dir: &Path) -> String {
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default())
}

fn proxies(base: &str) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> =
        ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"].iter().map(|k| ((*k).into(), base.into())).collect();
    env.push(("NO_PROXY".into(), "127.0.0.1,localhost".into()));
    env.push(("no_proxy".into(), "127.0.0.1,localhost".into()));
    env
}

/// The user's own Gateway, started the way its docs say; killed (its whole group and the spawn
/// broker's) when the test ends, whatever happens.
struct UsersGateway {
    child: tokio::process::Child,
    pid: u32,
    port: u16,
}

impl UsersGateway {
    async fn start(program: &Path, node_dir: &Path, home: &Path, server: &FakeModelServer) -> Self {
        let state = home.join("state");
        std::fs::create_dir_all(home.join("workspace")).unwrap();
        std::fs::create_dir_all(&state).unwrap();
        let mut config = json!({
            "models": { "providers": { "fake": {
                "baseUrl": format!("{}/v1", server.base_url()),
                "apiKey": "sk-users-own-key",
                "api": "openai-completions",
                "models": [{ "id": "some-model", "name": "some-model", "contextWindow": 128_000, "maxTokens": 8192 }],
            } } },
            "agents": { "defaults": {
                "model": { "primary": "fake/some-model" },
                "workspace": home.join("workspace"),
                "skipBootstrap": true,
                "heartbeat": { "every": "0m" },
            } },
            "logging": { "file": home.join("openclaw.log") },
            "update": { "checkOnStart": false },
            // Nothing of its own reaches out (catalog.openclaw.ai) or calls the model (dreaming).
            "plugins": { "entries": { "memory-core": { "config": { "dreaming": { "enabled": false } } } } },
        });
        config["models"]["catalogRefresh"] = json!({ "enabled": false });
        std::fs::write(state.join("openclaw.json"), config.to_string()).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut command = tokio::process::Command::new(program);
        command
            .args(["gateway", "run", "--allow-unconfigured", "--bind", "loopback", "--auth", "token"])
            .args(["--port", &port.to_string(), "--token", TOKEN])
            .env_clear()
            .env("PATH", path_with(node_dir))
            .env("HOME", home)
            .env("OPENCLAW_STATE_DIR", &state)
            .env("OPENCLAW_CONFIG_PATH", state.join("openclaw.json"))
            .env("TMPDIR", home)
            .envs(common::gateway_rig::QUIET.iter().copied())
            .envs(proxies(&server.base_url()))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .process_group(0);
        let mut child = command.spawn().expect("the user's Gateway starts");
        let pid = child.id().unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let clock = Instant::now();
        let ready = tokio::time::timeout(LIMIT, async {
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("[gateway] ready") {
                    return true;
                }
            }
            false
        })
        .await;
        assert_eq!(ready, Ok(true), "the user's Gateway became ready");
        eprintln!("the user's Gateway was ready after {:?}", clock.elapsed());
        // Keep reading, so a full pipe never blocks it.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Self { child, pid, port }
    }

    fn url(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port)
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None)) && std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok()
    }
}

impl Drop for UsersGateway {
    fn drop(&mut self) {
        let mut groups = vec![self.pid];
        groups.extend(detached_child_groups(self.pid));
        for group in groups {
            let _ = std::process::Command::new("kill").args(["-KILL", "--", &format!("-{group}")]).status();
        }
    }
}

/// The process groups of `pid`'s children that left its group (the Gateway's spawn broker).
fn detached_child_groups(pid: u32) -> Vec<u32> {
    let mut groups = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        let Some(i) = stat.rfind(')') else { continue };
        let fields: Vec<&str> = stat[i + 1..].split_whitespace().collect();
        let (ppid, pgrp): (u32, u32) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
        if ppid == pid && pgrp != pid {
            groups.push(pgrp);
        }
    }
    groups
}

fn agent(id: &str, url: String) -> Agent {
    // No provider and no model: the user's Gateway has its own.
    Agent {
        id: id.into(),
        name: "Remote".into(),
        handle: "remote".into(),
        openclaw_gateway_url: Some(url),
        ..common::agent_record(RuntimeKind::Openclaw, ApprovalPolicy::AllowAll)
    }
}

fn input(agent: Agent, workspace: &Path, program: &Path, message: &str) -> TurnInput {
    resumed(agent, workspace, program, message, None)
}

fn resumed(agent: Agent, workspace: &Path, program: &Path, message: &str, session: Option<String>) -> TurnInput {
    TurnInput {
        run_id: format!("run-{}", agent.id),
        resume_session: session,
        program: Some(program.to_owned()),
        ..common::turn_input(agent, workspace, workspace, message)
    }
}

async fn run(rt: &Arc<OpenclawRuntime>, input: TurnInput) -> (clawboo_engine::Result<RunResult>, Vec<RunEvent>) {
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let (permissions, _permissions_rx) = mpsc::unbounded_channel();
    let (_cancel, cancel) = watch::channel(false);
    let channels = RunChannels { events: events_tx, permissions, cancel };
    let result = tokio::time::timeout(LIMIT, rt.run(input, channels)).await.expect("the run ends in time");
    let mut seen = Vec::new();
    while let Ok(event) = events.try_recv() {
        seen.push(event);
    }
    (result, seen)
}

struct Setup {
    _dir: tempfile::TempDir,
    program: PathBuf,
    node_dir: PathBuf,
    root: PathBuf,
}

fn setup() -> Option<Setup> {
    let program = common::cli("openclaw")?;
    let node_dir = common::cli("node24")?.parent().unwrap().to_owned();
    let dir = common::scratch_dir();
    let root = dir.path().to_owned();
    Some(Setup { _dir: dir, program, node_dir, root })
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_runs_on_the_users_gateway_which_outlives_clawboo() {
    let Some(s) = setup() else { return };
    let server = FakeModelServer::start(Behavior::text("Hello from the user's own Gateway.")).await;
    let mut users = UsersGateway::start(&s.program, &s.node_dir, &s.root.join("users-home"), &server).await;

    let spawner = Recording::default();
    let tokens = Tokens(HashMap::from([
        ("good".to_owned(), TOKEN.to_owned()),
        ("wrong".to_owned(), "not-the-gateways-token".to_owned()),
    ]));
    let mut env = vec![("PATH".to_owned(), path_with(&s.node_dir))];
    env.extend(proxies(&server.base_url()));
    let rt = Arc::new(
        OpenclawRuntime::new(Arc::new(spawner.clone()), Arc::new(NoEndpoint))
            .with_gateway_tokens(Arc::new(tokens))
            .with_env(env)
            .with_timeouts(TIMEOUTS),
    );
    let workspace = s.root.join("agent");
    std::fs::create_dir_all(&workspace).unwrap();

    let clock = Instant::now();
    let (result, events) = run(&rt, input(agent("good", users.url()), &workspace, &s.program, "Say hello")).await;
    eprintln!("a turn on the user's Gateway: {:?}", clock.elapsed());
    let result = result.unwrap();
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:?}");
    let reply: String = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reply, "Hello from the user's own Gateway.", "{events:?}");
    assert!(server.model_requests().iter().any(|r| r.raw_body.contains("Say hello")), "the user's Gateway asked");
    assert!(
        events.iter().any(|e| matches!(e, RunEvent::Warning { message }
            if message.contains(&users.url()) && message.contains("Token usage"))),
        "the activity says what is not available: {events:?}"
    );
    assert!(!events.iter().any(|e| matches!(e, RunEvent::Usage { .. })), "no usage is made up");
    let session = events
        .iter()
        .find_map(|e| match e {
            RunEvent::SessionStarted { session_id } => Some(session_id.clone()),
            _ => None,
        })
        .expect("a session id");

    // The next message goes on in the same session on the user's Gateway.
    let asked = server.model_requests().len();
    let (result, events) =
        run(&rt, resumed(agent("good", users.url()), &workspace, &s.program, "And again", Some(session.clone()))).await;
    assert_eq!(result.unwrap().outcome, RunOutcome::Succeeded, "{events:?}");
    let requests = server.model_requests();
    let again = requests[asked..].iter().find(|r| r.raw_body.contains("And again")).expect("the resumed request");
    assert!(again.raw_body.contains("Say hello"), "the first exchange is carried");
    assert!(again.raw_body.contains("Hello from the user's own Gateway."));

    // A session that Gateway does not know is reported missing (the chat then starts afresh and
    // says so), not quietly continued in an empty one.
    let asked = server.model_requests().len();
    let gone = Some("0b6f3c52-0000-4000-8000-00000000dead".to_owned());
    let (result, events) = run(&rt, resumed(agent("good", users.url()), &workspace, &s.program, "Hello?", gone)).await;
    let result = result.unwrap();
    assert_eq!(result.outcome, RunOutcome::Failed, "{events:?}");
    assert!(result.session_missing, "{result:?}");
    assert_eq!(server.model_requests().len(), asked, "nothing was sent to the model");

    // Clawboo started the bridge only (a bridge per turn, and the first turn's calls that make
    // the agent's own agent there and set its rules): no Gateway of its own, and the token never
    // on a command line or in a file of the agent's.
    let started = spawner.0.lock().unwrap().clone();
    let args: Vec<&Vec<String>> = started.iter().map(|s| &s.args).collect();
    let bridges = started.iter().filter(|spec| spec.args == ["acp", "--no-prefix-cwd"]).count();
    assert_eq!(bridges, 3, "{args:?}");
    let calls: Vec<&str> = started
        .iter()
        .filter(|spec| spec.args != ["acp", "--no-prefix-cwd"])
        .map(|spec| match spec.args.as_slice() {
            [gateway, call, method, ..] if gateway == "gateway" && call == "call" => method.as_str(),
            other => panic!("Clawboo started {other:?}"),
        })
        .collect();
    assert_eq!(calls, ["agents.create", "config.get", "config.patch"], "{args:?}");
    assert!(started.iter().all(|spec| spec.args.iter().all(|a| !a.contains(TOKEN))));
    assert!(rt.gateway_pid(&RuntimeHomes::for_agent_dir(&workspace).home(RuntimeKind::Openclaw).unwrap()).is_none());
    for file in walk(&workspace) {
        let bytes = std::fs::read(&file).unwrap();
        assert!(!bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()), "{} holds the token", file.display());
    }

    // A wrong token: a clear error that says what to do.
    let (result, events) = run(&rt, input(agent("wrong", users.url()), &workspace, &s.program, "Hi")).await;
    let result = result.unwrap();
    assert_eq!(result.outcome, RunOutcome::Failed, "{events:?}");
    let message = result.message.unwrap();
    assert!(message.contains("refused the token") && message.contains("agent's profile"), "{message}");
    let said = format!("{message} {events:?}");
    assert!(!said.contains("not-the-gateways-token") && !said.contains(TOKEN), "no token in what the user sees");

    // No token saved at all: refused before anything starts.
    let (result, _) = run(&rt, input(agent("no-token", users.url()), &workspace, &s.program, "Hi")).await;
    let err = result.unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("No token is saved"), "{err}");

    // The user's Gateway outlives the runs, the runtime's shutdown and the runtime itself.
    assert!(users.alive(), "the user's Gateway is still running after the runs");
    rt.shutdown();
    drop(rt);
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(users.alive(), "Clawboo's shutdown leaves the user's Gateway alone");
    assert!(group_has_live_member(users.pid));
    // Only `gateway call`s (the agent's own agent there), never a Gateway started.
    let gateways = spawner.0.lock().unwrap().iter().filter(|s| s.args[0] == "gateway" && s.args[1] != "call").count();
    assert_eq!(gateways, 0);
}

#[tokio::test]
async fn an_address_nobody_listens_on_is_a_clear_error_before_any_bridge_starts() {
    let Some(s) = setup() else { return };
    let spawner = Recording::default();
    let tokens = Tokens(HashMap::from([("good".to_owned(), TOKEN.to_owned())]));
    let rt = Arc::new(
        OpenclawRuntime::new(Arc::new(spawner.clone()), Arc::new(NoEndpoint))
            .with_gateway_tokens(Arc::new(tokens))
            .with_env(vec![("PATH".to_owned(), path_with(&s.node_dir))]),
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let workspace = s.root.join("agent");
    std::fs::create_dir_all(&workspace).unwrap();
    let url = format!("ws://127.0.0.1:{port}");
    let clock = Instant::now();
    let (result, _) = run(&rt, input(agent("good", url.clone()), &workspace, &s.program, "Hi")).await;
    eprintln!("an unreachable Gateway was reported after {:?}", clock.elapsed());
    let err = result.unwrap_err();
    assert_eq!(err.code(), ErrorCode::RuntimeFailed);
    assert!(err.to_string().contains(&url) && err.to_string().contains("cannot be reached"), "{err}");
    assert!(spawner.0.lock().unwrap().is_empty(), "nothing was started");

    // A stored URL that is no longer acceptable (plain ws:// to a public host) is refused too.
    let (result, _) =
        run(&rt, input(agent("good", "ws://203.0.113.7:18789".into()), &workspace, &s.program, "Hi")).await;
    assert_eq!(result.unwrap_err().code(), ErrorCode::InvalidInput);
    assert!(spawner.0.lock().unwrap().is_empty());
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
