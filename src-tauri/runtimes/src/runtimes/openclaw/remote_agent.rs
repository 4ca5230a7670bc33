//! A Gateway agent of its own for each Clawboo agent on a Gateway the user runs (here or on
//! another machine), made and configured through that Gateway's operator methods (OpenClaw
//! 2026.9.6, protocol 4):
//! - `agents.create {name}`: the agent `clawboo-<agent id>` with its own workspace (under the
//!   Gateway's `agents.defaults.workspace`) and agent directory, so two Clawboo agents on one
//!   Gateway no longer share the default agent's persona files, memory and sessions. An agent
//!   that already exists is kept (`already exists`).
//! - `config.get` then `config.patch {raw, baseHash}`: that agent's own tool rules,
//!   `agents.entries.<id>.tools`, from the Clawboo agent's approval policy, exactly the rules of
//!   a Gateway Clawboo runs ([`super::config::tool_rules`]): Read-only denies writing, running
//!   commands, the web and the rest; Ask puts every command outside OpenClaw's allowlist to an
//!   exec approval (relayed by the bridge to Clawboo's Inbox); Allow all runs them. OpenClaw
//!   applies a change under `agents.entries` without a restart ("hot reload"). The patch names
//!   every key Clawboo sets (`exec`, `deny`, `fs`), absent ones as `null`, so a policy changed
//!   from Ask to Allow all leaves no old deny list behind.
//!
//! The bridge's sessions then run as that agent: each new ACP session is created under the
//! session key `agent:<id>:acp-bridge:<uuid>` (see [`super::OpenclawAcp::on_existing_gateway`]).
//!
//! Calls go through `openclaw gateway call` with the bridge's environment, as the persona files
//! do (see [`super::remote_files`]). The rules are applied once per app session and whenever
//! the policy changes (the Gateway's owner may have edited them there meanwhile); each call is a
//! Node start (~2–7 s), so that is three starts on an agent's first turn in a session, the last
//! two beside the persona files and the node connection.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{json, Value};

use super::config::tool_rules;
use super::remote_files::call;
use crate::error::{Error, Result};
use crate::runtimes::process::{CommandSpec, Spawner};
use crate::runtimes::ApprovalPolicy;

/// The keys of an agent's `tools` that Clawboo sets; each is written (or removed) every time.
const RULE_KEYS: [&str; 3] = ["exec", "deny", "fs"];

/// Which rules each (Gateway, Clawboo agent) got in this app session.
pub type Applied = Mutex<HashMap<(String, String), Value>>;

/// The Gateway agent of Clawboo agent `agent_id`: `clawboo-` and the id's letters, digits and
/// dashes, lower case (OpenClaw's agent ids), at most 64 characters.
pub fn gateway_agent_id(agent_id: &str) -> String {
    let tail: String =
        agent_id.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
    let id = format!("clawboo-{}", tail.trim_matches('-'));
    id.chars().take(64).collect::<String>().trim_end_matches('-').to_owned()
}

/// The patch that gives Gateway agent `id` the rules of `approval`.
pub fn rules_patch(id: &str, approval: ApprovalPolicy) -> Value {
    let rules = tool_rules(approval);
    let tools: serde_json::Map<String, Value> =
        RULE_KEYS.iter().map(|key| ((*key).to_owned(), rules.get(*key).cloned().unwrap_or(Value::Null))).collect();
    json!({ "agents": { "entries": { id: { "tools": tools } } } })
}

/// One Clawboo agent on one Gateway.
pub struct AgentPlace<'a> {
    pub gateway: &'a str,
    pub agent_id: &'a str,
    pub approval: ApprovalPolicy,
    /// The turn's bridge command (its program, environment and confinement).
    pub bridge: &'a CommandSpec,
}

