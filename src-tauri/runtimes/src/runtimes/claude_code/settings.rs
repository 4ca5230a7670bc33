//! What Claude Code loads and may do, set by Clawboo alone on every turn.
//!
//! Measured with `claude` 2.1.332 in `-p` mode:
//! - by default it loads `<workspace>/.claude/settings.json` and runs its hooks, even in a
//!   workspace never trusted (allow rules there wait for trust, which `.claude.json` in the
//!   config dir, itself inside the agent's folder, can grant); `.mcp.json` servers, project
//!   skills (`allowed-tools`), commands and agents load too;
//! - `--setting-sources ""` loads no settings file at all (user, project, local) and with them
//!   no project hooks, MCP servers, skills, commands or agents; `--settings <json>` still applies;
//! - reads inside the working folder and read-only commands run without asking; reads
//!   outside, and reads through a link that leads outside, ask (`can_use_tool`);
//! - `--restricted` removes Bash and WebFetch, refuses file tools outside the working folder
//!   (links resolved) and ignores settings files; WebSearch stays unless removed;
//! - `--tools` limits the built-in tools (unknown names are ignored); `--disallowedTools`
//!   removes tools from the model's list.
//!
//! So every turn: no settings file is loaded, Clawboo's settings travel inline on the command
//! line (nothing on disk an agent could edit between or during turns), and the config dir's
//! `settings.json` is rewritten with the same content for a CLI that cannot be told to skip it.
//! Under read-only, only reading tools exist, confined to the workspace by Claude and, for
//! every question it asks, by Clawboo's own path check ([`super::protocol`]).

use std::path::Path;

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::runtimes::confine::HOMES_DIR;
use crate::runtimes::ApprovalPolicy;

/// Built-in tools a read-only agent keeps: they read files, or load deferred (MCP) tools.
pub const READ_ONLY_BUILTINS: &[&str] = &["Read", "Glob", "Grep", "LS", "NotebookRead", "ToolSearch"];

/// Tools a read-only agent must not have: they reach the network, write, or run code (a
/// command Claude deems read-only runs without asking, so Clawboo could not bound it).
pub const READ_ONLY_REMOVED: &[&str] = &[
    "WebFetch",
    "WebSearch",
    "Bash",
    "PowerShell",
    "Monitor",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Task",
    "Agent",
    "Workflow",
    "Skill",
    "CronCreate",
    "CronDelete",
    "ScheduleWakeup",
    "EnterWorktree",
    "ExitWorktree",
];

/// The settings of one turn, passed inline with `--settings`.
pub fn settings(policy: ApprovalPolicy, workspace: &Path) -> Value {
    let mut deny = Vec::new();
    for root in workspace_roots(workspace) {
        // Clawboo's folder holds the runtime homes: transcripts and Claude's own state.
        for tool in ["Read", "Edit", "Write"] {
            deny.push(format!("{tool}(/{root}/{HOMES_DIR}/**)"));
        }
    }
    if policy == ApprovalPolicy::ReadOnly {
        deny.extend(READ_ONLY_REMOVED.iter().map(|t| (*t).to_owned()));
    }
    json!({
        "permissions": {"deny": deny, "defaultMode": "default", "disableBypassPermissionsMode": "disable"},
        "disableAllHooks": true,
        "enableAllProjectMcpServers": false,
    })
}

/// The workspace as Claude may see it: as given, and with links resolved.
fn workspace_roots(workspace: &Path) -> Vec<String> {
    let mut roots = vec![workspace.to_string_lossy().into_owned()];
    if let Ok(real) = workspace.canonicalize() {
        let real = real.to_string_lossy().into_owned();
        if !roots.contains(&real) {
            roots.push(real);
        }
    }
    roots
}

