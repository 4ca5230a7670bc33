//! Which OpenClaw Gateway an OpenClaw agent talks to: one Clawboo starts on this machine (the
//! default), or one the user already runs, here or on another machine, reached by its URL and
//! token. The URL is a plain profile field; the token lives in the OS keychain only (see
//! [`Secrets::set_gateway_token`]) and the UI only learns whether it is set.
//!
//! Plain `ws://` is accepted only where OpenClaw's own client accepts it (2026.9.6,
//! `isSecureWebSocketUrl`): loopback, private, link-local and carrier-grade-NAT addresses
//! (a LAN, a Tailscale tailnet), `localhost`, and `.local` / `.ts.net` names. Anywhere else the
//! token and every message would cross the network in clear text, so `wss://` is required: the
//! user learns that when saving, not from a failed turn.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::{Deserialize, Serialize};
use url::Url;

use super::{Agents, RuntimeKind};
use clawboo_store::secrets::Secrets;
use clawboo_vocab::error::{Error, Result};

const MAX_URL_CHARS: usize = 2_048;

/// What the UI sees of an agent's Gateway choice: never the token itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct OpenclawGateway {
    /// `None`: Clawboo starts and stops a Gateway of its own on this machine.
    pub url: Option<String>,
    pub token_set: bool,
}

/// The user's choice. `url: None` goes back to a Gateway started by Clawboo and forgets the
/// token; with a URL, `token: None` keeps the token already saved.
#[derive(Clone, Default, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct OpenclawGatewayInput {
    pub url: Option<String>,
    pub token: Option<String>,
}

impl std::fmt::Debug for OpenclawGatewayInput {
    // Never print a token, even in a debug log.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenclawGatewayInput")
            .field("url", &self.url)
            .field("token", &self.token.as_ref().map(|_| "…"))
            .finish()
    }
}

pub fn status(agents: &Agents, secrets: &Secrets, agent_id: &str) -> Result<OpenclawGateway> {
    let agent = agents.get(agent_id)?;
    let token_set = match agent.openclaw_gateway_url {
        Some(_) => secrets.gateway_token(agent_id)?.is_some(),
        None => false,
    };
    Ok(OpenclawGateway { url: agent.openclaw_gateway_url, token_set })
}

/// Saves the choice: the token to the keychain, the URL to the profile. A failure leaves the
/// previous choice in place.
pub fn set(agents: &Agents, secrets: &Secrets, agent_id: &str, input: OpenclawGatewayInput) -> Result<OpenclawGateway> {
    let agent = agents.get(agent_id)?;
    let Some(raw_url) = input.url.as_deref().filter(|u| !u.trim().is_empty()) else {
        // Back to a Gateway of Clawboo's own: the token goes first, so none is left behind.
        secrets.delete_gateway_token(agent_id)?;
        agents.set_openclaw_gateway_url(agent_id, None)?;
        return Ok(OpenclawGateway { url: None, token_set: false });
    };
    if agent.runtime != RuntimeKind::Openclaw {
        return Err(Error::InvalidInput("Only OpenClaw agents connect to a Gateway.".into()));
    }
    let url = normalise_gateway_url(raw_url)?;
    let new_token = input.token.as_deref().filter(|t| !t.trim().is_empty());
    let new_token = new_token.map(clawboo_store::secrets::validate_gateway_token).transpose()?;
    let previous = secrets.gateway_token(agent_id)?;
    if new_token.is_none() && previous.is_none() {
        return Err(Error::InvalidInput(
            "Enter the Gateway's token (gateway.auth.token in its openclaw.json, or the --token it was started with)."
                .into(),
        ));
    }
    if let Some(token) = &new_token {
        secrets.set_gateway_token(agent_id, token)?;
    }
    if let Err(e) = agents.set_openclaw_gateway_url(agent_id, Some(&url)) {
        // Put the keychain back as it was.
        let _ = match &previous {
            Some(old) => secrets.set_gateway_token(agent_id, old),
            None => secrets.delete_gateway_token(agent_id),
        };
        return Err(e);
    }
    // Whether a new token was stored, never the token.
    tracing::info!(%agent_id, gateway = %url, new_token = new_token.is_some(), "an OpenClaw agent uses the user's Gateway");
    Ok(OpenclawGateway { url: Some(url), token_set: true })
}

