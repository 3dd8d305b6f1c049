//! The security gates (`harness_ref::security`): one test per gate and code, the order of the
//! gates, idempotency (sequential and concurrent duplicates), prepare/commit (every binding),
//! audit events (one per call, masked), and the proptest properties of seed 004: denied calls
//! produce no effect, invalid paths never escape the workspace, duplicate keys never duplicate
//! an effect, output is always capped.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use harness_ref::cap::{CapConfig, Unit};
use harness_ref::security::{
    normalize, Approval, AuditSink, AuthRequest, Authorizer, Bounds, CallOptions, Caller, Decision,
    Effect, Gate, ManualClock, MapResolver, MemoryAuditSink, SecureHarness, Target, ToolPolicy,
};
use harness_ref::{
    CallContext, ErrorCode, Execution, Harness, HarnessConfig, Registry, Tool, ToolError,
    ToolOutput,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// A tool whose handler counts its runs (the "effect") and echoes its arguments.
fn counted(name: &str, schema: Value, runs: Arc<AtomicUsize>) -> Tool {
    Tool::new(
        name,
        "A counted effect.",
        schema,
        move |args: Value, _ctx: &CallContext<'_>| {
            runs.fetch_add(1, Ordering::SeqCst);
            Ok(ToolOutput::text(format!("done {args}")))
        },
    )
    .execution(Execution::Inline)
}

fn write_schema() -> Value {
    json!({"type": "object",
           "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
           "required": ["path", "text"]})
}

fn transfer_schema() -> Value {
    json!({"type": "object",
           "properties": {"to": {"type": "string"}, "amount": {"type": "integer", "minimum": 1},
                          "pin": {"type": "string"}},
           "required": ["to", "amount"]})
}

struct Fixture {
    secure: SecureHarness,
    writes: Arc<AtomicUsize>,
    transfers: Arc<AtomicUsize>,
    audit: Arc<MemoryAuditSink>,
    clock: Arc<ManualClock>,
}

fn fixture() -> Fixture {
    let writes = Arc::new(AtomicUsize::new(0));
    let transfers = Arc::new(AtomicUsize::new(0));
    let mut registry = Registry::new();
    registry
        .register(counted("write_file", write_schema(), writes.clone()))
        .unwrap();
    registry
        .register(counted("transfer", transfer_schema(), transfers.clone()))
        .unwrap();
    let harness = Harness::new(registry, HarnessConfig::default());
    let audit = Arc::new(MemoryAuditSink::new());
    let clock = Arc::new(ManualClock::new(1_000_000));
    let secure = SecureHarness::new(harness)
        .policy(
            "write_file",
            ToolPolicy::new("files.write")
                .effect(Effect::Write)
                .target(Target::Pointer("/path".into()))
                .path("/path")
                .bounds(Bounds {
                    max_string_chars: Some(1000),
                    max_array_items: Some(10),
                    max_depth: Some(4),
                })
                .cost(1),
        )
        .policy(
            "transfer",
            ToolPolicy::new("payments.send")
                .effect(Effect::External)
                .target(Target::Pointer("/to".into()))
                .sensitive("/pin")
                .cost(5)
                .requires_approval()
                .prepare_commit()
                .contract_version("2"),
        )
        .resolver(Arc::new(
            MapResolver::new().link("out", "/etc").link("up", ".."),
        ))
        .audit(audit.clone())
        .clock(clock.clone())
        .budget(12)
        .token_ttl(Duration::from_secs(60));
    Fixture {
        secure,
        writes,
        transfers,
        audit,
        clock,
    }
}

fn alice() -> Caller {
    Caller::new("alice", "acme").grant_all(["files.write", "payments.send"])
}

fn call(id: &str, name: &str, input: Value) -> Value {
    json!({"id": id, "name": name, "input": input})
}

