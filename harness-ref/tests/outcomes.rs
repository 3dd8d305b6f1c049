//! One test (or a few) per outcome code and per stage: the code, `is_error`, retryability, the
//! id pairing, and what the model does or does not see.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use harness_ref::cap::{self, CapConfig, Unit};
use harness_ref::{
    CallContext, CancelToken, ErrorCode, Execution, Harness, HarnessConfig, MemorySink,
    RegistrationErrorKind, Registry, Stage, Tool, ToolError, ToolOutput, ToolValue, UnknownFields,
    Violation,
};
use serde_json::{json, Value};

type Ctx<'a> = CallContext<'a>;

fn obj_schema() -> Value {
    json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
}

fn harness_with(tools: Vec<Tool>) -> (Harness, Arc<MemorySink>) {
    let mut registry = Registry::new();
    for tool in tools {
        registry.register(tool).unwrap();
    }
    let sink = Arc::new(MemorySink::new());
    // Generous, so that trivial handlers never time out on a loaded machine; the tools that
    // are about deadlines set their own.
    let config = HarnessConfig {
        deadline: Duration::from_secs(10),
        ..HarnessConfig::default()
    };
    (
        Harness::new(registry, config).with_diagnostics(sink.clone()),
        sink,
    )
}

/// A harness with one tool and this cap.
fn capped(tool: Tool, cap: CapConfig) -> Harness {
    let mut registry = Registry::new();
    registry.register(tool).unwrap();
    Harness::new(
        registry,
        HarnessConfig {
            cap,
            ..HarnessConfig::default()
        },
    )
}

fn echo() -> Tool {
    Tool::new(
        "echo",
        "Echoes.",
        obj_schema(),
        |args: Value, _: &Ctx<'_>| Ok(ToolOutput::json(args)),
    )
    .execution(Execution::Inline)
}

/// A tool that answers `text` and counts its runs.
fn counting(name: &str, schema: Value, text: &'static str) -> (Tool, Arc<AtomicUsize>) {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let tool = Tool::new(
        name,
        "Counts its runs.",
        schema,
        move |_: Value, _: &Ctx<'_>| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(ToolOutput::text(text))
        },
    );
    (tool, runs)
}

