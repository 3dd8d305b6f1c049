//! Verdicts end to end, with a scripted harness standing in for an adapter: each test fixes
//! what the "harness" answers and checks who gets the blame and what the message says.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use harness_conformance_protocol::{
    message::decode_hello, CapCapability, Hello, ObservedResult, Reply, Strategy, Unit, WireCase,
};
use harness_conformance_suite::baseline;
use harness_conformance_suite::baseline::Baseline;
use harness_conformance_suite::case::Case;
use harness_conformance_suite::harness::{AdapterError, Harness};
use harness_conformance_suite::loader::decode_case;
use harness_conformance_suite::run::run_case;
use harness_conformance_suite::verdict::{CaseOutcome, Verdict};
use serde_json::{json, Value};

type Answer = Box<dyn Fn(&WireCase) -> Reply + Send>;

/// A harness whose hello and replies are scripted; it records the cases it was sent.
struct Scripted {
    hello: Hello,
    answer: Answer,
    sent: Arc<Mutex<Vec<WireCase>>>,
}

impl Harness for Scripted {
    fn hello(&mut self) -> Result<std::sync::Arc<Hello>, AdapterError> {
        Ok(std::sync::Arc::new(self.hello.clone()))
    }
    fn run(&mut self, case: &WireCase, _timeout: Duration) -> Result<Reply, AdapterError> {
        self.sent.lock().unwrap().push(case.clone());
        let mut r = (self.answer)(case);
        r.case = case.id.clone();
        Ok(r)
    }
}

fn hello(caps: Value) -> Hello {
    decode_hello(
        json!({"protocol": 1, "implementation": {"name": "scripted", "language": "rust", "version": "0"}, "capabilities": caps})
            .to_string()
            .as_bytes(),
    )
    .unwrap()
}

fn result(id: &str, is_error: bool, content: &str) -> ObservedResult {
    ObservedResult {
        tool_use_id: json!(id),
        is_error,
        content: content.to_owned(),
        ..ObservedResult::default()
    }
}

fn reply(results: Vec<ObservedResult>) -> Reply {
    Reply {
        results: Some(results),
        invocations: Some(vec![]),
        ..Reply::default()
    }
}

fn run_one(case: &Case, caps: Value, answer: Answer) -> (CaseOutcome, Vec<WireCase>) {
    run_with(case, caps, answer, Baseline::new())
}

fn run_with(
    case: &Case,
    caps: Value,
    answer: Answer,
    known: Baseline,
) -> (CaseOutcome, Vec<WireCase>) {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let mut h = Scripted {
        hello: hello(caps),
        answer,
        sent: Arc::clone(&sent),
    };
    let (mut o, _) = run_case(&mut h, case, Duration::from_secs(10));
    baseline::apply(&known, &mut o);
    let sent = sent.lock().unwrap().clone();
    (o, sent)
}

fn plain_case() -> Case {
    decode_case(
        r#"{"id": "t/plain", "requirements": ["OUT-1"], "description": "d",
            "tools": [{"name": "t", "input_schema": {"type": "object"}, "behavior": {"return": {"text": "ok"}}}],
            "calls": [{"id": "toolu_1", "name": "t", "input": {}}],
            "expect": {"results": [{"is_error": false, "content": {"equals": "ok"}}], "invocations": {"t": 1}}}"#,
    )
    .unwrap()
}

fn cap_case() -> Case {
    decode_case(
        r#"{"id": "cap/lines", "requirements": ["CAP-1"], "description": "d",
            "config": {"cap": {"strategy": "head_tail"}},
            "tools": [{"name": "t", "input_schema": {"type": "object"},
                       "behavior": {"return": {"generate": {"lines": {"size": {"cap": 3.0, "plus": 0}, "width": 20, "last": "ValueError: boom"}}}}}],
            "calls": [{"id": "toolu_1", "name": "t", "input": {}}],
            "expect": {"results": [{"is_error": false, "cap": {"truncated": true, "keeps_head": true, "keeps_last_line": true, "note_counts": true, "idempotent": true}}]}}"#,
    )
    .unwrap()
}

