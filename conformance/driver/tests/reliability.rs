//! The runner's own reliability: adapters that hang, crash, print garbage, print a partial
//! line and exit, print a 100 MB line, flood stderr, answer for the wrong case, or die during
//! the handshake. For each, the run finishes (within its timeouts), the misbehaving case is an
//! ERROR that quotes the offending bytes (bounded), and the next case runs normally.
//!
//! The misbehaving adapters are one small Python script, `tests/misbehaving/adapter.py MODE`,
//! that misbehaves only on cases whose id ends with `/trigger`.

use std::time::Duration;

use harness_conformance_driver::client::{ProcessHarness, ProcessOptions};
use harness_conformance_driver::driver::DriverLimits;
use harness_conformance_driver::runner::{self, RunConfig};
use harness_conformance_suite::case::Case;
use harness_conformance_suite::harness::Harness;
use harness_conformance_suite::loader::decode_case;
use harness_conformance_suite::run::run_case;
use harness_conformance_suite::run::RunResult;
use harness_conformance_suite::verdict::Verdict;

fn case(id: &str) -> Case {
    decode_case(&format!(
        r#"{{"id": "{id}", "requirements": ["COR-1"], "description": "one plain call",
            "tools": [{{"name": "t", "input_schema": {{"type": "object"}}, "behavior": {{"return": {{"text": "ok"}}}}}}],
            "calls": [{{"id": "toolu_1", "name": "t", "input": {{}}}}],
            "expect": {{"results": [{{"is_error": false, "content": {{"equals": "ok"}}}}]}}}}"#
    ))
    .unwrap()
}

