//! The argument rewrites of two broken variants, applied to a call before the harness sees it.
//!
//! `coerces-types` does what lenient harnesses (and lenient validators in "coerce" mode) do:
//! turn `"3"` into `3` and `"true"` into `true` where the schema asks for a number or a boolean,
//! and numbers into strings where it asks for a string. `drops-unknown-fields` does what a
//! harness that builds a typed object from the arguments does: fields the schema does not
//! declare are silently lost, and the call runs without them. Both follow `properties`,
//! `items`/`prefixItems` and nothing else, as such harnesses do.
//!
//! Three more variants rewrite calls the way real decoders do: `nulls-as-absent` drops
//! properties sent as `null` (keyword-argument plumbing that filters `None`),
//! `parses-arguments-leniently` reads arguments text like Python's `raw_decode` plus a second
//! decode of double-encoded JSON, and `folds-tool-names` looks tools up through a normalised
//! name.
//!
//! Arguments text that repeats a key has two readings, the first value's and the last's:
//! `parses-arguments-twice` validates one and hands the handler the other, and the legitimate
//! `keeps-last-duplicate-key` uses the last for both.

use serde_json::{Map, Number, Value};

/// The types a schema's `type` keyword allows (empty when it has none).
fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn matches_type(value: &Value, ty: &str) -> bool {
    match ty {
        "integer" => value.as_i64().is_some() || value.as_u64().is_some(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        _ => false,
    }
}

/// Converts `value` to the first type of `schema` it can be read as, the way a lenient
/// harness does; then recurses into objects and arrays.
pub(crate) fn coerce(value: &mut Value, schema: &Value) {
    let allowed = types(schema);
    if !allowed.is_empty() && !allowed.iter().any(|t| matches_type(value, t)) {
        if let Some(converted) = allowed.iter().find_map(|t| convert(value, t)) {
            *value = converted;
        }
    }
    descend(value, schema, coerce);
}

fn convert(value: &Value, ty: &str) -> Option<Value> {
    match (ty, value) {
        ("integer", Value::String(s)) => s.trim().parse::<i64>().ok().map(Value::from),
        ("integer", Value::Bool(b)) => Some(Value::from(i64::from(*b))),
        ("number", Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(|n| match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
                _ => Value::Number(n),
            }),
        ("number", Value::Bool(b)) => Some(Value::from(i64::from(*b))),
        ("boolean", Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => Some(Value::Bool(true)),
            "false" | "0" | "no" => Some(Value::Bool(false)),
            _ => None,
        },
        ("boolean", Value::Number(n)) => match n.as_u64() {
            Some(0) => Some(Value::Bool(false)),
            Some(1) => Some(Value::Bool(true)),
            _ => None,
        },
        ("string", Value::Number(n)) => Some(Value::String(n.to_string())),
        ("string", Value::Bool(b)) => Some(Value::String(b.to_string())),
        _ => None,
    }
}

/// Applies `f` to each property and item the schema describes.
fn descend(value: &mut Value, schema: &Value, f: fn(&mut Value, &Value)) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = schema.get("properties") {
                for (key, sub) in props {
                    if let Some(v) = map.get_mut(key) {
                        f(v, sub);
                    }
                }
            }
        }
        Value::Array(items) => {
            let prefix = schema
                .get("prefixItems")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            for (i, item) in items.iter_mut().enumerate() {
                if let Some(sub) = prefix.get(i) {
                    f(item, sub);
                } else if let Some(sub) = schema.get("items").filter(|s| s.is_object()) {
                    f(item, sub);
                }
            }
        }
        _ => {}
    }
}

/// Whether an object schema closes out undeclared fields, under harness-ref's policy:
/// `additionalProperties: false`, or no `additionalProperties` at all (objects are closed by
/// default) unless `patternProperties` or `unevaluatedProperties` opens it.
fn closes_object(schema: &Value) -> bool {
    match schema.get("additionalProperties") {
        Some(Value::Bool(false)) => true,
        Some(_) => false,
        None => {
            schema.get("patternProperties").is_none()
                && schema.get("unevaluatedProperties").is_none()
                && (schema.get("properties").is_some() || types(schema) == ["object"])
        }
    }
}

