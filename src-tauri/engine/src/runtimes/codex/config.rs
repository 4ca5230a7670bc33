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

pub fn write(home: &Path, base_url: &str, model: &str) -> Result<()> {
    let path = home.join("config.toml");
    std::fs::write(&path, render(base_url, model)).map_err(|e| Error::io(format!("Cannot write {}", path.display()), e))
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
}
