//! The reference adapter performs every scripted behaviour and reports what harness-ref did.

mod common;

use common::{case, invocations, one_tool, results, run};
use harness_conformance_protocol::{CallForm, Strategy, Unit};
use harness_ref_adapter::ReferenceAdapter;
use serde_json::{json, Value};

fn open() -> Value {
    json!({"type": "object", "additionalProperties": true})
}

fn single(behavior: Value) -> harness_conformance_protocol::ObservedResult {
    let c = one_tool(
        json!({}),
        open(),
        behavior,
        json!([{"id": "toolu_1", "name": "t", "input": {"a": 1}}]),
    );
    let reply = run(None, &c);
    let r = results(&reply);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].tool_use_id, json!("toolu_1"));
    let native = r[0].native.as_ref().unwrap();
    assert_eq!(native["type"], "tool_result");
    assert_eq!(native["content"], json!(r[0].content));
    assert_eq!(native["is_error"], json!(r[0].is_error));
    r[0].clone()
}

#[test]
fn returns_text_and_json() {
    let text = single(json!({"return": {"text": "hello"}}));
    assert_eq!(
        (text.is_error, text.content.as_str(), text.code),
        (false, "hello", None)
    );
    assert_eq!(text.retryable, Some(false));
    let value = single(json!({"return": {"json": {"ok": true, "n": [1, 2]}}}));
    assert!(!value.is_error);
    let parsed: Value = serde_json::from_str(&value.content).unwrap();
    assert_eq!(parsed, json!({"ok": true, "n": [1, 2]}));
}

#[test]
fn generated_output_is_expanded_in_the_cap_unit() {
    for (unit, expected) in [("bytes", 3), ("chars", 6)] {
        let c = one_tool(
            json!({"cap": {"unit": unit}}),
            open(),
            json!({"return": {"generate": {"repeat": "é", "size": 6}}}),
            json!([{"id": "a", "name": "t", "input": {}}]),
        );
        let reply = run(None, &c);
        assert_eq!(results(&reply)[0].content, "é".repeat(expected), "{unit}");
    }
}

#[test]
fn non_finite_output_is_refused() {
    for which in ["nan", "inf", "-inf"] {
        let r = single(json!({"return": {"non_finite": which}}));
        assert!(r.is_error);
        assert_eq!(r.code.as_deref(), Some("invalid_tool_output"), "{which}");
    }
}

#[test]
fn raised_errors_map_to_their_classes() {
    let domain = single(json!({"raise": {"kind": "domain", "message": "no data for Atlantis"}}));
    assert_eq!(domain.code.as_deref(), Some("tool_refused"));
    assert!(domain.content.contains("no data for Atlantis"));
    assert_eq!(domain.retryable, Some(false));
    let transport = single(json!({"raise": {"kind": "transport", "message": "connection reset"}}));
    assert_eq!(transport.code.as_deref(), Some("tool_unavailable"));
    assert_eq!(transport.retryable, Some(true));
    let internal = single(json!({"raise": {"kind": "internal",
        "message": "KeyError at /srv/app.py SECRET-7f3a9c", "secret": "SECRET-7f3a9c"}}));
    assert_eq!(internal.code.as_deref(), Some("internal_error"));
    assert!(internal.is_error);
    assert!(
        !internal.content.contains("SECRET-7f3a9c"),
        "{}",
        internal.content
    );
    assert!(!internal.content.contains("KeyError"));
}

#[test]
fn sleeping_past_the_deadline_is_a_timeout_and_within_it_a_success() {
    let late = one_tool(
        json!({"deadline_ms": 20}),
        open(),
        json!({"sleep_ms": 400, "then": {"return": {"text": "late"}}}),
        json!([{"id": "a", "name": "t", "input": {}}]),
    );
    let reply = run(None, &late);
    let r = &results(&reply)[0];
    assert_eq!(r.code.as_deref(), Some("timeout"));
    assert_eq!(r.retryable, Some(true));
    assert_eq!(invocations(&reply).len(), 1, "it ran, and was timed out");
    let on_time = one_tool(
        json!({"deadline_ms": 5000}),
        open(),
        json!({"sleep_ms": 1, "then": {"return": {"text": "on time"}}}),
        json!([{"id": "a", "name": "t", "input": {}}]),
    );
    assert_eq!(results(&run(None, &on_time))[0].content, "on time");
}

