//! The hand-picked seeds of the targets with structured inputs, described in code.
//!
//! Seeds for targets whose input is plain text (a tool_use block, a protocol line, a case
//! file) are committed as files and read as they are. The ones here are for the targets with
//! structured inputs, whose bytes a person cannot type: each is a readable description,
//! encoded with the [`crate::bytes`] grammar. `props/tests/replay.rs` checks that the files
//! under `fuzz/seeds/` are exactly what this module produces; to rewrite them after a change,
//! run `WRITE_SEEDS=1 cargo test -p harness-ref-props --test replay`.

use harness_ref::cap::{Strategy, Unit};
use serde_json::json;

use crate::cap::CapOutput;
use crate::parts::{Answer, PartChoice, PartsCall, PartsTurn};
use crate::repair::{Encoding, RepairCall};
use crate::schema::{Additional, Bounds, ObjectSchema, Policy, Schema, Ty};
use crate::security::{GatedSession, ModeChoice, Step};
use crate::structured::{Outcome, StructuredCall, TEXTS};

/// A seed: its target, a descriptive file name, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seed {
    /// The fuzz target it belongs to.
    pub target: &'static str,
    /// The file name under `fuzz/seeds/<target>/`.
    pub name: &'static str,
    /// The input bytes.
    pub bytes: Vec<u8>,
}

fn cap(name: &'static str, limit: usize, unit: Unit, strategy: Strategy, output: &str) -> Seed {
    let input = CapOutput {
        limit,
        unit,
        strategy,
        head_permille: 500,
        repeat: 1,
        chunk_sizes: vec![7, 1, 64],
        output: output.as_bytes().to_vec(),
    };
    Seed {
        target: "cap_output",
        name,
        bytes: input.to_bytes(),
    }
}

fn stack_trace() -> String {
    let mut s = String::from("Traceback (most recent call last):\n");
    for i in 0..40 {
        s.push_str(&format!(
            "  File \"/srv/app/module_{i}.py\", line {i}, in handler_{i}\n"
        ));
    }
    s.push_str("ValueError: invalid literal for int() with base 10: 'abc'");
    s
}

