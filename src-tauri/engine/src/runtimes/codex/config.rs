//! `$CODEX_HOME/config.toml`: the model provider Codex calls, and the switches that keep it
//! from reaching anything else (update checks, analytics, feedback, plugins).

use std::path::Path;

use super::KEY_ENV;
use crate::error::{Error, Result};

/// The config for one turn. `base_url` already ends in /v1 (as set in Settings).
pub fn render(base_url: &str, model: &str) -> String {
    format!(
        "model = {model}\n\
         model_provider = \"clawboo\"\n\
         check_for_update_on_startup = false\n\
         \n\
         [model_providers.clawboo]\n\
         name = \"Clawboo\"\n\
         base_url = {base_url}\n\
         env_key = \"{KEY_ENV}\"\n\
         wire_api = \"responses\"\n\
         request_max_retries = 1\n\
         stream_max_retries = 1\n\
         \n\
         [analytics]\nenabled = false\n\n\
         [feedback]\nenabled = false\n\n\
         [features]\nplugins = false\nremote_plugin = false\napps = false\n",
        model = toml_string(model),
        base_url = toml_string(base_url.trim_end_matches('/')),
    )
}

/// The config for a turn with the user's own sign-in: Codex's built-in `openai` provider, which
/// authenticates with `auth.json` (ChatGPT tokens or a key saved by `codex login`) and picks its
/// endpoint by the kind of sign-in. The file store is forced: the keyring store is keyed by
/// this home's path and would neither find the user's entry nor keep the user's file current.
///
/// `base_url` replaces the ChatGPT backend with a plain Responses endpoint (tests: the fake
/// server); such an endpoint gets uncompressed bodies (Codex sends zstd to ChatGPT).
pub fn render_signed_in(model: &str, base_url: Option<&str>) -> String {
    let (base_url, compression) = match base_url {
        Some(url) => (
            format!("openai_base_url = {}\n", toml_string(url.trim_end_matches('/'))),
            "enable_request_compression = false\n",
        ),
        None => (String::new(), ""),
    };
    format!(
        "model = {model}\n\
         model_provider = \"openai\"\n\
         {base_url}\
         cli_auth_credentials_store = \"file\"\n\
         check_for_update_on_startup = false\n\
         \n\
         [analytics]\nenabled = false\n\n\
         [feedback]\nenabled = false\n\n\
         [features]\nplugins = false\nremote_plugin = false\napps = false\n{compression}",
        model = toml_string(model),
    )
}

pub fn write(home: &Path, base_url: &str, model: &str) -> Result<()> {
    save(home, &render(base_url, model))
}

pub fn write_signed_in(home: &Path, model: &str, base_url: Option<&str>) -> Result<()> {
    save(home, &render_signed_in(model, base_url))
}

fn save(home: &Path, config: &str) -> Result<()> {
    let path = home.join("config.toml");
    std::fs::write(&path, config).map_err(|e| Error::io(format!("Cannot write {}", path.display()), e))
}

/// A TOML basic string.
fn toml_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_values_and_names_the_key_variable_only() {
        let config = render("http://127.0.0.1:9/v1/", "gpt\"5\n");
        assert!(config.contains("base_url = \"http://127.0.0.1:9/v1\"\n"));
        assert!(config.contains("model = \"gpt\\\"5\\u000A\"\n"));
        assert!(config.contains("env_key = \"CLAWBOO_OPENAI_API_KEY\""));
        assert!(config.contains("wire_api = \"responses\""));
    }

    #[test]
    fn a_signed_in_config_uses_the_built_in_provider_and_the_file_store_and_names_no_key() {
        let config = render_signed_in("gpt-5.5", None);
        assert!(config.contains("model_provider = \"openai\"\n"));
        assert!(config.contains("cli_auth_credentials_store = \"file\"\n"));
        assert!(!config.contains("env_key") && !config.contains("openai_base_url"), "{config}");
        let config = render_signed_in("gpt-5.5", Some("http://127.0.0.1:9/v1/"));
        assert!(config.contains("openai_base_url = \"http://127.0.0.1:9/v1\"\n"), "{config}");
        assert!(config.ends_with("enable_request_compression = false\n"), "{config}");
    }
}
