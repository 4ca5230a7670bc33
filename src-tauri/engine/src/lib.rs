//! Clawboo's engine: everything that runs agents. It never depends on Tauri; the desktop shell
//! turns its services into commands and its events into UI events.

pub mod agents;
pub mod config;
pub mod error;
pub mod events;
pub mod runtimes;
pub mod secrets;
pub mod store;

use std::sync::Arc;

pub use config::EngineConfig;
pub use error::{Error, ErrorCode, Result};
pub use events::{EngineEvent, EventBus};

use agents::{Agents, FileWatcher, Workspaces};
use secrets::Secrets;
use store::Store;

pub struct Engine {
    config: EngineConfig,
    events: EventBus,
    agents: Agents,
    secrets: Secrets,
    _watcher: FileWatcher,
}

impl Engine {
    /// Opens the data directory: database (migrated), agent workspaces (reconciled with the
    /// rows), and the watcher on agent files.
    pub fn open(config: EngineConfig) -> Result<Self> {
        config::prepare_data_dir(&config.data_dir)?;
        let store = Arc::new(Store::open(&config.database_path())?);
        let events = EventBus::new();
        let workspaces = Workspaces::new(config.agents_dir())?;
        let agents = Agents::new(store.clone(), workspaces.clone(), events.clone());
        agents.reconcile_workspaces()?;
        let watcher = FileWatcher::start(workspaces, events.clone())?;
        let secrets = Secrets::new(config.keychain_service.clone(), store);
        Ok(Self { config, events, agents, secrets, _watcher: watcher })
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    pub fn agents(&self) -> &Agents {
        &self.agents
    }

    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    pub fn events(&self) -> &EventBus {
        &self.events
    }
}