/// Removes the fields a closed object schema does not declare, at every level it describes.
pub(crate) fn strip_unknown(value: &mut Value, schema: &Value) {
    if let Value::Object(map) = value {
        if closes_object(schema) {
            let declared: Option<&Map<String, Value>> =
                schema.get("properties").and_then(Value::as_object);
            map.retain(|key, _| declared.is_some_and(|d| d.contains_key(key)));
        }
    }
    descend(value, schema, strip_unknown);
}

/// `folds-property-names`: a key that is not declared but equals a declared property's name
/// ignoring case is renamed to it (unless the declared name is also sent), at any depth.
pub(crate) fn fold_property_names(value: &mut Value, schema: &Value) {
    if let (Value::Object(map), Some(declared)) = (
        &mut *value,
        schema.get("properties").and_then(Value::as_object),
    ) {
        let renames: Vec<(String, String)> = map
            .keys()
            .filter(|key| !declared.contains_key(*key))
            .filter_map(|key| {
                let lower = key.to_lowercase();
                declared
                    .keys()
                    .find(|name| name.to_lowercase() == lower && !map.contains_key(*name))
                    .map(|name| (key.clone(), name.clone()))
            })
            .collect();
        for (from, to) in renames {
            if let Some(v) = map.remove(&from) {
                map.insert(to, v);
            }
        }
    }
    descend(value, schema, fold_property_names);
}

/// Removes every object property whose value is `null`, at any depth.
pub(crate) fn drop_nulls(value: &mut Value, _schema: &Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            for v in map.values_mut() {
                drop_nulls(v, &Value::Null);
            }
        }
        Value::Array(items) => {
            for v in items {
                drop_nulls(v, &Value::Null);
            }
        }
        _ => {}
    }
}

/// `repairs-strings-the-schema-accepts`: every nested string whose text is a JSON array or
/// object is decoded, wherever it is and whatever the schema says there (a blanket
/// `json.loads` over the arguments).
pub(crate) fn decode_json_strings(value: &mut Value, _schema: &Value) {
    match value {
        Value::String(text) => {
            if let Ok(decoded @ (Value::Array(_) | Value::Object(_))) =
                serde_json::from_str::<Value>(text)
            {
                *value = decoded;
            }
        }
        Value::Object(map) => map
            .values_mut()
            .for_each(|v| decode_json_strings(v, &Value::Null)),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| decode_json_strings(v, &Value::Null)),
        _ => {}
    }
}

/// Arguments text read leniently: the first JSON value, whatever follows it; a string that
/// holds a JSON object is decoded again. `None` when even that finds no object.
pub(crate) fn lenient_arguments(text: &str) -> Option<Value> {
    let first = serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .next()?
        .ok()?;
    match first {
        Value::String(inner) => match serde_json::from_str::<Value>(&inner) {
            Ok(object @ Value::Object(_)) => Some(object),
            _ => None,
        },
        object @ Value::Object(_) => Some(object),
        _ => None,
    }
}

/// `parses-arguments-twice`, `keeps-last-duplicate-key`: arguments text that repeats a key, as
/// a parser keeping each key's first value reads it and as one keeping its last value does
/// (serde_json, `JSON.parse`, Python's `json.loads`). `None` when the text is not JSON or both
/// readings agree.
pub(crate) fn duplicate_readings(text: &str) -> Option<(Value, Value)> {
    use serde::de::DeserializeSeed;
    let last: Value = serde_json::from_str(text).ok()?;
    let mut parser = serde_json::Deserializer::from_str(text);
    let first = FirstWins.deserialize(&mut parser).ok()?;
    (first != last).then_some((first, last))
}

/// A JSON value whose objects keep the first value of a repeated key.
struct FirstWins;

impl<'de> serde::de::DeserializeSeed<'de> for FirstWins {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for FirstWins {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(FirstWins)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(FirstWins)?;
            out.entry(key).or_insert(value);
        }
        Ok(Value::Object(out))
    }
}

/// `validates-without-refs`: a schema rewritten for a provider that rejects references
/// (google-gemini/gemini-cli #13326): `$defs` and `definitions` are dropped, and every subschema
/// that refers elsewhere (`$ref`, `$dynamicRef`) accepts anything.
pub(crate) fn strip_refs(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.contains_key("$ref") || map.contains_key("$dynamicRef") {
                map.clear();
                return;
            }
            map.remove("$defs");
            map.remove("definitions");
            for value in map.values_mut() {
                strip_refs(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_refs),
        _ => {}
    }
}

