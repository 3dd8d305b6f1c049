//! Dispatch cost: a valid 3-field call through every stage to a trivial inline handler, an
//! invalid call with 2 violations (composed messages and remedy included), and the valid call
//! from JSON text; each through the borrowed entry point (`handle_ref`, the fast path) and the
//! owned one (`handle`, which takes and frees the call), plus the parts that bound them.
//!
//! Timing: calls are timed in runs of [`RUN`] with one clock-read pair per run, and their
//! results are kept and dropped after the clock stops, so a figure is the harness's work per
//! call: not the timer, not freeing the result (the caller's business, like freeing the call on
//! the borrowed path). `*_timed_alone` variants time each call with its own clock pair, as the
//! first version of this bench did, for comparison with older figures.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use harness_ref::{
    Call, CallContext, Execution, Harness, HarnessConfig, Registry, Tool, ToolOutput, ToolResult,
};
use serde_json::{json, Value};

mod support;
use support::schema;

/// Calls per clock-read pair: enough to make the timer's share small (~3 ns a call), few
/// enough that freeing the kept results untimed leaves the allocator as an agent loop
/// would (thousands of results freed at once make glibc consolidate, and read higher).
const RUN: u64 = 8;

/// `list`: a borrowing handler (reads its arguments in place); `list_owned`: the same handler
/// owning its arguments (the classic signature, which costs a copy on the borrowed path).
fn harness() -> Harness {
    let mut registry = Registry::new();
    let borrowing = Tool::borrowing(
        "list",
        "List files.",
        schema(),
        |_: &Value, _: &CallContext<'_>| Ok(ToolOutput::text("ok")),
    );
    let owning = Tool::new(
        "list_owned",
        "List files.",
        schema(),
        |_: Value, _: &CallContext<'_>| Ok(ToolOutput::text("ok")),
    );
    for tool in [borrowing, owning] {
        registry
            .register(tool.execution(Execution::Inline))
            .expect("the bench tool registers");
    }
    Harness::new(registry, HarnessConfig::default())
}

/// Times `iters` calls of `f` in runs of [`RUN`], dropping the results untimed.
fn per_call(iters: u64, mut f: impl FnMut() -> ToolResult) -> Duration {
    let mut total = Duration::ZERO;
    let mut results = Vec::with_capacity(RUN as usize);
    let mut left = iters;
    while left > 0 {
        let n = left.min(RUN);
        let start = Instant::now();
        for _ in 0..n {
            results.push(f());
        }
        total += start.elapsed();
        results.clear();
        left -= n;
    }
    total
}

/// Times `iters` calls of `f` on owned calls made by `make` before the clock starts.
fn per_owned_call(iters: u64, make: impl Fn() -> Call, f: impl Fn(Call) -> ToolResult) -> Duration {
    let mut total = Duration::ZERO;
    let mut results = Vec::with_capacity(RUN as usize);
    let mut left = iters;
    while left > 0 {
        let n = left.min(RUN);
        let calls: Vec<Call> = (0..n).map(|_| make()).collect();
        let start = Instant::now();
        for call in calls {
            results.push(f(call));
        }
        total += start.elapsed();
        results.clear();
        left -= n;
    }
    total
}

/// Times each call alone (clock pair included), the owned call cloned just before.
fn timed_alone(iters: u64, make: impl Fn() -> Call, f: impl Fn(Call) -> ToolResult) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let call = make();
        let start = Instant::now();
        let result = f(call);
        total += start.elapsed();
        drop(result);
    }
    total
}

fn block(id: &str, tool: &str, input: Value) -> Value {
    json!({"id": id, "name": tool, "input": input})
}

fn dispatch(c: &mut Criterion) {
    let h = harness();
    let args = json!({"path": "src", "limit": 10, "recursive": true});
    let bad_args = json!({"path": 3, "limit": "10", "recursive": true});
    let valid = block("toolu_01", "list", args.clone());
    let valid_owned = block("toolu_01", "list_owned", args.clone());
    let invalid = block("toolu_02", "list", bad_args.clone());
    let text = valid.to_string();
    assert_eq!(h.handle_ref(&valid).content(), "ok");
    assert_eq!(h.handle_ref(&valid_owned).content(), "ok");
    assert_eq!(h.handle(text.as_str()), h.handle_ref(&valid));
    let refused = h.handle_ref(&invalid);
    assert_eq!(refused.violations().len(), 2);
    assert!(refused.content().ends_with("call \"list\" again"));
    assert_eq!(h.handle(invalid.clone()), refused);

    // The borrowed entry point: nothing to free, the handler reads the arguments in place.
    c.bench_function("dispatch/valid_3_fields_ref", |b| {
        b.iter_custom(|iters| per_call(iters, || h.handle_ref(&valid)))
    });
    c.bench_function("dispatch/valid_3_fields_ref_owning_handler", |b| {
        b.iter_custom(|iters| per_call(iters, || h.handle_ref(&valid_owned)))
    });
    c.bench_function("dispatch/invalid_2_violations_ref", |b| {
        b.iter_custom(|iters| per_call(iters, || h.handle_ref(&invalid)))
    });
    c.bench_function("dispatch/valid_3_fields_from_text_ref", |b| {
        b.iter_custom(|iters| per_call(iters, || h.handle_ref(text.as_str())))
    });

    // The owned entry point: the harness takes the call and frees it.
    c.bench_function("dispatch/valid_3_fields_owned", |b| {
        b.iter_custom(|iters| {
            per_owned_call(iters, || Call::Value(valid.clone()), |call| h.handle(call))
        })
    });
    c.bench_function("dispatch/invalid_2_violations_owned", |b| {
        b.iter_custom(|iters| {
            per_owned_call(
                iters,
                || Call::Value(invalid.clone()),
                |call| h.handle(call),
            )
        })
    });
    c.bench_function("dispatch/valid_3_fields_from_text_owned", |b| {
        b.iter_custom(|iters| {
            per_owned_call(iters, || Call::Text(text.clone()), |call| h.handle(call))
        })
    });
    // As the first version of this bench measured: one owned call, one clock pair.
    c.bench_function("dispatch/valid_3_fields_owned_timed_alone", |b| {
        b.iter_custom(|iters| {
            timed_alone(iters, || Call::Value(valid.clone()), |call| h.handle(call))
        })
    });

    // The parts that bound dispatch from below.
    let tool = h.registry().get("list").expect("registered");
    c.bench_function("dispatch/part_validate_only", |b| {
        b.iter(|| tool.schema().is_valid(&args))
    });
    c.bench_function("dispatch/part_violations_only", |b| {
        b.iter(|| tool.schema().violations(&bad_args))
    });
    // The validator's own share of `violations`: iterating its errors, nothing composed.
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(tool.schema().effective_schema())
        .expect("the effective schema compiles");
    c.bench_function("dispatch/part_validator_iter_errors", |b| {
        b.iter(|| validator.iter_errors(&bad_args).count())
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
    c.bench_function("dispatch/part_parse_text_to_value", |b| {
        b.iter(|| serde_json::from_str::<Value>(&text).expect("JSON"))
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
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
