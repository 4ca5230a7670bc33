//! Watches every agent's workspace so an edit made in another editor shows up in the app.
//!
//! Only the root and each agent's own folder are watched, not whole trees: runtimes keep large
//! homes and caches inside an agent's folder, and watching those would waste the OS's watch
//! budget on files the app never shows.
//!
//! Editors save in bursts (truncate + write, or write a temp file and rename it), so raw
//! notifications are gathered until the folder is quiet for a moment and published once per
//! (agent, file).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex, Weak};
use std::thread;
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::files::Workspaces;
use clawboo_store::events::{EngineEvent, EventBus};
use clawboo_vocab::error::{Error, Result};

/// Quiet time that ends a burst.
const SETTLE: Duration = Duration::from_millis(40);
/// A burst is published after this long even if writes keep coming.
const MAX_DELAY: Duration = Duration::from_millis(250);

/// Stops watching when dropped.
pub struct FileWatcher {
    _watcher: Arc<Mutex<RecommendedWatcher>>,
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
        watch(&mut watcher, workspaces.root())?;
        let existing = std::fs::read_dir(workspaces.root())
            .map_err(|e| Error::io(format!("Cannot list {}", workspaces.root().display()), e))?;
        for entry in existing.flatten() {
            if is_agent_dir(&workspaces, &entry.path()) {
                watch(&mut watcher, &entry.path())?;
            }
        }

        let watcher = Arc::new(Mutex::new(watcher));
        let weak = Arc::downgrade(&watcher);
        thread::Builder::new()
            .name("clawboo-file-watcher".into())
            .spawn(move || publish_bursts(&paths_rx, &workspaces, &events, &weak))
            .map_err(|e| Error::io("Cannot start the file watcher thread", e))?;
        Ok(Self { _watcher: watcher })
    }
}

fn watch(watcher: &mut RecommendedWatcher, dir: &Path) -> Result<()> {
    watcher
        .watch(dir, RecursiveMode::NonRecursive)
        .map_err(|e| Error::Internal(format!("Cannot watch {}: {e}", dir.display())))
}

fn is_agent_dir(workspaces: &Workspaces, path: &Path) -> bool {
    path.parent() == Some(workspaces.root())
        && path.is_dir()
        && !path.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'))
}

/// Ends when the watcher is dropped (its sender closes the channel).
fn publish_bursts(
    paths: &mpsc::Receiver<PathBuf>,
    workspaces: &Workspaces,
    events: &EventBus,
    watcher: &Weak<Mutex<RecommendedWatcher>>,
) {
    let note = |path: PathBuf, changed: &mut BTreeSet<_>| {
        if is_agent_dir(workspaces, &path) {
            // A new agent's folder: watch it too. Its first files were written by the app.
            if let Some(watcher) = watcher.upgrade() {
                let mut watcher = watcher.lock().unwrap_or_else(|p| p.into_inner());
                let _ = watch(&mut watcher, &path);
            }
        }
        changed.extend(workspaces.identify(&path));
    };
    while let Ok(first) = paths.recv() {
        let started = Instant::now();
        let mut changed = BTreeSet::new();
        note(first, &mut changed);
        while started.elapsed() < MAX_DELAY {
            match paths.recv_timeout(SETTLE) {
                Ok(path) => note(path, &mut changed),
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        for (agent_id, name) in changed {
            events.publish(EngineEvent::AgentFileChanged { agent_id, name });
        }
    }
}
