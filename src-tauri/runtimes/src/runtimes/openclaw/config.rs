//! The agent's private OpenClaw state: `openclaw.json`, the embedded agent's settings, and the
//! workspace files OpenClaw builds its persona from, all under the agent's OpenClaw home.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::runtimes::home::write_if_changed;
use crate::runtimes::ApprovalPolicy;
use crate::secrets::Provider;

/// The provider name the agent's model is filed under in `openclaw.json`.
pub const PROVIDER_NAME: &str = "clawboo";
/// The variable carrying the API key; `openclaw.json` refers to it, so no key is written to disk.
pub const API_KEY_ENV: &str = "CLAWBOO_MODEL_API_KEY";
/// Model retries after a transient failure (OpenClaw's own default is 8 within 90 s).
const PROVIDER_RETRIES: u32 = 1;

/// The workspace files OpenClaw injects into its system prompt, copied from the agent's folder.
pub const WORKSPACE_FILES: [&str; 4] = ["SOUL.md", "AGENTS.md", "IDENTITY.md", "USER.md"];

/// Where things live inside the agent's OpenClaw home.
#[derive(Debug, Clone)]
pub struct Layout {
    pub home: PathBuf,
    /// `OPENCLAW_STATE_DIR`.
    pub state: PathBuf,
    /// `OPENCLAW_CONFIG_PATH`.
    pub config: PathBuf,
    /// `agents.defaults.workspace`: persona files and OpenClaw's memory.
    pub workspace: PathBuf,
    /// The default agent's directory (settings, database).
    pub agent_dir: PathBuf,
    pub log: PathBuf,
}

impl Layout {
    pub fn new(home: &Path) -> Self {
        let state = home.join("state");
        let agent_dir = state.join("agents/main/agent");
        Self {
            home: home.to_owned(),
            config: state.join("openclaw.json"),
            workspace: home.join("workspace"),
            log: home.join("logs/openclaw.log"),
            agent_dir,
            state,
        }
    }

    /// OpenClaw's per-agent database, which holds the session transcripts.
    pub fn database(&self) -> PathBuf {
        self.agent_dir.join("openclaw-agent.sqlite")
    }
}

/// OpenClaw's model API for a provider.
pub fn api_for(provider: Provider) -> &'static str {
    match provider {
        Provider::Anthropic => "anthropic-messages",
        Provider::OpenAi => "openai-responses",
        Provider::OpenRouter | Provider::Custom => "openai-completions",
    }
}

/// Gives `openclaw.json` Clawboo's tools: the MCP server (streamable HTTP; without `transport`
/// OpenClaw speaks SSE), its token read from the Gateway's env (`${CLAWBOO_TOKEN}`), and tool
/// search off so the model gets `clawboo__<tool>` directly rather than behind `tool_call`.
pub fn add_clawboo_tools(config: &mut Value, endpoint: &str) {
    config["mcp"] = json!({ "servers": { crate::tools::SERVER_NAME: {
        "url": endpoint,
        "transport": "streamable-http",
        "headers": { "Authorization": format!("Bearer ${{{}}}", crate::tools::TOKEN_ENV) },
    } } });
    config["tools"]["toolSearch"] = json!(false);
}

/// The whole `openclaw.json` for one agent.
pub fn openclaw_json(
    layout: &Layout,
    provider: Provider,
    base_url: &str,
    model: &str,
    cwd: &Path,
    approval: ApprovalPolicy,
) -> Value {
    let mut tools = tool_rules(approval);
    let mut deny: Vec<Value> = tools["deny"].as_array().cloned().unwrap_or_default();
    for tool in NOT_OFFERED_BY_CLAWBOO {
        if !deny.iter().any(|d| d == tool) {
            deny.push(json!(tool));
        }
    }
    tools["deny"] = Value::Array(deny);
    json!({
        "models": {
            "providers": { PROVIDER_NAME: {
                "baseUrl": base_url.trim_end_matches('/'),
                "apiKey": format!("${{{API_KEY_ENV}}}"),
                "api": api_for(provider),
                "models": [{ "id": model, "name": model, "contextWindow": 128_000, "maxTokens": 8192 }],
            } },
            // OpenClaw 2026.9.6 fetches catalog.openclaw.ai at every start and every six hours;
            // the only model here is Clawboo's, so nothing leaves the machine for it.
            "catalogRefresh": { "enabled": false },
        },
        "agents": { "defaults": {
            "model": { "primary": format!("{PROVIDER_NAME}/{model}") },
            "workspace": layout.workspace,
            "cwd": cwd,
            "skipBootstrap": true,
            // The Gateway stays up between turns: no model calls of its own.
            "heartbeat": { "every": "0m" },
        } },
        "tools": tools,
        "logging": { "file": layout.log },
        "update": { "checkOnStart": false },
        // memory-core's "dreaming" is on by default: a nightly cron sweep (03:00) that calls the
        // model on its own and rewrites the workspace's MEMORY.md — spending the user's tokens
        // with nobody asking, beside Clawboo's own memory.
        "plugins": { "entries": { "memory-core": { "config": { "dreaming": { "enabled": false } } } } },
    })
}

