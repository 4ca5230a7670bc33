//! A card's check command: `sh -c` in the run's working folder, through the engine's spawner
//! (its own process group, killed whole on time-out), with stdout and stderr combined in the
//! order written and only the tail kept.

use crate::runtimes::sandbox::{folder_view, NetworkAccess, FOLDER_VIEW_ENV};
use std::path::Path;
use std::time::Duration;

use tokio::io::AsyncReadExt;

use crate::runtimes::process::{CommandSpec, Spawner};

/// How a check ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOutcome {
    /// `None` when it was ended by a signal or stopped (time-out, cancel).
    pub exit_code: Option<i32>,
    /// The tail of its combined output (at most `keep_bytes`, cut at a char boundary).
    pub output: String,
    /// Why it did not run to its own end, when it did not.
    pub stopped: Option<String>,
}

impl CheckOutcome {
    pub fn passed(&self) -> bool {
        self.exit_code == Some(0) && self.stopped.is_none()
    }
}

/// What the check's environment inherits from Clawboo's (nothing else: no keys, no tokens).
const INHERITED: [&str; 8] = ["PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR", "SHELL", "TERM"];

/// Runs `command` in `folder`; stops it (the whole process group) after `limit`, or when
/// `cancel` turns true. Never fails: a check that cannot start is a failed check saying why.
pub async fn run_check(
    spawner: &dyn Spawner,
    command: &str,
    folder: &Path,
    limit: Duration,
    keep_bytes: usize,
    mut cancel: tokio::sync::watch::Receiver<bool>,
) -> CheckOutcome {
    // `exec 2>&1` in the shell itself interleaves stderr with stdout as written.
    // It runs what the agent wrote (`npm test` runs its code): in the sandbox, seeing the
    // card's folder only, no network.
    let sandbox = crate::runtimes::sandbox::os_supported();
    let spec = CommandSpec {
        program: "sh".into(),
        args: vec!["-c".into(), format!("exec 2>&1\n{command}")],
        env: if sandbox {
            FOLDER_VIEW_ENV.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
        } else {
            Vec::new()
        },
        inherit_env: INHERITED
            .iter()
            .filter(|n| !sandbox || !matches!(**n, "HOME" | "TMPDIR"))
            .map(|s| (*s).to_owned())
            .collect(),
        cwd: folder.to_owned(),
        piped_stdin: false,
        confine: sandbox.then(|| folder_view(folder, NetworkAccess::ClawbooOnly)),
    };
    let child = match spawner.spawn(&spec) {
        Ok(child) => child,
        Err(e) => {
            return CheckOutcome {
                exit_code: None,
                output: String::new(),
                stopped: Some(format!("The check could not start in {}: {e}", folder.display())),
            }
        }
    };
    let mut stdout = child.stdout;
    let mut control = child.control;
    let mut tail: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 8 * 1024];
    let deadline = tokio::time::sleep(limit);
    tokio::pin!(deadline);
    let mut stopped = None;
    loop {
        tokio::select! {
            read = stdout.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    tail.extend_from_slice(&buf[..n]);
                    if tail.len() > keep_bytes * 2 {
                        tail.drain(..tail.len() - keep_bytes);
                    }
                }
            },
            _ = &mut deadline => {
                stopped = Some(format!("The check was stopped after {} s.", limit.as_secs()));
                break;
            }
            _ = cancel.wait_for(|c| *c) => {
                stopped = Some("The check was stopped with the run.".to_owned());
                break;
            }
        }
    }
    if stopped.is_some() {
        let _ = control.kill();
    }
    let exit = control.wait().await.ok();
    // The group may outlive the shell (a background job): nothing of the check stays running.
    let _ = control.kill();
    if tail.len() > keep_bytes {
        tail.drain(..tail.len() - keep_bytes);
    }
    let output = String::from_utf8_lossy(&tail).trim_start_matches('\u{FFFD}').to_owned();
    CheckOutcome { exit_code: if stopped.is_some() { None } else { exit.and_then(|e| e.code) }, output, stopped }
}