fn cap_seeds() -> Vec<Seed> {
    let trace = stack_trace();
    let mut seeds = vec![
        cap(
            "fits-unchanged",
            200,
            Unit::Bytes,
            Strategy::HeadTail,
            "a short result\nwith two lines\n",
        ),
        cap(
            "stack-trace-last-line-survives",
            600,
            Unit::Bytes,
            Strategy::HeadTail,
            &trace,
        ),
        cap(
            "stack-trace-head-only",
            600,
            Unit::Bytes,
            Strategy::HeadOnly,
            &trace,
        ),
        cap(
            "stack-trace-in-chars",
            600,
            Unit::Chars,
            Strategy::HeadTail,
            &trace,
        ),
        cap(
            "multibyte-at-every-cut-bytes",
            150,
            Unit::Bytes,
            Strategy::HeadTail,
            &"é😀€a".repeat(60),
        ),
        cap(
            "multibyte-at-every-cut-chars",
            150,
            Unit::Chars,
            Strategy::HeadTail,
            &"é😀€a".repeat(60),
        ),
        cap(
            "limit-below-the-note",
            40,
            Unit::Bytes,
            Strategy::HeadTail,
            &"x".repeat(500),
        ),
        cap(
            "limit-zero",
            0,
            Unit::Chars,
            Strategy::HeadOnly,
            "anything at all",
        ),
        cap(
            "exactly-at-the-limit",
            10,
            Unit::Chars,
            Strategy::HeadTail,
            "ééééééééé\n",
        ),
        cap(
            "one-over-the-limit",
            130,
            Unit::Bytes,
            Strategy::HeadTail,
            &"0123456789\n".repeat(12),
        ),
        cap(
            "trailing-newline-last-line",
            300,
            Unit::Bytes,
            Strategy::HeadTail,
            &format!("{trace}\n"),
        ),
        cap(
            "crlf-lines",
            300,
            Unit::Bytes,
            Strategy::HeadTail,
            &"row\r\n".repeat(100),
        ),
        cap(
            "replacement-char-in-output",
            120,
            Unit::Chars,
            Strategy::HeadTail,
            &"\u{FFFD}ab\n".repeat(60),
        ),
    ];
    let mut invalid = CapOutput {
        limit: 100,
        unit: Unit::Bytes,
        strategy: Strategy::HeadTail,
        head_permille: 500,
        repeat: 3,
        chunk_sizes: vec![2, 3],
        output: b"bytes \xff\xfe then \xc3 a split \xe2\x82 sequence\n".to_vec(),
    };
    seeds.push(Seed {
        target: "cap_output",
        name: "invalid-utf8-refused-by-the-reader",
        bytes: invalid.to_bytes(),
    });
    invalid.output = "a line split across reads: 😀😀😀\n"
        .repeat(10)
        .into_bytes();
    invalid.chunk_sizes = vec![1, 2, 3];
    seeds.push(Seed {
        target: "cap_output",
        name: "code-points-split-across-reads",
        bytes: invalid.to_bytes(),
    });
    let mut skewed = CapOutput {
        limit: 400,
        unit: Unit::Chars,
        strategy: Strategy::HeadTail,
        head_permille: 1100,
        repeat: 8,
        chunk_sizes: vec![256],
        output: b"head-heavy split clamped to 1000 permille\n".to_vec(),
    };
    seeds.push(Seed {
        target: "cap_output",
        name: "head-share-over-1000-is-clamped",
        bytes: skewed.to_bytes(),
    });
    skewed.head_permille = 0;
    seeds.push(Seed {
        target: "cap_output",
        name: "head-share-zero-keeps-tail-only",
        bytes: skewed.to_bytes(),
    });
    seeds
}

fn object(properties: Vec<(&str, Schema)>, required: &[&str], additional: Additional) -> Schema {
    Schema::Object(ObjectSchema::new(
        true,
        properties
            .into_iter()
            .map(|(k, s)| (k.to_string(), s))
            .collect(),
        required.iter().map(|k| k.to_string()).collect(),
        additional,
    ))
}

fn int(minimum: Option<f64>, maximum: Option<f64>) -> Schema {
    Schema::Int(Bounds {
        minimum,
        maximum,
        ..Bounds::default()
    })
}

fn string() -> Schema {
    Schema::Str {
        min_length: None,
        max_length: None,
        pattern: None,
    }
}

fn call(
    name: &'static str,
    policy: Policy,
    outcome: Outcome,
    schema: Schema,
    args: serde_json::Value,
) -> Seed {
    let input = StructuredCall {
        policy,
        outcome,
        schema,
        args,
    };
    Seed {
        target: "structured_call",
        name,
        bytes: input.to_bytes(),
    }
}