#[test]
fn success_has_no_code_and_serialises_to_the_anthropic_block() {
    let (h, _) = harness_with(vec![echo()]);
    let r = h.handle(
        json!({"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {"path": "a"}}),
    );
    assert!(!r.is_error());
    assert_eq!(r.code(), None);
    assert!(!r.retryable());
    assert_eq!(r.content(), r#"{"path":"a"}"#);
    let block = serde_json::to_value(&r).unwrap();
    assert_eq!(
        block,
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"path\":\"a\"}", "is_error": false})
    );
    assert_eq!(block, r.to_block());
}

#[test]
fn unknown_tool_lists_the_available_tools() {
    let (h, _) = harness_with(vec![echo()]);
    let r = h.handle(json!({"id": "toolu_1", "name": "ecko", "input": {}}));
    assert_eq!(r.code(), Some(ErrorCode::UnknownTool));
    assert_eq!(r.tool_use_id(), Some("toolu_1"));
    assert!(
        r.content()
            .starts_with(r#"unknown tool "ecko"; available tools: "echo""#),
        "{}",
        r.content()
    );
}

#[test]
fn a_tool_not_offered_this_turn_is_refused_like_an_unknown_tool_and_the_batch_goes_on() {
    let (hidden, runs) = counting("delete", obj_schema(), "deleted");
    let (h, _) = harness_with(vec![echo(), hidden]);
    let results = h.handle_batch_offering(
        vec![
            json!({"id": "a", "name": "delete", "input": {"path": "x"}}),
            json!({"id": "b", "name": "ecko", "input": {"path": "x"}}),
            json!({"id": "c", "name": "echo", "input": {"path": "y"}}),
        ],
        &["echo", "no-such-tool"],
    );
    assert_eq!(runs.load(Ordering::SeqCst), 0, "a hidden tool never runs");
    let ids: Vec<_> = results.iter().map(|r| r.tool_use_id()).collect();
    assert_eq!(ids, vec![Some("a"), Some("b"), Some("c")]);
    assert_eq!(results[0].code(), Some(ErrorCode::UnknownTool));
    assert_eq!(
        results[0].content(),
        r#"tool "delete" is not available in this turn; available tools: "echo" — call one of the available tools by its exact name"#
    );
    assert_eq!(results[1].code(), Some(ErrorCode::UnknownTool));
    assert!(
        !results[1].content().contains("delete"),
        "{}",
        results[1].content()
    );
    assert!(!results[2].is_error());
    // Offering every tool is the same as handle_batch.
    let all = h.handle_batch_offering(
        vec![json!({"id": "d", "name": "delete", "input": {"path": "x"}})],
        &["echo", "delete"],
    );
    assert!(!all[0].is_error());
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn the_last_call_of_a_cut_off_turn_never_runs_however_valid_it_looks() {
    let (h, _) = harness_with(vec![echo()]);
    let results = h.handle_cut_off_batch(vec![
        json!({"id": "a", "name": "echo", "input": {"path": "whole"}}),
        json!({"id": "b", "name": "echo", "input": {"path": "recovered"}}),
    ]);
    assert!(
        !results[0].is_error(),
        "a call that arrived whole is answered"
    );
    assert_eq!(results[1].tool_use_id(), Some("b"));
    assert_eq!(results[1].code(), Some(ErrorCode::MalformedCall));
    assert!(
        results[1].content().contains("cut off") && !results[1].content().contains("recovered"),
        "{}",
        results[1].content()
    );
    assert!(h.handle_cut_off_batch(Vec::<Value>::new()).is_empty());
}

/// A handler that sleeps up to 5 s, waking when the turn is cancelled, and counts the stops.
fn cancellable(stops: Arc<AtomicUsize>) -> Tool {
    Tool::new(
        "export",
        "Exports; slow.",
        json!({"type": "object"}),
        move |_: Value, ctx: &Ctx<'_>| {
            if ctx.sleep(Duration::from_secs(5)) {
                stops.fetch_add(1, Ordering::SeqCst);
            }
            Ok(ToolOutput::text("exported"))
        },
    )
}

#[test]
fn a_cancelled_turn_answers_every_call_and_tells_the_running_handlers() {
    let stops = Arc::new(AtomicUsize::new(0));
    let (h, _) = harness_with(vec![echo(), cancellable(Arc::clone(&stops))]);
    let token = CancelToken::new();
    let timer = {
        let token = token.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            token.cancel();
        })
    };
    let results = h.handle_cancellable_batch(
        vec![
            json!({"id": "a", "name": "echo", "input": {"path": "x"}}),
            json!({"id": "b", "name": "export", "input": {}}),
            json!({"id": "c", "name": "export", "input": {}}),
        ],
        &token,
    );
    timer.join().unwrap();
    assert_eq!(results.len(), 3);
    assert!(!results[0].is_error(), "the finished call keeps its result");
    for r in &results[1..] {
        assert_eq!(r.code(), Some(ErrorCode::Cancelled));
        assert!(r.content().contains("cancelled"), "{}", r.content());
    }
    // Both handlers were told; give them a moment to count it.
    for _ in 0..100 {
        if stops.load(Ordering::SeqCst) == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(stops.load(Ordering::SeqCst), 2);
    // A call of an already cancelled turn never starts.
    let after = h.handle_cancellable_batch(
        vec![json!({"id": "d", "name": "export", "input": {}})],
        &token,
    );
    assert_eq!(after[0].code(), Some(ErrorCode::Cancelled));
}

#[test]
fn with_parallel_calls_off_every_call_is_answered_one_at_a_time_or_refused() {
    let running = Arc::new(AtomicUsize::new(0));
    let overlapped = Arc::new(AtomicUsize::new(0));
    let (r, o) = (Arc::clone(&running), Arc::clone(&overlapped));
    let tool = Tool::new(
        "step",
        "One step.",
        json!({"type": "object"}),
        move |_: Value, _: &Ctx<'_>| {
            if r.fetch_add(1, Ordering::SeqCst) > 0 {
                o.fetch_add(1, Ordering::SeqCst);
            }
            std::thread::sleep(Duration::from_millis(20));
            r.fetch_sub(1, Ordering::SeqCst);
            Ok(ToolOutput::text("done"))
        },
    );
    let (h, _) = harness_with(vec![tool]);
    let calls: Vec<Value> = ["a", "b", "c"]
        .iter()
        .map(|id| json!({"id": id, "name": "step", "input": {}}))
        .collect();
    let serial = h.handle_serial_batch(calls.clone());
    assert_eq!(serial.len(), 3);
    assert!(serial.iter().all(|r| !r.is_error()));
    assert_eq!(
        overlapped.load(Ordering::SeqCst),
        0,
        "no two handlers ran at once"
    );
    let one = h.handle_one_call_per_turn(calls);
    let ids: Vec<_> = one.iter().map(|r| r.tool_use_id()).collect();
    assert_eq!(ids, [Some("a"), Some("b"), Some("c")]);
    assert!(!one[0].is_error());
    for r in &one[1..] {
        assert_eq!(r.code(), Some(ErrorCode::ToolRefused));
        assert!(r.content().contains("turn of its own"), "{}", r.content());
    }
}

