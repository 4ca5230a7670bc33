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

/// The runtimes that offer a choice, and the provider whose key they use otherwise.
pub fn key_provider(kind: RuntimeKind) -> Option<Provider> {
    match kind {
        RuntimeKind::ClaudeCode => Some(Provider::Anthropic),
        RuntimeKind::Codex => Some(Provider::OpenAi),
        _ => None,
    }
}

/// The user's credentials for one CLI, found where that CLI keeps them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnSignIn {
    /// The user's own config folder of the CLI (`~/.claude`, `~/.codex`, or what
    /// `CLAUDE_CONFIG_DIR` / `CODEX_HOME` name in Clawboo's environment).
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
            keychain: cfg!(target_os = "macos"),
        }
    }

    /// A user whose home is `home` and who set no config folder variables.
    pub fn for_home(home: &Path) -> Self {
        Self { home: Some(home.to_owned()), claude_config_dir: None, codex_home: None, keychain: false }
    }

    /// The CLI's own config folder of the user, whether or not it holds credentials.
    pub fn user_dir(&self, kind: RuntimeKind) -> Option<PathBuf> {
        match kind {
            RuntimeKind::ClaudeCode => {
                self.claude_config_dir.clone().or_else(|| self.home.as_ref().map(|h| h.join(".claude")))
            }
            RuntimeKind::Codex => self.codex_home.clone().or_else(|| self.home.as_ref().map(|h| h.join(".codex"))),
            _ => None,
        }
    }

    /// Where Clawboo looks, for messages ("~/.claude/.credentials.json").
    pub fn place(&self, kind: RuntimeKind) -> String {
        let file = match kind {
            RuntimeKind::ClaudeCode => ".credentials.json",
            RuntimeKind::Codex => "auth.json",
            _ => return String::new(),
        };
        self.user_dir(kind).map(|d| self.shown(&d.join(file))).unwrap_or_else(|| format!("(no home folder)/{file}"))
    }

    /// The user's sign-in for `kind`, if one exists. Looks only at whether the credentials are
    /// there; never reads them.
    pub fn find(&self, kind: RuntimeKind) -> Option<OwnSignIn> {
        let dir = self.user_dir(kind)?;
        let file = match kind {
            RuntimeKind::ClaudeCode => dir.join(".credentials.json"),
            RuntimeKind::Codex => dir.join("auth.json"),
            _ => return None,
        };
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
    let binary = super::detect::binary_name(kind).unwrap_or("the CLI");
    let place = locator.place(kind);
    match choice {
        Some(Access::ApiKey) if key_set => Ok(Resolved::ApiKey),
        Some(Access::ApiKey) => Err(Error::MissingApiKey(format!(
            "{name} is set to use an API key from Clawboo, but none is stored: add an {provider} key in Settings > API keys, or choose “Use my own sign-in” in Settings > Runtimes."
        ))),
        Some(Access::OwnSignIn) => locator.find(kind).map(Resolved::OwnSignIn).ok_or_else(|| {
            Error::SignInMissing(format!(
                "{name} is set to use your own sign-in, but none was found in {place}: run `{binary}` once in a terminal and log in, or choose “Use an API key from Clawboo” in Settings > Runtimes."
            ))
        }),
        None if key_set => Ok(Resolved::ApiKey),
        None => locator.find(kind).map(Resolved::OwnSignIn).ok_or_else(|| {
            Error::SignInMissing(format!(
                "{name} has no API key in Clawboo and no sign-in was found in {place}: run `{binary}` once in a terminal and log in, or add an {provider} key in Settings > API keys."
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
    let target = sign_in
        .file
        .as_deref()
        .ok_or_else(|| Error::SignInMissing("Codex keeps its sign-in in a file (auth.json); none was found.".into()))?;
    let link = agent_home.join("auth.json");
    if std::fs::read_link(&link).ok().as_deref() == Some(target) {
        return Ok(());
    }
    unlink_codex_auth(agent_home)?;
    symlink_file(target, &link).map_err(|e| {
        Error::RuntimeFailed(format!(
            "Cannot let Codex use your sign-in: linking {} to {} failed ({e}). {}",
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

/// Removes the agent's `auth.json` (a link, or anything Codex left there), never the user's.
pub fn unlink_codex_auth(agent_home: &Path) -> Result<()> {
    let link = agent_home.join("auth.json");
    match std::fs::remove_file(&link) {
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
