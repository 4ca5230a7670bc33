//! The tools a Native agent has: reading, writing and listing files inside its workspace, and
//! nowhere else: not Clawboo's own folder, and not the files that configure tools (see
//! [`confine::TOOL_CONFIG_DIRS`] and [`confine::TOOL_CONFIG_FILES`]), whose writing could grant
//! another runtime's agent permissions or run code, and whose reading can show credentials.
//! Every refusal is a tool error the model sees, never a panic.

use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde_json::{json, Value};

use crate::runtimes::confine;

/// `read_file` returns at most this many bytes of a file.
pub const READ_CAP_BYTES: usize = 64 * 1024;
/// `list_files` shows at most this many entries.
const LIST_CAP: usize = 500;
/// The runtime homes inside an agent's folder: never readable or writable by a tool.
const HOMES_DIR: &str = confine::HOMES_DIR;

pub const READ_FILE: &str = "read_file";
pub const WRITE_FILE: &str = "write_file";
pub const LIST_FILES: &str = "list_files";

/// Up to this many tools of the user's connectors go whole in every request; more (a large MCP
/// server lists dozens, their schemas outweighing the rest of a request) are named in
/// `load_tools` and sent once the model loads or calls them.
pub const CONNECTOR_TOOLS_SENT_WHOLE: usize = 8;

/// A tool as offered to the model.
pub struct ToolDef {
    pub name: std::borrow::Cow<'static, str>,
    pub description: std::borrow::Cow<'static, str>,
    pub schema: Value,
}

pub fn definitions() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: READ_FILE.into(),
            description: "Read a text file in your workspace (its first 64 KiB).".into(),
            schema: json!({
                "type": "object",
                "properties": {"path": {"type": "string", "description": "Relative to the workspace."}},
                "required": ["path"],
            }),
        },
        ToolDef {
            name: WRITE_FILE.into(),
            description: "Create or overwrite a text file in your workspace (folders are made).".into(),
            schema: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Relative to the workspace."},
                    "content": {"type": "string", "description": "The whole new content."},
                },
                "required": ["path", "content"],
            }),
        },
        ToolDef {
            name: LIST_FILES.into(),
            description: "List a folder of your workspace (not recursive).".into(),
            schema: json!({
                "type": "object",
                "properties": {"path": {"type": "string", "description": "Relative to the workspace (default \".\")."}},
            }),
        },
    ]
}

/// What the model is offered in a run: the workspace tools the agent's policy lets it use (a
/// read-only agent is not offered `write_file`: a tool that is off is left out, not refused
/// after the call), then Clawboo's own tools the run was granted (team tools such as
/// `handoff`, memory tools such as `memory_search`), which go to the grant's invoker; the grant's
/// occasional ones wait to be loaded ([`super::on_request`]), and so do the user's connectors'
/// when there are more than [`CONNECTOR_TOOLS_SENT_WHOLE`] of them.
pub fn offered(
    policy: crate::runtimes::ApprovalPolicy,
    grant: Option<&crate::tools::ToolGrant>,
    connectors: &[crate::runtimes::mcp_client::OfferedTool],
) -> super::on_request::RunTools {
    let mut tools = definitions();
    if policy == crate::runtimes::ApprovalPolicy::ReadOnly {
        tools.retain(|t| !changes_files(&t.name));
    }
    let mut later = Vec::new();
    let mut offer = |def: ToolDef, on_request: bool| if on_request { later.push(def) } else { tools.push(def) };
    // The user's connectors shared with the agent, each tool named `<connector>__<tool>`.
    let connectors_later = connectors.len() > CONNECTOR_TOOLS_SENT_WHOLE;
    for tool in connectors {
        let def = ToolDef {
            name: tool.name.clone().into(),
            description: tool.description.clone().into(),
            schema: tool.schema.clone(),
        };
        offer(def, connectors_later);
    }
    for spec in grant.map(|g| g.specs.as_slice()).unwrap_or_default() {
        let def = ToolDef {
            name: spec.name.as_str().into(),
            description: spec.description.into(),
            schema: spec.input_schema.clone(),
        };
        offer(def, grant.is_some_and(|g| g.on_request.contains(&spec.name)));
    }
    super::on_request::RunTools::new(tools, later)
}

/// The granted Clawboo tool a call names, if it names one.
pub fn clawboo_tool(grant: &crate::tools::ToolGrant, name: &str) -> Option<crate::tools::ToolName> {
    grant.specs.iter().map(|s| s.name).find(|t| t.as_str() == name)
}

