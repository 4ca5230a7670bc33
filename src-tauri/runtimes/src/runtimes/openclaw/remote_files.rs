//! The persona files of an agent on a Gateway the user runs (here or on another machine),
//! written into that Gateway's agent workspace through its own protocol: the operator method
//! `agents.files.set` (OpenClaw 2026.9.6, protocol 4; `src/gateway/server-methods/agents.ts`),
//! never by copying files over SSH. OpenClaw then injects them into the system prompt of every
//! request, exactly as for the Gateway Clawboo starts (see [`super::config::sync_workspace`]).
//!
//! The calls go through `openclaw gateway call` with the bridge's own environment, so they use the
//! same device identity as the turn's `openclaw acp` bridge (one pairing on that Gateway covers
//! both) and the token stays in the environment. A file is sent only when it differs from what
//! was last sent to that Gateway's agent (kept in the bridge's state, next to its identity); a
//! file emptied or removed here is sent empty, which OpenClaw skips. Each call starts a Node
//! process (~5 s here), so changed files are sent at once, not one after another.
//!
//! Each Clawboo agent has a Gateway agent of its own there (see [`super::remote_agent`]), so the
//! files go to that agent's workspace and no other Clawboo agent writes there. All four are sent
//! again on the agent's first turn in an app session (they may have been edited on the Gateway
//! meanwhile) and when the record names another Gateway agent (one sent before agents of their
//! own: the Gateway's default agent).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncReadExt;

use super::config::WORKSPACE_FILES;
use crate::error::{Error, Result};
use crate::runtimes::process::{CommandSpec, Spawner};

/// How long one `gateway call` may take (Node's start-up is most of it).
const CALL_WITHIN: Duration = Duration::from_secs(60);
/// What the Gateway's own timeout for one call is (`--timeout`, ms).
const CALL_TIMEOUT_MS: &str = "30000";

/// What was last written to one Gateway's agent.
#[derive(Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SentFiles {
    /// The Gateway's address; another Gateway starts from nothing.
    pub gateway: String,
    /// The Gateway agent the files were sent to (the Clawboo agent's own).
    pub agent: String,
    /// File name to the content sent.
    pub files: BTreeMap<String, String>,
}

impl SentFiles {
    pub(super) fn load(path: &Path, gateway: &str) -> Self {
        std::fs::read(path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<SentFiles>(&bytes).ok())
            .filter(|sent| sent.gateway == gateway)
            .unwrap_or_else(|| SentFiles { gateway: gateway.to_owned(), ..Default::default() })
    }
}

/// The record of what was sent, in the bridge's state.
pub fn record_path(bridge_state: &Path) -> PathBuf {
    bridge_state.join("clawboo-sent-files.json")
}

/// The persona files as they should be on the Gateway: their content here, empty when a file is
/// missing or blank (as a local OpenClaw agent's workspace then has none).
pub fn wanted(agent_dir: &Path) -> Result<BTreeMap<String, String>> {
    let mut files = BTreeMap::new();
    for name in WORKSPACE_FILES {
        let path = agent_dir.join(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) if !text.trim().is_empty() => text,
            Ok(_) => String::new(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(Error::io(format!("Cannot read {}", path.display()), e)),
        };
        files.insert(name.to_owned(), text);
    }
    Ok(files)
}

/// The files that differ from what was last sent (a file never sent counts as empty).
pub fn changed(wanted: &BTreeMap<String, String>, sent: &SentFiles) -> Vec<String> {
    wanted
        .iter()
        .filter(|(name, text)| sent.files.get(*name).map(String::as_str).unwrap_or_default() != text.as_str())
        .map(|(name, _)| name.clone())
        .collect()
}

/// The (Gateway, Clawboo agent) pairs whose files were sent in this app session.
pub type Holders = Mutex<HashSet<(String, String)>>;

/// One agent on one Gateway.
pub struct Place<'a> {
    pub gateway: &'a str,
    /// The bridge's state, where the record of what was sent lives.
    pub bridge_state: &'a Path,
    /// The Clawboo agent's id.
    pub agent: &'a str,
    /// Its Gateway agent, whose workspace gets the files.
    pub gateway_agent: &'a str,
}

