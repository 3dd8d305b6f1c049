//! The binary speaks the protocol: start/run/stop round-trip, and bad input is refused.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use harness_conformance_protocol::{decode_hello, decode_reply, ReplyOutcome, PROTOCOL_VERSION};
use serde_json::json;

fn adapter(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_harness-ref-adapter"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the adapter binary starts");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn run_line(seq: u64) -> String {
    json!({"cmd": "run", "seq": seq, "case": {
        "id": "smoke/echo",
        "tools": [{"name": "echo", "input_schema": {"type": "object",
                   "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                   "behavior": {"return": {"echo_args": true}}}],
        "calls": [{"id": "toolu_1", "name": "echo", "input": {"a": 1}},
                  {"id": "toolu_2", "name": "echo", "input": {"a": "1"}}]}})
    .to_string()
}

/// A `start` line, then one `run`.
fn start_and_run() -> String {
    format!(
        "{}\n{}\n",
        json!({"cmd": "start", "protocol": PROTOCOL_VERSION}),
        run_line(1)
    )
}

#[test]
fn start_run_stop_round_trips() {
    let input = format!(
        "{}\n{}\n{}\n{}\n",
        json!({"cmd": "start", "protocol": PROTOCOL_VERSION}),
        run_line(7),
        run_line(8),
        json!({"cmd": "stop"})
    );
    let out = adapter(&[], input.as_bytes());
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    let hello = decode_hello(lines[0].as_bytes()).unwrap();
    assert_eq!(hello.protocol, PROTOCOL_VERSION);
    assert_eq!(hello.implementation.language, "rust");
    for (line, seq) in lines[1..].iter().zip([7, 8]) {
        let reply = decode_reply(line.as_bytes()).unwrap();
        assert_eq!((reply.seq, reply.case.as_str()), (seq, "smoke/echo"));
        let ReplyOutcome::Observed {
            results,
            invocations,
            ..
        } = reply.outcome().unwrap()
        else {
            panic!("not observed: {line}")
        };
        assert_eq!(results.len(), 2);
        assert_eq!(results[0].tool_use_id, json!("toolu_1"));
        assert!(!results[0].is_error);
        assert!(results[1].is_error);
        assert_eq!(invocations.len(), 1, "the invalid call never ran");
        assert_eq!(invocations[0].args, json!({"a": 1}));
    }
}

#[test]
fn a_fault_is_chosen_on_the_command_line() {
    let input = start_and_run();
    let out = adapter(
        &["--fault", "runs-handler-before-validating"],
        input.as_bytes(),
    );
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let reply = decode_reply(stdout.lines().nth(1).unwrap().as_bytes()).unwrap();
    assert_eq!(
        reply.invocations.unwrap().len(),
        2,
        "the invalid call ran too"
    );
    let listed = adapter(&["--list-faults"], b"");
    assert!(String::from_utf8(listed.stdout)
        .unwrap()
        .contains("coerces-types\t"));
}

#[test]
fn a_legitimate_variant_is_chosen_on_the_command_line() {
    let input = start_and_run();
    let out = adapter(&["--variant=no-codes"], input.as_bytes());
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let hello = decode_hello(stdout.lines().next().unwrap().as_bytes()).unwrap();
    assert!(hello.capabilities.codes.is_none());
    let reply = decode_reply(stdout.lines().nth(1).unwrap().as_bytes()).unwrap();
    let results = reply.results.unwrap();
    assert!(results[1].is_error && results[1].code.is_none());
    let listed = adapter(&["--list-variants"], b"");
    assert!(String::from_utf8(listed.stdout)
        .unwrap()
        .contains("folds-malformed-call\t"));
    for args in [
        &["--variant", "nope"][..],
        &["--variant", "no-codes", "--fault", "loses-id"],
        &["--variant"],
    ] {
        let out = adapter(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let unknown = adapter(&["--variant", "nope"], b"");
    assert!(String::from_utf8_lossy(&unknown.stderr)
        .contains("unknown variant \"nope\"; the variants are: folds-malformed-call"));
}

#[test]
fn bad_input_is_refused_with_a_clear_message() {
    let start = json!({"cmd": "start", "protocol": PROTOCOL_VERSION}).to_string();
    let bad: [(&str, String, &str); 5] = [
        ("not json", format!("{start}\nhello\n"), "line 2"),
        (
            "unknown command",
            format!("{start}\n{{\"cmd\":\"go\"}}\n"),
            "line 2",
        ),
        (
            "extra field",
            "{\"cmd\":\"stop\",\"now\":true}\n".into(),
            "line 1",
        ),
        (
            "wrong protocol",
            "{\"cmd\":\"start\",\"protocol\":99}\n".into(),
            "protocol 99",
        ),
        (
            "run before start",
            format!("{}\n", run_line(1)),
            "before `start`",
        ),
    ];
    for (what, input, needle) in bad {
        let out = adapter(&[], input.as_bytes());
        assert!(!out.status.success(), "{what}: exited 0");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(needle), "{what}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{what}: one line: {stderr}");
    }
    let not_utf8 = adapter(&[], b"{\"cmd\":\xff}\n");
    assert!(!not_utf8.status.success());
    assert!(String::from_utf8_lossy(&not_utf8.stderr).contains("UTF-8"));
    let bad_fault = adapter(&["--fault", "nope"], b"");
    assert_eq!(bad_fault.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_fault.stderr).contains("unknown fault \"nope\""));
}

#[test]
fn end_of_input_without_stop_exits_cleanly() {
    let out = adapter(&[], b"");
    assert!(out.status.success());
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}