#[test]
fn mutations_touch_only_the_handlers_copy() {
    let c = one_tool(
        json!({}),
        open(),
        json!({"mutate_args": {"set": {"/a": 99, "/b": {"new": true}}},
               "then": {"return": {"echo_args": true}}}),
        json!([{"id": "toolu_1", "name": "t", "input": {"a": 1}}]),
    );
    let reply = run(None, &c);
    let echoed: Value = serde_json::from_str(&results(&reply)[0].content).unwrap();
    assert_eq!(echoed, json!({"a": 99, "b": {"new": true}}));
    assert_eq!(
        invocations(&reply)[0].args,
        json!({"a": 1}),
        "copied on entry"
    );
    assert_eq!(invocations(&reply)[0].tool_use_id, Some(json!("toolu_1")));
    assert_eq!(
        reply.history.unwrap(),
        vec![json!({"id": "toolu_1", "name": "t", "input": {"a": 1}})]
    );
}

#[test]
fn every_call_form_reaches_the_harness() {
    let c = one_tool(
        json!({}),
        json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}),
        json!({"return": {"echo_args": true}}),
        json!([
            {"id": "s", "name": "t", "input": {"a": 1}},
            {"id": "at", "name": "t", "arguments_text": "{\"a\": 2}"},
            {"id": "at-bad", "name": "t", "arguments_text": "{\"a\": 2"},
            {"raw": "{\"type\": \"tool_use\", \"id\": \"r\", \"name\": \"t\", \"input\": {\"a\": 3}}"},
            {"raw": "{\"id\": \"r-bad\", \"name\": "},
            {"id": "no-input", "name": "t"},
            {"id": "null-input", "name": "t", "input": null},
        ]),
    );
    let reply = run(None, &c);
    let r = results(&reply);
    let codes: Vec<Option<&str>> = r.iter().map(|r| r.code.as_deref()).collect();
    assert_eq!(
        codes,
        [
            None,
            None,
            Some("malformed_call"),
            None,
            Some("malformed_call"),
            Some("malformed_call"),
            Some("malformed_call")
        ]
    );
    let ids: Vec<&Value> = r.iter().map(|r| &r.tool_use_id).collect();
    assert_eq!(
        ids,
        [
            &json!("s"),
            &json!("at"),
            &json!("at-bad"),
            &json!("r"),
            &Value::Null,
            &json!("no-input"),
            &json!("null-input")
        ]
    );
    let args: Vec<&Value> = invocations(&reply).iter().map(|i| &i.args).collect();
    assert_eq!(args, [&json!({"a": 1}), &json!({"a": 2}), &json!({"a": 3})]);
    let history = reply.history.as_ref().unwrap();
    assert_eq!(history.len(), 7);
    for (kept, call) in history.iter().zip(&c.calls) {
        assert_eq!(kept, &serde_json::to_value(call).unwrap());
    }
}

#[test]
fn a_batch_runs_in_parallel_and_reports_invocations_in_call_order() {
    let c = case(json!({
        "id": "test/batch",
        "config": {"deadline_ms": 10000},
        "tools": [
            {"name": "slow", "input_schema": open(), "behavior": {"sleep_ms": 150, "then": {"return": {"text": "slow"}}}},
            {"name": "fast", "input_schema": open(), "behavior": {"return": {"text": "fast"}}}
        ],
        "calls": [
            {"id": "1", "name": "slow", "input": {"n": 1}},
            {"id": "2", "name": "fast", "input": {"n": 2}},
            {"id": "3", "name": "slow", "input": {"n": 3}},
            {"id": "2", "name": "fast", "input": {"n": 4}},
            {"id": "5", "name": "nope", "input": {}}
        ]
    }));
    let reply = run(None, &c);
    let r = results(&reply);
    let contents: Vec<&str> = r.iter().map(|r| r.content.as_str()).collect();
    assert_eq!(&contents[..3], ["slow", "fast", "slow"]);
    assert_eq!(r[3].code.as_deref(), Some("duplicate_call_id"));
    assert_eq!(r[4].code.as_deref(), Some("unknown_tool"));
    assert!(
        r[4].content.contains("fast") && r[4].content.contains("slow"),
        "lists the tools"
    );
    let order: Vec<&Value> = invocations(&reply).iter().map(|i| &i.args["n"]).collect();
    assert_eq!(order, [&json!(1), &json!(2), &json!(3)]);
}

