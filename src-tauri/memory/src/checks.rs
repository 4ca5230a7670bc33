//! Checks on every save and edit, the user's and an agent's alike: nothing empty, nothing over
//! the size limit (refused, never cut), nothing that looks like a secret (refused naming the
//! kind, never echoing it), and tags normalised.

use super::types::{MAX_TAGS, MAX_TAG_CHARS};
use clawboo_vocab::error::{Error, Result};
use clawboo_vocab::thousands;

/// The trimmed text when it passes; `what` names it in messages ("The fact", "The note").
pub(super) fn text(what: &str, text: &str, max_chars: usize) -> Result<String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(Error::InvalidInput(format!("{what} is empty.")));
    }
    let chars = trimmed.chars().count();
    if chars > max_chars {
        return Err(Error::InvalidInput(format!(
            "{what} has {} characters; at most {}. Shorten it or split it (nothing was saved).",
            thousands(chars),
            thousands(max_chars)
        )));
    }
    refuse_secret(what, trimmed)?;
    Ok(trimmed.to_owned())
}

/// Trimmed, lowercased, blank ones dropped, duplicates dropped (first kept); too many or too
/// long is refused.
pub(super) fn tags(tags: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for tag in tags {
        let tag = tag.trim().to_lowercase();
        if tag.is_empty() || out.contains(&tag) {
            continue;
        }
        let chars = tag.chars().count();
        if chars > MAX_TAG_CHARS {
            return Err(Error::InvalidInput(format!(
                "The tag “{}…” has {chars} characters; at most {MAX_TAG_CHARS}.",
                tag.chars().take(20).collect::<String>()
            )));
        }
        refuse_secret("A tag", &tag)?;
        out.push(tag);
    }
    if out.len() > MAX_TAGS {
        return Err(Error::InvalidInput(format!("A fact has at most {MAX_TAGS} tags; this one has {}.", out.len())));
    }
    Ok(out)
}

fn refuse_secret(what: &str, text: &str) -> Result<()> {
    match secret_kind(text) {
        Some(kind) => Err(Error::InvalidInput(format!(
            "{what} looks like it contains a secret ({kind}), so it was not saved. Secrets belong in \
             the keychain, never in memory: remove it and save again."
        ))),
        None => Ok(()),
    }
}

/// What kind of secret `text` seems to hold, if any. Hand-written rather than regexes: each
/// rule looks at "tokens" (runs of characters keys are made of) and is small.
pub(super) fn secret_kind(text: &str) -> Option<&'static str> {
    if let Some(begin) = text.find("-----BEGIN ") {
        let rest = &text[begin..];
        let line = rest.lines().next().unwrap_or(rest);
        if line.contains("PRIVATE KEY-----") {
            return Some("a private key");
        }
    }
    let tokens: Vec<&str> = text.split(|c: char| !is_token_char(c)).filter(|t| !t.is_empty()).collect();
    for (i, token) in tokens.iter().enumerate() {
        if let Some(kind) = token_kind(token) {
            return Some(kind);
        }
        let next = tokens.get(i + 1).copied().unwrap_or("");
        // `Bearer <token>` with a long random token (not "Bearer tokens are …").
        if token.eq_ignore_ascii_case("bearer") && looks_random(next, 20) {
            return Some("a bearer token");
        }
    }
    if url_with_password(text) {
        return Some("a password in a URL");
    }
    assigned_secret(text).then_some("a key, token or password assigned a value")
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+' | '/' | '=' | '~')
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// The length of the run of key characters at the start of `s`.
fn key_run(s: &str) -> usize {
    s.chars().take_while(|&c| is_key_char(c)).count()
}