fn command(mode: &str) -> String {
    format!(
        "exec python3 {}/tests/misbehaving/adapter.py {mode}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn options() -> ProcessOptions {
    ProcessOptions {
        start_timeout: Duration::from_secs(10),
        max_restarts: 3,
        limits: DriverLimits {
            max_line: 1 << 20,
            stderr_tail: 4096,
        },
    }
}

/// Runs before → trigger → after on one worker.
fn run_mode(mode: &str, timeout: Duration) -> RunResult {
    let cases = [case("t/before"), case("t/trigger"), case("t/after")];
    let refs: Vec<&Case> = cases.iter().collect();
    let cmd = command(mode);
    let factory =
        move || -> Box<dyn Harness + Send> { Box::new(ProcessHarness::new(&cmd, options())) };
    let cfg = RunConfig {
        jobs: 1,
        timeout,
        ..RunConfig::default()
    };
    runner::run(&refs, &factory, &cfg, &|_, _, _| {})
}

/// The trigger case errs with a bounded message containing `needle`; its neighbours pass.
fn assert_contained(result: &RunResult, needle: &str) {
    let v: Vec<(&str, Verdict)> = result
        .outcomes
        .iter()
        .map(|o| (o.id.as_str(), o.verdict))
        .collect();
    assert_eq!(
        v,
        vec![
            ("t/before", Verdict::Pass),
            ("t/trigger", Verdict::Error),
            ("t/after", Verdict::Pass)
        ],
        "{:#?}",
        result.outcomes
    );
    let msg = result.outcomes[1].messages.join("\n");
    assert!(msg.contains(needle), "{needle:?} not in {msg:?}");
    assert!(
        msg.len() < 3000,
        "the error message is not bounded: {} bytes",
        msg.len()
    );
}

#[test]
fn a_hanging_adapter_times_out_and_is_restarted() {
    let r = run_mode("hang", Duration::from_millis(700));
    assert_contained(&r, "adapter_timeout");
}

#[test]
fn a_crash_mid_case_is_an_error_with_the_stderr_tail() {
    let r = run_mode("crash", Duration::from_secs(10));
    assert_contained(&r, "adapter_exited");
    assert_contained(&r, "RuntimeError: adapter crashed mid-case");
}

#[test]
fn garbage_is_quoted() {
    let r = run_mode("garbage", Duration::from_secs(10));
    assert_contained(&r, "adapter_garbage");
    assert_contained(&r, "garbage \\u{1} <html>not json</html>");
}

#[test]
fn a_partial_line_then_exit_is_quoted() {
    let r = run_mode("partial", Duration::from_secs(10));
    assert_contained(&r, "adapter_exited");
    assert_contained(&r, r#"\"case\": \"t/trigger\", \"resu"#);
}

#[test]
fn a_100_mb_line_is_cut_not_buffered() {
    let r = run_mode("huge", Duration::from_secs(30));
    assert_contained(&r, "adapter_line_too_long");
    assert_contained(&r, "AAAAAAAA");
}

#[test]
fn a_stderr_flood_neither_blocks_nor_grows() {
    let r = run_mode("flood", Duration::from_secs(30));
    // Every case passes: the flood is drained while the adapter works.
    assert!(
        r.outcomes.iter().all(|o| o.verdict == Verdict::Pass),
        "{:#?}",
        r.outcomes
    );
}

#[test]
fn a_reply_with_two_answers_is_quoted() {
    let r = run_mode("two-answers", Duration::from_secs(10));
    assert_contained(&r, "exactly one of `results`, `skip`, `error`");
    assert_contained(&r, "and also skipped");
}

#[test]
fn an_answer_for_another_case_is_an_error() {
    let r = run_mode("wrong-id", Duration::from_secs(10));
    assert_contained(&r, "adapter_wrong_answer");
    assert_contained(&r, "somewhere/else");
}

#[test]
fn an_exit_during_the_handshake_errs_every_case_with_bounded_restarts() {
    let cases = [
        case("t/a"),
        case("t/b"),
        case("t/c"),
        case("t/d"),
        case("t/e"),
        case("t/f"),
    ];
    let mut h = ProcessHarness::new(&command("exit-handshake"), options());
    let cfg = RunConfig::default();
    let mut messages = Vec::new();
    for c in &cases {
        let (o, _) = run_case(&mut h, c, cfg.timeout);
        assert_eq!(o.verdict, Verdict::Error);
        messages.push(o.messages.join(" "));
    }
    assert!(messages[0].contains("adapter_handshake"), "{}", messages[0]);
    assert!(
        messages[0].contains("giving up during the handshake"),
        "{}",
        messages[0]
    );
    assert!(
        messages.last().unwrap().contains("adapter_gave_up"),
        "{messages:#?}"
    );
    // One start plus at most `max_restarts` restarts.
    assert_eq!(h.starts(), 4);
}

#[test]
fn a_hanging_handshake_times_out() {
    let mut opts = options();
    opts.start_timeout = Duration::from_millis(500);
    opts.max_restarts = 0;
    let mut h = ProcessHarness::new(&command("hang-handshake"), opts);
    let e = h.hello().unwrap_err();
    assert!(e.to_string().contains("adapter_handshake"), "{e}");
    assert!(e.to_string().contains("no answer to the handshake"), "{e}");
    let again = h.hello().unwrap_err();
    assert!(again.to_string().contains("adapter_gave_up"), "{again}");
}

#[test]
fn two_workers_share_the_cases() {
    let cases: Vec<Case> = (0..8).map(|i| case(&format!("t/c{i}"))).collect();
    let refs: Vec<&Case> = cases.iter().collect();
    let cmd = command("ok");
    let factory =
        move || -> Box<dyn Harness + Send> { Box::new(ProcessHarness::new(&cmd, options())) };
    let cfg = RunConfig {
        jobs: 2,
        ..RunConfig::default()
    };
    let r = runner::run(&refs, &factory, &cfg, &|_, _, _| {});
    let ids: Vec<&str> = r.outcomes.iter().map(|o| o.id.as_str()).collect();
    let want: Vec<String> = (0..8).map(|i| format!("t/c{i}")).collect();
    assert_eq!(
        ids,
        want.iter().map(String::as_str).collect::<Vec<_>>(),
        "outcomes keep the case order"
    );
    assert!(
        r.outcomes.iter().all(|o| o.verdict == Verdict::Pass),
        "{:#?}",
        r.outcomes
    );
}