/// Whether the tool changes something, and so is subject to the approval policy.
pub fn changes_files(name: &str) -> bool {
    name == WRITE_FILE
}

/// A one-line description of a call, for a permission question.
pub fn describe(name: &str, input: &Value) -> String {
    let path = input["path"].as_str().unwrap_or("?");
    match name {
        WRITE_FILE => {
            let bytes = input["content"].as_str().map_or(0, str::len);
            format!("Write {bytes} bytes to {path} in the agent's workspace")
        }
        READ_FILE => format!("Read {path}"),
        LIST_FILES => format!("List {}", input["path"].as_str().unwrap_or(".")),
        other => format!("Use the tool {other}"),
    }
}

/// Runs one tool call in `workspace`. `Err` is a tool error to hand back to the model.
pub fn execute(workspace: &Path, name: &str, input: &Value) -> Result<String, String> {
    let path_arg = |required: bool| -> Result<String, String> {
        match &input["path"] {
            Value::String(s) if !s.trim().is_empty() => Ok(s.clone()),
            Value::Null | Value::String(_) if !required => Ok(".".into()),
            Value::Null => Err(format!("{name} needs a \"path\".")),
            _ => Err(format!("{name}: \"path\" must be a non-empty string.")),
        }
    };
    match name {
        READ_FILE => read_file(workspace, &path_arg(true)?),
        WRITE_FILE => {
            let Some(content) = input["content"].as_str() else {
                return Err("write_file needs a \"content\" string.".into());
            };
            write_file(workspace, &path_arg(true)?, content)
        }
        LIST_FILES => list_files(workspace, &path_arg(false)?),
        other => Err(format!("There is no tool named {other}. The tools are read_file, write_file and list_files.")),
    }
}

fn read_file(workspace: &Path, raw: &str) -> Result<String, String> {
    let path = resolve(workspace, raw)?;
    let meta = fs::metadata(&path).map_err(|e| io_error(raw, &e))?;
    if meta.is_dir() {
        return Err(format!("{raw} is a folder; use list_files to see what is in it."));
    }
    let mut bytes = Vec::new();
    fs::File::open(&path)
        .and_then(|f| f.take(READ_CAP_BYTES as u64 + 1).read_to_end(&mut bytes))
        .map_err(|e| io_error(raw, &e))?;
    if bytes.len() <= READ_CAP_BYTES {
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    bytes.truncate(READ_CAP_BYTES);
    // Cut on a character boundary rather than leave half a character behind.
    if let Err(e) = std::str::from_utf8(&bytes) {
        if e.error_len().is_none() {
            bytes.truncate(e.valid_up_to());
        }
    }
    let size = meta.len().max(READ_CAP_BYTES as u64 + 1);
    Ok(format!(
        "{}\n\n[The file was cut: {raw} is {size} bytes and only its first {} bytes (64 KiB) are shown.]",
        String::from_utf8_lossy(&bytes),
        bytes.len()
    ))
}

fn write_file(workspace: &Path, raw: &str, content: &str) -> Result<String, String> {
    let path = resolve(workspace, raw)?;
    if path.is_dir() {
        return Err(format!("{raw} is a folder, not a file."));
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(|e| io_error(raw, &e))?;
    }
    fs::write(&path, content).map_err(|e| io_error(raw, &e))?;
    Ok(format!("Wrote {} bytes to {raw}.", content.len()))
}

fn list_files(workspace: &Path, raw: &str) -> Result<String, String> {
    let path = resolve(workspace, raw)?;
    let mut entries: Vec<String> = fs::read_dir(&path)
        .map_err(|e| io_error(raw, &e))?
        .filter_map(|entry| entry.ok())
        .filter(|entry| !entry.file_name().to_string_lossy().eq_ignore_ascii_case(HOMES_DIR))
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            match entry.metadata() {
                Ok(meta) if meta.is_dir() => format!("{name}/"),
                Ok(meta) => format!("{name} ({} bytes)", meta.len()),
                Err(_) => name,
            }
        })
        .collect();
    if entries.is_empty() {
        return Ok(format!("{raw} is empty."));
    }
    entries.sort();
    let total = entries.len();
    if total > LIST_CAP {
        entries.truncate(LIST_CAP);
        entries.push(format!("[… and {} more entries not shown]", total - LIST_CAP));
    }
    Ok(entries.join("\n"))
}

