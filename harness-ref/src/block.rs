//! Stage::Parse: the fields of a tool_use block, read from whatever form the call arrived in.
//!
//! The harness reads five keys of a block (`id`, `name`, `type`, `input`, `arguments`) and
//! ignores the rest. Reading only those is most of what makes dispatch cheap: an owned value
//! is taken apart in one pass, a borrowed one ([`crate::CallRef`]) is read in place without a
//! copy, and text is parsed key by key without building (and freeing) a `Value` for the
//! whole block. The three routes yield the same [`Fields`], so every later stage, and every
//! result, is the same whichever form the call took.

// A refused call's whole answer travels in the `Err` side, as in `harness.rs`.
#![allow(clippy::result_large_err)]

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use crate::harness::{Call, CallRef, Failure};
use crate::messages;

/// The fields of a tool_use block the harness reads, owned or borrowed like the call; other
/// keys (`cache_control`, ...) are not kept.
#[derive(Default)]
pub(crate) struct Fields<'a> {
    pub(crate) id: Option<Cow<'a, Value>>,
    pub(crate) name: Option<Cow<'a, Value>>,
    pub(crate) kind: Option<Cow<'a, Value>>,
    pub(crate) input: Option<Cow<'a, Value>>,
    pub(crate) arguments: Option<Cow<'a, Value>>,
}

/// Stage::Parse for an owned call: the block's fields, moved out of the value (or parsed from
/// the text).
pub(crate) fn fields_of(call: Call) -> Result<Fields<'static>, Failure> {
    match call {
        Call::Value(value) => fields_of_value(value),
        Call::Text(text) => fields_of_text(&text),
        Call::Bytes(bytes) => fields_of_text(utf8(&bytes)?),
    }
}

/// Stage::Parse for a borrowed call: the block's fields, borrowed from the value (or parsed from
/// the text).
pub(crate) fn fields_of_ref(call: CallRef<'_>) -> Result<Fields<'_>, Failure> {
    match call {
        CallRef::Value(value) => {
            let Value::Object(block) = value else {
                return Err(not_an_object(value));
            };
            let mut fields = Fields::default();
            for (key, value) in block {
                if let Some(slot) = fields.slot(key) {
                    *slot = Some(Cow::Borrowed(value));
                }
            }
            Ok(fields)
        }
        CallRef::Text(text) => fields_of_text(text),
        CallRef::Bytes(bytes) => fields_of_text(utf8(bytes)?),
    }
}

/// The keys [`Fields`] holds; other keys are not kept.
const READ_KEYS: [&str; 5] = ["id", "name", "type", "input", "arguments"];

impl<'a> Fields<'a> {
    /// Where the value of `key` goes; `None` for keys the harness does not read.
    fn slot(&mut self, key: &str) -> Option<&mut Option<Cow<'a, Value>>> {
        match key {
            "id" => Some(&mut self.id),
            "name" => Some(&mut self.name),
            "type" => Some(&mut self.kind),
            "input" => Some(&mut self.input),
            "arguments" => Some(&mut self.arguments),
            _ => None,
        }
    }
}

fn fields_of_value(value: Value) -> Result<Fields<'static>, Failure> {
    let Value::Object(block) = value else {
        return Err(not_an_object(&value));
    };
    // One pass over the block (cheaper than a lookup and removal per key).
    let mut fields = Fields::default();
    for (key, value) in block {
        if let Some(slot) = fields.slot(&key) {
            *slot = Some(Cow::Owned(value));
        }
    }
    Ok(fields)
}

/// Parses a block's text. An object is read key by key, keeping only the fields the harness
/// reads, so a call's text never becomes a whole `Value` tree to build and free; anything else
/// is parsed as a value and refused. The same parser reads the same bytes in the same order
/// as `serde_json::from_str::<Value>`, and every value is still parsed as a `Value` (so number
/// ranges, nesting depth and duplicate keys — the last one wins — behave exactly as before):
/// the outcomes and the error positions are the same.
fn fields_of_text(text: &str) -> Result<Fields<'static>, Failure> {
    let not_json =
        |e: serde_json::Error| Failure::malformed(messages::not_json("the tool call", &e));
    if !text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('{')
    {
        let value: Value = serde_json::from_str(text).map_err(not_json)?;
        return fields_of_value(value);
    }
    serde_json::from_str::<TextFields>(text)
        .map(|parsed| parsed.0)
        .map_err(not_json)
}

/// [`Fields`] parsed from text (owned values, unread keys parsed and dropped).
struct TextFields(Fields<'static>);

impl<'de> Deserialize<'de> for TextFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(FieldsVisitor)
    }
}

struct FieldsVisitor;

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = TextFields;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tool_use block")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TextFields, A::Error> {
        let mut fields = Fields::default();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let value: Value = map.next_value()?;
            if let Some(slot) = key.and_then(|key| fields.slot(key)) {
                *slot = Some(Cow::Owned(value));
            }
        }
        Ok(TextFields(fields))
    }
}

/// Reads a key without allocating it: which of the read fields it names, if any.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Option<&'static str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Option<&'static str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(READ_KEYS.iter().copied().find(|k| *k == key))
    }
}

fn utf8(bytes: &[u8]) -> Result<&str, Failure> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        Failure::malformed(format!("not valid UTF-8 (at byte {at})"))
    })
}

fn not_an_object(value: &Value) -> Failure {
    Failure::malformed(format!(
        "expected a JSON object, got {}",
        crate::schema::describe_received(value)
    ))
}

/// The string a value holds (moved out when owned), or the value back when it is not one.
pub(crate) fn take_string(value: Cow<'_, Value>) -> Result<String, Cow<'_, Value>> {
    match value {
        Cow::Owned(Value::String(s)) => Ok(s),
        Cow::Borrowed(Value::String(s)) => Ok(s.clone()),
        other => Err(other),
    }
}
