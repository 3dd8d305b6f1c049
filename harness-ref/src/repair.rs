//! The opt-in repair of double-encoded nested values (SPEC "repair profile", REPAIR-*).
//!
//! Models sometimes send a nested array or object as the JSON text of it — `"tags": "[\"a\"]"`
//! where the schema wants an array — and a strict validator then refuses the call again and
//! again (earendil-works/pi #9931, anomalyco/opencode #8249). Never coercing stays harness-ref's
//! default ([`crate::HarnessConfig::repair`] is off); an embedder that turns it on gets exactly
//! one repair, and nothing that changes what a value means:
//!
//! - only a string *nested* in the arguments (never the arguments themselves, which stay a
//!   malformed call) whose whole text is exactly one JSON array or object is decoded;
//! - only where the schema at that location refused it for its type (a `type` violation at that
//!   pointer), so a string the schema accepts there — a string field, an `anyOf` branch that
//!   takes strings — is never touched, and a scalar (`"5"`, `"true"`, `"null"`) never becomes a
//!   number, boolean or null;
//! - the repaired arguments must then pass the whole schema, or the call is refused with the
//!   violations of what the model sent, as without repair (earendil-works/pi PR #7856).
//!
//! The pointers repaired are reported to the model in the result ([`crate::ToolResult::repairs`]
//! and a note in the content, [`note`]), so it learns to send the value itself next time.
//!
//! This module is pure: it finds and applies the repair; the harness decides when to ask.

use serde_json::Value;

use crate::schema::{InputSchema, Violation};

/// The arguments with every repairable string decoded, and the RFC 6901 pointers decoded (in
/// order), when at least one `type` violation was a double-encoded array or object. `None`
/// when nothing could be repaired; the caller still has to check that the result validates.
pub fn decode(args: &Value, violations: &[Violation]) -> Option<(Value, Vec<String>)> {
    let mut repaired = args.clone();
    let mut pointers: Vec<String> = Vec::new();
    for v in violations.iter().filter(|v| v.keyword == "type") {
        // The arguments themselves are the call's shape, not a nested value.
        if v.pointer.is_empty() || pointers.contains(&v.pointer) {
            continue;
        }
        let Some(slot) = repaired.pointer_mut(&v.pointer) else {
            continue;
        };
        let Some(decoded) = slot.as_str().and_then(decoded_container) else {
            continue;
        };
        *slot = decoded;
        pointers.push(v.pointer.clone());
    }
    (!pointers.is_empty()).then_some((repaired, pointers))
}

/// [`decode`], accepted only when the repaired arguments pass `schema`.
pub fn repair(schema: &InputSchema, args: &Value) -> Option<(Value, Vec<String>)> {
    let violations = schema.violations(args);
    decode(args, &violations).filter(|(repaired, _)| schema.is_valid(repaired))
}

/// The value a string holds when its whole text is exactly one JSON array or object.
fn decoded_container(text: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(text) {
        Ok(v @ (Value::Array(_) | Value::Object(_))) => Some(v),
        _ => None,
    }
}

/// The line put before a repaired call's output: which locations were decoded, and what to
/// send next time.
pub fn note(pointers: &[String]) -> String {
    let shown: Vec<String> = pointers
        .iter()
        .map(|p| format!("`{}`", crate::schema::display_pointer(p)))
        .collect();
    format!(
        "[harness: repaired the arguments: {} arrived as JSON text and was decoded; send arrays and objects as JSON values, not strings]",
        shown.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::UnknownFields;
    use serde_json::json;

    fn schema(s: Value) -> InputSchema {
        InputSchema::compile(&s, UnknownFields::Reject).unwrap()
    }

    #[test]
    fn decodes_only_what_the_schema_refused_for_its_type() {
        let s = schema(json!({"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "object", "properties": {"k": {"type": "integer"}}},
            "text": {"type": "string"},
            "either": {"anyOf": [{"type": "string"}, {"type": "array"}]},
            "n": {"type": "integer"}
        }}));
        let cases = [
            (json!({"tags": "[\"a\"]"}), Some(json!({"tags": ["a"]}))),
            (
                json!({"opts": "{\"k\": 1}"}),
                Some(json!({"opts": {"k": 1}})),
            ),
            // Strings the schema accepts stay strings: no violation, nothing to repair.
            (json!({"text": "[1]", "either": "[1]"}), None),
            // Scalars are never repaired.
            (json!({"n": "5"}), None),
            (json!({"tags": "null"}), None),
            // Two values, or not JSON at all.
            (json!({"tags": "[\"a\"] [\"b\"]"}), None),
            (json!({"tags": "[\"a\""}), None),
            // The repaired value must validate.
            (json!({"tags": "[1]"}), None),
        ];
        for (args, want) in cases {
            let got = repair(&s, &args).map(|(v, _)| v);
            assert_eq!(got, want, "{args}");
        }
    }

    #[test]
    fn reports_every_pointer_and_never_repairs_the_root() {
        let s = schema(json!({"type": "object", "properties": {
            "a": {"type": "array"}, "b": {"type": "object", "properties": {
                "c": {"type": "array"}}}}}));
        let (_, pointers) = repair(&s, &json!({"a": "[]", "b": {"c": "[1]"}})).unwrap();
        assert_eq!(pointers, ["/a", "/b/c"]);
        assert!(note(&pointers).contains("`/b/c`"));
        assert!(repair(&s, &json!("{\"a\": []}")).is_none());
    }
}
