//! `$CODEX_HOME/config.toml`: the model provider Codex calls, and the switches that keep it
//! from reaching anything else (update checks, analytics, feedback, plugins).

use std::path::Path;

use super::KEY_ENV;
use crate::error::{Error, Result};
use crate::runtimes::confine::HOMES_DIR;
use crate::runtimes::ApprovalPolicy;

/// How much of a project's AGENTS.md Codex reads (`project_doc_max_bytes`, 32 KiB by default).
/// Codex reads its own home-level AGENTS.md (the agent's, kept there by Clawboo) whole; Clawboo
/// holds that to the same figure (`context::files::CODEX_AGENTS_LIMIT`).
pub const PROJECT_DOC_MAX_BYTES: usize = crate::context::files::CODEX_AGENTS_LIMIT;

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

/// What every turn's config holds besides the provider: Clawboo's permissions (web search off,
/// the workspace untrusted, the read-only profile), whichever way the model is reached.
pub struct Permissions<'a> {
    pub policy: ApprovalPolicy,
    pub workspace: &'a Path,
    pub program: &'a Path,
    /// Commands may open connections: the agent's Network setting lets hosts through
    /// Clawboo's proxy, which then decides which. Without it Codex's own sandbox gives
    /// commands no network at all (so the proxy would never be reached).
    pub network: bool,
}

pub fn write(home: &Path, base_url: &str, model: &str, permissions: &Permissions<'_>) -> Result<()> {
    save(home, &render(base_url, model), permissions)
}

pub fn write_signed_in(home: &Path, model: &str, base_url: Option<&str>, permissions: &Permissions<'_>) -> Result<()> {
    save(home, &render_signed_in(model, base_url), permissions)
}

fn save(home: &Path, provider: &str, permissions: &Permissions<'_>) -> Result<()> {
    let path = home.join("config.toml");
    let top = permissions_top(permissions.policy);
    let mut tables = permissions_tables(permissions.policy, permissions.workspace, permissions.program, home);
    if permissions.network && permissions.policy != ApprovalPolicy::ReadOnly {
        tables.push_str("\n[sandbox_workspace_write]\nnetwork_access = true\n");
    }
    // Above Codex's 32 KiB default, so AGENTS.md within its budget is never cut by Codex.
    let text = format!("{top}project_doc_max_bytes = {PROJECT_DOC_MAX_BYTES}\n{provider}\n{tables}");
    std::fs::write(&path, text).map_err(|e| Error::io(format!("Cannot write {}", path.display()), e))
}

/// Clawboo's permission profile for read-only agents (Codex 0.171 permission profiles): reads
/// only inside the workspace roots (Clawboo's folder denied) and what commands need to run
/// (`:minimal`), writes nowhere, no network. Codex applies it in its sandbox, so even a
/// command it deems safe and runs without asking (`cat`) cannot read elsewhere.
pub const READ_ONLY_PROFILE: &str = "clawboo-read-only";

/// What Codex's commands may not read inside `.clawboo` (relative to the workspace): the
/// other runtimes' homes, the shared temp folder, and everything in Codex's own home but its
/// `tmp`, where Codex keeps the sandbox helper its commands start through (a denied `.clawboo`
/// as a whole stops every command: measured with 0.171, a deny beats a nested read).
fn hidden_homes(workspace: &Path) -> Vec<String> {
    const CODEX_STATE: &[&str] =
        &["sessions", "archived_sessions", "auth.json", "config.toml", "history.jsonl", "log", "shell_snapshots"];
    let mut hidden: Vec<String> = ["claude-code", "hermes", "openclaw", "native", "tmp"]
        .iter()
        .map(|name| format!("{HOMES_DIR}/{name}"))
        .collect();
    let homes = workspace.join(HOMES_DIR);
    let listed = |dir: &Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect()
            })
            .unwrap_or_default()
    };
    for name in listed(&homes) {
        if name != "codex" {
            hidden.push(format!("{HOMES_DIR}/{name}"));
        }
    }
    let mut codex_state: Vec<String> = CODEX_STATE.iter().map(|s| (*s).to_owned()).collect();
    codex_state.extend(listed(&homes.join("codex")));
    for name in codex_state {
        if name != "tmp" {
            hidden.push(format!("{HOMES_DIR}/codex/{name}"));
        }
    }
    hidden.sort();
    hidden.dedup();
    hidden
}

/// Where the installed Codex lives: its commands start through a helper that is a link to the
/// Codex binary, so the sandbox must let them read it. The `node_modules` folder holding the
/// npm package (the `codex` script and the native binary of its optional dependency), else
/// the binary's own folder.
fn install_dirs(program: &Path) -> Vec<std::path::PathBuf> {
    let mut dirs = Vec::new();
    for path in [Some(program.to_path_buf()), program.canonicalize().ok()].into_iter().flatten() {
        let dir = path
            .ancestors()
            .find(|a| a.file_name().is_some_and(|n| n == "node_modules"))
            .or_else(|| path.parent())
            .map(Path::to_path_buf);
        if let Some(dir) = dir.filter(|d| d.is_absolute() && !dirs.contains(d)) {
            dirs.push(dir);
        }
    }
    dirs
}

