//! API keys per model provider, kept in the OS keychain through `keyring` and nowhere else.
//! The store holds only non-secret settings (the custom provider's base URL). Nothing here
//! logs, stores or echoes a key: errors name the provider, never the value.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};

use crate::store::Store;
use clawboo_vocab::error::{Error, Result};

const MAX_KEY_CHARS: usize = 4_096;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
pub enum Provider {
    #[serde(rename = "anthropic")]
    Anthropic,
    #[serde(rename = "openai")]
    OpenAi,
    #[serde(rename = "openrouter")]
    OpenRouter,
    /// Any OpenAI-compatible endpoint (Ollama, a proxy, a self-hosted model).
    #[serde(rename = "custom")]
    Custom,
}

impl Provider {
    pub const ALL: [Provider; 4] = [Provider::Anthropic, Provider::OpenAi, Provider::OpenRouter, Provider::Custom];

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// The stored name: the keychain account and the database value. Stable forever, or
    /// stored keys are lost.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
            Provider::OpenRouter => "openrouter",
            Provider::Custom => "custom",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Provider::Anthropic => "Anthropic",
            Provider::OpenAi => "OpenAI",
            Provider::OpenRouter => "OpenRouter",
            Provider::Custom => "Custom (OpenAI-compatible)",
        }
    }

    /// Where requests go unless the user set another base URL.
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            Provider::Anthropic => Some("https://api.anthropic.com"),
            Provider::OpenAi => Some("https://api.openai.com/v1"),
            Provider::OpenRouter => Some("https://openrouter.ai/api/v1"),
            Provider::Custom => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderStatus {
    pub provider: Provider,
    pub label: String,
    pub key_set: bool,
    /// Where requests go; `None` for the custom provider until the user sets it.
    pub base_url: Option<String>,
    /// Where requests go when the user sets nothing.
    pub default_base_url: Option<String>,
}

pub struct Secrets {
    /// The keychain "service" every key is filed under; distinct per data directory when the
    /// data directory is overridden, so test and side-by-side instances never share keys.
    service: String,
    store: Arc<Store>,
    /// The keys read from the keychain this app session, so a run's grant costs no keychain
    /// read (a D-Bus round trip on Linux). In memory only: never stored, logged or shown (this
    /// type has no `Debug`). A key set or removed here replaces or drops its copy;
    /// [`Secrets::forget_keys`] drops them all (on shutdown). A key found missing is kept as
    /// missing too (a keyless provider, such as a local Ollama, costs no read per run either),
    /// until it is set here.
    keys: Mutex<KeptKeys>,
}

#[derive(Default)]
struct KeptKeys {
    /// `None`: the keychain holds no key for the provider.
    by_provider: HashMap<Provider, Option<String>>,
    /// Moves on every set or removal, so a keychain read that began before one is not kept
    /// after it (it could hold the key just replaced).
    changes: u64,
}

impl Secrets {
    pub fn new(service: String, store: Arc<Store>) -> Self {
        Self { service, store, keys: Mutex::new(KeptKeys::default()) }
    }

    /// Drops every key kept in memory; the next use reads the keychain again.
    pub fn forget_keys(&self) {
        let mut keys = self.keys();
        keys.by_provider.clear();
        keys.changes += 1;
    }

    /// Drops `provider`'s kept key: it is being set or removed. Returns the count of changes
    /// it makes, for [`Secrets::keep_key`].
    fn forget_key(&self, provider: Provider) -> u64 {
        let mut keys = self.keys();
        keys.by_provider.remove(&provider);
        keys.changes += 1;
        keys.changes
    }

    /// Keeps `key` as read or written while the changes stood at `changes`; not when a set or a
    /// removal came meanwhile (the keychain may hold another key by now).
    fn keep_key(&self, provider: Provider, key: Option<&str>, changes: u64) {
        let mut keys = self.keys();
        if keys.changes == changes {
            keys.by_provider.insert(provider, key.map(str::to_owned));
        }
    }

    fn keys(&self) -> MutexGuard<'_, KeptKeys> {
        // A panic while holding the lock leaves the map itself consistent.
        self.keys.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn service(&self) -> &str {
        &self.service
    }

