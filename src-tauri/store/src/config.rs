//! Where the engine keeps its state. The shell passes the OS's conventional app-data folder;
//! `CLAWBOO_DATA_DIR` overrides it so tests and side-by-side instances never share state.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clawboo_vocab::error::{Error, Result};

pub const DATA_DIR_ENV: &str = "CLAWBOO_DATA_DIR";
const KEYCHAIN_SERVICE: &str = "Clawboo";

/// How long a client has to send a request's head (its request line and headers).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections one server serves at once.
pub const MAX_CONNECTIONS: usize = 128;

/// The bounds of one loopback server (the model relay, the tools bridge, the local API: see the
/// engine's `loopback`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerLimits {
    /// A connection that has not sent a whole request head this long after it opened (or after
    /// its previous answer) is closed.
    pub header_read_timeout: Duration,
    /// Connections served at once (at least one).
    pub max_connections: usize,
}

impl Default for ServerLimits {
    fn default() -> Self {
        Self { header_read_timeout: HEADER_READ_TIMEOUT, max_connections: MAX_CONNECTIONS }
    }
}

#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub data_dir: PathBuf,
    /// The keychain service name API keys are filed under.
    pub keychain_service: String,
    /// The bounds of every loopback server the engine runs (the model relay, the tools bridge,
    /// the local API); tests shorten the header timeout.
    pub server_limits: ServerLimits,
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
                Ok(Self {
                    data_dir,
                    keychain_service: KEYCHAIN_SERVICE.to_owned(),
                    server_limits: ServerLimits::default(),
                })
            }
        }
    }

    /// A data directory other than the default: its keys are kept apart from the default's.
    pub fn for_dir(data_dir: PathBuf) -> Self {
        let keychain_service = format!("{KEYCHAIN_SERVICE} ({})", data_dir.display());
        Self { data_dir, keychain_service, server_limits: ServerLimits::default() }
    }

    pub fn database_path(&self) -> PathBuf {
        self.data_dir.join("clawboo.db")
    }

    pub fn agents_dir(&self) -> PathBuf {
        self.data_dir.join("agents")
    }

    /// Where the app's log is written (see [`crate::logs`]).
    pub fn log_dir(&self) -> PathBuf {
        self.data_dir.join("logs")
    }
}

/// Creates the folder if needed and proves it is writable, so a bad folder fails at start with
/// one clear message instead of later, half-way through a save. On Unix the folder and its
/// agents folder are private to the user (0700): they hold transcripts and agents' homes.
pub fn prepare_data_dir(dir: &Path) -> Result<()> {
    let unusable = |source| Error::DataDirUnusable { path: dir.to_owned(), source };
    create_private_dir(dir).map_err(unusable)?;
    create_private_dir(&dir.join("agents")).map_err(unusable)?;
    let probe = dir.join(format!(".write-probe-{}", uuid::Uuid::new_v4().simple()));
    std::fs::write(&probe, b"ok").map_err(unusable)?;
    std::fs::remove_file(&probe).map_err(unusable)?;
    Ok(())
}

/// Creates `dir` (and its parents) readable by its owner only, and makes an existing one so.
#[cfg(unix)]
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    // A folder made by an earlier version (or by hand) is made private too.
    let mode = std::fs::metadata(dir)?.permissions().mode() & 0o777;
    if mode != 0o700 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(not(unix))]
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Holds the data directory for this engine alone until dropped. A second engine on the same
/// folder (a second app instance) is refused: it would mark the first one's live runs as
/// interrupted and stop its processes. The OS releases the lock when the process dies, even
/// on `kill -9`.
#[derive(Debug)]
pub struct DataDirLock {
    _file: std::fs::File,
}

pub fn lock_data_dir(dir: &Path) -> Result<DataDirLock> {
    let path = dir.join("clawboo.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| Error::DataDirUnusable { path: dir.to_owned(), source })?;
    match file.try_lock() {
        Ok(()) => Ok(DataDirLock { _file: file }),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::DataDirInUse { path: dir.to_owned() }),
        Err(std::fs::TryLockError::Error(source)) => Err(Error::DataDirUnusable { path: dir.to_owned(), source }),
    }
}
