//! How a CLI runtime reaches its model: with the user's own sign-in (a Claude subscription, a
//! ChatGPT sign-in, made in a terminal) or with an API key Clawboo holds.
//!
//! Own sign-in never copies the user's credentials into an agent's home: sign-in tokens rotate,
//! and a copy that refreshes would rotate the user's refresh token and log their terminal out.
//! Each CLI is pointed at the credentials where they live and reads and refreshes them there,
//! while everything else (settings, history, CLAUDE.md / AGENTS.md, sessions) stays in the
//! agent's private home:
//! - Claude Code (2.1.332) reads its credentials from `$CLAUDE_SECURESTORAGE_CONFIG_DIR`
//!   (`.credentials.json` on Linux and Windows; on macOS the Keychain item
//!   "Claude Code-credentials", suffixed with a hash of that directory when it is set and not
//!   empty) and everything else from `CLAUDE_CONFIG_DIR`. A symbolic link would not do: Claude
//!   writes credentials to a temporary file and renames it over the path, which would replace
//!   the link with a copy, and one of its readers refuses links outright (`O_NOFOLLOW`).
//! - Codex (0.171.0) reads `$CODEX_HOME/auth.json` and, with `cli_auth_credentials_store =
//!   "file"`, rewrites it in place (open, truncate, write), which follows a symbolic link. So the
//!   agent's Codex home holds a link to the user's `auth.json`, and the file store is forced:
//!   the keyring store is keyed by the Codex home's path (it would miss the user's entry) and,
//!   in "auto" mode, deletes the file after saving to the keyring.
//! - Hermes (0.19.0) reads and refreshes `$HERMES_HOME/auth.json` (its sign-ins: Nous Portal,
//!   ChatGPT, xAI) under the lock `$HERMES_HOME/auth.lock`, and writes it through a symbolic
//!   link on purpose (`utils.atomic_replace` resolves the link and replaces the real file;
//!   inside the sandbox, where that file is a bind mount, the rename fails with EBUSY/EXDEV and
//!   it copies into the file in place). So the agent's Hermes home holds links to the user's
//!   `auth.json` and `auth.lock` (the lock shared, so a refresh by the agent and one in the
//!   user's terminal never race on a single-use refresh token); `HERMES_SHARED_AUTH_DIR` points
//!   at the user's shared Nous store (`~/.hermes/shared`), which Hermes otherwise keeps under
//!   its home, a copy. With no provider in the
//!   agent's `config.yaml`, Hermes picks the signed-in provider itself (`active_provider`):
//!   Clawboo never reads the file. See docs/own-sign-in.md (OpenClaw: why not).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agents::RuntimeKind;
use crate::error::{Error, Result};
use crate::secrets::Provider;

/// What a runtime uses to reach its model. Stored per runtime; absent means "automatic".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// The user's own CLI sign-in, where the CLI keeps it.
    OwnSignIn,
    /// An API key from Settings > API keys.
    ApiKey,
}

impl Access {
    pub fn as_str(self) -> &'static str {
        match self {
            Access::OwnSignIn => "own_sign_in",
            Access::ApiKey => "api_key",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::OwnSignIn, Self::ApiKey].into_iter().find(|a| a.as_str() == s)
    }
}

/// The runtimes that offer a choice, and the provider whose key they use otherwise. Hermes
/// takes the key of each agent's provider: the first of [`key_providers`] stands for them.
pub fn key_provider(kind: RuntimeKind) -> Option<Provider> {
    key_providers(kind).first().copied()
}

/// Every provider whose key a runtime with a choice can use instead of the user's sign-in.
pub fn key_providers(kind: RuntimeKind) -> &'static [Provider] {
    match kind {
        RuntimeKind::ClaudeCode => &[Provider::Anthropic],
        RuntimeKind::Codex => &[Provider::OpenAi],
        // The providers an agent's profile offers Hermes (see the Hermes adapter).
        RuntimeKind::Hermes => &[Provider::OpenAi, Provider::OpenRouter, Provider::Custom],
        _ => &[],
    }
}

/// The command that signs the user in to a CLI, in a terminal.
pub fn login_command(kind: RuntimeKind) -> &'static str {
    match kind {
        RuntimeKind::ClaudeCode => "claude",
        RuntimeKind::Codex => "codex",
        RuntimeKind::Hermes => "hermes model",
        _ => "",
    }
}

