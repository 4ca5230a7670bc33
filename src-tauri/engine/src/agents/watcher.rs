//! Watches every agent's workspace so an edit made in another editor shows up in the app.
//!
//! Editors save in bursts (truncate + write, or write a temp file and rename it), so raw
//! notifications are gathered until the folder is quiet for a moment and published once per
//! (agent, file).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::files::Workspaces;
use crate::error::{Error, Result};
use crate::events::{EngineEvent, EventBus};

/// Quiet time that ends a burst.
const SETTLE: Duration = Duration::from_millis(40);
/// A burst is published after this long even if writes keep coming.
const MAX_DELAY: Duration = Duration::from_millis(250);

/// Stops watching when dropped.
pub struct FileWatcher {
    _watcher: RecommendedWatcher,
}

impl FileWatcher {
    pub fn start(workspaces: Workspaces, events: EventBus) -> Result<Self> {
        let (paths_tx, paths_rx) = mpsc::channel::<PathBuf>();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            // An error from the OS watcher (queue overflow) cannot be tied to a file; the next
            // change is still reported, so dropping it loses no edit, only one early refresh.
            let Ok(event) = res else { return };
            if matches!(event.kind, EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)) {
                for path in event.paths {
                    let _ = paths_tx.send(path);
                }
            }
        })
        .map_err(|e| Error::Internal(format!("Cannot start the file watcher: {e}")))?;
        watcher
            .watch(workspaces.root(), RecursiveMode::Recursive)
            .map_err(|e| Error::Internal(format!("Cannot watch {}: {e}", workspaces.root().display())))?;

        thread::Builder::new()
            .name("clawboo-file-watcher".into())
            .spawn(move || publish_bursts(&paths_rx, &workspaces, &events))
            .map_err(|e| Error::io("Cannot start the file watcher thread", e))?;
        Ok(Self { _watcher: watcher })
    }
}

/// Ends when the watcher is dropped (its sender closes the channel).
fn publish_bursts(paths: &mpsc::Receiver<PathBuf>, workspaces: &Workspaces, events: &EventBus) {
    while let Ok(first) = paths.recv() {
        let started = Instant::now();
        let mut changed = BTreeSet::new();
        changed.extend(workspaces.identify(&first));
        while started.elapsed() < MAX_DELAY {
            match paths.recv_timeout(SETTLE) {
                Ok(path) => changed.extend(workspaces.identify(&path)),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        for (agent_id, name) in changed {
            events.publish(EngineEvent::AgentFileChanged { agent_id, name });
        }
    }
}
