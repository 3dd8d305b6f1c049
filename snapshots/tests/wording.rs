//! One named snapshot per fault: the wording of every outcome harness-ref can produce.
//! Review changes with `cargo insta review` (see README.md); never accept one unread.

use harness_ref::cap::{self, CapConfig, Strategy, Unit};
use harness_ref::{CallContext, Registry, Tool, ToolOutput};
use harness_ref_snapshots::{call, harness, render};
use insta::assert_snapshot;
use serde_json::{json, Value};

fn check(name: &str, input: impl Into<harness_ref::Call>) {
    let result = harness().handle(input);
    assert_snapshot!(name, render(&result));
}

#[test]
fn invalid_arguments() {
    let w = "get_weather";
    check(
        "invalid_arguments__missing_required_field",
        call("toolu_01", w, json!({})),
    );
    check(
        "invalid_arguments__string_for_integer",
        call("toolu_01", w, json!({"city": "Oslo", "days": "3"})),
    );
    check(
        "invalid_arguments__boolean_for_integer",
        call("toolu_01", w, json!({"city": "Oslo", "days": true})),
    );
    check(
        "invalid_arguments__outside_enum",
        call("toolu_01", w, json!({"city": "Oslo", "unit": "kelvin"})),
    );
    check(
        "invalid_arguments__below_minimum",
        call("toolu_01", w, json!({"city": "Oslo", "days": 0})),
    );
    check(
        "invalid_arguments__above_maximum",
        call("toolu_01", w, json!({"city": "Oslo", "days": 15})),
    );
    check(
        "invalid_arguments__empty_string",
        call("toolu_01", w, json!({"city": ""})),
    );
    check(
        "invalid_arguments__unknown_field",
        call("toolu_01", w, json!({"city": "Oslo", "town": "Bergen"})),
    );
    check(
        "invalid_arguments__nested_fields",
        call(
            "toolu_01",
            w,
            json!({"city": "Oslo", "location": {"lat": "59.9"}, "tags": ["a", 2, "c", "d"]}),
        ),
    );
    check(
        "invalid_arguments__no_alternative_matches",
        call("toolu_01", w, json!({"city": "Oslo", "when": true})),
    );
    check(
        "invalid_arguments__format",
        call("toolu_01", w, json!({"city": "Oslo", "when": "tomorrow"})),
    );
    check(
        "invalid_arguments__several_at_once",
        call("toolu_01", w, json!({"days": "3", "unit": "K", "town": 1})),
    );
    check(
        "invalid_arguments__long_value_is_bounded",
        call("toolu_01", w, json!({"city": 1, "town": "x".repeat(500)})),
    );
    check(
        "invalid_arguments__semantic_check",
        call("toolu_01", w, json!({"city": "Atlantis"})),
    );
}

#[test]
fn unknown_tool() {
    check(
        "unknown_tool__lists_available_tools",
        call("toolu_01", "get_wether", json!({})),
    );
}

#[test]
fn malformed_call() {
    check(
        "malformed_call__not_json",
        r#"{"id": "toolu_01", "name": "get_weather", "input": {"city": "#,
    );
    check(
        "malformed_call__not_utf8",
        b"{\"id\": \"toolu_01\xff\"}".as_slice(),
    );
    check(
        "malformed_call__not_an_object",
        json!(["toolu_01", "get_weather"]),
    );
    check(
        "malformed_call__missing_id",
        json!({"name": "get_weather", "input": {}}),
    );
    check(
        "malformed_call__id_not_a_string",
        json!({"id": 1, "name": "get_weather", "input": {}}),
    );
    check(
        "malformed_call__empty_id",
        json!({"id": "", "name": "get_weather", "input": {}}),
    );
    check(
        "malformed_call__missing_name",
        json!({"id": "toolu_01", "input": {}}),
    );
    check(
        "malformed_call__empty_name",
        json!({"id": "toolu_01", "name": "", "input": {}}),
    );
    check(
        "malformed_call__missing_input",
        json!({"id": "toolu_01", "name": "get_weather"}),
    );
    check(
        "malformed_call__input_not_an_object",
        json!({"id": "toolu_01", "name": "get_weather", "input": "Oslo"}),
    );
    check(
        "malformed_call__arguments_text_not_json",
        json!({"id": "toolu_01", "name": "get_weather", "arguments": "{\"city\": Oslo}"}),
    );
    check(
        "malformed_call__wrong_block_type",
        json!({"type": "text", "id": "toolu_01", "name": "get_weather", "input": {}}),
    );
}

#[test]
fn duplicate_call_id() {
    let results = harness().handle_batch(vec![
        call("toolu_01", "get_weather", json!({"city": "Oslo"})),
        call("toolu_01", "get_weather", json!({"city": "Bergen"})),
    ]);
    assert_snapshot!(
        "duplicate_call_id__second_use_in_a_batch",
        render(&results[1])
    );
}

