//! Which runtimes this machine has: the user's own path for a CLI (a setting), else detection;
//! versions are probed once per binary and remembered.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use rusqlite::OptionalExtension;

use super::detect::{self, RuntimeInfo};
use crate::agents::RuntimeKind;
use crate::error::{Error, Result};
use crate::store::Store;

pub const ALL_KINDS: [RuntimeKind; 5] =
    [RuntimeKind::ClaudeCode, RuntimeKind::Codex, RuntimeKind::Hermes, RuntimeKind::Openclaw, RuntimeKind::Native];

type VersionCache = HashMap<(PathBuf, Option<SystemTime>), Result<String, String>>;

pub struct RuntimeCatalog {
    store: Arc<Store>,
    versions: Mutex<VersionCache>,
}

impl RuntimeCatalog {
    pub fn new(store: Arc<Store>) -> Self {
        Self { store, versions: Mutex::new(HashMap::new()) }
    }

    pub fn custom_path(&self, kind: RuntimeKind) -> Result<Option<PathBuf>> {
        let value: Option<String> = self.store.read(|c| {
            Ok(c.query_row("SELECT value FROM settings WHERE key = ?1", [setting(kind)], |r| r.get(0)).optional()?)
        })?;
        Ok(value.map(PathBuf::from))
    }

    pub fn set_custom_path(&self, kind: RuntimeKind, path: Option<&str>) -> Result<()> {
        if kind == RuntimeKind::Native {
            return Err(Error::InvalidInput("Native is built into Clawboo and has no path.".into()));
        }
        let path = path.map(str::trim).filter(|p| !p.is_empty());
        if let Some(path) = path {
            if !Path::new(path).is_absolute() {
                return Err(Error::InvalidInput(format!(
                    "“{path}” is not a full path; give the whole path to the program."
                )));
            }
        }
        self.store.write(|tx| {
            match path {
                Some(path) => tx.execute(
                    "INSERT INTO settings (key, value) VALUES (?1, ?2)
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [setting(kind), path.to_owned()],
                )?,
                None => tx.execute("DELETE FROM settings WHERE key = ?1", [setting(kind)])?,
            };
            Ok(())
        })
    }

    /// The binary to start for `kind`, or why there is none.
    pub fn locate(&self, kind: RuntimeKind) -> Result<PathBuf> {
        let custom = self.custom_path(kind)?;
        detect::locate(kind, custom.as_deref()).ok_or_else(|| {
            let name = detect::label(kind);
            match custom {
                Some(path) => Error::RuntimeNotFound(format!(
                    "{name} is set to {} in Settings > Runtimes, but no program is there.",
                    path.display()
                )),
                None => Error::RuntimeNotFound(format!(
                    "{name} is not installed on this machine. Install it with `{}`, or set its path in Settings > Runtimes.",
                    detect::install_hint(kind)
                )),
            }
        })
    }

    pub async fn info(&self, kind: RuntimeKind) -> Result<RuntimeInfo> {
        let custom = self.custom_path(kind)?;
        let mut info = RuntimeInfo {
            kind,
            label: detect::label(kind).to_owned(),
            found: kind == RuntimeKind::Native,
            path: None,
            version: None,
            custom_path: custom.as_ref().map(|p| p.display().to_string()),
            install_hint: detect::install_hint(kind).to_owned(),
            problem: None,
        };
        if kind == RuntimeKind::Native {
            return Ok(info);
        }
        let Some(path) = detect::locate(kind, custom.as_deref()) else {
            if custom.is_some() {
                info.problem = Some("No runnable program at that path.".into());
            }
            return Ok(info);
        };
        info.path = Some(path.display().to_string());
        match self.version(&path).await {
            Ok(version) => {
                info.found = true;
                info.version = Some(version);
            }
            Err(problem) => info.problem = Some(problem),
        }
        if kind == RuntimeKind::Openclaw && info.problem.is_none() {
            info.problem = super::openclaw::node_problem(std::env::var_os("PATH").as_deref()).await;
        }
        Ok(info)
    }

    pub async fn list(&self) -> Result<Vec<RuntimeInfo>> {
        let probes = ALL_KINDS.map(|kind| self.info(kind));
        futures_util::future::join_all(probes).await.into_iter().collect()
    }

    async fn version(&self, path: &Path) -> Result<String, String> {
        let key = (path.to_owned(), std::fs::metadata(path).and_then(|m| m.modified()).ok());
        if let Some(known) = self.versions.lock().ok().and_then(|v| v.get(&key).cloned()) {
            return known;
        }
        let probed = detect::probe_version(path).await;
        if let Ok(mut versions) = self.versions.lock() {
            versions.insert(key, probed.clone());
        }
        probed
    }
}

fn setting(kind: RuntimeKind) -> String {
    format!("runtime.{}.path", kind.as_str())
}
