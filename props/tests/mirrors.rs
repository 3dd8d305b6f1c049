//! Stable mirrors of the fuzz targets: the same property functions, fed by proptest.
//!
//! Strategies live in this one module, named `<thing>_strategy()`; properties are `prop_*`.
//! Every strategy builds fuzz *bytes* and decodes them with `harness_ref_props::decode`, the
//! decoding `fuzz_target!` uses, so a failure here is a fuzz input too. Failures persist in
//! `proptest-regressions/` (committed). CI runs the default 256 cases; for a longer local run:
//! `PROPTEST_CASES=20000 cargo test --release -p harness-ref-props --test mirrors`.

use harness_ref_props::{
    cap::CapOutput,
    case_file::CaseFile,
    decode,
    parts::{Answer, PartChoice, PartsCall, PartsTurn},
    protocol::ProtocolLine,
    repair::{Encoding, RepairCall},
    security::{GatedSession, ModeChoice, Step},
    structured::StructuredCall,
    tool_use::RawToolUse,
};

mod support;
use proptest::prelude::*;

/// Text a tool might print: ASCII, newlines, multi-byte characters, U+FFFD, invalid bytes.
fn output_bytes_strategy() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => "[a-z ]{0,12}".prop_map(String::into_bytes),
        2 => Just(b"\n".to_vec()),
        1 => Just("é".as_bytes().to_vec()),
        1 => Just("€".as_bytes().to_vec()),
        1 => Just("😀".as_bytes().to_vec()),
        1 => Just("\u{FFFD}".as_bytes().to_vec()),
        1 => Just(b"ValueError: bad input\n".to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..4),
    ];
    prop::collection::vec(piece, 0..64).prop_map(|ps| ps.concat())
}

/// Cap inputs: a header of cap settings and an output, as fuzz bytes.
fn cap_output_strategy() -> impl Strategy<Value = Vec<u8>> {
    (
        prop_oneof![0u16..300, 0u16..8193],
        any::<bool>(),
        any::<bool>(),
        0u16..1101,
        0u8..8,
        prop::collection::vec(0u8..=255, 1..5),
        output_bytes_strategy(),
    )
        .prop_map(
            |(limit, chars, head_only, permille, repeat, sizes, output)| {
                let input = CapOutput {
                    limit: usize::from(limit),
                    unit: if chars {
                        harness_ref::cap::Unit::Chars
                    } else {
                        harness_ref::cap::Unit::Bytes
                    },
                    strategy: if head_only {
                        harness_ref::cap::Strategy::HeadOnly
                    } else {
                        harness_ref::cap::Strategy::HeadTail
                    },
                    head_permille: permille,
                    repeat: usize::from(repeat) + 1,
                    chunk_sizes: sizes.into_iter().map(|s| usize::from(s) + 1).collect(),
                    output,
                };
                input.to_bytes()
            },
        )
}

/// Protocol lines: JSON built from the protocol's own words, and arbitrary bytes.
fn protocol_line_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        "[{}\\[\\]:,\"0-9a-z_ ]{0,200}".prop_map(String::into_bytes),
    ]
}

/// tool_use blocks: well-formed calls to the fixed registry's tools with odd arguments, and
/// mangled text.
fn tool_use_strategy() -> impl Strategy<Value = Vec<u8>> {
    let name = prop::sample::select(vec![
        "get_weather",
        "echo_json",
        "shout",
        "refuse",
        "flaky",
        "crash",
        "panic",
        "nan",
        "stream",
        "nope",
        "",
    ]);
    let value = prop_oneof![
        Just(serde_json::json!(null)),
        Just(serde_json::json!("Paris")),
        Just(serde_json::json!(3)),
        Just(serde_json::json!("3")),
        Just(serde_json::json!(2.5)),
        Just(serde_json::json!(64)),
        Just(serde_json::json!([1, "a"])),
    ];
    let key = prop::sample::select(vec![
        "city", "days", "units", "text", "times", "why", "lines", "x",
    ]);
    let input = prop::collection::btree_map(key, value, 0..4)
        .prop_map(|m| serde_json::to_value(m).unwrap());
    let id = prop_oneof![
        Just(serde_json::json!("toolu_1")),
        Just(serde_json::json!("")),
        Just(serde_json::json!(7))
    ];
    let block = (id, name, input).prop_map(|(id, name, input)| {
        serde_json::json!({"type": "tool_use", "id": id, "name": name, "input": input})
            .to_string()
            .into_bytes()
    });
    prop_oneof![
        4 => block.clone(),
        1 => (block, any::<prop::sample::Index>()).prop_map(|(b, i)| b[..i.index(b.len() + 1)].to_vec()),
        1 => prop::collection::vec(any::<u8>(), 0..64),
    ]
}

