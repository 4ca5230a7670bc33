//! A small MCP server over stdio (newline-delimited JSON-RPC 2.0), for connector tests: what a
//! user's stdio connector is to Clawboo.
//!
//! ```text
//! cargo run -p clawboo-testkit --example fake_mcp_server
//! ```
//!
//! One tool, `lookup {query}`, answering `LOOKUP-RESULT for <query>: 42 (secret present: yes|no)`,
//! where the secret is the env variable `FAKE_MCP_SECRET` (its presence, never its value).
//! The tool says it only reads, in a closed world (`readOnlyHint: true`, `openWorldHint: false`):
//! a read-only agent may call it. `--fail` exits at once with status 1 (a connector that does not
//! start); `--writes` makes its read-only hint false; `--no-hints` sends no hints at all (neither
//! may run under read-only). `FAKE_MCP_LOG`, when set, gets `started <pid>` and then one line per
//! request method received.

use std::io::{BufRead, Write};

use serde_json::{json, Value};

fn main() {
    if std::env::args().any(|a| a == "--fail") {
        eprintln!("fake_mcp_server: failing on purpose");
        std::process::exit(1);
    }
    let hints = if std::env::args().any(|a| a == "--no-hints") {
        None
    } else {
        let read_only = !std::env::args().any(|a| a == "--writes");
        Some(json!({"readOnlyHint": read_only, "openWorldHint": false}))
    };
    let log = std::env::var_os("FAKE_MCP_LOG").map(std::path::PathBuf::from);
    if let Some(path) = &log {
        if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
            let _ = writeln!(file, "started {}", std::process::id());
        }
    }
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
        let method = message["method"].as_str().unwrap_or_default().to_owned();
        if let Some(path) = &log {
            if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
                let _ = writeln!(file, "{method}");
            }
        }
        // Notifications (no id) get no answer.
        let Some(id) = message.get("id").cloned() else { continue };
        let reply = match answer(&method, &message["params"], hints.as_ref()) {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, text)) => json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": text}}),
        };
        if writeln!(stdout, "{reply}").and_then(|()| stdout.flush()).is_err() {
            break;
        }
    }
}

fn answer(method: &str, params: &Value, hints: Option<&Value>) -> Result<Value, (i64, String)> {
    match method {
        "initialize" => Ok(json!({
            "protocolVersion": params["protocolVersion"].as_str().unwrap_or("2025-06-18"),
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "fake-mcp", "version": "1.0.0"},
        })),
        "ping" => Ok(json!({})),
        "tools/list" => {
            let mut tool = json!({
                "name": "lookup",
                "description": "Looks a term up in the fake directory.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"query": {"type": "string", "description": "What to look up."}},
                    "required": ["query"],
                },
            });
            if let Some(hints) = hints {
                tool["annotations"] = hints.clone();
            }
            Ok(json!({"tools": [tool]}))
        }
        "tools/call" if params["name"] == "lookup" => {
            let query = params["arguments"]["query"].as_str().unwrap_or("nothing");
            let secret = std::env::var("FAKE_MCP_SECRET").is_ok_and(|v| !v.is_empty());
            let text = format!("LOOKUP-RESULT for {query}: 42 (secret present: {})", if secret { "yes" } else { "no" });
            Ok(json!({"content": [{"type": "text", "text": text}], "isError": false}))
        }
        "tools/call" => Err((-32602, format!("Unknown tool: {}", params["name"]))),
        other => Err((-32601, format!("Method not found: {other}"))),
    }
}
