//! The "check output" stage: a handler's value must be representable as JSON within limits.
//!
//! JSON has no NaN or infinity, and an object with two equal keys means different things to
//! different parsers; a value nested thousands deep crashes recursive decoders downstream.
//! Handlers can produce all of these ([`ToolValue`] can hold them), so the harness checks
//! before it serialises, and answers `invalid_tool_output` with the first problem's location.

use std::collections::HashSet;
use std::fmt;

use serde_json::{Map, Number, Value};

use crate::tool::ToolValue;

/// Limits on what a handler may return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OutputLimits {
    /// Deepest nesting of arrays/objects in a structured output (the top level is depth 1).
    pub max_depth: usize,
    /// Largest materialised output (text, or the compact JSON of a value) in UTF-8 bytes,
    /// before capping. Streamed outputs ([`crate::ToolOutput::Chunks`]) are exempt: they are
    /// capped in O(cap) memory whatever their size.
    pub max_bytes: usize,
    /// The model provider's limits on one image part: an image over them is refused, never
    /// sent to fail the request and every later one that replays it (SPEC.md BLOCK-6).
    pub image: crate::ImageLimit,
}

impl Default for OutputLimits {
    /// Depth 64, 64 MiB, the Messages API's image limits.
    fn default() -> Self {
        OutputLimits {
            max_depth: 64,
            max_bytes: 64 * 1024 * 1024,
            image: crate::ImageLimit::MESSAGES_API,
        }
    }
}

/// Why an output cannot be sent back.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum OutputProblem {
    /// A float JSON cannot represent.
    NonFinite {
        /// Where (RFC 6901 pointer into the output).
        pointer: String,
        /// The value.
        value: f64,
    },
    /// Nesting deeper than the limit.
    TooDeep {
        /// Where the limit was crossed.
        pointer: String,
        /// The limit.
        limit: usize,
    },
    /// The same key twice in one object.
    DuplicateKey {
        /// The object's pointer.
        pointer: String,
        /// The repeated key.
        key: String,
    },
    /// Larger than `max_bytes`.
    TooLarge {
        /// The size, in bytes, as far as it was measured.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// Streamed output that is not valid UTF-8.
    NotUtf8,
    /// A structured output that does not match the tool's output schema.
    OutputSchema {
        /// Each violation, as `<pointer>: expected …, got …`.
        violations: Vec<String>,
    },
    /// A value JSON has no form for (a cycle, a set, bytes, a date, an opaque object).
    NotJson {
        /// Where (RFC 6901 pointer into the output).
        pointer: String,
        /// What it is, in words ([`crate::NotJson::what`]).
        what: &'static str,
    },
}

impl fmt::Display for OutputProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = crate::schema::display_pointer;
        match self {
            OutputProblem::NonFinite { pointer, value } => {
                let v = if value.is_nan() {
                    "NaN"
                } else if *value > 0.0 {
                    "Infinity"
                } else {
                    "-Infinity"
                };
                write!(f, "{}: {v} cannot be represented in JSON", at(pointer))
            }
            OutputProblem::TooDeep { pointer, limit } => {
                write!(f, "{}: nesting deeper than {limit} levels", at(pointer))
            }
            OutputProblem::DuplicateKey { pointer, key } => {
                write!(f, "{}: the key {key:?} appears twice", at(pointer))
            }
            OutputProblem::TooLarge { size, limit } => {
                write!(
                    f,
                    "the output is larger than {limit} bytes ({size} bytes or more)"
                )
            }
            OutputProblem::NotUtf8 => write!(f, "the output is not valid UTF-8 text"),
            OutputProblem::OutputSchema { violations } => {
                write!(
                    f,
                    "the output does not match the tool's output schema: {}",
                    violations.join("; ")
                )
            }
            OutputProblem::NotJson { pointer, what } => {
                write!(f, "{}: {what} cannot be represented in JSON", at(pointer))
            }
        }
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Checks `value` and converts it to JSON, or names the first problem (depth-first order).
///
/// Recursion is bounded by `limits.max_depth`, so no input can exhaust the stack here.
pub fn to_json(value: ToolValue, limits: &OutputLimits) -> Result<Value, OutputProblem> {
    let mut pointer = String::new();
    let mut size = 0usize;
    convert(value, 1, &mut pointer, &mut size, limits)
}

