//! Argument digests and masking: how a call's arguments are identified without being repeated.
//!
//! The digest is SHA-256 over a canonical JSON form (object keys sorted at every level, no
//! whitespace), keyed with the harness's secret so that the digest of a low-entropy argument (a
//! PIN, a short code) cannot be brute-forced from an audit log. It binds commit tokens to their
//! arguments and idempotency keys to theirs, and identifies arguments in audit events. Masking
//! replaces sensitive arguments by a fixed marker wherever arguments are shown or recorded.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// What a sensitive value is replaced by in audit events and previews.
pub const MASK: &str = "[redacted]";

/// The canonical JSON text of `v`: keys sorted, compact.
pub fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(&map[k.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// `sha256:` + hex of SHA-256(len(key) ‖ key ‖ data).
pub fn keyed_digest(key: &[u8], data: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update((key.len() as u64).to_be_bytes());
    h.update(key);
    h.update(data);
    format!("sha256:{}", hex(&h.finalize()))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `args` with the value at each of `pointers` replaced by [`MASK`] (the whole value when a
/// pointer is `""`).
pub fn mask(args: &Value, pointers: &[String]) -> Value {
    let mut out = args.clone();
    for p in pointers {
        if p.is_empty() {
            return Value::String(MASK.to_string());
        }
        if let Some(slot) = out.pointer_mut(p) {
            *slot = Value::String(MASK.to_string());
        }
    }
    out
}

/// The sensitive string values inside `args` (for checking that none leaks).
pub fn sensitive_strings(args: &Value, pointers: &[String]) -> Vec<String> {
    fn collect(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) if !s.is_empty() => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
            Value::Object(m) => m.values().for_each(|x| collect(x, out)),
            Value::Number(n) => out.push(n.to_string()),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for p in pointers {
        if let Some(v) = args.pointer(p) {
            collect(v, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_form_ignores_key_order() {
        let a = json!({"b": 1, "a": {"y": [1, "x"], "x": null}});
        let b = json!({"a": {"x": null, "y": [1, "x"]}, "b": 1});
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_eq!(canonical_json(&a), r#"{"a":{"x":null,"y":[1,"x"]},"b":1}"#);
        assert_eq!(
            keyed_digest(b"k", canonical_json(&a).as_bytes()),
            keyed_digest(b"k", canonical_json(&b).as_bytes())
        );
        assert_ne!(
            keyed_digest(b"k", b"x"),
            keyed_digest(b"other", b"x"),
            "the key changes the digest"
        );
    }

    #[test]
    fn sha256_is_sha256() {
        let mut h = Sha256::new();
        h.update(b"abc");
        assert_eq!(
            hex(&h.finalize()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn masking_replaces_only_sensitive_values() {
        let args = json!({"to": "bob", "card": {"number": "4111", "cvc": "123"}});
        let masked = mask(&args, &["/card".to_string()]);
        assert_eq!(masked, json!({"to": "bob", "card": "[redacted]"}));
        let mut found = sensitive_strings(&args, &["/card".to_string()]);
        found.sort();
        assert_eq!(found, vec!["123".to_string(), "4111".to_string()]);
    }
}