fn structured_seeds() -> Vec<Seed> {
    let ok = || Outcome::Text(TEXTS[1].to_string());
    let n_schema = || object(vec![("n", int(None, None))], &["n"], Additional::Absent);
    vec![
        call(
            "valid-call-runs-once",
            Policy::Reject,
            ok(),
            n_schema(),
            json!({"n": 3}),
        ),
        call(
            "streamed-output-in-chunks",
            Policy::Reject,
            Outcome::Chunks(vec![TEXTS[3].to_string(), TEXTS[4].to_string()]),
            n_schema(),
            json!({"n": 3}),
        ),
        call(
            "note-copy-in-text-output",
            Policy::Reject,
            Outcome::Text(TEXTS[5].to_string()),
            n_schema(),
            json!({"n": 3}),
        ),
        call(
            "note-copy-split-over-chunks",
            Policy::Reject,
            Outcome::Chunks(vec![TEXTS[6].to_string(), TEXTS[7].to_string()]),
            n_schema(),
            json!({"n": 3}),
        ),
        call(
            "structured-output-breaks-the-output-schema",
            Policy::Reject,
            Outcome::Json(json!({"n": true})),
            n_schema(),
            json!({"n": 3}),
        ),
        call(
            "string-for-integer-is-not-coerced",
            Policy::Reject,
            ok(),
            n_schema(),
            json!({"n": "3"}),
        ),
        call(
            "integral-float-is-an-integer",
            Policy::Reject,
            Outcome::EchoArgs,
            n_schema(),
            json!({"n": 1.0}),
        ),
        call(
            "missing-required-field",
            Policy::Reject,
            ok(),
            n_schema(),
            json!({}),
        ),
        call(
            "unknown-field-in-closed-object",
            Policy::Reject,
            ok(),
            n_schema(),
            json!({"n": 1, "b": true}),
        ),
        call(
            "unknown-field-allowed-by-policy",
            Policy::Allow,
            Outcome::EchoArgs,
            n_schema(),
            json!({"n": 1, "b": true}),
        ),
        call(
            "arguments-not-an-object",
            Policy::Reject,
            ok(),
            n_schema(),
            json!([1, "a"]),
        ),
        call(
            "every-violation-at-once",
            Policy::Reject,
            ok(),
            object(
                vec![
                    ("n", int(Some(0.0), Some(7.0))),
                    (
                        "a",
                        Schema::Str {
                            min_length: Some(2),
                            max_length: Some(4),
                            pattern: Some(0),
                        },
                    ),
                    ("b", Schema::Enum(vec![json!("abc"), json!(1)])),
                ],
                &["n", "a", "b"],
                Additional::Forbid,
            ),
            json!({"n": 255, "a": "123", "x y": null}),
        ),
        call(
            "pointer-escaping-in-field-names",
            Policy::Reject,
            ok(),
            object(
                vec![("a/b", int(None, None)), ("~1", string())],
                &["a/b", "~1"],
                Additional::Absent,
            ),
            json!({"a/b": "3", "é": 1}),
        ),
        call(
            "nested-object-closed-too",
            Policy::Reject,
            Outcome::EchoArgs,
            object(
                vec![("a", object(vec![("b", string())], &[], Additional::Absent))],
                &["a"],
                Additional::Allow,
            ),
            json!({"a": {"b": "x", "n": 1}}),
        ),
        call(
            "any-of-closed-with-unevaluated-properties",
            Policy::Reject,
            Outcome::EchoArgs,
            Schema::AnyOf(vec![
                object(vec![("a", string())], &["a"], Additional::Absent),
                object(vec![("b", int(None, None))], &["b"], Additional::Absent),
            ]),
            json!({"a": "x", "b": 1, "n": null}),
        ),
        call(
            "all-of-branches-declare-fields",
            Policy::Reject,
            Outcome::EchoArgs,
            Schema::AllOf(vec![
                object(vec![("a", string())], &[], Additional::Absent),
                object(vec![("b", int(None, None))], &[], Additional::Absent),
            ]),
            json!({"a": "x", "b": 1}),
        ),
        call(
            "one-of-both-match",
            Policy::Reject,
            ok(),
            Schema::OneOf(vec![
                Schema::Types(vec![Ty::Object]),
                object(vec![], &[], Additional::Allow),
            ]),
            json!({}),
        ),
        call(
            "unique-items-numbers-equal-by-value",
            Policy::Reject,
            ok(),
            object(
                vec![(
                    "a",
                    Schema::Array {
                        items: None,
                        min_items: None,
                        max_items: Some(3),
                        unique: true,
                    },
                )],
                &[],
                Additional::Absent,
            ),
            json!({"a": [1, 1.0]}),
        ),
        call(
            "multiple-of-huge-integer",
            Policy::Reject,
            ok(),
            object(
                vec![(
                    "n",
                    Schema::Int(Bounds {
                        multiple_of: Some(3),
                        ..Bounds::default()
                    }),
                )],
                &[],
                Additional::Absent,
            ),
            json!({"n": u64::MAX}),
        ),
        call(
            "exclusive-bounds-on-halves",
            Policy::Reject,
            ok(),
            object(
                vec![(
                    "n",
                    Schema::Num(Bounds {
                        exclusive_minimum: Some(-2.5),
                        exclusive_maximum: Some(0.5),
                        ..Bounds::default()
                    }),
                )],
                &[],
                Additional::Absent,
            ),
            json!({"n": 0.5}),
        ),
        call(
            "string-length-counts-code-points",
            Policy::Reject,
            ok(),
            object(
                vec![(
                    "a",
                    Schema::Str {
                        min_length: Some(1),
                        max_length: Some(1),
                        pattern: Some(4),
                    },
                )],
                &[],
                Additional::Absent,
            ),
            json!({"a": "é"}),
        ),
        call(
            "not-excludes-a-type",
            Policy::Reject,
            ok(),
            object(
                vec![("n", Schema::Not(Box::new(Schema::Types(vec![Ty::String]))))],
                &[],
                Additional::Absent,
            ),
            json!({"n": "3"}),
        ),
        call(
            "const-null",
            Policy::Reject,
            ok(),
            object(
                vec![("n", Schema::Const(json!(null)))],
                &["n"],
                Additional::Absent,
            ),
            json!({"n": null}),
        ),
        call(
            "handler-refuses",
            Policy::Reject,
            Outcome::Refuse(TEXTS[2].to_string()),
            n_schema(),
            json!({"n": 1}),
        ),
        call(
            "handler-unavailable",
            Policy::Reject,
            Outcome::Unavailable,
            n_schema(),
            json!({"n": 1}),
        ),
        call(
            "handler-internal-error",
            Policy::Reject,
            Outcome::Internal,
            n_schema(),
            json!({"n": 1}),
        ),
        call(
            "handler-panics",
            Policy::Reject,
            Outcome::Panic,
            n_schema(),
            json!({"n": 1}),
        ),
        call(
            "handler-returns-nan",
            Policy::Reject,
            Outcome::NonFinite,
            n_schema(),
            json!({"n": 1}),
        ),
        call(
            "handler-mutates-its-copy",
            Policy::Reject,
            Outcome::MutateAndEcho,
            n_schema(),
            json!({"n": 1}),
        ),
        call(
            "handler-returns-json-edges",
            Policy::Allow,
            Outcome::Json(json!({"a": [u64::MAX, i64::MIN, -0.0], "é": "a\u{0}b", "n": 1e300})),
            Schema::Any,
            json!({}),
        ),
    ]
}