/// The credentials file of each CLI, in its config folder.
fn credentials_file(kind: RuntimeKind) -> Option<&'static str> {
    match kind {
        RuntimeKind::ClaudeCode => Some(".credentials.json"),
        RuntimeKind::Codex | RuntimeKind::Hermes => Some("auth.json"),
        _ => None,
    }
}

/// The user's credentials for one CLI, found where that CLI keeps them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnSignIn {
    /// The user's own config folder of the CLI (`~/.claude`, `~/.codex`, `~/.hermes`, or what
    /// `CLAUDE_CONFIG_DIR` / `CODEX_HOME` / `HERMES_HOME` name in Clawboo's environment).
    pub dir: PathBuf,
    /// Where the credentials are, as shown to the user ("the Keychain item …" on macOS).
    pub shown: String,
    /// The credentials file, when they are in a file (not in the macOS Keychain).
    pub file: Option<PathBuf>,
}

/// Where the user's own CLI configuration lives: Clawboo's own environment by default; tests
/// give a temporary home.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignInLocator {
    home: Option<PathBuf>,
    claude_config_dir: Option<PathBuf>,
    codex_home: Option<PathBuf>,
    hermes_home: Option<PathBuf>,
    /// Hermes' folder when `HERMES_HOME` is not set: `~/.hermes`, or `%LOCALAPPDATA%\\hermes`
    /// on Windows (`hermes_constants.get_default_hermes_root`).
    hermes_default: Option<PathBuf>,
    /// Look in the macOS Keychain too (never in tests).
    keychain: bool,
}

impl SignInLocator {
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        Self {
            home: super::detect::home_dir(),
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
            codex_home: var("CODEX_HOME"),
            hermes_home: var("HERMES_HOME"),
            hermes_default: if cfg!(windows) {
                var("LOCALAPPDATA").map(|d| d.join("hermes"))
            } else {
                super::detect::home_dir().map(|h| h.join(".hermes"))
            },
            keychain: cfg!(target_os = "macos"),
        }
    }

    /// A user whose home is `home` and who set no config folder variables.
    pub fn for_home(home: &Path) -> Self {
        Self {
            home: Some(home.to_owned()),
            claude_config_dir: None,
            codex_home: None,
            hermes_home: None,
            hermes_default: Some(home.join(".hermes")),
            keychain: false,
        }
    }

    /// The CLI's own config folder of the user, whether or not it holds credentials.
    pub fn user_dir(&self, kind: RuntimeKind) -> Option<PathBuf> {
        match kind {
            RuntimeKind::ClaudeCode => {
                self.claude_config_dir.clone().or_else(|| self.home.as_ref().map(|h| h.join(".claude")))
            }
            RuntimeKind::Codex => self.codex_home.clone().or_else(|| self.home.as_ref().map(|h| h.join(".codex"))),
            RuntimeKind::Hermes => self.hermes_home.clone().or_else(|| self.hermes_default.clone()),
            _ => None,
        }
    }

    /// Where Clawboo looks, for messages ("~/.claude/.credentials.json").
    pub fn place(&self, kind: RuntimeKind) -> String {
        let Some(file) = credentials_file(kind) else { return String::new() };
        self.user_dir(kind).map(|d| self.shown(&d.join(file))).unwrap_or_else(|| format!("(no home folder)/{file}"))
    }

    /// The user's sign-in for `kind`, if one exists. Looks only at whether the credentials are
    /// there; never reads them.
    pub fn find(&self, kind: RuntimeKind) -> Option<OwnSignIn> {
        let dir = self.user_dir(kind)?;
        let file = dir.join(credentials_file(kind)?);
        // Claude Code on macOS keeps the sign-in in the login Keychain, which it prefers to the
        // file. Only the default item is looked for (a CLAUDE_CONFIG_DIR suffixes it with a hash
        // of that folder; then only the file is used).
        let in_keychain = kind == RuntimeKind::ClaudeCode && self.keychain && self.claude_config_dir.is_none();
        if in_keychain && keychain_item_exists(CLAUDE_KEYCHAIN_ITEM) {
            return Some(OwnSignIn {
                shown: format!("the Keychain item “{CLAUDE_KEYCHAIN_ITEM}”"), dir, file: None
            });
        }
        if std::fs::metadata(&file).map(|m| m.is_file()).unwrap_or(false) {
            return Some(OwnSignIn { shown: self.shown(&file), dir, file: Some(file) });
        }
        None
    }

    /// `path` with the home folder written as `~`.
    fn shown(&self, path: &Path) -> String {
        match self.home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
            Some(rest) => format!("~/{}", rest.display()),
            None => path.display().to_string(),
        }
    }
}

