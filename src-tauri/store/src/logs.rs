//! The app's log: the file it is written to in the data folder (`logs/clawboo.log`, capped in
//! size and rotated), its level (a setting the user changes in Settings), and its last lines
//! (added to an error's "Copy details"). Events come from `tracing` throughout the engine and
//! the shell; the shell installs the one subscriber that writes them here.
//!
//! No secret is ever logged: no event has an API key, a run's relay or tools token, a
//! connector's secret, the local API's token or a request's headers among its fields or in its
//! message (the errors logged name what failed, never a credential). The shell's
//! `tests/log_secrets.rs` drives work that uses each kind and scans the file for them.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::store::{settings, Store};
use clawboo_vocab::error::{Error, Result};

/// The log file in the log folder; older ones are `clawboo.log.1` (newest) and `clawboo.log.2`.
pub const LOG_FILE: &str = "clawboo.log";
/// The file is rotated before it would grow past this.
pub const MAX_FILE_BYTES: u64 = 5 * 1024 * 1024;
/// How many files are kept, the current one included: at most 15 MiB of log in all.
pub const KEPT_FILES: usize = 3;
/// The most lines, and bytes, [`recent_lines`] hands out: enough for a report, small enough
/// to paste.
pub const MAX_RECENT_LINES: usize = 50;
pub const MAX_RECENT_BYTES: usize = 16 * 1024;

const LEVEL_SETTING: &str = "log.level";

/// How much is logged: errors only, warnings too, what Clawboo does (the default), or the
/// details of each step (for a bug report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    Error,
    Warn,
    #[default]
    Info,
    Debug,
}

impl LogLevel {
    pub const ALL: [LogLevel; 4] = [LogLevel::Error, LogLevel::Warn, LogLevel::Info, LogLevel::Debug];

    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|level| level.as_str() == text.trim())
    }

    pub fn tracing_level(self) -> tracing::Level {
        match self {
            LogLevel::Error => tracing::Level::ERROR,
            LogLevel::Warn => tracing::Level::WARN,
            LogLevel::Info => tracing::Level::INFO,
            LogLevel::Debug => tracing::Level::DEBUG,
        }
    }
}

/// The level stored in the settings; the default when none (or an unknown one) is.
pub fn level(store: &Store) -> Result<LogLevel> {
    let stored = store.read(|c| settings::get(c, LEVEL_SETTING))?;
    Ok(stored.as_deref().and_then(LogLevel::parse).unwrap_or_default())
}

pub fn set_level(store: &Store, level: LogLevel) -> Result<LogLevel> {
    store.write(|tx| settings::put(tx, LEVEL_SETTING, Some(level.as_str())))?;
    tracing::info!(level = level.as_str(), "log level set");
    Ok(level)
}

/// A log file that never grows past its cap: a write that would take it past `max_bytes`
/// first moves it aside (`clawboo.log` to `.1`, `.1` to `.2`, …, the oldest dropped) and starts
/// a new one. Each write is one whole event (the subscriber formats an event, then writes it
/// at once), so an event is never split across files.
#[derive(Debug)]
pub struct RotatingFile {
    dir: PathBuf,
    file: File,
    size: u64,
    max_bytes: u64,
    kept_files: usize,
}

impl RotatingFile {
    /// `dir/clawboo.log`, appended to; the folder is made (private to the user on Unix).
    pub fn open(dir: &Path) -> io::Result<Self> {
        Self::with_limits(dir, MAX_FILE_BYTES, KEPT_FILES)
    }

    pub fn with_limits(dir: &Path, max_bytes: u64, kept_files: usize) -> io::Result<Self> {
        crate::config::create_private_dir(dir)?;
        let file = open_append(&dir.join(LOG_FILE))?;
        let size = file.metadata()?.len();
        Ok(Self { dir: dir.to_owned(), file, size, max_bytes, kept_files: kept_files.max(1) })
    }

