//! Duplicate keys in arguments text.
//!
//! JSON text may repeat a key in one object (`{"amount": 5000, "amount": 5}`); RFC 8259 leaves
//! the meaning to the parser, and parsers disagree: most keep the last value, some the first,
//! some keep both. A harness whose validator and handler read the text with different parsers
//! runs the handler with a value that was never validated (a parser differential). The
//! reference refuses such text as a malformed call, so every reader of the arguments sees the
//! same value (SPEC.md CALL-10, VAL-11).
//!
//! `serde_json::Value` keeps the last value silently, so the check is a second pass over text
//! already known to parse: a visitor that reads only keys and nesting, and stops at the first
//! key an object repeats.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// The first repeated key in `text`, as the pointer of the object holding it and the key, when
/// the text parses and repeats one. Text that does not parse has no duplicate (its parse error
/// is reported elsewhere).
pub(crate) fn first_duplicate(text: &str) -> Option<(String, String)> {
    let mut found = None;
    let mut parser = serde_json::Deserializer::from_str(text);
    // An error is either the duplicate found (recorded in `found`) or text that does not
    // parse; both end the pass.
    let _ = Check {
        pointer: String::new(),
        found: &mut found,
    }
    .deserialize(&mut parser);
    found
}

/// Reads one value, recording the first repeated key under `pointer`.
struct Check<'f> {
    pointer: String,
    found: &'f mut Option<(String, String)>,
}

impl<'de> DeserializeSeed<'de> for Check<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Check<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        loop {
            let pointer = format!("{}/{i}", self.pointer);
            let item = Check {
                pointer,
                found: &mut *self.found,
            };
            if seq.next_element_seed(item)?.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                *self.found = Some((self.pointer, key));
                return Err(de::Error::custom("duplicate key"));
            }
            let pointer = format!("{}/{}", self.pointer, escape(&key));
            map.next_value_seed(Check {
                pointer,
                found: &mut *self.found,
            })?;
            seen.insert(key);
        }
        Ok(())
    }
}

/// A key as an RFC 6901 reference token.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_repeated_key_and_its_object() {
        let at = |text: &str| first_duplicate(text);
        assert_eq!(
            at(r#"{"amount": 5000, "amount": 5}"#),
            Some((String::new(), "amount".into()))
        );
        assert_eq!(
            at(r#"{"order": {"qty": 1, "a/b": 2, "qty": 9}}"#),
            Some(("/order".into(), "qty".into()))
        );
        assert_eq!(
            at(r#"{"items": [{"x": 1}, {"x~": 1, "x~": 2}]}"#),
            Some(("/items/1".into(), "x~".into()))
        );
        // An escaped spelling of the same key is the same key.
        assert_eq!(
            at(r#"{"a": 1, "\u0061": 2}"#),
            Some((String::new(), "a".into()))
        );
    }

    #[test]
    fn distinct_keys_and_non_json_have_none() {
        assert_eq!(
            first_duplicate(r#"{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}"#),
            None
        );
        assert_eq!(first_duplicate(r#"{"a": 1,"#), None);
        assert_eq!(first_duplicate("[1, 2, 2]"), None);
    }
}
