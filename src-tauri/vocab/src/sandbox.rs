//! An agent's OS sandbox as its profile sets it: on or off, and where it may connect.

use serde::{Deserialize, Serialize};

/// What the agent's profile says about its sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SandboxSettings {
    /// False only when the user turned the sandbox off for this agent (it then shows an
    /// "unconfined" badge everywhere).
    pub confined: bool,
    pub network: NetworkAccess,
    /// Host names reachable through the proxy under [`NetworkAccess::Hosts`] (`*.example.com`
    /// matches the subdomains).
    pub allowed_hosts: Vec<String>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self { confined: true, network: NetworkAccess::ClawbooOnly, allowed_hosts: Vec::new() }
    }
}

/// Where an agent may connect, besides Clawboo's own model relay and tools bridge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum NetworkAccess {
    /// Only Clawboo: the model relay and the tools bridge.
    #[default]
    ClawbooOnly,
    /// Also the listed hosts, over HTTP(S) through Clawboo's proxy.
    Hosts,
    /// Any host, over HTTP(S) through Clawboo's proxy (raw TCP still has no route out).
    Any,
}

impl NetworkAccess {
    pub fn as_str(self) -> &'static str {
        match self {
            NetworkAccess::ClawbooOnly => "clawboo_only",
            NetworkAccess::Hosts => "hosts",
            NetworkAccess::Any => "any",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "clawboo_only" => Some(NetworkAccess::ClawbooOnly),
            "hosts" => Some(NetworkAccess::Hosts),
            "any" => Some(NetworkAccess::Any),
            _ => None,
        }
    }
}

/// Hosts one click away in the profile: package registries and documentation.
pub const SUGGESTED_HOSTS: &[&str] = &[
    "registry.npmjs.org",
    "pypi.org",
    "files.pythonhosted.org",
    "crates.io",
    "static.crates.io",
    "index.crates.io",
    "github.com",
    "codeload.github.com",
    "objects.githubusercontent.com",
    "docs.rs",
    "developer.mozilla.org",
];

pub const MAX_ALLOWED_HOSTS: usize = 64;

/// Checks and normalises the profile's host list: lower-case names (optionally `*.` in front),
/// no schemes, paths or ports.
pub fn validate_hosts(hosts: &[String]) -> crate::Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for raw in hosts {
        let host = raw.trim().trim_end_matches('.').to_ascii_lowercase();
        if host.is_empty() {
            continue;
        }
        let bare = host.strip_prefix("*.").unwrap_or(&host);
        let valid = !bare.is_empty()
            && bare.len() <= 253
            && bare.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    && !label.starts_with('-')
            });
        if !valid {
            return Err(crate::Error::InvalidInput(format!(
                "“{}” is not a host name; write it like registry.npmjs.org or *.example.com (no https://, path or port).",
                raw.trim()
            )));
        }
        if !out.contains(&host) {
            out.push(host);
        }
    }
    if out.len() > MAX_ALLOWED_HOSTS {
        return Err(crate::Error::InvalidInput(format!("At most {MAX_ALLOWED_HOSTS} hosts may be allowed.")));
    }
    Ok(out)
}

/// Whether `host` is allowed by `allowed` (exact names, or `*.domain` for its subdomains).
pub fn host_allowed(allowed: &[String], host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    allowed.iter().any(|rule| match rule.strip_prefix("*.") {
        Some(domain) => host.ends_with(&format!(".{domain}")),
        None => *rule == host,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_validated_and_matched_by_name_or_subdomain() {
        let hosts = validate_hosts(&[" PyPI.org ".into(), "*.npmjs.org".into(), "pypi.org".into(), "".into()]).unwrap();
        assert_eq!(hosts, ["pypi.org", "*.npmjs.org"]);
        for bad in ["https://pypi.org", "pypi.org/simple", "pypi.org:443", "a b", "-x.org", "*."] {
            let err = validate_hosts(&[bad.to_owned()]).unwrap_err();
            assert_eq!(err.code(), crate::ErrorCode::InvalidInput, "{bad}");
        }
        assert!(host_allowed(&hosts, "pypi.org"));
        assert!(host_allowed(&hosts, "registry.npmjs.org"));
        assert!(!host_allowed(&hosts, "npmjs.org"));
        assert!(!host_allowed(&hosts, "evilpypi.org"));
        assert!(!host_allowed(&hosts, "pypi.org.evil.com"));
    }
}