/// The hosts Claude Code reaches under the user's own sign-in (its API and sign-in refresh).
pub const CLAUDE_HOSTS: &[&str] = &["api.anthropic.com", "console.anthropic.com", "claude.ai"];
/// The hosts Codex reaches under the user's own ChatGPT sign-in.
pub const CODEX_HOSTS: &[&str] = &["chatgpt.com", "auth.openai.com", "api.openai.com"];
/// The hosts Hermes reaches under the sign-ins it keeps in `auth.json` (Hermes 0.19.0,
/// `hermes_cli/auth.py`): Nous Portal, ChatGPT (Codex), xAI. Clawboo does not read which one
/// the user chose, so the sandbox allows all three.
pub const HERMES_HOSTS: &[&str] = &[
    "portal.nousresearch.com",
    "inference-api.nousresearch.com",
    "chatgpt.com",
    "auth.openai.com",
    "api.x.ai",
    "auth.x.ai",
];

const CLAUDE_KEYCHAIN_ITEM: &str = "Claude Code-credentials";

/// Whether the login Keychain has a generic password for `service`. Asks for the item's
/// attributes only (no `-w`), so the secret is never read and no prompt appears.
fn keychain_item_exists(service: &str) -> bool {
    std::process::Command::new("/usr/bin/security")
        .args(["find-generic-password", "-s", service])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Why OpenClaw offers no "own sign-in" (docs/own-sign-in.md), added to the refusal.
pub const OPENCLAW_NO_SIGN_IN: &str = " OpenClaw (2026.9.6) keeps its own sign-in in its state database together with all its other state (sessions, approvals, memory), which an agent cannot be given without the rest; to run on your OpenClaw sign-in, point the agent at your own Gateway (agent profile > Gateway).";

/// What one turn of a runtime uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    ApiKey,
    OwnSignIn(OwnSignIn),
}

/// Decides what a runtime uses: the user's choice, else the key when Clawboo holds one, else
/// the user's own sign-in when one is found; or the error that says how to fix it.
pub fn resolve(kind: RuntimeKind, choice: Option<Access>, key_set: bool, locator: &SignInLocator) -> Result<Resolved> {
    let name = super::detect::label(kind);
    let provider = key_provider(kind).map(Provider::label).unwrap_or("provider");
    let binary = login_command(kind);
    let place = locator.place(kind);
    // Hermes takes the key of the agent's provider, set on its profile.
    let add_key = if kind == RuntimeKind::Hermes {
        "pick a provider with a key on the agent's profile".to_owned()
    } else {
        format!("add an {provider} key in Settings > API keys")
    };
    let no_key = if kind == RuntimeKind::Hermes { "no provider with a key for this agent" } else { "no API key" };
    match choice {
        Some(Access::ApiKey) if key_set => Ok(Resolved::ApiKey),
        Some(Access::ApiKey) => Err(Error::MissingApiKey(format!(
            "{name} is set to use an API key from Clawboo, but none is stored: {add_key}, or choose “Use my own sign-in” in Settings > Runtimes."
        ))),
        Some(Access::OwnSignIn) => locator.find(kind).map(Resolved::OwnSignIn).ok_or_else(|| {
            Error::SignInMissing(format!(
                "{name} is set to use your own sign-in, but none was found in {place}: run `{binary}` once in a terminal and log in, or choose “Use an API key from Clawboo” in Settings > Runtimes."
            ))
        }),
        None if key_set => Ok(Resolved::ApiKey),
        None => locator.find(kind).map(Resolved::OwnSignIn).ok_or_else(|| {
            Error::SignInMissing(format!(
                "{name} has {no_key} in Clawboo and no sign-in was found in {place}: run `{binary}` once in a terminal and log in, or {add_key}."
            ))
        }),
    }
}

