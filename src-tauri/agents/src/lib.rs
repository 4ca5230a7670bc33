//! `clawboo-agents`: agents — profile rows in the store, plus a workspace folder of files per
//! agent (read, written atomically, watched), an OpenClaw agent's Gateway, Boo Zero's delete
//! guard. It may use `clawboo-vocab`, `clawboo-store` and `clawboo-context` (an agent's files
//! as context reads them); the engine re-exports it as `clawboo_engine::agents`.

mod files;
pub mod gateway;
mod profile;
mod watcher;

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

pub use files::{atomic_write, AgentFileName, FileContent, FileMeta, StarterProfile, Workspaces, MAX_AGENT_FILE_BYTES};
pub use gateway::{OpenclawGateway, OpenclawGatewayInput};
pub use profile::validate_handle;
pub use watcher::FileWatcher;

use clawboo_store::events::{EngineEvent, EventBus};
use clawboo_store::secrets::Provider;
use clawboo_store::store::Store;
use clawboo_vocab::error::{Error, Result};
use clawboo_vocab::sandbox::{NetworkAccess, SandboxSettings};
use clawboo_vocab::ApprovalPolicy;
pub use clawboo_vocab::RuntimeKind;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Agent {
    pub id: String,
    pub name: String,
    /// Without the leading `@`.
    pub handle: String,
    pub description: String,
    pub tint: String,
    pub runtime: RuntimeKind,
    pub model: String,
    pub approval_policy: ApprovalPolicy,
    /// The model provider a Native agent calls.
    pub provider: Option<Provider>,
    /// An OpenClaw agent's existing Gateway (`ws://` or `wss://`), which Clawboo neither starts
    /// nor stops; `None`: Clawboo runs one on this machine. Its token is in the keychain.
    pub openclaw_gateway_url: Option<String>,
    /// Its OS sandbox and network access.
    pub sandbox: SandboxSettings,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewAgent {
    pub name: String,
    pub handle: String,
    pub description: String,
    pub tint: String,
    pub runtime: RuntimeKind,
    pub model: String,
    pub approval_policy: ApprovalPolicy,
    pub provider: Option<Provider>,
}

/// Fields left `None` keep their value.
#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentPatch {
    pub name: Option<String>,
    pub handle: Option<String>,
    pub description: Option<String>,
    pub tint: Option<String>,
    pub runtime: Option<RuntimeKind>,
    pub model: Option<String>,
    pub approval_policy: Option<ApprovalPolicy>,
    pub provider: Option<Provider>,
    pub sandbox: Option<SandboxSettings>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentFileInfo {
    pub name: AgentFileName,
    pub size: u64,
    pub modified_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AgentFile {
    pub name: AgentFileName,
    pub content: String,
    pub modified_at: i64,
}

impl From<FileMeta> for AgentFileInfo {
    fn from(m: FileMeta) -> Self {
        Self { name: m.name, size: m.size, modified_at: m.modified_at }
    }
}

impl From<FileContent> for AgentFile {
    fn from(c: FileContent) -> Self {
        Self { name: c.name, content: c.content, modified_at: c.modified_at }
    }
}

pub struct Agents {
    store: Arc<Store>,
    workspaces: Workspaces,
    events: EventBus,
    /// Where Gateway tokens live, so deleting an agent deletes its token.
    secrets: Option<Arc<clawboo_store::secrets::Secrets>>,
}

const COLUMNS: &str = "id, name, handle, description, tint, runtime, model, approval_policy, provider, created_at, \
                       updated_at, openclaw_gateway_url, sandbox_confined, sandbox_network, sandbox_hosts";

impl Agents {
    pub fn new(store: Arc<Store>, workspaces: Workspaces, events: EventBus) -> Self {
        Self { store, workspaces, events, secrets: None }
    }

    /// Deleting an agent then also deletes its Gateway token from the keychain.
    pub fn with_secrets(mut self, secrets: Arc<clawboo_store::secrets::Secrets>) -> Self {
        self.secrets = Some(secrets);
        self
    }

    pub fn workspaces(&self) -> &Workspaces {
        &self.workspaces
    }

    pub fn list(&self) -> Result<Vec<Agent>> {
        self.store.read(|conn| {
            let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM agents ORDER BY name COLLATE NOCASE, id"))?;
            let rows = stmt.query_map([], agent_from_row)?;
            rows.map(|r| r.map_err(Error::from).and_then(|a| a)).collect()
        })
    }

    pub fn get(&self, id: &str) -> Result<Agent> {
        self.store
            .read(|conn| {
                conn.prepare_cached(&format!("SELECT {COLUMNS} FROM agents WHERE id = ?1"))?
                    .query_row([id], agent_from_row)
                    .optional()
                    .map_err(Error::from)
            })?
            .transpose()?
            .ok_or_else(|| Error::NotFound(format!("Agent {id}")))
    }

    pub fn create(&self, input: NewAgent) -> Result<Agent> {
        let now = now_ms();
        let agent = Agent {
            id: uuid::Uuid::new_v4().to_string(),
            name: profile::validate_name(&input.name)?,
            handle: profile::validate_handle(&input.handle)?,
            description: profile::validate_description(&input.description)?,
            tint: profile::validate_tint(&input.tint)?,
            runtime: input.runtime,
            model: profile::validate_model(&input.model)?,
            approval_policy: input.approval_policy,
            provider: input.provider,
            openclaw_gateway_url: None,
            sandbox: SandboxSettings::default(),
            created_at: now,
            updated_at: now,
        };
        let created = self.store.write(|tx| {
            tx.prepare_cached(&format!(
                    "INSERT INTO agents ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
                ))?.execute(params![
                    agent.id,
                    agent.name,
                    agent.handle,
                    agent.description,
                    agent.tint,
                    agent.runtime.as_str(),
                    agent.model,
                    agent.approval_policy.as_str(),
                    agent.provider.map(Provider::as_str),
                    agent.created_at,
                    agent.updated_at,
                    agent.openclaw_gateway_url,
                    agent.sandbox.confined,
                    agent.sandbox.network.as_str(),
                    hosts_json(&agent.sandbox.allowed_hosts)
                ])
            .map_err(|e| duplicate_handle_or(e, &agent.handle))?;
            // Inside the transaction: if the folder cannot be made, the row is not kept either.
            self.workspaces.ensure(&agent.id, &starter(&agent))?;
            Ok(agent)
        });
        if created.is_ok() {
            self.events.publish(EngineEvent::AgentsChanged);
        }
        created
    }

    pub fn update(&self, id: &str, patch: AgentPatch) -> Result<Agent> {
        let mut agent = self.get(id)?;
        if let Some(name) = patch.name {
            agent.name = profile::validate_name(&name)?;
        }
        if let Some(handle) = patch.handle {
            agent.handle = profile::validate_handle(&handle)?;
        }
        if let Some(description) = patch.description {
            agent.description = profile::validate_description(&description)?;
        }
        if let Some(tint) = patch.tint {
            agent.tint = profile::validate_tint(&tint)?;
        }
        if let Some(runtime) = patch.runtime {
            agent.runtime = runtime;
        }
        if let Some(model) = patch.model {
            agent.model = profile::validate_model(&model)?;
        }
        if let Some(policy) = patch.approval_policy {
            agent.approval_policy = policy;
        }
        if let Some(provider) = patch.provider {
            agent.provider = Some(provider);
        }
        if let Some(sandbox) = patch.sandbox {
            let allowed_hosts = clawboo_vocab::sandbox::validate_hosts(&sandbox.allowed_hosts)?;
            agent.sandbox = SandboxSettings { allowed_hosts, ..sandbox };
        }
        agent.updated_at = now_ms();
        self.store.write(|tx| {
            let changed = tx
                .execute(
                    "UPDATE agents SET name = ?2, handle = ?3, description = ?4, tint = ?5, runtime = ?6,
                     model = ?7, approval_policy = ?8, provider = ?9, updated_at = ?10, sandbox_confined = ?11,
                     sandbox_network = ?12, sandbox_hosts = ?13 WHERE id = ?1",
                    params![
                        agent.id,
                        agent.name,
                        agent.handle,
                        agent.description,
                        agent.tint,
                        agent.runtime.as_str(),
                        agent.model,
                        agent.approval_policy.as_str(),
                        agent.provider.map(Provider::as_str),
                        agent.updated_at,
                        agent.sandbox.confined,
                        agent.sandbox.network.as_str(),
                        hosts_json(&agent.sandbox.allowed_hosts)
                    ],
                )
                .map_err(|e| duplicate_handle_or(e, &agent.handle))?;
            if changed == 0 {
                return Err(Error::NotFound(format!("Agent {id}")));
            }
            Ok(())
        })?;
        self.events.publish(EngineEvent::AgentsChanged);
        Ok(agent)
    }

    /// Sets or clears an OpenClaw agent's existing Gateway (validated by [`gateway::set`],
    /// which also keeps its token).
    pub(crate) fn set_openclaw_gateway_url(&self, id: &str, url: Option<&str>) -> Result<Agent> {
        let mut agent = self.get(id)?;
        agent.openclaw_gateway_url = url.map(str::to_owned);
        agent.updated_at = now_ms();
        self.store.write(|tx| {
            let changed = tx
                .prepare_cached("UPDATE agents SET openclaw_gateway_url = ?2, updated_at = ?3 WHERE id = ?1")?
                .execute(params![agent.id, agent.openclaw_gateway_url, agent.updated_at])?;
            if changed == 0 {
                return Err(Error::NotFound(format!("Agent {id}")));
            }
            Ok(())
        })?;
        self.events.publish(EngineEvent::AgentsChanged);
        Ok(agent)
    }

    /// Removes the agent's row and its workspace folder: both or neither. Its Gateway token
    /// goes first: if the keychain refuses while a Gateway is set, nothing is deleted.
    pub fn delete(&self, id: &str) -> Result<()> {
        let agent = self.get(id)?;
        self.store.read(|c| check_deletable(c, id))?;
        if let Some(secrets) = &self.secrets {
            match secrets.delete_gateway_token(id) {
                Err(e) if agent.openclaw_gateway_url.is_some() => return Err(e),
                _ => {}
            }
        }
        let trash = self.workspaces.move_to_trash(id)?;
        let deleted =
            self.store.write(|tx| Ok(tx.prepare_cached("DELETE FROM agents WHERE id = ?1")?.execute([id])?));
        match (deleted, trash) {
            (Ok(_), Some(trash)) => {
                // The row is gone; a folder that resists deletion now is swept at next start.
                let _ = self.workspaces.purge(&trash);
            }
            (Ok(_), None) => {}
            (Err(e), Some(trash)) => {
                self.workspaces.restore_from_trash(id, &trash)?;
                return Err(e);
            }
            (Err(e), None) => return Err(e),
        }
        self.events.publish(EngineEvent::AgentsChanged);
        Ok(())
    }

    pub fn list_files(&self, agent_id: &str) -> Result<Vec<AgentFileInfo>> {
        self.get(agent_id)?;
        Ok(self.workspaces.list(agent_id)?.into_iter().map(Into::into).collect())
    }

    pub fn read_file(&self, agent_id: &str, name: &str) -> Result<AgentFile> {
        let name = AgentFileName::parse(name)?;
        self.get(agent_id)?;
        Ok(self.workspaces.read(agent_id, name)?.into())
    }

    /// Saves atomically. Watchers (and so the UI) hear of it through the file watcher.
    pub fn write_file(&self, agent_id: &str, name: &str, content: &str) -> Result<AgentFile> {
        let name = AgentFileName::parse(name)?;
        self.get(agent_id)?;
        Ok(self.workspaces.write(agent_id, name, content)?.into())
    }

    /// Reconciles folders with rows at start: finishes interrupted deletes and recreates any
    /// workspace file that went missing, never touching one that exists.
    pub fn reconcile_workspaces(&self) -> Result<()> {
        self.workspaces.sweep_trash()?;
        for agent in self.list()? {
            self.workspaces.ensure(&agent.id, &starter(&agent))?;
        }
        Ok(())
    }
}

impl Agents {
    /// `agent`'s files for a run: as on disk, those still holding the starting text Clawboo
    /// wrote marked as such (Clawboo does not send a placeholder).
    pub fn files_for_run(&self, agent: &Agent) -> Result<clawboo_context::files::AgentFiles> {
        let files = self.workspaces.read_all(&agent.id)?;
        let profile = starter(agent);
        let unedited: Vec<AgentFileName> =
            AgentFileName::ALL.into_iter().filter(|&f| files::is_starting_text(f, files.get(f), &profile)).collect();
        Ok(unedited.into_iter().fold(files, |files, file| files.unedited(file)))
    }
}

fn starter(agent: &Agent) -> StarterProfile<'_> {
    StarterProfile { name: &agent.name, handle: &agent.handle, description: &agent.description }
}

/// Rows are validated on load: a runtime this build does not know is reported, not guessed.
fn hosts_json(hosts: &[String]) -> String {
    serde_json::to_string(hosts).unwrap_or_else(|_| "[]".into())
}

fn agent_from_row(row: &Row<'_>) -> rusqlite::Result<Result<Agent>> {
    let runtime: String = row.get(5)?;
    let Some(runtime) = RuntimeKind::parse(&runtime) else {
        return Ok(Err(Error::Internal(format!("unknown runtime “{runtime}” in the store"))));
    };
    let policy: String = row.get(7)?;
    let Some(approval_policy) = ApprovalPolicy::parse(&policy) else {
        return Ok(Err(Error::Internal(format!("unknown approval policy “{policy}” in the store"))));
    };
    let provider: Option<String> = row.get(8)?;
    let provider = match provider.as_deref().map(Provider::parse) {
        None => None,
        Some(Some(p)) => Some(p),
        Some(None) => return Ok(Err(Error::Internal("unknown provider in the store".into()))),
    };
    let network: String = row.get(13)?;
    let Some(network) = NetworkAccess::parse(&network) else {
        return Ok(Err(Error::Internal(format!("unknown network setting “{network}” in the store"))));
    };
    let hosts: String = row.get(14)?;
    let sandbox = SandboxSettings {
        confined: row.get(12)?,
        network,
        allowed_hosts: serde_json::from_str(&hosts).unwrap_or_default(),
    };
    Ok(Ok(Agent {
        id: row.get(0)?,
        name: row.get(1)?,
        handle: row.get(2)?,
        description: row.get(3)?,
        tint: row.get(4)?,
        runtime,
        model: row.get(6)?,
        approval_policy,
        provider,
        openclaw_gateway_url: row.get(11)?,
        sandbox,
        created_at: row.get(9)?,
        updated_at: row.get(10)?,
    }))
}

fn duplicate_handle_or(e: rusqlite::Error, handle: &str) -> Error {
    match &e {
        rusqlite::Error::SqliteFailure(f, _) if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE => {
            Error::DuplicateHandle(handle.to_owned())
        }
        _ => Error::from(e),
    }
}

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// The setting naming the agent that is Boo Zero (set by `boo_zero`; agents refuse to delete it).
pub const BOO_ZERO_SETTING: &str = "boo_zero.agent_id";

/// Refuses to delete Boo Zero.
pub fn check_deletable(conn: &rusqlite::Connection, agent_id_to_delete: &str) -> Result<()> {
    if clawboo_store::store::settings::get(conn, BOO_ZERO_SETTING)?.as_deref() == Some(agent_id_to_delete) {
        return Err(Error::Conflict(
            "Boo Zero is your own coordinator and cannot be deleted. Rename it or change its runtime instead.".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