fn capped_caps() -> Value {
    json!({"cap": {"unit": "chars", "limit": 400, "strategies": ["head_tail"]}, "keywords": ["type"]})
}

/// Head+tail the generated output honestly, the way a good harness does.
fn honest_cut(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_owned();
    }
    let chars: Vec<char> = text.chars().collect();
    let head: String = chars[..200].iter().collect();
    let tail: String = chars[chars.len() - 150..].iter().collect();
    let omitted = chars.len() - 350;
    format!("{head}\n[… {omitted} chars omitted …]\n{tail}")
}

fn generated(case: &WireCase) -> String {
    use harness_conformance_protocol::{materialize, Behavior, Output};
    match &case.tools[0].behavior {
        Behavior::Return {
            output: Output::Generate(g),
        } => materialize(g, Unit::Chars).unwrap(),
        Behavior::Return {
            output: Output::Text(t),
        } => t.clone(),
        other => panic!("{other:?}"),
    }
}

/// The harness answers every case with these results.
fn answering(results: Vec<ObservedResult>) -> Answer {
    Box::new(move |_| reply(results.clone()))
}

/// How a harness cuts an output.
type Cut = fn(&str) -> String;

/// The harness answers the generated output of a cap case's one call, passed through `cut`.
fn cutting(cut: Cut) -> Answer {
    Box::new(move |case| reply(vec![result("toolu_1", false, &cut(&generated(case)))]))
}

/// The right answer to [`plain_case`]: "ok", the handler run once.
fn ran_ok() -> Answer {
    Box::new(|_| {
        let mut r = reply(vec![result("toolu_1", false, "ok")]);
        r.invocations = Some(vec![serde_json::from_value(
            json!({"tool": "t", "args": {}}),
        )
        .unwrap()]);
        r
    })
}

/// Asserts the verdict, and that some message says each of `says`.
fn assert_outcome(o: &CaseOutcome, verdict: Verdict, says: &[&str]) {
    assert_eq!(o.verdict, verdict, "{:?}", o.messages);
    for s in says {
        assert!(
            o.messages.iter().any(|m| m.contains(s)),
            "no message says {s:?}: {:?}",
            o.messages
        );
    }
}

fn type_only() -> Value {
    json!({"keywords": ["type"]})
}

#[test]
fn a_correct_answer_passes() {
    let (o, _) = run_one(&plain_case(), type_only(), ran_ok());
    assert_outcome(&o, Verdict::Pass, &[]);
}

#[test]
fn a_wrong_flag_fails_and_says_what_was_returned() {
    let answer = answering(vec![result("toolu_1", true, "boom")]);
    let (o, _) = run_one(&plain_case(), type_only(), answer);
    assert_outcome(
        &o,
        Verdict::Fail,
        &[
            "expected is_error false, the harness returned is_error true",
            "\"boom\"",
            "expected the handler of `t` to run 1 time(s), it ran 0 time(s)",
        ],
    );
}

/// Two calls, `a` then `b`, of a tool that answers "ok".
fn two_calls_case() -> Case {
    decode_case(
        r#"{"id": "t/two", "requirements": ["CORR-1"], "description": "d",
            "tools": [{"name": "t", "input_schema": {}, "behavior": {"return": {"text": "ok"}}}],
            "calls": [{"id": "a", "name": "t", "input": {}}, {"id": "b", "name": "t", "input": {}}],
            "expect": {"results": [{}, {}]}}"#,
    )
    .unwrap()
}

