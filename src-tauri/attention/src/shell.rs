//! "Allow always" for a shell tool is per command prefix, never the whole shell (like Claude
//! Code's `Bash(git status:*)`). The grant keeps the command's leading words (the program and,
//! when there is one, its subcommand: `git status`, `npm test`, `ls`); a later command is let
//! through only when its words start with those words AND it holds nothing that could run
//! another command (`;`, `&&`, `||`, `|`, `&`, backticks, `$(`, redirections, newlines, control
//! characters). Anything else asks again.
//!
//! The shell tools, by the name each adapter gives them (src-tauri/runtimes/src/runtimes/*/protocol.rs):
//! Claude Code `Bash`; Codex's command execution `shell` (Codex itself says `exec_command`,
//! `local_shell`, `commandExecution`); Hermes `terminal` (or the ACP kind `execute` when its
//! title names no tool); OpenClaw `exec`. Native has no shell tool. Each passes the command
//! line as the input's `command` string. Naming too many tools here only makes grants narrower.

use serde_json::Value;

/// Tool names that run a shell command (see the module's note).
pub const SHELL_TOOLS: &[&str] =
    &["Bash", "bash", "shell", "local_shell", "exec_command", "commandExecution", "exec", "terminal", "execute"];

/// Programs that run whatever command follows them: a prefix of theirs (`bash`, `sudo`, `env`)
/// would let any command through, so their commands are never allowed always.
const RUNS_OTHER_COMMANDS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "env", "sudo", "doas", "su", "xargs", "eval", "exec",
    "command", "builtin", "source", ".", "nohup", "timeout", "time", "nice", "ionice", "watch", "strace", "script",
    "setsid", "stdbuf", "chroot", "unshare", "flock",
];

pub fn is_shell_tool(tool: &str) -> bool {
    SHELL_TOOLS.contains(&tool)
}

/// The command line a shell tool's input holds; Codex's `/bin/bash -lc '<command>'` wrapper is
/// taken off (only its plain single-quoted form, with no quote inside).
pub fn command_of(input: &Value) -> Option<&str> {
    let command = input.get("command")?.as_str()?;
    Some(unwrap_shell(command).unwrap_or(command))
}

fn unwrap_shell(command: &str) -> Option<&str> {
    let (program, rest) = command.trim().split_once(' ')?;
    let program = program.rsplit('/').next()?;
    if !matches!(program, "bash" | "sh" | "zsh") {
        return None;
    }
    let rest = rest.trim_start();
    let body = rest.strip_prefix("-lc ").or_else(|| rest.strip_prefix("-c "))?.trim_start();
    let body = body.strip_prefix('\'')?.strip_suffix('\'')?;
    (!body.contains('\'')).then_some(body)
}

/// What "Allow always" grants for shell tool `tool` with `input`: the command's leading words,
/// or None when it cannot be allowed always (no plain command, a program that runs other
/// commands, or a command that chains another). None for every other tool too.
pub fn grant_prefix(tool: &str, input: &Value) -> Option<String> {
    if !is_shell_tool(tool) {
        return None;
    }
    prefix_of(command_of(input)?)
}

/// The leading words of a plain command: its program, and its subcommand when the second word
/// reads as one (`git status`, `npm test`; `ls -la` and `cat notes.md` give `ls` and `cat`).
pub fn prefix_of(command: &str) -> Option<String> {
    if !is_plain(command) {
        return None;
    }
    let mut words = command.split_ascii_whitespace();
    let program = words.next()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    if !is_program(program) || RUNS_OTHER_COMMANDS.contains(&name) {
        return None;
    }
    match words.next() {
        Some(sub) if is_subcommand(sub) => Some(format!("{program} {sub}")),
        _ => Some(program.to_owned()),
    }
}

/// Whether the grant for `prefix` lets `command` through: its words start with the prefix's
/// words, whole, and it chains nothing.
pub fn allows(prefix: &str, command: &str) -> bool {
    let wanted: Vec<&str> = prefix.split_ascii_whitespace().collect();
    if wanted.is_empty() || !is_plain(command) {
        return false;
    }
    let mut words = command.split_ascii_whitespace();
    wanted.iter().all(|w| words.next() == Some(w))
}

/// What a grant allows, as the audit says it: `Bash: git status …` for a prefix, else the tool.
pub fn label(tool: &str, prefix: Option<&str>) -> String {
    match prefix {
        Some(prefix) => format!("{tool}: {prefix} …"),
        None => tool.to_owned(),
    }
}

