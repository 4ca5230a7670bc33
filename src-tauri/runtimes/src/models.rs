//! The models a provider offers, for Native's model field: `GET /v1/models` (Anthropic and the
//! OpenAI-compatible APIs), asked by the engine with the key from the keychain — the key never
//! goes to the UI — and kept per provider and base URL until asked to refresh. A failure says
//! what failed; the field still takes a typed model.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::relay::{check_upstream_url, Upstream};
use crate::secrets::Provider;

/// A listing that takes longer is given up (the field stays typeable).
const LIST_TIMEOUT: Duration = Duration::from_secs(15);
/// The most model ids kept from one answer (OpenRouter lists hundreds).
const MAX_MODELS: usize = 1_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProviderModels {
    pub provider: Provider,
    /// Model ids as the provider names them, sorted.
    pub models: Vec<String>,
    /// When the provider was asked (Unix ms).
    pub fetched_at: i64,
}

/// The lists asked so far, by provider and the base URL they came from.
pub struct ModelLists {
    upstream: Arc<dyn Upstream>,
    client: reqwest::Client,
    cached: Mutex<HashMap<(Provider, String), ProviderModels>>,
}

impl ModelLists {
    pub fn new(upstream: Arc<dyn Upstream>) -> Self {
        Self { upstream, client: crate::runtimes::native::http::client(), cached: Mutex::default() }
    }

    /// `provider`'s models: the list kept from before unless `refresh`, else asked now.
    pub async fn list(&self, provider: Provider, refresh: bool) -> Result<ProviderModels> {
        let endpoint = self.upstream.upstream(provider)?;
        let key = (provider, endpoint.base_url.clone());
        if !refresh {
            if let Some(kept) = self.cached().get(&key) {
                return Ok(kept.clone());
            }
        }
        let api_key = endpoint.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty());
        if api_key.is_none() && provider != Provider::Custom {
            return Err(Error::MissingApiKey(format!(
                "Add an {} API key in Settings > API keys to list its models.",
                provider.label()
            )));
        }
        let url = crate::relay::upstream_url(provider, &endpoint.base_url, "models", None);
        let url = check_upstream_url(&url).map_err(Error::InvalidInput)?;
        let mut request = self.client.get(url).timeout(LIST_TIMEOUT);
        request = match (provider, api_key) {
            (Provider::Anthropic, Some(key)) => {
                request.header("x-api-key", key).header("anthropic-version", "2023-06-01")
            }
            (_, Some(key)) => request.bearer_auth(key),
            (_, None) => request,
        };
        let failed = |why: String| Error::RuntimeFailed(format!("Could not list {}'s models: {why}", provider.label()));
        let answer = request.send().await.map_err(|e| failed(crate::runtimes::native::http::causes(&e)))?;
        let status = answer.status();
        let body = answer.text().await.map_err(|e| failed(crate::runtimes::native::http::causes(&e)))?;
        if !status.is_success() {
            return Err(failed(crate::runtimes::native::http::status_error(provider.label(), status, &body)));
        }
        let models = model_ids(&body).ok_or_else(|| failed("its answer has no list of models (`data`).".into()))?;
        let listed = ProviderModels { provider, models, fetched_at: crate::vocab::clock::now_ms() };
        self.cached().insert(key, listed.clone());
        Ok(listed)
    }

    fn cached(&self) -> std::sync::MutexGuard<'_, HashMap<(Provider, String), ProviderModels>> {
        self.cached.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The ids in `{"data": [{"id": …}, …]}` (both APIs answer so), sorted, each once.
fn model_ids(body: &str) -> Option<Vec<String>> {
    let json: serde_json::Value = serde_json::from_str(body).ok()?;
    let mut ids: Vec<String> = json["data"]
        .as_array()?
        .iter()
        .filter_map(|m| m["id"].as_str())
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .collect();
    ids.sort();
    ids.dedup();
    ids.truncate(MAX_MODELS);
    Some(ids)
}

#[cfg(test)]
mod tests {
    use super::model_ids;

    #[test]
    fn ids_are_read_from_data_sorted_once() {
        let body = r#"{"data":[{"id":"b"},{"id":"a"},{"id":"b"},{"type":"model"}],"has_more":false}"#;
        assert_eq!(model_ids(body), Some(vec!["a".to_owned(), "b".to_owned()]));
        assert_eq!(model_ids(r#"{"error":"no"}"#), None);
        assert_eq!(model_ids("not json"), None);
    }
}