#[test]
fn an_allowed_write_runs_once_and_is_audited() {
    let f = fixture();
    let out = f.secure.handle(
        &alice(),
        call(
            "t1",
            "write_file",
            json!({"path": "docs//a.md", "text": "hi"}),
        ),
        CallOptions::direct(),
    );
    assert!(!out.result.is_error(), "{}", out.result.content());
    assert_eq!(out.decision, Decision::Allowed);
    assert_eq!(f.writes.load(Ordering::SeqCst), 1);
    let events = f.audit.events();
    assert_eq!(events.len(), 1);
    let e = &events[0];
    assert_eq!(e.tool.as_deref(), Some("write_file"));
    assert_eq!(e.contract_version.as_deref(), Some("1"));
    assert_eq!(e.target.as_deref(), Some("docs/a.md"));
    assert_eq!(e.charge, 1);
    assert!(e.effect_started_ms.is_some() && e.effect_ended_ms.is_some());
    assert!(e.argument_digest.as_deref().unwrap().starts_with("sha256:"));
    assert_eq!(f.secure.spent("acme"), 1);
}

#[test]
fn each_gate_refuses_with_its_own_code_and_nothing_runs() {
    let f = fixture();
    let cases: Vec<(Caller, Value, ErrorCode, Gate)> = vec![
        (
            alice(),
            call("t", "write_file", json!({"path": 3, "text": "x"})),
            ErrorCode::InvalidArguments,
            Gate::Syntax,
        ),
        (
            alice(),
            call(
                "t",
                "write_file",
                json!({"path": "../etc/passwd", "text": "x"}),
            ),
            ErrorCode::SemanticViolation,
            Gate::Semantics,
        ),
        (
            Caller::new("bob", "acme").grant("files.read"),
            call("t", "write_file", json!({"path": "a.md", "text": "x"})),
            ErrorCode::PermissionDenied,
            Gate::Authorization,
        ),
        (
            Caller::new("", "acme").grant("files.write"),
            call("t", "write_file", json!({"path": "a.md", "text": "x"})),
            ErrorCode::PermissionDenied,
            Gate::Authorization,
        ),
        (
            Caller::new("carol", "acme")
                .grant("files.write")
                .targets(["tmp"]),
            call("t", "write_file", json!({"path": "src/a.md", "text": "x"})),
            ErrorCode::PermissionDenied,
            Gate::Authorization,
        ),
        (
            alice().approval(Approval::Given),
            call("t", "transfer", json!({"to": "bob", "amount": 5})),
            ErrorCode::CommitRejected,
            Gate::Commit,
        ),
    ];
    for (caller, c, code, gate) in cases {
        let out = f.secure.handle(&caller, c.clone(), CallOptions::direct());
        assert_eq!(
            out.result.code(),
            Some(code),
            "{c}: {}",
            out.result.content()
        );
        assert_eq!(out.decision, Decision::Refused(gate), "{c}");
        assert_eq!(out.result.tool_use_id(), Some("t"));
    }
    assert_eq!(f.writes.load(Ordering::SeqCst), 0);
    assert_eq!(f.transfers.load(Ordering::SeqCst), 0);
    assert_eq!(f.secure.spent("acme"), 0, "refused calls are not charged");
    assert_eq!(f.audit.events().len(), 6, "one audit event per call");
}

#[test]
fn refusals_do_not_leak_policy_internals() {
    let f = fixture();
    let denied = f.secure.handle(
        &Caller::new("bob", "acme"),
        call("t", "write_file", json!({"path": "a.md", "text": "x"})),
        CallOptions::direct(),
    );
    let content = denied.result.content();
    assert!(content.contains("not permitted"), "{content}");
    for internal in ["files.write", "capability", "acme", "bob"] {
        assert!(
            !content.contains(internal),
            "{internal:?} leaked: {content}"
        );
    }
}