/// Top-level keys (TOML wants them before any table): web search off for every agent, since
/// the model's search queries can carry what it read, and the read-only profile selected.
fn permissions_top(policy: ApprovalPolicy) -> String {
    let mut top = String::from("web_search = \"disabled\"\n");
    if policy == ApprovalPolicy::ReadOnly {
        top.push_str(&format!("default_permissions = \"{READ_ONLY_PROFILE}\"\n"));
    }
    top
}

/// The workspace marked untrusted (so its `.codex/config.toml`, hooks and rules are not
/// loaded), and the read-only profile.
fn permissions_tables(policy: ApprovalPolicy, workspace: &Path, program: &Path, home: &Path) -> String {
    let mut tables = String::new();
    let mut roots = vec![workspace.to_path_buf()];
    if let Ok(real) = workspace.canonicalize() {
        if !roots.contains(&real) {
            roots.push(real);
        }
    }
    for root in &roots {
        tables
            .push_str(&format!("[projects.{}]\ntrust_level = \"untrusted\"\n\n", toml_string(&root.to_string_lossy())));
    }
    if policy == ApprovalPolicy::ReadOnly {
        tables.push_str(&format!(
            "[permissions.{READ_ONLY_PROFILE}.filesystem]\n\
             \":minimal\" = \"read\"\n\
             {install}\
             \n\
             [permissions.{READ_ONLY_PROFILE}.filesystem.\":workspace_roots\"]\n\
             \".\" = \"read\"\n",
            // The helper's folder, wherever the home is (inside the workspace in the app).
            install = install_dirs(program)
                .into_iter()
                .chain(std::iter::once(home.join("tmp")))
                .map(|dir| format!("{} = \"read\"\n", toml_string(&dir.to_string_lossy())))
                .collect::<String>(),
        ));
        for denied in hidden_homes(workspace) {
            tables.push_str(&format!("{} = \"deny\"\n", toml_string(&denied)));
        }
        tables.push_str(&format!("\n[permissions.{READ_ONLY_PROFILE}.network]\nenabled = false\n"));
    }
    tables
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
    fn read_only_selects_a_profile_confined_to_the_workspace_and_web_search_is_off() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("agent");
        std::fs::create_dir_all(ws.join(".clawboo/codex/tmp")).unwrap();
        std::fs::create_dir_all(ws.join(".clawboo/claude-code")).unwrap();
        let program = dir.path().join("node_modules/.bin/codex");
        let read_only =
            Permissions { policy: ApprovalPolicy::ReadOnly, workspace: &ws, program: &program, network: true };
        write(&ws.join(".clawboo/codex"), "http://127.0.0.1:9/v1", "gpt-5.5", &read_only).unwrap();
        let text = std::fs::read_to_string(ws.join(".clawboo/codex/config.toml")).unwrap();
        let config: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(config["web_search"].as_str(), Some("disabled"));
        assert_eq!(config["default_permissions"].as_str(), Some(READ_ONLY_PROFILE));
        assert_eq!(config["projects"][ws.to_str().unwrap()]["trust_level"].as_str(), Some("untrusted"));
        let profile = &config["permissions"][READ_ONLY_PROFILE];
        assert_eq!(profile["network"]["enabled"].as_bool(), Some(false));
        let fs = &profile["filesystem"];
        assert_eq!(fs[":minimal"].as_str(), Some("read"));
        assert_eq!(fs[dir.path().join("node_modules").to_str().unwrap()].as_str(), Some("read"));
        let roots = &fs[":workspace_roots"];
        assert_eq!(roots["."].as_str(), Some("read"));
        for hidden in [".clawboo/claude-code", ".clawboo/tmp", ".clawboo/codex/sessions", ".clawboo/codex/config.toml"]
        {
            assert_eq!(roots[hidden].as_str(), Some("deny"), "{hidden}");
        }
        assert!(roots.get(".clawboo/codex/tmp").is_none(), "Codex's sandbox helper stays reachable");
        assert_eq!(config["model_providers"]["clawboo"]["wire_api"].as_str(), Some("responses"));

        // The user's own sign-in gets the same permissions.
        write_signed_in(&ws.join(".clawboo/codex"), "gpt-5.5", None, &read_only).unwrap();
        let text = std::fs::read_to_string(ws.join(".clawboo/codex/config.toml")).unwrap();
        let config: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(config["model_provider"].as_str(), Some("openai"));
        assert_eq!(config["web_search"].as_str(), Some("disabled"));
        assert_eq!(config["default_permissions"].as_str(), Some(READ_ONLY_PROFILE));
        assert_eq!(config["permissions"][READ_ONLY_PROFILE]["network"]["enabled"].as_bool(), Some(false));

        for policy in [ApprovalPolicy::Ask, ApprovalPolicy::AllowAll] {
            for network in [false, true] {
                let permissions = Permissions { policy, workspace: &ws, program: &program, network };
                write(&ws.join(".clawboo/codex"), "http://127.0.0.1:9/v1", "gpt-5.5", &permissions).unwrap();
                let text = std::fs::read_to_string(ws.join(".clawboo/codex/config.toml")).unwrap();
                let config: toml::Table = toml::from_str(&text).unwrap();
                assert_eq!(config["web_search"].as_str(), Some("disabled"));
                assert!(config.get("default_permissions").is_none() && config.get("permissions").is_none());
                let access = config.get("sandbox_workspace_write").and_then(|t| t["network_access"].as_bool());
                assert_eq!(access, network.then_some(true), "commands reach the proxy only when hosts are allowed");
            }
        }
    }

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
