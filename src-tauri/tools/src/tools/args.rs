//! Each tool's arguments are one struct: the JSON schema every runtime is sent is derived from
//! it (its doc comments are the descriptions), and parsing a call's arguments is deserializing
//! into it, then [`ToolArgs::check`] for what a schema cannot say. The schema and the checks
//! cannot drift apart.
//!
//! Arguments are untrusted model output. Each field's type ([`super::fields`]) carries its own
//! check and message (a text's size, a number's range, a choice); the message names the tool
//! and the argument, so the model can fix its call.

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::ToolName;

/// A tool's arguments, as the model sends them.
pub trait ToolArgs: DeserializeOwned + schemars::JsonSchema {
    const TOOL: ToolName;

    /// What the schema cannot say (exactly one of three fields, defaults). `Err` is a message
    /// for the model.
    fn check(self) -> Result<Self, String> {
        Ok(self)
    }
}

/// In a field type's message, the tool's name: filled in by [`parse`].
pub(crate) const TOOL: &str = "{tool}";
/// In a field type's message, the argument's name: filled in by [`parse`].
pub(crate) const FIELD: &str = "{field}";
/// How most field messages start: `memory_save: "text"`.
pub(crate) const AT: &str = "{tool}: \"{field}\"";
/// How a missing argument's message starts: `memory_save needs "text"`.
pub(crate) const NEEDS: &str = "{tool} needs \"{field}\"";

/// The arguments of a call of `A`'s tool: a JSON object (or nothing) with only `A`'s fields,
/// each of its type; a null is an absent argument. `Err` is a message for the model.
pub fn parse<A: ToolArgs>(args: Value) -> Result<A, String> {
    let tool = A::TOOL.as_str();
    let map = match args {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        _ => return Err(format!("{tool}: the arguments must be a JSON object.")),
    };
    A::deserialize(Arguments { tool, map }).map_err(|e| e.to_string())?.check()
}

/// A call's arguments, handed to a derived `Deserialize` one declared field after the other.
/// Every field is visited, present or not (an absent one as null), so each field's type says
/// itself what its absence means, and every message can name its argument.
struct Arguments {
    tool: &'static str,
    map: Map<String, Value>,
}

impl<'de> Deserializer<'de> for Arguments {
    type Error = serde_json::Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if let Some(unknown) = self.map.keys().find(|k| !fields.contains(&k.as_str())) {
            return Err(de::Error::custom(format!(
                "{}: unknown argument \"{unknown}\" (it takes {}).",
                self.tool,
                fields.join(", ")
            )));
        }
        visitor.visit_map(Fields { tool: self.tool, map: self.map, fields: fields.iter(), current: "" })
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom(format!("{}: the arguments are not a set of named fields.", self.tool)))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

struct Fields {
    tool: &'static str,
    map: Map<String, Value>,
    fields: std::slice::Iter<'static, &'static str>,
    current: &'static str,
}

impl<'de> MapAccess<'de> for Fields {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        let Some(field) = self.fields.next() else { return Ok(None) };
        self.current = field;
        seed.deserialize((*field).into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        let value = self.map.remove(self.current).unwrap_or(Value::Null);
        seed.deserialize(value).map_err(|e| de::Error::custom(message(&e.to_string(), self.tool, self.current)))
    }
}

/// A field type's message with the tool and the argument named: its own [`TOOL`] and
/// [`FIELD`], or a serde message put after them.
fn message(raw: &str, tool: &str, field: &str) -> String {
    if raw.contains(TOOL) {
        raw.replace(TOOL, tool).replace(FIELD, field)
    } else {
        format!("{tool}: \"{field}\" {raw}.")
    }
}

/// `A`'s description (its doc comment) and the JSON schema of its arguments, as every runtime
/// takes them: an object with inline `properties` (no `$schema`, `title` or `$ref`), a
/// description's wrapped lines joined into one, and no `null` among an argument's types (a null
/// is taken as an absent argument, as the schema's optional fields say).
pub fn derive<A: ToolArgs>() -> (String, Value) {
    let mut settings = schemars::generate::SchemaSettings::draft07();
    settings.meta_schema = None;
    settings.inline_subschemas = true;
    let mut schema = settings.into_generator().into_root_schema_for::<A>().to_value();
    let root = schema.as_object_mut().expect("a tool's arguments are an object");
    root.remove("title");
    // Sent with every request, for every tool: an unknown argument is refused by the check with
    // a message naming the ones it takes, so the schema need not say it each time.
    root.remove("additionalProperties");
    let description = match root.remove("description") {
        Some(Value::String(text)) => unwrap_lines(&text),
        _ => String::new(),
    };
    for property in root.get_mut("properties").and_then(Value::as_object_mut).into_iter().flat_map(|p| p.values_mut()) {
        tidy(property);
    }
    (description, schema)
}

/// An argument's schema as sent: its description on one line, no `null` type or choice, no
/// `default` (the description says it).
fn tidy(schema: &mut Value) {
    let Some(schema) = schema.as_object_mut() else { return };
    schema.remove("default");
    if let Some(Value::String(text)) = schema.get_mut("description") {
        *text = unwrap_lines(text);
    }
    if let Some(Value::Array(types)) = schema.get("type") {
        let types: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        let single = if types.len() == 1 { types[0].clone() } else { Value::Array(types) };
        schema.insert("type".into(), single);
    }
    if let Some(Value::Array(choices)) = schema.get_mut("enum") {
        choices.retain(|c| !c.is_null());
    }
}

/// A doc comment's text as one paragraph: its lines (wrapped for the source) joined by spaces.
fn unwrap_lines(text: &str) -> String {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ")
}
