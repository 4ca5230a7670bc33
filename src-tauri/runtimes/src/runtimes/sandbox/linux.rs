//! The bubblewrap command line for one confined process, and whether bubblewrap can run here.
//! Pure where it can be: [`bwrap_args`] is text in, text out, and unit-tested.

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use super::Confinement;

/// The system folders every sandbox sees read-only (links among them, as on merged-/usr
/// systems, are recreated as links).
const SYSTEM_DIRS: &[&str] = &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"];

/// The port the proxy listens on inside the sandbox (its own network namespace: free).
pub const PROXY_PORT_INSIDE: u16 = 3128;

/// Whether `path` lies in a folder every sandbox already sees read-only.
pub fn is_system_path(path: &Path) -> bool {
    SYSTEM_DIRS.iter().any(|dir| path.starts_with(dir))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mount {
    ReadOnly,
    ReadWrite,
    Empty,
}

/// bwrap's arguments (before `--`) for `confinement`, working in `cwd`. `system` tells how each
/// system folder exists on this machine. (The network bridge needs no mount: its listeners are
/// made in the sandbox's namespace from outside.)
pub fn bwrap_args(confinement: &Confinement, cwd: &Path, system: &dyn Fn(&str) -> SystemEntry) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    let mut push = |items: &[&str]| args.extend(items.iter().map(|s| (*s).to_owned()));
    push(&["--die-with-parent", "--unshare-all", "--hostname", "clawboo-sandbox"]);
    if confinement.share_host_network {
        push(&["--share-net"]);
    }
    for dir in SYSTEM_DIRS {
        match system(dir) {
            SystemEntry::Dir => push(&["--ro-bind", dir, dir]),
            SystemEntry::Link(target) => push(&["--symlink", &target, dir]),
            SystemEntry::Missing => {}
        }
    }
    push(&["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--dir", "/var/tmp", "--tmpfs", "/run"]);

    // Parents before children, so a folder bound inside another (a runtime home inside a
    // read-only workspace, inside a hidden `.clawboo`) lands on top.
    let mut mounts: Vec<(&Path, Mount)> = Vec::new();
    mounts.extend(confinement.readable.iter().map(|p| (p.as_path(), Mount::ReadOnly)));
    mounts.extend(confinement.writable.iter().map(|p| (p.as_path(), Mount::ReadWrite)));
    mounts.extend(confinement.hidden.iter().map(|p| (p.as_path(), Mount::Empty)));
    mounts.sort_by_key(|(path, kind)| (depth(path), *kind != Mount::Empty));
    for (path, kind) in mounts {
        let path = path.to_string_lossy();
        match kind {
            Mount::ReadOnly => push(&["--ro-bind", &path, &path]),
            Mount::ReadWrite => push(&["--bind", &path, &path]),
            Mount::Empty => push(&["--tmpfs", &path]),
        }
    }
    push(&["--chdir", &cwd.to_string_lossy()]);
    args
}

fn depth(path: &Path) -> usize {
    path.components().filter(|c| matches!(c, Component::Normal(_))).count()
}

/// How a system folder exists on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SystemEntry {
    Dir,
    Link(String),
    Missing,
}

pub fn system_entry(dir: &str) -> SystemEntry {
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() => match std::fs::read_link(dir) {
            Ok(target) => SystemEntry::Link(target.to_string_lossy().into_owned()),
            Err(_) => SystemEntry::Missing,
        },
        Ok(meta) if meta.is_dir() => SystemEntry::Dir,
        _ => SystemEntry::Missing,
    }
}

/// Environment for a sandbox whose proxy is reachable: HTTP(S) clients go through it, and
/// loopback (the relay, the bridge) is reached directly.
pub fn proxy_env() -> Vec<(String, String)> {
    let proxy = format!("http://127.0.0.1:{PROXY_PORT_INSIDE}");
    let no_proxy = "127.0.0.1,localhost,::1".to_owned();
    vec![
        ("HTTPS_PROXY".into(), proxy.clone()),
        ("HTTP_PROXY".into(), proxy.clone()),
        ("https_proxy".into(), proxy.clone()),
        ("http_proxy".into(), proxy),
        ("NO_PROXY".into(), no_proxy.clone()),
        ("no_proxy".into(), no_proxy),
    ]
}

