//! Connectors: MCP servers the user plugs in (a stdio command or an HTTP URL) and shares with
//! chosen agents. Each run of an agent gets the enabled connectors shared with it
//! ([`Connectors::for_run`]); Clawboo hosts them itself for the run ([`client`],
//! `runtimes::hosted`): Native calls their tools in-process, a CLI through its run's tools
//! bridge, so no runtime is ever given a connector's config, secret or process. Values the user
//! marks secret live in the OS keychain only: SQLite keeps an entry's key and that it is
//! secret, never its value.

mod records;
mod types;
pub mod validate;

use std::sync::Arc;

pub use types::{
    Connector, ConnectorEntry, ConnectorEntryInput, ConnectorInput, ConnectorKind, RunConnector, RunConnectors,
    RunTransport, SuggestedConnector,
};

use crate::error::{Error, Result};
use crate::events::{EngineEvent, EventBus};
use crate::secrets::Secrets;
use crate::store::Store;

/// Well-known MCP servers the user could add: the context's "could add" list (a few, those
/// not yet added) and the Settings page's hints.
pub const SUGGESTED: &[SuggestedConnector] = &[
    SuggestedConnector { name: "github", description: "Issues, pull requests and code on GitHub" },
    SuggestedConnector { name: "filesystem", description: "Read and write files in folders you choose" },
    SuggestedConnector { name: "fetch", description: "Fetch web pages as text" },
    SuggestedConnector { name: "postgres", description: "Query a PostgreSQL database (read-only)" },
    SuggestedConnector { name: "slack", description: "Read and post Slack messages" },
    SuggestedConnector { name: "notion", description: "Search and edit Notion pages" },
];

/// How many suggestions the context names.
const CONTEXT_SUGGESTIONS: usize = 3;

pub struct Connectors {
    store: Arc<Store>,
    secrets: Arc<Secrets>,
    events: EventBus,
}

impl Connectors {
    pub fn new(store: Arc<Store>, secrets: Arc<Secrets>, events: EventBus) -> Self {
        Self { store, secrets, events }
    }

    /// Every connector, by name, with whether each secret is set (never its value).
    pub fn list(&self) -> Result<Vec<Connector>> {
        let rows = self.store.read(records::all)?;
        rows.into_iter().map(|row| self.shown(row)).collect()
    }

    pub fn get(&self, id: &str) -> Result<Connector> {
        let row = self.store.read(|c| records::one(c, id))?;
        self.shown(row)
    }

    pub fn create(&self, raw: ConnectorInput) -> Result<Connector> {
        let input = validate::input(&raw)?;
        let id = uuid::Uuid::new_v4().to_string();
        let now = crate::vocab::clock::now_ms();
        self.store.write(|tx| records::insert(tx, &id, &input, now))?;
        if let Err(e) = self.store_secrets(&id, &input) {
            // Nothing half-made stays behind: the row and any secret already written go.
            let _ = self.store.write(|tx| records::delete(tx, &id));
            self.forget_secrets(&id, input.entries.iter().map(|e| e.key.as_str()));
            return Err(e);
        }
        tracing::info!(connector_id = %id, kind = input.kind.as_str(), "a connector was added");
        self.changed();
        self.get(&id)
    }

    /// Replaces a connector's settings; a secret sent without a value keeps the stored one.
    /// Secrets no longer listed (or now plain) leave the keychain.
    pub fn update(&self, id: &str, raw: ConnectorInput) -> Result<Connector> {
        let input = validate::input(&raw)?;
        let before = self.store.read(|c| records::one(c, id))?;
        self.store_secrets(id, &input)?;
        let now = crate::vocab::clock::now_ms();
        self.store.write(|tx| records::update(tx, id, &input, now))?;
        let kept_secret = |key: &str| input.entries.iter().any(|e| e.secret && e.key == key);
        let gone: Vec<&str> =
            before.entries.iter().filter(|e| e.secret && !kept_secret(&e.key)).map(|e| e.key.as_str()).collect();
        self.forget_secrets(id, gone.into_iter());
        self.changed();
        self.get(id)
    }

    /// Deletes a connector, its shares and its secrets.
    pub fn delete(&self, id: &str) -> Result<()> {
        let row = self.store.read(|c| records::one(c, id))?;
        self.store.write(|tx| records::delete(tx, id))?;
        self.forget_secrets(id, row.entries.iter().filter(|e| e.secret).map(|e| e.key.as_str()));
        tracing::info!(connector_id = %id, "a connector was deleted");
        self.changed();
        Ok(())
    }

    /// Shares a connector with exactly these agents (unknown agents are refused).
    pub fn set_shares(&self, id: &str, agent_ids: &[String]) -> Result<Connector> {
        self.store.write(|tx| records::set_shares(tx, id, agent_ids))?;
        self.changed();
        self.get(id)
    }

    /// Shares or unshares one connector with one agent (the agent page's toggles).
    pub fn share(&self, id: &str, agent_id: &str, shared: bool) -> Result<Connector> {
        self.store.write(|tx| records::share(tx, id, agent_id, shared))?;
        self.changed();
        self.get(id)
    }

    /// Sets the value of a secret entry (which must exist and be marked secret).
    pub fn set_secret(&self, id: &str, key: &str, value: &str) -> Result<Connector> {
        let row = self.store.read(|c| records::one(c, id))?;
        Self::secret_entry(&row, key)?;
        let value = validate::secret_value(key, value)?;
        self.entry(id, key)?.set_password(&value).map_err(crate::secrets::keychain_error)?;
        // The secret's name, never its value.
        tracing::info!(connector_id = %id, secret_name = key, "a connector's secret was stored in the keychain");
        self.changed();
        self.get(id)
    }