    pub fn statuses(&self) -> Result<Vec<ProviderStatus>> {
        Provider::ALL
            .into_iter()
            .map(|provider| {
                Ok(ProviderStatus {
                    provider,
                    label: provider.label().to_owned(),
                    key_set: self.api_key(provider)?.is_some(),
                    base_url: self.base_url(provider)?,
                    default_base_url: provider.default_base_url().map(str::to_owned),
                })
            })
            .collect()
    }

    pub fn set_api_key(&self, provider: Provider, key: &str) -> Result<()> {
        let key = key.trim();
        if key.is_empty() {
            return Err(Error::InvalidInput(format!("The {} key is empty.", provider.label())));
        }
        if key.chars().count() > MAX_KEY_CHARS || key.chars().any(char::is_whitespace) {
            return Err(Error::InvalidInput(format!(
                "That does not look like a {} key: keys have no spaces or line breaks and at most {MAX_KEY_CHARS} characters.",
                provider.label()
            )));
        }
        // Dropped first: whatever happens to the keychain write, no older key stays in use.
        let changes = self.forget_key(provider);
        self.entry(provider)?.set_password(key).map_err(keychain_error)?;
        self.keep_key(provider, Some(key), changes);
        tracing::info!(provider = provider.as_str(), "an API key was stored in the keychain");
        Ok(())
    }

    /// Removing a key that is not set is not an error.
    pub fn delete_api_key(&self, provider: Provider) -> Result<()> {
        self.forget_key(provider);
        match self.entry(provider)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => {
                tracing::info!(provider = provider.as_str(), "an API key was removed from the keychain");
                Ok(())
            }
            Err(e) => Err(keychain_error(e)),
        }
    }

    /// The provider's key: the one kept since it was read or set this session (or its absence),
    /// else the keychain's (then kept).
    pub fn api_key(&self, provider: Provider) -> Result<Option<String>> {
        let changes = {
            let keys = self.keys();
            if let Some(key) = keys.by_provider.get(&provider) {
                return Ok(key.clone());
            }
            keys.changes
        };
        match self.entry(provider)?.get_password() {
            Ok(key) => {
                self.keep_key(provider, Some(&key), changes);
                Ok(Some(key))
            }
            Err(keyring::Error::NoEntry) => {
                self.keep_key(provider, None, changes);
                Ok(None)
            }
            Err(e) => Err(keychain_error(e)),
        }
    }

    /// The user's base URL for `provider`, else its default.
    pub fn base_url(&self, provider: Provider) -> Result<Option<String>> {
        let set = self.store.read(|conn| crate::store::settings::get(conn, &base_url_setting(provider)))?;
        Ok(set.or_else(|| provider.default_base_url().map(str::to_owned)))
    }

    /// Sets where a provider's requests go (a proxy, a local Ollama at
    /// `http://127.0.0.1:11434/v1`); `None` goes back to the default.
    pub fn set_base_url(&self, provider: Provider, raw: Option<&str>) -> Result<Option<String>> {
        let url = raw.map(normalise_base_url).transpose()?;
        self.store.write(|tx| crate::store::settings::put(tx, &base_url_setting(provider), url.as_deref()))?;
        Ok(url)
    }

    fn entry(&self, provider: Provider) -> Result<keyring::Entry> {
        keyring::Entry::new(&self.service, provider.as_str()).map_err(keychain_error)
    }
}

fn base_url_setting(provider: Provider) -> String {
    format!("provider.{}.base_url", provider.as_str())
}

