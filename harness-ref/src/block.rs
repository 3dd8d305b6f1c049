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
    pub(crate) id: Option<Field<'a>>,
    pub(crate) name: Option<Field<'a>>,
    pub(crate) kind: Option<Field<'a>>,
    pub(crate) input: Option<Cow<'a, Value>>,
    pub(crate) arguments: Option<Cow<'a, Value>>,
}

/// The value of `id`, `name` or `type`: a value of the call, or — read from text — a string
/// borrowed from the text itself (no `Value` built, nothing allocated for a string without
/// escapes). A `Str` is exactly the `Value::String` the text would have parsed to.
pub(crate) enum Field<'a> {
    Value(Cow<'a, Value>),
    Str(Cow<'a, str>),
}

impl<'a> Field<'a> {
    /// The string it holds, or the value when it is not one.
    pub(crate) fn str_or_value(&self) -> Result<&str, &Value> {
        match self {
            Field::Str(s) => Ok(s),
            Field::Value(value) => match value.as_ref() {
                Value::String(s) => Ok(s),
                other => Err(other),
            },
        }
    }

    /// The string it holds (moved out when owned), or the value back when it is not one.
    pub(crate) fn into_string(self) -> Result<String, Cow<'a, Value>> {
        match self {
            Field::Str(s) => Ok(s.into_owned()),
            Field::Value(value) => take_string(value),
        }
    }

    /// The value it is, as a `Value` (built only for error messages).
    pub(crate) fn to_value(&self) -> Cow<'_, Value> {
        match self {
            Field::Str(s) => Cow::Owned(Value::String(s.to_string())),
            Field::Value(value) => Cow::Borrowed(value.as_ref()),
        }
    }

    fn into_owned(self) -> Field<'static> {
        match self {
            Field::Str(s) => Field::Str(Cow::Owned(s.into_owned())),
            Field::Value(value) => Field::Value(Cow::Owned(value.into_owned())),
        }
    }
}

impl Fields<'_> {
    /// The same fields, owning what they borrowed from a call's text.
    fn into_owned(self) -> Fields<'static> {
        let owned = |v: Option<Cow<'_, Value>>| v.map(|v| Cow::Owned(v.into_owned()));
        Fields {
            id: self.id.map(Field::into_owned),
            name: self.name.map(Field::into_owned),
            kind: self.kind.map(Field::into_owned),
            input: owned(self.input),
            arguments: owned(self.arguments),
        }
    }
}

/// Stage::Parse for an owned call: the block's fields, moved out of the value (or parsed from
/// the text).
pub(crate) fn fields_of(call: Call) -> Result<Fields<'static>, Failure> {
    match call {
        Call::Value(value) => fields_of_value(value),
        Call::Text(text) => fields_of_text(&text).map(Fields::into_owned),
        Call::Bytes(bytes) => fields_of_text(utf8(&bytes)?).map(Fields::into_owned),
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
                fields.put(key, Cow::Borrowed(value));
            }
            Ok(fields)
        }
        CallRef::Text(text) => fields_of_text(text),
        CallRef::Bytes(bytes) => fields_of_text(utf8(bytes)?),
    }
}

/// Which of the read keys a key is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Id,
    Name,
    Type,
    Input,
    Arguments,
}

impl Key {
    #[inline(always)]
    fn of(key: &str) -> Option<Key> {
        match key {
            "id" => Some(Key::Id),
            "name" => Some(Key::Name),
            "type" => Some(Key::Type),
            "input" => Some(Key::Input),
            "arguments" => Some(Key::Arguments),
            _ => None,
        }
    }
}

impl<'a> Fields<'a> {
    /// Keeps `value` when `key` is one the harness reads (a later one replaces an earlier one).
    #[inline(always)]
    fn put(&mut self, key: &str, value: Cow<'a, Value>) {
        if let Some(key) = Key::of(key) {
            self.set(key, value);
        }
    }

