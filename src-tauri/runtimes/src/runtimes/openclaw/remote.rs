//! Turns on a Gateway the user already runs (on this machine or another), set as the agent's
//! `openclaw_gateway_url` with its token in the keychain. Clawboo neither starts nor stops that
//! Gateway: each turn only runs the `openclaw acp` bridge against it.
//!
//! The token reaches the bridge in its environment (`OPENCLAW_GATEWAY_URL` +
//! `OPENCLAW_GATEWAY_TOKEN`), never on its command line (`--token` shows in process lists) and
//! never on disk (`--token-file` would leave it in a file for as long as the agent exists). The
//! bridge runs no tools (the Gateway does, in its own processes), so nothing an agent runs
//! inherits that environment. OpenClaw 2026.9.6 takes the environment's token only together
//! with the environment's URL: with `--url` it ignores `OPENCLAW_GATEWAY_TOKEN`.
//!
//! The agent's persona files reach that Gateway's agent through its protocol before the turn
//! (see [`remote_files`]). From another machine, the Gateway first asks its owner to approve this
//! computer as a device (once); the turn then fails with the command that approves it.
//!
//! What is not available here (a note in the activity says so each turn): OpenClaw's transcript
//! lives on that Gateway's machine, so the turn's token usage and the model's error details
//! cannot be read back; Clawboo's tools do not reach it; and the model and tool rules are that
//! Gateway's own, so the agent's approval policy governs only the questions that Gateway relays
//! (exec approvals), not what its configuration already allows.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::config::Layout;
use super::gateway_node::{Hello, LiveSession};
use super::remote_tools::{self, NodePlace};
use super::{node, remote_files, OpenclawAcp, OpenclawRuntime, QUIET_ENV};
use crate::agents::gateway::normalise_gateway_url;
use crate::agents::RuntimeKind;
use crate::error::{Error, Result};
use crate::runtimes::home::INHERITED_ENV;
use crate::runtimes::process::CommandSpec;
use crate::runtimes::supervise::supervise;
use crate::runtimes::{RunChannels, RunEvent, RunOutcome, RunResult, TurnInput};

/// How long the Gateway's port may take to accept a connection before the turn gives up.
const REACH_WITHIN: Duration = Duration::from_secs(5);

/// Where a Gateway's token comes from (the keychain, in the app).
pub trait GatewayTokens: Send + Sync {
    fn gateway_token(&self, agent_id: &str) -> Result<Option<String>>;
}

impl GatewayTokens for crate::secrets::Secrets {
    fn gateway_token(&self, agent_id: &str) -> Result<Option<String>> {
        crate::secrets::Secrets::gateway_token(self, agent_id)
    }
}

/// The bridge's own small state (its config and logs), apart from the state of the Gateway
/// Clawboo runs for the agent when no existing one is set.
pub fn bridge_layout(openclaw_home: &Path) -> Layout {
    Layout::new(&openclaw_home.join("existing-gateway"))
}