fn convert(
    value: ToolValue,
    depth: usize,
    pointer: &mut String,
    size: &mut usize,
    limits: &OutputLimits,
) -> Result<Value, OutputProblem> {
    // A coarse running size (lengths of strings and keys plus a few bytes per node) so that a
    // huge value is refused before it is serialised; the exact size is checked afterwards.
    *size = size.saturating_add(4);
    if *size > limits.max_bytes {
        return Err(OutputProblem::TooLarge {
            size: *size,
            limit: limits.max_bytes,
        });
    }
    let nested = matches!(value, ToolValue::Array(_) | ToolValue::Object(_));
    if nested && depth > limits.max_depth {
        return Err(OutputProblem::TooDeep {
            pointer: pointer.clone(),
            limit: limits.max_depth,
        });
    }
    Ok(match value {
        ToolValue::Null => Value::Null,
        ToolValue::Bool(b) => Value::Bool(b),
        ToolValue::Int(i) => Value::Number(i.into()),
        ToolValue::UInt(u) => Value::Number(u.into()),
        ToolValue::Float(x) => match Number::from_f64(x) {
            Some(n) => Value::Number(n),
            None => {
                return Err(OutputProblem::NonFinite {
                    pointer: pointer.clone(),
                    value: x,
                })
            }
        },
        ToolValue::String(s) => {
            *size = size.saturating_add(s.len());
            if *size > limits.max_bytes {
                return Err(OutputProblem::TooLarge {
                    size: *size,
                    limit: limits.max_bytes,
                });
            }
            Value::String(s)
        }
        ToolValue::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                out.push(convert(item, depth + 1, pointer, size, limits)?);
                pointer.truncate(len);
            }
            Value::Array(out)
        }
        ToolValue::NotJson(v) => {
            return Err(OutputProblem::NotJson {
                pointer: pointer.clone(),
                what: v.what(),
            })
        }
        ToolValue::Object(fields) => {
            let mut seen = HashSet::with_capacity(fields.len());
            let mut out = Map::new();
            for (key, item) in fields {
                if !seen.insert(key.clone()) {
                    return Err(OutputProblem::DuplicateKey {
                        pointer: pointer.clone(),
                        key,
                    });
                }
                *size = size.saturating_add(key.len());
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&escape(&key));
                let v = convert(item, depth + 1, pointer, size, limits)?;
                pointer.truncate(len);
                out.insert(key, v);
            }
            Value::Object(out)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_is_located() {
        let v = ToolValue::Object(vec![(
            "a".into(),
            ToolValue::Array(vec![ToolValue::Int(1), ToolValue::Float(f64::NAN)]),
        )]);
        let e = to_json(v, &OutputLimits::default()).unwrap_err();
        assert_eq!(e.to_string(), "/a/1: NaN cannot be represented in JSON");
    }

    #[test]
    fn values_json_has_no_form_for_are_located() {
        use crate::tool::NotJson;
        for (v, want) in [
            (NotJson::Cycle { to: String::new() }, "/k/0: a reference back to an enclosing value (a cycle) cannot be represented in JSON"),
            (NotJson::Set(vec![ToolValue::Int(1)]), "/k/0: a set cannot be represented in JSON"),
            (NotJson::Bytes(vec![0, 255]), "/k/0: raw bytes cannot be represented in JSON"),
            (NotJson::Date("2024-01-02T03:04:05Z".into()), "/k/0: a date cannot be represented in JSON"),
            (NotJson::Opaque("Handle".into()), "/k/0: an opaque object cannot be represented in JSON"),
        ] {
            let tree = ToolValue::Object(vec![(
                "k".into(),
                ToolValue::Array(vec![ToolValue::NotJson(v)]),
            )]);
            assert_eq!(to_json(tree, &OutputLimits::default()).unwrap_err().to_string(), want);
        }
    }

    #[test]
    fn depth_is_bounded() {
        let mut v = ToolValue::Null;
        for _ in 0..100 {
            v = ToolValue::Array(vec![v]);
        }
        let e = to_json(
            v,
            &OutputLimits {
                max_depth: 10,
                ..OutputLimits::default()
            },
        )
        .unwrap_err();
        assert!(matches!(e, OutputProblem::TooDeep { limit: 10, .. }));
    }

    #[test]
    fn duplicate_keys_are_refused() {
        let v = ToolValue::Object(vec![
            ("k".into(), ToolValue::Null),
            ("k".into(), ToolValue::Null),
        ]);
        assert!(matches!(
            to_json(v, &OutputLimits::default()),
            Err(OutputProblem::DuplicateKey { .. })
        ));
    }
}
