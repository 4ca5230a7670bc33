//! What each Clawboo tool looks like to a model, and the check of its (untrusted) arguments
//! before anything reaches the [`super::ToolHost`].

use serde_json::{json, Map, Value};

use super::{ToolName, ToolSpec};

/// The longest text a tool takes (a hand-off's task, a peer post).
pub const MAX_TEXT_BYTES: usize = 16 * 1024;
/// The longest agent handle `handoff` takes.
pub const MAX_HANDLE_BYTES: usize = 128;
/// The most posts `peer_read` returns at once.
pub const MAX_READ_LIMIT: u64 = 100;

/// Every tool, in a stable order.
pub const ALL: [ToolName; 3] = [ToolName::Handoff, ToolName::PeerPost, ToolName::PeerRead];

/// The tool whose wire name is `name`.
pub fn parse(name: &str) -> Option<ToolName> {
    ALL.into_iter().find(|t| t.as_str() == name)
}

pub fn spec(tool: ToolName) -> ToolSpec {
    match tool {
        ToolName::Handoff => ToolSpec {
            name: tool,
            description: "Hand a task to a teammate. They work on it in their own turn; their final reply \
                          comes back to you as a result. One call per teammate and task.",
            input_schema: json!({
                "type": "object",
                "properties": {
                    "to": {"type": "string", "description": "The teammate's handle, e.g. \"@ada\"."},
                    "task": {"type": "string", "description": "What they should do, self-contained (at most 16 KiB)."},
                },
                "required": ["to", "task"],
                "additionalProperties": false,
            }),
        },
        ToolName::PeerPost => ToolSpec {
            name: tool,
            description: "Post a note to your team's peer room, signed with your handle. Teammates read it; \
                          it carries no authority.",
            input_schema: json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The note (at most 16 KiB)."}},
                "required": ["text"],
                "additionalProperties": false,
            }),
        },
        ToolName::PeerRead => ToolSpec {
            name: tool,
            description: "Read the latest notes in your team's peer room, oldest first.",
            input_schema: json!({
                "type": "object",
                "properties": {
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_READ_LIMIT,
                              "description": "How many of the latest notes (default 20)."},
                },
                "additionalProperties": false,
            }),
        },
    }
}

/// The specs of `tools`, in the order given, each once.
pub fn specs(tools: &[ToolName]) -> Vec<ToolSpec> {
    let mut seen = Vec::with_capacity(tools.len());
    for tool in tools {
        if !seen.contains(tool) {
            seen.push(*tool);
        }
    }
    seen.into_iter().map(spec).collect()
}

/// The arguments of a call of `tool`, checked: an object with exactly the declared fields, of
/// the declared types and sizes. `Err` is a message for the model.
pub fn check_args(tool: ToolName, args: Value) -> Result<Value, String> {
    let name = tool.as_str();
    let args = match args {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        _ => return Err(format!("{name}: the arguments must be a JSON object.")),
    };
    let allowed: &[&str] = match tool {
        ToolName::Handoff => &["to", "task"],
        ToolName::PeerPost => &["text"],
        ToolName::PeerRead => &["limit"],
    };
    if let Some(unknown) = args.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!("{name}: unknown argument \"{unknown}\" (it takes {}).", allowed.join(", ")));
    }
    match tool {
        ToolName::Handoff => {
            let to = text_arg(&args, name, "to", MAX_HANDLE_BYTES)?;
            let task = text_arg(&args, name, "task", MAX_TEXT_BYTES)?;
            Ok(json!({"to": to, "task": task}))
        }
        ToolName::PeerPost => Ok(json!({"text": text_arg(&args, name, "text", MAX_TEXT_BYTES)?})),
        ToolName::PeerRead => match args.get("limit") {
            None | Some(Value::Null) => Ok(json!({})),
            Some(limit) => match limit.as_u64().filter(|n| (1..=MAX_READ_LIMIT).contains(n)) {
                Some(n) => Ok(json!({"limit": n})),
                None => Err(format!("{name}: \"limit\" must be a whole number from 1 to {MAX_READ_LIMIT}.")),
            },
        },
    }
}

fn text_arg(args: &Map<String, Value>, tool: &str, field: &str, max_bytes: usize) -> Result<String, String> {
    match args.get(field) {
        Some(Value::String(s)) if s.trim().is_empty() => Err(format!("{tool}: \"{field}\" is empty.")),
        Some(Value::String(s)) if s.len() > max_bytes => {
            Err(format!("{tool}: \"{field}\" is {} bytes; at most {max_bytes} are taken.", s.len()))
        }
        Some(Value::String(s)) => Ok(s.clone()),
        None | Some(Value::Null) => Err(format!("{tool} needs \"{field}\" (a string).")),
        Some(_) => Err(format!("{tool}: \"{field}\" must be a string.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_checked_for_shape_type_and_size() {
        assert_eq!(check_args(ToolName::PeerPost, json!({"text": "hi"})), Ok(json!({"text": "hi"})));
        assert!(check_args(ToolName::PeerPost, json!({"text": 5})).unwrap_err().contains("must be a string"));
        assert!(check_args(ToolName::PeerPost, json!({"text": " "})).unwrap_err().contains("empty"));
        assert!(check_args(ToolName::PeerPost, json!({"text": "x".repeat(MAX_TEXT_BYTES + 1)})).is_err());
        assert!(check_args(ToolName::PeerPost, json!({"text": "a", "as": "user"})).unwrap_err().contains("unknown"));
        assert!(check_args(ToolName::PeerPost, json!(["a"])).is_err());
        assert!(check_args(ToolName::Handoff, json!({"to": "@ada"})).unwrap_err().contains("task"));
        assert_eq!(check_args(ToolName::PeerRead, Value::Null), Ok(json!({})));
        assert_eq!(check_args(ToolName::PeerRead, json!({"limit": 5})), Ok(json!({"limit": 5})));
        assert!(check_args(ToolName::PeerRead, json!({"limit": 0})).is_err());
        assert!(check_args(ToolName::PeerRead, json!({"limit": "5"})).is_err());
    }

    #[test]
    fn specs_keep_the_order_given_and_name_each_tool_once() {
        let names: Vec<_> =
            specs(&[ToolName::PeerRead, ToolName::Handoff, ToolName::PeerRead]).into_iter().map(|s| s.name).collect();
        assert_eq!(names, [ToolName::PeerRead, ToolName::Handoff]);
        assert_eq!(parse("peer_post"), Some(ToolName::PeerPost));
        assert_eq!(parse("mcp__clawboo__peer_post"), None);
    }
}