#[test]
fn malformed_calls_are_answered_with_the_id_when_readable() {
    let (h, _) = harness_with(vec![echo()]);
    let cases: Vec<(harness_ref::Call, Option<&str>, &str)> = vec![
        (
            r#"{"id": "toolu_1", "name": "echo", "input": {"#.into(),
            None,
            "not valid JSON (it ends early",
        ),
        (
            b"\xff\xfe".as_slice().into(),
            None,
            "not valid UTF-8 (at byte 0)",
        ),
        (
            json!([1, 2]).into(),
            None,
            "expected a JSON object, got array [1,2]",
        ),
        (
            json!({"name": "echo", "input": {}}).into(),
            None,
            r#"missing "id""#,
        ),
        (
            json!({"id": 7, "name": "echo", "input": {}}).into(),
            None,
            r#"expected "id" to be a string, got number 7"#,
        ),
        (
            json!({"id": "", "name": "echo", "input": {}}).into(),
            Some(""),
            r#""id" is empty"#,
        ),
        (
            json!({"id": "t1", "input": {}}).into(),
            Some("t1"),
            r#"missing "name""#,
        ),
        (
            json!({"id": "t1", "name": "", "input": {}}).into(),
            Some("t1"),
            r#""name" is empty"#,
        ),
        (
            json!({"id": "t1", "name": "echo"}).into(),
            Some("t1"),
            r#"missing "input""#,
        ),
        (
            json!({"id": "t1", "name": "echo", "input": "x"}).into(),
            Some("t1"),
            "expected the arguments to be an object",
        ),
        (
            json!({"id": "t1", "name": "echo", "arguments": "{\"path\": "}).into(),
            Some("t1"),
            r#""arguments" is not valid JSON"#,
        ),
        (
            json!({"id": "t1", "name": "echo", "arguments": "{\"path\": \"a\", \"path\": \"b\"}"})
                .into(),
            Some("t1"),
            r#""arguments" repeats the key "path" in the object at (root)"#,
        ),
        (
            json!({"id": "t1", "type": "text", "name": "echo", "input": {}}).into(),
            Some("t1"),
            r#"expected "type" to be "tool_use""#,
        ),
    ];
    for (call, id, fragment) in cases {
        let r = h.handle(call);
        assert_eq!(r.code(), Some(ErrorCode::MalformedCall), "{}", r.content());
        assert_eq!(r.tool_use_id(), id);
        assert!(
            r.content().starts_with("malformed tool call: "),
            "{}",
            r.content()
        );
        assert!(
            r.content().contains(fragment),
            "{:?} not in {}",
            fragment,
            r.content()
        );
    }
}

#[test]
fn arguments_as_text_are_accepted() {
    let (h, _) = harness_with(vec![echo()]);
    let r = h.handle(json!({"id": "t1", "name": "echo", "arguments": "{\"path\": \"p\"}"}));
    assert_eq!(r.content(), r#"{"path":"p"}"#);
    let r = h.handle(json!({"id": "t1", "name": "echo", "arguments": "{\"path\": 3}"}));
    assert_eq!(r.code(), Some(ErrorCode::InvalidArguments));
}

#[test]
fn refusals_keep_their_message_and_get_the_tools_remedy() {
    let fs = Tool::new("edit", "Edits.", obj_schema(), |_: Value, _: &Ctx<'_>| {
        Err(
            ToolError::refused("the file changed since this session last observed it")
                .with_reason("FS_STALE_VERSION"),
        )
    })
    .remedy("FS_STALE_VERSION", "re-read the file, then retry");
    let plain = Tool::new(
        "lookup",
        "Looks up.",
        obj_schema(),
        |_: Value, _: &Ctx<'_>| Err(ToolError::refused("no data for Atlantis")),
    );
    let (h, _) = harness_with(vec![fs, plain]);
    let r = h.handle(json!({"id": "t1", "name": "edit", "input": {"path": "a"}}));
    assert_eq!(r.code(), Some(ErrorCode::ToolRefused));
    assert!(!r.retryable());
    assert_eq!(
        r.content(),
        "the file changed since this session last observed it — re-read the file, then retry"
    );
    let info = r.error().unwrap();
    assert_eq!(
        info.message,
        "the file changed since this session last observed it"
    );
    assert_eq!(info.reason.as_deref(), Some("FS_STALE_VERSION"));
    assert_eq!(info.remedy.as_deref(), Some("re-read the file, then retry"));

    let r = h.handle(json!({"id": "t2", "name": "lookup", "input": {"path": "a"}}));
    assert_eq!(r.content(), "no data for Atlantis");
}

