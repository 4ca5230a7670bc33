//! Read-only for Hermes, which has no such mode (0.19.0, ACP): its terminal runs plain
//! commands without asking, `read_file` reads any path, and the ACP server fixes its toolset
//! (`hermes-acp`) whatever `agent.disabled_toolsets` says. Two of its own mechanisms hold:
//! - `approvals.deny` (fnmatch globs, checked before any approval mode or yolo): `*` refuses
//!   every terminal command;
//! - a `pre_tool_call` shell hook from `config.yaml` (registered for `hermes acp` too, without a
//!   prompt under `hooks_auto_accept`) that may block a call: Clawboo's guard, run by Hermes'
//!   own Python, lets only reading tools through, and only for paths inside the workspace.
//!
//! Hermes re-reads `config.yaml` when it changes, so an agent that could write it could lift
//! both; under read-only nothing can write (and Clawboo rewrites it before every turn).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::error::{Error, Result};

/// The guard's file name in `HERMES_HOME`.
pub const GUARD_FILE: &str = "clawboo_read_only_guard.py";

/// Tools a read-only Hermes agent keeps: reading files, and tools that change nothing outside
/// Hermes' own session (its to-do list, viewing skills, searching past sessions).
pub const READING_TOOLS: &[&str] =
    &["read_file", "search_files", "todo", "skills_list", "skill_view", "session_search"];

/// The guard: reads the hook payload on stdin, prints a block decision unless the tool only
/// reads inside the workspace (argv[1]). Any doubt (bad input, an error) blocks.
const GUARD_SCRIPT: &str = r#"import json, os, sys

READING = set(sys.argv[2].split(","))

def block(reason):
    print(json.dumps({"decision": "block", "reason": "Clawboo: this agent is read-only; " + reason}))
    sys.exit(0)

def inside(root, path, cwd):
    if not isinstance(path, str) or path.strip().startswith("~"):
        return False
    full = os.path.realpath(os.path.join(cwd, path))
    if full != root and not full.startswith(root + os.sep):
        return False
    rel = os.path.relpath(full, root)
    return rel.split(os.sep)[0].lower() != ".clawboo"

try:
    root = os.path.realpath(sys.argv[1])
    payload = json.loads(sys.stdin.read() or "{}")
    tool = payload.get("tool_name") or ""
    args = payload.get("tool_input") or {}
    if tool not in READING:
        block("the tool " + tool + " is not available.")
    for key in ("path", "file_path"):
        if key in args and not inside(root, args[key], root):
            block("reading outside the workspace is not allowed.")
except SystemExit:
    raise
except Exception as error:
    block("the call could not be checked (" + type(error).__name__ + ").")
"#;

/// The Python that runs Hermes: beside the `hermes` launcher in its environment.
pub fn python_for(program: &Path) -> Option<PathBuf> {
    let real = program.canonicalize().unwrap_or_else(|_| program.to_path_buf());
    [program.to_path_buf(), real]
        .iter()
        .filter_map(|p| p.parent())
        .flat_map(|dir| ["python3", "python", "python.exe"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

/// Writes the guard into `hermes_home` and returns the config keys that make read-only hold.
/// Fails when Hermes' Python cannot be found: a read-only agent does not start unguarded.
/// `clawboo_tools` (Clawboo's own MCP tools the run was granted, by Hermes' names) pass too.
pub fn install(hermes_home: &Path, program: &Path, workspace: &Path, clawboo_tools: &[String]) -> Result<Value> {
    let python = python_for(program).ok_or_else(|| {
        Error::RuntimeFailed(format!(
            "Hermes' Python was not found beside {}: a read-only Hermes agent cannot be confined without it.",
            program.display()
        ))
    })?;
    let script = hermes_home.join(GUARD_FILE);
    std::fs::write(&script, GUARD_SCRIPT).map_err(|e| Error::io(format!("Cannot write {}", script.display()), e))?;
    let command = [python.as_path(), script.as_path(), workspace]
        .iter()
        .map(|p| shell_quote(&p.to_string_lossy()))
        .chain(std::iter::once(shell_quote(
            &READING_TOOLS
                .iter()
                .copied()
                .chain(clawboo_tools.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(","),
        )))
        .collect::<Vec<_>>()
        .join(" ");
    Ok(json!({
        "approvals": {"mode": "manual", "deny": ["*"]},
        "hooks": {"pre_tool_call": [{"command": command, "timeout": 30}]},
        "hooks_auto_accept": true,
    }))
}

/// Merges `extra` into the JSON text of `config.yaml` (top-level keys replaced).
pub fn merge(config: &str, extra: &Value) -> String {
    let mut value: Value = serde_json::from_str(config).unwrap_or_else(|_| json!({}));
    if let (Some(target), Some(extra)) = (value.as_object_mut(), extra.as_object()) {
        for (key, entry) in extra {
            target.insert(key.clone(), entry.clone());
        }
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// A word for POSIX `shlex.split`: single-quoted, inner quotes closed and escaped.
fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r#"'"'"'"#))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_refuses_every_command_and_hooks_the_guard() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("venv/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("hermes"), "").unwrap();
        std::fs::write(bin.join("python3"), "").unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let granted = ["mcp__clawboo__peer_post".to_owned()];
        let extra = install(&home, &bin.join("hermes"), Path::new("/work/it's here"), &granted).unwrap();
        assert_eq!(extra["approvals"]["deny"], json!(["*"]));
        assert_eq!(extra["hooks_auto_accept"], true);
        let command = extra["hooks"]["pre_tool_call"][0]["command"].as_str().unwrap();
        assert!(command.starts_with(&format!("'{}'", bin.join("python3").display())), "{command}");
        assert!(command.contains(r#"'/work/it'"'"'s here'"#), "{command}");
        assert!(command.ends_with(",session_search,mcp__clawboo__peer_post'"), "Clawboo's tools pass: {command}");
        assert!(home.join(GUARD_FILE).exists());
        let merged = merge(r#"{"model": {"default": "m"}, "approvals": {"mode": "manual"}}"#, &extra);
        let merged: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(merged["model"]["default"], "m");
        assert_eq!(merged["approvals"]["deny"], json!(["*"]));

        let no_python = dir.path().join("bare/hermes");
        assert!(install(&home, &no_python, Path::new("/w"), &[]).is_err(), "no unguarded start");
    }
}
