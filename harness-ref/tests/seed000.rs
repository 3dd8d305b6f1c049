//! The scenarios of seed 000 ("Validation, Results and Errors"): six bad calls with their exact
//! messages and a handler that provably never ran; a crashing handler becomes `is_error`; a
//! 5,000-char output capped to 2,000 with an accurate note; and the head/tail challenge
//! (1,000 + 1,000 chars, a line count in the note, a stack trace's last line kept).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use harness_ref::cap::{self, CapConfig, Strategy, Unit};
use harness_ref::{
    CallContext, ErrorCode, Execution, Harness, HarnessConfig, MemorySink, Registry, Tool,
    ToolOutput,
};
use serde_json::{json, Value};

fn weather_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 14}
        },
        "required": ["city"]
    })
}

fn counting_harness() -> (Harness, Arc<AtomicUsize>) {
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&runs);
    let mut registry = Registry::new();
    registry
        .register(
            Tool::new(
                "get_weather",
                "Get the weather.",
                weather_schema(),
                move |_args: Value, _: &CallContext<'_>| {
                    counter.fetch_add(1, Ordering::SeqCst);
                    Ok(ToolOutput::text("sunny"))
                },
            )
            .execution(Execution::Inline),
        )
        .unwrap();
    (Harness::new(registry, HarnessConfig::default()), runs)
}

const REMEDY: &str = r#" — fix every listed argument and call "get_weather" again"#;