/// Minimised inputs of bugs the fuzzers found, for `fuzz/regressions/<target>/` (the
/// write-ups are in `docs/fuzzing.md` and `props/tests/regressions.rs`).
pub fn regressions() -> Vec<Seed> {
    vec![Seed {
        target: "structured_call",
        name: "bug-1-closed-any-of-refused-with-no-violation",
        bytes: bug_1().to_bytes(),
    }]
}

/// Bug 1 (`props/tests/regressions.rs`): a closed `anyOf` object refused with no violation.
pub fn bug_1() -> StructuredCall {
    StructuredCall {
        policy: Policy::Reject,
        outcome: Outcome::EchoArgs,
        schema: Schema::AnyOf(vec![
            Schema::Any,
            Schema::Object(ObjectSchema::new(
                false,
                vec![("a".into(), Schema::Any)],
                vec!["b".into()],
                Additional::Absent,
            )),
        ]),
        args: json!({"a": false}),
    }
}

/// Every generated seed.
pub fn all() -> Vec<Seed> {
    let mut seeds = cap_seeds();
    // `cap_streaming` decodes the same input as `cap_output` and starts from the same seeds.
    let streaming: Vec<Seed> = seeds
        .iter()
        .map(|s| Seed {
            target: "cap_streaming",
            ..s.clone()
        })
        .collect();
    seeds.extend(streaming);
    seeds.extend(structured_seeds());
    seeds.extend(security_seeds());
    seeds.extend(repair_seeds());
    seeds.extend(parts_seeds());
    seeds
}

