//! Checks a connector as the user sent it: every refusal is an `InvalidInput` that says what
//! to change, before anything is stored.

use super::types::{ConnectorEntryInput, ConnectorInput, ConnectorKind};
use crate::error::{Error, Result};

pub const MAX_NAME_CHARS: usize = 40;
pub const MAX_COMMAND_CHARS: usize = 1_000;
pub const MAX_ARGS: usize = 64;
pub const MAX_ARG_CHARS: usize = 4_000;
pub const MAX_URL_CHARS: usize = 2_000;
pub const MAX_ENTRIES: usize = 32;
pub const MAX_KEY_CHARS: usize = 128;
pub const MAX_VALUE_CHARS: usize = 8_000;

fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidInput(message.into())
}

/// A name that works as an MCP server name in every runtime: lowercase letters, digits, `_`
/// and `-`, starting with a letter or digit; `clawboo…` is Clawboo's own tools server.
pub fn name(raw: &str) -> Result<String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(invalid("Give the connector a name (letters a-z, digits, _ or -)."));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(invalid(format!("A connector's name has at most {MAX_NAME_CHARS} characters.")));
    }
    let allowed = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-';
    if !name.chars().all(allowed) || !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(invalid(format!(
            "\"{name}\" cannot be a connector's name: use lowercase letters a-z, digits, _ and -, starting with a letter or digit."
        )));
    }
    if name.starts_with(crate::tools::SERVER_NAME) {
        return Err(invalid(format!(
            "\"{name}\" is reserved: \"{}\" is Clawboo's own tools server.",
            crate::tools::SERVER_NAME
        )));
    }
    Ok(name.to_owned())
}

fn one_line(what: &str, value: &str, max: usize) -> Result<()> {
    if value.chars().count() > max {
        return Err(invalid(format!("{what} has at most {max} characters.")));
    }
    if value.chars().any(|c| c == '\0' || c == '\n' || c == '\r') {
        return Err(invalid(format!("{what} must be one line.")));
    }
    Ok(())
}

/// The input with names and fields trimmed and checked; the other kind's fields cleared.
pub fn input(raw: &ConnectorInput) -> Result<ConnectorInput> {
    let mut input = raw.clone();
    input.name = name(&raw.name)?;
    match input.kind {
        ConnectorKind::Stdio => {
            input.command = raw.command.trim().to_owned();
            if input.command.is_empty() {
                return Err(invalid("Enter the command that starts the MCP server."));
            }
            one_line("The command", &input.command, MAX_COMMAND_CHARS)?;
            if raw.args.len() > MAX_ARGS {
                return Err(invalid(format!("A connector takes at most {MAX_ARGS} arguments.")));
            }
            for arg in &raw.args {
                one_line("An argument", arg, MAX_ARG_CHARS)?;
            }
            input.url.clear();
        }
        ConnectorKind::Http => {
            input.url = raw.url.trim().to_owned();
            one_line("The URL", &input.url, MAX_URL_CHARS)?;
            let url = reqwest::Url::parse(&input.url)
                .map_err(|e| invalid(format!("\"{}\" is not a URL ({e}).", input.url)))?;
            if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
                return Err(invalid("A connector's URL starts with http:// or https:// and names a host."));
            }
            input.command.clear();
            input.args.clear();
        }
    }
    if raw.entries.len() > MAX_ENTRIES {
        return Err(invalid(format!("A connector has at most {MAX_ENTRIES} entries.")));
    }
    let mut seen = std::collections::HashSet::new();
    input.entries = raw.entries.iter().map(|e| entry(input.kind, e)).collect::<Result<_>>()?;
    for e in &input.entries {
        if !seen.insert(e.key.to_ascii_lowercase()) {
            return Err(invalid(format!("\"{}\" is given twice.", e.key)));
        }
    }
    Ok(input)
}