/// Decides, per turn, what a CLI adapter uses. The engine's source is the runtime catalog
/// (the stored choice and the user's real home); tests give a fixed choice and a temporary home.
pub trait AccessSource: Send + Sync {
    fn resolve(&self, kind: RuntimeKind, key_set: bool) -> Result<Resolved>;
}

/// Always the API key: adapters built without a source behave as before sign-in existed (and
/// fail with their own missing-key message when there is no key).
pub struct KeyOnly;

impl AccessSource for KeyOnly {
    fn resolve(&self, _kind: RuntimeKind, _key_set: bool) -> Result<Resolved> {
        Ok(Resolved::ApiKey)
    }
}

/// A fixed choice with a given user home.
pub struct FixedAccess {
    pub choice: Option<Access>,
    pub locator: SignInLocator,
}

impl AccessSource for FixedAccess {
    fn resolve(&self, kind: RuntimeKind, key_set: bool) -> Result<Resolved> {
        resolve(kind, self.choice, key_set, &self.locator)
    }
}

/// Claude Code: the variable that points its credential store at the user's (see the module
/// note); settings, history and CLAUDE.md still come from the agent's `CLAUDE_CONFIG_DIR`.
pub fn claude_env(sign_in: &OwnSignIn) -> (String, String) {
    let value = match &sign_in.file {
        Some(_) => sign_in.dir.to_string_lossy().into_owned(),
        // macOS Keychain: empty selects the default item "Claude Code-credentials".
        None => String::new(),
    };
    ("CLAUDE_SECURESTORAGE_CONFIG_DIR".to_owned(), value)
}

/// Codex: `<agent's Codex home>/auth.json` becomes a symbolic link to the user's file (Codex
/// reads it and rewrites it in place through the link). Anything else found there (a stale
/// file or a link elsewhere) is removed first, so the agent's home never holds a copy.
pub fn link_codex_auth(agent_home: &Path, sign_in: &OwnSignIn) -> Result<()> {
    link_credentials(RuntimeKind::Codex, agent_home, sign_in)
}

/// Removes the agent's `auth.json` (a link, or anything Codex left there), never the user's.
pub fn unlink_codex_auth(agent_home: &Path) -> Result<()> {
    remove_link(&agent_home.join("auth.json"))
}

/// Hermes: links `<agent's HERMES_HOME>/auth.json` and `auth.lock` to the user's (see the
/// module note). The user's lock file is made, empty, when Hermes has not made it yet, and so
/// is their shared Nous store folder (see [`HERMES_SHARED_AUTH_ENV`]). Returns what the
/// sandbox must let Hermes write: the user's two files and that folder.
pub fn link_hermes_auth(hermes_home: &Path, sign_in: &OwnSignIn) -> Result<Vec<PathBuf>> {
    link_credentials(RuntimeKind::Hermes, hermes_home, sign_in)?;
    let lock = sign_in.dir.join("auth.lock");
    let made = std::fs::OpenOptions::new().append(true).create(true).open(&lock);
    made.map_err(|e| Error::io(format!("Cannot open Hermes' lock file {}", lock.display()), e))?;
    link_file(RuntimeKind::Hermes, &lock, &hermes_home.join("auth.lock"))?;
    let shared = hermes_shared_dir(sign_in);
    crate::config::create_private_dir(&shared)
        .map_err(|e| Error::io(format!("Cannot create Hermes' folder {}", shared.display()), e))?;
    Ok(sign_in.file.iter().cloned().chain([lock, shared]).collect())
}

/// Hermes also keeps a Nous Portal sign-in in a shared store, `<Hermes root>/shared/
/// nous_auth.json`, written at login and on every refresh; under the agent's own HERMES_HOME
/// that would be a copy in the agent's home. This variable points Hermes at the user's.
pub const HERMES_SHARED_AUTH_ENV: &str = "HERMES_SHARED_AUTH_DIR";

/// The user's shared Nous store folder (`~/.hermes/shared`).
pub fn hermes_shared_dir(sign_in: &OwnSignIn) -> PathBuf {
    sign_in.dir.join("shared")
}

