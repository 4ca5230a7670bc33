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
//! Each Clawboo agent runs there as a Gateway agent of its own, made and given the tool rules of
//! its approval policy before its first turn (see [`remote_agent`]); its persona files reach
//! that agent's workspace through the Gateway's protocol (see [`remote_files`]); Clawboo's tools
//! reach it through a node connection of the turn's own (see [`remote_tools`]). From another
//! machine, the Gateway first asks its owner to approve this computer as a device (once); the
//! turn then fails with the command that approves it.
//!
//! Approvals: under Ask the agent's `tools.exec.mode` is `ask`, so the Gateway turns each command
//! outside its allowlist into an exec approval, which the bridge relays as
//! `session/request_permission` for the session it drives; Clawboo puts it in the Inbox and the
//! tray, and the bridge answers the Gateway (`exec.approval.resolve`) with the user's choice.
//!
//! What is not available here (a note in the activity says so each turn): OpenClaw's transcript
//! lives on that Gateway's machine, so the turn's token usage and the model's error details
//! cannot be read back; the user's connectors do not reach it; and the model is that Gateway's.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::config::Layout;
use super::gateway_health;
use super::gateway_node::{Hello, LiveSession};
use super::remote_agent;
use super::remote_tools::{self, NodePlace};
use super::{node, remote_files, OpenclawAcp, OpenclawRuntime, QUIET_ENV};
use crate::agents::gateway::normalise_gateway_url;
use crate::agents::RuntimeKind;
use crate::error::{Error, Result};
use crate::runtimes::home::INHERITED_ENV;
use crate::runtimes::process::CommandSpec;
use crate::runtimes::supervise::supervise;
use crate::runtimes::{ApprovalPolicy, RunChannels, RunEvent, RunOutcome, RunResult, TurnInput};

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
        let agent = input.agent.clone();
        let ended = self.turn_on_existing_gateway(input, channels, url).await;
        // Lost while the turn set itself up there (its `openclaw gateway call`s fail with
        // ECONNREFUSED or time out): the same cut-off as a loss while the bridge runs.
        gateway_health::cut_off_if_lost(&self.health, &agent, ended)
    }

    async fn turn_on_existing_gateway(&self, input: TurnInput, channels: RunChannels, url: &str) -> Result<RunResult> {
        let program = input
            .program
            .clone()
            .ok_or_else(|| Error::RuntimeNotFound("OpenClaw (`openclaw`) is not installed or was not found.".into()))?;
        // The stored URL is input like any other: checked again before a token is sent to it.
        let url = normalise_gateway_url(url)?;
        // Lost since the run was prepared: refused before any bridge waits on it.
        gateway_health::refuse_while_lost(&self.health, &input.agent)?;
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
        // This agent's own agent on that Gateway, with its policy's tool rules, before anything
        // of the turn runs there.
        let own = remote_agent::AgentPlace {
            gateway: &url,
            agent_id: &input.agent.id,
            approval: input.approval,
            bridge: &bridge,
        };
        let made = remote_agent::make(self.spawner.as_ref(), &own, &self.remote_rules).await;
        // A computer the Gateway has never seen has no device identity yet, and a call without
        // one is let in with no rights (OpenClaw 2026.9.6): `agents.create` then fails "missing
        // scope: operator.admin", as it does for a paired device without the admin scope. Only
        // the first may go on to the bridge (which makes the identity and asks the Gateway's
        // owner to pair it: its failure says what to do); the second could run a turn with none
        // of the agent's rules. A read call tells them apart. It is asked after any failure: a
        // first contact whose `agents.create` failed another way (a timeout under load) is
        // unpaired all the same when the read says "missing scope".
        let unpaired = match &made {
            Err(e) => {
                let read = remote_files::call(self.spawner.as_ref(), &bridge, "agents.list", &json!({})).await;
                is_unpaired(&e.to_string(), read.err().map(|r| r.to_string()).as_deref())
            }
            Ok(_) => false,
        };
        let (gateway_agent, rules_due) = match made {
            Ok(made) => (Some(made.0), made.1),
            Err(e) if unpaired => {
                channels.emit(RunEvent::Warning {
                    message: format!("This agent could not be set up on the OpenClaw Gateway at {url}: {e}"),
                });
                (None, false)
            }
            Err(e) => match self.default_agent_instead(&input, &channels, &bridge, &url, e).await {
                Ok(agent) => (Some(agent), false),
                Err(refused) => return Ok(explain_failure(refused, &url)),
            },
        };
        let Some(mut gateway_agent) = gateway_agent else {
            let protocol = OpenclawAcp::new(
                input.workspace.to_string_lossy().into_owned(),
                input.text_to_send(),
                None,
                None,
                None,
            );
            let result =
                supervise(self.spawner.as_ref(), &bridge, Box::new(protocol), channels, input.approval, self.timeouts)
                    .await;
            return Ok(explain_failure(result?, &url));
        };
        // Then, at once (each is a Node start or two, and none needs another): the agent's tool
        // rules; its persona, through the Gateway's own protocol, so this very turn has it; and
        // Clawboo's tools, through a node connection of this turn's own, so the turn's agent run
        // lists them (they answer only the session the bridge names for this turn, `live`).
        // The bridge starts only once all three are done.
        let live = LiveSession::default();
        let node_place = NodePlace { url: &url, token: &token, bridge_state: &layout.state, bridge: &bridge };
        let rules = async {
            if rules_due {
                remote_agent::apply_rules(self.spawner.as_ref(), &own, &self.remote_rules).await
            } else {
                Ok(())
            }
        };
        let tools = async {
            match input.tools.as_ref().filter(|g| !g.specs.is_empty()) {
                Some(grant) => Some(remote_tools::open(self.spawner.as_ref(), &node_place, grant, live.clone()).await),
                None => None,
            }
        };
        let persona = self.send_persona(&bridge, &layout, &input, &url, &gateway_agent);
        let (ruled, mut synced, opened) = tokio::join!(rules, persona, tools);
        if let Err(e) = ruled {
            // Made there, but its rules would not be taken: as when it could not be made.
            match self.default_agent_instead(&input, &channels, &bridge, &url, e).await {
                Ok(agent) => {
                    gateway_agent = agent;
                    synced = self.send_persona(&bridge, &layout, &input, &url, &gateway_agent).await;
                }
                Err(refused) => return Ok(explain_failure(refused, &url)),
            }
        }
        if let Err(e) = synced {
            return Ok(explain_failure(RunResult::failed(e.to_string()), &url));
        }
        let node = match opened {
            Some(Ok(opened)) => Some(opened),
            Some(Err(why)) => {
                channels.emit(RunEvent::Warning {
                    message: format!("Clawboo's tools could not be offered on the OpenClaw Gateway at {url}: {why}"),
                });
                None
            }
            None => None,
        };
        let own_agent = gateway_agent == remote_agent::gateway_agent_id(&input.agent.id);
        let hello = node.as_ref().map(|n| &n.hello);
        channels.emit(RunEvent::Warning {
            message: what_applies(&url, hello, own_agent.then_some(gateway_agent.as_str())),
        });
        let protocol = OpenclawAcp::new(
            input.workspace.to_string_lossy().into_owned(),
            input.text_to_send(),
            input.resume_session.clone(),
            None,
            None,
        )
        .on_existing_gateway(&gateway_agent, live);
        // The link's loss cuts the turn off at once (the bridge alone takes 6–13 s to notice, or
        // waits on a Gateway that stopped answering).
        let RunChannels { events, permissions, cancel } = channels;
        let (cancel, cut) = gateway_health::stop_when_lost(cancel, self.health.watch(&input.agent.id));
        let channels = RunChannels { events, permissions, cancel };
        let result =
            supervise(self.spawner.as_ref(), &bridge, Box::new(protocol), channels, input.approval, self.timeouts)
                .await;
        // The tools end with the turn.
        drop(node);
        if let Some(lost) = cut.lost() {
            return Ok(gateway_health::cut_off(&lost, result));
        }
        Ok(explain_failure(result?, &url))
    }

    /// Sends the agent's changed persona files to Gateway agent `gateway_agent` (see
    /// [`remote_files::sync`]).
    async fn send_persona(
        &self,
        bridge: &CommandSpec,
        layout: &Layout,
        input: &TurnInput,
        url: &str,
        gateway_agent: &str,
    ) -> Result<Vec<String>> {
        let place =
            remote_files::Place { gateway: url, bridge_state: &layout.state, agent: &input.agent.id, gateway_agent };
        remote_files::sync(self.spawner.as_ref(), bridge, &place, input.homes.agent_dir(), &self.remote_personas).await
    }

    /// When the Gateway would not make or configure this agent's own agent (`why`): an agent
    /// allowed everything runs as that Gateway's default agent, as before agents of their own,
    /// and the activity says what that means; an agent under Ask or Read-only does not run
    /// there at all (its rules could not be put in place). Returns the default agent's id, or
    /// the refusal.
    async fn default_agent_instead(
        &self,
        input: &TurnInput,
        channels: &RunChannels,
        bridge: &CommandSpec,
        url: &str,
        why: Error,
    ) -> std::result::Result<String, RunResult> {
        if input.approval != ApprovalPolicy::AllowAll {
            return Err(RunResult::failed(format!(
                "Clawboo could not give this agent its own agent and tool rules ({}) on the OpenClaw Gateway \
                 at {url}, so it does not run there: {why}. Update OpenClaw on that machine, or set the agent \
                 to Allow all to run it as that Gateway's default agent under that Gateway's own rules.",
                if input.approval == ApprovalPolicy::ReadOnly { "Read-only" } else { "Ask" }
            )));
        }
        let agents = remote_files::call(self.spawner.as_ref(), bridge, "agents.list", &json!({}))
            .await
            .map_err(|e| RunResult::failed(e.to_string()))?;
        channels.emit(RunEvent::Warning {
            message: format!(
                "This agent runs as the default agent of the OpenClaw Gateway at {url}, under that Gateway's \
                 own tool rules, and shares that agent's workspace with any other agent there: the Gateway \
                 would not give it an agent of its own ({why})."
            ),
        });
        Ok(agents["defaultId"].as_str().unwrap_or("main").to_owned())
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
/// reached it through this turn's node connection; with `own_agent`, the turn ran as the Clawboo
/// agent's own Gateway agent under its policy's rules (else as the Gateway's default agent).
pub fn what_applies(url: &str, node: Option<&Hello>, own_agent: Option<&str>) -> String {
    let gateway = match node {
        Some(hello) => {
            format!("the OpenClaw Gateway at {url} (OpenClaw {}, {} ms away)", hello.version, hello.latency.as_millis())
        }
        None => format!("the OpenClaw Gateway at {url}"),
    };
    let agent = match own_agent {
        Some(id) => format!(
            "as its own agent there ({id}, its own workspace), under this agent's approval policy: Read-only \
             denies writing and commands there, Ask puts each command to you in the Inbox, Allow all runs them"
        ),
        None => "as that Gateway's default agent, under that Gateway's own tool rules; Clawboo's approval policy \
                 applies only to the questions it asks"
            .to_owned(),
    };
    let tools = match node {
        Some(_) => "Clawboo's tools reach it through this computer's node connection for this turn only. What does \
                    not apply there: the user's connectors and its model, which is that Gateway's own."
            .to_owned(),
        None => "What does not apply there: Clawboo's tools (hand-offs, the team room, memory, the Board, \
                 questions), the user's connectors and its model, which is that Gateway's own."
            .to_owned(),
    };
    format!(
        "This agent runs on {gateway}, which Clawboo neither starts nor stops, {agent}. Its SOUL.md, AGENTS.md, \
         IDENTITY.md and USER.md are sent to that agent when they change. {tools} Token usage and model error \
         details stay on that Gateway."
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

/// Whether this computer is one the Gateway has not paired, from why `agents.create` failed and
/// why a read call failed (`None`: it worked). Unpaired, a call is let in with no rights: every
/// call fails "missing scope"; a paired device without the admin scope still reads.
fn is_unpaired(create_failure: &str, read_failure: Option<&str>) -> bool {
    read_failure.is_some_and(|read| create_failure.contains("missing scope") || read.contains("missing scope"))
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

    fn resumed(live: LiveSession) -> OpenclawAcp {
        OpenclawAcp::new("/w".into(), "Do it again".into(), Some(SESSION.into()), None, None)
            .on_existing_gateway("clawboo-ivy", live)
    }

    fn methods(steps: &[crate::runtimes::supervise::Step]) -> Vec<String> {
        sent(steps).iter().map(|m| m["method"].as_str().unwrap_or("(answer)").to_owned()).collect()
    }

    /// The recorded resume (OpenClaw 2026.9.6, a session of the default agent), its session filed
    /// under `key` instead.
    fn recorded_under(key: &str) -> String {
        let recorded = std::fs::read_to_string(format!("{FIXTURES}/acp-resume-turn.stdout.jsonl")).unwrap();
        recorded
            .replace(&format!("agent:main:acp-bridge:{SESSION}"), key)
            .replace(&format!("\"acp-bridge:{SESSION}\""), &format!("\"{key}\""))
    }

    #[test]
    fn an_unpaired_computer_is_told_apart_from_a_device_without_the_admin_scope_and_a_dead_gateway() {
        let admin = "missing scope: operator.admin";
        let read = "missing scope: operator.read";
        assert!(is_unpaired(admin, Some(read)), "no rights at all: unpaired");
        assert!(!is_unpaired(admin, None), "reads but cannot make agents: paired, without the admin scope");
        // agents.create timed out under load, the read says what is wrong.
        assert!(is_unpaired("timed out after 30 s", Some(read)), "unpaired though the first call failed otherwise");
        assert!(!is_unpaired("timed out after 30 s", None));
        assert!(!is_unpaired("connection refused", Some("connection refused")), "a dead Gateway is not unpaired");
    }

    #[test]
    fn a_session_of_the_agents_own_gateway_agent_goes_on_and_its_key_goes_live() {
        let key = format!("agent:clawboo-ivy:acp-bridge:{SESSION}");
        let live = LiveSession::default();
        let mut known = resumed(live.clone());
        let steps = feed(&mut known, &recorded_under(&key));
        assert_eq!(methods(&steps), ["session/load", "session/prompt"], "a known session goes on");
        assert_eq!(known.finish(ExitInfo { code: Some(0), signal: None }, "").outcome, RunOutcome::Succeeded);
        assert_eq!(live.get().as_deref(), Some(key.as_str()), "the node answers this session's calls");
    }

    #[test]
    fn a_new_session_is_made_under_the_agents_own_gateway_agent() {
        let mut fresh = OpenclawAcp::new("/w".into(), "Hi".into(), None, None, None)
            .on_existing_gateway("clawboo-ivy", LiveSession::default());
        let mut out = Vec::new();
        fresh.opening();
        fresh.on_line(r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}"#, &mut out);
        let asked = sent(&out);
        assert_eq!(asked[0]["method"], "session/new");
        let key = asked[0]["params"]["_meta"]["sessionKey"].as_str().unwrap();
        assert!(key.starts_with("agent:clawboo-ivy:acp-bridge:"), "{key}");
    }

    #[test]
    fn a_session_the_users_gateway_does_not_know_or_of_another_agent_is_reported_missing_not_started_empty() {
        // What OpenClaw 2026.9.6 answers for an id its Gateway does not know (measured): the same
        // load answer, the session filed under the bare id; no history follows. And a session of
        // the Gateway's default agent, from before agents of their own.
        for key in [SESSION.to_owned(), format!("agent:main:acp-bridge:{SESSION}")] {
            let recorded = recorded_under(&key);
            let lines: Vec<&str> = recorded.lines().collect();
            let load_answer = lines.iter().find(|l| l.starts_with(r#"{"jsonrpc":"2.0","id":2,"#)).unwrap();
            // initialize's answer, the session's info and commands, then the load's answer.
            let unknown = format!("{}\n{}\n{}\n{load_answer}\n", lines[0], lines[1], lines[2]);
            let live = LiveSession::default();
            let mut gone = resumed(live.clone());
            let steps = feed(&mut gone, &unknown);
            assert_eq!(methods(&steps), ["session/load"], "no prompt goes into an empty session ({key})");
            let result = gone.finish(ExitInfo { code: Some(0), signal: None }, "");
            assert!(result.session_missing, "{result:?}");
            assert_eq!(live.get(), None, "no call from that session is answered");
        }
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
            transcript: Default::default(),
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
