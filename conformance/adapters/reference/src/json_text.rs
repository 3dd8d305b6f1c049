//! Structured output as other harnesses write it: the JSON text of two legitimate variants.
//!
//! harness-ref sends a structured value as compact JSON. `pretty-json` sends it indented
//! (serde_json's pretty printer); `python-json` sends what Python's `json.dumps(value)` gives
//! with its defaults — `", "` and `": "` between items, every non-ASCII character escaped as
//! `\uXXXX` (UTF-16, lowercase hex). Both parse back to the same value (VOCAB-3), which is all
//! the suite may ask of structured output.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, Serializer};
use serde_json::Value;

/// `value` pretty-printed.
pub(crate) fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// `value` as Python's `json.dumps(value)` writes it.
pub(crate) fn python(value: &Value) -> String {
    let mut out = Vec::new();
    let written = value.serialize(&mut Serializer::with_formatter(&mut out, PythonStyle));
    match (written, String::from_utf8(out)) {
        (Ok(()), Ok(text)) => text,
        _ => value.to_string(),
    }
}

/// `json.dumps` defaults: `separators=(", ", ": ")`, `ensure_ascii=True`.
struct PythonStyle;

/// `", "` before every item but the first.
fn separate<W: ?Sized + Write>(writer: &mut W, first: bool) -> io::Result<()> {
    if first {
        Ok(())
    } else {
        writer.write_all(b", ")
    }
}

impl Formatter for PythonStyle {
    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        separate(writer, first)
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        separate(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut units = [0u16; 2];
        for c in fragment.chars() {
            if c.is_ascii() {
                writer.write_all(&[c as u8])?;
            } else {
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_defaults() {
        let value = json!({"a": [1, 2.5, null, true], "é": "x😀\n\"", "b": {}});
        let text = python(&value);
        assert_eq!(
            text,
            r#"{"a": [1, 2.5, null, true], "b": {}, "\u00e9": "x\ud83d\ude00\n\""}"#
        );
        assert!(text.is_ascii());
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }

    #[test]
    fn pretty_parses_back() {
        let value = json!({"a": [1, {"b": "é"}]});
        let text = pretty(&value);
        assert!(text.contains("\n  \"a\": [\n"));
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    }
}
