//! Dispatch cost in instructions, for machines too noisy to time: the same calls as
//! `benches/dispatch.rs`, dispatched `N` times inside one never-inlined function, so
//! `valgrind --tool=callgrind --toggle-collect=dispatch_instructions::dispatch_all` counts
//! only the dispatches (owned calls are made before, results freed after).
//!
//!     cargo build --release -p harness-ref --example dispatch_instructions
//!     valgrind --tool=callgrind --toggle-collect='dispatch_instructions::dispatch_all' \
//!         target/release/examples/dispatch_instructions valid_ref 10000
//!
//! Instructions per call = the collected total / N. Modes: `valid_owned`, `invalid_owned`,
//! `text_owned` (`Harness::handle`, which takes the call and frees it) and `valid_ref`,
//! `invalid_ref`, `text_ref` (`Harness::handle_ref`; the call stays the caller's).

use harness_ref::{
    Call, CallContext, Execution, Harness, HarnessConfig, Registry, Tool, ToolOutput, ToolResult,
};
use serde_json::{json, Value};

#[path = "../benches/support/mod.rs"]
mod support;

fn harness() -> Harness {
    let mut registry = Registry::new();
    let tool = Tool::borrowing(
        "list",
        "List files.",
        support::schema(),
        |_: &Value, _: &CallContext<'_>| Ok(ToolOutput::text("ok")),
    );
    registry
        .register(tool.execution(Execution::Inline))
        .expect("the tool registers");
    Harness::new(registry, HarnessConfig::default())
}

#[inline(never)]
fn dispatch_all(h: &Harness, owned: Vec<Call>, borrowed: &Call, n: usize) -> Vec<ToolResult> {
    let mut out = Vec::with_capacity(n);
    if owned.is_empty() {
        for _ in 0..n {
            out.push(h.handle_ref(borrowed));
        }
    } else {
        for call in owned {
            out.push(h.handle(call));
        }
    }
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "valid_ref".to_string());
    let n: usize = args
        .next()
        .map_or(10_000, |s| s.parse().expect("N is a number"));
    let h = harness();
    let valid = json!({"id": "toolu_01", "name": "list", "input": {"path": "src", "limit": 10, "recursive": true}});
    let invalid = json!({"id": "toolu_02", "name": "list", "input": {"path": 3, "limit": "10", "recursive": true}});
    let call = match mode.trim_end_matches("_owned").trim_end_matches("_ref") {
        "valid" => Call::Value(valid),
        "invalid" => Call::Value(invalid),
        "text" => Call::Text(valid.to_string()),
        other => panic!("unknown mode {other}"),
    };
    let owned = if mode.ends_with("_owned") {
        vec![call.clone(); n]
    } else {
        Vec::new()
    };
    let results = dispatch_all(&h, owned, &call, n);
    assert_eq!(results.len(), n);
    println!(
        "{mode}: {n} calls, first result is_error={}",
        results[0].is_error()
    );
}