#[test]
fn a_tool_without_a_policy_is_denied() {
    let runs = Arc::new(AtomicUsize::new(0));
    let mut registry = Registry::new();
    registry
        .register(counted("rm", json!({"type": "object"}), runs.clone()))
        .unwrap();
    let secure = SecureHarness::new(Harness::new(registry, HarnessConfig::default()));
    let out = secure.handle(&alice(), call("t", "rm", json!({})), CallOptions::direct());
    assert_eq!(out.result.code(), Some(ErrorCode::PermissionDenied));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[test]
fn approval_is_required_and_said_so() {
    let f = fixture();
    let prepared = f.secure.handle(
        &alice(),
        call("p", "transfer", json!({"to": "bob", "amount": 5})),
        CallOptions::prepare(),
    );
    let token = prepared.token.clone().unwrap();
    let out = f.secure.handle(
        &alice(),
        call("c", "transfer", json!({"to": "bob", "amount": 5})),
        CallOptions::commit(token.clone()),
    );
    assert_eq!(out.result.code(), Some(ErrorCode::PermissionDenied));
    assert!(
        out.result.content().contains("approval"),
        "{}",
        out.result.content()
    );
    // The token survives a refusal at an earlier gate: approve and commit.
    let out = f.secure.handle(
        &alice().approval(Approval::Given),
        call("c2", "transfer", json!({"to": "bob", "amount": 5})),
        CallOptions::commit(token),
    );
    assert!(!out.result.is_error(), "{}", out.result.content());
    assert_eq!(f.transfers.load(Ordering::SeqCst), 1);
}

#[test]
fn budget_is_charged_per_effect_and_exhaustion_refuses() {
    let f = fixture();
    for i in 0..12 {
        let out = f.secure.handle(
            &alice(),
            call(
                &format!("t{i}"),
                "write_file",
                json!({"path": "a", "text": "x"}),
            ),
            CallOptions::direct(),
        );
        assert!(!out.result.is_error());
    }
    let out = f.secure.handle(
        &alice(),
        call("t13", "write_file", json!({"path": "a", "text": "x"})),
        CallOptions::direct(),
    );
    assert_eq!(out.result.code(), Some(ErrorCode::BudgetExhausted));
    assert_eq!(out.decision, Decision::Refused(Gate::Budget));
    assert_eq!(f.writes.load(Ordering::SeqCst), 12);
    // Another tenant has its own budget.
    let other = Caller::new("zed", "globex").grant("files.write");
    let out = f.secure.handle(
        &other,
        call("g1", "write_file", json!({"path": "a", "text": "x"})),
        CallOptions::direct(),
    );
    assert!(!out.result.is_error());
}

#[test]
fn prepare_previews_without_running_and_commit_runs_once() {
    let f = fixture();
    let approved = alice().approval(Approval::Given);
    let args = json!({"to": "bob", "amount": 5, "pin": "4321"});
    let prepared = f.secure.handle(
        &alice(),
        call("p", "transfer", args.clone()),
        CallOptions::prepare(),
    );
    assert!(!prepared.result.is_error());
    assert_eq!(prepared.decision, Decision::Prepared);
    let preview = prepared.result.content();
    let token = prepared.token.clone().unwrap();
    assert!(preview.contains(&token), "{preview}");
    assert!(
        preview.contains("\"amount\":5") && preview.contains("bob"),
        "{preview}"
    );
    assert!(
        !preview.contains("4321"),
        "sensitive value in the preview: {preview}"
    );
    assert_eq!(f.transfers.load(Ordering::SeqCst), 0);
    assert_eq!(f.secure.spent("acme"), 0, "a prepare is not charged");

    let done = f.secure.handle(
        &approved,
        call("c", "transfer", args.clone()),
        CallOptions::commit(token.clone()),
    );
    assert!(!done.result.is_error(), "{}", done.result.content());
    assert_eq!(f.transfers.load(Ordering::SeqCst), 1);
    assert_eq!(f.secure.spent("acme"), 5);
    // Single use.
    let again = f.secure.handle(
        &approved,
        call("c2", "transfer", args),
        CallOptions::commit(token),
    );
    assert_eq!(again.result.code(), Some(ErrorCode::CommitRejected));
    assert_eq!(f.transfers.load(Ordering::SeqCst), 1);
}

#[test]
fn a_commit_that_does_not_match_its_prepare_is_rejected() {
    let f = fixture();
    let approved = alice().approval(Approval::Given);
    let args = json!({"to": "bob", "amount": 5});
    let prepare = |f: &Fixture| {
        f.secure
            .handle(
                &alice(),
                call("p", "transfer", args.clone()),
                CallOptions::prepare(),
            )
            .token
            .unwrap()
    };
    let check = |f: &Fixture, caller: &Caller, input: Value, token: String, reason: &str| {
        let out = f.secure.handle(
            caller,
            call("c", "transfer", input),
            CallOptions::commit(token),
        );
        assert_eq!(
            out.result.code(),
            Some(ErrorCode::CommitRejected),
            "{reason}"
        );
        assert_eq!(
            out.result.error().unwrap().reason.as_deref(),
            Some(reason),
            "{}",
            out.result.content()
        );
    };
    // Changed argument.
    let t = prepare(&f);
    check(
        &f,
        &approved,
        json!({"to": "bob", "amount": 500}),
        t,
        "arguments_changed",
    );
    // Another principal (told as an unknown token).
    let t = prepare(&f);
    let mallory = Caller::new("mallory", "acme")
        .grant("payments.send")
        .approval(Approval::Given);
    check(&f, &mallory, args.clone(), t, "unknown_token");
    // New policy version.
    let t = prepare(&f);
    f.secure.set_policy_version(2);
    check(&f, &approved, args.clone(), t, "policy_changed");
    f.secure.set_policy_version(1);
    // Expired.
    let t = prepare(&f);
    f.clock.advance(60_000);
    check(&f, &approved, args.clone(), t, "expired");
    // Forged.
    check(&f, &approved, args, "ptk_0000".into(), "unknown_token");
    assert_eq!(f.transfers.load(Ordering::SeqCst), 0);
    assert_eq!(f.secure.spent("acme"), 0);
}

#[test]
fn a_duplicate_key_replays_the_first_outcome() {
    let f = fixture();
    let first = f.secure.handle(
        &alice(),
        call("t1", "write_file", json!({"path": "a", "text": "x"})),
        CallOptions::key("k-1"),
    );
    let second = f.secure.handle(
        &alice(),
        call("t2", "write_file", json!({"path": "a", "text": "x"})),
        CallOptions::key("k-1"),
    );
    assert_eq!(second.decision, Decision::Replayed);
    assert_eq!(second.result.content(), first.result.content());
    assert_eq!(second.result.tool_use_id(), Some("t2"));
    assert_eq!(f.writes.load(Ordering::SeqCst), 1);
    assert_eq!(f.secure.spent("acme"), 1, "a replay is not charged");
    // Same key, other arguments: a conflict, nothing runs.
    let conflict = f.secure.handle(
        &alice(),
        call("t3", "write_file", json!({"path": "b", "text": "x"})),
        CallOptions::key("k-1"),
    );
    assert_eq!(conflict.result.code(), Some(ErrorCode::IdempotencyConflict));
    // The key is scoped to the tenant.
    let other = Caller::new("zed", "globex").grant("files.write");
    let elsewhere = f.secure.handle(
        &other,
        call("t4", "write_file", json!({"path": "a", "text": "x"})),
        CallOptions::key("k-1"),
    );
    assert_eq!(elsewhere.decision, Decision::Allowed);
    assert_eq!(f.writes.load(Ordering::SeqCst), 2);
}

#[test]
fn a_replayed_error_stays_an_error_and_transport_failures_release_the_key() {
    let attempts = Arc::new(AtomicUsize::new(0));
    let a = attempts.clone();
    let mut registry = Registry::new();
    registry
        .register(
            Tool::new(
                "flaky",
                "",
                json!({"type": "object"}),
                move |_args: Value, _ctx: &CallContext<'_>| match a.fetch_add(1, Ordering::SeqCst) {
                    0 => Err(ToolError::unavailable("the service did not answer")),
                    1 => Err(ToolError::refused("insufficient funds")),
                    _ => Ok(ToolOutput::text("ok")),
                },
            )
            .execution(Execution::Inline),
        )
        .unwrap();
    let secure = SecureHarness::new(Harness::new(registry, HarnessConfig::default()))
        .policy("flaky", ToolPolicy::open().effect(Effect::External));
    let c = Caller::new("alice", "acme");
    let r1 = secure.handle(&c, call("a", "flaky", json!({})), CallOptions::key("k"));
    assert_eq!(r1.result.code(), Some(ErrorCode::ToolUnavailable));
    let r2 = secure.handle(&c, call("b", "flaky", json!({})), CallOptions::key("k"));
    assert_eq!(r2.result.code(), Some(ErrorCode::ToolRefused));
    let r3 = secure.handle(&c, call("c", "flaky", json!({})), CallOptions::key("k"));
    assert_eq!(r3.decision, Decision::Replayed);
    assert_eq!(r3.result.code(), Some(ErrorCode::ToolRefused));
    assert_eq!(r3.result.content(), r2.result.content());
    assert_eq!(attempts.load(Ordering::SeqCst), 2);
}

