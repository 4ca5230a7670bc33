//! Codex app-server thread items (`item/started`, `item/completed`) as [`RunEvent`]s.

use serde_json::{json, Value};

use crate::runtimes::RunEvent;

/// The tool call an item starts, for the item types that are tool uses.
pub(super) fn started(item: &Value) -> Option<RunEvent> {
    let call_id = item["id"].as_str()?.to_owned();
    let (name, input) = match item["type"].as_str()? {
        "commandExecution" => ("shell".to_owned(), json!({"command": item["command"], "cwd": item["cwd"]})),
        "fileChange" => ("apply_patch".to_owned(), json!({"changes": item["changes"]})),
        "mcpToolCall" => (
            format!("{}/{}", item["server"].as_str().unwrap_or("mcp"), item["tool"].as_str().unwrap_or("tool")),
            item["arguments"].clone(),
        ),
        "dynamicToolCall" => (item["tool"].as_str().unwrap_or("tool").to_owned(), item["arguments"].clone()),
        "webSearch" => ("web_search".to_owned(), json!({"query": item["query"]})),
        _ => return None,
    };
    Some(RunEvent::ToolCallStarted { call_id, name, input })
}

/// The result of a finished tool item, or the reasoning a finished reasoning item carries.
/// Agent messages are handled by the protocol (they stream).
pub(super) fn completed(item: &Value) -> Option<RunEvent> {
    let call_id = item["id"].as_str().map(str::to_owned);
    let status = item["status"].as_str().unwrap_or("completed");
    let failed = matches!(status, "failed" | "declined");
    match item["type"].as_str()? {
        "reasoning" => {
            let parts = |key: &str| -> Vec<String> {
                item[key].as_array().into_iter().flatten().filter_map(|p| p.as_str().map(str::to_owned)).collect()
            };
            let mut text = parts("summary");
            text.extend(parts("content"));
            let text = text.join("\n\n");
            (!text.trim().is_empty()).then_some(RunEvent::Thinking { text })
        }
        "commandExecution" => {
            let mut output = item["aggregatedOutput"].as_str().unwrap_or_default().to_owned();
            if status == "declined" && output.is_empty() {
                output = "The command was declined.".to_owned();
            }
            let exit_failed = item["exitCode"].as_i64().is_some_and(|code| code != 0);
            Some(RunEvent::ToolResult { call_id: call_id?, output, is_error: failed || exit_failed })
        }
        "fileChange" => {
            let paths: Vec<&str> =
                item["changes"].as_array().into_iter().flatten().filter_map(|change| change["path"].as_str()).collect();
            let output = match status {
                "declined" => "The file change was declined.".to_owned(),
                "failed" => format!("Could not change {}.", paths.join(", ")),
                _ => format!("Changed {}.", paths.join(", ")),
            };
            Some(RunEvent::ToolResult { call_id: call_id?, output, is_error: failed })
        }
        "mcpToolCall" => {
            let error = item["error"]["message"].as_str();
            let output = match error {
                Some(message) => message.to_owned(),
                None => result_text(&item["result"]),
            };
            Some(RunEvent::ToolResult { call_id: call_id?, output, is_error: failed || error.is_some() })
        }
        "dynamicToolCall" => {
            let output = result_text(&item["contentItems"]);
            let is_error = failed || item["success"].as_bool() == Some(false);
            Some(RunEvent::ToolResult { call_id: call_id?, output, is_error })
        }
        "webSearch" => Some(RunEvent::ToolResult { call_id: call_id?, output: String::new(), is_error: false }),
        _ => None,
    }
}

/// The text parts of a tool result, else the result as JSON.
fn result_text(result: &Value) -> String {
    let parts = result.get("content").unwrap_or(result);
    let texts: Vec<&str> = parts.as_array().into_iter().flatten().filter_map(|part| part["text"].as_str()).collect();
    match (texts.is_empty(), result) {
        (false, _) => texts.join("\n"),
        (true, Value::Null) => String::new(),
        (true, Value::String(text)) => text.clone(),
        (true, other) => other.to_string(),
    }
}

/// Whether every action of a command only reads (Codex parses the command into actions).
pub(super) fn command_only_reads(actions: &Value) -> bool {
    let Some(actions) = actions.as_array() else { return false };
    !actions.is_empty()
        && actions.iter().all(|action| matches!(action["type"].as_str(), Some("read" | "listFiles" | "search")))
}