#[test]
fn without_call_ids_id_checks_are_not_run_and_id_fault_cases_skip() {
    // Swapped ids: a failure for a harness that sees ids, not the harness's to judge otherwise.
    let case = two_calls_case();
    let swapped = || answering(vec![result("b", false, "ok"), result("a", false, "ok")]);
    let (o, _) = run_one(&case, json!({"call_ids": false}), swapped());
    assert_outcome(&o, Verdict::Pass, &[]);
    assert_eq!(o.not_run.len(), 2, "{:?}", o.not_run);
    assert!(o
        .not_run
        .iter()
        .all(|n| n.reason.contains("call_ids: false")));
    assert!(
        o.checks.iter().any(|c| c.passed()),
        "the count check still runs"
    );
    let (o, _) = run_one(&case, json!({"call_ids": true}), swapped());
    assert_outcome(&o, Verdict::Fail, &[]);
    // A case whose fault is an id (missing, empty, not a string, reused) needs `call_ids`.
    for calls in [
        r#"[{"name": "t", "input": {}}]"#,
        r#"[{"id": "", "name": "t", "input": {}}]"#,
        r#"[{"id": 7, "name": "t", "input": {}}]"#,
        r#"[{"id": "a", "name": "t", "input": {}}, {"id": "a", "name": "t", "input": {}}]"#,
    ] {
        let n = calls.matches("\"name\"").count();
        let results = vec!["{}"; n].join(", ");
        let case = decode_case(&format!(
            r#"{{"id": "t/id", "requirements": ["CORR-4"], "description": "d",
                "tools": [{{"name": "t", "input_schema": {{}}, "behavior": {{"return": {{"text": "ok"}}}}}}],
                "calls": {calls}, "expect": {{"results": [{results}]}}}}"#
        ))
        .unwrap();
        let (o, sent) = run_one(&case, json!({"call_ids": false}), answering(vec![]));
        assert_outcome(&o, Verdict::Skip, &["`call_ids`"]);
        assert!(sent.is_empty(), "{calls}");
    }
}

#[test]
fn a_missing_keyword_skips_with_the_reason() {
    let (o, sent) = run_one(&plain_case(), json!({}), answering(vec![]));
    assert_outcome(&o, Verdict::Skip, &["`type`"]);
    assert!(sent.is_empty(), "a skipped case is not sent");
}

#[test]
fn adapter_skip_and_error_replies_are_skip_and_error() {
    for (answer, verdict, says) in [
        (
            Reply {
                skip: Some("cannot".into()),
                ..Reply::default()
            },
            Verdict::Skip,
            "cannot",
        ),
        (
            Reply {
                error: Some("adapter bug".into()),
                ..Reply::default()
            },
            Verdict::Error,
            "adapter bug",
        ),
    ] {
        let (o, _) = run_one(
            &plain_case(),
            type_only(),
            Box::new(move |_| answer.clone()),
        );
        assert_outcome(&o, verdict, &[says]);
    }
}

#[test]
fn an_honest_head_tail_cap_passes_with_sizes_resolved_against_the_declared_cap() {
    let (o, sent) = run_one(&cap_case(), capped_caps(), cutting(|t| honest_cut(t, 400)));
    assert_outcome(&o, Verdict::Pass, &[]);
    // The size was resolved to 3 × 400 before sending, and the idempotence re-run was sent.
    assert_eq!(sent.len(), 2);
    assert!(generated(&sent[0]).chars().count() <= 1200);
    assert!(generated(&sent[0]).chars().count() > 1100);
    assert_eq!(sent[1].calls.len(), 1);
}

/// A silent cut fails `truncated` (CAP-5) and `keeps_last_line` (HT-2); the note's numbers are
/// not evaluated, since there is no note to read them from (one fault, booked once).
#[test]
fn a_head_only_cut_without_a_note_fails_each_check() {
    let (o, _) = run_one(
        &cap_case(),
        capped_caps(),
        cutting(|t| t.chars().take(400).collect()),
    );
    assert_outcome(
        &o,
        Verdict::Fail,
        &["last line \"ValueError: boom\"", "with a note saying so"],
    );
    assert!(
        !o.messages
            .iter()
            .any(|m| m.contains("expected a note stating truly")),
        "{:?}",
        o.messages
    );
    let note_counts = o
        .not_run
        .iter()
        .find(|n| n.kind == harness_conformance_suite::blame::CheckKind::CapNoteCounts)
        .expect("the note's numbers are recorded as not evaluated");
    assert_eq!(
        note_counts.why,
        harness_conformance_suite::checks::Unevaluated::Presupposition
    );
}

