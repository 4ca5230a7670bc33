//! The types of the tools' arguments: each checks itself as it is deserialized (sizes are
//! refused, never cut) and says what it looks like in a schema. Messages name the tool and the
//! argument through [`AT`] and [`NEEDS`] (see [`super::args`]).

use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{Deserialize, Deserializer, Error as _};
use serde::Serialize;
use serde_json::Value;

use super::args::{AT, NEEDS, TOOL};
use crate::memory::{MAX_TAGS, MAX_TAG_CHARS};

/// The argument as sent: `None` when it is absent or null.
pub(crate) fn sent<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Option::<Value>::deserialize(d)
}

/// Its schema as written, inline where it is used (never a `$ref`).
macro_rules! inline_schema {
    ($name:literal, $schema:tt) => {
        fn inline_schema() -> bool {
            true
        }
        fn schema_name() -> Cow<'static, str> {
            Cow::Borrowed($name)
        }
        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!($schema)
        }
    };
}

/// A non-blank text of at most `MAX` bytes (a hand-off's task, a peer post), as sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Text<const MAX: usize>(pub String);

impl<'de, const MAX: usize> Deserialize<'de> for Text<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match sent(d)? {
            Some(Value::String(s)) if s.trim().is_empty() => Err(D::Error::custom(format!("{AT} is empty."))),
            Some(Value::String(s)) if s.len() > MAX => {
                Err(D::Error::custom(format!("{AT} is {} bytes; at most {MAX} are taken.", s.len())))
            }
            Some(Value::String(s)) => Ok(Self(s)),
            None => Err(D::Error::custom(format!("{NEEDS} (a string)."))),
            Some(_) => Err(D::Error::custom(format!("{AT} must be a string."))),
        }
    }
}

impl<const MAX: usize> JsonSchema for Text<MAX> {
    inline_schema!("Text", {"type": "string"});
}

/// A [`Text`] trimmed: an id, a handle, a cron expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Trimmed<const MAX: usize>(pub String);

impl<'de, const MAX: usize> Deserialize<'de> for Trimmed<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Text::<MAX>::deserialize(d).map(|t| Self(t.0.trim().to_owned()))
    }
}

impl<const MAX: usize> JsonSchema for Trimmed<MAX> {
    inline_schema!("Trimmed", {"type": "string"});
}

/// A non-blank text of at most `MAX` chars (a fact, a note, a comment), as sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Chars<const MAX: usize>(pub String);

impl<'de, const MAX: usize> Deserialize<'de> for Chars<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = Text::<{ usize::MAX }>::deserialize(d)?.0;
        at_most_chars::<D::Error>(&text, MAX)?;
        Ok(Self(text))
    }
}

impl<const MAX: usize> JsonSchema for Chars<MAX> {
    inline_schema!("Chars", {"type": "string"});
}

/// A text of at most `MAX` chars that may be blank (a description can be cleared), as sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct LongText<const MAX: usize>(pub String);

impl<'de, const MAX: usize> Deserialize<'de> for LongText<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match sent(d)? {
            Some(Value::String(s)) => {
                at_most_chars::<D::Error>(&s, MAX)?;
                Ok(Self(s))
            }
            _ => Err(D::Error::custom(format!("{AT} must be a string."))),
        }
    }
}

impl<const MAX: usize> JsonSchema for LongText<MAX> {
    inline_schema!("LongText", {"type": "string"});
}

fn at_most_chars<E: serde::de::Error>(text: &str, max: usize) -> Result<(), E> {
    let chars = text.chars().count();
    if chars > max {
        return Err(E::custom(format!(
            "{AT} is {chars} characters; at most {max} are taken (nothing was saved or cut)."
        )));
    }
    Ok(())
}

/// How many of something: a whole number from 1 to `MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Limit<const MAX: u64>(pub u64);

impl<'de, const MAX: u64> Deserialize<'de> for Limit<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        sent(d)?
            .and_then(|v| v.as_u64())
            .filter(|n| (1..=MAX).contains(n))
            .map(Self)
            .ok_or_else(|| D::Error::custom(format!("{AT} must be a whole number from 1 to {MAX}.")))
    }
}

impl<const MAX: u64> JsonSchema for Limit<MAX> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("Limit")
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "integer", "minimum": 1, "maximum": MAX})
    }
}