impl OpenclawRuntime {
    pub(super) async fn run_on_existing_gateway(
        &self,
        input: TurnInput,
        channels: RunChannels,
        url: &str,
    ) -> Result<RunResult> {
        let program = input
            .program
            .clone()
            .ok_or_else(|| Error::RuntimeNotFound("OpenClaw (`openclaw`) is not installed or was not found.".into()))?;
        // The stored URL is input like any other: checked again before a token is sent to it.
        let url = normalise_gateway_url(url)?;
        let token = match &self.gateway_tokens {
            Some(tokens) => tokens.gateway_token(&input.agent.id)?,
            None => None,
        }
        .ok_or_else(|| {
            Error::InvalidInput(format!(
                "No token is saved for the OpenClaw Gateway at {url}. Enter it in the agent's profile \
                 (Gateway: An existing Gateway)."
            ))
        })?;
        let openclaw_home = input.homes.home(RuntimeKind::Openclaw)?;
        // A Gateway Clawboo started for this agent before it was pointed elsewhere is not needed.
        self.gateways.stop(&openclaw_home);
        let layout = bridge_layout(&openclaw_home);
        for dir in [&layout.state, &layout.home] {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("Cannot create {}", dir.display()), e))?;
        }
        let config = json!({ "logging": { "file": layout.log }, "update": { "checkOnStart": false } });
        crate::agents::atomic_write(&layout.config, config.to_string().as_bytes())?;

        let path = |p: &Path| p.to_string_lossy().into_owned();
        let mut env: Vec<(String, String)> = vec![
            ("HOME".into(), path(&layout.home)),
            ("OPENCLAW_STATE_DIR".into(), path(&layout.state)),
            ("OPENCLAW_CONFIG_PATH".into(), path(&layout.config)),
            ("TMPDIR".into(), path(&input.homes.tmp()?)),
        ];
        env.extend(QUIET_ENV.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        env.extend(self.env.iter().cloned());
        // Last, so nothing inherited or configured can redirect the token.
        env.push(("OPENCLAW_GATEWAY_URL".into(), url.clone()));
        env.push(("OPENCLAW_GATEWAY_TOKEN".into(), token.clone()));
        // The remote Gateway is reached through the sandbox's proxy (or its loopback port).
        let mut confine = super::super::sandbox::turn_confinement(&input, RuntimeKind::Openclaw, &[&url])?;
        // A Gateway on another machine runs the agent's tools there; the bridge only speaks to
        // it (over a WebSocket, which no proxy variable steers), so it keeps the host's network.
        if let (Some(c), None) = (confine.as_mut(), super::super::sandbox::loopback_port(&url)) {
            c.share_host_network = true;
        }
        let bridge = CommandSpec {
            program,
            args: vec!["acp".into(), "--no-prefix-cwd".into()],
            inherit_env: INHERITED_ENV.iter().map(|s| (*s).to_owned()).collect(),
            cwd: input.workspace.clone(),
            piped_stdin: true,
            env,
            confine,
        };

        let path_var = bridge.env.iter().rev().find(|(k, _)| k == "PATH").map(|(_, v)| v.into());
        if let Some(problem) = node::node_problem(path_var.or_else(|| std::env::var_os("PATH")).as_deref()).await {
            return Err(Error::RuntimeFailed(problem));
        }
        reachable(&url).await?;
        // The persona first, through the Gateway's own protocol, so this very turn has it.
        let place = remote_files::Place { gateway: &url, bridge_state: &layout.state, agent: &input.agent.id };
        let synced =
            remote_files::sync(self.spawner.as_ref(), &bridge, &place, input.homes.agent_dir(), &self.remote_personas)
                .await;
        match synced {
            // A computer the Gateway has never seen has no device identity yet, and a call
            // without one is let in with no rights (OpenClaw 2026.9.6). The bridge makes the
            // identity and asks the Gateway's owner to pair it: its failure says what to do.
            Err(e) if e.to_string().contains("missing scope") => channels.emit(RunEvent::Warning {
                message: format!("The persona files could not be sent to the OpenClaw Gateway at {url}: {e}"),
            }),
            Err(e) => return Ok(explain_failure(RunResult::failed(e.to_string()), &url)),
            Ok(_) => {}
        }
        // Clawboo's tools through a node connection of this turn's own, before the bridge
        // starts, so the turn's agent run lists them.
        let mut channels = channels;
        let live = LiveSession::default();
        let place = NodePlace { url: &url, token: &token, bridge_state: &layout.state, bridge: &bridge };
        let mut node = None;
        let mut relay = None;
        if let Some(grant) = input.tools.as_ref().filter(|g| !g.specs.is_empty()) {
            let opened = match remote_tools::gateway_agent(self.spawner.as_ref(), &place).await {
                Ok(agent) => {
                    relay = Some(remote_tools::watch_session(&mut channels, &input, agent, live.clone()));
                    remote_tools::open(self.spawner.as_ref(), &place, grant, live).await
                }
                Err(why) => Err(why),
            };
            match opened {
                Ok(opened) => node = Some(opened),
                Err(why) => channels.emit(RunEvent::Warning {
                    message: format!("Clawboo's tools could not be offered on the OpenClaw Gateway at {url}: {why}"),
                }),
            }
        }
        channels.emit(RunEvent::Warning { message: what_applies(&url, node.as_ref().map(|n| &n.hello)) });
        let protocol = OpenclawAcp::new(
            input.workspace.to_string_lossy().into_owned(),
            input.text_to_send(),
            input.resume_session.clone(),
            None,
            None,
        )
        .on_existing_gateway();
        let result =
            supervise(self.spawner.as_ref(), &bridge, Box::new(protocol), channels, input.approval, self.timeouts)
                .await;
        // The tools end with the turn; every event is through before its result.
        drop(node);
        if let Some(relay) = relay {
            let _ = relay.await;
        }
        Ok(explain_failure(result?, &url))
    }
}