/// The registered name a folding harness finds for `name`, when it differs from `name`.
pub(crate) fn fold_tool_name<'a>(
    name: &str,
    registered: impl Iterator<Item = &'a str>,
) -> Option<String> {
    fn key(s: &str) -> String {
        s.trim().to_lowercase().replace('-', "_")
    }
    let wanted = key(name);
    registered
        .filter(|r| *r != name)
        .find(|r| key(r) == wanted)
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn coercion_converts_what_a_lenient_harness_converts() {
        let schema = json!({"type": "object", "properties": {
            "n": {"type": "integer"}, "x": {"type": "number"}, "b": {"type": "boolean"},
            "s": {"type": "string"}, "list": {"type": "array", "items": {"type": "integer"}},
            "keep": {"type": "integer"}}});
        let mut args =
            json!({"n": "3", "x": "2.5", "b": "true", "s": 42, "list": ["1", 2], "keep": "x"});
        coerce(&mut args, &schema);
        assert_eq!(
            args,
            json!({"n": 3, "x": 2.5, "b": true, "s": "42", "list": [1, 2], "keep": "x"})
        );
    }

    #[test]
    fn stripping_follows_closed_objects_only() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "object", "properties": {"b": {}}, "additionalProperties": false},
            "open": {"type": "object", "additionalProperties": true}}});
        let mut args = json!({"a": {"b": 1, "c": 2}, "open": {"z": 1}, "extra": 3});
        strip_unknown(&mut args, &schema);
        assert_eq!(args, json!({"a": {"b": 1}, "open": {"z": 1}}));
    }

    #[test]
    fn nulls_vanish_at_every_depth() {
        let mut args = json!({"a": null, "b": {"c": null, "d": 1}, "e": [{"f": null}]});
        drop_nulls(&mut args, &Value::Null);
        assert_eq!(args, json!({"b": {"d": 1}, "e": [{}]}));
    }

    #[test]
    fn lenient_reading_takes_the_first_value() {
        assert_eq!(
            lenient_arguments("{\"a\": 1} trailing"),
            Some(json!({"a": 1}))
        );
        assert_eq!(
            lenient_arguments("{\"a\": 1}{\"b\": 2}"),
            Some(json!({"a": 1}))
        );
        assert_eq!(
            lenient_arguments("\"{\\\"a\\\": 1}\""),
            Some(json!({"a": 1}))
        );
        assert_eq!(lenient_arguments("[1]"), None);
        assert_eq!(lenient_arguments("{\"a\": "), None);
    }

    #[test]
    fn names_fold_to_a_registered_tool() {
        let names = ["get_weather", "Other"];
        assert_eq!(
            fold_tool_name(" Get-Weather", names.into_iter()),
            Some("get_weather".into())
        );
        assert_eq!(fold_tool_name("get_weather", names.into_iter()), None);
        assert_eq!(fold_tool_name("nothing", names.into_iter()), None);
    }

    #[test]
    fn stripped_refs_accept_anything() {
        let mut schema = json!({"type": "object", "$defs": {"n": {"type": "integer"}},
            "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"items": [{"$dynamicRef": "#x"}]}}});
        strip_refs(&mut schema);
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {"a": {}, "b": {"items": [{}]}}})
        );
    }

    #[test]
    fn duplicate_readings_keep_the_first_and_the_last_value() {
        let (first, last) =
            duplicate_readings(r#"{"a": 1, "b": {"q": 2000, "q": 2}, "a": [3]}"#).unwrap();
        assert_eq!(first, json!({"a": 1, "b": {"q": 2000}}));
        assert_eq!(last, json!({"a": [3], "b": {"q": 2}}));
        assert_eq!(duplicate_readings(r#"{"a": 1, "a": 1}"#), None);
        assert_eq!(duplicate_readings(r#"{"a": 1, "b": 2}"#), None);
        assert_eq!(duplicate_readings(r#"{"a": 1,"#), None);
    }
}