/// OpenClaw's `tools` for an approval policy: the top-level `tools` of a Gateway Clawboo runs,
/// and the Gateway agent's own `agents.entries.<id>.tools` on a Gateway the user runs (the same
/// keys: `exec`, `deny`, `fs`; OpenClaw 2026.9.6 `AgentToolsSchema`).
///
/// File tools are denied unless everything is allowed: edits then go through commands, and
/// OpenClaw asks (over ACP `session/request_permission`) before any command outside its
/// allowlist. Background commands finishing do not start turns of their own.
pub fn tool_rules(approval: ApprovalPolicy) -> Value {
    let no_edits = json!(["write", "edit", "apply_patch"]);
    match approval {
        ApprovalPolicy::AllowAll => json!({ "exec": { "mode": "full", "notifyOnExit": false } }),
        ApprovalPolicy::Ask => json!({ "exec": { "mode": "ask", "notifyOnExit": false }, "deny": no_edits }),
        ApprovalPolicy::ReadOnly => read_only_tools(),
    }
}

/// OpenClaw's own tools a Gateway Clawboo starts never offers, whatever the policy: surfaces of
/// OpenClaw's own apps (browser, canvas, screens, devices, chat channels), its scheduling and
/// configuration (an agent that can patch its Gateway's config could lift its own rules;
/// routines are Clawboo's), work across its sessions and its own goals and questions (teammates
/// go through Clawboo's hand-offs, the Board and `ask_user`, where the guards and the Inbox see
/// them), and media generation (calls providers Clawboo holds no key for). Each schema is sent
/// with every request: 2026.9.6 offered 69 tools, 110 KB, before this.
pub const NOT_OFFERED_BY_CLAWBOO: &[&str] = &[
    "group:ui",
    "group:nodes",
    "group:automation",
    "group:messaging",
    "group:sessions",
    "group:agents",
    "image_generate",
    "music_generate",
    "video_generate",
    "tts",
];

/// Tools a read-only agent must not have (OpenClaw 2026.9.6 tool ids and groups): writing,
/// running code (an allowlisted "safe" command such as `cat` could read any path), the web,
/// the browser and other UI, devices, automation (cron, config, plugins), messaging, spawning
/// or messaging other sessions, and media generation (which calls out).
pub const READ_ONLY_DENIED: &[&str] = &[
    "write",
    "edit",
    "apply_patch",
    "group:runtime",
    "group:web",
    "group:ui",
    "group:nodes",
    "group:automation",
    "group:messaging",
    "group:media",
    "sessions_spawn",
    "sessions_send",
    "conversations_send",
    "conversations_turn",
];

/// Read-only: exec refused outright (allowlist mode, and denied), the tools above denied, and
/// the file tools that remain (`read`) confined to the workspace (`tools.fs.workspaceOnly`).
fn read_only_tools() -> Value {
    json!({
        "exec": { "mode": "allowlist", "notifyOnExit": false },
        "deny": READ_ONLY_DENIED,
        "fs": { "workspaceOnly": true },
    })
}

/// Writes the configuration and settings, and copies the persona files, each only when changed.
pub fn prepare(layout: &Layout, config: &Value, source_dir: &Path) -> Result<()> {
    for dir in [&layout.state, &layout.workspace, &layout.agent_dir] {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("Cannot create {}", dir.display()), e))?;
    }
    write_if_changed(&layout.config, &pretty(config))?;
    let settings = json!({ "retry": { "provider": { "maxRetries": PROVIDER_RETRIES } } });
    write_if_changed(&layout.agent_dir.join("settings.json"), &pretty(&settings))?;
    sync_workspace(source_dir, &layout.workspace)
}

/// Mirrors the agent's persona files into OpenClaw's workspace; a file removed from the agent's
/// folder is removed from the workspace too.
pub fn sync_workspace(source_dir: &Path, workspace: &Path) -> Result<()> {
    for name in WORKSPACE_FILES {
        crate::runtimes::home::mirror_file(&source_dir.join(name), &workspace.join(name))?;
    }
    Ok(())
}

fn pretty(value: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
