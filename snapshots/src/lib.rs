//! The wording fixtures behind the snapshots in `tests/wording.rs`.
//!
//! Every sentence `harness-ref` shows a model is API in spirit: a change must be seen and
//! approved. This crate builds one harness with a tool per behaviour and renders a result as
//! a snapshot body that starts with its code (`[invalid_arguments] retryable=false`), so a
//! reviewer reads the code and the wording together. It is a workspace member only so that
//! `cargo insta review` finds the snapshots (see `README.md`).

use std::time::Duration;

use harness_ref::cap::{CapConfig, Unit};
use harness_ref::{
    CallContext, Execution, Harness, HarnessConfig, Registry, Tool, ToolError, ToolOutput,
    ToolResult, ToolValue, Violation,
};
use serde_json::{json, Value};

/// The snapshot body: the code (or `ok`), retryability, truncation numbers, then the content.
pub fn render(result: &ToolResult) -> String {
    let mut out = format!(
        "[{}] retryable={}",
        result.code_str().unwrap_or("ok"),
        result.retryable()
    );
    if let Some(t) = result.truncation() {
        out.push_str(&format!(
            " truncated={}/{} {} (head {}, tail {}, omitted lines {}/{})",
            t.omitted_size,
            t.original_size,
            t.unit,
            t.head_size,
            t.tail_size,
            t.omitted_lines,
            t.original_lines
        ));
    }
    out.push('\n');
    out.push_str(result.content());
    out.push('\n');
    out
}

fn weather_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 1},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            "location": {
                "type": "object",
                "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                "required": ["lat", "lon"]
            },
            "when": {"anyOf": [{"type": "string", "format": "date"}, {"type": "integer"}]}
        },
        "required": ["city"]
    })
}

fn ok(
    text: &'static str,
) -> impl Fn(Value, &CallContext<'_>) -> Result<ToolOutput, ToolError> + Send + Sync {
    move |_: Value, _: &CallContext<'_>| Ok(ToolOutput::text(text))
}

fn returns(
    value: ToolValue,
) -> impl Fn(Value, &CallContext<'_>) -> Result<ToolOutput, ToolError> + Send + Sync {
    move |_: Value, _: &CallContext<'_>| Ok(ToolOutput::Json(value.clone()))
}

fn any_object() -> Value {
    json!({"type": "object"})
}

/// The harness every wording snapshot runs against (cap: 400 chars, deadline: 10 s; `slow`: 50 ms).
pub fn harness() -> Harness {
    let mut deep = ToolValue::Null;
    for _ in 0..100 {
        deep = ToolValue::Array(vec![deep]);
    }
    let trace: String = (0..40)
        .map(|i| format!("  File \"/srv/app/mod_{i}.py\", line {i}, in f{i}\n"))
        .chain(std::iter::once(
            "ValueError: invalid literal for int() with base 10: 'abc'".to_string(),
        ))
        .collect();
    let trace_for_tool = trace.clone();
    let tools = vec![
        Tool::new(
            "get_weather",
            "Get the weather.",
            weather_schema(),
            ok("sunny"),
        )
        .semantic_check(|args| match args.get("city").and_then(Value::as_str) {
            Some("Atlantis") => vec![Violation::new(
                "/city",
                "a city that exists on a map",
                &args["city"],
            )],
            _ => vec![],
        }),
        Tool::new(
            "lookup",
            "Look up.",
            any_object(),
            |_: Value, _: &CallContext<'_>| Err(ToolError::refused("no data for Atlantis")),
        ),
        Tool::new(
            "edit_file",
            "Edit a file.",
            any_object(),
            |_: Value, _: &CallContext<'_>| {
                Err(
                    ToolError::refused("the file changed since this session last observed it")
                        .with_reason("FS_STALE_VERSION"),
                )
            },
        )
        .remedy("FS_STALE_VERSION", "re-read the file, then retry"),
        Tool::new(
            "forecast",
            "Forecast.",
            any_object(),
            |_: Value, _: &CallContext<'_>| {
                Err(ToolError::unavailable(
                    "the forecast service did not answer",
                ))
            },
        ),
        Tool::new(
            "slow",
            "Sleeps.",
            any_object(),
            |_: Value, _: &CallContext<'_>| {
                std::thread::sleep(Duration::from_secs(2));
                Ok(ToolOutput::text("late"))
            },
        )
        .deadline(Duration::from_millis(50)),
        Tool::new(
            "slow_stream",
            "Streams two lines, then sleeps past its deadline.",
            any_object(),
            |_: Value, _: &CallContext<'_>| {
                let parts = [
                    "scanned orders: 1200 rows\n",
                    "scanned invoices: 300 rows",
                    "",
                ];
                Ok(ToolOutput::Chunks(Box::new(parts.into_iter().map(|p| {
                    if p.is_empty() {
                        std::thread::sleep(Duration::from_secs(2));
                    }
                    p.to_owned()
                }))))
            },
        )
        .deadline(Duration::from_millis(50)),
        Tool::new(
            "crash",
            "Panics.",
            any_object(),
            |_: Value, _: &CallContext<'_>| -> Result<ToolOutput, ToolError> {
                panic!("SECRET-7f3a9c in the panic message")
            },
        )
        .execution(Execution::Inline)
        // The panic hook (backtraces) can take longer than the 50 ms default in a debug build;
        // this fixture is about the panic, not the deadline.
        .deadline(Duration::from_secs(30)),
        Tool::new(
            "fail",
            "Fails.",
            any_object(),
            |_: Value, _: &CallContext<'_>| Err(ToolError::internal("SECRET-7f3a9c in the error")),
        ),
        Tool::new(
            "nan",
            "NaN.",
            any_object(),
            returns(ToolValue::Float(f64::NAN)),
        ),
        Tool::new(
            "inf",
            "Inf.",
            any_object(),
            returns(ToolValue::Object(vec![(
                "t".into(),
                ToolValue::Float(f64::INFINITY),
            )])),
        ),
        Tool::new(
            "neg_inf",
            "-Inf.",
            any_object(),
            returns(ToolValue::Array(vec![ToolValue::Float(f64::NEG_INFINITY)])),
        ),
        Tool::new("deep", "Deep.", any_object(), returns(deep)),
        Tool::new(
            "dup",
            "Dup.",
            any_object(),
            returns(ToolValue::Object(vec![
                ("k".into(), ToolValue::Int(1)),
                ("k".into(), ToolValue::Int(2)),
            ])),
        ),
        Tool::new(
            "huge",
            "Huge.",
            any_object(),
            |_: Value, _: &CallContext<'_>| Ok(ToolOutput::text("x".repeat(2 * 1024 * 1024))),
        ),
        Tool::new(
            "trace",
            "Trace.",
            any_object(),
            move |_: Value, _: &CallContext<'_>| Ok(ToolOutput::text(trace_for_tool.clone())),
        ),
    ];
    let mut registry = Registry::new();
    for tool in tools {
        if let Err(e) = registry.register(tool) {
            // A fixture that does not register is a bug in this crate, not a snapshot change.
            unreachable!("fixture tool refused: {e}");
        }
    }
    let mut config = HarnessConfig {
        cap: CapConfig::new(400, Unit::Chars),
        // Generous, so that no fixture times out on a loaded machine; `slow` sets its own 50 ms.
        deadline: Duration::from_secs(10),
        ..HarnessConfig::default()
    };
    config.limits.max_bytes = 1024 * 1024;
    Harness::new(registry, config)
}

/// A structured call.
pub fn call(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}
