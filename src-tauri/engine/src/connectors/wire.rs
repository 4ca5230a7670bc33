//! How each runtime is told about a run's connectors: the same routes as Clawboo's own tools
//! server (MCP-NOTES.md). Values (secrets included) go only where the CLI hands them to the
//! MCP server: a config file in the run's private home (0600), the thread's config over stdin
//! (Codex), or ACP `session/new` over stdin (Hermes). Never argv, never the agent's own env.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::types::{RunConnector, RunTransport};
use crate::error::{Error, Result};

fn object(pairs: &[(String, String)]) -> Value {
    Value::Object(pairs.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect())
}

fn named_list(pairs: &[(String, String)]) -> Value {
    Value::Array(pairs.iter().map(|(k, v)| json!({"name": k, "value": v})).collect())
}

/// Claude Code `--mcp-config` entries (`mcpServers.<name>`): stdio or HTTP.
pub fn claude_servers(connectors: &[RunConnector]) -> Map<String, Value> {
    connectors
        .iter()
        .map(|c| {
            let entry = match &c.transport {
                RunTransport::Stdio { command, args, env } => {
                    json!({"type": "stdio", "command": command, "args": args, "env": object(env)})
                }
                RunTransport::Http { url, headers } => json!({"type": "http", "url": url, "headers": object(headers)}),
            };
            (c.name.clone(), entry)
        })
        .collect()
}

/// The names Claude Code and Hermes give a connector's tools start with `mcp__<name>__`.
pub fn mcp_prefix(connector: &str) -> String {
    format!("mcp__{connector}")
}

/// Codex `mcp_servers.<name>` tables for `thread/start`'s `config`. Under "allow all"
/// (`approval_policy=never`) the tools are approved up front, else Codex would fail them
/// unasked; otherwise Codex asks as it does for any MCP tool.
pub fn codex_servers(connectors: &[RunConnector], approve_all: bool) -> Map<String, Value> {
    connectors
        .iter()
        .map(|c| {
            let mut entry = match &c.transport {
                RunTransport::Stdio { command, args, env } => {
                    json!({"command": command, "args": args, "env": object(env)})
                }
                RunTransport::Http { url, headers } => json!({"url": url, "http_headers": object(headers)}),
            };
            if approve_all {
                entry["default_tools_approval_mode"] = json!("approve");
            }
            (c.name.clone(), entry)
        })
        .collect()
}

/// ACP `session/new` `mcpServers` entries (Hermes).
pub fn acp_servers(connectors: &[RunConnector]) -> Vec<Value> {
    connectors
        .iter()
        .map(|c| match &c.transport {
            RunTransport::Stdio { command, args, env } => {
                json!({"name": c.name, "command": command, "args": args, "env": named_list(env)})
            }
            RunTransport::Http { url, headers } => {
                json!({"type": "http", "name": c.name, "url": url, "headers": named_list(headers)})
            }
        })
        .collect()
}

/// OpenClaw `mcp.servers.<name>` entries (`openclaw.json`).
pub fn openclaw_servers(connectors: &[RunConnector]) -> Map<String, Value> {
    connectors
        .iter()
        .map(|c| {
            let entry = match &c.transport {
                RunTransport::Stdio { command, args, env } => {
                    json!({"command": command, "args": args, "env": object(env)})
                }
                RunTransport::Http { url, headers } => {
                    json!({"url": url, "transport": "streamable-http", "headers": object(headers)})
                }
            };
            (c.name.clone(), entry)
        })
        .collect()
}

/// Writes a file only its owner can read (it may hold a connector's secrets).
pub fn write_private(path: &Path, text: &str) -> Result<()> {
    let failed = |e| Error::io(format!("Cannot write {}", path.display()), e);
    #[cfg(unix)]
    {
        use std::io::Write;
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(path)
            .map_err(failed)?;
        // A file made earlier with wider permissions is narrowed too.
        file.set_permissions(std::fs::Permissions::from_mode(0o600)).map_err(failed)?;
        file.write_all(text.as_bytes()).map_err(failed)
    }
    #[cfg(not(unix))]
    {
        std::fs::write(path, text).map_err(failed)
    }
}

/// Narrows an existing file to its owner (a config another module wrote).
pub fn restrict(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| Error::io(format!("Cannot restrict {}", path.display()), e))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// The warnings for the MCP servers Claude Code's `system/init` reports as failed: connectors
/// (not Clawboo's own server) that did not start.
pub fn failed_servers(init: &Value) -> Vec<String> {
    let servers = init["mcp_servers"].as_array().map(Vec::as_slice).unwrap_or_default();
    servers
        .iter()
        .filter(|s| s["name"].as_str().is_some_and(|n| n != crate::tools::SERVER_NAME))
        .filter(|s| matches!(s["status"].as_str(), Some("failed" | "needs-auth")))
        .map(|s| {
            let status = s["status"].as_str().unwrap_or_default();
            let why = if status == "needs-auth" { "it needs authentication" } else { "Claude Code reports it failed" };
            format!("Connector '{}' did not start: {why}.", s["name"].as_str().unwrap_or_default())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both() -> Vec<RunConnector> {
        vec![
            RunConnector {
                name: "files".into(),
                transport: RunTransport::Stdio {
                    command: "fs-server".into(),
                    args: vec!["--root".into(), "/data".into()],
                    env: vec![("TOKEN".into(), "s3cret".into())],
                },
            },
            RunConnector {
                name: "web".into(),
                transport: RunTransport::Http {
                    url: "https://mcp.example.com/mcp".into(),
                    headers: vec![("Authorization".into(), "Bearer t".into())],
                },
            },
        ]
    }

    #[test]
    fn each_runtime_gets_its_own_shape() {
        let claude = Value::Object(claude_servers(&both()));
        assert_eq!(claude["files"]["env"]["TOKEN"], "s3cret");
        assert_eq!(claude["files"]["args"][1], "/data");
        assert_eq!(claude["web"]["type"], "http");
        let codex = Value::Object(codex_servers(&both(), true));
        assert_eq!(codex["web"]["http_headers"]["Authorization"], "Bearer t");
        assert_eq!(codex["files"]["default_tools_approval_mode"], "approve");
        assert!(Value::Object(codex_servers(&both(), false))["files"].get("default_tools_approval_mode").is_none());
        let acp = acp_servers(&both());
        assert_eq!(acp[0]["env"][0], json!({"name": "TOKEN", "value": "s3cret"}));
        assert_eq!(acp[1]["headers"][0]["name"], "Authorization");
        let openclaw = Value::Object(openclaw_servers(&both()));
        assert_eq!(openclaw["web"]["transport"], "streamable-http");
        assert!(!format!("{:?}", both()).contains("s3cret"), "Debug prints no value");
    }

    #[test]
    fn claude_init_failures_become_warnings_but_not_for_clawboo() {
        let init = json!({"mcp_servers": [
            {"name": "clawboo", "status": "failed"},
            {"name": "files", "status": "failed"},
            {"name": "web", "status": "connected"},
        ]});
        assert_eq!(failed_servers(&init), vec!["Connector 'files' did not start: Claude Code reports it failed."]);
    }

    #[cfg(unix)]
    #[test]
    fn private_files_are_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.json");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        write_private(&path, "{}").unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
    }
}