#[test]
fn the_case_cap_is_applied() {
    for (unit, strategy) in [("chars", "head_tail"), ("bytes", "head_only")] {
        let c = one_tool(
            json!({"cap": {"limit": 300, "unit": unit, "strategy": strategy}}),
            open(),
            json!({"return": {"generate": {"lines": {"size": 3000, "width": 20, "last": "ValueError: boom"}}}}),
            json!([{"id": "a", "name": "t", "input": {}}]),
        );
        let reply = run(None, &c);
        let content = &results(&reply)[0].content;
        let size = if unit == "chars" {
            content.chars().count()
        } else {
            content.len()
        };
        assert!(size <= 300, "{unit}: {size}");
        assert!(content.starts_with("000001 "));
        assert!(content.contains("[truncated: "));
        assert_eq!(
            content.ends_with("ValueError: boom"),
            strategy == "head_tail"
        );
    }
}

#[test]
fn objects_are_closed_by_default() {
    let c = one_tool(
        json!({}),
        json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
        json!({"return": {"text": "ran"}}),
        json!([{"id": "a", "name": "t", "input": {"a": 1, "extra": 2}}]),
    );
    let reply = run(None, &c);
    assert_eq!(
        results(&reply)[0].code.as_deref(),
        Some("invalid_arguments")
    );
    assert!(invocations(&reply).is_empty());
}

#[test]
fn a_case_the_adapter_cannot_build_is_an_error_reply() {
    let bad_schema = one_tool(
        json!({}),
        json!({"type": 12}),
        json!({"return": {"text": "x"}}),
        json!([{"id": "a", "name": "t", "input": {}}]),
    );
    let unresolved = one_tool(
        json!({}),
        open(),
        json!({"return": {"generate": {"repeat": "a", "size": {"cap": 1.0, "plus": 0}}}}),
        json!([{"id": "a", "name": "t", "input": {}}]),
    );
    let twice = case(json!({"id": "test/twice", "tools": [
        {"name": "t", "input_schema": {}, "behavior": {"return": {"text": "x"}}},
        {"name": "t", "input_schema": {}, "behavior": {"return": {"text": "y"}}}],
        "calls": [{"id": "a", "name": "t", "input": {}}]}));
    for (what, c, needle) in [
        ("schema", bad_schema, "schema"),
        ("size", unresolved, "not resolved"),
        ("twice", twice, "already registered"),
    ] {
        let reply = run(None, &c);
        assert!(
            reply.results.is_none() && reply.invocations.is_none(),
            "{what}"
        );
        let error = reply.error.unwrap();
        assert!(error.contains(needle), "{what}: {error}");
    }
}