    /// Removes a secret's value; the entry stays, unset.
    pub fn clear_secret(&self, id: &str, key: &str) -> Result<Connector> {
        let row = self.store.read(|c| records::one(c, id))?;
        Self::secret_entry(&row, key)?;
        self.delete_secret(id, key)?;
        self.changed();
        self.get(id)
    }

    /// The enabled connectors shared with an agent, ready for one of its runs: secrets read
    /// from the keychain. A connector whose secret is missing or unreadable is left out and
    /// says so in `warnings` (shown on the run), never failing the turn.
    pub fn for_run(&self, agent_id: &str) -> RunConnectors {
        let mut out = RunConnectors::default();
        let rows = match self.store.read(|c| records::shared_with(c, agent_id)) {
            Ok(rows) => rows,
            Err(e) => {
                out.warnings.push(format!("Connectors could not be read, so none were given: {e}"));
                return out;
            }
        };
        for row in rows {
            match self.resolve(&row) {
                Ok(connector) => out.connectors.push(connector),
                Err(why) => out.warnings.push(format!("Connector '{}' did not start: {why}", row.name)),
            }
        }
        out
    }

    /// The context's connectors slot for an agent: the enabled connectors by name, marking the
    /// ones shared with it, and a few well-known servers not yet added. None when there is
    /// nothing to say or the store cannot be read (the slot is informational).
    pub fn context_for(&self, agent_id: &str) -> Option<crate::context::Connectors> {
        let rows = self.store.read(records::all).ok()?;
        let enabled: Vec<&records::Row> = rows.iter().filter(|r| r.enabled).collect();
        let connected = enabled
            .iter()
            .map(|r| match r.shared_with.iter().any(|a| a == agent_id) {
                true => format!("{} (shared with you)", r.name),
                false => r.name.clone(),
            })
            .collect();
        let suggested = SUGGESTED
            .iter()
            .filter(|s| !rows.iter().any(|r| r.name == s.name))
            .take(CONTEXT_SUGGESTIONS)
            .map(|s| s.name.to_owned())
            .collect();
        Some(crate::context::Connectors { connected, suggested })
    }

    fn resolve(&self, row: &records::Row) -> std::result::Result<RunConnector, String> {
        let mut values = Vec::with_capacity(row.entries.len());
        for entry in &row.entries {
            let value = match (&entry.value, entry.secret) {
                (_, true) => match self.secret(&row.id, &entry.key) {
                    Ok(Some(value)) => value,
                    Ok(None) => return Err(format!("its secret {} is not set (Settings > Connectors).", entry.key)),
                    Err(e) => return Err(format!("its secret {} could not be read: {e}", entry.key)),
                },
                (value, false) => value.clone().unwrap_or_default(),
            };
            values.push((entry.key.clone(), value));
        }
        let transport = match row.kind {
            ConnectorKind::Stdio => {
                RunTransport::Stdio { command: row.command.clone(), args: row.args.clone(), env: values }
            }
            ConnectorKind::Http => RunTransport::Http { url: row.url.clone(), headers: values },
        };
        Ok(RunConnector { name: row.name.clone(), transport })
    }

    fn shown(&self, row: records::Row) -> Result<Connector> {
        let entries = row
            .entries
            .iter()
            .map(|e| {
                // A keychain that cannot be read shows the secret as not set, not an error page.
                let is_set = !e.secret || matches!(self.secret(&row.id, &e.key), Ok(Some(_)));
                ConnectorEntry {
                    key: e.key.clone(),
                    value: if e.secret { None } else { e.value.clone() },
                    secret: e.secret,
                    is_set,
                }
            })
            .collect();
        Ok(Connector {
            id: row.id,
            name: row.name,
            kind: row.kind,
            command: row.command,
            args: row.args,
            url: row.url,
            entries,
            enabled: row.enabled,
            shared_with: row.shared_with,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }

    fn secret_entry<'a>(row: &'a records::Row, key: &str) -> Result<&'a records::StoredEntry> {
        row.entries
            .iter()
            .find(|e| e.key == key && e.secret)
            .ok_or_else(|| Error::NotFound(format!("Connector '{}' has no secret named {key}.", row.name)))
    }

    fn store_secrets(&self, id: &str, input: &ConnectorInput) -> Result<()> {
        for entry in input.entries.iter().filter(|e| e.secret) {
            if let Some(value) = &entry.value {
                self.entry(id, &entry.key)?.set_password(value).map_err(crate::secrets::keychain_error)?;
            }
        }
        Ok(())
    }

    fn forget_secrets<'a>(&self, id: &str, keys: impl Iterator<Item = &'a str>) {
        for key in keys {
            if let Err(e) = self.delete_secret(id, key) {
                tracing::warn!(connector_id = %id, secret_name = key, error = %e, "a connector's secret stays in the keychain");
            }
        }
    }

    fn secret(&self, id: &str, key: &str) -> Result<Option<String>> {
        match self.entry(id, key)?.get_password() {
            Ok(value) => Ok(Some(value)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(crate::secrets::keychain_error(e)),
        }
    }

    fn delete_secret(&self, id: &str, key: &str) -> Result<()> {
        match self.entry(id, key)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(crate::secrets::keychain_error(e)),
        }
    }

    /// One keychain entry per secret: account `connector:<connector id>:<key>`.
    fn entry(&self, id: &str, key: &str) -> Result<keyring::Entry> {
        keyring::Entry::new(self.secrets.service(), &format!("connector:{id}:{key}"))
            .map_err(crate::secrets::keychain_error)
    }

    fn changed(&self) {
        self.events.publish(EngineEvent::ConnectorsChanged);
    }
}