/// Case files: a real case from the suite, cut short, with a token spliced in, or a byte
/// flipped — the edits a contributor's typo makes.
fn case_file_strategy() -> impl Strategy<Value = Vec<u8>> {
    let files: Vec<&'static str> = harness_conformance_suite::loader::embedded_files()
        .into_iter()
        .map(|(_, t)| t)
        .collect();
    let token = prop::sample::select(vec![
        "",
        "{",
        "}",
        "[",
        "]",
        ",",
        "\"\"",
        "null",
        "-1",
        "1e999",
        "\"x\":1,",
        "\"\\ud800\"",
    ]);
    (
        prop::sample::select(files),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        token,
        any::<u8>(),
        0u8..3,
    )
        .prop_map(|(file, at, cut, token, byte, edit)| {
            let mut bytes = file.as_bytes().to_vec();
            let i = at.index(bytes.len() + 1);
            match edit {
                0 => bytes.truncate(cut.index(bytes.len() + 1)),
                1 => bytes.splice(i..i, token.bytes()).for_each(drop),
                _ => {
                    if i < bytes.len() {
                        bytes[i] = byte;
                    }
                }
            }
            bytes
        })
}

/// A stand-in for libFuzzer's mutator: rewrites every byte it is given and grows by one.
fn scramble(data: &mut [u8], size: usize, max_size: usize) -> usize {
    for b in &mut data[..size] {
        *b = b.wrapping_mul(31).wrapping_add(7);
    }
    if size < max_size {
        data[size] = 0x5a;
        size + 1
    } else {
        size
    }
}

/// Paths near the workspace's edges: inside, `..`, absolute, backslashes, its links.
fn path_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("docs/a.txt".to_string()),
        Just("out/x".to_string()),
        Just("up/x".to_string()),
        "(docs|src|out|up|\\.\\.|\\.|)(/(a|\\.\\.|\\.|b\\\\c|))*",
        "/?[a-z./]{0,10}",
    ]
}

/// One gated call: any caller, tool, mode and key, arguments near the edges.
fn step_strategy() -> impl Strategy<Value = Step> {
    let mode = prop_oneof![
        Just(ModeChoice::Direct),
        Just(ModeChoice::Prepare),
        (0u8..3).prop_map(ModeChoice::CommitPrepared),
        "[a-z0-9-]{0,8}".prop_map(ModeChoice::CommitMadeUp),
    ];
    (
        (
            0u8..5,
            0u8..5,
            path_strategy(),
            "[a-z]{0,6}",
            "(bob|docs/a|PIN:1)",
        ),
        (-2i32..8, prop::option::of("[0-9]{0,4}"), mode),
        (
            prop::option::of(0u8..2),
            0u8..=255,
            prop::bool::weighted(0.1),
        ),
    )
        .prop_map(
            |((caller, tool, path, text, to), (amount, pin, mode), (key, advance, bump_policy))| {
                Step {
                    caller,
                    tool,
                    path,
                    text,
                    to,
                    amount,
                    pin,
                    mode,
                    key,
                    advance: advance / 4,
                    bump_policy,
                }
            },
        )
}

/// A gated session, as fuzz bytes.
fn gated_session_strategy() -> impl Strategy<Value = Vec<u8>> {
    (
        0u16..600,
        any::<bool>(),
        prop::option::of(0u8..12),
        1u8..=64,
        prop::collection::vec(step_strategy(), 1..=8),
    )
        .prop_map(|(cap_limit, cap_chars, budget, ttl_s, steps)| {
            GatedSession {
                cap_limit,
                cap_chars,
                budget,
                ttl_s,
                steps,
            }
            .to_bytes()
        })
}

