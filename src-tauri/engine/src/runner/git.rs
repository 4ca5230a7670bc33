//! The one way the engine runs git: [`command`] builds every git process, on a card's project
//! folder, its repository, or a worktree Clawboo made. An agent writes the worktree's files
//! (and may have written a folder that git then takes for a repository), so nothing in them
//! may make git run a program:
//!
//! - hooks: `-c core.hooksPath=/dev/null`, which wins over any `core.hooksPath` in the
//!   repository's config (husky's relative `.husky`, resolved in the worktree an agent
//!   writes) and over the hooks folder itself: git finds no hook under `/dev/null`, whatever
//!   the event (post-commit, prepare-commit-msg, reference-transaction, post-checkout,
//!   post-index-change). `commit` also gets `--no-verify`;
//! - `-c core.fsmonitor=false`: no file-system monitor program runs when git reads the tree;
//! - `-c commit.gpgSign=false`: Clawboo's own commit is never signed, so no program the config
//!   names (`gpg.program`, `gpg.ssh.defaultKeyCommand`) runs;
//! - `diff` gets `--no-textconv --no-ext-diff`: no text converter or external diff program;
//! - clean/smudge filters (and long-running `process` filters), which a `.gitattributes` in
//!   the worktree can apply to any file: every filter driver any config defines is emptied
//!   for the command (`filter.<name>.clean`, `.smudge`, `.process` set to "" and `.required`
//!   to false), whatever names the attributes use. A filter git has no command for is no
//!   filter, so whichever driver a `.gitattributes` names, none runs. This holds on every git
//!   since 2.31 (Debian's 2.39 included); the alternatives do not: `--attr-source` /
//!   `GIT_ATTR_SOURCE` need 2.40, and `core.attributesFile` covers only the user's global
//!   attributes file, not the worktree's `.gitattributes`. The emptied drivers travel as
//!   `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` (a driver's name may hold `=`,
//!   which `-c` cannot carry), and reach the processes git starts itself (`worktree add`
//!   checks out through a child `git`); `-c` values do too (`GIT_CONFIG_PARAMETERS`).
//!
//! Command-line configuration beats every configuration file (system, global, the
//! repository's, the worktree's, and whatever they include). A `GIT_CONFIG_PARAMETERS` Clawboo
//! itself inherited is dropped, so nothing overrides these. In a worktree Clawboo made, git is
//! told its git folder and its work tree (`--git-dir`, `--work-tree`), so it never follows the
//! worktree's own `.git`, which the agent could have replaced (see `worktree`'s tamper check).
//!
//! Git runs through `std::process::Command` with a time limit (the runner's blocking threads
//! call it), never through a shell, in the C locale, never prompting.

use std::ffi::OsStr;
use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// A git command is stopped after this long.
const GIT_TIMEOUT: Duration = Duration::from_secs(120);

/// Given to every git command: see the module's notes.
const HARDENING: &[&str] = &["core.hooksPath=/dev/null", "core.fsmonitor=false", "commit.gpgSign=false"];

/// Inherited variables that would point git elsewhere or override [`HARDENING`].
const DROPPED_ENV: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXTERNAL_DIFF",
];

