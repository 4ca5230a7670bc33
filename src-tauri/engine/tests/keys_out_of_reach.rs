//! No key within an agent's reach: each real CLI runs behind the model relay, against the fake
//! model server, and its agent runs `env` and `cat`s every file in its homes. The key appears
//! nowhere the agent (or the model) can see: not in the command's output, not in any request
//! body, not in any file under the agent's folder. The CLI holds only its run's token, and the
//! fake provider receives the real key, added by the relay. Skipped when a CLI is not installed
//! (see `common::cli`).
//! Each CLI's adapter runs alone behind a relay on a store of its own, not in a
//! `common::Fixture` engine: the agent's view of one turn is what is under test.
#![cfg(unix)]

mod common;

use common::relayed_cli::{Cli, Provided, REAL_KEY};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::Agent;
use clawboo_engine::relay::Relay;
use clawboo_engine::runtimes::{ApprovalPolicy, RunChannels, RunEvent, RunOutcome, TurnInput};
use clawboo_engine::store::Store;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer};
use serde_json::json;
use tokio::sync::{mpsc, watch};

const LIMIT: Duration = Duration::from_secs(240);
const TOKEN_PREFIX: &str = "clawboo-relay-";

/// Every file under `dir` whose bytes contain `needle`.
fn files_containing(dir: &Path, needle: &[u8]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() {
                let bytes = std::fs::read(&path).unwrap_or_default();
                if bytes.windows(needle.len()).any(|w| w == needle) {
                    found.push(path);
                }
            }
        }
    }
    found
}

