//! Where the engine keeps its state. The shell passes the OS's conventional app-data folder;
//! `CLAWBOO_DATA_DIR` overrides it so tests and side-by-side instances never share state.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub const DATA_DIR_ENV: &str = "CLAWBOO_DATA_DIR";
const KEYCHAIN_SERVICE: &str = "Clawboo";

#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub data_dir: PathBuf,
    /// The keychain service name API keys are filed under.
    pub keychain_service: String,
}

impl EngineConfig {
    /// `CLAWBOO_DATA_DIR` when set, else `platform_default`.
    pub fn resolve(platform_default: Option<PathBuf>) -> Result<Self> {
        match std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()) {
            Some(dir) => Ok(Self::for_dir(PathBuf::from(dir))),
            None => {
                let data_dir = platform_default.ok_or_else(|| {
                    Error::Internal(format!("No app data folder is known for this OS; set {DATA_DIR_ENV}."))
                })?;
                Ok(Self { data_dir, keychain_service: KEYCHAIN_SERVICE.to_owned() })
            }
        }
    }

    /// A data directory other than the default: its keys are kept apart from the default's.
    pub fn for_dir(data_dir: PathBuf) -> Self {
        let keychain_service = format!("{KEYCHAIN_SERVICE} ({})", data_dir.display());
        Self { data_dir, keychain_service }
    }

    pub fn database_path(&self) -> PathBuf {
        self.data_dir.join("clawboo.db")
    }

    pub fn agents_dir(&self) -> PathBuf {
        self.data_dir.join("agents")
    }
}

/// Creates the folder if needed and proves it is writable, so a bad folder fails at start with
/// one clear message instead of later, half-way through a save.
pub fn prepare_data_dir(dir: &Path) -> Result<()> {
    let unusable = |source| Error::DataDirUnusable { path: dir.to_owned(), source };
    std::fs::create_dir_all(dir).map_err(unusable)?;
    let probe = dir.join(format!(".write-probe-{}", uuid::Uuid::new_v4().simple()));
    std::fs::write(&probe, b"ok").map_err(unusable)?;
    std::fs::remove_file(&probe).map_err(unusable)?;
    Ok(())
}
