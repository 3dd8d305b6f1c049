//! Whether a success's content faithfully represents a structured output: the
//! `represents_output` check (SPEC.md VOCAB-5).
//!
//! A handler in a dynamic language returns its own objects — a set, bytes, a date, an object of
//! some class, a value containing itself — and its harness must either refuse them visibly or
//! turn them into JSON that still holds what the handler returned. Several conversions are
//! correct (a set as an array in any order, bytes as base64 or hex or a list of numbers, a
//! date as RFC 3339 text or epoch seconds), so the check accepts each of them (the fairness
//! rule) and refuses only what loses or invents information: a language's debug text
//! (`"{1, 2, 3}"`, `"<Handle object at 0x…>"`), an empty placeholder (`{}`), `null` for NaN.
//! A cycle has no JSON form, but writing the back reference as a marker string with the rest
//! of the value intact is a design real harnesses chose on purpose, so it passes; what fails
//! is losing the rest, or the whole turn. The content must parse as strict RFC 8259 JSON (serde_json: no `NaN`, no
//! comments, no trailing commas), so a bare `NaN` literal fails too.
//!
//! Pure: it compares texts and values and returns the reason it failed.

use harness_conformance_protocol::{script, NonJson, Output};

use crate::checks::json_equal;
use serde_json::Value;

/// What a structured output is, as the check needs it.
#[derive(Debug, Clone, PartialEq)]
pub enum Represented {
    /// A JSON value: the content must parse back to it.
    Json(Value),
    /// A JSON value with values JSON has no form for at pointers inside it.
    NonJson(Value, Vec<(String, NonJson)>),
    /// A non-finite float somewhere: JSON has no faithful form for it.
    NonFinite,
}

impl Represented {
    /// The structured output `output` stands for, if it is one.
    pub fn of(output: &Output) -> Option<Represented> {
        Some(match output {
            Output::Json(v) => Represented::Json(v.clone()),
            Output::NonJson(n) => Represented::NonJson(
                n.value.clone(),
                n.at.iter().map(|(p, k)| (p.clone(), *k)).collect(),
            ),
            Output::NonFinite(_) | Output::NonFiniteIn(_) => Represented::NonFinite,
            _ => return None,
        })
    }
}

/// `Ok` when `content` is strict JSON that holds `want` faithfully; otherwise what was
/// expected, in words, for the failure message.
pub fn check(want: &Represented, content: &str) -> Result<(), String> {
    let parsed: Value = serde_json::from_str(content)
        .map_err(|e| format!("content that parses as strict RFC 8259 JSON (it does not: {e})"))?;
    match want {
        Represented::NonFinite => Err(
            "an error result: NaN and infinity have no JSON form (null or a string is another value)"
                .to_owned(),
        ),
        Represented::Json(v) => {
            if json_equal(&parsed, v) {
                Ok(())
            } else {
                Err("JSON equal to the handler's value".to_owned())
            }
        }
        Represented::NonJson(value, at) => {
            let mut rest_got = parsed.clone();
            let mut rest_want = value.clone();
            for (pointer, kind) in at {
                let got = parsed.pointer(pointer);
                if !got.is_some_and(|g| faithful(*kind, g)) {
                    return Err(format!(
                        "an error result, or at {} {}",
                        if pointer.is_empty() { "the root" } else { pointer },
                        forms(*kind)
                    ));
                }
                // The places are judged; the rest must be the value around them.
                let _ = script::set_pointer(&mut rest_got, pointer, Value::Null);
                let _ = script::set_pointer(&mut rest_want, pointer, Value::Null);
            }
            if json_equal(&rest_got, &rest_want) {
                Ok(())
            } else {
                Err("the rest of the value as the handler returned it".to_owned())
            }
        }
    }
}

/// The faithful forms of `kind`, in words.
fn forms(kind: NonJson) -> &'static str {
    match kind {
        NonJson::Cycle => "a marker string standing for the back reference (`\"[Circular]\"`)",
        NonJson::Set => "the set {1, 2, 3} as an array of its members (any order)",
        NonJson::Bytes => {
            "the bytes 00 FF 41 as base64 (\"AP9B\"), hex (\"00ff41\"), a data URI, or an array or index-keyed object of the numbers 0, 255, 65"
        }
        NonJson::Date => {
            "the instant 2024-01-02T03:04:05Z as date-time text saying its zone, or 1704164645 seconds (or milliseconds) since the epoch"
        }
        NonJson::Opaque => "nothing: an object whose state is private has no JSON form",
        _ => "nothing the suite knows",
    }
}

/// Whether `got` is a faithful JSON form of `kind`'s fixed contents.
pub fn faithful(kind: NonJson, got: &Value) -> bool {
    match kind {
        NonJson::Set => match got {
            Value::Array(items) => {
                let mut members: Vec<i64> = items.iter().filter_map(exact_int).collect();
                members.sort_unstable();
                members.len() == items.len() && members == NonJson::SET_MEMBERS
            }
            _ => false,
        },
        NonJson::Bytes => bytes_of(got).as_deref() == Some(&NonJson::BYTES[..]),
        // The back reference written as a marker (mastra, n8n): the rest of the value must
        // still be there, which the caller checks.
        NonJson::Cycle => got.is_string(),
        NonJson::Date => match got {
            Value::String(s) => is_the_date(s),
            Value::Number(_) => {
                let s = NonJson::DATE_UNIX_SECONDS;
                exact_int(got).is_some_and(|n| n == s || n == s * 1000)
            }
            _ => false,
        },
        _ => false,
    }
}

fn exact_int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                .map(|f| f as i64)
        }),
        _ => None,
    }
}

