//! Which struct is which tool's arguments: what each tool looks like to a model (derived from
//! the struct, see [`super::args`]) and a call's arguments parsed into it ([`ToolCall`]).

use std::sync::OnceLock;

use serde_json::Value;

use super::args::{self, ToolArgs};
use super::{board, memory, routine, team, threads, ToolName, ToolSpec};

pub use super::memory::{MAX_ID_BYTES, MAX_QUERY_CHARS, MAX_SEARCH_LIMIT};
pub use super::team::{MAX_HANDLE_BYTES, MAX_READ_LIMIT, MAX_TEXT_BYTES};

/// The Board tools, to grant together.
pub const BOARD_TOOLS: [ToolName; 3] = [ToolName::BoardList, ToolName::BoardUpdate, ToolName::BoardComment];

/// The memory tools, to grant together.
pub const MEMORY_TOOLS: [ToolName; 6] = [
    ToolName::MemorySave,
    ToolName::MemorySearch,
    ToolName::MemoryGet,
    ToolName::NoteSave,
    ToolName::ScratchWrite,
    ToolName::ScratchPromote,
];

/// Each tool once, with its arguments' struct: the one table of Clawboo's tools.
macro_rules! tools {
    ($($tool:ident => $args:ty),+ $(,)?) => {
        /// Every tool, in a stable order.
        pub const ALL: [ToolName; [$(ToolName::$tool),+].len()] = [$(ToolName::$tool),+];

        /// A call of one of Clawboo's tools with its arguments, parsed and checked.
        #[derive(Debug)]
        pub enum ToolCall {
            $($tool($args)),+
        }

        impl ToolCall {
            /// A call of `tool` with `args` (untrusted model output). `Err` is a message for
            /// the model.
            pub fn parse(tool: ToolName, args: Value) -> Result<Self, String> {
                match tool {
                    $(ToolName::$tool => args::parse::<$args>(args).map(Self::$tool)),+
                }
            }

            pub fn tool(&self) -> ToolName {
                match self {
                    $(Self::$tool(_) => ToolName::$tool),+
                }
            }

            /// The checked arguments as JSON: trimmed, defaults filled in.
            pub fn arguments(&self) -> Value {
                let value = match self {
                    $(Self::$tool(args) => serde_json::to_value(args)),+
                };
                value.expect("checked arguments serialize")
            }
        }

        /// `tool`'s description and arguments' schema, derived from its struct.
        fn derive(tool: ToolName) -> (String, Value) {
            match tool {
                $(ToolName::$tool => {
                    const _: () = assert!(matches!(<$args as ToolArgs>::TOOL, ToolName::$tool));
                    args::derive::<$args>()
                }),+
            }
        }
    };
}

tools! {
    Handoff => team::Handoff,
    PeerPost => team::PeerPost,
    PeerRead => team::PeerRead,
    MemorySave => memory::MemorySave,
    MemorySearch => memory::MemorySearch,
    MemoryGet => memory::MemoryGet,
    NoteSave => memory::NoteSave,
    ScratchWrite => memory::ScratchWrite,
    ScratchPromote => memory::ScratchPromote,
    BoardList => board::BoardList,
    BoardUpdate => board::BoardUpdate,
    BoardComment => board::BoardComment,
    AskUser => team::AskUser,
    RoutineCreate => routine::RoutineCreate,
    SearchThreads => threads::SearchThreads,
}

/// The tool whose wire name is `name`.
pub fn parse(name: &str) -> Option<ToolName> {
    ALL.into_iter().find(|t| t.as_str() == name)
}

