//! Dispatch cost: a valid 3-field call through every stage to a trivial inline handler, and an
//! invalid call with 2 violations (composed messages included). The call value is built
//! outside the timed section (`iter_batched`), since `handle` takes it by value.

use std::time::{Duration, Instant};

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

    // Each call is cloned just before it is dispatched and timed alone, as in an agent loop
    // (parse, dispatch, free): the timing includes one clock-read pair (~40 ns here), so it
    // is an upper bound. Batching the clones up front instead (`iter_batched`) makes glibc's
    // allocator consolidate freed chunks in the timed section and reads higher.
    for (name, call) in [
        ("dispatch/valid_3_fields_inline", &valid),
        ("dispatch/invalid_2_violations", &invalid),
    ] {
        c.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let call = Call::Value(call.clone());
                    let start = Instant::now();
                    let result = h.handle(call);
                    total += start.elapsed();
                    drop(result);
                }
                total
            })
        });
    }
    c.bench_function("dispatch/valid_3_fields_inline_batched_setup", |b| {
        b.iter_batched(
            || Call::Value(valid.clone()),
            |call| h.handle(call),
            BatchSize::SmallInput,
        )
    });
    // The parts that bound dispatch from below: schema validation of the arguments alone, and
    // dropping the call value the harness consumes (the handler owns and drops the arguments).
    let input = valid["input"].clone();
    let tool = h.registry().get("list").expect("registered");
    c.bench_function("dispatch/part_validate_only", |b| {
        b.iter(|| tool.schema().is_valid(&input))
    });
    c.bench_function("dispatch/part_drop_call_value", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let call = valid.clone();
                let start = Instant::now();
                drop(call);
                total += start.elapsed();
            }
            total
        })
    });
    c.bench_function("dispatch/part_clock_read_pair", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                total += start.elapsed();
            }
            total
        })
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