/// A card's number: a whole number from 1, or a string like "#12" or "12".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct CardNumber(pub u32);

impl<'de> Deserialize<'de> for CardNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let number = match sent(d)? {
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) => s.trim().trim_start_matches('#').parse::<u64>().ok(),
            None => return Err(D::Error::custom(format!("{NEEDS} (the card's number, e.g. 12)."))),
            Some(_) => None,
        };
        number
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| *n > 0)
            .map(Self)
            .ok_or_else(|| D::Error::custom(format!("{AT} must be a card's number, e.g. 12 for #12.")))
    }
}

impl JsonSchema for CardNumber {
    inline_schema!("CardNumber", {"type": "integer", "minimum": 1});
}

/// A period in minutes: a whole number from 1 to `MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Minutes<const MAX: u64>(pub u64);

impl<'de, const MAX: u64> Deserialize<'de> for Minutes<MAX> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        sent(d)?
            .and_then(|v| v.as_u64())
            .filter(|n| (1..=MAX).contains(n))
            .map(Self)
            .ok_or_else(|| D::Error::custom(format!("{AT} is a whole number of minutes, at least 1.")))
    }
}

impl<const MAX: u64> JsonSchema for Minutes<MAX> {
    inline_schema!("Minutes", {"type": "integer", "minimum": 1});
}

/// True or false.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Flag(pub bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match sent(d)? {
            Some(Value::Bool(on)) => Ok(Self(on)),
            _ => Err(D::Error::custom(format!("{AT} is true or false."))),
        }
    }
}

impl JsonSchema for Flag {
    inline_schema!("Flag", {"type": "boolean"});
}

/// Short topic words: at most [`MAX_TAGS`] non-empty strings of at most [`MAX_TAG_CHARS`]
/// chars, trimmed. Absent: none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Tags(pub Vec<String>);

impl<'de> Deserialize<'de> for Tags {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let list = match sent(d)? {
            None => return Ok(Self::default()),
            Some(Value::Array(list)) => list,
            Some(_) => return Err(D::Error::custom(format!("{AT} must be a list of strings."))),
        };
        if list.len() > MAX_TAGS {
            return Err(D::Error::custom(format!("{TOOL}: {} tags; at most {MAX_TAGS} are taken.", list.len())));
        }
        list.iter()
            .enumerate()
            .map(|(i, tag)| match tag.as_str().map(str::trim) {
                Some("") => Err(D::Error::custom(format!("{TOOL}: tag {} is empty.", i + 1))),
                Some(t) if t.chars().count() > MAX_TAG_CHARS => {
                    Err(D::Error::custom(format!("{TOOL}: tag {} is longer than {MAX_TAG_CHARS} characters.", i + 1)))
                }
                Some(t) => Ok(t.to_owned()),
                None => Err(D::Error::custom(format!("{AT} must be a list of strings."))),
            })
            .collect::<Result<_, _>>()
            .map(Self)
    }
}

impl JsonSchema for Tags {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("Tags")
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "array", "items": {"type": "string"}, "maxItems": MAX_TAGS})
    }
}

/// One of a few words, trimmed: an enum whose variants are named by their wire words. `missing`
/// is the message when a required one is absent.
macro_rules! choice {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($variant:ident = $word:literal),+ $(,)? } missing = $missing:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name { $($variant),+ }

        impl $name {
            /// Every choice, in the order the schema lists them.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// Its word on the wire.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $word),+ }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use ::serde::de::Error as _;
                use $crate::tools::args::{AT, NEEDS};
                let quoted = || [$(concat!("\"", $word, "\"")),+].join(", ");
                match $crate::tools::fields::sent(d)? {
                    Some(::serde_json::Value::String(s)) => Self::ALL
                        .iter()
                        .find(|c| c.as_str() == s.trim())
                        .copied()
                        .ok_or_else(|| D::Error::custom(format!("{AT} must be one of {}.", quoted()))),
                    None => Err(D::Error::custom(format!("{NEEDS} {}.", $missing))),
                    Some(_) => Err(D::Error::custom(format!("{AT} must be a string, one of {}.", quoted()))),
                }
            }
        }

        impl ::schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(stringify!($name))
            }
            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                ::schemars::json_schema!({"type": "string", "enum": [$($word),+]})
            }
        }
    };
}
pub(crate) use choice;
