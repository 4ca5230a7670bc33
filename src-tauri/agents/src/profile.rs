//! Validation of what the user types into an agent's profile.

use clawboo_vocab::error::{Error, Result};

pub const MAX_HANDLE_CHARS: usize = 32;
pub const MAX_NAME_CHARS: usize = 80;
pub const MAX_DESCRIPTION_CHARS: usize = 1_000;
pub const MAX_MODEL_CHARS: usize = 200;

/// Handles with a meaning of their own in chat (`@user` raises an attention request).
const RESERVED_HANDLES: [&str; 4] = ["user", "all", "everyone", "team"];

/// Returns the handle without a leading `@`, or why it cannot be one.
pub fn validate_handle(raw: &str) -> Result<String> {
    let handle = raw.trim();
    let handle = handle.strip_prefix('@').unwrap_or(handle);
    if handle.is_empty() {
        return Err(Error::InvalidHandle("A handle is required, for example @researcher.".into()));
    }
    if handle.chars().count() > MAX_HANDLE_CHARS {
        return Err(Error::InvalidHandle(format!("A handle has at most {MAX_HANDLE_CHARS} characters.")));
    }
    if let Some(bad) = handle.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_')) {
        return Err(Error::InvalidHandle(format!(
            "@{handle} contains “{bad}”: a handle may use only letters, digits, '-' and '_'."
        )));
    }
    if RESERVED_HANDLES.iter().any(|r| r.eq_ignore_ascii_case(handle)) {
        return Err(Error::InvalidHandle(format!("@{handle} is reserved; choose another handle.")));
    }
    Ok(handle.to_owned())
}

pub fn validate_name(raw: &str) -> Result<String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(Error::InvalidInput("An agent needs a name.".into()));
    }
    check_length("A name", name, MAX_NAME_CHARS)?;
    Ok(name.to_owned())
}

pub fn validate_description(raw: &str) -> Result<String> {
    let description = raw.trim();
    check_length("A description", description, MAX_DESCRIPTION_CHARS)?;
    Ok(description.to_owned())
}

pub fn validate_model(raw: &str) -> Result<String> {
    let model = raw.trim();
    check_length("A model name", model, MAX_MODEL_CHARS)?;
    Ok(model.to_owned())
}

/// A tint is a `#rrggbb` colour; stored lower-case.
pub fn validate_tint(raw: &str) -> Result<String> {
    let tint = raw.trim();
    let hex = tint.strip_prefix('#').unwrap_or("");
    if hex.len() == 6 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
        Ok(format!("#{}", hex.to_ascii_lowercase()))
    } else {
        Err(Error::InvalidInput(format!("“{tint}” is not a colour; use the form #7c5cff.")))
    }
}

fn check_length(what: &str, value: &str, max: usize) -> Result<()> {
    if value.chars().count() > max {
        return Err(Error::InvalidInput(format!("{what} has at most {max} characters.")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawboo_vocab::error::ErrorCode;

    #[test]
    fn handles_accept_letters_digits_dash_underscore() {
        assert_eq!(validate_handle("research-bot_2").unwrap(), "research-bot_2");
        assert_eq!(validate_handle("  @Writer ").unwrap(), "Writer");
    }

    #[test]
    fn handles_refuse_everything_else_with_a_reason() {
        for bad in ["", "@", "two words", "dot.ted", "slash/y", "émile", "a@b", "x".repeat(33).as_str()] {
            let err = validate_handle(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidHandle, "{bad:?}");
            assert!(!err.to_string().is_empty());
        }
        assert!(validate_handle("dot.ted").unwrap_err().to_string().contains("“.”"));
    }

    #[test]
    fn reserved_handles_are_refused_in_any_case() {
        assert_eq!(validate_handle("USER").unwrap_err().code(), ErrorCode::InvalidHandle);
    }

    #[test]
    fn tints_are_hex_colours() {
        assert_eq!(validate_tint("#7C5CFF").unwrap(), "#7c5cff");
        for bad in ["7c5cff", "#7c5cf", "#zzzzzz", "red"] {
            assert_eq!(validate_tint(bad).unwrap_err().code(), ErrorCode::InvalidInput, "{bad}");
        }
    }

    #[test]
    fn names_are_required_and_bounded() {
        assert_eq!(validate_name("  Ada ").unwrap(), "Ada");
        assert!(validate_name("   ").is_err());
        assert!(validate_name(&"n".repeat(81)).is_err());
    }
}