fn step(caller: u8, tool: u8, mode: ModeChoice) -> Step {
    Step {
        caller,
        tool,
        path: "docs/a.txt".into(),
        text: "hello".into(),
        to: "bob".into(),
        amount: 5,
        pin: Some("1234".into()),
        mode,
        key: None,
        advance: 0,
        bump_policy: false,
    }
}

fn session(name: &'static str, budget: Option<u8>, steps: Vec<Step>) -> Seed {
    let input = GatedSession {
        cap_limit: 400,
        cap_chars: false,
        budget,
        ttl_s: 30,
        steps,
    };
    Seed {
        target: "security_gates",
        name,
        bytes: input.to_bytes(),
    }
}

/// `security_gates`: one seed per gate and path through it (tools: 0 `write_file`,
/// 1 `transfer`, 2 `read_note`, 3 `unpoliced`, 4 unknown; callers as in
/// [`crate::security::caller`]).
fn security_seeds() -> Vec<Seed> {
    let (alice, unapproved, bob, mallory, anonymous) = (0, 1, 2, 3, 4);
    let (write, transfer, read, unpoliced, unknown) = (0, 1, 2, 3, 4);
    use ModeChoice::{CommitMadeUp, CommitPrepared, Direct, Prepare};
    let escape = |path: &str| Step {
        path: path.into(),
        ..step(alice, write, Direct)
    };
    let keyed = |key: u8, text: &str| Step {
        key: Some(key),
        text: text.into(),
        ..step(alice, write, Direct)
    };
    vec![
        session(
            "every-caller-writes",
            None,
            (0..5).map(|c| step(c, write, Direct)).collect(),
        ),
        session(
            "paths-that-escape",
            None,
            vec![
                escape("../etc/passwd"),
                escape("/etc/passwd"),
                escape("docs/../../x"),
                escape("out/shadow"),
                escape("up/x"),
                escape("a\\b"),
                escape("docs/./ok.txt"),
            ],
        ),
        session(
            "bob-outside-his-targets",
            None,
            vec![
                Step {
                    path: "src/main.rs".into(),
                    ..step(bob, write, Direct)
                },
                step(bob, write, Direct),
                step(bob, transfer, Prepare),
            ],
        ),
        session(
            "prepare-then-commit",
            Some(10),
            vec![
                step(alice, transfer, Prepare),
                step(alice, transfer, CommitPrepared(0)),
                step(alice, transfer, CommitPrepared(0)),
                step(alice, transfer, Direct),
            ],
        ),
        session(
            "commit-by-another-caller-or-arguments",
            None,
            vec![
                step(alice, transfer, Prepare),
                step(mallory, transfer, CommitPrepared(0)),
                step(unapproved, transfer, CommitPrepared(0)),
                Step {
                    amount: 6,
                    ..step(alice, transfer, CommitPrepared(0))
                },
                step(anonymous, transfer, CommitPrepared(0)),
                step(alice, transfer, CommitMadeUp("tok-1".into())),
            ],
        ),
        session(
            "stale-and-expired-tokens",
            None,
            vec![
                step(alice, transfer, Prepare),
                step(alice, transfer, Prepare),
                Step {
                    bump_policy: true,
                    ..step(alice, transfer, CommitPrepared(0))
                },
                step(alice, transfer, Prepare),
                Step {
                    advance: 200,
                    ..step(alice, transfer, CommitPrepared(0))
                },
            ],
        ),
        session(
            "idempotency-replay-and-conflict",
            None,
            vec![
                keyed(0, "a"),
                keyed(0, "a"),
                keyed(0, "b"),
                keyed(1, "b"),
                Step {
                    key: Some(0),
                    ..step(alice, read, Direct)
                },
            ],
        ),
        session(
            "budget-runs-out",
            Some(4),
            vec![
                step(alice, write, Direct),
                step(alice, transfer, Prepare),
                step(alice, transfer, CommitPrepared(0)),
                step(alice, write, Direct),
                step(alice, write, Direct),
            ],
        ),
        session(
            "pin-in-invalid-and-previewed-calls",
            None,
            vec![
                Step {
                    amount: 0,
                    ..step(alice, transfer, Prepare)
                },
                step(alice, transfer, Prepare),
                Step {
                    pin: Some("x\"quoted\"".into()),
                    ..step(alice, transfer, Direct)
                },
            ],
        ),
        session(
            "unpoliced-and-unknown-tools",
            None,
            vec![step(alice, unpoliced, Direct), step(alice, unknown, Direct)],
        ),
    ]
}