/// What `tool` looks like to a model.
pub fn spec(tool: ToolName) -> ToolSpec {
    static DERIVED: OnceLock<Vec<(ToolName, String, Value)>> = OnceLock::new();
    let derived = DERIVED.get_or_init(|| {
        ALL.into_iter()
            .map(|tool| {
                let (description, schema) = derive(tool);
                (tool, description, schema)
            })
            .collect()
    });
    let (_, description, schema) = derived.iter().find(|(t, ..)| *t == tool).expect("every tool is in ALL");
    ToolSpec { name: tool, description, input_schema: schema.clone() }
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

/// The arguments of a call of `tool`, checked and normalised (trimmed, defaults filled in), as
/// JSON. `Err` is a message for the model.
pub fn check_args(tool: ToolName, args: Value) -> Result<Value, String> {
    ToolCall::parse(tool, args).map(|call| call.arguments())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{MAX_COMMENT_CHARS, MAX_DESCRIPTION_CHARS, MAX_REASON_CHARS};
    use crate::memory::{DEFAULT_TOP, MAX_FACT_CHARS, MAX_NOTE_CHARS, MAX_TAGS, MAX_TAG_CHARS};
    use serde_json::json;

    /// The model is told exactly what to fix: the tool, the argument, the rule.
    #[test]
    fn refusals_name_the_tool_and_the_argument() {
        let refused = |tool, args| check_args(tool, args).unwrap_err();
        let cases = [
            (ToolName::PeerPost, json!(["a"]), "peer_post: the arguments must be a JSON object."),
            (
                ToolName::PeerPost,
                json!({"text": "a", "as": "user"}),
                "peer_post: unknown argument \"as\" (it takes text).",
            ),
            (ToolName::PeerPost, json!({}), "peer_post needs \"text\" (a string)."),
            (ToolName::PeerPost, json!({"text": 5}), "peer_post: \"text\" must be a string."),
            (ToolName::PeerPost, json!({"text": " "}), "peer_post: \"text\" is empty."),
            (
                ToolName::Handoff,
                json!({"to": "x".repeat(129), "task": "t"}),
                "handoff: \"to\" is 129 bytes; at most 128 are taken.",
            ),
            (
                ToolName::MemorySave,
                json!({"text": "é".repeat(2001)}),
                "memory_save: \"text\" is 2001 characters; at most 2000 are taken (nothing was saved or cut).",
            ),
            (
                ToolName::MemorySave,
                json!({"text": "t", "tags": vec!["a"; 9]}),
                "memory_save: 9 tags; at most 8 are taken.",
            ),
            (ToolName::MemorySave, json!({"text": "t", "tags": ["a", " "]}), "memory_save: tag 2 is empty."),
            (
                ToolName::MemorySave,
                json!({"text": "t", "scope": "everyone"}),
                "memory_save: \"scope\" must be one of \"agent\", \"team\", \"global\".",
            ),
            (
                ToolName::MemorySave,
                json!({"text": "t", "scope": 1}),
                "memory_save: \"scope\" must be a string, one of \"agent\", \"team\", \"global\".",
            ),
            (
                ToolName::MemorySearch,
                json!({"query": "q", "limit": 11}),
                "memory_search: \"limit\" must be a whole number from 1 to 10.",
            ),
            (
                ToolName::ScratchPromote,
                json!({"note_id": "s-1"}),
                "scratch_promote needs \"to\" (\"team\" or \"global\").",
            ),
            (
                ToolName::BoardUpdate,
                json!({"status": "done"}),
                "board_update needs \"card\" (the card's number, e.g. 12).",
            ),
            (
                ToolName::BoardUpdate,
                json!({"card": "#x"}),
                "board_update: \"card\" must be a card's number, e.g. 12 for #12.",
            ),
            (ToolName::BoardUpdate, json!({"card": 3}), "board_update needs \"status\", \"description\", or both."),
            (ToolName::RoutineCreate, json!({"name": "n"}), "routine_create: \"prompt\" must be a string."),
            (
                ToolName::RoutineCreate,
                json!({"name": "n", "prompt": "p"}),
                "routine_create needs exactly one of \"cron\", \"every_minutes\" and \"at\".",
            ),
            (
                ToolName::RoutineCreate,
                json!({"name": "n", "prompt": "p", "every_minutes": 0}),
                "routine_create: \"every_minutes\" is a whole number of minutes, at least 1.",
            ),
            (
                ToolName::RoutineCreate,
                json!({"name": "n", "prompt": "p", "cron": "0 9 * * *", "heartbeat": "yes"}),
                "routine_create: \"heartbeat\" is true or false.",
            ),
        ];
        for (tool, args, message) in cases {
            assert_eq!(refused(tool, args.clone()), message, "{} {args}", tool.as_str());
        }
    }

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
    fn memory_tool_arguments_are_checked_and_normalised() {
        let save = |args: Value| check_args(ToolName::MemorySave, args);
        assert_eq!(save(json!({"text": "Prices are in docs"})), Ok(json!({"text": "Prices are in docs", "tags": []})));
        assert_eq!(
            save(json!({"text": "t", "tags": [" pricing "], "scope": "global"})),
            Ok(json!({"text": "t", "tags": ["pricing"], "scope": "global"}))
        );
        assert!(save(json!({"text": "t", "scope": "everyone"})).unwrap_err().contains("one of"));
        assert!(save(json!({"text": "t", "scope": 1})).unwrap_err().contains("must be a string"));
        assert!(save(json!({"text": "t", "tags": "pricing"})).unwrap_err().contains("list of strings"));
        assert!(save(json!({"text": "t", "tags": [1]})).unwrap_err().contains("list of strings"));
        assert!(save(json!({"text": "t", "tags": [""]})).unwrap_err().contains("empty"));
        assert!(save(json!({"text": "t", "tags": ["x".repeat(MAX_TAG_CHARS + 1)]})).unwrap_err().contains("longer"));
        assert!(save(json!({"text": "t", "tags": vec!["a"; MAX_TAGS + 1]})).unwrap_err().contains("at most"));
        assert!(save(json!({"text": "t", "author": "user"})).unwrap_err().contains("unknown argument \"author\""));
        // Sizes of facts and notes are counted in chars, and refused, never cut.
        assert!(save(json!({"text": "é".repeat(MAX_FACT_CHARS)})).is_ok());
        let err = save(json!({"text": "é".repeat(MAX_FACT_CHARS + 1)})).unwrap_err();
        assert!(err.contains("2001 characters") && err.contains("nothing was saved"), "{err}");
        for tool in [ToolName::NoteSave, ToolName::ScratchWrite] {
            assert_eq!(check_args(tool, json!({"text": "n"})), Ok(json!({"text": "n"})));
            assert!(check_args(tool, json!({"text": "x".repeat(MAX_NOTE_CHARS + 1)})).is_err());
            assert!(check_args(tool, json!({})).unwrap_err().contains("needs \"text\""));
        }

        let search = |args: Value| check_args(ToolName::MemorySearch, args);
        assert_eq!(search(json!({"query": "prices"})), Ok(json!({"query": "prices", "limit": DEFAULT_TOP})));
        assert_eq!(search(json!({"query": "a\"b* OR", "limit": 10})), Ok(json!({"query": "a\"b* OR", "limit": 10})));
        assert!(search(json!({"query": "p", "limit": 11})).is_err());
        assert!(search(json!({"query": "p", "limit": 0})).is_err());
        assert!(search(json!({"query": "  "})).unwrap_err().contains("empty"));
        assert!(search(json!({"query": "x".repeat(MAX_QUERY_CHARS + 1)})).is_err());

        assert_eq!(check_args(ToolName::MemoryGet, json!({"id": " m-7f3a "})), Ok(json!({"id": "m-7f3a"})));
        assert!(check_args(ToolName::MemoryGet, json!({"id": "m".repeat(MAX_ID_BYTES + 1)})).is_err());
        assert!(check_args(ToolName::MemoryGet, json!({"id": 7})).is_err());

        let promote = |args: Value| check_args(ToolName::ScratchPromote, args);
        assert_eq!(promote(json!({"note_id": "s-1", "to": "team"})), Ok(json!({"note_id": "s-1", "to": "team"})));
        assert!(promote(json!({"note_id": "s-1"})).unwrap_err().contains("needs \"to\""));
        assert!(promote(json!({"note_id": "s-1", "to": "session"})).unwrap_err().contains("one of"));
        assert!(promote(json!({"to": "global"})).unwrap_err().contains("note_id"));
    }

    #[test]
    fn board_tool_arguments_are_checked_and_normalised() {
        let list = |args: Value| check_args(ToolName::BoardList, args);
        assert_eq!(list(Value::Null), Ok(json!({})));
        assert_eq!(list(json!({"status": " done "})), Ok(json!({"status": "done"})));
        assert!(list(json!({"status": "finished"})).unwrap_err().contains("one of"));
        assert!(list(json!({"team": "t2"})).unwrap_err().contains("unknown argument \"team\""));

        let update = |args: Value| check_args(ToolName::BoardUpdate, args);
        assert_eq!(update(json!({"card": "#12", "status": "done"})), Ok(json!({"card": 12, "status": "done"})));
        assert_eq!(update(json!({"card": 3, "description": ""})), Ok(json!({"card": 3, "description": ""})));
        assert!(update(json!({"card": 3, "status": "in_progress"})).unwrap_err().contains("one of"));
        assert!(update(json!({"card": 3})).unwrap_err().contains("needs \"status\""));
        assert!(update(json!({"card": 0, "status": "done"})).unwrap_err().contains("card's number"));
        assert!(update(json!({"card": -1, "status": "done"})).is_err());
        assert!(update(json!({"card": "#x", "status": "done"})).is_err());
        assert!(update(json!({"status": "done"})).unwrap_err().contains("needs \"card\""));
        assert!(update(json!({"card": 3, "status": "blocked", "reason": "x".repeat(MAX_REASON_CHARS + 1)})).is_err());
        assert!(update(json!({"card": 3, "description": "x".repeat(MAX_DESCRIPTION_CHARS + 1)})).is_err());
        assert!(update(json!({"card": 3, "status": "done", "assignee": "me"})).unwrap_err().contains("unknown"));

        let comment = |args: Value| check_args(ToolName::BoardComment, args);
        assert_eq!(comment(json!({"card": 12, "text": "ok"})), Ok(json!({"card": 12, "text": "ok"})));
        assert!(comment(json!({"card": 12, "text": " "})).unwrap_err().contains("empty"));
        assert!(comment(json!({"card": 12, "text": "x".repeat(MAX_COMMENT_CHARS + 1)})).is_err());
    }

    #[test]
    fn every_tool_has_an_object_schema_whose_fields_check_args_takes() {
        for tool in ALL {
            let spec = spec(tool);
            assert_eq!(parse(tool.as_str()), Some(tool));
            assert_eq!(spec.input_schema["type"], "object");
            // Unknown arguments are refused by the check (see `refusals_name_the_tool_and_the_argument`),
            // not restated in every schema sent.
            assert!(spec.input_schema.get("additionalProperties").is_none());
            // What Anthropic's, OpenAI's and the CLIs' tool lists take: short names, plain
            // inline schemas (no meta-schema, title, definitions or references).
            assert!(tool.as_str().len() <= 64 && !spec.description.is_empty(), "{}", tool.as_str());
            let text = spec.input_schema.to_string();
            for word in ["\"$schema\"", "\"$ref\"", "\"$defs\"", "\"definitions\"", "\"title\"", "\"null\"", "\\n"] {
                assert!(!text.contains(word), "{}: {word} in {text}", tool.as_str());
            }
            let properties = spec.input_schema["properties"].as_object().unwrap();
            let required: Vec<&str> = spec.input_schema["required"]
                .as_array()
                .map_or(Vec::new(), |r| r.iter().flat_map(Value::as_str).collect());
            for field in properties.keys() {
                // A declared field is never "unknown" to the check.
                let err = check_args(tool, json!({field: Value::Bool(true)})).err().unwrap_or_default();
                assert!(!err.contains("unknown argument"), "{}: {field}: {err}", tool.as_str());
            }
            for field in &required {
                assert!(properties.contains_key(*field), "{}: {field}", tool.as_str());
            }
        }
        assert!(MEMORY_TOOLS.iter().all(|t| ALL.contains(t)));
        assert!(BOARD_TOOLS.iter().all(|t| ALL.contains(t)));
        assert!(spec(ToolName::MemorySearch).description.contains("m-7f3a"));
        assert!(spec(ToolName::MemorySearch).description.contains("not instructions"));
    }

    /// What every runtime is sent for each tool: a change shows up as a diff in `snapshots/`.
    #[test]
    fn the_specs_every_runtime_is_sent() {
        let rendered: Vec<Value> = specs(&ALL)
            .into_iter()
            .map(|s| json!({"name": s.name.as_str(), "description": s.description, "input_schema": s.input_schema}))
            .collect();
        insta::assert_snapshot!(serde_json::to_string_pretty(&rendered).unwrap());
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
