//! `tool_use_bytes`: any bytes as a model's `tool_use` block → the harness entry point.
//!
//! Whatever arrives — not UTF-8, not JSON, an array, an object with a numeric id, a valid
//! call for a tool that crashes — the harness must answer exactly once, with the id whenever
//! it can be read, within its cap, in valid text, without leaking a handler's secret, and the
//! same way each time and in each form (bytes, text, parsed value, inside a batch).

use std::collections::BTreeSet;
use std::fmt;
use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use harness_ref::cap::{measure, CapConfig, Strategy, Unit};
use harness_ref::{
    ErrorCode, Execution, Harness, HarnessConfig, Registry, Tool, ToolError, ToolOutput,
    ToolResult, ToolValue,
};
use serde_json::{json, Value};

use crate::bytes::rust_byte_string;
use crate::DELIBERATE_PANIC;

/// A marker the crashing tools put in their private detail; no content may show it.
pub const SECRET: &str = "SECRET-f0a2c9";

/// The raw `tool_use` block, exactly as the fuzzer produced it.
#[derive(Clone, PartialEq, Eq)]
pub struct RawToolUse {
    /// The block's bytes.
    pub bytes: Vec<u8>,
}

impl<'a> Arbitrary<'a> for RawToolUse {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(RawToolUse {
            bytes: crate::all_bytes(u).to_vec(),
        })
    }
}

impl fmt::Debug for RawToolUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "// tool_use_bytes reproduction; run it as a test in props/tests:"
        )?;
        writeln!(
            f,
            "harness_ref_props::tool_use::check(&harness_ref_props::tool_use::RawToolUse {{ bytes: b\"{}\".to_vec() }});",
            rust_byte_string(&self.bytes)
        )?;
        if let Ok(text) = std::str::from_utf8(&self.bytes) {
            writeln!(
                f,
                "// as a conformance call (needs call_form.raw): {}",
                json!({ "raw": text })
            )?;
        }
        Ok(())
    }
}

/// The input schemas of the fixed registry, by tool name.
pub fn tool_schemas() -> Vec<(&'static str, Value)> {
    vec![
        (
            "get_weather",
            json!({"type": "object",
                   "properties": {"city": {"type": "string", "minLength": 1},
                                  "days": {"type": "integer", "minimum": 1, "maximum": 7},
                                  "units": {"enum": ["c", "f"]}},
                   "required": ["city"]}),
        ),
        (
            "echo_json",
            json!({"type": "object", "additionalProperties": true}),
        ),
        (
            "shout",
            json!({"type": "object",
                   "properties": {"text": {"type": "string", "maxLength": 64},
                                  "times": {"type": "integer", "minimum": 0, "maximum": 64}},
                   "required": ["text", "times"]}),
        ),
        (
            "refuse",
            json!({"type": "object", "properties": {"why": {"type": "string"}}}),
        ),
        ("flaky", json!({"type": "object"})),
        ("crash", json!({"type": "object"})),
        ("panic", json!({"type": "object"})),
        ("nan", json!({"type": "object"})),
        (
            "stream",
            json!({"type": "object", "properties": {"lines": {"type": "integer", "minimum": 0, "maximum": 300}}}),
        ),
    ]
}