    fn rotate(&mut self) -> io::Result<()> {
        self.file.flush()?;
        let path = |n: usize| match n {
            0 => self.dir.join(LOG_FILE),
            n => self.dir.join(format!("{LOG_FILE}.{n}")),
        };
        let oldest = self.kept_files - 1;
        match std::fs::remove_file(path(oldest)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        for n in (0..oldest).rev() {
            match std::fs::rename(path(n), path(n + 1)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        self.file = open_append(&path(0))?;
        self.size = 0;
        Ok(())
    }
}

impl Write for RotatingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.size > 0 && self.size + buf.len() as u64 > self.max_bytes {
            self.rotate()?;
        }
        self.file.write_all(buf)?;
        self.size += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// The last `lines` lines of the log in `dir` (at most [`MAX_RECENT_LINES`], and
/// [`MAX_RECENT_BYTES`] in all), oldest first; from the file before the last rotation too when
/// the current one is shorter. No log yet: none.
pub fn recent_lines(dir: &Path, lines: usize) -> Result<Vec<String>> {
    let wanted = lines.min(MAX_RECENT_LINES);
    if wanted == 0 {
        return Ok(Vec::new());
    }
    let mut budget = MAX_RECENT_BYTES;
    let mut out: Vec<String> = Vec::new();
    for name in [LOG_FILE.to_owned(), format!("{LOG_FILE}.1")] {
        let (mut tail, whole) = match read_tail(&dir.join(&name), budget) {
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::NotFound => break,
            Err(e) => return Err(Error::io("Cannot read the log", e)),
        };
        budget -= tail.len().min(budget);
        if !whole {
            // The read began inside a line: that part is left out.
            let start = tail.iter().position(|&b| b == b'\n').map_or(tail.len(), |i| i + 1);
            tail.drain(..start);
        }
        let text = String::from_utf8_lossy(&tail);
        let mut older: Vec<String> = text.lines().map(str::to_owned).collect();
        older.append(&mut out);
        out = older;
        if out.len() >= wanted || !whole || budget == 0 {
            break;
        }
    }
    let skip = out.len().saturating_sub(wanted);
    Ok(out.split_off(skip))
}

/// The last `max` bytes of the file, and whether that is all of it.
fn read_tail(path: &Path, max: usize) -> io::Result<(Vec<u8>, bool)> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let start = len.saturating_sub(max as u64);
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::with_capacity((len - start) as usize);
    file.take(max as u64).read_to_end(&mut tail)?;
    Ok((tail, start == 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_lines(file: &mut RotatingFile, from: usize, count: usize) {
        for i in from..from + count {
            file.write_all(format!("line {i:04} {}\n", "x".repeat(20)).as_bytes()).unwrap();
        }
    }

    #[test]
    fn the_file_rotates_at_its_cap_and_keeps_only_so_many() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = RotatingFile::with_limits(dir.path(), 1_000, 3).unwrap();
        // 31 bytes a line: 32 lines to a file.
        write_lines(&mut file, 0, 200);
        let size = |name: &str| std::fs::metadata(dir.path().join(name)).map(|m| m.len()).ok();
        for name in [LOG_FILE, "clawboo.log.1", "clawboo.log.2"] {
            assert!(size(name).is_some_and(|s| s <= 1_000), "{name} exists within its cap: {:?}", size(name));
        }
        assert_eq!(size("clawboo.log.3"), None, "no fourth file is kept");
        let newest = std::fs::read_to_string(dir.path().join(LOG_FILE)).unwrap();
        assert!(newest.ends_with(&format!("line 0199 {}\n", "x".repeat(20))));
        let previous = std::fs::read_to_string(dir.path().join("clawboo.log.1")).unwrap();
        let first_now: usize = newest[5..9].parse().unwrap();
        assert!(previous.contains(&format!("line {:04} ", first_now - 1)), "no line lost between the files");
    }

    #[test]
    fn reopening_appends_and_a_full_file_rotates_at_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        write_lines(&mut RotatingFile::with_limits(dir.path(), 1_000, 3).unwrap(), 0, 20);
        write_lines(&mut RotatingFile::with_limits(dir.path(), 1_000, 3).unwrap(), 20, 10);
        let text = std::fs::read_to_string(dir.path().join(LOG_FILE)).unwrap();
        assert_eq!(text.lines().count(), 30, "appended, not truncated");
        let mut again = RotatingFile::with_limits(dir.path(), 500, 3).unwrap();
        write_lines(&mut again, 30, 1);
        assert_eq!(std::fs::read_to_string(dir.path().join(LOG_FILE)).unwrap().lines().count(), 1);
        assert_eq!(std::fs::read_to_string(dir.path().join("clawboo.log.1")).unwrap(), text);
    }

    #[test]
    fn recent_lines_are_the_last_ones_across_a_rotation_within_the_bounds() {
        let dir = tempfile::tempdir().unwrap();
        assert!(recent_lines(dir.path(), 10).unwrap().is_empty(), "no log yet: no lines");
        let mut file = RotatingFile::with_limits(dir.path(), 1_000, 3).unwrap();
        write_lines(&mut file, 0, 40);
        // The current file holds the last 8 lines; the rest come from the one before.
        let lines = recent_lines(dir.path(), 20).unwrap();
        assert_eq!(lines.len(), 20);
        assert!(lines[0].starts_with("line 0020 "), "{:?}", lines[0]);
        assert!(lines[19].starts_with("line 0039 "));
        assert_eq!(recent_lines(dir.path(), 1_000).unwrap().len(), 40, "both files' lines, no more");

        let mut big = RotatingFile::with_limits(dir.path(), 10 * 1024 * 1024, 3).unwrap();
        for i in 0..100 {
            big.write_all(format!("long {i:03} {}\n", "y".repeat(1_000)).as_bytes()).unwrap();
        }
        let lines = recent_lines(dir.path(), 1_000).unwrap();
        assert!(lines.len() <= MAX_RECENT_LINES);
        assert!(lines.iter().map(|l| l.len() + 1).sum::<usize>() <= MAX_RECENT_BYTES, "within 16 KiB");
        assert!(lines.last().unwrap().starts_with("long 099 "), "the newest line last");
        assert!(lines.iter().all(|l| l.starts_with("long ")), "no partial line: {:?}", &lines[0][..10]);
    }

    #[test]
    fn levels_read_back_as_written() {
        for level in LogLevel::ALL {
            assert_eq!(LogLevel::parse(level.as_str()), Some(level));
        }
        assert_eq!(LogLevel::parse("trace"), None);
        assert_eq!(LogLevel::default(), LogLevel::Info);
    }
}