/// No operator or substitution that could run another command, and no control character
/// (newlines included; a tab is only a space).
pub fn is_plain(command: &str) -> bool {
    !command.contains("$(")
        && !command.chars().any(|c| matches!(c, ';' | '&' | '|' | '`' | '>' | '<') || (c.is_control() && c != '\t'))
}

/// A program as typed: a name or a path, nothing the shell would expand or that sets a variable.
fn is_program(word: &str) -> bool {
    !word.starts_with('-') && word.chars().all(|c| c.is_ascii_alphanumeric() || "._-+/@%,:".contains(c))
}

/// A word that reads as a subcommand (`status`, `test`, `run-script`, `test:unit`), not an
/// option, a path or a file name.
fn is_subcommand(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_alphabetic())
        && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_:".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_prefix_is_the_program_and_its_subcommand() {
        for (command, prefix) in [
            ("git status", "git status"),
            ("git status -s", "git status"),
            ("  npm   test -- --watch", "npm test"),
            ("ls", "ls"),
            ("ls -la /tmp", "ls"),
            ("cat notes.md", "cat"),
            ("cargo test:unit", "cargo test:unit"),
            ("/usr/bin/git log --oneline", "/usr/bin/git log"),
        ] {
            assert_eq!(prefix_of(command).as_deref(), Some(prefix), "{command:?}");
        }
    }

    #[test]
    fn no_prefix_for_chained_wrapped_or_odd_commands() {
        for command in [
            "",
            "   ",
            "git status; rm -rf ~",
            "git status && curl x",
            "git status | sh",
            "echo $(id)",
            "echo `id`",
            "ls > out",
            "git status\nrm -rf ~",
            "FOO=1 git status",
            "sudo rm -rf /",
            "bash -c 'rm -rf ~'",
            "/bin/sh -c x",
            "env git status",
            "xargs rm",
            "$HOME/bin/x",
            "~/x run",
            "-rf",
            "'git' status",
        ] {
            assert_eq!(prefix_of(command), None, "{command:?}");
        }
    }

    #[test]
    fn a_grant_for_git_status_lets_only_plain_git_status_commands_through() {
        let prefix = prefix_of("git status").unwrap();
        for command in ["git status", "git status -s", "  git   status\t--short ", "git status ."] {
            assert!(allows(&prefix, command), "{command:?} should pass");
        }
        for command in [
            "git push",
            "git statusx",
            "git",
            "gitstatus",
            "git status; rm -rf ~",
            "git status && curl x",
            "git status || curl x",
            "git status | tee x",
            "git status & curl x",
            "git status `curl x`",
            "git status $(curl x)",
            "git status > ~/.bashrc",
            "git status < /etc/passwd",
            "git status\ncurl x",
            "git status\rcurl x",
            "git status\u{85}curl x",
            "sudo git status",
            "Git status",
        ] {
            assert!(!allows(&prefix, command), "{command:?} should ask again");
        }
        assert!(!allows("", "git status"), "an empty prefix allows nothing");
    }

    #[test]
    fn shell_tools_grant_prefixes_other_tools_none() {
        let input = json!({"command": "git status -s", "description": "x"});
        for tool in ["Bash", "shell", "exec", "terminal", "execute"] {
            assert_eq!(grant_prefix(tool, &input).as_deref(), Some("git status"), "{tool}");
        }
        assert_eq!(grant_prefix("Write", &input), None);
        assert_eq!(grant_prefix("Bash", &json!({"command": ["git", "status"]})), None);
        assert_eq!(grant_prefix("Bash", &json!({"file_path": "x"})), None);
        assert_eq!(grant_prefix("Bash", &json!({"command": "git status; rm x"})), None);
    }

    #[test]
    fn codexs_bash_wrapper_is_taken_off_in_its_plain_form_only() {
        let input = |c: &str| json!({"command": c, "cwd": "/w"});
        assert_eq!(command_of(&input("/bin/bash -lc 'touch created.txt'")), Some("touch created.txt"));
        assert_eq!(command_of(&input("bash -c 'git status -s'")), Some("git status -s"));
        assert_eq!(grant_prefix("shell", &input("/bin/bash -lc 'git status'")).as_deref(), Some("git status"));
        assert!(allows("git status", command_of(&input("/bin/bash -lc 'git status -s'")).unwrap()));
        assert!(!allows("git status", command_of(&input("/bin/bash -lc 'git status; rm -rf ~'")).unwrap()));
        // A quote inside: left as it is, so the program is bash, which is never allowed always.
        let quoted = "/bin/bash -lc 'echo '\\''hi'\\'''";
        assert_eq!(command_of(&input(quoted)), Some(quoted));
        assert_eq!(grant_prefix("shell", &input(quoted)), None);
        assert!(!allows("echo", quoted));
    }
}
