//! Each agent's private homes for its CLIs, inside its folder, so no runtime reads the user's
//! own configuration (`~/.claude`, `~/.codex`) or another agent's, and temp files stay out of
//! `/tmp` (Codex refuses helper binaries there).

use std::path::{Path, PathBuf};

use crate::agents::RuntimeKind;
use crate::error::{Error, Result};

/// `<agent folder>/.clawboo/`: hidden, so it is neither an agent file nor watched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeHomes {
    root: PathBuf,
}

impl RuntimeHomes {
    pub fn for_agent_dir(agent_dir: &Path) -> Self {
        Self { root: agent_dir.join(".clawboo") }
    }

    /// The agent's own folder (its SOUL.md and other files), which a task run's working folder
    /// (a project folder or worktree) may not be.
    pub fn agent_dir(&self) -> &Path {
        self.root.parent().unwrap_or(&self.root)
    }

    /// The home of one runtime (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `HERMES_HOME`, OpenClaw's
    /// state), created on first use.
    pub fn home(&self, kind: RuntimeKind) -> Result<PathBuf> {
        self.ensure(self.root.join(kind.as_str()))
    }

    pub fn tmp(&self) -> Result<PathBuf> {
        self.ensure(self.root.join("tmp"))
    }

    fn ensure(&self, dir: PathBuf) -> Result<PathBuf> {
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(format!("Cannot create {}", dir.display()), e))?;
        Ok(dir)
    }
}

/// Variables every CLI may take from Clawboo's environment. Everything else is set explicitly.
pub const INHERITED_ENV: &[&str] =
    &["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "USER", "LOGNAME", "SHELL", "SYSTEMROOT", "COMSPEC", "PATHEXT"];

/// Writes a file only its owner can read (settings that name secrets' variables, tokens).
pub fn write_private(path: &Path, text: &str) -> Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let write = |mut file: std::fs::File| std::io::Write::write_all(&mut file, text.as_bytes());
    options.open(path).and_then(write).map_err(|e| Error::io(format!("Cannot write {}", path.display()), e))
}

/// Keeps `target` a copy of `source` (an agent file a runtime reads from its own place):
/// written only when it differs, removed when `source` is gone or empty.
pub fn mirror_file(source: &Path, target: &Path) -> Result<()> {
    match std::fs::read(source) {
        Ok(bytes) if !bytes.iter().all(u8::is_ascii_whitespace) => write_if_changed(target, &bytes),
        Ok(_) => remove_if_present(target),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => remove_if_present(target),
        Err(e) => Err(Error::io(format!("Cannot read {}", source.display()), e)),
    }
}

/// Writes `bytes` to `path` (atomically) unless it already holds them, so a runtime watching the
/// file is not woken for nothing.
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<()> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    crate::agents::atomic_write(path, bytes)
}

fn remove_if_present(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(Error::io(format!("Cannot remove {}", path.display()), e))
        }
        _ => Ok(()),
    }
}
