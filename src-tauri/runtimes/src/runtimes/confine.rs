//! Where an agent's tools may reach: the paths inside its workspace, minus the files that
//! configure tools. Shared by the adapters that check a tool's paths before allowing it
//! (Claude Code and Codex under read-only) and by Native's own file tools.

use std::path::{Component, Path, PathBuf};

/// Clawboo's own folder inside an agent's workspace: the runtime homes (their settings, the
/// transcripts) and temp files. No tool reads or writes it.
pub const HOMES_DIR: &str = ".clawboo";

/// Folders (at any depth, any letter case) whose files configure a tool that runs commands or
/// grants permissions: a runtime's project settings (hooks, allow rules, MCP servers, skills),
/// git's hooks and config, editors' tasks. An agent that could write them could defeat its
/// approval policy, or run code the next time a person or another tool opens the folder.
pub const TOOL_CONFIG_DIRS: &[&str] = &[
    HOMES_DIR,
    ".claude",
    ".codex",
    ".hermes",
    ".openclaw",
    ".agents",
    ".git",
    ".husky",
    ".vscode",
    ".idea",
    ".cursor",
];

/// Files (by name, at any depth, any letter case) that configure tools or hold their
/// credentials: MCP servers, shell start-up and direnv scripts, git, package managers, netrc,
/// Claude Code's local instructions.
pub const TOOL_CONFIG_FILES: &[&str] = &[
    ".mcp.json",
    ".envrc",
    ".gitconfig",
    ".gitmodules",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pypirc",
    ".netrc",
    ".bashrc",
    ".bash_profile",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".claude.json",
    "claude.local.md",
];

/// Whether a path relative to the workspace names (or lies inside) a tool's configuration.
pub fn is_tool_config(relative: &Path) -> bool {
    let names: Vec<String> = relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_string_lossy().to_lowercase()),
            _ => None,
        })
        .collect();
    let Some((last, folders)) = names.split_last() else { return false };
    folders.iter().chain(std::iter::once(last)).any(|name| TOOL_CONFIG_DIRS.contains(&name.as_str()))
        || TOOL_CONFIG_FILES.contains(&last.as_str())
}

/// The real location of `path` (absolute, or relative to `base`): symbolic links resolved in
/// its nearest existing ancestor, `..` resolved only through real folders. None when it
/// cannot be resolved (a dangling link, an unreadable folder).
pub fn real_path(base: &Path, path: &Path) -> Option<PathBuf> {
    let joined = if path.is_absolute() { path.to_path_buf() } else { base.join(path) };
    let mut probe = joined.as_path();
    let mut missing = Vec::new();
    let real = loop {
        match probe.canonicalize() {
            Ok(real) => break real,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if probe.symlink_metadata().is_ok() {
                    return None; // a link to nothing: where it would lead is unknown
                }
                match (probe.parent(), probe.file_name()) {
                    (Some(parent), Some(name)) => {
                        missing.push(name.to_owned());
                        probe = parent;
                    }
                    // `..` or a root with nothing under it: refuse rather than guess.
                    _ => return None,
                }
            }
            Err(_) => return None,
        }
    };
    Some(missing.into_iter().rev().fold(real, |path, name| path.join(name)))
}

/// Whether a tool may read `path` (absolute, or relative to the workspace) under a policy that
/// confines reads to the workspace: it must really lie inside the workspace (links followed)
/// and outside Clawboo's own folder. The tool-config files are readable: reading them grants
/// nothing, and they are the workspace's own.
pub fn readable(workspace: &Path, path: &str) -> bool {
    let path = path.trim();
    if path.is_empty() {
        return true; // the tool's default: its working folder, the workspace
    }
    if path.starts_with('~') || path.contains('\0') {
        return false; // home expansion happens in the tool, out of sight
    }
    let Ok(root) = workspace.canonicalize() else { return false };
    let Some(real) = real_path(&root, Path::new(path)) else { return false };
    if real.components().any(|c| c == Component::ParentDir) {
        return false;
    }
    match real.strip_prefix(&root) {
        Ok(inside) => !inside.components().next().is_some_and(|c| is_homes_dir(c.as_os_str())),
        Err(_) => false,
    }
}

fn is_homes_dir(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().eq_ignore_ascii_case(HOMES_DIR)
}

/// Whether a glob pattern stays within the folder it is matched in: no absolute start, no `..`,
/// no home expansion.
pub fn glob_stays_inside(pattern: &str) -> bool {
    let pattern = pattern.trim();
    !(pattern.starts_with('/')
        || pattern.starts_with('\\')
        || pattern.starts_with('~')
        || pattern.split(['/', '\\']).any(|part| part == "..")
        || (pattern.len() > 1 && pattern.as_bytes()[1] == b':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_config_paths_are_recognised_at_any_depth_and_case() {
        for config in [
            ".claude/settings.json",
            ".claude",
            "sub/.Claude/settings.local.json",
            ".codex/config.toml",
            ".hermes/config.yaml",
            ".openclaw/openclaw.json",
            ".git/hooks/pre-commit",
            ".git/config",
            ".mcp.json",
            "nested/.envrc",
            ".NPMRC",
            "CLAUDE.local.md",
            ".clawboo/claude-code/settings.json",
            ".vscode/tasks.json",
        ] {
            assert!(is_tool_config(Path::new(config)), "{config}");
        }
        for plain in ["notes.md", "CLAUDE.md", "AGENTS.md", "src/git/config.rs", "claude/x.md", ".env.example", "."] {
            assert!(!is_tool_config(Path::new(plain)), "{plain}");
        }
    }

    #[test]
    fn readable_means_really_inside_the_workspace_and_outside_clawboo() {
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.txt");
        std::fs::write(&secret, "x").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join("sub")).unwrap();
        std::fs::create_dir_all(ws.join(".clawboo/claude-code")).unwrap();
        let inside_abs = ws.canonicalize().unwrap().join("sub/new.txt");
        for ok in ["", "a.md", "sub", "sub/../a.md", "./sub/x/y", inside_abs.to_str().unwrap(), ".claude/settings.json"]
        {
            assert!(readable(ws, ok), "{ok}");
        }
        let secret_abs = secret.to_str().unwrap().to_owned();
        for bad in [
            secret_abs.as_str(),
            "/etc/hostname",
            "../x",
            "sub/../../x",
            "~/.ssh/id_rsa",
            ".clawboo/claude-code/.claude.json",
            ".CLAWBOO",
        ] {
            assert!(!readable(ws, bad), "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&secret, ws.join("link.txt")).unwrap();
            std::os::unix::fs::symlink(outside.path(), ws.join("out")).unwrap();
            std::os::unix::fs::symlink(ws.join("gone"), ws.join("dangling")).unwrap();
            for bad in ["link.txt", "out", "out/secret.txt", "out/new.txt", "dangling"] {
                assert!(!readable(ws, bad), "{bad}");
            }
        }
    }

    #[test]
    fn globs_that_climb_out_are_refused() {
        for ok in ["*.md", "**/*.rs", "src/**", "a/b?/c"] {
            assert!(glob_stays_inside(ok), "{ok}");
        }
        for bad in ["/etc/*", "../**", "src/../../x", "~/.ssh/*", "C:\\x", "\\\\server\\share"] {
            assert!(!glob_stays_inside(bad), "{bad}");
        }
    }
}