/// The flags that apply [`settings`] and the policy. `offers` says whether the installed
/// `claude` lists a flag in its `--help` (older releases lack some). `clawboo_tools` are the
/// wire names of the tools Clawboo's bridge serves the run (its own it was granted, and the
/// connectors' it hosts, whose calls the bridge itself holds to the policy): a read-only agent
/// keeps them.
pub fn args(
    policy: ApprovalPolicy,
    workspace: &Path,
    clawboo_tools: &[String],
    offers: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut args = Vec::new();
    if offers("--setting-sources") {
        args.extend(["--setting-sources".to_owned(), String::new()]);
    }
    args.extend(["--settings".to_owned(), settings(policy, workspace).to_string()]);
    if offers("--strict-mcp-config") {
        args.push("--strict-mcp-config".into()); // no `.mcp.json` or config-dir servers
    }
    if policy == ApprovalPolicy::ReadOnly {
        if offers("--restricted") {
            args.push("--restricted".into());
        }
        if offers("--tools") {
            let kept: Vec<&str> =
                READ_ONLY_BUILTINS.iter().copied().chain(clawboo_tools.iter().map(String::as_str)).collect();
            args.extend(["--tools".to_owned(), kept.join(",")]);
        }
        args.extend(["--disallowedTools".to_owned(), READ_ONLY_REMOVED.join(",")]);
    }
    args
}

/// Rewrites `settings.json` in Claude's config dir with Clawboo's settings, replacing whatever
/// an agent may have put there since the last turn.
pub fn write_user_settings(config_dir: &Path, policy: ApprovalPolicy, workspace: &Path) -> Result<()> {
    let path = config_dir.join("settings.json");
    let text = serde_json::to_string_pretty(&settings(policy, workspace)).unwrap_or_default();
    std::fs::write(&path, text).map_err(|e| Error::io(format!("Cannot write {}", path.display()), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_turn_loads_no_settings_file_and_read_only_keeps_only_reading_tools() {
        let ws = Path::new("/work/agent");
        let all = |_: &str| true;
        let ask = args(ApprovalPolicy::Ask, ws, &[], all);
        assert_eq!(&ask[..2], ["--setting-sources", ""]);
        assert!(ask.contains(&"--strict-mcp-config".to_owned()));
        assert!(!ask.contains(&"--restricted".to_owned()) && !ask.contains(&"--disallowedTools".to_owned()));
        let inline: Value = serde_json::from_str(&ask[3]).unwrap();
        assert_eq!(inline["disableAllHooks"], true);
        let deny = inline["permissions"]["deny"].to_string();
        assert!(deny.contains("Read(//work/agent/.clawboo/**)") && deny.contains("Edit(//work/agent/.clawboo/**)"));
        assert!(!deny.contains("WebFetch"));

        let read_only = args(ApprovalPolicy::ReadOnly, ws, &[], all);
        assert!(read_only.contains(&"--restricted".to_owned()));
        let tools = &read_only[read_only.iter().position(|a| a == "--tools").unwrap() + 1];
        assert_eq!(tools, "Read,Glob,Grep,LS,NotebookRead,ToolSearch");
        let removed = &read_only[read_only.iter().position(|a| a == "--disallowedTools").unwrap() + 1];
        for tool in ["WebFetch", "WebSearch", "Bash", "Write", "Edit", "NotebookEdit"] {
            assert!(removed.split(',').any(|t| t == tool), "{tool}");
        }
        let inline: Value = serde_json::from_str(&read_only[3]).unwrap();
        assert!(inline["permissions"]["deny"].to_string().contains("\"WebSearch\""));

        // An older claude without the newer flags still gets the inline settings and the removals.
        let old = args(ApprovalPolicy::ReadOnly, ws, &[], |_| false);
        // Clawboo's own tools stay with a read-only agent.
        let granted = args(ApprovalPolicy::ReadOnly, ws, &["mcp__clawboo__peer_post".to_owned()], all);
        let tools = &granted[granted.iter().position(|a| a == "--tools").unwrap() + 1];
        assert!(tools.ends_with(",ToolSearch,mcp__clawboo__peer_post"), "{tools}");
        assert_eq!(old[0], "--settings");
        assert!(!old.contains(&"--restricted".to_owned()) && old.contains(&"--disallowedTools".to_owned()));
    }

    #[test]
    fn the_config_dir_settings_are_rewritten_each_turn() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("settings.json"), r#"{"hooks": {"PreToolUse": []}}"#).unwrap();
        write_user_settings(dir.path(), ApprovalPolicy::Ask, dir.path()).unwrap();
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("settings.json")).unwrap()).unwrap();
        assert_eq!(written, settings(ApprovalPolicy::Ask, dir.path()));
        assert!(written.get("hooks").is_none());
    }
}
