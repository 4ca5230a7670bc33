//! Finding the runtime CLIs on this machine: a path the user set, else PATH plus the places
//! installers put them (npm's global prefix, ~/.local/bin, nvm, Homebrew, pipx, Volta, Bun).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::agents::RuntimeKind;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeInfo {
    pub kind: RuntimeKind,
    pub label: String,
    pub found: bool,
    pub path: Option<String>,
    pub version: Option<String>,
    /// The path the user set by hand, if any.
    pub custom_path: Option<String>,
    pub install_hint: String,
    /// Why a found binary cannot be used (it does not run, or prints no version).
    pub problem: Option<String>,
}

pub fn label(kind: RuntimeKind) -> &'static str {
    kind.label()
}

pub fn binary_name(kind: RuntimeKind) -> Option<&'static str> {
    match kind {
        RuntimeKind::ClaudeCode => Some("claude"),
        RuntimeKind::Codex => Some("codex"),
        RuntimeKind::Hermes => Some("hermes"),
        RuntimeKind::Openclaw => Some("openclaw"),
        RuntimeKind::Native => None,
    }
}

pub fn install_hint(kind: RuntimeKind) -> &'static str {
    match kind {
        RuntimeKind::ClaudeCode => "npm install -g @anthropic-ai/claude-code",
        RuntimeKind::Codex => "npm install -g @openai/codex",
        RuntimeKind::Hermes => "pipx install 'hermes-agent[acp]'",
        RuntimeKind::Openclaw => "npm install -g openclaw (needs Node 24)",
        RuntimeKind::Native => "Built into Clawboo: add an API key under API keys.",
    }
}

/// Where to look, in order, after PATH.
fn usual_dirs(home: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(home) = home {
        for rel in [".local/bin", ".npm-global/bin", ".volta/bin", ".bun/bin", ".cargo/bin", "bin"] {
            dirs.push(home.join(rel));
        }
        // Every nvm-installed Node, newest first.
        if let Ok(entries) = std::fs::read_dir(home.join(".nvm/versions/node")) {
            let mut nodes: Vec<_> = entries.flatten().map(|e| e.path().join("bin")).collect();
            nodes.sort();
            nodes.reverse();
            dirs.extend(nodes);
        }
        if cfg!(windows) {
            dirs.push(home.join("AppData/Roaming/npm"));
        }
    }
    for dir in ["/usr/local/bin", "/opt/homebrew/bin", "/usr/bin"] {
        dirs.push(PathBuf::from(dir));
    }
    dirs
}

fn candidates(name: &str) -> Vec<String> {
    if cfg!(windows) {
        ["exe", "cmd", "bat"].iter().map(|ext| format!("{name}.{ext}")).collect()
    } else {
        vec![name.to_owned()]
    }
}

/// The first executable `name` in PATH, then in the usual places.
pub fn find_binary(name: &str, path_var: Option<&std::ffi::OsStr>, home: Option<&Path>) -> Option<PathBuf> {
    let from_path = path_var.map(|p| std::env::split_paths(p).collect::<Vec<_>>()).unwrap_or_default();
    from_path
        .into_iter()
        .chain(usual_dirs(home))
        .find_map(|dir| candidates(name).into_iter().map(|c| dir.join(c)).find(|p| is_executable(p)))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    meta.is_file()
}

/// Resolves a runtime's binary: the user's path when set, else a search.
pub fn locate(kind: RuntimeKind, custom: Option<&Path>) -> Option<PathBuf> {
    if let Some(custom) = custom {
        return is_executable(custom).then(|| custom.to_owned());
    }
    let home = home_dir();
    find_binary(binary_name(kind)?, std::env::var_os("PATH").as_deref(), home.as_deref())
}

pub fn home_dir() -> Option<PathBuf> {
    std::env::var_os(if cfg!(windows) { "USERPROFILE" } else { "HOME" }).map(PathBuf::from)
}

/// `--version`, run with a short deadline; the first thing that looks like a version number.
pub async fn probe_version(binary: &Path) -> Result<String, String> {
    let mut command = tokio::process::Command::new(binary);
    command.arg("--version").stdin(std::process::Stdio::null()).kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(15), command.output())
        .await
        .map_err(|_| "did not answer --version within 15 s".to_owned())?
        .map_err(|e| format!("does not run: {e}"))?;
    let text = format!("{}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    parse_version(&text)
        .ok_or_else(|| format!("printed no version: {}", text.trim().chars().take(200).collect::<String>()))
}

/// How long a CLI may take to print its `--help`.
pub const HELP_DEADLINE: Duration = Duration::from_secs(10);

/// What a CLI's `--help` printed: which flags the installed version offers (flags come and go
/// between CLI releases; an unknown one makes the CLI refuse to start).
#[derive(Debug, Clone)]
pub struct Help(std::sync::Arc<str>);

impl Help {
    /// Whether the help lists `flag` as one of its options (not merely in another's prose).
    pub fn lists(&self, flag: &str) -> bool {
        lists_flag(&self.0, flag)
    }