/// Accepts `ws://` or `wss://` with a host; plain `ws://` only to hosts on this machine or a
/// private network (see the module note). Credentials, queries and fragments are refused: a
/// token there would end up in SQLite.
pub fn normalise_gateway_url(raw: &str) -> Result<String> {
    let raw = raw.trim();
    if raw.chars().count() > MAX_URL_CHARS {
        return Err(Error::InvalidInput(format!("A Gateway URL has at most {MAX_URL_CHARS} characters.")));
    }
    // The text is not echoed: a token pasted into the wrong field must not reach a message.
    let url = Url::parse(raw)
        .map_err(|e| Error::InvalidInput(format!("That is not a URL ({e}); use the form ws://127.0.0.1:18789.")))?;
    if !matches!(url.scheme(), "ws" | "wss") || url.host_str().is_none_or(str::is_empty) {
        return Err(Error::InvalidInput(
            "A Gateway URL is a ws:// or wss:// address with a host, for example ws://127.0.0.1:18789.".into(),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() || url.query().is_some() || url.fragment().is_some() {
        return Err(Error::InvalidInput(
            "Put the Gateway's token in the token field, not in the URL (no user, password, ?query or #fragment)."
                .into(),
        ));
    }
    if url.scheme() == "ws" && !plain_ws_allowed(&url) {
        let host = url.host_str().unwrap_or_default();
        return Err(Error::InvalidInput(format!(
            "ws:// to {host} would send the token and every message unencrypted over the internet. Use wss://, \
             or reach the Gateway through an SSH tunnel (ssh -N -L 18789:127.0.0.1:18789 you@{host}, then \
             ws://127.0.0.1:18789) or a private network such as Tailscale."
        )));
    }
    let text = url.as_str();
    Ok(if url.path() == "/" { text.trim_end_matches('/') } else { text }.to_owned())
}

/// Hosts where a plain `ws://` connection stays on this machine or a private network.
fn plain_ws_allowed(url: &Url) -> bool {
    let host = url.host_str().unwrap_or_default();
    match host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => private_v4(ip),
        Ok(IpAddr::V6(ip)) => private_v6(ip),
        Err(_) => {
            let name = host.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".local") || name.ends_with(".ts.net")
        }
    }
}

fn private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    // 100.64.0.0/10: carrier-grade NAT, where Tailscale puts its addresses.
    ip.is_loopback() || ip.is_private() || ip.is_link_local() || (a == 100 && (64..128).contains(&b))
}

fn private_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return private_v4(v4);
    }
    let first = ip.segments()[0];
    // fc00::/7 unique local, fe80::/10 link-local, fec0::/10 (deprecated) site-local.
    ip.is_loopback() || (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80 || (first & 0xffc0) == 0xfec0
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawboo_vocab::error::ErrorCode;

    #[test]
    fn gateway_urls_are_websocket_addresses_with_a_host() {
        assert_eq!(normalise_gateway_url(" ws://127.0.0.1:18789/ ").unwrap(), "ws://127.0.0.1:18789");
        assert_eq!(normalise_gateway_url("wss://gateway.example.com").unwrap(), "wss://gateway.example.com");
        assert_eq!(normalise_gateway_url("wss://example.com/openclaw/").unwrap(), "wss://example.com/openclaw/");
        for bad in
            ["", "not a url", "http://127.0.0.1:18789", "https://example.com", "file:///x", "ws://", "ws:///path"]
        {
            let err = normalise_gateway_url(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput, "{bad:?}");
        }
    }

    #[test]
    fn plain_ws_reaches_only_this_machine_or_a_private_network() {
        for ok in [
            "ws://127.0.0.1:1",
            "ws://127.8.9.10:1",
            "ws://localhost:18789",
            "ws://[::1]:18789",
            "ws://10.1.2.3:1",
            "ws://172.16.0.9:1",
            "ws://192.168.1.20:18789",
            "ws://169.254.3.4:1",
            "ws://100.101.102.103:18789",
            "ws://[fd7a:115c:a1e0::1]:18789",
            "ws://[fe80::1]:1",
            "ws://[::ffff:192.168.1.2]:1",
            "ws://studio.local:18789",
            "ws://box.tail1234.ts.net:18789",
        ] {
            assert!(normalise_gateway_url(ok).is_ok(), "{ok}");
        }
        for public in [
            "ws://8.8.8.8:18789",
            "ws://100.128.0.1:1",
            "ws://172.32.0.1:1",
            "ws://[2001:db8::1]:1",
            "ws://[::ffff:8.8.8.8]:1",
            "ws://gateway.example.com:18789",
            "ws://localhost.evil.com:1",
        ] {
            let err = normalise_gateway_url(public).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput, "{public}");
            assert!(err.to_string().contains("wss://"), "the fix is named: {err}");
        }
        assert!(normalise_gateway_url("wss://8.8.8.8:18789").is_ok(), "encrypted is fine anywhere");
    }

    #[test]
    fn tokens_are_refused_inside_the_url_without_echoing_them() {
        for bad in
            ["ws://user:s3cret-tok@127.0.0.1:1", "ws://127.0.0.1:1/?token=s3cret-tok", "wss://h.example/#s3cret-tok"]
        {
            let err = normalise_gateway_url(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput, "{bad}");
            assert!(!err.to_string().contains("s3cret-tok"), "{err}");
        }
    }
}