#[test]
fn dishonest_cuts_fail_with_what_they_got_wrong() {
    // (the cut, what the messages must say)
    let cuts: [(Cut, &[&str]); 2] = [
        // A note that takes the content over the cap fails the universal cap check.
        (
            |t| {
                let chars: Vec<char> = t.chars().collect();
                let head: String = chars[..250].iter().collect();
                let tail: String = chars[chars.len() - 150..].iter().collect();
                format!("{head}[… {} chars omitted …]{tail}", chars.len() - 400)
            },
            &["the cap is 400 chars"],
        ),
        // Re-capping adds a second note: the follow-up's content differs from its input.
        (
            |t| {
                if t.chars().count() <= 400 {
                    format!("{t}!")
                } else {
                    honest_cut(t, 400)
                }
            },
            &["not idempotent"],
        ),
    ];
    for (cut, says) in cuts {
        let (o, _) = run_one(&cap_case(), capped_caps(), cutting(cut));
        assert_outcome(&o, Verdict::Fail, says);
    }
}

#[test]
fn a_harness_without_a_cap_fails_cap_cases_instead_of_skipping() {
    let (o, sent) = run_one(&cap_case(), type_only(), cutting(str::to_owned));
    // The one failing check is the size against the nominal cap, which says why.
    assert_outcome(&o, Verdict::Fail, &["declares no cap"]);
    let failing: Vec<&str> = o
        .checks
        .iter()
        .filter(|c| !c.passed())
        .map(|c| c.kind.as_str())
        .collect();
    assert_eq!(failing, vec!["cap.within"], "{:?}", o.messages);
    // How a cut is made is not judged on a harness that makes none.
    let not_run: Vec<&str> = o.not_run.iter().map(|n| n.kind.as_str()).collect();
    assert!(not_run.contains(&"cap.keeps_head"), "{not_run:?}");
    // Sizes resolve against the nominal 2000-char cap.
    assert!(generated(&sent[0]).chars().count() > 5000);
}

#[test]
fn swapped_ids_and_lost_results_fail() {
    for (results, says) in [
        (
            vec![result("b", false, "ok"), result("a", false, "ok")],
            "expected tool_use_id \"a\", the harness returned \"b\"",
        ),
        (
            vec![result("a", false, "ok")],
            "expected 2 result(s), one per call; the harness returned 1",
        ),
    ] {
        let (o, _) = run_one(&two_calls_case(), json!({}), answering(results));
        assert_outcome(&o, Verdict::Fail, &[says]);
    }
}

#[test]
fn leaked_secrets_and_replacement_characters_fail() {
    let case = decode_case(
        r#"{"id": "t/secret", "requirements": ["OUT-5"], "description": "d",
            "tools": [{"name": "t", "input_schema": {}, "behavior": {"raise": {"kind": "internal", "message": "db password SECRET-1234", "secret": "SECRET-1234"}}}],
            "calls": [{"id": "a", "name": "t", "input": {}}],
            "expect": {"results": [{"is_error": true}]}}"#,
    )
    .unwrap();
    let leak = result("a", true, "error: db password SECRET-1234 \u{FFFD}");
    let (o, _) = run_one(&case, json!({}), answering(vec![leak]));
    assert_outcome(
        &o,
        Verdict::Fail,
        &["leaks an internal error's text", "U+FFFD"],
    );
}

#[test]
fn codes_are_checked_through_the_code_map_only_when_declared() {
    let case = decode_case(
        r#"{"id": "t/code", "requirements": ["OUT-7"], "description": "d",
            "tools": [], "calls": [{"id": "a", "name": "nope", "input": {}}],
            "expect": {"results": [{"is_error": true, "class": "unknown_tool"}]}}"#,
    )
    .unwrap();
    let mut coded = result("a", true, "no such tool");
    coded.code = Some("E_TOOL".into());
    // (the hello's capabilities, the verdict, what a message says)
    for (caps, verdict, says) in [
        // No codes declared: the class is not checked.
        (json!({}), Verdict::Pass, &[][..]),
        (
            json!({"codes": {"unknown_tool": "E_TOOL"}}),
            Verdict::Pass,
            &[],
        ),
        (
            json!({"codes": {"unknown_tool": "E_UNKNOWN"}}),
            Verdict::Fail,
            &["expected code \"E_UNKNOWN\" (class `unknown_tool`)"],
        ),
    ] {
        let (o, _) = run_one(&case, caps, answering(vec![coded.clone()]));
        assert_outcome(&o, verdict, says);
    }
}