    /// Whether the help names `text` anywhere, prose included: for flags a CLI offers but
    /// only mentions in another option's description (Claude Code's
    /// `--append-system-prompt[-file]`).
    pub fn mentions(&self, text: &str) -> bool {
        self.0.contains(text)
    }
}

/// `binary --help`, asked once per binary file (path and modification time). Err says, in
/// words, why it could not be read: the program does not start, does not answer within
/// [`HELP_DEADLINE`], or exits with an error. Only an answer is remembered: a failed probe is
/// made again the next time. `home` keeps the probe out of the user's own configuration.
/// Blocking (see [`probe_help`]).
pub fn help(binary: &Path, home: &Path) -> Result<Help, String> {
    type Key = (PathBuf, Option<std::time::SystemTime>);
    static HELP: std::sync::OnceLock<std::sync::Mutex<HashMap<Key, Help>>> = std::sync::OnceLock::new();
    let key = (binary.to_owned(), std::fs::metadata(binary).and_then(|m| m.modified()).ok());
    let cache = HELP.get_or_init(Default::default);
    if let Some(help) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(help);
    }
    let help = Help(run_help(binary, home)?.into());
    if let Ok(mut cache) = cache.lock() {
        cache.insert(key, help.clone());
    }
    Ok(help)
}

/// [`help`] on a blocking thread, so that an adapter's run never stalls one of the engine's
/// async workers for up to [`HELP_DEADLINE`].
pub async fn probe_help(binary: PathBuf, home: PathBuf) -> Result<Help, String> {
    tokio::task::spawn_blocking(move || help(&binary, &home))
        .await
        .unwrap_or_else(|e| Err(format!("the probe failed ({e})")))
}

fn lists_flag(help: &str, flag: &str) -> bool {
    help.lines().any(|line| line.trim_start().split([' ', ',', '=']).next() == Some(flag))
}

fn run_help(binary: &Path, home: &Path) -> Result<String, String> {
    let mut command = std::process::Command::new(binary);
    command.arg("--help").env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default()).env("HOME", home);
    let (status, stdout, stderr) = run_within(command, HELP_DEADLINE)
        .map_err(|why| why.replace("did not answer within", "did not answer `--help` within"))?;
    if !status.success() {
        let said: String = stderr.trim().chars().take(300).collect();
        let code = status.code().map_or_else(|| "a signal".to_owned(), |c| format!("status {c}"));
        return Err(if said.is_empty() {
            format!("`--help` exited with {code}")
        } else {
            format!("`--help` exited with {code}: {said}")
        });
    }
    Ok(stdout)
}

/// Runs `command` (stdin closed) to its end or `deadline`, killing it then; how it ended, its
/// stdout and stderr, each read up to 64 KiB. `Err` says, in words, why there is no output.
/// Blocking.
pub(crate) fn run_within(
    mut command: std::process::Command,
    deadline: Duration,
) -> Result<(std::process::ExitStatus, String, String), String> {
    use std::io::Read;
    use std::process::Stdio;
    const MAX_OUTPUT: u64 = 64 * 1024;
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = spawn_once_written(&mut command).map_err(|e| match e.kind() {
        std::io::ErrorKind::ExecutableFileBusy => {
            format!("it is still being written ({e}); try again once its installation has finished")
        }
        _ => format!("it does not start ({e})"),
    })?;
    let (mut stdout, mut stderr) = (child.stdout.take().ok_or("no output")?, child.stderr.take().ok_or("no output")?);
    let readers = std::thread::spawn(move || {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let _ = (&mut stdout).take(MAX_OUTPUT).read_to_end(&mut out);
        let _ = (&mut stderr).take(MAX_OUTPUT).read_to_end(&mut err);
        (String::from_utf8_lossy(&out).into_owned(), String::from_utf8_lossy(&err).into_owned())
    });
    let until = std::time::Instant::now() + deadline;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let (stdout, stderr) = readers.join().map_err(|_| "its output could not be read".to_owned())?;
                return Ok((status, stdout, stderr));
            }
            Ok(None) if std::time::Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("it did not answer within {} s", deadline.as_secs()));
            }
        }
    }
}

/// Starts `command`, waiting out "text file busy" for up to ~1.3 s: the program is open for
/// writing somewhere (an update installing it, or, for a moment, a process forked elsewhere
/// that inherited a descriptor of a file just written) and becomes runnable once it is closed.
fn spawn_once_written(command: &mut std::process::Command) -> std::io::Result<std::process::Child> {
    let mut pause = Duration::from_millis(10);
    loop {
        match command.spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && pause <= Duration::from_millis(640) => {
                std::thread::sleep(pause);
                pause *= 2;
            }
            started => return started,
        }
    }
}

/// The first dotted number in `text` ("2.1.332 (Claude Code)" → "2.1.332").
pub fn parse_version(text: &str) -> Option<String> {
    text.split(|c: char| c.is_whitespace() || c == 'v' || c == '(' || c == ',')
        .find(|word| {
            let parts: Vec<_> = word.split('.').collect();
            parts.len() >= 2 && parts.iter().all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        })
        .map(str::to_owned)
}

