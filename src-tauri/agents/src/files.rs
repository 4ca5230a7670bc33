//! An agent's workspace folder and the files the app lets the user edit in it.
//!
//! Only the names in [`AgentFileName`] can be read or written: anything else — another name,
//! a path with a separator, `..` — is refused before the file system is touched.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use clawboo_vocab::error::{Error, Result};
pub use clawboo_vocab::AgentFileName;

/// Largest agent file the app reads or writes. Agent files are prompts, not data sets; a file
/// past this is refused with a clear error rather than loaded into an editor or a prompt.
pub const MAX_AGENT_FILE_BYTES: u64 = 1024 * 1024;

/// The text a new agent's file starts with.
fn starting_text(file: AgentFileName, profile: &StarterProfile<'_>) -> String {
    let StarterProfile { name, handle, description } = *profile;
    let about = if description.trim().is_empty() { String::new() } else { format!(" {}", description.trim()) };
    match file {
        AgentFileName::Soul => format!(
            "# {name}\n\n\
             You are {name} (@{handle}).{about}\n\n\
             ## How you work\n\
             - Be direct and concrete: say what you did, what you found and what is left.\n\
             - When a request is ambiguous, ask; when you cannot ask, state your assumptions.\n\
             - Prefer small, checked steps over large guesses.\n\n\
             ## Boundaries\n\
             - Work inside your workspace unless you are told otherwise.\n\
             - Never reveal secrets, keys or private data.\n"
        ),
        AgentFileName::Agents => "# Operating instructions\n\n\
             How to work in this workspace: conventions, tools to prefer, commands to run before\n\
             calling something done. Runtimes that read AGENTS.md natively (Codex, Hermes) get it\n\
             as written.\n"
            .to_owned(),
        AgentFileName::Identity => {
            format!("# Identity\n\n- Name: {name}\n- Handle: @{handle}\n- Voice: calm, precise, friendly\n")
        }
        AgentFileName::User => "# About the user\n\n\
             Who you work for: name, how they like answers, what they care about.\n"
            .to_owned(),
        AgentFileName::Memory => "# Memory\n\n\
             Durable notes worth keeping between conversations. Keep entries short and dated.\n"
            .to_owned(),
        AgentFileName::Bootstrap => "# First run\n\n\
             What to do the first time you start: introduce yourself, learn about the user,\n\
             fill in USER.md. Empty this file when it is done.\n"
            .to_owned(),
        AgentFileName::Heartbeat => "# Heartbeat\n\n\
             Checks to run on a schedule, one per line. Leave empty for none.\n"
            .to_owned(),
    }
}

/// Whether `text` is still the starting text Clawboo wrote in `file` for `profile` (whitespace
/// at either end aside): a placeholder, not the user's words. SOUL.md never counts: it is the
/// agent's persona, whoever wrote it.
pub fn is_starting_text(file: AgentFileName, text: &str, profile: &StarterProfile<'_>) -> bool {
    file != AgentFileName::Soul && text.trim() == starting_text(file, profile).trim()
}

/// What the starting text of a new agent's files mentions.
#[derive(Debug, Clone, Copy)]
pub struct StarterProfile<'a> {
    pub name: &'a str,
    pub handle: &'a str,
    pub description: &'a str,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMeta {
    pub name: AgentFileName,
    pub size: u64,
    /// Milliseconds since the Unix epoch.
    pub modified_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileContent {
    pub name: AgentFileName,
    pub content: String,
    pub modified_at: i64,
}

/// The folder holding every agent's workspace: `<data dir>/agents/<agent id>/`.
#[derive(Debug, Clone)]
pub struct Workspaces {
    root: PathBuf,
}

const TRASH_PREFIX: &str = ".trash-";

impl Workspaces {
    pub fn new(root: PathBuf) -> Result<Self> {
        fs::create_dir_all(&root).map_err(|e| Error::io(format!("Cannot create {}", root.display()), e))?;
        Ok(Self { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn dir(&self, agent_id: &str) -> PathBuf {
        self.root.join(agent_id)
    }

    /// Creates the folder and any missing file with its starting text. Never overwrites.
    pub fn ensure(&self, agent_id: &str, profile: &StarterProfile<'_>) -> Result<()> {
        let dir = self.dir(agent_id);
        fs::create_dir_all(&dir).map_err(|e| Error::io(format!("Cannot create {}", dir.display()), e))?;
        for file in AgentFileName::ALL {
            let path = dir.join(file.as_str());
            if !path.exists() {
                atomic_write(&path, starting_text(file, profile).as_bytes())?;
            }
        }
        Ok(())
    }

    pub fn list(&self, agent_id: &str) -> Result<Vec<FileMeta>> {
        AgentFileName::ALL
            .into_iter()
            .map(|name| {
                let path = self.existing_dir(agent_id)?.join(name.as_str());
                match fs::metadata(&path) {
                    Ok(meta) => Ok(FileMeta { name, size: meta.len(), modified_at: modified_ms(&meta) }),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        Ok(FileMeta { name, size: 0, modified_at: 0 })
                    }
                    Err(e) => Err(Error::io(format!("Cannot read {}", path.display()), e)),
                }
            })
            .collect()
    }

    /// Reads a file; a file deleted outside the app reads as empty (saving recreates it).
    pub fn read(&self, agent_id: &str, name: AgentFileName) -> Result<FileContent> {
        let path = self.existing_dir(agent_id)?.join(name.as_str());
        let meta = match fs::metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(FileContent { name, content: String::new(), modified_at: 0 })
            }
            Err(e) => return Err(Error::io(format!("Cannot read {}", path.display()), e)),
        };
        if meta.len() > MAX_AGENT_FILE_BYTES {
            return Err(Error::FileTooLarge { name: name.to_string(), size: meta.len(), limit: MAX_AGENT_FILE_BYTES });
        }
        let bytes = fs::read(&path).map_err(|e| Error::io(format!("Cannot read {}", path.display()), e))?;
        let content = String::from_utf8(bytes).map_err(|_| {
            Error::InvalidInput(format!("{name} is not valid UTF-8 text; open it in another editor to fix it."))
        })?;
        Ok(FileContent { name, content, modified_at: modified_ms(&meta) })
    }