#[test]
fn tool_errors() {
    check(
        "tool_refused__message_shown_as_written",
        call("toolu_01", "lookup", json!({})),
    );
    check(
        "tool_refused__with_the_tools_remedy",
        call("toolu_01", "edit_file", json!({})),
    );
    check(
        "tool_unavailable__transport_failure",
        call("toolu_01", "forecast", json!({})),
    );
    check(
        "timeout__isolated_handler_past_its_deadline",
        call("toolu_01", "slow", json!({})),
    );
    check(
        "timeout__streamed_output_before_its_deadline_kept",
        call("toolu_01", "slow_stream", json!({})),
    );
    check(
        "internal_error__handler_panicked",
        call("toolu_01", "crash", json!({})),
    );
    check(
        "internal_error__handler_reported_internal_error",
        call("toolu_01", "fail", json!({})),
    );
}

#[test]
fn invalid_tool_output() {
    check(
        "invalid_tool_output__nan",
        call("toolu_01", "nan", json!({})),
    );
    check(
        "invalid_tool_output__infinity",
        call("toolu_01", "inf", json!({})),
    );
    check(
        "invalid_tool_output__negative_infinity",
        call("toolu_01", "neg_inf", json!({})),
    );
    check(
        "invalid_tool_output__too_deep",
        call("toolu_01", "deep", json!({})),
    );
    check(
        "invalid_tool_output__duplicate_key",
        call("toolu_01", "dup", json!({})),
    );
    check(
        "invalid_tool_output__too_large",
        call("toolu_01", "huge", json!({})),
    );
}

#[test]
fn cap_notes() {
    check(
        "ok__head_tail_keeps_the_last_line",
        call("toolu_01", "trace", json!({})),
    );
    let text: String = (1..=300).map(|i| format!("line {i}\n")).collect();
    let head_only = cap::cap(
        &text,
        &CapConfig::new(300, Unit::Bytes).with_strategy(Strategy::HeadOnly),
    );
    assert_snapshot!("cap__head_only_note", head_only.content);
    let tiny = cap::cap(&text, &CapConfig::new(40, Unit::Bytes));
    assert_snapshot!("cap__limit_smaller_than_the_note", tiny.content);
}

#[test]
fn registration_errors() {
    let handler = |_: Value, _: &CallContext<'_>| Ok(ToolOutput::text(""));
    let mut registry = Registry::new();
    let mut lines = Vec::new();
    for schema in [
        json!({"type": "integr"}),
        json!({"type": "object", "properties": {"n": {"minimum": "one"}}}),
        json!({"$ref": "#/$defs/missing"}),
        json!("not a schema"),
    ] {
        if let Err(e) = registry.register(Tool::new("t", "", schema, handler)) {
            lines.push(e.to_string());
        }
    }
    assert_snapshot!(
        "registration__schemas_refused",
        format!("[registration]\n{}\n", lines.join("\n"))
    );
}

