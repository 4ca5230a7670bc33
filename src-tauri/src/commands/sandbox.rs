use clawboo_engine::runtimes::sandbox::{os_supported, SUGGESTED_HOSTS};
use serde::Serialize;

/// Whether agents run in Clawboo's OS sandbox here, and the hosts the profile offers one click away.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SandboxInfo {
    /// False where agents are not sandboxed (Windows).
    pub supported: bool,
    /// `linux`, `macos`, `windows`, …
    pub os: String,
    /// Package registries and documentation.
    pub suggested_hosts: Vec<String>,
}

#[tauri::command]
#[specta::specta]
pub fn sandbox_info() -> SandboxInfo {
    SandboxInfo {
        supported: os_supported(),
        os: std::env::consts::OS.to_owned(),
        suggested_hosts: SUGGESTED_HOSTS.iter().map(|h| (*h).to_owned()).collect(),
    }
}