fn repair_seed(name: &'static str, schema: u8, encode: Vec<(u8, Encoding)>, args: &str) -> Seed {
    let input = RepairCall {
        schema,
        reject_unknown: true,
        encode,
        args_text: args.as_bytes().to_vec(),
    };
    Seed {
        target: "repair_call",
        name,
        bytes: input.to_bytes(),
    }
}

/// `repair_call`: a value to repair per schema, and the texts never to repair (value indexes
/// count the arguments' values in document order, the arguments themselves first).
fn repair_seeds() -> Vec<Seed> {
    use Encoding::{Compact, Cut, Padded, Pretty, Trailing};
    vec![
        repair_seed(
            "tags-as-text",
            0,
            vec![(1, Compact)],
            r#"{"tags": ["a", "b"]}"#,
        ),
        repair_seed(
            "tags-and-meta-as-text",
            0,
            vec![(1, Pretty), (3, Padded)],
            r#"{"tags": ["a"], "meta": {"n": 1}}"#,
        ),
        repair_seed(
            "repaired-value-still-invalid",
            0,
            vec![(1, Compact)],
            r#"{"tags": [1, 2]}"#,
        ),
        repair_seed(
            "two-values-in-one-text",
            0,
            vec![(1, Trailing)],
            r#"{"tags": ["a"]}"#,
        ),
        repair_seed("cut-text", 0, vec![(1, Cut)], r#"{"tags": ["a"]}"#),
        repair_seed(
            "string-branch-stays-text",
            1,
            vec![(1, Compact)],
            r#"{"v": [1], "s": "x"}"#,
        ),
        repair_seed(
            "inner-rows-as-text",
            2,
            vec![(2, Compact)],
            r#"{"rows": [[1, 2], [3]]}"#,
        ),
        repair_seed(
            "closed-object-as-text",
            3,
            vec![(1, Compact)],
            r#"{"q": {"filter": {}, "limit": 3}}"#,
        ),
        repair_seed(
            "scalars-never-decoded",
            4,
            vec![(1, Compact), (2, Compact)],
            r#"{"n": 5, "b": true, "z": null}"#,
        ),
        repair_seed(
            "the-arguments-themselves",
            0,
            vec![(0, Compact)],
            r#"{"tags": []}"#,
        ),
    ]
}

fn parts_seed(
    name: &'static str,
    cap_limit: u16,
    cancelled_before: bool,
    calls: Vec<PartsCall>,
) -> Seed {
    let input = PartsTurn {
        cap_limit,
        cap_chars: false,
        cancelled_before,
        calls,
    };
    Seed {
        target: "parts_turn",
        name,
        bytes: input.to_bytes(),
    }
}

fn inline(answer: Answer) -> PartsCall {
    PartsCall {
        isolated: false,
        cancels: false,
        answer,
    }
}

/// `parts_turn`: each kind of part, a cut text part beside an image, an unsupported image, a
/// resource link and audio, MCP results (mapped, `isError`, malformed), and cancellations (by an inline handler with an
/// isolated call beside it; before the turn starts).
fn parts_seeds() -> Vec<Seed> {
    let text = |t: &str| PartChoice::Text(t.into());
    let png = PartChoice::Image(0, "iVBORw0KGgo=".into());
    let resource = PartChoice::Resource {
        uri: "file:///notes.md".into(),
        mime_type: Some("text/markdown".into()),
        blob: false,
        body: "# notes".into(),
    };
    let blob = PartChoice::Resource {
        uri: "file:///a.bin".into(),
        mime_type: None,
        blob: true,
        body: "AAEC".into(),
    };
    let long = "line of output\n".repeat(12);
    vec![
        parts_seed(
            "text-image-resource",
            4096,
            false,
            vec![inline(Answer::Parts(vec![
                text("a chart:"),
                png.clone(),
                resource.clone(),
                blob,
            ]))],
        ),
        parts_seed(
            "note-copy-in-a-text-part-that-fits",
            4096,
            false,
            vec![inline(Answer::Mcp {
                parts: vec![text("done\n[truncated: 40 bytes omitted]"), png.clone()],
                is_error: false,
            })],
        ),
        parts_seed(
            "text-cut-image-kept",
            40,
            false,
            vec![inline(Answer::Parts(vec![
                text(&long),
                png.clone(),
                text(&long),
            ]))],
        ),
        parts_seed(
            "unsupported-image-type",
            4096,
            false,
            vec![inline(Answer::Parts(vec![
                text("x"),
                PartChoice::Image(4, "Qk0=".into()),
            ]))],
        ),
        parts_seed(
            "mcp-result-mapped",
            4096,
            false,
            vec![inline(Answer::Mcp {
                parts: vec![text("done"), png.clone(), resource],
                is_error: false,
            })],
        ),
        parts_seed(
            "resource-link-and-audio",
            4096,
            false,
            vec![
                inline(Answer::Mcp {
                    parts: vec![
                        text("1 match"),
                        PartChoice::Link {
                            uri: "file:///src/main.rs".into(),
                            name: "main.rs".into(),
                            title: Some("entry point".into()),
                            size: Some(120),
                        },
                    ],
                    is_error: false,
                }),
                inline(Answer::Parts(vec![
                    text("a recording:"),
                    PartChoice::Audio(0, "UklGRg==".into()),
                ])),
            ],
        ),
        parts_seed(
            "mcp-is-error",
            4096,
            false,
            vec![inline(Answer::Mcp {
                parts: vec![text("no such file")],
                is_error: true,
            })],
        ),
        parts_seed(
            "mcp-malformed",
            4096,
            false,
            vec![
                inline(Answer::RawMcp(
                    r#"{"content": [{"type": "audio", "data": "x"}]}"#.into(),
                )),
                inline(Answer::RawMcp(r#"{"content": "text"}"#.into())),
                inline(Answer::RawMcp(
                    r#"{"content": [{"type": "resource", "resource": {"uri": "u"}}]}"#.into(),
                )),
            ],
        ),
        parts_seed(
            "inline-handler-cancels-the-turn",
            4096,
            false,
            vec![
                inline(Answer::Parts(vec![text("before")])),
                PartsCall {
                    isolated: true,
                    cancels: false,
                    answer: Answer::Parts(vec![text("beside")]),
                },
                PartsCall {
                    isolated: false,
                    cancels: true,
                    answer: Answer::Parts(vec![text("cancels")]),
                },
                inline(Answer::Parts(vec![text("after")])),
            ],
        ),
        parts_seed(
            "cancelled-before-it-starts",
            4096,
            true,
            vec![
                inline(Answer::Parts(vec![png])),
                PartsCall {
                    isolated: true,
                    cancels: false,
                    answer: Answer::Parts(vec![text("never")]),
                },
            ],
        ),
    ]
}