    #[inline(always)]
    fn set(&mut self, key: Key, value: Cow<'a, Value>) {
        match key {
            Key::Id => self.id = Some(Field::Value(value)),
            Key::Name => self.name = Some(Field::Value(value)),
            Key::Type => self.kind = Some(Field::Value(value)),
            Key::Input => self.input = Some(value),
            Key::Arguments => self.arguments = Some(value),
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
        fields.put(&key, Cow::Owned(value));
    }
    Ok(fields)
}

/// Parses a block's text. An object is read key by key, keeping only the fields the harness
/// reads, so a call's text never becomes a whole `Value` tree to build and free; `id`, `name`
/// and `type` strings are borrowed from the text; anything else is parsed as a value and
/// refused. The same parser reads the same bytes in the same order as
/// `serde_json::from_str::<Value>`, and every value that is not a string is still parsed as a
/// `Value` (so number ranges, nesting depth and duplicate keys — the last one wins — behave
/// exactly as before): the outcomes and the error positions are the same.
fn fields_of_text(text: &str) -> Result<Fields<'_>, Failure> {
    let not_json =
        |e: serde_json::Error| Failure::malformed(messages::not_json("the tool call", &e));
    if !text
        .trim_start_matches([' ', '\t', '\n', '\r'])
        .starts_with('{')
    {
        let value: Value = serde_json::from_str(text).map_err(not_json)?;
        return fields_of_value(value);
    }
    // As `serde_json::from_str` does, but filling `fields` in place (no moves of the whole
    // set of fields through the parser's layers).
    let mut fields = Fields::default();
    let mut parser = serde_json::Deserializer::from_str(text);
    FillFields(&mut fields)
        .deserialize(&mut parser)
        .and_then(|()| parser.end())
        .map_err(not_json)?;
    Ok(fields)
}

/// Fills [`Fields`] from a block's text (strings borrowed where they can be, unread keys
/// parsed and dropped).
struct FillFields<'f, 'de>(&'f mut Fields<'de>);

impl<'de> DeserializeSeed<'de> for FillFields<'_, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FillFields<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tool_use block")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let fields = self.0;
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Some(Key::Id) => fields.id = Some(map.next_value_seed(FieldSeed)?),
                Some(Key::Name) => fields.name = Some(map.next_value_seed(FieldSeed)?),
                Some(Key::Type) => fields.kind = Some(map.next_value_seed(FieldSeed)?),
                Some(key) => fields.set(key, Cow::Owned(map.next_value()?)),
                None => {
                    map.next_value::<Value>()?;
                }
            }
        }
        Ok(())
    }
}

/// Reads a key without allocating it: which of the read fields it names, if any.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Option<Key>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Option<Key>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Key::of(key))
    }
}

