//! The stdout reader's backpressure (issue 12, row 3): an adapter that writes hundreds of MiB
//! of lines nobody asked for, while the runner is not reading (here: during the stop grace at
//! the end of the run), must block on its own pipe, not grow the runner's memory.
//!
//! Its own test binary, so that the process's peak resident set (`VmHWM`) is this test's alone.
//! A memory bound, not a timing: the adapter writes 384 MiB; the runner may hold a line or two.

use std::time::Duration;

use harness_conformance_driver::client::{ProcessHarness, ProcessOptions};
use harness_conformance_driver::runner::{self, RunConfig};
use harness_conformance_suite::case::Case;
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::loader::decode_case;
use harness_conformance_suite::verdict::Verdict;

fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn an_adapter_writing_ahead_blocks_instead_of_growing_the_runner() {
    let Some(before) = peak_kib() else {
        return; // no /proc: nothing to measure
    };
    let case: Case = decode_case(
        r#"{"id": "t/trigger", "requirements": ["COR-1"], "description": "one plain call",
            "tools": [{"name": "t", "input_schema": {"type": "object"}, "behavior": {"return": {"text": "ok"}}}],
            "calls": [{"id": "toolu_1", "name": "t", "input": {}}],
            "expect": {"results": [{"is_error": false, "content": {"equals": "ok"}}]}}"#,
    )
    .unwrap();
    let cmd = format!(
        "exec python3 {}/tests/misbehaving/adapter.py write-ahead",
        env!("CARGO_MANIFEST_DIR")
    );
    let factory = move || -> Box<dyn Harness + Send> {
        Box::new(ProcessHarness::new(&cmd, ProcessOptions::default()))
    };
    let cfg = RunConfig {
        timeout: Duration::from_secs(30),
        ..RunConfig::default()
    };
    let r = runner::run(&[&case], &factory, &cfg, &|_, _, _| {});
    assert_eq!(r.outcomes[0].verdict, Verdict::Pass, "{:?}", r.outcomes);
    let grew = peak_kib().unwrap().saturating_sub(before);
    // Two 512 KiB lines in flight plus the pipe is about 1.1 MiB; allow 32 MiB of slack for
    // the threads and allocator. The unbounded queue this replaced grew by ~300 MiB here.
    assert!(
        grew < 32 * 1024,
        "the runner's peak resident set grew by {grew} KiB while the adapter wrote ahead"
    );
}
