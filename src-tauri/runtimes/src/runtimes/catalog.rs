//! Which runtimes this machine has: the user's own path for a CLI (a setting), else detection;
//! versions are probed once per binary and remembered. Also what each CLI uses to reach its
//! model (the user's own sign-in or a key from Clawboo; a setting, see `signin`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use super::detect::{self, RuntimeInfo};
use super::signin::{self, Access, AccessSource, Resolved, SignInLocator};
use crate::agents::RuntimeKind;
use crate::error::{Error, Result};
use crate::store::Store;

pub const ALL_KINDS: [RuntimeKind; 5] =
    [RuntimeKind::ClaudeCode, RuntimeKind::Codex, RuntimeKind::Hermes, RuntimeKind::Openclaw, RuntimeKind::Native];

type VersionCache = HashMap<(PathBuf, Option<SystemTime>), Result<String, String>>;

pub struct RuntimeCatalog {
    store: Arc<Store>,
    versions: Mutex<VersionCache>,
    sign_in: SignInLocator,
}

impl RuntimeCatalog {
    pub fn new(store: Arc<Store>) -> Self {
        Self { store, versions: Mutex::new(HashMap::new()), sign_in: SignInLocator::from_env() }
    }

    /// Looks for the user's own CLI sign-ins with `locator` (tests: a temporary home).
    pub fn with_sign_in_locator(mut self, locator: SignInLocator) -> Self {
        self.sign_in = locator;
        self
    }

    pub fn custom_path(&self, kind: RuntimeKind) -> Result<Option<PathBuf>> {
        Ok(self.setting(&path_setting(kind))?.map(PathBuf::from))
    }

    /// Sets (or clears) the program for `kind`. A path is kept only when it is a full path to an
    /// executable file that answers `--version` like that runtime; the probe runs on a blocking
    /// thread, never on the engine's async workers.
    pub async fn set_custom_path(&self, kind: RuntimeKind, path: Option<&str>) -> Result<()> {
        if kind == RuntimeKind::Native {
            return Err(Error::InvalidInput("Native is built into Clawboo and has no path.".into()));
        }
        let path = path.map(str::trim).filter(|p| !p.is_empty()).map(str::to_owned);
        if let Some(path) = path.clone() {
            tokio::task::spawn_blocking(move || super::identify::check_program(kind, Path::new(&path)))
                .await
                .map_err(|e| Error::Internal(format!("The program check stopped: {e}")))??;
        }
        self.put_setting(&path_setting(kind), path.as_deref())
    }

    /// The user's choice for `kind` (None: automatic).
    pub fn access_choice(&self, kind: RuntimeKind) -> Result<Option<Access>> {
        Ok(self.setting(&access_setting(kind))?.as_deref().and_then(Access::parse))
    }

    /// Sets (or, with None, returns to automatic) what `kind` uses to reach its model.
    pub fn set_access(&self, kind: RuntimeKind, choice: Option<Access>) -> Result<()> {
        if signin::key_provider(kind).is_none() {
            return Err(Error::InvalidInput(format!(
                "{} has no sign-in choice in Clawboo: it uses the API keys in Settings > API keys.{}",
                detect::label(kind),
                if kind == RuntimeKind::Openclaw { signin::OPENCLAW_NO_SIGN_IN } else { "" }
            )));
        }
        self.put_setting(&access_setting(kind), choice.map(Access::as_str))
    }

    /// What each runtime with a choice uses now, and why, for Settings and agent pages.
    pub fn access_statuses(&self, secrets: &crate::secrets::Secrets) -> Result<Vec<RuntimeAccess>> {
        ALL_KINDS
            .into_iter()
            .filter(|kind| signin::key_provider(*kind).is_some())
            .map(|kind| {
                // Hermes takes each agent's provider: a key for any of them counts, and the
                // first one set is shown.
                let mut keyed = None;
                for &provider in signin::key_providers(kind) {
                    if secrets.api_key(provider)?.is_some() {
                        keyed = Some(provider);
                        break;
                    }
                }
                let key_set = keyed.is_some();
                let provider = keyed.or_else(|| signin::key_provider(kind)).unwrap_or(crate::secrets::Provider::Custom);
                let choice = self.access_choice(kind)?;
                let found = self.sign_in.find(kind);
                let (effective, problem) = match signin::resolve(kind, choice, key_set, &self.sign_in) {
                    Ok(Resolved::ApiKey) => (Some(Access::ApiKey), None),
                    Ok(Resolved::OwnSignIn(_)) => (Some(Access::OwnSignIn), None),
                    Err(e) => (None, Some(e.to_string())),
                };
                Ok(RuntimeAccess {
                    kind,
                    label: detect::label(kind).to_owned(),
                    choice,
                    effective,
                    key_provider: provider,
                    key_set,
                    sign_in_found: found.is_some(),
                    sign_in_place: found.map(|f| f.shown).unwrap_or_else(|| self.sign_in.place(kind)),
                    problem,
                })
            })
            .collect()
    }

    fn setting(&self, key: &str) -> Result<Option<String>> {
        self.store.read(|c| crate::store::settings::get(c, key))
    }

    fn put_setting(&self, key: &str, value: Option<&str>) -> Result<()> {
        self.store.write(|tx| crate::store::settings::put(tx, key, value))
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

impl AccessSource for RuntimeCatalog {
    fn resolve(&self, kind: RuntimeKind, key_set: bool) -> Result<Resolved> {
        signin::resolve(kind, self.access_choice(kind)?, key_set, &self.sign_in)
    }
}

/// What a runtime uses to reach its model, as Settings > Runtimes shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeAccess {
    pub kind: RuntimeKind,
    pub label: String,
    /// What the user chose; None: automatic (the key when one is stored, else the sign-in).
    pub choice: Option<Access>,
    /// What agents use now; None when neither is available (then `problem` says the fix).
    pub effective: Option<Access>,
    pub key_provider: crate::secrets::Provider,
    pub key_set: bool,
    pub sign_in_found: bool,
    /// Where the sign-in was found, or where Clawboo looked ("~/.claude/.credentials.json").
    pub sign_in_place: String,
    pub problem: Option<String>,
}

fn path_setting(kind: RuntimeKind) -> String {
    format!("runtime.{}.path", kind.as_str())
}

fn access_setting(kind: RuntimeKind) -> String {
    format!("runtime.{}.access", kind.as_str())
}