#[test]
fn six_bad_calls_get_exact_messages_and_never_run_the_handler() {
    let (harness, runs) = counting_harness();
    let cases = [
        (
            json!({}),
            r#"/city: expected string (required field), got nothing"#,
        ),
        (
            json!({"city": "Oslo", "days": "3"}),
            r#"/days: expected integer, got string "3""#,
        ),
        (
            json!({"city": "Oslo", "unit": "kelvin"}),
            r#"/unit: expected one of "celsius", "fahrenheit", got string "kelvin""#,
        ),
        (
            json!({"city": "Oslo", "days": 0}),
            r#"/days: expected a number >= 1, got number 0"#,
        ),
        (
            json!({"city": "Oslo", "town": "Bergen"}),
            r#"/town: expected no field "town" (known fields: "city", "days", "unit"), got string "Bergen""#,
        ),
        (
            json!({"city": "Oslo", "days": true}),
            r#"/days: expected integer, got boolean true"#,
        ),
    ];
    for (i, (input, violation)) in cases.into_iter().enumerate() {
        let id = format!("toolu_{i:02}");
        let result = harness.handle(json!({"id": id, "name": "get_weather", "input": input}));
        assert!(result.is_error());
        assert_eq!(result.tool_use_id(), Some(id.as_str()));
        assert_eq!(result.code(), Some(ErrorCode::InvalidArguments));
        assert!(!result.retryable());
        let expected = format!(r#"invalid arguments for tool "get_weather": {violation}{REMEDY}"#);
        assert_eq!(result.content(), expected);
        assert_eq!(result.violations().len(), 1);
    }
    assert_eq!(
        runs.load(Ordering::SeqCst),
        0,
        "the handler ran for an invalid call"
    );

    // And a valid call does run it, so the counter is live.
    let ok =
        harness.handle(json!({"id": "toolu_ok", "name": "get_weather", "input": {"city": "Oslo"}}));
    assert!(!ok.is_error());
    assert_eq!(ok.content(), "sunny");
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[test]
fn all_violations_are_reported_at_once() {
    let (harness, runs) = counting_harness();
    let result = harness
        .handle(json!({"id": "t", "name": "get_weather", "input": {"days": "3", "unit": "K"}}));
    let pointers: Vec<&str> = result
        .violations()
        .iter()
        .map(|v| v.pointer.as_str())
        .collect();
    assert_eq!(pointers, ["/city", "/days", "/unit"]);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[test]
fn a_crashing_handler_becomes_is_error_without_leaking() {
    let mut registry = Registry::new();
    for execution in [Execution::Inline, Execution::Isolated] {
        let name = format!("crash_{execution:?}");
        registry
            .register(
                Tool::new(
                    &name,
                    "Crashes.",
                    json!({"type": "object"}),
                    |_: Value, _: &CallContext<'_>| panic!("database password is SECRET-7f3a9c"),
                )
                .execution(execution),
            )
            .unwrap();
    }
    let sink = Arc::new(MemorySink::new());
    let harness = Harness::new(registry, HarnessConfig::default()).with_diagnostics(sink.clone());
    for name in ["crash_Inline", "crash_Isolated"] {
        let result = harness.handle(json!({"id": "toolu_x", "name": name, "input": {}}));
        assert!(result.is_error());
        assert_eq!(result.code_str(), Some("internal_error"));
        assert_eq!(result.tool_use_id(), Some("toolu_x"));
        assert!(!result.content().contains("SECRET"), "{}", result.content());
        assert!(result.content().contains("internal_error"));
    }
    let records = sink.take();
    assert_eq!(records.len(), 2);
    assert!(records
        .iter()
        .all(|d| d.detail.contains("SECRET-7f3a9c") && d.code == ErrorCode::InternalError));
}

#[test]
fn five_thousand_chars_capped_to_two_thousand_with_an_accurate_note() {
    let output: String = ('a'..='z').cycle().take(5000).collect();
    let config = CapConfig::new(2000, Unit::Chars).with_strategy(Strategy::HeadOnly);
    let capped = cap::cap(&output, &config);
    let t = capped.truncation.expect("a 5,000-char output must be cut");
    assert!(capped.content.chars().count() <= 2000);
    assert_eq!(t.original_size, 5000);
    assert_eq!(t.tail_size, 0);
    assert_eq!(t.omitted_size, 5000 - t.head_size);
    let head: String = output.chars().take(t.head_size as usize).collect();
    assert!(capped.content.starts_with(&head));
    let note = format!(
        "[truncated: {} of 5000 chars omitted at the end (0 of 1 lines)",
        t.omitted_size
    );
    assert!(capped.content.contains(&note), "{}", capped.content);
    assert!(
        capped.content.contains("narrower range"),
        "the note must say how to ask for more"
    );

    // The same through the harness, as a tool result.
    let mut registry = Registry::new();
    let text = output.clone();
    registry
        .register(Tool::new(
            "dump",
            "Dumps.",
            json!({"type": "object"}),
            move |_: Value, _: &CallContext<'_>| Ok(ToolOutput::text(text.clone())),
        ))
        .unwrap();
    let harness = Harness::new(
        registry,
        HarnessConfig {
            cap: config,
            ..HarnessConfig::default()
        },
    );
    let result = harness.handle(json!({"id": "toolu_d", "name": "dump", "input": {}}));
    assert!(!result.is_error());
    assert_eq!(result.content(), capped.content);
    assert_eq!(result.truncation(), Some(&t));
}

fn stack_trace() -> String {
    let mut trace = String::from("Traceback (most recent call last):\n");
    for i in 0..200 {
        trace.push_str(&format!(
            "  File \"/srv/app/module_{i}.py\", line {}, in handler_{i}\n",
            i * 7 + 3
        ));
    }
    trace.push_str("ValueError: invalid literal for int() with base 10: 'abc'");
    trace
}

#[test]
fn head_and_tail_keep_a_stack_traces_last_line_and_count_lines() {
    let trace = stack_trace();
    let size = trace.chars().count() as u64;
    let lines = cap::count_lines(&trace);
    // Choose the limit so that, the note being inside the cap, exactly 1,000 + 1,000 chars of
    // the original are kept.
    let base = CapConfig::new(2000, Unit::Chars);
    let (h, t) = base.text_budget(size, lines).unwrap();
    let config = CapConfig::new(2000 + (2000 - h - t), Unit::Chars);
    assert_eq!(config.text_budget(size, lines), Some((1000, 1000)));

    let capped = cap::cap(&trace, &config);
    let t = capped.truncation.unwrap();
    assert_eq!((t.head_size, t.tail_size), (1000, 1000));
    assert!(capped.content.chars().count() <= config.limit);
    let head: String = trace.chars().take(1000).collect();
    let tail: String = trace.chars().skip(trace.chars().count() - 1000).collect();
    assert!(capped.content.starts_with(&head));
    assert!(capped.content.ends_with(&tail));
    assert!(capped
        .content
        .ends_with("ValueError: invalid literal for int() with base 10: 'abc'"));
    let omitted: String = trace
        .chars()
        .skip(1000)
        .take(trace.chars().count() - 2000)
        .collect();
    let omitted_lines = omitted.matches('\n').count() as u64;
    assert_eq!(t.omitted_lines, omitted_lines);
    assert_eq!(t.original_lines, 202);
    let note = format!(
        "[truncated: {} of {size} chars omitted from the middle ({omitted_lines} of 202 lines); to see them, call again asking for a narrower range]",
        size - 2000
    );
    assert!(capped.content.contains(&note), "{}", capped.content);
}