fn token_kind(token: &str) -> Option<&'static str> {
    // Tokens may carry trailing sentence punctuation ("… sk-abc.").
    let token = token.trim_end_matches(['.', '/', '=', '+', '~']);
    if let Some(rest) = token.strip_prefix("sk-ant-") {
        return (key_run(rest) >= 20).then_some("an Anthropic API key (sk-ant-…)");
    }
    if let Some(rest) = token.strip_prefix("sk-") {
        return (key_run(rest) >= 20 && has_digit(rest)).then_some("an API key (sk-…)");
    }
    if let Some(rest) = token.strip_prefix("github_pat_") {
        return (key_run(rest) >= 20).then_some("a GitHub token");
    }
    for prefix in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"] {
        if let Some(rest) = token.strip_prefix(prefix) {
            if rest.chars().take_while(char::is_ascii_alphanumeric).count() >= 30 {
                return Some("a GitHub token");
            }
        }
    }
    for prefix in ["xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-"] {
        if let Some(rest) = token.strip_prefix(prefix) {
            if key_run(rest) >= 10 && has_digit(rest) {
                return Some("a Slack token");
            }
        }
    }
    for prefix in ["AKIA", "ASIA"] {
        if let Some(rest) = token.strip_prefix(prefix) {
            let id_chars = rest.chars().take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit()).count();
            if id_chars == 16 && rest.len() == 16 {
                return Some("an AWS access key id");
            }
        }
    }
    if let Some(rest) = token.strip_prefix("AIza") {
        return (key_run(rest) >= 30).then_some("a Google API key");
    }
    if token.starts_with("eyJ") {
        let parts: Vec<&str> = token.split('.').collect();
        if parts.len() == 3 && parts.iter().all(|p| p.len() >= 8 && p.chars().all(is_key_char)) {
            return Some("a JSON Web Token");
        }
    }
    None
}

fn has_digit(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_digit())
}

/// A long value with letters and digits and little repetition: what keys look like.
fn looks_random(value: &str, min_len: usize) -> bool {
    let value = value.trim_end_matches('.');
    value.len() >= min_len
        && value.chars().any(|c| c.is_ascii_alphabetic())
        && has_digit(value)
        && entropy_bits_per_char(value) >= 3.0
}

fn entropy_bits_per_char(s: &str) -> f64 {
    let mut counts = [0usize; 128];
    let mut total = 0usize;
    for b in s.bytes().filter(u8::is_ascii) {
        counts[b as usize] += 1;
        total += 1;
    }
    if total == 0 {
        return 0.0;
    }
    counts.iter().filter(|&&n| n > 0).map(|&n| n as f64 / total as f64).map(|p| -p * p.log2()).sum()
}

/// `scheme://user:password@host`.
fn url_with_password(text: &str) -> bool {
    text.match_indices("://").any(|(at, _)| {
        let rest = &text[at + 3..];
        let authority = rest.split(|c: char| c == '/' || c.is_whitespace()).next().unwrap_or("");
        match authority.rsplit_once('@') {
            Some((userinfo, host)) => {
                !host.is_empty() && userinfo.split_once(':').is_some_and(|(_, password)| !password.is_empty())
            }
            None => false,
        }
    })
}

const SECRET_NAMES: [&str; 6] = ["key", "token", "secret", "password", "passwd", "pwd"];

/// `api_key = "…"`, `password: …`, `GITHUB_TOKEN=…`, `clientSecret: …` with a long random value.
fn assigned_secret(text: &str) -> bool {
    text.match_indices(['=', ':']).any(|(at, _)| {
        let before = text[..at].trim_end().trim_end_matches(['"', '\'']);
        let name_len = before.chars().rev().take_while(|&c| is_key_char(c)).count();
        let name: String = before.chars().skip(before.chars().count() - name_len).collect();
        if !names_a_secret(&name) {
            return false;
        }
        let after = text[at + 1..].trim_start().trim_start_matches(['"', '\'']);
        // Passwords may hold any punctuation: the value runs to a space, quote or separator.
        let value: String = after.chars().take_while(|&c| !c.is_whitespace() && !"\"'`,;".contains(c)).collect();
        looks_random(&value, 16)
    })
}

/// The identifier ends in one of `SECRET_NAMES` at a word boundary (`api_key`, `apiKey`,
/// `GITHUB_TOKEN`, `password`), not inside a word (`monkey`).
fn names_a_secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_NAMES.iter().any(|secret| {
        if !lower.ends_with(secret) {
            return false;
        }
        let start = lower.len() - secret.len();
        start == 0
            || matches!(lower.as_bytes()[start - 1], b'_' | b'-')
            || name.as_bytes()[start].is_ascii_uppercase() && name.as_bytes()[start - 1].is_ascii_lowercase()
            || ["api", "access", "auth", "private", "client", "db"].iter().any(|p| lower[..start].ends_with(p))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separates() {
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(2_000), "2,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
    }

    #[test]
    fn names_of_secrets_are_found_at_word_boundaries() {
        for name in ["api_key", "apiKey", "GITHUB_TOKEN", "password", "clientSecret", "DB_PASSWD", "apikey"] {
            assert!(names_a_secret(name), "{name}");
        }
        for name in ["monkey", "turkey", "keyboard", "tokens", "name"] {
            assert!(!names_a_secret(name), "{name}");
        }
    }
}
