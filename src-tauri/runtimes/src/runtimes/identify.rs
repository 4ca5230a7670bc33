//! Whether a program the user names in Settings > Runtimes is the runtime it is set for: a full
//! path to an executable file that answers `--version` the way that CLI does. Blocking: call it
//! from a blocking thread.

use std::path::Path;
use std::time::Duration;

use super::detect;
use crate::agents::RuntimeKind;
use crate::error::{Error, Result};

const DEADLINE: Duration = Duration::from_secs(15);

pub fn check_program(kind: RuntimeKind, path: &Path) -> Result<()> {
    let name = detect::label(kind);
    let invalid = |why: String| Err(Error::InvalidInput(format!("{}: {why}", path.display())));
    if !path.is_absolute() {
        return invalid("not a full path; give the whole path to the program.".into());
    }
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) => return invalid(format!("no such program ({e}).")),
    };
    if !meta.is_file() {
        return invalid("this is a folder, not a program.".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return invalid("this file is not executable (chmod +x it, or pick the program itself).".into());
        }
    }
    let output = match version_output(path) {
        Ok(output) => output,
        Err(why) => return invalid(format!("{why}, so it cannot be checked as {name}.")),
    };
    if answers_like(kind, &output) {
        return Ok(());
    }
    let shown: String = output.trim().chars().take(120).collect();
    invalid(format!("this is not {name}: `--version` printed “{shown}”, and {name} prints {}.", expected(kind)))
}

/// Whether `--version` output is that of `kind` (checked against 2.1.332, 0.171.0, 0.19.0 and
/// 2026.9.6 of the four CLIs).
pub fn answers_like(kind: RuntimeKind, output: &str) -> bool {
    let first = output.trim_start().lines().next().unwrap_or("").trim();
    let versioned = detect::parse_version(first).is_some();
    match kind {
        RuntimeKind::ClaudeCode => versioned && first.ends_with("(Claude Code)"),
        RuntimeKind::Codex => versioned && first.starts_with("codex-cli "),
        RuntimeKind::Hermes => versioned && first.starts_with("Hermes Agent "),
        // Under a Node older than it needs, OpenClaw names itself and the Node problem instead
        // of its version; that is still OpenClaw (Settings shows the Node problem).
        RuntimeKind::Openclaw => {
            (versioned && first.starts_with("OpenClaw ")) || (first.starts_with("openclaw: Node ") && !versioned)
        }
        RuntimeKind::Native => false,
    }
}

fn expected(kind: RuntimeKind) -> &'static str {
    match kind {
        RuntimeKind::ClaudeCode => "“2.1.332 (Claude Code)”",
        RuntimeKind::Codex => "“codex-cli 0.171.0”",
        RuntimeKind::Hermes => "“Hermes Agent v0.19.0”",
        RuntimeKind::Openclaw => "“OpenClaw 2026.9.6 (…)”",
        RuntimeKind::Native => "nothing",
    }
}

/// `program --version` (stdout, then stderr), with a deadline and a cap on what is read.
fn version_output(program: &Path) -> Result<String, String> {
    let mut command = std::process::Command::new(program);
    command.arg("--version");
    detect::run_within(command, DEADLINE).map(|(_, out, err)| format!("{out}\n{err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cli_is_known_by_what_it_really_prints() {
        assert!(answers_like(RuntimeKind::ClaudeCode, "2.1.332 (Claude Code)\n"));
        assert!(answers_like(RuntimeKind::Codex, "codex-cli 0.171.0\n"));
        assert!(answers_like(RuntimeKind::Hermes, "Hermes Agent v0.19.0 (2026.7.20)\nInstall directory: …"));
        assert!(answers_like(RuntimeKind::Openclaw, "OpenClaw 2026.9.6 (eb377ac)\n"));
        assert!(answers_like(
            RuntimeKind::Openclaw,
            "openclaw: Node 20.20.2: node:sqlite is unavailable; use 24.16+/26.1+ or a build with the fix."
        ));
        // Another CLI, or a version number alone, is not the runtime.
        assert!(!answers_like(RuntimeKind::ClaudeCode, "codex-cli 0.171.0"));
        assert!(!answers_like(RuntimeKind::Codex, "2.1.332 (Claude Code)"));
        assert!(!answers_like(RuntimeKind::Hermes, "1.2.3"));
        assert!(!answers_like(RuntimeKind::Openclaw, "Python 3.11.7"));
        assert!(!answers_like(RuntimeKind::ClaudeCode, ""));
    }

    #[cfg(unix)]
    fn script(dir: &Path, name: &str, body: &str, mode: u32) -> std::path::PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    #[cfg(unix)]
    #[test]
    fn only_an_executable_that_answers_like_the_runtime_passes() {
        let dir = tempfile::tempdir().unwrap();
        let good = script(dir.path(), "claude", "echo '2.1.332 (Claude Code)'", 0o755);
        check_program(RuntimeKind::ClaudeCode, &good).unwrap();

        let wrong = script(dir.path(), "not-claude", "echo 'codex-cli 0.171.0'", 0o755);
        let err = check_program(RuntimeKind::ClaudeCode, &wrong).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::InvalidInput);
        assert!(err.to_string().contains("this is not Claude Code") && err.to_string().contains("codex-cli"), "{err}");

        let plain = script(dir.path(), "plain", "echo '2.1.332 (Claude Code)'", 0o644);
        assert!(check_program(RuntimeKind::ClaudeCode, &plain).unwrap_err().to_string().contains("not executable"));
        let missing = dir.path().join("missing");
        assert!(check_program(RuntimeKind::ClaudeCode, &missing).unwrap_err().to_string().contains("no such program"));
        assert!(check_program(RuntimeKind::ClaudeCode, dir.path()).unwrap_err().to_string().contains("folder"));
        assert!(check_program(RuntimeKind::ClaudeCode, Path::new("claude"))
            .unwrap_err()
            .to_string()
            .contains("full path"));
        let fails = script(dir.path(), "fails", "echo 'Segmentation fault' >&2; exit 139", 0o755);
        assert!(check_program(RuntimeKind::Hermes, &fails).unwrap_err().to_string().contains("Segmentation fault"));
    }
}