#[test]
fn concurrent_duplicates_run_the_effect_once() {
    let runs = Arc::new(AtomicUsize::new(0));
    let r = runs.clone();
    let mut registry = Registry::new();
    registry
        .register(Tool::new(
            "pay",
            "",
            json!({"type": "object"}),
            move |_args: Value, _ctx: &CallContext<'_>| {
                r.fetch_add(1, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(20));
                Ok(ToolOutput::text("paid"))
            },
        ))
        .unwrap();
    let secure = SecureHarness::new(Harness::new(registry, HarnessConfig::default()))
        .policy("pay", ToolPolicy::open().effect(Effect::External));
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let secure = &secure;
                s.spawn(move || {
                    secure.handle(
                        &Caller::new("alice", "acme"),
                        call(&format!("t{i}"), "pay", json!({})),
                        CallOptions::key("same"),
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert!(results.iter().all(|o| o.result.content() == "paid"));
    assert_eq!(
        results
            .iter()
            .filter(|o| o.decision == Decision::Allowed)
            .count(),
        1
    );
}

#[test]
fn sensitive_arguments_never_reach_audit_or_content() {
    let f = fixture();
    let approved = alice().approval(Approval::Given);
    // A schema violation on the sensitive field itself.
    let bad = f.secure.handle(
        &approved,
        call(
            "t",
            "transfer",
            json!({"to": "bob", "amount": 5, "pin": 98765}),
        ),
        CallOptions::prepare(),
    );
    assert_eq!(bad.result.code(), Some(ErrorCode::InvalidArguments));
    assert!(bad.result.content().contains("/pin"));
    assert!(
        !bad.result.content().contains("98765"),
        "{}",
        bad.result.content()
    );
    let ok = f.secure.handle(
        &approved,
        call(
            "p",
            "transfer",
            json!({"to": "bob", "amount": 5, "pin": "SECRET-PIN-1"}),
        ),
        CallOptions::prepare(),
    );
    let token = ok.token.unwrap();
    f.secure.handle(
        &approved,
        call(
            "c",
            "transfer",
            json!({"to": "bob", "amount": 5, "pin": "SECRET-PIN-1"}),
        ),
        CallOptions::commit(token),
    );
    for e in f.audit.events() {
        let text = format!("{e:?}");
        assert!(
            !text.contains("98765") && !text.contains("SECRET-PIN-1"),
            "{text}"
        );
    }
    let committed = f.audit.events().pop().unwrap();
    assert_eq!(committed.contract_version.as_deref(), Some("2"));
    assert_eq!(
        committed.masked_arguments.unwrap()["pin"],
        json!("[redacted]")
    );
}

#[test]
fn paths_are_confined_lexically_and_through_links() {
    let f = fixture();
    for bad in [
        "/etc/passwd",
        "../x",
        "a/../../x",
        "out/passwd",
        "up/secret",
        "C:/x",
        "~/x",
        "",
    ] {
        let out = f.secure.handle(
            &alice(),
            call("t", "write_file", json!({"path": bad, "text": "x"})),
            CallOptions::direct(),
        );
        assert_eq!(
            out.result.code(),
            Some(ErrorCode::SemanticViolation),
            "{bad:?}"
        );
        assert!(
            out.result.content().contains("/path"),
            "{}",
            out.result.content()
        );
    }
    assert_eq!(f.writes.load(Ordering::SeqCst), 0);
}

#[test]
fn bounds_are_semantic_violations_listed_at_once() {
    let mut registry = Registry::new();
    let runs = Arc::new(AtomicUsize::new(0));
    registry
        .register(
            counted("store", json!({"type": "object"}), runs.clone())
                .unknown_fields(harness_ref::UnknownFields::Allow),
        )
        .unwrap();
    let secure = SecureHarness::new(Harness::new(registry, HarnessConfig::default())).policy(
        "store",
        ToolPolicy::open().bounds(Bounds {
            max_string_chars: Some(8),
            max_array_items: Some(3),
            max_depth: Some(3),
        }),
    );
    let out = secure.handle(
        &Caller::new("a", "t"),
        call(
            "t",
            "store",
            json!({"name": "far too long", "items": [1, 2, 3, 4], "deep": {"a": {"b": {}}}}),
        ),
        CallOptions::direct(),
    );
    assert_eq!(out.result.code(), Some(ErrorCode::SemanticViolation));
    let pointers: Vec<&str> = out
        .result
        .violations()
        .iter()
        .map(|v| v.pointer.as_str())
        .collect();
    assert_eq!(pointers, vec!["/deep/a/b", "/items", "/name"]);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[test]
fn an_authorizer_sees_the_target_and_can_deny() {
    struct NoProd;
    impl Authorizer for NoProd {
        fn authorize(&self, r: &AuthRequest<'_>) -> bool {
            r.target.is_none_or(|t| !t.starts_with("prod/"))
        }
    }
    let f = fixture();
    let secure = f.secure.authorizer(Arc::new(NoProd));
    let out = secure.handle(
        &alice(),
        call("t", "write_file", json!({"path": "prod/db", "text": "x"})),
        CallOptions::direct(),
    );
    assert_eq!(out.result.code(), Some(ErrorCode::PermissionDenied));
    assert_eq!(f.writes.load(Ordering::SeqCst), 0);
}

#[test]
fn a_turn_refuses_a_repeated_id() {
    let f = fixture();
    let outs = f.secure.handle_batch(
        &alice(),
        vec![
            (
                call("same", "write_file", json!({"path": "a", "text": "1"})),
                CallOptions::direct(),
            ),
            (
                call("same", "write_file", json!({"path": "b", "text": "2"})),
                CallOptions::direct(),
            ),
        ],
    );
    assert!(!outs[0].result.is_error());
    assert_eq!(outs[1].result.code(), Some(ErrorCode::DuplicateCallId));
    assert_eq!(f.writes.load(Ordering::SeqCst), 1);
}

#[test]
fn a_panicking_audit_sink_is_contained() {
    struct Panics;
    impl AuditSink for Panics {
        fn record(&self, _e: harness_ref::security::AuditEvent) {
            panic!("sink down");
        }
    }
    let f = fixture();
    let secure = f.secure.audit(Arc::new(Panics));
    let out = secure.handle(
        &alice(),
        call("t", "write_file", json!({"path": "a", "text": "x"})),
        CallOptions::direct(),
    );
    assert!(!out.result.is_error());
}

// --- Properties ---------------------------------------------------------------------------------

fn caller_strategy() -> impl Strategy<Value = Caller> {
    (
        prop::sample::select(vec!["", "alice", "bob"]),
        prop::sample::select(vec!["acme", "globex"]),
        prop::collection::vec(
            prop::sample::select(vec!["files.write", "files.read", "payments.send"]),
            0..3,
        ),
        any::<bool>(),
    )
        .prop_map(|(p, t, caps, approved)| {
            Caller::new(p, t).grant_all(caps).approval(if approved {
                Approval::Given
            } else {
                Approval::NotGiven
            })
        })
}

fn path_strategy() -> impl Strategy<Value = String> {
    let part = prop::sample::select(vec![
        "a", "b", "..", ".", "", "out", "up", "~", "C:", "x\\y", "src", "/",
    ]);
    prop::collection::vec(part, 0..6).prop_map(|parts| parts.join("/"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Denied calls produce no effect: whatever the caller, arguments and mode, the handler
    /// runs exactly when the gates allow the call, and every refusal leaves the count unchanged.
    #[test]
    fn prop_denied_calls_produce_no_effect(
        caller in caller_strategy(),
        path in path_strategy(),
        amount in -2i64..10,
        prepare in any::<bool>(),
    ) {
        let f = fixture();
        let calls = [
            call("w", "write_file", json!({"path": path, "text": "x"})),
            call("t", "transfer", json!({"to": "bob", "amount": amount})),
        ];
        for c in calls {
            let before = f.writes.load(Ordering::SeqCst) + f.transfers.load(Ordering::SeqCst);
            let opts = if prepare { CallOptions::prepare() } else { CallOptions::direct() };
            let out = f.secure.handle(&caller, c, opts);
            let after = f.writes.load(Ordering::SeqCst) + f.transfers.load(Ordering::SeqCst);
            match out.decision {
                Decision::Allowed => prop_assert_eq!(after, before + 1),
                _ => prop_assert_eq!(after, before, "{:?}: {}", out.decision, out.result.content()),
            }
            if matches!(out.decision, Decision::Refused(_)) {
                prop_assert!(out.result.is_error());
            }
        }
    }

    /// Invalid paths never escape the workspace: every path the gates let through normalises
    /// to components that resolve, through the workspace's links, to a place under the root.
    #[test]
    fn prop_invalid_paths_never_escape(path in path_strategy()) {
        let f = fixture();
        let ws = MapResolver::new().link("out", "/etc").link("up", "..");
        let out = f.secure.handle(
            &alice(),
            call("w", "write_file", json!({"path": path.clone(), "text": "x"})),
            CallOptions::direct(),
        );
        if out.decision == Decision::Allowed {
            let normal = normalize(&path).unwrap();
            prop_assert!(!normal.components().any(|c| c == ".." || c.is_empty()));
            prop_assert!(!path.starts_with('/') && !path.contains('\\'));
            prop_assert!(ws.resolve(&normal).is_ok(), "{path:?} escaped");
        } else {
            prop_assert_eq!(f.writes.load(Ordering::SeqCst), 0);
        }
    }

    /// Duplicate keys never duplicate an effect: for any sequence of (key, arguments) calls,
    /// the handler runs once per distinct key whose first use was allowed.
    #[test]
    fn prop_duplicate_keys_never_duplicate_an_effect(
        seq in prop::collection::vec((0u8..3, 0u8..2), 1..12),
    ) {
        let f = fixture();
        let mut first_args = std::collections::HashMap::new();
        for (i, (key, text)) in seq.iter().enumerate() {
            let out = f.secure.handle(
                &alice(),
                call(&format!("t{i}"), "write_file", json!({"path": "a", "text": text.to_string()})),
                CallOptions::key(format!("k{key}")),
            );
            match first_args.get(key) {
                None => {
                    first_args.insert(*key, *text);
                    prop_assert_eq!(out.decision, Decision::Allowed);
                }
                Some(t) if t == text => prop_assert_eq!(out.decision, Decision::Replayed),
                Some(_) => prop_assert_eq!(out.result.code(), Some(ErrorCode::IdempotencyConflict)),
            }
        }
        prop_assert_eq!(f.writes.load(Ordering::SeqCst), first_args.len());
    }

    /// Output is always capped: gated results — successes, previews, refusals and replays —
    /// stay within a small cap, counted in its unit.
    #[test]
    fn prop_output_is_always_capped(
        limit in 0usize..300,
        chars in any::<bool>(),
        text in "[a-zé\n]{0,600}",
        path in path_strategy(),
        key in prop::option::of(0u8..2),
        prepare in any::<bool>(),
    ) {
        let unit = if chars { Unit::Chars } else { Unit::Bytes };
        let mut registry = Registry::new();
        let t = text.clone();
        registry.register(Tool::new(
            "write_file", "", write_schema(),
            move |_a: Value, _c: &CallContext<'_>| Ok(ToolOutput::text(t.clone())),
        ).execution(Execution::Inline)).unwrap();
        let config = HarnessConfig { cap: CapConfig::new(limit, unit), ..HarnessConfig::default() };
        let secure = SecureHarness::new(Harness::new(registry, config)).policy(
            "write_file",
            ToolPolicy::new("files.write").target(Target::Pointer("/path".into())).path("/path").cost(1),
        ).budget(3);
        for i in 0..5 {
            let mut opts = if prepare { CallOptions::prepare() } else { CallOptions::direct() };
            if let Some(k) = key { opts = opts.with_key(format!("k{k}")); }
            let out = secure.handle(&alice(), call(&format!("t{i}"), "write_file", json!({"path": path.clone(), "text": text.clone()})), opts);
            let size = harness_ref::cap::measure(out.result.content(), unit);
            prop_assert!(size <= limit, "{} > {limit}: {:?}", size, out.result.content());
        }
    }
}