#[test]
fn unavailable_is_retryable_and_shows_its_message() {
    let t = Tool::new(
        "weather",
        "Weather.",
        obj_schema(),
        |_: Value, _: &Ctx<'_>| Err(ToolError::unavailable("the weather service did not answer")),
    );
    let (h, _) = harness_with(vec![t]);
    let r = h.handle(json!({"id": "t1", "name": "weather", "input": {"path": "a"}}));
    assert_eq!(r.code(), Some(ErrorCode::ToolUnavailable));
    assert!(r.retryable());
    assert!(r.content().contains("the weather service did not answer"));
}

#[test]
fn internal_errors_are_generic_and_the_detail_goes_to_the_sink() {
    let t = Tool::new("db", "Db.", obj_schema(), |_: Value, _: &Ctx<'_>| {
        Err(ToolError::internal(
            "connection string postgres://u:SECRET-7f3a9c@db",
        ))
    });
    let (h, sink) = harness_with(vec![t]);
    let r = h.handle(json!({"id": "t1", "name": "db", "input": {"path": "a"}}));
    assert_eq!(r.code(), Some(ErrorCode::InternalError));
    assert!(!r.content().contains("SECRET") && !r.content().contains("postgres"));
    assert!(
        !format!("{:?}", r.error()).contains("SECRET"),
        "the detail must not be in the result at all"
    );
    let d = sink.take();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].tool_use_id.as_deref(), Some("t1"));
    assert_eq!(d[0].stage, Stage::Run);
    assert!(d[0].detail.contains("SECRET-7f3a9c"));
}

fn sleeper(name: &str, execution: Execution, ms: u64) -> Tool {
    Tool::new(
        name,
        "Sleeps.",
        json!({"type": "object"}),
        move |_: Value, _: &Ctx<'_>| {
            std::thread::sleep(Duration::from_millis(ms));
            Ok(ToolOutput::text("woke up"))
        },
    )
    .execution(execution)
    .deadline(Duration::from_millis(100))
}

#[test]
fn deadlines_apply_to_isolated_and_inline_handlers() {
    let (h, sink) = harness_with(vec![
        sleeper("slow_isolated", Execution::Isolated, 5_000),
        sleeper("slow_inline", Execution::Inline, 150),
        sleeper("fast", Execution::Isolated, 0).deadline(Duration::from_secs(30)),
    ]);
    for name in ["slow_isolated", "slow_inline"] {
        let r = h.handle(json!({"id": "t1", "name": name, "input": {}}));
        assert_eq!(
            r.code(),
            Some(ErrorCode::Timeout),
            "{name}: {}",
            r.content()
        );
        assert!(r.retryable());
        assert!(
            r.content()
                .contains("did not finish within its deadline of 100 ms"),
            "{}",
            r.content()
        );
    }
    assert_eq!(sink.take().len(), 2);
    assert_eq!(
        h.handle(json!({"id": "t1", "name": "fast", "input": {}}))
            .content(),
        "woke up"
    );
}

#[test]
fn a_batch_answers_every_call_in_order_whatever_happens_to_the_others() {
    let (count, runs) = counting("count", json!({"type": "object"}), "counted");
    // A long deadline: the panic hook (backtraces) can be slow, and this call is about the panic.
    let crash = Tool::new(
        "crash",
        "Crashes.",
        json!({"type": "object"}),
        |_: Value, _: &Ctx<'_>| panic!("boom"),
    )
    .deadline(Duration::from_secs(30));
    let (h, _) = harness_with(vec![
        echo(),
        count,
        crash,
        sleeper("slow", Execution::Isolated, 5_000),
    ]);
    let results = h.handle_batch(vec![
        harness_ref::Call::from(json!({"id": "a", "name": "slow", "input": {}})),
        json!({"id": "b", "name": "count", "input": {}}).into(),
        json!({"id": "b", "name": "count", "input": {}}).into(),
        json!({"id": "", "name": "count", "input": {}}).into(),
        json!({"id": "c", "name": "crash", "input": {}}).into(),
        json!({"id": "d", "name": "echo", "input": {"path": 1}}).into(),
        "not json".into(),
        json!({"id": "e", "name": "echo", "input": {"path": "ok"}}).into(),
    ]);
    let summary: Vec<(Option<&str>, Option<&str>)> = results
        .iter()
        .map(|r| (r.tool_use_id(), r.code_str()))
        .collect();
    assert_eq!(
        summary,
        [
            (Some("a"), Some("timeout")),
            (Some("b"), None),
            (Some("b"), Some("duplicate_call_id")),
            (Some(""), Some("malformed_call")),
            (Some("c"), Some("internal_error")),
            (Some("d"), Some("invalid_arguments")),
            (None, Some("malformed_call")),
            (Some("e"), None),
        ]
    );
    assert_eq!(results[7].content(), r#"{"path":"ok"}"#);
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "a duplicate id must not run the handler again"
    );
}

