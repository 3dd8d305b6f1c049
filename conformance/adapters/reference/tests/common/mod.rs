//! Helpers shared by the integration tests: build a case from JSON, run it, read the reply.
#![allow(dead_code)]

use harness_conformance_protocol::{Invocation, ObservedResult, Reply, WireCase};
use harness_ref_adapter::{Fault, ReferenceAdapter};
use serde_json::{json, Value};

pub fn case(v: Value) -> WireCase {
    serde_json::from_value(v).expect("a well-formed case")
}

pub fn run(fault: Option<Fault>, case: &WireCase) -> Reply {
    let reply = ReferenceAdapter::new(fault).run(case);
    assert_eq!(reply.case, case.id);
    reply
}

pub fn results(reply: &Reply) -> &[ObservedResult] {
    match (&reply.results, &reply.error) {
        (Some(r), None) => r,
        _ => panic!("no results: {reply:?}"),
    }
}

pub fn invocations(reply: &Reply) -> &[Invocation] {
    reply.invocations.as_deref().expect("invocations")
}

/// Result `i`'s machine code.
pub fn code(reply: &Reply, i: usize) -> Option<&str> {
    results(reply)[i].code.as_deref()
}

/// A case with one tool and the given calls.
pub fn one_tool(config: Value, schema: Value, behavior: Value, calls: Value) -> WireCase {
    case(serde_json::json!({
        "id": "test/case",
        "config": config,
        "tools": [{"name": "t", "description": "a tool", "input_schema": schema, "behavior": behavior}],
        "calls": calls,
    }))
}

/// A case with one tool (any arguments) that behaves as `behavior`, called once as `a` with `{}`.
pub fn one_call(behavior: Value) -> WireCase {
    one_tool(
        json!({}),
        json!({}),
        behavior,
        json!([{"id": "a", "name": "t", "input": {}}]),
    )
}

/// One call whose handler sleeps 300 ms, in a turn the user cancels after 50 ms.
pub fn cancelled_case() -> WireCase {
    case(json!({
        "id": "test/case",
        "cancel_after_ms": 50,
        "tools": [{"name": "t", "input_schema": {},
                   "behavior": {"sleep_ms": 300, "then": {"return": {"text": "late"}}}}],
        "calls": [json!({"id": "a", "name": "t", "input": {}})]
    }))
}

/// A turn of calls `a` and `b` to one tool returning `ran`, resumed from a saved transcript
/// holding `saved` (feature `resume`).
pub fn resumed_case(saved: Value) -> WireCase {
    case(json!({
        "id": "test/case",
        "resume": {"saved": saved},
        "tools": [{"name": "t", "input_schema": {}, "behavior": {"return": {"text": "ran"}}}],
        "calls": [{"id": "a", "name": "t", "input": {}}, {"id": "b", "name": "t", "input": {}}]
    }))
}

/// A spill lifecycle (feature `spill-lifecycle`) over `n` calls `c1`… to tools `t1`… whose
/// outputs differ and are each over a 16-byte spill cap, with `steps` as written.
pub fn spill_case(n: usize, steps: Value) -> WireCase {
    let tools: Vec<Value> = (1..=n)
        .map(|i| {
            json!({"name": format!("t{i}"), "input_schema": {},
                        "behavior": {"return": {"text": format!("output number {i} of the test")}}})
        })
        .collect();
    let calls: Vec<Value> = (1..=n)
        .map(|i| json!({"id": format!("c{i}"), "name": format!("t{i}"), "input": {}}))
        .collect();
    case(json!({
        "id": "test/case",
        "config": {"cap": {"limit": 16, "unit": "bytes", "strategy": "spill"}},
        "tools": tools,
        "calls": calls,
        "spill_lifecycle": {"steps": steps},
    }))
}

/// What the reply listed as held after each spill-lifecycle step.
pub fn held(reply: &Reply) -> &[Vec<String>] {
    reply.spill_artifacts.as_deref().expect("spill_artifacts")
}

/// The artifact id result `i` names.
pub fn artifact_id(reply: &Reply, i: usize) -> &str {
    &results(reply)[i].artifact.as_ref().expect("an artifact").id
}
/// A turn of transfers `a` (to ann) and `b` (to bob) that pause for the user's decision, given
/// as `decisions` (feature `pause`), with `wait_ms` of waiting; the tool echoes its arguments.
pub fn paused_case(decisions: Value, wait_ms: u64) -> WireCase {
    case(json!({
        "id": "test/case",
        "pause": {"tools": ["t"], "wait_ms": wait_ms, "decisions": decisions},
        "tools": [{"name": "t", "input_schema": {}, "behavior": {"return": {"echo_args": true}}}],
        "calls": [{"id": "a", "name": "t", "input": {"to": "ann"}},
                  {"id": "b", "name": "t", "input": {"to": "bob"}}]
    }))
}