/// Fails fast, with the fix, when nothing listens at the Gateway's address (the bridge would
/// take ~6–13 s to say so).
async fn reachable(url: &str) -> Result<()> {
    let parsed = reqwest::Url::parse(url).map_err(|e| Error::InvalidInput(format!("{url}: {e}")))?;
    let host = parsed.host_str().unwrap_or_default().trim_start_matches('[').trim_end_matches(']').to_owned();
    let port = parsed.port_or_known_default().unwrap_or(80);
    let unreachable = |why: String| {
        Error::RuntimeFailed(format!(
            "The OpenClaw Gateway at {url} cannot be reached ({why}). Start it (openclaw gateway run) on that \
             machine, or fix the address in the agent's profile."
        ))
    };
    match tokio::time::timeout(REACH_WITHIN, tokio::net::TcpStream::connect((host.as_str(), port))).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(unreachable(e.to_string())),
        Err(_) => Err(unreachable(format!("no answer within {} s", REACH_WITHIN.as_secs()))),
    }
}

/// What the activity says every turn on a Gateway the user runs: with `node`, Clawboo's tools
/// reached it through this turn's node connection.
pub fn what_applies(url: &str, node: Option<&Hello>) -> String {
    let Some(hello) = node else { return what_does_not_apply(url) };
    format!(
        "This agent runs on the OpenClaw Gateway at {url} (OpenClaw {}, {} ms away), which Clawboo neither starts \
         nor stops. Its SOUL.md, AGENTS.md, IDENTITY.md and USER.md are sent to that Gateway's agent when they \
         change, and Clawboo's tools reach it through this computer's node connection for this turn only. What does \
         not apply there: the user's connectors, and its model and tool rules, which are that Gateway's own; \
         Clawboo's approval policy applies only to the questions it asks. Token usage and model error details stay \
         on that Gateway.",
        hello.version,
        hello.latency.as_millis()
    )
}

/// What the activity says every turn on a Gateway the user runs, without Clawboo's tools.
pub fn what_does_not_apply(url: &str) -> String {
    format!(
        "This agent runs on the OpenClaw Gateway at {url}, which Clawboo neither starts nor stops. Its SOUL.md, \
         AGENTS.md, IDENTITY.md and USER.md are sent to that Gateway's agent when they change. What does not apply \
         there: Clawboo's tools (hand-offs, the team room, memory, the Board, questions), and its model and tool \
         rules, which are that Gateway's own; Clawboo's approval policy applies only to the questions it asks. \
         Token usage and model error details stay on that Gateway."
    )
}