#[test]
fn non_json_outputs_are_invalid_tool_output() {
    let mut deep = ToolValue::Null;
    for _ in 0..100 {
        deep = ToolValue::Array(vec![deep]);
    }
    let outputs = vec![
        (
            "nan",
            ToolValue::Float(f64::NAN),
            "(root): NaN cannot be represented in JSON",
        ),
        (
            "inf",
            ToolValue::Object(vec![("t".into(), ToolValue::Float(f64::INFINITY))]),
            "/t: Infinity cannot",
        ),
        (
            "neg_inf",
            ToolValue::Array(vec![ToolValue::Float(f64::NEG_INFINITY)]),
            "/0: -Infinity cannot",
        ),
        ("deep", deep, "nesting deeper than 64 levels"),
        (
            "dup",
            ToolValue::Object(vec![
                ("k".into(), ToolValue::Int(1)),
                ("k".into(), ToolValue::Int(2)),
            ]),
            r#"the key "k" appears twice"#,
        ),
    ];
    let tools = outputs
        .iter()
        .map(|(name, value, _)| {
            let value = value.clone();
            Tool::new(
                *name,
                "Returns.",
                json!({"type": "object"}),
                move |_: Value, _: &Ctx<'_>| Ok(ToolOutput::Json(value.clone())),
            )
        })
        .collect();
    let (h, sink) = harness_with(tools);
    for (name, _, fragment) in &outputs {
        let r = h.handle(json!({"id": "t", "name": name, "input": {}}));
        assert_eq!(r.code(), Some(ErrorCode::InvalidToolOutput), "{name}");
        assert!(
            r.content().contains(fragment),
            "{fragment:?} not in {}",
            r.content()
        );
    }
    assert_eq!(sink.take().len(), outputs.len());
}

#[test]
fn oversized_text_output_is_invalid_tool_output() {
    let t = Tool::new(
        "big",
        "Big.",
        json!({"type": "object"}),
        |_: Value, _: &Ctx<'_>| Ok(ToolOutput::text("x".repeat(2000))),
    );
    let mut registry = Registry::new();
    registry.register(t).unwrap();
    let mut config = HarnessConfig::default();
    config.limits.max_bytes = 1000;
    let h = Harness::new(registry, config);
    let r = h.handle(json!({"id": "t", "name": "big", "input": {}}));
    assert_eq!(r.code(), Some(ErrorCode::InvalidToolOutput));
    assert!(r.content().contains("larger than 1000 bytes"));
}

#[test]
fn streamed_output_is_capped_like_the_whole() {
    let chunks: Vec<String> = (0..500).map(|i| format!("chunk {i} é\n")).collect();
    let whole: String = chunks.concat();
    let given = chunks.clone();
    let t = Tool::new(
        "stream",
        "Streams.",
        json!({"type": "object"}),
        move |_: Value, _: &Ctx<'_>| Ok(ToolOutput::chunks(given.clone())),
    );
    let cap_config = CapConfig::new(700, Unit::Bytes);
    let h = capped(t, cap_config);
    let r = h.handle(json!({"id": "t", "name": "stream", "input": {}}));
    let expected = cap::cap(&whole, &cap_config);
    assert_eq!(r.content(), expected.content);
    assert_eq!(r.truncation(), expected.truncation.as_ref());
}

#[test]
fn the_handler_gets_its_own_copy_of_the_validated_arguments() {
    let received = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&received);
    let t = Tool::new(
        "mutate",
        "Mutates.",
        obj_schema(),
        move |mut args: Value, _: &Ctx<'_>| {
            log.lock().unwrap().push(args.clone());
            args["path"] = json!("changed by the handler");
            Ok(ToolOutput::text("done"))
        },
    );
    let (h, _) = harness_with(vec![t]);
    let call = json!({"id": "t", "name": "mutate", "input": {"path": "original"}});
    let kept = call.clone();
    assert_eq!(h.handle(call).content(), "done");
    assert_eq!(
        received.lock().unwrap().as_slice(),
        [json!({"path": "original"})]
    );
    assert_eq!(kept["input"]["path"], "original");
}