async fn the_agent_sees_no_key(cli: Cli) {
    let Some(program) = cli.program() else { return };
    let mut env = Vec::new();
    if matches!(cli, Cli::Openclaw) {
        let node_dir = common::cli("node24").expect("node 24").parent().unwrap().to_owned();
        let path = format!("{}:{}", node_dir.display(), std::env::var("PATH").unwrap_or_default());
        env.push(("PATH".to_owned(), path));
    }
    let dir = common::scratch_dir();
    // As in the app: the agent's folder is its workspace, and the homes sit inside it.
    let agent_dir = dir.path().join("agent");
    std::fs::create_dir_all(&agent_dir).unwrap();
    let homes = agent_dir.join(".clawboo");
    let command = format!(
        "env; echo ENV-END; tr '\\0' '\\n' < /proc/$PPID/environ 2>/dev/null; echo PARENT-END; find '{}' -type f -exec cat {{}} + 2>/dev/null | tr -c '[:print:]\\n' '.' | head -c 200000; \
         echo CAT-END",
        homes.display()
    );
    let server =
        FakeModelServer::start(Behavior::tool_then_answer("*", json!({ cli.command_field(): command }), "All done."))
            .await;
    let store = Arc::new(Store::open(&dir.path().join("clawboo.db")).unwrap());
    let relay = Relay::start(store, Arc::new(Provided(server.base_url())), &tokio::runtime::Handle::current()).unwrap();
    // Anything that tries another host lands on the fake server, never the internet.
    for name in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
        env.push((name.to_owned(), server.base_url()));
    }
    env.push(("NO_PROXY".into(), "127.0.0.1,localhost".into()));
    env.push(("no_proxy".into(), "127.0.0.1,localhost".into()));
    let runtime = cli.runtime(relay.clone(), env);

    let run_id = format!("run-keys-{cli:?}");
    let agent = Agent {
        id: "agent-keys".into(),
        name: "Keys".into(),
        handle: "keys".into(),
        model: if matches!(cli, Cli::Claude) { String::new() } else { "some-model".into() },
        provider: cli.provider(),
        ..common::agent_record(cli.kind(), ApprovalPolicy::AllowAll)
    };
    let input = TurnInput {
        run_id: run_id.clone(),
        persona: Some("You are Keys. SOUL-MARKER-k3y5".into()),
        program: Some(program),
        ..common::turn_input(agent, &agent_dir, &agent_dir, "Show me your environment and your files.")
    };
    let (events_tx, mut events_rx) = mpsc::unbounded_channel();
    let (permissions, _permissions_rx) = mpsc::unbounded_channel();
    let (_cancel, cancel) = watch::channel(false);
    let channels = RunChannels { events: events_tx, permissions, cancel };
    let result =
        tokio::time::timeout(LIMIT, runtime.run(input, channels)).await.expect("the turn ends in time").unwrap();
    let events: Vec<RunEvent> = std::iter::from_fn(|| events_rx.try_recv().ok()).collect();
    runtime.shutdown();
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{cli:?}: {result:?} {events:#?}");

    // The command ran, and what it printed holds the token, not the key: in the tool's result
    // as the CLI reported it, and in the next request, where the model reads it (CLIs shorten
    // long output differently in each place).
    let output: String = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::ToolResult { output, .. } => Some(output.as_str()),
            _ => None,
        })
        .collect();
    assert!(!output.contains(REAL_KEY), "{cli:?}: the key reached the agent's tool output");
    let requests = server.model_requests();
    assert!(requests.len() >= 2, "{cli:?}: the tool call and the answer");
    let model_saw: String = requests.iter().map(|r| r.raw_body.as_str()).collect();
    assert!(model_saw.contains("ENV-END"), "{cli:?}: the command ran and its output reached the model: {events:#?}");
    if let Some(var) = cli.token_var() {
        // Hermes masks secret-looking values in tool output ("clawbo...1842"): its first
        // characters still show it is the token.
        assert!(model_saw.contains(&format!("{var}={}", &TOKEN_PREFIX[..6])), "{cli:?}: the CLI holds a token");
    }
    // Not even the first characters of the key (what a masked value would show).
    assert!(!model_saw.contains(&REAL_KEY[..6]) && !output.contains(&REAL_KEY[..6]), "{cli:?}: part of the key showed");

    // The model saw no key; the provider got the real key.
    for request in server.requests() {
        assert!(!request.raw_body.contains(REAL_KEY), "{cli:?}: the key reached the model's context");
        for (name, value) in &request.headers {
            assert!(!value.contains(TOKEN_PREFIX), "{cli:?}: the token reached the provider in {name}");
        }
    }
    for request in &requests {
        let auth = match cli {
            Cli::Claude => request.header("x-api-key").map(str::to_owned),
            _ => request.header("authorization").map(str::to_owned),
        };
        let expected = match cli {
            Cli::Claude => REAL_KEY.to_owned(),
            _ => format!("Bearer {REAL_KEY}"),
        };
        assert_eq!(auth.as_deref(), Some(expected.as_str()), "{cli:?}: the relay added the real key");
    }

    // No file the agent can reach holds the key, in its homes or anywhere in its folder.
    let leaked = files_containing(&agent_dir, REAL_KEY.as_bytes());
    assert!(leaked.is_empty(), "{cli:?}: the key is in {leaked:?}");

    // The relay recorded exactly what the model received.
    let recorded = wait_for("the relay's records", Duration::from_secs(10), || {
        let recorded = relay.requests(&run_id).unwrap();
        (recorded.iter().filter(|r| r.method == "POST" && r.usage.is_some()).count() >= requests.len())
            .then_some(recorded)
    });
    eprintln!(
        "{cli:?}: tool output {} chars, {} model requests, {} recorded by the relay",
        output.len(),
        requests.len(),
        recorded.len()
    );
    for request in &requests {
        assert!(
            recorded.iter().any(|r| r.body.as_deref() == Some(request.raw_body.as_str())),
            "{cli:?}: a model request was not recorded as received"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_sees_no_key() {
    the_agent_sees_no_key(Cli::Claude).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_sees_no_key() {
    the_agent_sees_no_key(Cli::Codex).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hermes_sees_no_key() {
    the_agent_sees_no_key(Cli::Hermes).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openclaw_sees_no_key() {
    the_agent_sees_no_key(Cli::Openclaw).await;
}