/// Accepts an https URL with a host, or plain http to this machine only (a key sent over plain
/// http to another host can be read on the way); drops a trailing slash so paths join
/// predictably. Credentials in the URL are refused: they would end up in SQLite.
pub fn normalise_base_url(raw: &str) -> Result<String> {
    let raw = raw.trim();
    let url = url::Url::parse(raw).map_err(|e| {
        Error::InvalidInput(format!("“{raw}” is not a URL ({e}); use the form http://127.0.0.1:11434/v1."))
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(Error::InvalidInput(format!("“{raw}” must be an http:// or https:// address with a host.")));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Error::InvalidInput("Put the key in the key field, not in the URL.".into()));
    }
    if !allowed_scheme(&url) {
        return Err(Error::InvalidInput(format!(
            "“{raw}” uses plain http:// to another machine, which would expose the key on the way: use https://, \
             or http:// only for this machine (127.0.0.1, ::1 or localhost)."
        )));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// https anywhere; plain http only to a loopback host.
pub fn allowed_scheme(url: &url::Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => is_loopback_host(url),
        _ => false,
    }
}

/// 127.0.0.0/8, ::1 or `localhost` (names are not resolved: any other name may be remote).
pub fn is_loopback_host(url: &url::Url) -> bool {
    let Some(host) = url.host_str() else { return false };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

pub fn keychain_error(e: keyring::Error) -> Error {
    match e {
        keyring::Error::NoDefaultStore | keyring::Error::NoStorageAccess(_) | keyring::Error::PlatformFailure(_) => {
            Error::KeychainUnavailable(format!(
                "{e}. On Linux, Clawboo needs a Secret Service provider such as GNOME Keyring or KWallet, unlocked."
            ))
        }
        other => Error::Keychain(other.to_string()),
    }
}

/// The token of an OpenClaw Gateway the user runs (an agent's "existing Gateway"): one keychain
/// entry per agent, account `openclaw-gateway:<agent id>`, beside the provider keys. Like them it
/// is never stored, logged or echoed; only whether it is set leaves this module for the UI.
impl Secrets {
    pub fn set_gateway_token(&self, agent_id: &str, token: &str) -> Result<()> {
        let token = validate_gateway_token(token)?;
        self.gateway_entry(agent_id)?.set_password(&token).map_err(keychain_error)
    }

    pub fn gateway_token(&self, agent_id: &str) -> Result<Option<String>> {
        match self.gateway_entry(agent_id)?.get_password() {
            Ok(token) => Ok(Some(token)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(keychain_error(e)),
        }
    }

    /// Removing a token that is not set is not an error.
    pub fn delete_gateway_token(&self, agent_id: &str) -> Result<()> {
        match self.gateway_entry(agent_id)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(keychain_error(e)),
        }
    }

    fn gateway_entry(&self, agent_id: &str) -> Result<keyring::Entry> {
        keyring::Entry::new(&self.service, &format!("{GATEWAY_TOKEN_ACCOUNT}{agent_id}")).map_err(keychain_error)
    }
}

const GATEWAY_TOKEN_ACCOUNT: &str = "openclaw-gateway:";

/// A Gateway token as typed: trimmed, one line, no spaces, bounded.
pub fn validate_gateway_token(raw: &str) -> Result<String> {
    let token = raw.trim();
    if token.is_empty() {
        return Err(Error::InvalidInput("Enter the Gateway's token (its gateway.auth.token).".into()));
    }
    if token.chars().count() > MAX_KEY_CHARS || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Error::InvalidInput(format!(
            "That does not look like a Gateway token: tokens have no spaces or line breaks and at most {MAX_KEY_CHARS} characters."
        )));
    }
    Ok(token.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawboo_vocab::error::ErrorCode;

    #[test]
    fn base_urls_are_checked_and_normalised() {
        assert_eq!(normalise_base_url(" http://127.0.0.1:11434/v1/ ").unwrap(), "http://127.0.0.1:11434/v1");
        assert_eq!(normalise_base_url("https://example.test/api").unwrap(), "https://example.test/api");
        assert_eq!(normalise_base_url("http://localhost:8080").unwrap(), "http://localhost:8080");
        assert_eq!(normalise_base_url("http://127.1.2.3/v1").unwrap(), "http://127.1.2.3/v1");
        assert_eq!(normalise_base_url("http://[::1]:9/v1").unwrap(), "http://[::1]:9/v1");
        for bad in ["", "not a url", "ftp://host/x", "file:///etc/passwd", "http://user:secret@host/v1"] {
            let err = normalise_base_url(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput, "{bad}");
            assert!(!err.to_string().contains("secret"), "the message must not echo credentials");
        }
        // Plain http to anything but this machine would carry the key in the clear.
        for remote in
            ["http://example.test/v1", "http://10.0.0.5:11434/v1", "http://localhost.example.test", "http://[::2]/v1"]
        {
            let err = normalise_base_url(remote).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput, "{remote}");
            assert!(err.to_string().contains("https://"), "{err}");
        }
    }
}
