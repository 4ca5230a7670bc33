//! The local API's bearer token: 32 random bytes as hex, kept in the OS keychain (account
//! `local-api-token` under the engine's keychain service) and nowhere else: never in SQLite, a
//! log line, an event or an error message. The server keeps a copy in memory to compare against.

use crate::error::{Error, Result};
use crate::secrets::{keychain_error, Secrets};

const ACCOUNT: &str = "local-api-token";
/// Random bytes in a token (64 hex characters).
pub const TOKEN_BYTES: usize = 32;

/// The stored token, if one was ever made.
pub fn stored(secrets: &Secrets) -> Result<Option<String>> {
    match entry(secrets)?.get_password() {
        Ok(token) => Ok(Some(token)),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(e) => Err(keychain_error(e)),
    }
}

/// The stored token, made and stored first when there is none.
pub fn ensure(secrets: &Secrets) -> Result<String> {
    match stored(secrets)? {
        Some(token) if looks_like_token(&token) => Ok(token),
        _ => regenerate(secrets),
    }
}

/// A new token replaces the stored one (the old one stops working at once where it is checked).
pub fn regenerate(secrets: &Secrets) -> Result<String> {
    let token = new_token()?;
    entry(secrets)?.set_password(&token).map_err(keychain_error)?;
    Ok(token)
}

fn entry(secrets: &Secrets) -> Result<keyring::Entry> {
    keyring::Entry::new(secrets.service(), ACCOUNT).map_err(keychain_error)
}

fn new_token() -> Result<String> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::Internal(format!("the system's random number source failed: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn looks_like_token(token: &str) -> bool {
    token.len() == TOKEN_BYTES * 2 && token.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Compares in time that depends only on the lengths, never on where the first difference is.
pub fn same(given: &str, expected: &str) -> bool {
    let (given, expected) = (given.as_bytes(), expected.as_bytes());
    if given.len() != expected.len() {
        return false;
    }
    given.iter().zip(expected).fold(0u8, |diff, (a, b)| diff | (a ^ b)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_64_hex_characters_and_differ() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert!(looks_like_token(&a), "{a}");
        assert_ne!(a, b);
    }

    #[test]
    fn comparison_needs_every_byte() {
        assert!(same("abcd", "abcd"));
        assert!(!same("abce", "abcd"));
        assert!(!same("abc", "abcd"));
        assert!(!same("", "abcd"));
    }
}