/// The security gates' codes (`harness_ref::security`): one snapshot per refusal and the preview.
#[test]
fn security_gates() {
    use harness_ref::security::{
        Approval, Bounds, CallOptions, Caller, Effect, ManualClock, MapResolver, SecureHarness,
        Target, ToolPolicy,
    };
    use harness_ref::{Execution, Harness, HarnessConfig};
    use std::sync::Arc;
    use std::time::Duration;
    let handler = |_: Value, _: &CallContext<'_>| Ok(ToolOutput::text("done"));
    let string = json!({"type": "string"});
    let mut registry = Registry::new();
    for (name, schema) in [
        (
            "write_file",
            json!({"type": "object", "properties": {"path": string, "text": string},
                   "required": ["path", "text"]}),
        ),
        (
            "transfer",
            json!({"type": "object",
                   "properties": {"to": string, "amount": {"type": "integer", "minimum": 1},
                                  "pin": string},
                   "required": ["to", "amount"]}),
        ),
        (
            "save_note",
            json!({"type": "object", "properties": {"title": string, "tags": {"type": "array"}}}),
        ),
    ] {
        registry
            .register(Tool::new(name, "", schema, handler).execution(Execution::Inline))
            .unwrap();
    }
    let clock = Arc::new(ManualClock::new(0));
    let secure = SecureHarness::new(Harness::new(registry, HarnessConfig::default()))
        .policy(
            "write_file",
            ToolPolicy::new("files.write")
                .effect(Effect::Write)
                .target(Target::Pointer("/path".into()))
                .path("/path")
                .cost(4),
        )
        .policy(
            "transfer",
            ToolPolicy::new("payments.send")
                .effect(Effect::External)
                .target(Target::Pointer("/to".into()))
                .sensitive("/pin")
                .requires_approval()
                .prepare_commit(),
        )
        .policy(
            "save_note",
            ToolPolicy::open().bounds(Bounds {
                max_string_chars: Some(16),
                max_array_items: Some(3),
                max_depth: None,
            }),
        )
        .resolver(Arc::new(MapResolver::new().link("out", "/etc")))
        .budget(4)
        .clock(clock.clone())
        .token_ttl(Duration::from_secs(60))
        .digest_key(b"snapshots".to_vec());
    let alice = Caller::new("alice", "acme")
        .grant_all(["files.write", "payments.send"])
        .approval(Approval::Given);
    let check = |name: &str, caller: &Caller, input: Value, tool: &str, opts: CallOptions| {
        let out = secure.handle(caller, call("toolu_01", tool, input), opts);
        assert_snapshot!(name, render(&out.result));
        out
    };
    let write = |path: &str| json!({"path": path, "text": "x"});
    let d = CallOptions::direct;
    check(
        "semantic_violation__absolute_path",
        &alice,
        write("/etc/passwd"),
        "write_file",
        d(),
    );
    check(
        "semantic_violation__parent_component",
        &alice,
        write("../secrets.env"),
        "write_file",
        d(),
    );
    check(
        "semantic_violation__escapes_through_a_link",
        &alice,
        write("out/passwd"),
        "write_file",
        d(),
    );
    check(
        "semantic_violation__bounds_all_at_once",
        &alice,
        json!({"title": "a title far too long", "tags": [1, 2, 3, 4]}),
        "save_note",
        d(),
    );
    check(
        "permission_denied__missing_capability",
        &Caller::new("bob", "acme"),
        write("notes.md"),
        "write_file",
        d(),
    );
    let t = json!({"to": "acct-42", "amount": 250});
    let prepared = check(
        "ok__prepare_preview_masks_sensitive_arguments",
        &alice,
        json!({"to": "acct-42", "amount": 250, "pin": "SECRET-PIN"}),
        "transfer",
        CallOptions::prepare(),
    );
    let _ = prepared;
    let p = secure.handle(
        &alice,
        call("toolu_00", "transfer", t.clone()),
        CallOptions::prepare(),
    );
    check(
        "permission_denied__approval_required",
        &alice.clone().approval(Approval::NotGiven),
        t.clone(),
        "transfer",
        CallOptions::commit(p.token.clone().unwrap()),
    );
    check(
        "commit_rejected__arguments_changed",
        &alice,
        json!({"to": "acct-42", "amount": 25000}),
        "transfer",
        CallOptions::commit(p.token.clone().unwrap()),
    );
    check(
        "commit_rejected__not_prepared",
        &alice,
        t.clone(),
        "transfer",
        d(),
    );
    check(
        "commit_rejected__unknown_token",
        &alice,
        t.clone(),
        "transfer",
        CallOptions::commit("ptk_forged"),
    );
    let p = secure.handle(
        &alice,
        call("toolu_00", "transfer", t.clone()),
        CallOptions::prepare(),
    );
    secure.set_policy_version(2);
    check(
        "commit_rejected__policy_changed",
        &alice,
        t.clone(),
        "transfer",
        CallOptions::commit(p.token.unwrap()),
    );
    let p = secure.handle(
        &alice,
        call("toolu_00", "transfer", t.clone()),
        CallOptions::prepare(),
    );
    clock.advance(60_000);
    check(
        "commit_rejected__expired",
        &alice,
        t.clone(),
        "transfer",
        CallOptions::commit(p.token.unwrap()),
    );
    check(
        "invalid_arguments__sensitive_value_is_masked",
        &alice,
        json!({"to": "acct-42", "amount": 250, "pin": 90817263}),
        "transfer",
        CallOptions::prepare(),
    );
    secure.handle(
        &alice,
        call("toolu_00", "write_file", write("a.md")),
        CallOptions::key("k-1"),
    );
    check(
        "idempotency_conflict__key_reused_with_other_arguments",
        &alice,
        write("b.md"),
        "write_file",
        CallOptions::key("k-1"),
    );
    check(
        "budget_exhausted__over_budget",
        &alice,
        write("c.md"),
        "write_file",
        d(),
    );
}

#[test]
fn paused_calls() {
    use harness_ref::{Approvals, Decision};
    use std::time::Duration;
    let approvals = Approvals::new();
    let user = approvals.clone();
    let user = std::thread::spawn(move || {
        assert!(user.wait_until_pending("toolu_01", Duration::from_secs(5)));
        user.decide("toolu_01", Decision::deny()).unwrap();
        user.decide(
            "toolu_02",
            Decision::Deny {
                reason: Some("not this city".into()),
            },
        )
        .unwrap();
    });
    let calls = vec![
        call("toolu_01", "get_weather", json!({"city": "Oslo"})),
        call("toolu_02", "get_weather", json!({"city": "Rome"})),
        call("toolu_03", "get_weather", json!({"city": "Lima"})),
    ];
    let results = harness().handle_paused_batch(
        calls,
        &["get_weather"],
        Duration::from_millis(50),
        &approvals,
    );
    user.join().unwrap();
    assert_snapshot!("permission_denied__denied_by_the_user", render(&results[0]));
    assert_snapshot!(
        "permission_denied__denied_by_the_user_with_a_reason",
        render(&results[1])
    );
    assert_snapshot!(
        "permission_denied__no_decision_in_time",
        render(&results[2])
    );
}