#[test]
fn semantic_checks_run_after_the_schema_and_block_the_handler() {
    let (t, runs) = counting("read", obj_schema(), "read");
    let t = t.semantic_check(|args| {
        let path = args["path"].as_str().unwrap_or_default();
        if path.starts_with('/') || path.split('/').any(|p| p == "..") {
            vec![Violation::new(
                "/path",
                "a workspace-relative path",
                &args["path"],
            )]
        } else {
            vec![]
        }
    });
    let (h, _) = harness_with(vec![t]);
    let r = h.handle(json!({"id": "t", "name": "read", "input": {"path": "../etc/passwd"}}));
    assert_eq!(r.code(), Some(ErrorCode::InvalidArguments));
    assert!(r
        .content()
        .contains(r#"/path: expected a workspace-relative path, got string "../etc/passwd""#));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert!(!h
        .handle(json!({"id": "t", "name": "read", "input": {"path": "src/a.rs"}}))
        .is_error());
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn unknown_fields_policy_is_switchable_per_tool() {
    let closed = echo();
    let open = Tool::new("open", "Open.", obj_schema(), |args: Value, _: &Ctx<'_>| {
        Ok(ToolOutput::json(args))
    })
    .unknown_fields(UnknownFields::Allow);
    let (h, _) = harness_with(vec![closed, open]);
    let r = h.handle(json!({"id": "t", "name": "echo", "input": {"path": "a", "extra": 1}}));
    assert_eq!(r.code(), Some(ErrorCode::InvalidArguments));
    let r = h.handle(json!({"id": "t", "name": "open", "input": {"path": "a", "extra": 1}}));
    assert!(!r.is_error());
    assert_eq!(r.content(), r#"{"extra":1,"path":"a"}"#);
}

#[test]
fn no_coercion_of_strings_or_booleans() {
    let t = Tool::new(
        "n",
        "N.",
        json!({"type": "object", "properties": {"n": {"type": "number"}}}),
        |_: Value, _: &Ctx<'_>| Ok(ToolOutput::text("ran")),
    );
    let (h, _) = harness_with(vec![t]);
    for bad in [json!("3"), json!(true), json!(null), json!([3])] {
        let r = h.handle(json!({"id": "t", "name": "n", "input": {"n": bad}}));
        assert_eq!(r.code(), Some(ErrorCode::InvalidArguments), "{bad}");
    }
    assert!(!h
        .handle(json!({"id": "t", "name": "n", "input": {"n": 3.5}}))
        .is_error());
}

#[test]
fn bad_schemas_are_refused_at_registration() {
    let handler = |_: Value, _: &Ctx<'_>| Ok(ToolOutput::text(""));
    let mut registry = Registry::new();
    let e = registry
        .register(Tool::new("t", "", json!({"type": "integr"}), handler))
        .unwrap_err();
    assert!(matches!(e.kind, RegistrationErrorKind::InvalidSchema(_)));
    assert!(
        e.to_string()
            .starts_with(r#"tool "t": input schema refused at /type: not a valid JSON Schema"#),
        "{e}"
    );
    let e = registry
        .register(Tool::new(
            "t",
            "",
            json!({"$ref": "https://example.com/s.json"}),
            handler,
        ))
        .unwrap_err();
    assert!(
        matches!(e.kind, RegistrationErrorKind::InvalidSchema(_)),
        "{e}"
    );
    let e = registry
        .register(Tool::new("t", "", json!(42), handler))
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("expected a schema (an object or a boolean), got number 42"),
        "{e}"
    );
    registry
        .register(Tool::new("t", "", json!({"type": "object"}), handler))
        .unwrap();
    let e = registry
        .register(Tool::new("t", "", json!({"type": "object"}), handler))
        .unwrap_err();
    assert_eq!(e.kind, RegistrationErrorKind::DuplicateName);
    let e = registry
        .register(Tool::new("", "", json!({"type": "object"}), handler))
        .unwrap_err();
    assert_eq!(e.kind, RegistrationErrorKind::EmptyName);
    assert_eq!(registry.len(), 1);
}

#[test]
fn error_contents_are_capped_too() {
    let props: serde_json::Map<String, Value> = (0..200)
        .map(|i| (format!("f{i}"), json!({"type": "string"})))
        .collect();
    let schema = json!({"type": "object", "properties": props});
    let t = Tool::new("wide", "Wide.", schema, |_: Value, _: &Ctx<'_>| {
        Ok(ToolOutput::text(""))
    });
    let cap_config = CapConfig::new(500, Unit::Chars);
    let h = capped(t, cap_config);
    let input: serde_json::Map<String, Value> =
        (0..200).map(|i| (format!("f{i}"), json!(i))).collect();
    let r = h.handle(json!({"id": "t", "name": "wide", "input": input}));
    assert_eq!(r.code(), Some(ErrorCode::InvalidArguments));
    assert_eq!(r.violations().len(), 200, "every violation is kept as data");
    assert!(r.content().chars().count() <= 500);
    assert!(r.truncation().is_some());
    assert!(
        r.content().ends_with("call \"wide\" again"),
        "the remedy survives in the tail"
    );
}

#[test]
fn a_panicking_semantic_check_is_an_internal_error_and_the_handler_does_not_run() {
    let (t, runs) = counting("t", obj_schema(), "ran");
    let t = t.semantic_check(|_| panic!("check exploded with SECRET-7f3a9c"));
    let (h, sink) = harness_with(vec![t]);
    let r = h.handle(json!({"id": "t1", "name": "t", "input": {"path": "a"}}));
    assert_eq!(r.code(), Some(ErrorCode::InternalError));
    assert!(!r.content().contains("SECRET"));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let d = sink.take();
    assert_eq!(d[0].stage, Stage::Validate);
    assert!(d[0].detail.contains("SECRET-7f3a9c"));
}

/// Fuzz bug 1 (found by the `structured_call` target, `props/tests/regressions.rs`): with
/// `anyOf: [{}, {properties: {a}, required: [b]}]` closed by `unevaluatedProperties: false`,
/// `{a: false}` is refused but the validator's only error is the unevaluated `a`, which the
/// harness used to drop as noise: `invalid_arguments` with no violation at all.
#[test]
fn invalid_arguments_always_names_a_violation() {
    let schema = json!({"anyOf": [{}, {"properties": {"a": {}}, "required": ["b"]}]});
    let t = Tool::new("t", "T.", schema, |_: Value, _: &Ctx<'_>| {
        Ok(ToolOutput::text("ran"))
    });
    let (h, _) = harness_with(vec![t]);
    let r = h.handle(json!({"id": "t1", "name": "t", "input": {"a": false}}));
    assert_eq!(r.code(), Some(ErrorCode::InvalidArguments));
    let pointers: Vec<&str> = r.violations().iter().map(|v| v.pointer.as_str()).collect();
    assert_eq!(pointers, ["/a"], "{}", r.content());
    assert!(
        r.content().contains("declared only by an alternative"),
        "{}",
        r.content()
    );
}