    pub fn write(&self, agent_id: &str, name: AgentFileName, content: &str) -> Result<FileContent> {
        let size = content.len() as u64;
        if size > MAX_AGENT_FILE_BYTES {
            return Err(Error::FileTooLarge { name: name.to_string(), size, limit: MAX_AGENT_FILE_BYTES });
        }
        let path = self.existing_dir(agent_id)?.join(name.as_str());
        atomic_write(&path, content.as_bytes())?;
        let meta = fs::metadata(&path).map_err(|e| Error::io(format!("Cannot read {}", path.display()), e))?;
        Ok(FileContent { name, content: content.to_owned(), modified_at: modified_ms(&meta) })
    }

    /// Every file of the agent as a run reads it (a missing one is empty).
    pub fn read_all(&self, agent_id: &str) -> Result<clawboo_context::files::AgentFiles> {
        AgentFileName::ALL.into_iter().try_fold(clawboo_context::files::AgentFiles::default(), |files, name| {
            Ok(files.with(name, self.read(agent_id, name)?.content))
        })
    }

    /// Moves the folder aside in one rename, so the caller can still undo it; see [`Self::purge`].
    pub fn move_to_trash(&self, agent_id: &str) -> Result<Option<PathBuf>> {
        let dir = self.dir(agent_id);
        if !dir.exists() {
            return Ok(None);
        }
        let trash = self.root.join(format!("{TRASH_PREFIX}{agent_id}"));
        fs::rename(&dir, &trash).map_err(|e| Error::io(format!("Cannot remove {}", dir.display()), e))?;
        Ok(Some(trash))
    }

    pub fn restore_from_trash(&self, agent_id: &str, trash: &Path) -> Result<()> {
        let dir = self.dir(agent_id);
        fs::rename(trash, &dir).map_err(|e| Error::io(format!("Cannot restore {}", dir.display()), e))
    }

    pub fn purge(&self, trash: &Path) -> Result<()> {
        fs::remove_dir_all(trash).map_err(|e| Error::io(format!("Cannot delete {}", trash.display()), e))
    }

    /// Deletes folders left in the trash by a delete that was interrupted (crash, locked file).
    pub fn sweep_trash(&self) -> Result<usize> {
        let mut swept = 0;
        let entries =
            fs::read_dir(&self.root).map_err(|e| Error::io(format!("Cannot list {}", self.root.display()), e))?;
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(TRASH_PREFIX) {
                self.purge(&entry.path())?;
                swept += 1;
            }
        }
        Ok(swept)
    }

    /// Maps a path reported by the watcher back to (agent id, file), if it is an agent file.
    pub fn identify(&self, path: &Path) -> Option<(String, AgentFileName)> {
        let rel = path.strip_prefix(&self.root).ok()?;
        let mut parts = rel.components();
        let agent_id = parts.next()?.as_os_str().to_str()?;
        let file = parts.next()?.as_os_str().to_str()?;
        if parts.next().is_some() || agent_id.starts_with('.') {
            return None;
        }
        Some((agent_id.to_owned(), AgentFileName::parse(file).ok()?))
    }

    fn existing_dir(&self, agent_id: &str) -> Result<PathBuf> {
        let dir = self.dir(agent_id);
        if dir.is_dir() {
            Ok(dir)
        } else {
            Err(Error::NotFound(format!("The workspace folder of agent {agent_id}")))
        }
    }
}

/// Writes `bytes` to `path` so that a reader sees either the old or the new content, never a
/// torn file: a temp file in the same folder, flushed to disk, then renamed over the target.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().ok_or_else(|| Error::Internal(format!("{} has no folder", path.display())))?;
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{file_name}.{}.tmp", uuid::Uuid::new_v4().simple()));
    let written = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    written.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io(format!("Cannot save {}", path.display()), e)
    })
}

fn modified_ms(meta: &fs::Metadata) -> i64 {
    meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILE: StarterProfile<'static> = StarterProfile { name: "Ada", handle: "ada", description: "Reads." };

    #[test]
    fn the_starting_text_is_recognised_until_edited() {
        for file in AgentFileName::ALL.into_iter().filter(|f| *f != AgentFileName::Soul) {
            let text = starting_text(file, &PROFILE);
            assert!(is_starting_text(file, &text, &PROFILE), "{file:?}");
            assert!(is_starting_text(file, &format!("\n{text}\n\n"), &PROFILE), "{file:?}: whitespace at the ends");
            assert!(!is_starting_text(file, &format!("{text}- One line of the user's.\n"), &PROFILE), "{file:?}");
        }
        // IDENTITY.md names the agent: another agent's is not this one's starting text.
        let other = StarterProfile { name: "Bo", handle: "bo", description: "" };
        let identity = starting_text(AgentFileName::Identity, &other);
        assert!(!is_starting_text(AgentFileName::Identity, &identity, &PROFILE));
        // SOUL.md is the persona, whoever wrote it.
        let soul = starting_text(AgentFileName::Soul, &PROFILE);
        assert!(!is_starting_text(AgentFileName::Soul, &soul, &PROFILE));
    }
}