/// Arguments for the repair schemas: right-shaped, wrong-shaped and not objects at all.
fn repair_args_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(r#"{"tags": ["a", "b"], "meta": {"n": 1}}"#.to_string()),
        Just(r#"{"tags": [1], "meta": {"m": 1}}"#.to_string()),
        Just(r#"{"v": [1], "s": "[2]"}"#.to_string()),
        Just(r#"{"rows": [[1, 2], [3], ["4"]]}"#.to_string()),
        Just(r#"{"q": {"filter": {"a": [1]}, "limit": 11}, "x": 1}"#.to_string()),
        Just(r#"{"n": 5, "b": false, "z": null, "list": [1]}"#.to_string()),
        Just(r#"[{"tags": []}]"#.to_string()),
        "\\{\"(tags|meta|v|s|rows|q|n|list)\": (\\[\\]|\\{\\}|1|\"x\"|\\[\"a\"\\])\\}",
    ]
}

/// A repair call, as fuzz bytes.
fn repair_call_strategy() -> impl Strategy<Value = Vec<u8>> {
    let encoding = prop_oneof![
        Just(Encoding::Compact),
        Just(Encoding::Pretty),
        Just(Encoding::Padded),
        Just(Encoding::Trailing),
        Just(Encoding::Cut),
    ];
    (
        0u8..5,
        any::<bool>(),
        prop::collection::vec((0u8..8, encoding), 0..4),
        repair_args_strategy(),
    )
        .prop_map(|(schema, reject_unknown, encode, args)| {
            RepairCall {
                schema,
                reject_unknown,
                encode,
                args_text: args.into_bytes(),
            }
            .to_bytes()
        })
}

/// A part of a multi-part answer: short or long text, images of every media type, resources,
/// resource links, audio.
fn part_strategy() -> impl Strategy<Value = PartChoice> {
    prop_oneof![
        3 => "[a-z\n é😀]{0,40}".prop_map(PartChoice::Text),
        1 => "(line\n){10,40}".prop_map(PartChoice::Text),
        2 => (0u8..8, "[A-Za-z0-9+/=]{0,16}").prop_map(|(m, d)| PartChoice::Image(m, d)),
        1 => ("[a-z:/.]{0,16}", proptest::option::of("[a-z/]{0,12}"), any::<bool>(), "[a-zA-Z0-9 ]{0,20}")
            .prop_map(|(uri, mime_type, blob, body)| PartChoice::Resource { uri, mime_type, blob, body }),
        1 => ("[a-z:/.]{0,16}", "[a-z. \"]{0,8}", proptest::option::of("[a-z ]{0,8}"), proptest::option::of(any::<u16>()))
            .prop_map(|(uri, name, title, size)| PartChoice::Link { uri, name, title, size }),
        1 => (any::<u8>(), "[A-Za-z0-9+/=]{0,16}").prop_map(|(m, d)| PartChoice::Audio(m, d)),
    ]
}

/// A turn of multi-part answers, some through MCP, some isolated, some cancelling, as fuzz bytes.
fn parts_turn_strategy() -> impl Strategy<Value = Vec<u8>> {
    let parts = || prop::collection::vec(part_strategy(), 0..5);
    let answer = prop_oneof![
        3 => parts().prop_map(Answer::Parts),
        2 => (parts(), any::<bool>()).prop_map(|(parts, is_error)| Answer::Mcp { parts, is_error }),
        1 => prop_oneof![
            Just("{}".to_string()),
            Just(r#"{"content": [{"type": "audio"}]}"#.to_string()),
            Just(r#"{"content": {}, "isError": true}"#.to_string()),
            "[\\[\\]{}\":a-z ,]{0,30}",
        ]
        .prop_map(Answer::RawMcp),
    ];
    let call = (any::<bool>(), prop::bool::weighted(0.2), answer).prop_map(
        |(isolated, cancels, answer)| PartsCall {
            isolated,
            cancels,
            answer,
        },
    );
    (
        0u16..200,
        any::<bool>(),
        prop::bool::weighted(0.1),
        prop::collection::vec(call, 1..6),
    )
        .prop_map(|(cap_limit, cap_chars, cancelled_before, calls)| {
            PartsTurn {
                cap_limit,
                cap_chars,
                cancelled_before,
                calls,
            }
            .to_bytes()
        })
}

proptest! {
    /// The structured_call mutator keeps the policy, the handler and the schema on three
    /// seeds in four (only the arguments change), and stays within `max_size`.
    #[test]
    fn prop_structured_mutator_keeps_the_schema(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        seed in any::<u32>(),
        room in 0usize..16,
    ) {
        let before: StructuredCall = decode(&bytes).unwrap();
        let size = bytes.len();
        let mut data = bytes.clone();
        data.resize(size + room, 0);
        let max_size = data.len();
        let new_size = harness_ref_props::structured::mutate(&mut data, size, max_size, seed, scramble);
        prop_assert!(new_size <= max_size);
        let after: StructuredCall = decode(&data[..new_size]).unwrap();
        let offset = harness_ref_props::structured::arguments_offset(&bytes);
        if !seed.is_multiple_of(4) && offset < size && offset < max_size {
            prop_assert_eq!(&after.schema, &before.schema);
            prop_assert_eq!(after.policy, before.policy);
            prop_assert_eq!(&after.outcome, &before.outcome);
            prop_assert_eq!(&data[..offset], &bytes[..offset]);
        }
    }
    #[test]
    fn prop_case_file(bytes in case_file_strategy()) {
        let input: CaseFile = decode(&bytes).unwrap();
        harness_ref_props::case_file::check(&input, &support::case_file_api());
    }

    #[test]
    fn prop_tool_use_bytes(bytes in tool_use_strategy()) {
        let input: RawToolUse = decode(&bytes).unwrap();
        harness_ref_props::tool_use::check(&input);
    }

    #[test]
    fn prop_structured_call(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let input: StructuredCall = decode(&bytes).unwrap();
        harness_ref_props::structured::check(&input);
    }

    #[test]
    fn prop_cap_output(bytes in cap_output_strategy()) {
        let input: CapOutput = decode(&bytes).unwrap();
        harness_ref_props::cap::check(&input);
    }

    #[test]
    fn prop_cap_output_raw_bytes(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let input: CapOutput = decode(&bytes).unwrap();
        harness_ref_props::cap::check(&input);
    }

    #[test]
    fn prop_protocol_messages(bytes in protocol_line_strategy()) {
        let input: ProtocolLine = decode(&bytes).unwrap();
        harness_ref_props::protocol::check(&input);
    }

    /// The seed encoder is the decoder's inverse on everything the decoder produces, so a
    /// reproduction printed from a decoded input replays the same input.
    #[test]
    fn prop_structured_call_bytes_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let input: StructuredCall = decode(&bytes).unwrap();
        let again: StructuredCall = decode(&input.to_bytes()).unwrap();
        prop_assert_eq!(again, input);
    }

    #[test]
    fn prop_cap_output_bytes_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let input: CapOutput = decode(&bytes).unwrap();
        let again: CapOutput = decode(&input.to_bytes()).unwrap();
        prop_assert_eq!(again, input);
    }

    #[test]
    fn prop_security_gates(bytes in gated_session_strategy()) {
        let input: GatedSession = decode(&bytes).unwrap();
        harness_ref_props::security::check(&input);
    }

    #[test]
    fn prop_security_gates_raw_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let input: GatedSession = decode(&bytes).unwrap();
        harness_ref_props::security::check(&input);
    }

    #[test]
    fn prop_repair_call(bytes in repair_call_strategy()) {
        let input: RepairCall = decode(&bytes).unwrap();
        harness_ref_props::repair::check(&input);
    }

    #[test]
    fn prop_gated_session_bytes_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let input: GatedSession = decode(&bytes).unwrap();
        let again: GatedSession = decode(&input.to_bytes()).unwrap();
        prop_assert_eq!(again, input);
    }

    #[test]
    fn prop_repair_call_bytes_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let input: RepairCall = decode(&bytes).unwrap();
        let again: RepairCall = decode(&input.to_bytes()).unwrap();
        prop_assert_eq!(again, input);
    }

    #[test]
    fn prop_parts_turn(bytes in parts_turn_strategy()) {
        let input: PartsTurn = decode(&bytes).unwrap();
        harness_ref_props::parts::check(&input);
    }

    #[test]
    fn prop_parts_turn_raw_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let input: PartsTurn = decode(&bytes).unwrap();
        harness_ref_props::parts::check(&input);
    }

    #[test]
    fn prop_parts_turn_bytes_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let input: PartsTurn = decode(&bytes).unwrap();
        let again: PartsTurn = decode(&input.to_bytes()).unwrap();
        prop_assert_eq!(again, input);
    }
}
