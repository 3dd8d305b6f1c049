//! The protocol's JSON Schemas (`schema/protocol/`) and the Rust wire types describe the same
//! messages: what the types serialise validates, and what the schemas refuse, the types refuse.

use std::path::Path;

use harness_conformance_protocol::{
    decode_reply, message::decode_hello, resolve_case, Command, PROTOCOL_VERSION,
};
use harness_conformance_suite::loader;
use serde_json::{json, Value};

fn schema_value(name: &str) -> Value {
    let path = Path::new(env!("SUITE_DATA"))
        .join("schema/protocol")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn schema(name: &str) -> jsonschema::Validator {
    jsonschema::validator_for(&schema_value(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn assert_valid(v: &jsonschema::Validator, instance: &Value, what: &str) {
    let errors: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} does not validate: {errors:#?}\n{instance}"
    );
}

#[test]
fn commands_validate() {
    let start = serde_json::to_value(Command::Start {
        protocol: PROTOCOL_VERSION,
        suite: Some(harness_conformance_suite::SUITE_VERSION.to_owned()),
    })
    .unwrap();
    assert_valid(&schema("start.schema.json"), &start, "start");
    let old_start = serde_json::to_value(Command::Start {
        protocol: PROTOCOL_VERSION,
        suite: None,
    })
    .unwrap();
    assert_valid(
        &schema("start.schema.json"),
        &old_start,
        "start without suite",
    );
    let stop = serde_json::to_value(Command::Stop {}).unwrap();
    assert_valid(&schema("stop.schema.json"), &stop, "stop");
    assert!(!schema("stop.schema.json").is_valid(&json!({"cmd": "stop", "now": true})));
}

#[test]
fn every_case_as_sent_validates_against_the_run_schema() {
    let run = schema("run.schema.json");
    let suite = loader::load_embedded().expect("the embedded suite loads");
    for case in &suite.cases {
        let mut wire = case.wire();
        if resolve_case(&mut wire, 2000).is_err() {
            continue; // a BUG IN CASE the corpus test reports
        }
        // A forged note copy is resolved into a text too: it never goes on the wire.
        harness_conformance_protocol::resolve_note_copies(
            &mut wire,
            None,
            harness_conformance_protocol::Unit::Chars,
        )
        .unwrap();
        // So is a forged wrapper marker.
        let wrapper = harness_conformance_protocol::WrapperDeclaration {
            open: "<tool_output>\n".into(),
            close: "\n</tool_output>".into(),
            escapes: Vec::new(),
        };
        harness_conformance_protocol::resolve_wrapper_copies(&mut wire, Some(&wrapper)).unwrap();
        let msg = serde_json::to_value(Command::Run { seq: 1, case: wire }).unwrap();
        assert_valid(&run, &msg, &case.id);
    }
    // An unresolved size never goes on the wire.
    let unresolved = json!({"cmd": "run", "seq": 1, "case": {"id": "a/b", "calls": [], "tools": [
        {"name": "t", "input_schema": {}, "behavior": {"return": {"generate": {"repeat": "a", "size": {"cap": 1.0, "plus": 0}}}}}]}});
    assert!(!run.is_valid(&unresolved));
}

#[test]
fn hellos_validate_and_decode_alike() {
    let hello = schema("hello.schema.json");
    let samples = [
        json!({"protocol": 1, "implementation": {"name": "x", "language": "rust", "version": "1"}, "capabilities": {}}),
        json!({"protocol": 1, "implementation": {"name": "x", "language": "python", "version": "1", "homepage": "https://x"},
               "capabilities": {"cap": {"unit": "bytes", "limit": 100, "configurable": true, "strategies": ["head_tail", "head_only"]},
                                "codes": {"invalid_arguments": "E1"}, "retryability": true,
                                "deadline": {"configurable": true, "default_ms": 1000}, "keywords": ["type"],
                                "call_forms": ["structured", "raw"], "parallel": true, "history": true, "features": ["authorization"]}}),
        json!({"protocol": 1, "implementation": {"name": "x", "language": "js", "version": "1"}, "capabilities": {"cap": null}}),
        json!({"protocol": 1, "implementation": {"name": "x", "language": "rust", "version": "1"},
               "capabilities": {"cap": {"unit": "lines", "limit": 256, "configurable": true,
                                        "strategies": ["spill", "reject", "head_tail"], "units": ["lines"]},
                                "codes": {"output_too_large": "TOO_BIG"}}}),
        json!({"protocol": 1, "implementation": {"name": "x", "language": "rust", "version": "1"},
               "capabilities": {"cap": {"unit": "tokens", "limit": 4000, "strategies": ["head_tail"],
                                        "estimator": {"of": "bytes", "divisor": 4}},
                                "features": ["context-cap"],
                                "wrapper": {"open": "<tool_output>\n", "close": "\n</tool_output>",
                                            "escapes": [{"from": "</tool_output", "to": "&lt;/tool_output"}]}}}),
    ];
    for s in &samples {
        assert_valid(&hello, s, "hello sample");
        let decoded = decode_hello(s.to_string().as_bytes()).unwrap();
        assert_valid(
            &hello,
            &serde_json::to_value(&decoded).unwrap(),
            "re-encoded hello",
        );
    }
    let bad = [
        json!({"protocol": 1, "implementation": {"name": "x", "language": "rust", "version": "1"}, "capabilities": {"caps": {}}}),
        json!({"protocol": 1, "implementation": {"name": "x", "language": "rust"}, "capabilities": {}}),
        json!({"protocol": 1, "implementation": {"name": "x", "language": "rust", "version": "1"},
               "capabilities": {"cap": {"unit": "tokens", "limit": 1, "strategies": ["head_tail"]}}}),
        json!({"protocol": 1, "implementation": {"name": "x", "language": "rust", "version": "1"},
               "capabilities": {"cap": {"unit": "bytes", "limit": 1, "strategies": ["truncate"]}}}),
        json!({"protocol": 1, "implementation": {"name": "x", "language": "rust", "version": "1"},
               "capabilities": {"cap": {"unit": "bytes", "limit": 1, "strategies": ["spill"], "units": ["tokens"]}}}),
        json!({"protocol": 1, "implementation": {"name": "x", "language": "rust", "version": "1"},
               "capabilities": {"cap": {"unit": "bytes", "limit": 1, "strategies": ["head_tail"],
                                        "estimator": {"of": "bytes", "divisor": 4}}}}),
        json!({"protocol": 1, "implementation": {"name": "x", "language": "rust", "version": "1"},
               "capabilities": {"cap": {"unit": "tokens", "limit": 1, "strategies": ["head_tail"],
                                        "estimator": {"of": "lines", "divisor": 4}}}}),
        json!({"protocol": 1, "implementation": {"name": "x", "language": "rust", "version": "1"},
               "capabilities": {"wrapper": {"open": "<tool_output>"}}}),
    ];
    for b in &bad {
        assert!(!hello.is_valid(b), "the schema accepts {b}");
        assert!(
            decode_hello(b.to_string().as_bytes()).is_err(),
            "the types accept {b}"
        );
    }
}

#[test]
fn replies_validate_and_decode_alike() {
    let reply = schema("reply.schema.json");
    let good = [
        json!({"seq": 1, "case": "a/b", "results": [{"tool_use_id": "t1", "is_error": false, "content": "ok", "code": null, "native": {"x": 1}}],
               "invocations": [{"tool": "t", "tool_use_id": "t1", "args": {"a": 1}}], "history": []}),
        json!({"seq": 2, "case": "a/b", "results": [{"tool_use_id": null, "is_error": true, "content": ""}]}),
        json!({"seq": 3, "case": "a/b", "skip": "no raw calls"}),
        json!({"seq": 4, "case": "a/b", "error": "adapter bug"}),
        json!({"seq": 5, "case": "a/b", "results": [{"tool_use_id": "t1", "is_error": false, "content": "head tail",
               "truncation": {"unit": "bytes", "total": 900, "omitted": 891, "direction": "middle",
                              "kept": [[0, 4], [895, 900]], "artifact": "out-1"},
               "artifact": {"id": "out-1", "text": "head … tail"}, "structured": {"rows": [1, 2]}}]}),
    ];
    for g in &good {
        assert_valid(&reply, g, "reply sample");
        let decoded = decode_reply(g.to_string().as_bytes()).unwrap();
        assert!(decoded.outcome().is_ok(), "{g}");
    }
    let bad = [
        json!({"seq": 1, "case": "a/b", "results": [], "skip": "both"}),
        json!({"seq": 1, "case": "a/b"}),
        json!({"seq": 1, "case": "a/b", "results": [{"tool_use_id": "t", "is_error": false}]}),
        json!({"seq": 1, "case": "a/b", "results": [], "extra": 1}),
        json!({"seq": 1, "case": "a/b", "results": [{"tool_use_id": "t", "is_error": false, "content": "",
               "truncation": {"omitted": 1, "lines_kept": 2}}]}),
        json!({"seq": 1, "case": "a/b", "results": [{"tool_use_id": "t", "is_error": false, "content": "",
               "artifact": {"id": "out-1"}}]}),
    ];
    for b in &bad {
        assert!(!reply.is_valid(b), "the schema accepts {b}");
        let types_refuse = match decode_reply(b.to_string().as_bytes()) {
            Err(_) => true,
            Ok(r) => r.outcome().is_err(),
        };
        assert!(types_refuse, "the types accept {b}");
    }
}

#[test]
fn the_reference_adapters_hello_and_every_reply_validate() {
    let mut adapter = harness_ref_adapter::ReferenceAdapter::new(None);
    let hello = serde_json::to_value(adapter.hello()).unwrap();
    assert_valid(
        &schema("hello.schema.json"),
        &hello,
        "the reference's hello",
    );
    let reply_schema = schema("reply.schema.json");
    let suite = loader::load_embedded().expect("the embedded suite loads");
    let limit = hello["capabilities"]["cap"]["limit"]
        .as_u64()
        .unwrap_or(2000);
    for case in &suite.cases {
        let mut wire = case.wire();
        if resolve_case(
            &mut wire,
            case.config
                .cap
                .as_ref()
                .and_then(|c| c.limit)
                .unwrap_or(limit),
        )
        .is_err()
        {
            continue;
        }
        let mut reply = adapter.run(&wire);
        reply.seq = 1;
        let value = serde_json::to_value(&reply).unwrap();
        assert_valid(&reply_schema, &value, &case.id);
    }
}

/// The fields of a strictly decoded type, as serde's unknown-field error lists them: adding a
/// field to the type adds it here, with nothing else to update.
fn fields_of<T: serde::de::DeserializeOwned>() -> std::collections::BTreeSet<String> {
    let err = serde_json::from_str::<T>(r#"{"?": 0}"#)
        .err()
        .expect("an unknown field is refused")
        .to_string();
    let (_, expected) = err
        .split_once("expected one of ")
        .unwrap_or_else(|| panic!("not an unknown-field error: {err}"));
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn schema_properties(schema: &Value) -> std::collections::BTreeSet<String> {
    schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

/// The wire case's fields and the case file's are each declared once in Rust; the schemas that
/// describe them for other languages must name exactly those fields, so a field added to the
/// types fails here until the schemas describe it.
#[test]
fn the_schemas_name_every_field_of_the_case_types() {
    use harness_conformance_protocol::WireCase;
    use harness_conformance_suite::case::Case;
    let run = schema_value("run.schema.json");
    assert_eq!(
        schema_properties(&run["$defs"]["case"]),
        fields_of::<WireCase>(),
        "run.schema.json's case vs WireCase"
    );
    let case_schema: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("SUITE_DATA")).join("schema/case.schema.json"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        schema_properties(&case_schema),
        fields_of::<Case>(),
        "case.schema.json vs the suite's Case"
    );
    assert!(fields_of::<WireCase>().is_subset(&fields_of::<Case>()));
}