#[test]
fn the_handshake_declares_what_harness_ref_does() {
    let hello = ReferenceAdapter::new(None).hello();
    let caps = &hello.capabilities;
    let cap = caps.cap.as_ref().unwrap();
    assert_eq!(
        (cap.unit, cap.limit, cap.configurable),
        (Unit::Bytes, 16384, true)
    );
    assert_eq!(
        cap.strategies,
        [
            Strategy::HeadTail,
            Strategy::HeadOnly,
            Strategy::Reject,
            Strategy::Spill
        ]
    );
    assert_eq!(cap.units, [Unit::Lines, Unit::Tokens]);
    // Tokens as openai/codex estimates them: a token per 4 bytes.
    let estimator = cap.estimator.unwrap();
    assert_eq!((estimator.of, estimator.divisor), (Unit::Bytes, 4));
    assert!(caps.features.iter().any(|f| f == "context-cap"));
    assert!(caps.wrapper.is_none(), "the reference wraps no result");
    // harness-ref has a code for every class of the vocabulary, named as the class.
    let codes = caps.codes.as_ref().unwrap();
    for class in harness_conformance_protocol::vocabulary::CLASSES {
        assert_eq!(codes.get(class).map(String::as_str), Some(class));
    }
    assert!(caps.retryability && caps.parallel && caps.history);
    let deadline = caps.deadline.as_ref().unwrap();
    assert_eq!(
        (deadline.configurable, deadline.default_ms),
        (true, Some(30000))
    );
    assert_eq!(
        caps.call_forms,
        [CallForm::Structured, CallForm::ArgumentsText, CallForm::Raw]
    );
    for keyword in [
        "additionalProperties",
        "unevaluatedProperties",
        "$ref",
        "format",
        "dependentRequired",
    ] {
        assert!(caps.keywords.iter().any(|k| k == keyword), "{keyword}");
    }
    for keyword in harness_ref_adapter::KEYWORDS_NOT_APPLIED {
        assert!(
            harness_conformance_protocol::vocabulary::declarable_keywords().contains(&keyword),
            "{keyword}: left out, but not a keyword of the vocabulary"
        );
        assert!(!caps.keywords.iter().any(|k| k == keyword), "{keyword}");
    }
    assert!(!caps.features.iter().any(|f| f == "repair"), "opt-in only");
    for fault in harness_ref_adapter::Fault::ALL {
        // A broken version of another configuration has that configuration's handshake; a
        // harness without a cap says so (its missing cap is the fault).
        let mut base = fault.base().map_or_else(
            || hello.clone(),
            |v| ReferenceAdapter::legitimate(v).hello(),
        );
        if fault == harness_ref_adapter::Fault::HasNoCap {
            base.capabilities.cap = None;
        }
        assert_eq!(
            ReferenceAdapter::new(Some(fault)).hello(),
            base,
            "{fault}: the handshake gives nothing away"
        );
    }
    let repairing =
        ReferenceAdapter::legitimate(harness_ref_adapter::Variant::RepairsDoubleEncoded);
    assert!(repairing
        .hello()
        .capabilities
        .features
        .iter()
        .any(|f| f == "repair"));
}

#[test]
fn declared_keywords_take_effect() {
    // One schema per keyword family the handshake declares: a valid call runs, an invalid one
    // is refused, so declaring the keyword is honest.
    let schemas = [
        (
            json!({"type": "object", "properties": {"a": {"const": 1}}}),
            json!({"a": 1}),
            json!({"a": 2}),
        ),
        (
            json!({"type": "object", "dependentRequired": {"a": ["b"]}, "additionalProperties": true}),
            json!({"a": 1, "b": 2}),
            json!({"a": 1}),
        ),
        (
            json!({"type": "object", "allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": false}),
            json!({"a": 1}),
            json!({"a": 1, "b": 2}),
        ),
        (
            json!({"$defs": {"n": {"type": "integer", "minimum": 0}}, "type": "object",
                   "properties": {"a": {"$ref": "#/$defs/n"}}}),
            json!({"a": 0}),
            json!({"a": -1}),
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "array", "prefixItems": [{"type": "string"}],
                   "items": false}}}),
            json!({"a": ["x"]}),
            json!({"a": ["x", 1]}),
        ),
        (
            json!({"type": "object", "properties": {"a": {"type": "string", "format": "date"}}}),
            json!({"a": "2026-11-29"}),
            json!({"a": "yesterday"}),
        ),
        (
            json!({"$id": "https://example.org/tree", "$dynamicAnchor": "node", "type": "object",
                   "properties": {"kids": {"type": "array", "items": {"$dynamicRef": "#node"}},
                                  "v": {"type": "integer"}}}),
            json!({"v": 1, "kids": [{"v": 2}]}),
            json!({"v": 1, "kids": [{"v": "2"}]}),
        ),
    ];
    let declared = ReferenceAdapter::new(None).hello().capabilities.keywords;
    for (schema, good, bad) in schemas {
        for key in schema.as_object().unwrap().keys() {
            assert!(
                declared.contains(key),
                "{key} is used here but not declared"
            );
        }
        let c = one_tool(
            json!({}),
            schema.clone(),
            json!({"return": {"text": "ran"}}),
            json!([{"id": "good", "name": "t", "input": good}, {"id": "bad", "name": "t", "input": bad}]),
        );
        let reply = run(None, &c);
        let r = results(&reply);
        assert_eq!(r[0].content, "ran", "{schema}: {}", r[0].content);
        assert_eq!(r[1].code.as_deref(), Some("invalid_arguments"), "{schema}");
    }
}