/// A class check the harness's declared codes rule out is a capability skip whatever the answer:
/// a success where an error was expected, or no result at all, does not make it "not evaluated".
#[test]
fn a_class_check_without_codes_stays_a_capability_skip_on_any_answer() {
    use harness_conformance_suite::{blame::CheckKind, checks::Unevaluated};
    let case = decode_case(
        r#"{"id": "t/code", "requirements": ["OUT-7"], "description": "d",
            "tools": [], "calls": [{"id": "a", "name": "nope", "input": {}}],
            "expect": {"results": [{"is_error": true, "class": "unknown_tool"}]}}"#,
    )
    .unwrap();
    // (the harness's codes, the answer, why the class check did not run)
    for (caps, answer, why) in [
        (
            json!({}),
            vec![result("a", false, "ran")],
            Unevaluated::Capability,
        ),
        (json!({}), vec![], Unevaluated::Capability),
        (
            json!({"codes": {"unknown_tool": "E_TOOL"}}),
            vec![result("a", false, "ran")],
            Unevaluated::Presupposition,
        ),
        (
            json!({"codes": {"unknown_tool": "E_TOOL"}}),
            vec![],
            Unevaluated::Unanswered,
        ),
    ] {
        let (o, _) = run_one(&case, caps.clone(), answering(answer));
        let class = o
            .not_run
            .iter()
            .find(|n| n.kind == CheckKind::Class)
            .unwrap_or_else(|| panic!("{caps}: the class check ran: {:?}", o.messages));
        assert_eq!(class.why, why, "{caps}: {}", class.reason);
    }
}

#[test]
fn equals_output_on_a_raising_tool_is_a_bug_in_the_case() {
    let case = decode_case(
        r#"{"id": "t/bug", "requirements": ["OUT-1"], "description": "d",
            "tools": [{"name": "t", "input_schema": {}, "behavior": {"raise": {"kind": "domain", "message": "no"}}}],
            "calls": [{"id": "a", "name": "t", "input": {}}],
            "expect": {"results": [{"content": {"equals_output": true}}]}}"#,
    )
    .unwrap();
    let (o, _) = run_one(&case, json!({}), answering(vec![result("a", true, "no")]));
    assert_outcome(&o, Verdict::BugInCase, &[]);
}

#[test]
fn the_baseline_turns_failures_into_xfail_and_passes_into_stale() {
    let b = baseline::Baseline::parse(
        r#"{"t/plain": {"reason": "known", "link": "https://example.org/1"}}"#,
        harness_conformance_suite::SUITE_VERSION,
    )
    .unwrap();
    let wrong = answering(vec![result("toolu_1", true, "x")]);
    let (o, _) = run_with(&plain_case(), type_only(), wrong, b.clone());
    assert_outcome(&o, Verdict::Xfail, &[]);
    assert!(!o.verdict.is_unexpected());
    let (o, _) = run_with(&plain_case(), type_only(), ran_ok(), b);
    assert_outcome(&o, Verdict::Stale, &[]);
    assert!(o.verdict.is_unexpected());
}

#[test]
fn unit_and_strategy_needs_follow_the_declared_cap() {
    let mut case = cap_case();
    case.config.cap.as_mut().unwrap().unit = Some(Unit::Bytes);
    let fixed_chars = json!({"cap": {"unit": "chars", "limit": 400, "strategies": ["head_tail"]}, "keywords": ["type"]});
    let (o, _) = run_one(&case, fixed_chars, answering(vec![]));
    assert_outcome(&o, Verdict::Skip, &["cap.unit.bytes"]);
    case.config.cap.as_mut().unwrap().strategy = Some(Strategy::HeadOnly);
    let c = CapCapability {
        unit: Unit::Bytes,
        limit: 10,
        configurable: true,
        strategies: vec![Strategy::HeadTail],
        units: Vec::new(),
        note: None,
        spill: None,
        estimator: None,
    };
    let caps = json!({"cap": c, "keywords": ["type"]});
    let (o, _) = run_one(&case, caps, answering(vec![]));
    assert_outcome(&o, Verdict::Skip, &["cap.strategy.head_only"]);
}