#[test]
fn the_harness_and_its_results_can_cross_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Harness>();
    assert_send_sync::<harness_ref::ToolResult>();
    assert_send_sync::<Registry>();
    let (h, _) = harness_with(vec![echo()]);
    let h = Arc::new(h);
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let h = Arc::clone(&h);
            std::thread::spawn(move || {
                h.handle(json!({"id": format!("t{i}"), "name": "echo", "input": {"path": "p"}}))
            })
        })
        .collect();
    for (i, handle) in handles.into_iter().enumerate() {
        let r = handle.join().unwrap();
        assert_eq!(r.tool_use_id(), Some(format!("t{i}").as_str()));
        assert!(!r.is_error());
    }
}

#[test]
fn a_late_panic_is_a_timeout_whose_diagnostic_keeps_the_panic() {
    let t = Tool::new(
        "late_crash",
        "Crashes late.",
        json!({"type": "object"}),
        |_: Value, _: &Ctx<'_>| {
            std::thread::sleep(Duration::from_millis(150));
            panic!("late SECRET-7f3a9c")
        },
    )
    .execution(Execution::Inline)
    .deadline(Duration::from_millis(100));
    let (h, sink) = harness_with(vec![t]);
    let r = h.handle(json!({"id": "t1", "name": "late_crash", "input": {}}));
    assert_eq!(r.code(), Some(ErrorCode::Timeout));
    assert!(!r.content().contains("SECRET"));
    let d = sink.take();
    assert_eq!(d.len(), 1);
    assert!(
        d[0].detail.contains("past its deadline") && d[0].detail.contains("late SECRET-7f3a9c"),
        "{}",
        d[0].detail
    );
}

#[test]
fn structured_outputs_are_checked_against_the_output_schema_falsy_ones_too_errors_never() {
    let schema =
        json!({"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"]});
    let returning = |name: &'static str, value: Value| {
        Tool::new(
            name,
            "Returns.",
            json!({"type": "object"}),
            move |_: Value, _: &Ctx<'_>| Ok(ToolOutput::json(value.clone())),
        )
        .output_schema(schema.clone())
    };
    let refusing = Tool::new(
        "refuses",
        "Refuses.",
        json!({"type": "object"}),
        |_: Value, _: &Ctx<'_>| Err(ToolError::refused("no data for Atlantis")),
    )
    .output_schema(schema.clone());
    let text = Tool::new(
        "text",
        "Text.",
        json!({"type": "object"}),
        |_: Value, _: &Ctx<'_>| Ok(ToolOutput::text("not structured")),
    )
    .output_schema(schema.clone());
    let (h, _) = harness_with(vec![
        returning("ok", json!({"temp": 1.5})),
        returning("wrong", json!({"temp": "warm"})),
        returning("zero", json!(0)),
        returning("empty", json!("")),
        returning("null", Value::Null),
        refusing,
        text,
    ]);
    let run = |name: &str| h.handle(json!({"id": "t", "name": name, "input": {}}));
    assert_eq!(run("ok").code(), None);
    for name in ["wrong", "zero", "empty", "null"] {
        let r = run(name);
        assert_eq!(r.code(), Some(ErrorCode::InvalidToolOutput), "{name}");
        assert!(
            r.content()
                .contains("does not match the tool's output schema"),
            "{name}: {}",
            r.content()
        );
    }
    assert!(run("wrong").content().contains("/temp"));
    let refusal = run("refuses");
    assert_eq!(refusal.code(), Some(ErrorCode::ToolRefused));
    assert!(refusal.content().contains("no data for Atlantis"));
    assert_eq!(run("text").code(), None, "text is not a structured result");
    let mut registry = Registry::new();
    let bad = Tool::new("bad", "", json!({}), |_: Value, _: &Ctx<'_>| {
        Ok(ToolOutput::text(""))
    })
    .output_schema(json!({"type": 5}));
    assert!(matches!(
        registry.register(bad).unwrap_err().kind,
        RegistrationErrorKind::InvalidSchema(_)
    ));
}

