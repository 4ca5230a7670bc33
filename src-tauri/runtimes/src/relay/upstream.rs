//! The way out to a provider: one HTTP client that never follows a redirect, and the rules for
//! which URLs it may call.

use crate::secrets::{allowed_scheme, Provider};

/// The relay's client: the Native runtime's, which never follows a redirect (the key would go
/// along to wherever it points) and respects system proxies.
pub fn upstream_client() -> reqwest::Client {
    crate::runtimes::native::http::client()
}

/// Refuses a URL the key must not travel to: anything but https, except plain http to a
/// loopback host. The message names the rule, never a key.
pub fn check_upstream_url(url: &str) -> Result<reqwest::Url, String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("The provider's base URL is not a URL ({e})."))?;
    if !allowed_scheme(&parsed) {
        return Err(format!(
            "Refused to send the key to {}: plain http:// is allowed only to this machine (127.0.0.1, ::1, \
             localhost); use https://.",
            parsed.host_str().unwrap_or("?")
        ));
    }
    Ok(parsed)
}

/// The provider URL for `rest` (the path after the client's `/v1/`, e.g. "messages") and the
/// query. The base is normalised as the adapters did before the relay: Anthropic's base has
/// no `/v1` (clients append `/v1/messages`), OpenAI-style bases end where `/chat/completions`
/// or `/responses` is appended (usually `/v1`).
pub fn upstream_url(provider: Provider, base: &str, rest: &str, query: Option<&str>) -> String {
    let base = base.trim().trim_end_matches('/');
    let mut url = match provider {
        Provider::Anthropic => format!("{}/v1/{rest}", base.strip_suffix("/v1").unwrap_or(base)),
        _ => format!("{base}/{rest}"),
    };
    if let Some(query) = query.filter(|q| !q.is_empty()) {
        url.push('?');
        url.push_str(query);
    }
    url
}

/// The API paths (after `/v1/`) the relay forwards; anything else is refused, so a token
/// reaches only the model endpoints, not a provider's other APIs (files, admin).
pub fn allowed_path(method: &hyper::Method, rest: &str) -> bool {
    use hyper::Method;
    match *method {
        Method::POST => {
            matches!(
                rest,
                "messages" | "messages/count_tokens" | "responses" | "responses/compact" | "chat/completions"
            )
        }
        Method::GET => {
            rest == "models" || rest.strip_prefix("models/").is_some_and(|id| !id.is_empty() && !id.contains('/'))
        }
        _ => false,
    }
}
