//! Dispatch cost: a valid 3-field call through every stage to a trivial inline handler, and an
//! invalid call with 2 violations (composed messages included). The call value is built
//! outside the timed section (`iter_batched`), since `handle` takes it by value.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use harness_ref::{
    Call, CallContext, Execution, Harness, HarnessConfig, Registry, Tool, ToolOutput,
};
use serde_json::{json, Value};

fn harness() -> Harness {
    let schema = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1},
            "recursive": {"type": "boolean"}
        },
        "required": ["path", "limit", "recursive"]
    });
    let mut registry = Registry::new();
    registry
        .register(
            Tool::new(
                "list",
                "List files.",
                schema,
                |_: Value, _: &CallContext<'_>| Ok(ToolOutput::text("ok")),
            )
            .execution(Execution::Inline),
        )
        .expect("the bench tool registers");
    Harness::new(registry, HarnessConfig::default())
}

fn dispatch(c: &mut Criterion) {
    let h = harness();
    let valid = json!({"id": "toolu_01", "name": "list", "input": {"path": "src", "limit": 10, "recursive": true}});
    let invalid = json!({"id": "toolu_02", "name": "list", "input": {"path": 3, "limit": "10", "recursive": true}});
    assert!(!h.handle(valid.clone()).is_error());
    assert_eq!(h.handle(invalid.clone()).violations().len(), 2);

    c.bench_function("dispatch/valid_3_fields_inline", |b| {
        b.iter_batched(
            || Call::Value(valid.clone()),
            |call| h.handle(call),
            BatchSize::SmallInput,
        )
    });
    c.bench_function("dispatch/invalid_2_violations", |b| {
        b.iter_batched(
            || Call::Value(invalid.clone()),
            |call| h.handle(call),
            BatchSize::SmallInput,
        )
    });
    let text = valid.to_string();
    c.bench_function("dispatch/valid_3_fields_from_text", |b| {
        b.iter_batched(
            || Call::Text(text.clone()),
            |call| h.handle(call),
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