/// Removes the agent's links to the user's Hermes sign-in (or what Hermes left in their place).
pub fn unlink_hermes_auth(hermes_home: &Path) -> Result<()> {
    remove_link(&hermes_home.join("auth.json"))?;
    // The lock is only removed when it is a link: Hermes' own lock for a key stays.
    if std::fs::symlink_metadata(hermes_home.join("auth.lock")).is_ok_and(|m| m.file_type().is_symlink()) {
        remove_link(&hermes_home.join("auth.lock"))?;
    }
    Ok(())
}

/// `<agent_home>/<credentials file>` becomes a link to the user's credentials file.
fn link_credentials(kind: RuntimeKind, agent_home: &Path, sign_in: &OwnSignIn) -> Result<()> {
    let name = super::detect::label(kind);
    let file_name = credentials_file(kind).unwrap_or("auth.json");
    let target = sign_in.file.as_deref().ok_or_else(|| {
        Error::SignInMissing(format!("{name} keeps its sign-in in a file ({file_name}); none was found."))
    })?;
    link_file(kind, target, &agent_home.join(file_name))
}

/// Makes `link` a symbolic link to `target`, replacing whatever else is there.
fn link_file(kind: RuntimeKind, target: &Path, link: &Path) -> Result<()> {
    if std::fs::read_link(link).ok().as_deref() == Some(target) {
        return Ok(());
    }
    remove_link(link)?;
    let name = super::detect::label(kind);
    symlink_file(target, link).map_err(|e| {
        Error::RuntimeFailed(format!(
            "Cannot let {name} use your sign-in: linking {} to {} failed ({e}). {}",
            link.display(),
            target.display(),
            if cfg!(windows) {
                "On Windows this needs Developer Mode (Settings > For developers); or use an API key from Clawboo."
            } else {
                "Check the agent folder's permissions, or use an API key from Clawboo."
            }
        ))
    })
}

/// Removes `link` (a link into the user's folder, or a file a CLI left there), never its target.
fn remove_link(link: &Path) -> Result<()> {
    match std::fs::remove_file(link) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(format!("Cannot remove {}", link.display()), e)),
    }
}

#[cfg(unix)]
fn symlink_file(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(windows)]
fn symlink_file(target: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_file(target, link)
}