/// The Clawboo agent's Gateway agent, made there (`agents.create`) unless its rules were
/// applied in this app session already: its id, and whether [`apply_rules`] is still to run.
/// The two are apart so the rules, the persona files and the node connection, which all need
/// the agent to exist and none each other, can be set up at once (each call is a Node start).
pub async fn make(spawner: &dyn Spawner, place: &AgentPlace<'_>, applied: &Applied) -> Result<(String, bool)> {
    let id = gateway_agent_id(place.agent_id);
    let key = (place.gateway.to_owned(), place.agent_id.to_owned());
    if applied.lock().unwrap_or_else(|e| e.into_inner()).get(&key) == Some(&rules_patch(&id, place.approval)) {
        return Ok((id, false));
    }
    match call(spawner, place.bridge, "agents.create", &json!({ "name": id })).await {
        Ok(made) if made["agentId"].as_str().is_some_and(|made| made != id) => {
            return Err(Error::RuntimeFailed(format!(
                "The OpenClaw Gateway at {} made agent {} when Clawboo asked for {id}.",
                place.gateway, made["agentId"]
            )))
        }
        Ok(_) => {}
        Err(e) if e.to_string().contains("already exists") => {}
        Err(e) => return Err(e),
    }
    Ok((id, true))
}

/// Gives the Gateway agent [`make`] made its policy's tool rules (`config.get`, then
/// `config.patch` on that hash), remembered for this app session.
pub async fn apply_rules(spawner: &dyn Spawner, place: &AgentPlace<'_>, applied: &Applied) -> Result<()> {
    let patch = rules_patch(&gateway_agent_id(place.agent_id), place.approval);
    // Another turn may change the Gateway's config between the read and the write (two members
    // starting at once): the Gateway then refuses the stale hash, and one more try reads it anew.
    let mut tries = 0;
    loop {
        tries += 1;
        let current = call(spawner, place.bridge, "config.get", &json!({})).await?;
        let hash = current["hash"].as_str().unwrap_or_default();
        let params = json!({ "raw": patch.to_string(), "baseHash": hash });
        match call(spawner, place.bridge, "config.patch", &params).await {
            Ok(_) => break,
            Err(e) if tries < 2 && e.to_string().contains("config.get") => continue,
            Err(e) => return Err(e),
        }
    }
    let key = (place.gateway.to_owned(), place.agent_id.to_owned());
    applied.lock().unwrap_or_else(|e| e.into_inner()).insert(key, patch);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_clawboo_agent_gets_an_agent_id_openclaw_accepts() {
        assert_eq!(gateway_agent_id("ivy"), "clawboo-ivy");
        assert_eq!(gateway_agent_id("0b9F_2c"), "clawboo-0b9f-2c");
        let long = gateway_agent_id(&"a".repeat(100));
        assert_eq!(long.len(), 64);
        assert_ne!(gateway_agent_id("ivy"), gateway_agent_id("oak"));
    }

    #[test]
    fn the_patch_sets_every_rule_key_so_a_looser_policy_leaves_no_old_deny_behind() {
        let ask = rules_patch("clawboo-ivy", ApprovalPolicy::Ask);
        let tools = &ask["agents"]["entries"]["clawboo-ivy"]["tools"];
        assert_eq!(tools["exec"]["mode"], "ask");
        assert_eq!(tools["deny"], json!(["write", "edit", "apply_patch"]));
        assert!(tools["fs"].is_null() && tools.as_object().unwrap().contains_key("fs"));

        let all = rules_patch("clawboo-ivy", ApprovalPolicy::AllowAll);
        let tools = &all["agents"]["entries"]["clawboo-ivy"]["tools"];
        assert_eq!(tools["exec"]["mode"], "full");
        assert!(tools.as_object().unwrap().contains_key("deny") && tools["deny"].is_null(), "removed");

        let read_only = rules_patch("clawboo-ivy", ApprovalPolicy::ReadOnly);
        let tools = &read_only["agents"]["entries"]["clawboo-ivy"]["tools"];
        assert_eq!(tools["exec"]["mode"], "allowlist");
        let denied: Vec<&str> = tools["deny"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        for tool in ["write", "edit", "apply_patch", "group:runtime", "group:web"] {
            assert!(denied.contains(&tool), "{tool} denied");
        }
        assert_eq!(tools["fs"]["workspaceOnly"], true);
    }
}