#[test]
fn the_repair_mode_decodes_a_double_encoded_array_only_when_it_then_validates() {
    let schema = json!({"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}},
        "note": {"type": "string"}}, "required": ["tags"]});
    let tool = || {
        Tool::new(
            "tag",
            "Tags.",
            schema.clone(),
            |args: Value, _: &Ctx<'_>| Ok(ToolOutput::json(args)),
        )
        .execution(Execution::Inline)
    };
    let mut registry = Registry::new();
    registry.register(tool()).unwrap();
    let on = Harness::new(
        registry,
        HarnessConfig {
            repair: true,
            ..HarnessConfig::default()
        },
    );
    let (off, _) = harness_with(vec![tool()]);
    let call = |tags: &str| {
        json!({"type": "tool_use", "id": "t", "name": "tag",
               "input": {"tags": tags, "note": "[\"x\"]"}})
    };

    let repaired = on.handle(call(r#"["a","b"]"#));
    assert!(!repaired.is_error(), "{}", repaired.content());
    let (note, output) = repaired.content().split_once('\n').unwrap();
    assert!(
        note.contains("`/tags`") && note.contains("JSON text"),
        "{note}"
    );
    // The handler got the array; the string field stayed a string.
    assert_eq!(output, r#"{"note":"[\"x\"]","tags":["a","b"]}"#);

    // Off by default: refused, as it always was.
    assert_eq!(
        off.handle(call(r#"["a"]"#)).code(),
        Some(ErrorCode::InvalidArguments)
    );
    // A repair that does not validate is refused with what the model sent.
    let refused = on.handle(call("[1]"));
    assert_eq!(refused.code(), Some(ErrorCode::InvalidArguments));
    assert_eq!(refused.violations()[0].pointer, "/tags");
    assert!(refused.violations()[0].received.contains("string"));
}

/// A tool with no arguments returning `output`, inline.
fn returning(output: fn() -> ToolOutput) -> Harness {
    harness_with(vec![Tool::new(
        "t",
        "Returns.",
        json!({"type": "object"}),
        move |_: Value, _: &Ctx<'_>| Ok(output()),
    )
    .execution(Execution::Inline)])
    .0
}

#[test]
fn results_are_ones_the_messages_api_takes_on_replay() {
    use harness_ref::Part;
    let call = json!({"id": "t1", "name": "t", "input": {}});
    // Blank text parts are dropped; the image stays.
    let r = returning(|| {
        ToolOutput::Parts(vec![
            Part::Text(String::new()),
            Part::Image {
                data: "iVBO".into(),
                media_type: "image/png".into(),
            },
            Part::Text(" \n".into()),
        ])
    })
    .handle(call.clone());
    assert!(!r.is_error());
    assert_eq!(r.parts().len(), 1, "{:?}", r.parts());
    assert!(matches!(r.parts()[0], Part::Image { .. }));
    assert_eq!(r.content(), "");
    // White space alone is kept whole, with words that say so.
    let r = returning(|| ToolOutput::text("\r\n")).handle(call.clone());
    assert_eq!(r.content(), "\r\n(the output is white space only)");
    // An empty output stays empty: a tool_result without content.
    let r = returning(|| ToolOutput::text("")).handle(call.clone());
    assert_eq!(r.content(), "");
    // Where the cap leaves no room for the words, the content states the size instead.
    let mut registry = Registry::new();
    registry
        .register(
            Tool::new(
                "t",
                "Returns.",
                json!({"type": "object"}),
                |_: Value, _: &Ctx<'_>| Ok(ToolOutput::text(" ".repeat(40))),
            )
            .execution(Execution::Inline),
        )
        .unwrap();
    let h = Harness::new(
        registry,
        HarnessConfig {
            cap: CapConfig {
                limit: 60,
                unit: Unit::Chars,
                ..CapConfig::default()
            },
            ..HarnessConfig::default()
        },
    );
    let r = h.handle(call);
    assert_eq!(r.content(), "(the output was 40 chars of white space only)");
}