fn io_error(raw: &str, e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => format!("{raw} does not exist."),
        _ => format!("{raw}: {e}"),
    }
}

const TOOL_CONFIG_REFUSAL: &str = "configures a tool (runtime settings, git, shell or package-manager files): \
     agents may not read or change it.";

/// Where `raw` (relative to the workspace) really is, refusing anything outside the workspace:
/// absolute paths, `..`, the runtime homes, tool configuration, and symbolic links that lead
/// out or into those. The path itself need not exist; its nearest existing ancestor is
/// resolved, links included ([`confine::real_path`]).
pub fn resolve(workspace: &Path, raw: &str) -> Result<PathBuf, String> {
    let refused = |why: &str| Err(format!("Refused: {raw} {why}"));
    let rel = Path::new(raw);
    for component in rel.components() {
        match component {
            Component::Normal(name) if name.to_string_lossy().eq_ignore_ascii_case(HOMES_DIR) => {
                return refused("is inside .clawboo, Clawboo's own folder, which tools may not touch.");
            }
            Component::Normal(_) | Component::CurDir => {}
            Component::ParentDir => return refused("contains \"..\"; use a path inside the workspace."),
            Component::RootDir | Component::Prefix(_) => {
                return refused("is an absolute path; use a path relative to the workspace.");
            }
        }
    }
    if confine::is_tool_config(rel) {
        return refused(TOOL_CONFIG_REFUSAL);
    }
    let root = workspace.canonicalize().map_err(|e| format!("The workspace cannot be opened: {e}"))?;
    let Some(real) = confine::real_path(&root, rel) else {
        return refused("is a symbolic link to something that does not exist, or cannot be resolved.");
    };
    let Ok(inside) = real.strip_prefix(&root) else {
        return refused("leads outside the workspace (through a symbolic link).");
    };
    if inside.components().next().is_some_and(|c| c.as_os_str().to_string_lossy().eq_ignore_ascii_case(HOMES_DIR)) {
        return refused("leads into .clawboo, Clawboo's own folder, which tools may not touch.");
    }
    if confine::is_tool_config(inside) {
        return refused(TOOL_CONFIG_REFUSAL);
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_connector_waits_to_be_loaded_a_small_one_goes_whole() {
        let connector = |n: usize| -> Vec<crate::runtimes::mcp_client::OfferedTool> {
            (0..n)
                .map(|i| crate::runtimes::mcp_client::OfferedTool {
                    name: format!("gh__tool_{i}"),
                    description: format!("Does thing {i}. Long details."),
                    schema: json!({"type": "object"}),
                    annotations: None,
                    read_only: false,
                })
                .collect()
        };
        let names = |tools: &super::super::on_request::RunTools| -> Vec<String> {
            tools.sent().iter().map(|t| t.name.to_string()).collect()
        };
        let policy = crate::runtimes::ApprovalPolicy::AllowAll;
        let small = offered(policy, None, &connector(CONNECTOR_TOOLS_SENT_WHOLE));
        assert_eq!(names(&small).len(), 3 + CONNECTOR_TOOLS_SENT_WHOLE, "{:?}", names(&small));
        assert!(!names(&small).iter().any(|n| n == super::super::on_request::LOAD_TOOLS));

        let large = offered(policy, None, &connector(CONNECTOR_TOOLS_SENT_WHOLE + 1));
        assert_eq!(names(&large), [READ_FILE, WRITE_FILE, LIST_FILES, super::super::on_request::LOAD_TOOLS]);
        let listing = &large.sent()[3].description;
        assert!(listing.contains("gh__tool_8 (Does thing 8)"), "{listing}");
    }

    #[test]
    fn resolves_inside_and_refuses_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        fs::create_dir_all(ws.join("sub")).unwrap();
        let root = ws.canonicalize().unwrap();
        assert_eq!(resolve(ws, "sub/new/file.txt").unwrap(), root.join("sub/new/file.txt"));
        assert_eq!(resolve(ws, "./a.md").unwrap(), root.join("a.md"));
        assert_eq!(resolve(ws, ".").unwrap(), root);
        for bad in ["../x", "sub/../../x", "/etc/passwd", ".clawboo/claude-code/x", "sub/.CLAWBOO"] {
            let err = resolve(ws, bad).unwrap_err();
            assert!(err.starts_with("Refused:"), "{bad}: {err}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_out_of_the_workspace_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::os::unix::fs::symlink(outside.path(), ws.join("out")).unwrap();
        std::os::unix::fs::symlink(ws.join("gone"), ws.join("dangling")).unwrap();
        fs::create_dir_all(ws.join(".clawboo")).unwrap();
        std::os::unix::fs::symlink(ws.join(".clawboo"), ws.join("homes")).unwrap();
        for bad in ["out", "out/new.txt", "dangling", "homes/x"] {
            assert!(resolve(ws, bad).unwrap_err().starts_with("Refused:"), "{bad}");
        }
        assert!(list_files(ws, ".").unwrap().contains("out"));
        assert!(!list_files(ws, ".").unwrap().contains(".clawboo"));
    }

    #[test]
    fn tool_configuration_is_neither_read_nor_written() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        fs::create_dir_all(ws.join(".claude")).unwrap();
        fs::write(ws.join(".claude/settings.json"), "{}").unwrap();
        for path in [
            ".claude/settings.json",
            ".claude/settings.local.json",
            "sub/.Codex/config.toml",
            ".hermes/config.yaml",
            ".openclaw/openclaw.json",
            ".mcp.json",
            ".envrc",
            ".git/hooks/pre-commit",
            ".gitconfig",
            ".npmrc",
            "CLAUDE.local.md",
        ] {
            let write = execute(ws, WRITE_FILE, &json!({"path": path, "content": "{\"hooks\": {}}"}));
            assert!(write.unwrap_err().starts_with("Refused:"), "write {path}");
            let read = execute(ws, READ_FILE, &json!({"path": path}));
            assert!(read.unwrap_err().starts_with("Refused:"), "read {path}");
        }
        assert_eq!(fs::read_to_string(ws.join(".claude/settings.json")).unwrap(), "{}");
        assert!(!ws.join(".mcp.json").exists() && !ws.join(".git").exists());
        assert!(execute(ws, LIST_FILES, &json!({"path": ".claude"})).unwrap_err().starts_with("Refused:"));
        // Ordinary files, CLAUDE.md and AGENTS.md included, stay writable.
        for path in ["notes.md", "CLAUDE.md", "AGENTS.md", "src/git/config.rs"] {
            execute(ws, WRITE_FILE, &json!({"path": path, "content": "ok"})).unwrap();
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(ws.join(".claude"), ws.join("settings-dir")).unwrap();
            let through_link = execute(ws, WRITE_FILE, &json!({"path": "settings-dir/settings.json", "content": "x"}));
            assert!(through_link.unwrap_err().starts_with("Refused:"));
        }
    }

    #[test]
    fn reads_are_cut_on_a_character_boundary() {
        let dir = tempfile::tempdir().unwrap();
        let text = format!("{}é{}", "a".repeat(READ_CAP_BYTES - 1), "b".repeat(10));
        fs::write(dir.path().join("big.txt"), &text).unwrap();
        let out = read_file(dir.path(), "big.txt").unwrap();
        let (kept, note) = out.split_once("\n\n[").unwrap();
        assert_eq!(kept, "a".repeat(READ_CAP_BYTES - 1));
        assert!(note.contains("was cut") && note.contains(&format!("{} bytes", text.len())), "{note}");
        fs::write(dir.path().join("small.txt"), "exactly").unwrap();
        assert_eq!(read_file(dir.path(), "small.txt").unwrap(), "exactly");
    }

    #[test]
    fn bad_inputs_are_tool_errors() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        assert!(execute(ws, READ_FILE, &json!({})).is_err());
        assert!(execute(ws, READ_FILE, &json!({"path": 3})).is_err());
        assert!(execute(ws, WRITE_FILE, &json!({"path": "a"})).is_err());
        assert!(execute(ws, "rm_rf", &json!({})).is_err());
        assert!(execute(ws, READ_FILE, &json!({"path": "missing.txt"})).unwrap_err().contains("does not exist"));
        assert_eq!(execute(ws, LIST_FILES, &json!({})).unwrap(), ". is empty.");
        execute(ws, WRITE_FILE, &json!({"path": "d/x.txt", "content": "hi"})).unwrap();
        assert_eq!(fs::read_to_string(ws.join("d/x.txt")).unwrap(), "hi");
        assert_eq!(execute(ws, LIST_FILES, &json!({"path": "d"})).unwrap(), "x.txt (2 bytes)");
        assert!(execute(ws, WRITE_FILE, &json!({"path": "d", "content": "x"})).is_err());
    }
}