/// Rewrites the bridge's own words for a refused token or a lost connection into what to do.
fn explain_failure(result: RunResult, url: &str) -> RunResult {
    if result.outcome != RunOutcome::Failed {
        return result;
    }
    let said = result.message.clone().unwrap_or_default();
    let lower = said.to_lowercase();
    // A Gateway reached from another machine pairs each new device first (OpenClaw 2026.9.6:
    // "device pairing required (requestId: …)"); only its owner can approve.
    if lower.contains("pairing required") {
        let request = said
            .split("requestId: ")
            .nth(1)
            .map(|rest| rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect::<String>())
            .filter(|id| !id.is_empty());
        let approve = match request {
            Some(id) => format!("openclaw devices approve {id}"),
            None => "openclaw devices list, then openclaw devices approve <request>".to_owned(),
        };
        let fix = format!(
            "The OpenClaw Gateway at {url} does not know this computer yet. On the Gateway's machine run `{approve}` \
             (or approve it in its Control UI under Devices), then send the message again."
        );
        return RunResult { message: Some(format!("{fix}\n{said}")), ..result };
    }
    let refused = ["unauthorized", "token mismatch", "token missing"].iter().any(|w| lower.contains(w));
    // "Gateway disconnected: 1006" is what the bridge says when the Gateway dies mid-turn (measured).
    let lost = ["econnrefused", "econnreset", "socket hang up", "gateway closed", "gateway disconnected"]
        .iter()
        .any(|w| lower.contains(w));
    let fix = if refused {
        format!(
            "The OpenClaw Gateway at {url} refused the token. Enter the Gateway's token (gateway.auth.token in its \
             openclaw.json, or the --token it was started with) in the agent's profile."
        )
    } else if lost {
        format!(
            "The connection to the OpenClaw Gateway at {url} was lost. Check that it is running, then send the \
             message again."
        )
    } else if lower.contains("security error") {
        format!("OpenClaw refused to send the token to {url} unencrypted. Use a wss:// address.")
    } else {
        return result;
    };
    RunResult { message: Some(format!("{fix}\n{said}")), ..result }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtimes::process::ExitInfo;
    use crate::runtimes::supervise::replay::{feed, sent};
    use crate::runtimes::supervise::StreamProtocol;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/tests/fixtures/openclaw");
    /// The ACP session of the recorded resume.
    const SESSION: &str = "edbae1b2-97a7-4e71-a6f2-0d3f8fec211e";

    fn resumed() -> OpenclawAcp {
        OpenclawAcp::new("/w".into(), "Do it again".into(), Some(SESSION.into()), None, None).on_existing_gateway()
    }

    fn methods(steps: &[crate::runtimes::supervise::Step]) -> Vec<String> {
        sent(steps).iter().map(|m| m["method"].as_str().unwrap_or("(answer)").to_owned()).collect()
    }

    #[test]
    fn a_session_the_users_gateway_does_not_know_is_reported_missing_not_started_empty() {
        let recorded = std::fs::read_to_string(format!("{FIXTURES}/acp-resume-turn.stdout.jsonl")).unwrap();
        let mut known = resumed();
        let steps = feed(&mut known, &recorded);
        assert_eq!(methods(&steps), ["session/load", "session/prompt"], "a known session goes on");
        assert_eq!(known.finish(ExitInfo { code: Some(0), signal: None }, "").outcome, RunOutcome::Succeeded);

        // What OpenClaw 2026.9.6 answers for an id its Gateway does not know (measured): the same
        // load answer, the session filed under the bare id; no history follows.
        let bridge_key = format!("\"sessionKey\":\"acp-bridge:{SESSION}\"");
        let lines: Vec<&str> = recorded.lines().collect();
        let load_answer = lines.iter().find(|l| l.starts_with(r#"{"jsonrpc":"2.0","id":2,"#)).unwrap();
        // initialize's answer, the session's info and commands, then the load's answer.
        let unknown = format!("{}\n{}\n{}\n{load_answer}\n", lines[0], lines[1], lines[2])
            .replace(&bridge_key, &format!("\"sessionKey\":\"{SESSION}\""));
        assert!(!unknown.contains(&bridge_key));
        let mut gone = resumed();
        let steps = feed(&mut gone, &unknown);
        assert_eq!(methods(&steps), ["session/load"], "no prompt goes into an empty session");
        let result = gone.finish(ExitInfo { code: Some(0), signal: None }, "");
        assert!(result.session_missing, "{result:?}");
    }

    struct NoEndpoint;

    impl crate::runtimes::EndpointSource for NoEndpoint {
        fn endpoint(&self, _: crate::secrets::Provider, _: &str) -> Result<crate::runtimes::Endpoint> {
            panic!("an agent on an existing Gateway needs no endpoint")
        }
    }

    struct OneToken;

    impl GatewayTokens for OneToken {
        fn gateway_token(&self, _agent_id: &str) -> Result<Option<String>> {
            Ok(Some("tok".into()))
        }
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn pointing_an_agent_at_an_existing_gateway_stops_the_one_clawboo_started_for_it() {
        use crate::runtimes::process::{group_has_live_member, SystemSpawner};
        use std::sync::Arc;

        let rt =
            OpenclawRuntime::new(Arc::new(SystemSpawner), Arc::new(NoEndpoint)).with_gateway_tokens(Arc::new(OneToken));
        let dir = tempfile::tempdir().unwrap();
        let homes = crate::runtimes::home::RuntimeHomes::for_agent_dir(dir.path());
        let home = homes.home(RuntimeKind::Openclaw).unwrap();
        // A stand-in for Clawboo's own Gateway of this agent: a process that says it is ready.
        let spec = CommandSpec {
            program: "sh".into(),
            args: vec!["-c".into(), "echo '[gateway] ready'; exec sleep 600".into()],
            inherit_env: vec!["PATH".into()],
            cwd: dir.path().to_owned(),
            ..Default::default()
        };
        let launch = super::super::gateway::Launch { spec, fingerprint: 1, ready_within: Duration::from_secs(20) };
        rt.gateways.ensure(&SystemSpawner, &home, launch).await.unwrap();
        let own = rt.gateway_pid(&home).expect("Clawboo's Gateway runs");

        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut agent = crate::agents::Agent {
            id: "a1".into(),
            name: "Claw".into(),
            handle: "claw".into(),
            description: String::new(),
            tint: "#336699".into(),
            runtime: RuntimeKind::Openclaw,
            model: String::new(),
            approval_policy: crate::runtimes::ApprovalPolicy::Ask,
            provider: None,
            openclaw_gateway_url: None,
            sandbox: Default::default(),
            created_at: 0,
            updated_at: 0,
        };
        let url = format!("ws://127.0.0.1:{free}");
        agent.openclaw_gateway_url = Some(url.clone());
        let input = TurnInput {
            run_id: "r1".into(),
            approval: agent.approval_policy,
            agent,
            workspace: dir.path().to_owned(),
            homes,
            message: "Hi".into(),
            persona: None,
            setup: None,
            resume_session: None,
            fork_session: false,
            preamble: None,
            tools: None,
            connectors: Vec::new(),
            transcript: Vec::new(),
            program: Some("/bin/true".into()),
        };
        let (events, _events_rx) = tokio::sync::mpsc::unbounded_channel();
        let (permissions, _permissions_rx) = tokio::sync::mpsc::unbounded_channel();
        let (_cancel, cancel) = tokio::sync::watch::channel(false);
        // Nothing listens at that address (or this machine's Node is too old): the turn fails,
        // after Clawboo's own Gateway was stopped.
        let channels = RunChannels { events, permissions, cancel };
        let err = rt.run_on_existing_gateway(input, channels, &url).await.unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::RuntimeFailed, "{err}");
        assert_eq!(rt.gateway_pid(&home), None);
        let mut gone = false;
        for _ in 0..100 {
            if !group_has_live_member(own) {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(gone, "Clawboo's own Gateway for the agent was stopped");
    }

    #[test]
    fn a_refused_token_is_explained_with_the_fix() {
        let bridge = RunResult::failed(
            "OpenClaw stopped (exit code 1) before the turn finished.\nACP bridge failed: unauthorized: gateway token \
             mismatch (use this gateway's gateway.auth.token or pair the device)",
        );
        let explained = explain_failure(bridge, "ws://127.0.0.1:1");
        let message = explained.message.unwrap();
        assert!(message.starts_with("The OpenClaw Gateway at ws://127.0.0.1:1 refused the token."), "{message}");
        assert!(message.contains("gateway token mismatch"), "OpenClaw's own words are kept");
        let fine = explain_failure(RunResult::succeeded(), "ws://127.0.0.1:1");
        assert_eq!(fine.outcome, RunOutcome::Succeeded);
        let other = explain_failure(RunResult::failed("something else"), "ws://127.0.0.1:1");
        assert_eq!(other.message.as_deref(), Some("something else"));
    }

    #[test]
    fn a_device_the_gateway_has_not_paired_and_a_gateway_that_died_are_explained() {
        // What OpenClaw 2026.9.6's bridge prints when a Gateway on another machine sees this
        // computer for the first time (measured across two network namespaces).
        let bridge = RunResult::failed(
            "gateway connect failed: GatewayClientRequestError: device pairing required (requestId: \
             5ab4c6e8-96f2-4429-9808-46f4cb05ddcd)\nACP bridge failed: device pairing required (requestId: \
             5ab4c6e8-96f2-4429-9808-46f4cb05ddcd)",
        );
        let message = explain_failure(bridge, "ws://10.29.0.2:18789").message.unwrap();
        assert!(message.starts_with("The OpenClaw Gateway at ws://10.29.0.2:18789 does not know this computer yet."));
        assert!(message.contains("`openclaw devices approve 5ab4c6e8-96f2-4429-9808-46f4cb05ddcd`"), "{message}");
        let died = explain_failure(
            RunResult::failed("OpenClaw reported an error: Internal error: Gateway disconnected: 1006: "),
            "ws://10.29.0.2:18789",
        );
        assert!(died
            .message
            .unwrap()
            .starts_with("The connection to the OpenClaw Gateway at ws://10.29.0.2:18789 was lost."));
        let no_id = explain_failure(RunResult::failed("pairing required: device is not approved yet"), "ws://h:1");
        assert!(no_id.message.unwrap().contains("openclaw devices list"));
    }

    #[tokio::test]
    async fn an_address_nobody_listens_on_is_a_clear_error() {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let err = reachable(&format!("ws://127.0.0.1:{port}")).await.unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::RuntimeFailed);
        assert!(err.to_string().contains("cannot be reached") && err.to_string().contains("openclaw gateway run"));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        reachable(&format!("ws://127.0.0.1:{port}")).await.unwrap();
    }
}