/// Reads `id`, `name` or `type`: a string borrowed from the text when it has no escapes, any
/// other value parsed as `Value` exactly as `Value`'s own `Deserialize` does.
struct FieldSeed;

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Field<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FieldSeed {
    type Value = Field<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Borrowed(s)))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Owned(s)))
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Field<'de>, E> {
        Ok(owned(Value::Bool(b)))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Field<'de>, E> {
        Ok(owned(Value::from(n)))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Field<'de>, E> {
        Ok(owned(Value::from(n)))
    }

    fn visit_i128<E: de::Error>(self, n: i128) -> Result<Field<'de>, E> {
        Value::deserialize(de::value::I128Deserializer::new(n)).map(owned)
    }

    fn visit_u128<E: de::Error>(self, n: u128) -> Result<Field<'de>, E> {
        Value::deserialize(de::value::U128Deserializer::new(n)).map(owned)
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Field<'de>, E> {
        // As `Value`'s visitor: a float JSON cannot hold is `null`.
        Ok(owned(Value::from(n)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Field<'de>, E> {
        Ok(owned(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<Field<'de>, E> {
        Ok(owned(Value::Null))
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Field<'de>, D::Error> {
        Value::deserialize(deserializer).map(owned)
    }

    // Arrays and objects (and, with serde_json's `arbitrary_precision`, numbers) are handed to
    // `Value`'s own visitor, on the same parser.
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Field<'de>, A::Error> {
        Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(owned)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Field<'de>, A::Error> {
        Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(owned)
    }
}

fn owned(value: Value) -> Field<'static> {
    Field::Value(Cow::Owned(value))
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
fn take_string(value: Cow<'_, Value>) -> Result<String, Cow<'_, Value>> {
    match value {
        Cow::Owned(Value::String(s)) => Ok(s),
        Cow::Borrowed(Value::String(s)) => Ok(s.clone()),
        other => Err(other),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::{CallContext, Execution, Harness, HarnessConfig, Registry, Tool, ToolOutput};

    fn harness() -> Harness {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}});
        let tool = Tool::borrowing(
            "list",
            "List files.",
            schema,
            |args, _: &CallContext<'_>| Ok(ToolOutput::text(args.to_string())),
        );
        let mut registry = Registry::new();
        registry
            .register(tool.execution(Execution::Inline))
            .expect("the tool registers");
        Harness::new(registry, HarnessConfig::default())
    }

    /// A block read from text answers exactly as the `Value` `serde_json` parses from the same
    /// text does; text `serde_json` refuses is refused with `serde_json`'s own error (category
    /// and position). Strings are borrowed from the text, everything else parsed as a `Value`:
    /// these cases hold both kinds in each read field, escapes, duplicate keys, numbers out of
    /// range, nesting past the parser's limit, and broken text.
    #[test]
    fn text_answers_as_the_value_parsed_from_it() {
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let cases = [
            r#"{"id":"t1","name":"list","input":{"path":"src"}}"#.to_string(),
            r#"  {"type":"tool_use","id":"t1","name":"list","input":{}}"#.to_string(),
            r#"{"id":"t\"1\u00e9","name":"li\u0073t","input":{}}"#.to_string(),
            r#"{"id":"t1","name":"list","type":"tool\u005fuse","input":{}}"#.to_string(),
            r#"{"id":"","name":"list","input":{}}"#.to_string(),
            r#"{"id":"t1","name":"","input":{}}"#.to_string(),
            r#"{"id":7,"name":"list","input":{}}"#.to_string(),
            r#"{"id":-7,"name":"list","input":{}}"#.to_string(),
            r#"{"id":18446744073709551615,"name":"list","input":{}}"#.to_string(),
            r#"{"id":1.5e3,"name":"list","input":{}}"#.to_string(),
            r#"{"id":1e400,"name":"list","input":{}}"#.to_string(),
            r#"{"id":null,"name":"list","input":{}}"#.to_string(),
            r#"{"id":true,"name":"list","input":{}}"#.to_string(),
            r#"{"id":["a",{"b":[1,2.5,null]}],"name":"list","input":{}}"#.to_string(),
            r#"{"id":{"a":"b","a":"c"},"name":"list","input":{}}"#.to_string(),
            r#"{"id":"t1","name":{"n":"list"},"input":{}}"#.to_string(),
            r#"{"id":"t1","name":3,"name":"list","input":{}}"#.to_string(),
            r#"{"id":"t1","name":"nope","name":"list","input":{}}"#.to_string(),
            r#"{"id":"t1","id":"t2","name":"list","input":{}}"#.to_string(),
            r#"{"id":"t1","name":"list","type":"text","input":{}}"#.to_string(),
            r#"{"id":"t1","name":"list","type":3,"input":{}}"#.to_string(),
            r#"{"id":"t1","name":"list","type":[],"input":{}}"#.to_string(),
            r#"{"id":"t1","name":"list","type":"tool_use","type":"x","input":{}}"#.to_string(),
            r#"{"id":"t1","name":"list","input":{"path":1},"input":{"path":"b"}}"#.to_string(),
            r#"{"id":"t1","name":"list","arguments":"{\"path\":\"a\"}"}"#.to_string(),
            r#"{"id":"t1","name":"list","input":{},"arguments":"{}"}"#.to_string(),
            r#"{"cache_control":{"type":"ephemeral"},"id":"t1","name":"list","input":{}}"#
                .to_string(),
            r#"{"cache_control":1e400,"id":"t1","name":"list","input":{}}"#.to_string(),
            format!(r#"{{"id":{deep},"name":"list","input":{{}}}}"#),
            format!(r#"{{"id":"t1","name":{deep},"input":{{}}}}"#),
            format!(r#"{{"x":{deep},"id":"t1","name":"list","input":{{}}}}"#),
            r#"{"id":"t1","name":"list","input":{}} x"#.to_string(),
            r#"{"id":"t1","name":"list","input":{}"#.to_string(),
            r#"{"id":"t1","name":"list""#.to_string(),
            r#"{"id":"t1","name":tru,"input":{}}"#.to_string(),
            r#"{"id":"t1\u12"}"#.to_string(),
            r#"{"id" "t1"}"#.to_string(),
            r#"{"id":"t1",}"#.to_string(),
            "{}".to_string(),
            "[1]".to_string(),
            r#""a string""#.to_string(),
            String::new(),
        ];
        let h = harness();
        for text in &cases {
            let expected = match serde_json::from_str::<serde_json::Value>(text) {
                Ok(value) => h.handle(value),
                Err(e) => {
                    let refused = h.handle(text.as_str());
                    let message =
                        crate::messages::malformed(&crate::messages::not_json("the tool call", &e));
                    let info = refused.error().expect("refused");
                    assert_eq!(info.message, message, "{text}");
                    refused
                }
            };
            assert_eq!(h.handle(text.as_str()), expected, "owned text {text}");
            assert_eq!(
                h.handle_ref(text.as_str()),
                expected,
                "borrowed text {text}"
            );
            assert_eq!(h.handle(text.as_bytes()), expected, "owned bytes {text}");
            assert_eq!(
                h.handle_ref(text.as_bytes()),
                expected,
                "borrowed bytes {text}"
            );
        }
    }
}