/// The bytes a JSON value encodes, in any of the encodings real encoders use.
fn bytes_of(v: &Value) -> Option<Vec<u8>> {
    let numbers = |items: &[Value]| -> Option<Vec<u8>> {
        items
            .iter()
            .map(|i| exact_int(i).and_then(|n| u8::try_from(n).ok()))
            .collect()
    };
    match v {
        Value::String(s) => {
            let payload = match s.strip_prefix("data:") {
                Some(uri) => uri.split_once(";base64,")?.1,
                None => s.as_str(),
            };
            hex(payload).or_else(|| base64(payload))
        }
        Value::Array(items) => numbers(items),
        Value::Object(map) => {
            // Node's Buffer#toJSON: {"type": "Buffer", "data": [...]}.
            if let (Some(Value::String(t)), Some(Value::Array(data))) =
                (map.get("type"), map.get("data"))
            {
                if t == "Buffer" && map.len() == 2 {
                    return numbers(data);
                }
            }
            // JSON.stringify of a typed array: {"0": 0, "1": 255, "2": 65}.
            let ordered: Option<Vec<Value>> = (0..map.len())
                .map(|i| map.get(&i.to_string()).cloned())
                .collect();
            numbers(&ordered?)
        }
        _ => None,
    }
}

fn hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

fn base64(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for b in s.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    Some(out)
}

/// 2024-01-02T03:04:05Z as ISO 8601 / RFC 3339 text (a space for `T`, fractional zeros, any
/// UTC offset spelling) or as RFC 7231 / `toUTCString` text. A date-time without a zone is
/// not the instant: which one it is depends on the reader's clock.
fn is_the_date(s: &str) -> bool {
    static RE: std::sync::OnceLock<[regex::Regex; 2]> = std::sync::OnceLock::new();
    let [iso, http] = RE.get_or_init(|| {
        [
            regex::Regex::new(r"^2024-01-02[T ]03:04:05(\.0+)?(Z|[+-]00:?00| ?UTC| ?GMT)$")
                .expect("valid regex"),
            regex::Regex::new(r"^Tue, 0?2 Jan 2024 03:04:05 (GMT|UTC|\+0000)$")
                .expect("valid regex"),
        ]
    });
    iso.is_match(s) || http.is_match(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn non_json(value: Value, at: &[(&str, NonJson)]) -> Represented {
        Represented::NonJson(
            value,
            at.iter().map(|(p, k)| ((*p).to_owned(), *k)).collect(),
        )
    }

    #[test]
    fn every_correct_conversion_is_accepted() {
        let ok = [
            (NonJson::Set, json!([3, 1, 2])),
            (NonJson::Set, json!([1.0, 2, 3])),
            (NonJson::Bytes, json!("AP9B")),
            (NonJson::Bytes, json!("00FF41")),
            (
                NonJson::Bytes,
                json!("data:application/octet-stream;base64,AP9B"),
            ),
            (NonJson::Bytes, json!([0, 255, 65])),
            (
                NonJson::Bytes,
                json!({"type": "Buffer", "data": [0, 255, 65]}),
            ),
            (NonJson::Bytes, json!({"0": 0, "1": 255, "2": 65})),
            (NonJson::Date, json!("2024-01-02T03:04:05Z")),
            (NonJson::Date, json!("2024-01-02T03:04:05.000Z")),
            (NonJson::Date, json!("2024-01-02 03:04:05+00:00")),
            (NonJson::Date, json!("Tue, 02 Jan 2024 03:04:05 GMT")),
            (NonJson::Date, json!(1_704_164_645)),
            (NonJson::Date, json!(1_704_164_645_000_i64)),
            (NonJson::Cycle, json!("[Circular]")),
        ];
        for (kind, v) in ok {
            assert!(faithful(kind, &v), "{kind:?} {v}");
        }
    }

    #[test]
    fn debug_text_placeholders_and_lossy_forms_are_refused() {
        let bad = [
            (NonJson::Set, json!("{1, 2, 3}")),
            (NonJson::Set, json!({})),
            (NonJson::Set, json!([1, 2])),
            (NonJson::Set, json!([1, 1, 2, 3])),
            (NonJson::Bytes, json!("b'\\x00\\xffA'")),
            (NonJson::Bytes, json!("\u{0}\u{FFFD}A")),
            (NonJson::Bytes, json!({})),
            (NonJson::Date, json!("2024-01-02T03:04:05")),
            (NonJson::Date, json!("2024-01-02")),
            (NonJson::Date, json!({})),
            (NonJson::Cycle, json!(null)),
            (NonJson::Cycle, json!({})),
            (NonJson::Opaque, json!({})),
            (NonJson::Opaque, json!("<Handle object at 0x7f3a2c1e9d50>")),
        ];
        for (kind, v) in bad {
            assert!(!faithful(kind, &v), "{kind:?} {v}");
        }
    }

    #[test]
    fn the_rest_of_the_value_must_survive_and_the_text_must_be_strict() {
        let want = non_json(json!({"id": 7, "n": 0}), &[("/tags", NonJson::Set)]);
        assert!(check(&want, r#"{"id": 7.0, "tags": [2, 3, 1], "n": 0}"#).is_ok());
        assert!(check(&want, r#"{"id": 8, "tags": [1, 2, 3], "n": 0}"#).is_err());
        assert!(check(&want, r#"{"id": 7, "tags": [1, 2, 3]}"#).is_err());
        assert!(check(&want, r#"{'id': 7, 'tags': {1, 2, 3}, 'n': 0}"#).is_err());
        assert!(check(&Represented::NonFinite, "NaN").is_err());
        assert!(check(&Represented::NonFinite, "null").is_err());
        assert!(check(&Represented::Json(json!({"r": 1})), r#"{"r": 1,}"#).is_err());
        assert!(check(&Represented::Json(json!({"r": 1})), r#"{"r":1.0}"#).is_ok());
    }
}