/// Sends the agent's changed persona files to the Gateway; returns the names sent.
/// `bridge` is the turn's bridge command (its program, environment and confinement).
pub async fn sync(
    spawner: &dyn Spawner,
    bridge: &CommandSpec,
    place: &Place<'_>,
    agent_dir: &Path,
    holders: &Holders,
) -> Result<Vec<String>> {
    let gateway = place.gateway;
    let record = record_path(place.bridge_state);
    let mut sent = SentFiles::load(&record, gateway);
    let wanted = wanted(agent_dir)?;
    let key = (gateway.to_owned(), place.agent.to_owned());
    let sent_here = holders.lock().unwrap_or_else(|e| e.into_inner()).contains(&key);
    let changed = if sent_here && sent.agent == place.gateway_agent {
        changed(&wanted, &sent)
    } else if sent.files.values().all(String::is_empty) && wanted.values().all(String::is_empty) {
        // Nothing sent from here and nothing to send: nothing known to put right.
        Vec::new()
    } else {
        wanted.keys().cloned().collect()
    };
    if changed.is_empty() {
        return Ok(changed);
    }
    sent.agent = place.gateway_agent.to_owned();
    let calls = changed.iter().map(|name| {
        let params = json!({ "agentId": sent.agent, "name": name, "content": wanted[name] });
        async move { call(spawner, bridge, "agents.files.set", &params).await }
    });
    for answer in futures_util::future::join_all(calls).await {
        answer?;
    }
    sent.files = wanted;
    let bytes = serde_json::to_vec_pretty(&sent).unwrap_or_default();
    crate::agents::atomic_write(&record, &bytes)?;
    holders.lock().unwrap_or_else(|e| e.into_inner()).insert(key);
    Ok(changed)
}

/// One operator call through `openclaw gateway call METHOD --json`: its answer, or the Gateway's
/// words as the error.
pub(super) async fn call(spawner: &dyn Spawner, bridge: &CommandSpec, method: &str, params: &Value) -> Result<Value> {
    let mut args: Vec<String> = ["gateway", "call", method, "--json", "--timeout", CALL_TIMEOUT_MS, "--params"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    args.push(params.to_string());
    operator(spawner, bridge, args, method).await
}

/// One `openclaw` operator command with the bridge's environment (its device, the Gateway's
/// address and token): its JSON answer (the text it printed, when that is not JSON), or the
/// Gateway's words as the error. `what` names it in the error.
pub(super) async fn operator(
    spawner: &dyn Spawner,
    bridge: &CommandSpec,
    args: Vec<String>,
    what: &str,
) -> Result<Value> {
    let mut spec = bridge.clone();
    spec.args = args;
    spec.piped_stdin = false;
    let failed = |why: String| Error::RuntimeFailed(format!("OpenClaw's Gateway did not take {what}: {why}"));
    let mut child = spawner.spawn(&spec).map_err(|e| failed(e.to_string()))?;
    let (mut out, mut err) = (String::new(), String::new());
    let ran = tokio::time::timeout(CALL_WITHIN, async {
        let (a, b) = tokio::join!(child.stdout.read_to_string(&mut out), child.stderr.read_to_string(&mut err));
        a.and(b)?;
        child.control.wait().await
    })
    .await;
    let exit = match ran {
        Ok(Ok(exit)) => exit,
        Ok(Err(e)) => return Err(failed(e.to_string())),
        Err(_) => {
            let _ = child.control.kill();
            return Err(failed(format!("no answer within {} s", CALL_WITHIN.as_secs())));
        }
    };
    let answer: Option<Value> = serde_json::from_str(out.trim()).ok();
    match answer {
        Some(answer) if exit.code == Some(0) && answer.get("error").is_none() => Ok(answer),
        None if exit.code == Some(0) => Ok(Value::String(out.trim().to_owned())),
        Some(answer) if answer["error"]["message"].is_string() => {
            Err(failed(answer["error"]["message"].as_str().unwrap_or_default().to_owned()))
        }
        _ => {
            let said = format!("{}\n{}", out.trim(), err.trim());
            Err(failed(said.trim().lines().last().unwrap_or("it failed").to_owned()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_differs_from_the_last_sending_is_sent_again() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("SOUL.md"), "You are Ivy.").unwrap();
        std::fs::write(dir.path().join("USER.md"), "  \n").unwrap();
        let wanted = wanted(dir.path()).unwrap();
        assert_eq!(wanted.len(), WORKSPACE_FILES.len());
        assert_eq!(wanted["USER.md"], "", "a blank file is sent as none");
        let mut sent = SentFiles { gateway: "ws://g".into(), agent: "main".into(), files: BTreeMap::new() };
        assert_eq!(changed(&wanted, &sent), ["SOUL.md"], "files that were never there need no call");
        sent.files = wanted.clone();
        assert!(changed(&wanted, &sent).is_empty());
        std::fs::remove_file(dir.path().join("SOUL.md")).unwrap();
        assert_eq!(changed(&super::wanted(dir.path()).unwrap(), &sent), ["SOUL.md"], "a removed file is emptied");

        let record = record_path(dir.path());
        std::fs::write(&record, serde_json::to_vec(&sent).unwrap()).unwrap();
        assert_eq!(SentFiles::load(&record, "ws://g"), sent);
        assert!(SentFiles::load(&record, "ws://other").files.is_empty(), "another Gateway starts afresh");
    }
}