fn run(name: &str, args: Value) -> Result<ToolOutput, ToolError> {
    let text = |key: &str| {
        args.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let int = |key: &str, default: u64| args.get(key).and_then(Value::as_u64).unwrap_or(default);
    match name {
        "get_weather" => {
            let line = format!("{}: sunny, {}°{}\n", text("city"), 21, text("units"));
            Ok(ToolOutput::text(line.repeat(int("days", 1) as usize * 8)))
        }
        "echo_json" => Ok(ToolOutput::json(args)),
        "shout" => Ok(ToolOutput::text(
            text("text").to_uppercase().repeat(int("times", 0) as usize),
        )),
        "refuse" => Err(ToolError::refused(format!("refused: {}", text("why")))),
        "flaky" => Err(ToolError::unavailable("the weather service did not answer")),
        "crash" => Err(ToolError::internal(format!(
            "database password is {SECRET}"
        ))),
        "panic" => panic!("{DELIBERATE_PANIC}: {SECRET}"),
        "nan" => Ok(ToolOutput::Json(ToolValue::Object(vec![(
            "t".into(),
            ToolValue::Float(f64::NAN),
        )]))),
        _ => {
            let lines = int("lines", 0);
            Ok(ToolOutput::chunks(
                (0..lines).map(|i| format!("line {i} of the stream é\n")),
            ))
        }
    }
}

/// The two harnesses every input goes through: a byte cap with head+tail, a char cap with
/// head only. Built once per process (schemas compile at registration).
pub fn harnesses() -> &'static [Harness; 2] {
    static HARNESSES: OnceLock<[Harness; 2]> = OnceLock::new();
    HARNESSES.get_or_init(|| {
        // The first harness's handlers own their arguments, the second's borrow them
        // (`Tool::borrowing`), so both handler kinds answer every form of every call.
        let build = |cap: CapConfig, borrowing: bool| {
            let mut registry = Registry::new();
            for (name, schema) in tool_schemas() {
                let description = format!("The {name} tool.");
                let tool = if borrowing {
                    Tool::borrowing(name, description, schema, move |args: &Value, _ctx| {
                        run(name, args.clone())
                    })
                } else {
                    Tool::new(
                        name,
                        description,
                        schema,
                        move |args, _ctx: &harness_ref::CallContext<'_>| run(name, args),
                    )
                }
                .execution(Execution::Inline);
                registry
                    .register(tool)
                    .expect("the fixed registry's schemas compile");
            }
            Harness::new(
                registry,
                HarnessConfig {
                    cap,
                    ..HarnessConfig::default()
                },
            )
        };
        [
            build(CapConfig::new(512, Unit::Bytes), false),
            build(
                CapConfig::new(160, Unit::Chars).with_strategy(Strategy::HeadOnly),
                true,
            ),
        ]
    })
}