fn entry(kind: ConnectorKind, raw: &ConnectorEntryInput) -> Result<ConnectorEntryInput> {
    let key = raw.key.trim().to_owned();
    let what = match kind {
        ConnectorKind::Stdio => "variable",
        ConnectorKind::Http => "header",
    };
    if key.is_empty() || key.len() > MAX_KEY_CHARS {
        return Err(invalid(format!("Each {what} needs a name of at most {MAX_KEY_CHARS} characters.")));
    }
    let valid = match kind {
        ConnectorKind::Stdio => {
            key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        // An HTTP token (RFC 9110).
        ConnectorKind::Http => key.chars().all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)),
    };
    if !valid {
        return Err(invalid(format!("\"{key}\" is not a valid {what} name.")));
    }
    if let Some(value) = &raw.value {
        one_line(&format!("The value of {key}"), value, MAX_VALUE_CHARS)?;
        if raw.secret && value.trim().is_empty() {
            return Err(invalid(format!("The secret {key} is empty: clear it instead.")));
        }
    }
    let value = match (&raw.value, raw.secret) {
        (None, false) => Some(String::new()),
        (value, _) => value.clone(),
    };
    Ok(ConnectorEntryInput { key, value, secret: raw.secret })
}

/// A secret value set on its own (`set_secret`).
pub fn secret_value(key: &str, raw: &str) -> Result<String> {
    if raw.trim().is_empty() {
        return Err(invalid(format!("The secret {key} is empty: clear it instead.")));
    }
    one_line(&format!("The value of {key}"), raw, MAX_VALUE_CHARS)?;
    Ok(raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn stdio(name: &str, command: &str) -> ConnectorInput {
        ConnectorInput {
            name: name.into(),
            kind: ConnectorKind::Stdio,
            command: command.into(),
            args: vec![],
            url: String::new(),
            entries: vec![],
            enabled: true,
        }
    }

    #[test]
    fn names_are_safe_mcp_server_names_and_never_clawboo() {
        assert_eq!(name("  github ").unwrap(), "github");
        assert_eq!(name("my_db-2").unwrap(), "my_db-2");
        for bad in ["", "GitHub", "a b", "-x", "x.y", "clawboo", "clawboo_x", "é", &"a".repeat(41)] {
            assert_eq!(name(bad).unwrap_err().code(), ErrorCode::InvalidInput, "{bad:?}");
        }
    }

    #[test]
    fn stdio_needs_a_command_and_http_a_web_url() {
        assert!(input(&stdio("fs", "  ")).is_err());
        assert!(input(&stdio("fs", "npx\nrm")).is_err());
        assert_eq!(input(&stdio("fs", " npx ")).unwrap().command, "npx");
        let http = |url: &str| ConnectorInput { kind: ConnectorKind::Http, url: url.into(), ..stdio("web", "") };
        assert!(input(&http("ftp://example.com")).is_err());
        assert!(input(&http("not a url")).is_err());
        assert!(input(&http("file:///etc/passwd")).is_err());
        let ok = input(&http(" https://mcp.example.com/mcp ")).unwrap();
        assert_eq!(ok.url, "https://mcp.example.com/mcp");
    }

    #[test]
    fn entries_are_named_once_bounded_and_one_line() {
        let with = |entries: Vec<ConnectorEntryInput>| ConnectorInput { entries, ..stdio("fs", "npx") };
        let e = |key: &str, value: Option<&str>, secret| ConnectorEntryInput {
            key: key.into(),
            value: value.map(str::to_owned),
            secret,
        };
        assert!(input(&with(vec![e("TOKEN", Some("a"), true), e("token", Some("b"), false)])).is_err());
        assert!(input(&with(vec![e("1BAD", Some("a"), false)])).is_err());
        assert!(input(&with(vec![e("K", Some("a\nb"), false)])).is_err());
        assert!(input(&with(vec![e("K", Some(" "), true)])).is_err());
        let ok = input(&with(vec![e("API_TOKEN", None, true), e("MODE", None, false)])).unwrap();
        assert_eq!(ok.entries[0].value, None, "an unsent secret keeps what is stored");
        assert_eq!(ok.entries[1].value.as_deref(), Some(""));
    }
}
