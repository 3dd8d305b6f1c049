//! A complete Rust harness that gates itself with the suite in `cargo test` — what a harness
//! crate puts in its own `tests/conformance.rs` (README, "Gate your harness in CI").
//!
//! `Mini` is a deliberately small harness: it validates arguments with `jsonschema` before the
//! handler runs, answers every call with one result, and wraps failures with stable codes. It
//! has no output cap, no deadline and no duplicate-id check, so the suite fails some cases: those
//! known failures are `tests/gate_example.baseline.json`, each with a reason. The test fails on
//! any new failure and on any listed case that now passes. To record today's failures,
//! `UPDATE_BASELINE=1 cargo test -p harness-conformance-suite --test gate_example` rewrites the
//! file, keeping the reasons already written.

use harness_conformance_protocol::script::{Outcome, Script};
use harness_conformance_protocol::{
    Call, Hello, Invocation, ObservedResult, RaiseKind, ReplyOutcome, Unit, WireCase,
};
use harness_conformance_suite::baseline::{self, Baseline};
use harness_conformance_suite::gate::{self, Gate, InProcessHarness};
use harness_conformance_suite::spec::Level;
use harness_conformance_suite::SUITE_VERSION;
use serde_json::{json, Value};

struct Mini;

impl InProcessHarness for Mini {
    fn hello(&mut self) -> Hello {
        let codes = [
            "invalid_arguments",
            "unknown_tool",
            "malformed_call",
            "tool_refused",
            "tool_unavailable",
            "internal_error",
            "invalid_tool_output",
        ];
        serde_json::from_value(json!({
            "protocol": 1,
            "implementation": {"name": "mini", "language": "rust", "version": "0.1.0"},
            "capabilities": {
                "cap": null,
                "codes": codes.iter().map(|c| (c.to_string(), json!(c))).collect::<serde_json::Map<_, _>>(),
                "keywords": ["type", "properties", "required", "additionalProperties", "items",
                             "enum", "const", "minimum", "maximum", "minLength", "maxLength"],
                "parallel": true
            }
        }))
        .expect("a valid hello")
    }

    fn run(&mut self, case: &WireCase) -> ReplyOutcome {
        let (mut results, mut invocations) = (Vec::new(), Vec::new());
        for call in &case.calls {
            let Call::Block(block) = call else {
                return ReplyOutcome::Skip("mini takes structured calls only".to_owned());
            };
            let name = call.name().filter(|n| !n.is_empty());
            let tool = name.and_then(|n| case.tools.iter().find(|t| t.name == n));
            let input = block.get("input").filter(|v| v.is_object());
            let (code, content) = match (name, tool, input) {
                (None, ..) | (_, _, None) => (
                    Some("malformed_call"),
                    "a tool call needs a name and an object of arguments".to_owned(),
                ),
                (Some(name), None, _) => {
                    (Some("unknown_tool"), format!("there is no tool {name:?}"))
                }
                (Some(name), Some(tool), Some(args)) => match invalid(&tool.input_schema, args) {
                    Some(why) => (
                        Some("invalid_arguments"),
                        format!("invalid arguments for {name:?}: {why}"),
                    ),
                    None => {
                        invocations.push(Invocation {
                            tool: tool.name.clone(),
                            tool_use_id: block.get("id").cloned(),
                            args: args.clone(),
                            stopped: false,
                        });
                        match Script::compile(&tool.behavior, Unit::Chars) {
                            Err(e) => return ReplyOutcome::Error(e),
                            Ok(script) => match script.perform(&mut args.clone()) {
                                Outcome::Text(text) => (None, text.to_string()),
                                Outcome::Json(value) => (None, value.to_string()),
                                Outcome::NonFinite(_) | Outcome::NonFiniteIn(..) => (
                                    Some("invalid_tool_output"),
                                    "the tool returned a number JSON cannot hold".to_owned(),
                                ),
                                Outcome::NonJsonIn(..) => (
                                    Some("invalid_tool_output"),
                                    "the tool returned a value JSON cannot hold".to_owned(),
                                ),
                                // Never sent: mini declares neither `content_blocks` nor
                                // `mcp-client`.
                                // Never sent: mini does not declare `stream`.
                                Outcome::Stream(_) => (
                                    Some("invalid_tool_output"),
                                    "streamed output is not supported".to_owned(),
                                ),
                                Outcome::Blocks(_) | Outcome::McpResult(_) => (
                                    Some("invalid_tool_output"),
                                    "image and resource content is not supported".to_owned(),
                                ),
                                Outcome::Raised(RaiseKind::Domain, message) => {
                                    (Some("tool_refused"), message)
                                }
                                Outcome::Raised(RaiseKind::Transport, message) => {
                                    (Some("tool_unavailable"), message)
                                }
                                Outcome::Raised(RaiseKind::Internal, _) => (
                                    Some("internal_error"),
                                    "the tool failed unexpectedly".to_owned(),
                                ),
                            },
                        }
                    }
                },
            };
            results.push(ObservedResult {
                tool_use_id: block.get("id").cloned().unwrap_or(Value::Null),
                is_error: code.is_some(),
                content,
                code: code.map(str::to_owned),
                ..ObservedResult::default()
            });
        }
        ReplyOutcome::Observed {
            results,
            invocations,
            history: None,
            spill_artifacts: None,
        }
    }
}

/// Every way `args` breaks `schema`, with its path, or None when it is valid.
fn invalid(schema: &Value, args: &Value) -> Option<String> {
    let validator = match jsonschema::validator_for(schema) {
        Ok(v) => v,
        Err(e) => return Some(format!("the tool's schema is broken: {e}")),
    };
    let errors: Vec<String> = validator
        .iter_errors(args)
        .map(|e| format!("{}: {e}", e.instance_path().as_str()))
        .collect();
    (!errors.is_empty()).then(|| errors.join("; "))
}

const BASELINE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/gate_example.baseline.json"
);

#[test]
fn mini_meets_the_suite_except_its_known_failures() {
    let known = match std::fs::read_to_string(BASELINE) {
        Ok(text) => Baseline::parse(&text, SUITE_VERSION).expect("the baseline is a baseline file"),
        Err(_) => Baseline::new(),
    };
    let result = gate::run(&mut Mini, &Gate::with_baseline(known.clone()));
    if std::env::var_os("UPDATE_BASELINE").is_some() {
        let untestable = result.coverage.not_testable(Level::Must);
        let fresh = baseline::from_run(&result.outcomes, &untestable, &known, SUITE_VERSION);
        std::fs::write(BASELINE, fresh.to_json()).unwrap();
        return;
    }
    assert!(!result.failed(), "{}", result.summary());
}