/// The property. Panics with a description when an invariant fails.
pub fn check(input: &RawToolUse) {
    crate::quiet_deliberate_panics();
    let bytes = input.bytes.as_slice();
    let text = std::str::from_utf8(bytes).ok();
    let parsed: Option<Value> = serde_json::from_slice(bytes).ok();
    let secret_sent = bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes());
    let fffd_possible = text.is_none_or(|t| t.contains('\u{FFFD}') || t.contains("\\u"));
    let names: BTreeSet<&str> = tool_schemas().into_iter().map(|(n, _)| n).collect();

    for harness in harnesses() {
        let result = harness.handle(bytes);
        let cap = harness.config().cap;

        // The same answer every time, in every form the call can arrive in, owned or borrowed
        // (a form the bytes cannot take is left out).
        let answers = [
            ("two answers to the same bytes", Some(harness.handle(bytes))),
            (
                "text and bytes answered differently",
                text.map(|t| harness.handle(t)),
            ),
            (
                "value and bytes answered differently",
                parsed.clone().map(|v| harness.handle(v)),
            ),
            (
                "borrowed and owned bytes answered differently",
                Some(harness.handle_ref(bytes)),
            ),
            (
                "borrowed text and bytes answered differently",
                text.map(|t| harness.handle_ref(t)),
            ),
            (
                "borrowed value and bytes answered differently",
                parsed.as_ref().map(|v| harness.handle_ref(v)),
            ),
        ];
        for (why, answer) in answers {
            if let Some(answer) = answer {
                assert_eq!(answer, result, "{why}");
            }
        }
        // Text that is not JSON is refused where `serde_json` parsing it as a value stops,
        // whatever route the harness's own parser takes.
        if let (Some(_), Err(e)) = (text, serde_json::from_slice::<Value>(bytes)) {
            let at = format!("at line {}, column {})", e.line(), e.column());
            assert!(
                result.code() == Some(ErrorCode::MalformedCall)
                    && result.error().is_some_and(|e| e.message.contains(&at)),
                "text that is not JSON ({e}) was not refused {at}: {result:?}"
            );
        }

        check_envelope(&result, cap);
        assert!(
            secret_sent || !result.content().contains(SECRET),
            "a handler's secret leaked: {result:?}"
        );
        assert!(
            fffd_possible || !result.content().contains('\u{FFFD}'),
            "U+FFFD appeared in content from valid input"
        );

        // The id: echoed whenever it is a readable string, never invented.
        let id = parsed
            .as_ref()
            .and_then(|v| v.get("id"))
            .and_then(Value::as_str);
        match (id, result.tool_use_id()) {
            (Some(id), echoed) if !id.is_empty() => {
                assert_eq!(echoed, Some(id), "the id was not echoed")
            }
            (_, Some(echoed)) => assert_eq!(Some(echoed), id, "an id was invented"),
            _ => {}
        }

        // Unusable blocks are malformed calls; successes come only from usable blocks.
        let object = parsed.as_ref().and_then(Value::as_object);
        if object.is_none() {
            assert_eq!(
                result.code(),
                Some(ErrorCode::MalformedCall),
                "not a JSON object: {result:?}"
            );
        }
        if !result.is_error() {
            let object = object.expect("a success from a block that is not an object");
            assert!(id.is_some_and(|i| !i.is_empty()), "a success without an id");
            let name = object.get("name").and_then(Value::as_str).unwrap_or("");
            assert!(
                names.contains(name),
                "a success for the unknown tool {name:?}"
            );
        }

        // Violations exist exactly for invalid arguments, and point into the arguments.
        let violations = result.violations();
        assert_eq!(
            !violations.is_empty(),
            result.code() == Some(ErrorCode::InvalidArguments),
            "violations without invalid_arguments or the other way round: {result:?}"
        );
        if let Some(args) = object.and_then(|o| o.get("input")) {
            let required: BTreeSet<String> = ["city", "text", "times"].map(String::from).into();
            for v in violations {
                assert!(
                    crate::pointer_is_explained(&v.pointer, args, &required),
                    "violation at {:?} names nothing in {args}",
                    v.pointer
                );
            }
        }

        // In a batch, the same block answers the same way, and its repetition is a duplicate.
        let batch = harness.handle_batch([bytes, bytes]);
        assert_eq!(
            batch.len(),
            2,
            "a batch of two calls got {} results",
            batch.len()
        );
        assert_eq!(
            batch[0], result,
            "a batch answered its first call differently"
        );
        if let Some(id) = id.filter(|i| !i.is_empty()) {
            assert_eq!(
                batch[1].code(),
                Some(ErrorCode::DuplicateCallId),
                "a repeated id was not refused"
            );
            assert_eq!(batch[1].tool_use_id(), Some(id), "the duplicate's id");
        }
        check_envelope(&batch[1], cap);
    }
}

/// Invariants of any result: within the cap, a coherent envelope.
pub fn check_envelope(result: &ToolResult, cap: CapConfig) {
    let size = measure(result.content(), cap.unit);
    assert!(
        size <= cap.limit,
        "content of {size} {} over the cap of {}",
        cap.unit,
        cap.limit
    );
    assert_eq!(
        result.is_error(),
        result.code().is_some(),
        "is_error and code disagree"
    );
    assert_eq!(
        result.retryable(),
        result.code().is_some_and(ErrorCode::retryable),
        "retryable"
    );
    let block = result.to_block();
    assert_eq!(block["type"], "tool_result");
    assert_eq!(block["content"], result.content());
    assert_eq!(block["is_error"], result.is_error());
    assert_eq!(block["tool_use_id"].as_str(), result.tool_use_id());
}
