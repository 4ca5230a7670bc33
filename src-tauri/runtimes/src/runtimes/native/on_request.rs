//! Tools sent once the model asks for them. A run's occasional tools (the grant's
//! `on_request`: the Board, routines, notes, the scratchpad…; and the user's connectors' when
//! they bring many, see `tools::CONNECTOR_TOOLS_SENT_WHOLE`) are listed by name in one small
//! tool, `load_tools`, instead of with their whole definitions in every request; a call of it
//! adds the named ones to the run's next requests. A call of one of them by name, unloaded,
//! runs all the same (its arguments are checked by Clawboo either way) and loads it too.
//! The list is the run's: the next turn starts again with the tools sent up front, so the
//! cached prefix of a conversation's requests stays the same turn to turn.

use serde_json::{json, Value};

use super::tools::ToolDef;

pub const LOAD_TOOLS: &str = "load_tools";

/// The tools of one run: those in its requests, and those it may still load.
pub struct RunTools {
    sent: Vec<ToolDef>,
    waiting: Vec<ToolDef>,
}

impl RunTools {
    /// `up_front` in every request; `later` named in `load_tools` (which is then sent last of
    /// the tools up front) until loaded.
    pub fn new(mut up_front: Vec<ToolDef>, later: Vec<ToolDef>) -> Self {
        if !later.is_empty() {
            up_front.push(load_tools(&later));
        }
        Self { sent: up_front, waiting: later }
    }

    /// What the next request offers.
    pub fn sent(&self) -> &[ToolDef] {
        &self.sent
    }

    /// A call of `name` by the model: a tool still waiting is loaded (it is being used).
    /// Whether it was waiting.
    pub fn called(&mut self, name: &str) -> bool {
        let Some(at) = self.waiting.iter().position(|t| t.name == name) else { return false };
        self.sent.push(self.waiting.remove(at));
        true
    }

    /// Runs a call of `load_tools`: `Ok` says what was loaded, `Err` is a tool error.
    pub fn load(&mut self, input: &Value) -> Result<String, String> {
        let names: Vec<&str> = match input.get("names").and_then(Value::as_array) {
            Some(names) => names.iter().filter_map(Value::as_str).map(str::trim).collect(),
            None => return Err(format!("{LOAD_TOOLS} needs \"names\", a list of tool names.")),
        };
        let (mut loaded, mut unknown) = (Vec::new(), Vec::new());
        for name in names {
            if self.called(name) || self.sent.iter().any(|t| t.name == name) {
                loaded.push(name);
            } else {
                unknown.push(name);
            }
        }
        if loaded.is_empty() {
            let waiting: Vec<&str> = self.waiting.iter().map(|t| t.name.as_ref()).collect();
            return Err(format!(
                "No tool of that name to load ({}). Tools to load: {}.",
                unknown.join(", "),
                if waiting.is_empty() { "none left".to_owned() } else { waiting.join(", ") }
            ));
        }
        let mut said = format!("Loaded: {}. Call them as usual.", loaded.join(", "));
        if !unknown.is_empty() {
            said.push_str(&format!(" Not tools of yours: {}.", unknown.join(", ")));
        }
        Ok(said)
    }
}

/// `load_tools`, naming each tool it loads with the first clause of its description.
fn load_tools(later: &[ToolDef]) -> ToolDef {
    let listed: Vec<String> = later.iter().map(|t| format!("{} ({})", t.name, first_clause(&t.description))).collect();
    ToolDef {
        name: LOAD_TOOLS.into(),
        description: format!("Load tools before their first use: {}.", listed.join("; ")).into(),
        schema: json!({
            "type": "object",
            "properties": {"names": {"type": "array", "items": {"type": "string"}}},
            "required": ["names"],
        }),
    }
}

/// A description's first clause: what the tool does, without its details (a connector's may be
/// long or span lines: at most its first line's [`MAX_CLAUSE_CHARS`] characters).
fn first_clause(description: &str) -> &str {
    let end = ["; ", ". ", " (", ": ", "\n"].iter().filter_map(|stop| description.find(stop)).min();
    let clause = end.map_or(description, |end| &description[..end]);
    let clause = clause.char_indices().nth(MAX_CLAUSE_CHARS).map_or(clause, |(at, _)| &clause[..at]);
    clause.trim().trim_end_matches('.')
}

const MAX_CLAUSE_CHARS: usize = 100;

#[cfg(test)]
mod tests {
    use super::*;

    fn def(name: &'static str, description: &'static str) -> ToolDef {
        ToolDef { name: name.into(), description: description.into(), schema: json!({"type": "object"}) }
    }

    fn names(tools: &RunTools) -> Vec<&str> {
        tools.sent().iter().map(|t| t.name.as_ref()).collect()
    }

    #[test]
    fn waiting_tools_are_named_in_load_tools_and_sent_once_loaded_or_called() {
        let later = vec![
            def("board_list", "List your team's open Board cards (outside a team, those assigned to you)."),
            def("note_save", "Save a private note; your latest notes are given to you later."),
            def("memory_get", "Read a fact by its id, or your MEMORY.md by the id \"MEMORY.md\"."),
        ];
        let mut tools = RunTools::new(vec![def("peer_post", "Post.")], later);
        assert_eq!(names(&tools), ["peer_post", LOAD_TOOLS]);
        let listing = &tools.sent()[1].description;
        assert_eq!(
            listing.as_ref(),
            "Load tools before their first use: board_list (List your team's open Board cards); \
             note_save (Save a private note); memory_get (Read a fact by its id, or your MEMORY.md by the id \"MEMORY.md\")."
        );

        let said = tools.load(&json!({"names": ["board_list", "nope"]})).unwrap();
        assert_eq!(said, "Loaded: board_list. Call them as usual. Not tools of yours: nope.");
        assert_eq!(names(&tools), ["peer_post", LOAD_TOOLS, "board_list"]);
        // Loading one already sent is no error; calling one unloaded loads it.
        assert!(tools.load(&json!({"names": ["peer_post"]})).is_ok());
        tools.called("memory_get");
        assert_eq!(names(&tools), ["peer_post", LOAD_TOOLS, "board_list", "memory_get"]);

        let refused = tools.load(&json!({"names": ["rm_rf"]})).unwrap_err();
        assert_eq!(refused, "No tool of that name to load (rm_rf). Tools to load: note_save.");
        assert!(tools.load(&json!({"tools": "x"})).unwrap_err().contains("needs \"names\""));
    }

    #[test]
    fn a_long_or_many_line_description_gives_a_short_clause() {
        assert_eq!(first_clause("Search issues\nArgs: query"), "Search issues");
        assert_eq!(first_clause(&"é".repeat(300)).chars().count(), MAX_CLAUSE_CHARS);
        assert_eq!(first_clause("  Lists files.  "), "Lists files");
    }

    #[test]
    fn nothing_to_load_sends_no_load_tools() {
        let tools = RunTools::new(vec![def("read_file", "Read.")], Vec::new());
        assert_eq!(names(&tools), ["read_file"]);
    }
}