/// Compares dotted versions numerically ("2.10.0" > "2.9.1").
pub fn version_at_least(version: &str, minimum: &str) -> bool {
    let parse = |v: &str| v.split('.').map(|p| p.parse::<u64>().unwrap_or(0)).collect::<Vec<_>>();
    parse(version) >= parse(minimum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_what_clis_print() {
        assert_eq!(parse_version("2.1.332 (Claude Code)").as_deref(), Some("2.1.332"));
        assert_eq!(parse_version("codex-cli 0.171.0").as_deref(), Some("0.171.0"));
        assert_eq!(parse_version("Hermes Agent v0.19.0").as_deref(), Some("0.19.0"));
        assert_eq!(parse_version("OpenClaw 2026.9.6 (abc123)").as_deref(), Some("2026.9.6"));
        assert_eq!(parse_version("no version here"), None);
        assert!(version_at_least("2.10.0", "2.9.1"));
        assert!(!version_at_least("0.9.0", "0.171.0"));
    }

    #[test]
    fn flags_are_read_from_help_lines_not_from_prose() {
        let help = "Options:\n  --include-partial-messages            Include partial chunks\n  \
                    --system-prompt-snapshot <on|off>     Record the system prompt\n  \
                    --permission-mode <mode>  see --permission-prompt-tool) or \"none\"\n  -p, --print  Print";
        assert!(lists_flag(help, "--include-partial-messages"));
        assert!(lists_flag(help, "--system-prompt-snapshot"));
        assert!(!lists_flag(help, "--permission-prompt-tool"), "only mentioned in prose");
        assert!(!lists_flag(help, "--fork-session"));
        assert!(lists_flag(help, "-p"));
    }

    /// Linux refuses to run a file that is open for writing (ETXTBSY).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_program_still_open_for_writing_is_waited_for_then_named_as_such() {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("being-installed");
        let open = |path: &Path| {
            let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o755).open(path).unwrap();
            file.write_all(b"#!/bin/sh\necho 'cli 1.2.3'\n").unwrap();
            file
        };
        let writing = open(&path);
        let closer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            drop(writing);
        });
        let (status, out, _) = run_within(std::process::Command::new(&path), Duration::from_secs(5)).unwrap();
        closer.join().unwrap();
        assert!(status.success() && out.contains("cli 1.2.3"), "it ran once closed: {out}");

        let held = dir.path().join("held-open");
        let _writing = open(&held);
        let why = run_within(std::process::Command::new(&held), Duration::from_secs(5)).unwrap_err();
        assert!(why.starts_with("it is still being written"), "{why}");
    }

    #[test]
    fn a_help_that_cannot_be_read_says_why_and_is_asked_again_next_time() {
        let dir = tempfile::tempdir().unwrap();
        let script = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
            path
        };
        let old = script("old-cli", "#!/bin/sh\necho '  --verbose   Say more'\n");
        let answered = help(&old, dir.path()).unwrap();
        assert!(answered.lists("--verbose"));
        assert!(!answered.lists("--system-prompt-snapshot"));

        let missing = help(&dir.path().join("missing"), dir.path()).unwrap_err();
        assert!(missing.starts_with("it does not start"), "{missing}");
        #[cfg(unix)]
        {
            // Fails once, then answers: the failure is not remembered.
            let count = dir.path().join("count");
            let flaky = script(
                "flaky-cli",
                &format!(
                    "#!/bin/sh\nif [ ! -f '{0}' ]; then touch '{0}'; echo 'broken install' >&2; exit 3; fi\necho '  --verbose'\n",
                    count.display()
                ),
            );
            assert_eq!(help(&flaky, dir.path()).unwrap_err(), "`--help` exited with status 3: broken install");
            assert!(help(&flaky, dir.path()).unwrap().lists("--verbose"));

            let hangs = script("hanging-cli", "#!/bin/sh\nexec sleep 60\n");
            let started = std::time::Instant::now();
            assert_eq!(help(&hangs, dir.path()).unwrap_err(), "it did not answer `--help` within 10 s");
            assert!(started.elapsed() < Duration::from_secs(30), "a hanging --help is given up on");
        }
    }

    #[test]
    fn binaries_are_found_in_path_then_usual_places() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(home.join(".local/bin")).unwrap();
        let make = |p: &Path| {
            std::fs::write(p, "#!/bin/sh\necho 1.2.3\n").unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        };
        make(&home.join(".local/bin/claude"));
        let path_var = std::env::join_paths([&bin]).unwrap();
        assert_eq!(find_binary("claude", Some(&path_var), Some(&home)), Some(home.join(".local/bin/claude")));
        make(&bin.join("claude"));
        assert_eq!(find_binary("claude", Some(&path_var), Some(&home)), Some(bin.join("claude")), "PATH wins");
        assert_eq!(find_binary("codex-nowhere", Some(&path_var), Some(&home)), None);
    }
}