#[cfg(not(any(unix, windows)))]
fn symlink_file(_target: &Path, _link: &Path) -> std::io::Result<()> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "symbolic links are not supported here"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user_with(files: &[&str]) -> (tempfile::TempDir, SignInLocator) {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "{}").unwrap();
        }
        let locator = SignInLocator::for_home(dir.path());
        (dir, locator)
    }

    #[test]
    fn automatic_prefers_a_stored_key_then_a_found_sign_in() {
        let (_dir, user) = user_with(&[".claude/.credentials.json"]);
        assert_eq!(resolve(RuntimeKind::ClaudeCode, None, true, &user).unwrap(), Resolved::ApiKey);
        let Resolved::OwnSignIn(found) = resolve(RuntimeKind::ClaudeCode, None, false, &user).unwrap() else {
            panic!("own sign-in")
        };
        assert_eq!(found.shown, "~/.claude/.credentials.json");
        assert_eq!(found.dir, _dir.path().join(".claude"));
    }

    #[test]
    fn neither_names_where_it_looked_and_both_fixes() {
        let (_dir, user) = user_with(&[]);
        let err = resolve(RuntimeKind::ClaudeCode, None, false, &user).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::SignInMissing);
        assert_eq!(
            err.to_string(),
            "Claude Code has no API key in Clawboo and no sign-in was found in ~/.claude/.credentials.json: run `claude` once in a terminal and log in, or add an Anthropic key in Settings > API keys."
        );
        let err = resolve(RuntimeKind::Codex, None, false, &user).unwrap_err();
        assert!(err.to_string().contains("~/.codex/auth.json") && err.to_string().contains("`codex`"), "{err}");
    }

    #[test]
    fn an_explicit_choice_is_kept_even_when_the_other_is_available() {
        let (_dir, user) = user_with(&[".codex/auth.json"]);
        assert!(matches!(
            resolve(RuntimeKind::Codex, Some(Access::OwnSignIn), true, &user),
            Ok(Resolved::OwnSignIn(_))
        ));
        let err = resolve(RuntimeKind::Codex, Some(Access::ApiKey), false, &user).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::MissingApiKey);
        assert!(err.to_string().contains("Use my own sign-in"), "{err}");
        let (_dir, nobody) = user_with(&[]);
        let err = resolve(RuntimeKind::Codex, Some(Access::OwnSignIn), true, &nobody).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::SignInMissing);
    }

    #[test]
    fn a_folder_named_like_the_credentials_is_not_a_sign_in() {
        let (dir, user) = user_with(&[]);
        std::fs::create_dir_all(dir.path().join(".claude/.credentials.json")).unwrap();
        assert_eq!(user.find(RuntimeKind::ClaudeCode), None);
    }

    #[test]
    fn hermes_is_found_in_its_home_and_takes_the_agents_provider_key() {
        let (_dir, user) = user_with(&[".hermes/auth.json"]);
        assert_eq!(resolve(RuntimeKind::Hermes, None, true, &user).unwrap(), Resolved::ApiKey);
        let Resolved::OwnSignIn(found) = resolve(RuntimeKind::Hermes, None, false, &user).unwrap() else {
            panic!("own sign-in")
        };
        assert_eq!(found.shown, "~/.hermes/auth.json");
        let (_dir, nobody) = user_with(&[".hermes/config.yaml"]);
        let err = resolve(RuntimeKind::Hermes, None, false, &nobody).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Hermes has no provider with a key for this agent in Clawboo and no sign-in was found in ~/.hermes/auth.json: run `hermes model` once in a terminal and log in, or pick a provider with a key on the agent's profile."
        );
        assert_eq!(
            resolve(RuntimeKind::Openclaw, None, false, &user).unwrap_err().code(),
            crate::ErrorCode::SignInMissing
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_hermes_links_share_the_users_file_and_lock_and_go_when_a_key_is_used() {
        let (dir, user) = user_with(&[".hermes/auth.json"]);
        let hermes_home = dir.path().join("agent/.hermes");
        std::fs::create_dir_all(&hermes_home).unwrap();
        let found = user.find(RuntimeKind::Hermes).unwrap();
        let writable = link_hermes_auth(&hermes_home, &found).unwrap();
        let (auth, lock) = (dir.path().join(".hermes/auth.json"), dir.path().join(".hermes/auth.lock"));
        assert_eq!(writable, vec![auth.clone(), lock.clone(), dir.path().join(".hermes/shared")]);
        assert_eq!(std::fs::read_link(hermes_home.join("auth.json")).unwrap(), auth);
        assert_eq!(std::fs::read_link(hermes_home.join("auth.lock")).unwrap(), lock);
        assert!(lock.is_file(), "the user's lock is made when missing");
        unlink_hermes_auth(&hermes_home).unwrap();
        assert!(std::fs::symlink_metadata(hermes_home.join("auth.json")).is_err());
        assert!(std::fs::symlink_metadata(hermes_home.join("auth.lock")).is_err());
        assert!(auth.is_file() && lock.is_file(), "the user's files stay");
        // A lock of Hermes' own (a key run) is not the user's and stays.
        std::fs::write(hermes_home.join("auth.lock"), "").unwrap();
        unlink_hermes_auth(&hermes_home).unwrap();
        assert!(hermes_home.join("auth.lock").is_file());
    }

    #[cfg(unix)]
    #[test]
    fn the_codex_link_points_at_the_users_file_and_replaces_a_stray_copy() {
        let (dir, user) = user_with(&[".codex/auth.json"]);
        let agent_home = dir.path().join("agent");
        std::fs::create_dir_all(&agent_home).unwrap();
        std::fs::write(agent_home.join("auth.json"), "stale copy").unwrap();
        let found = user.find(RuntimeKind::Codex).unwrap();
        link_codex_auth(&agent_home, &found).unwrap();
        link_codex_auth(&agent_home, &found).unwrap();
        assert_eq!(std::fs::read_link(agent_home.join("auth.json")).unwrap(), dir.path().join(".codex/auth.json"));
        unlink_codex_auth(&agent_home).unwrap();
        assert!(!agent_home.join("auth.json").exists());
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".codex/auth.json")).unwrap(),
            "{}",
            "the user's file stays"
        );
    }
}