/// Where a git command runs.
#[derive(Debug, Clone, Copy)]
pub(super) enum Place<'a> {
    /// A folder git finds the repository from (the user's project folder, or its repository).
    Folder(&'a Path),
    /// A worktree Clawboo made, already checked: git is told its git folder and work tree and
    /// never reads the worktree's own `.git`.
    Worktree { path: &'a Path, git_dir: &'a Path },
    /// A repository's own git folder (not from inside a worktree being removed).
    GitDir(&'a Path),
}

/// Runs `git <args>` at `place`: its stdout, or Err Git with its stderr.
pub(super) fn run(place: Place, args: &[&str]) -> Result<String> {
    run_with(place, args, &[])
}

/// [`run`] with extra variables for the process (`GIT_INDEX_FILE`, the committer).
pub(super) fn run_with(place: Place, args: &[&str], env: &[(&str, &OsStr)]) -> Result<String> {
    let drivers = filter_drivers(place)?;
    let ran = execute(command(place, args, env, &drivers), args)?;
    if ran.status.success() {
        Ok(ran.stdout)
    } else {
        Err(ran.failure(args))
    }
}

/// The names of the filter drivers the configuration at `place` defines (from any file, and
/// whatever it includes).
fn filter_drivers(place: Place) -> Result<Vec<String>> {
    let args = ["config", "--name-only", "-z", "--get-regexp", r"^filter\."];
    let ran = execute(command(place, &args, &[], &[]), &args)?;
    // 1: none is defined.
    if !ran.status.success() && ran.status.code() != Some(1) {
        return Err(ran.failure(&args));
    }
    let mut names: Vec<String> = ran
        .stdout
        .split('\0')
        // `filter.<name>.<key>`: the name lies between the first and the last dot.
        .filter_map(|key| key.strip_prefix("filter.")?.rsplit_once('.').map(|(name, _)| name.to_owned()))
        .collect();
    names.sort();
    names.dedup();
    Ok(names)
}

/// The git command: the only place a git process is made. `drivers` are the filter drivers
/// to empty (see the module's notes).
fn command(place: Place, args: &[&str], env: &[(&str, &OsStr)], drivers: &[String]) -> Command {
    let mut command = Command::new("git");
    for name in DROPPED_ENV {
        command.env_remove(name);
    }
    match place {
        Place::Folder(dir) => {
            command.arg("-C").arg(dir);
        }
        Place::Worktree { path, git_dir } => {
            command.arg("-C").arg(path).arg("--git-dir").arg(git_dir).arg("--work-tree").arg(path);
        }
        Place::GitDir(dir) => {
            command.arg("--git-dir").arg(dir);
        }
    }
    for setting in HARDENING {
        command.arg("-c").arg(setting);
    }
    let emptied: Vec<(String, &str)> = drivers
        .iter()
        .flat_map(|name| {
            [("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")]
                .map(|(key, value)| (format!("filter.{name}.{key}"), value))
        })
        .collect();
    command.env("GIT_CONFIG_COUNT", emptied.len().to_string());
    for (i, (key, value)) in emptied.iter().enumerate() {
        command.env(format!("GIT_CONFIG_KEY_{i}"), key).env(format!("GIT_CONFIG_VALUE_{i}"), value);
    }
    match args.split_first() {
        Some((&"diff", rest)) => {
            command.arg("diff").args(["--no-textconv", "--no-ext-diff"]).args(rest);
        }
        _ => {
            command.args(args);
        }
    }
    command
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// How a git command ended.
struct Ran {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn failure(&self, args: &[&str]) -> Error {
        let why = if self.stderr.is_empty() { format!("exit {}", self.status) } else { self.stderr.clone() };
        Error::Git(format!("`git {}` failed: {why}", args.join(" ")))
    }
}

/// Runs `command` to its end, or stops it after [`GIT_TIMEOUT`].
fn execute(mut command: Command, args: &[&str]) -> Result<Ran> {
    let shown = format!("git {}", args.join(" "));
    let mut child = command.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::Git(
            "Git was not found on this machine's PATH: install git to run cards whose project folder is a git \
             repository."
                .into(),
        ),
        _ => Error::Git(format!("`{shown}` could not start: {e}")),
    })?;
    // Read both pipes while waiting, so a large output never blocks the child.
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = reader(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = reader(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let deadline = Instant::now() + GIT_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::Git(format!("`{shown}` was stopped after {} s.", GIT_TIMEOUT.as_secs())));
            }
            Err(e) => return Err(Error::Git(format!("`{shown}` could not be waited for: {e}"))),
        }
    };
    let stdout = String::from_utf8_lossy(&stdout.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&stderr.join().unwrap_or_default()).trim().to_owned();
    Ok(Ran { status, stdout, stderr })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(command: &Command) -> (Vec<String>, Vec<(String, Option<String>)>) {
        let args = command.get_args().map(|a| a.to_string_lossy().into_owned()).collect();
        let env = command
            .get_envs()
            .map(|(k, v)| (k.to_string_lossy().into_owned(), v.map(|v| v.to_string_lossy().into_owned())))
            .collect();
        (args, env)
    }

    #[test]
    fn every_command_disables_hooks_and_fsmonitor_and_empties_every_filter_driver() {
        let (path, git_dir) = (Path::new("/wt"), Path::new("/repo/.git/worktrees/wt"));
        let drivers = ["lfs".to_owned(), "we=ird.name".to_owned()];
        let (args, env) = shown(&command(Place::Worktree { path, git_dir }, &["add", "-A"], &[], &drivers));
        assert_eq!(
            args,
            [
                "-C",
                "/wt",
                "--git-dir",
                "/repo/.git/worktrees/wt",
                "--work-tree",
                "/wt",
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.fsmonitor=false",
                "-c",
                "commit.gpgSign=false",
                "add",
                "-A"
            ]
        );
        let var = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        assert_eq!(var("GIT_CONFIG_COUNT"), Some(Some("8".into())));
        assert_eq!(var("GIT_CONFIG_KEY_4"), Some(Some("filter.we=ird.name.clean".into())));
        assert_eq!(var("GIT_CONFIG_VALUE_4"), Some(Some(String::new())));
        assert_eq!(var("GIT_CONFIG_KEY_7"), Some(Some("filter.we=ird.name.required".into())));
        assert_eq!(var("GIT_CONFIG_VALUE_7"), Some(Some("false".into())));
        for dropped in ["GIT_CONFIG_PARAMETERS", "GIT_DIR", "GIT_EXTERNAL_DIFF"] {
            assert_eq!(var(dropped), Some(None), "{dropped} is removed");
        }

        let (args, _) = shown(&command(Place::Folder(path), &["diff", "--cached", "base"], &[], &[]));
        assert_eq!(args[..2], ["-C", "/wt"]);
        assert_eq!(args[8..], ["diff", "--no-textconv", "--no-ext-diff", "--cached", "base"]);
        let (args, env) = shown(&command(Place::GitDir(git_dir), &["branch", "-D", "b"], &[], &[]));
        assert_eq!(args[..2], ["--git-dir", "/repo/.git/worktrees/wt"]);
        assert!(env.contains(&("GIT_CONFIG_COUNT".into(), Some("0".into()))));
    }
}