/// Where bubblewrap is, once it works here, or why the sandbox cannot start.
pub fn tools() -> Result<&'static Tools, String> {
    static TOOLS: OnceLock<Result<Tools, String>> = OnceLock::new();
    TOOLS.get_or_init(probe).as_ref().map_err(Clone::clone)
}

#[derive(Debug)]
pub struct Tools {
    pub bwrap: PathBuf,
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    std::env::split_paths(&path).chain([PathBuf::from("/usr/bin")]).map(|d| d.join(name)).find(|p| p.is_file())
}

/// Runs a trial sandbox once: bubblewrap present, user namespaces allowed.
fn probe() -> Result<Tools, String> {
    let fix = super::UNAVAILABLE_FIX_LINUX;
    let bwrap = find_in_path("bwrap")
        .ok_or_else(|| format!("Clawboo's sandbox needs bubblewrap (bwrap), which is not installed. {fix}"))?;
    let mut args: Vec<String> = vec!["--die-with-parent".into(), "--unshare-all".into()];
    for dir in SYSTEM_DIRS {
        match system_entry(dir) {
            SystemEntry::Dir => args.extend(["--ro-bind".into(), (*dir).into(), (*dir).into()]),
            SystemEntry::Link(target) => args.extend(["--symlink".into(), target, (*dir).into()]),
            SystemEntry::Missing => {}
        }
    }
    args.extend(["--proc".into(), "/proc".into(), "--dev".into(), "/dev".into(), "--".into(), "true".into()]);
    // A probe of the tool itself, not an agent process: it runs nothing of an agent's.
    let out = std::process::Command::new(&bwrap)
        .args(&args)
        .env_clear()
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("bubblewrap could not be started ({e}). {fix}"))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        return Err(format!("bubblewrap cannot make a sandbox on this system ({said}). {fix}"));
    }
    Ok(Tools { bwrap })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtimes::sandbox::NetworkAccess;

    fn merged_usr(dir: &str) -> SystemEntry {
        match dir {
            "/bin" | "/sbin" | "/lib" | "/lib64" => SystemEntry::Link(format!("usr{dir}")),
            "/usr" | "/etc" => SystemEntry::Dir,
            _ => SystemEntry::Missing,
        }
    }

    #[test]
    fn the_view_is_the_system_read_only_plus_the_named_folders_parents_first() {
        let c = Confinement {
            writable: vec!["/data/agents/a/.clawboo/claude-code".into(), "/data/agents/a/.clawboo/tmp".into()],
            readable: vec!["/data/agents/a".into(), "/home/u/.cache/claude/node_modules".into()],
            hidden: vec!["/data/agents/a/.clawboo".into()],
            loopback_ports: vec![4000],
            network: NetworkAccess::ClawbooOnly,
            allowed_hosts: vec![],
            published_ports: vec![],
            share_host_network: false,
            notify: Default::default(),
        };
        let args = bwrap_args(&c, Path::new("/data/agents/a"), &merged_usr);
        let line = args.join(" ");
        assert!(line.starts_with("--die-with-parent --unshare-all "), "{line}");
        assert!(line.contains("--ro-bind /usr /usr --symlink usr/bin /bin"), "{line}");
        assert!(line.contains("--ro-bind /etc /etc"), "{line}");
        assert!(!line.contains("/opt"), "{line}");
        assert!(!line.contains("/home/u ") && !line.contains("--bind / "), "nothing of home but the install: {line}");
        let at = |needle: &str| line.find(needle).unwrap_or_else(|| panic!("{needle} missing in {line}"));
        assert!(at("--ro-bind /data/agents/a /data/agents/a") < at("--tmpfs /data/agents/a/.clawboo"));
        assert!(at("--tmpfs /data/agents/a/.clawboo") < at("--bind /data/agents/a/.clawboo/claude-code"));
        assert!(line.ends_with("--chdir /data/agents/a"), "{line}");
        // No share of the network, the host's /tmp, /run or the user's home.
        assert!(!line.contains("--share-net") && !line.contains("--bind /tmp ") && !line.contains("--bind /run "));
    }
}
