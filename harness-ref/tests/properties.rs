//! Properties of the harness and the cap (proptest, stable). Strategies live in `strategies`
//! and are named `*_strategy()`; properties are named `prop_*`. Failures found by proptest are
//! recorded under `proptest-regressions/` and committed.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use harness_ref::cap::{self, CapConfig, Strategy as Keep, StreamCapper, Unit};
use harness_ref::{
    Call, CallContext, ErrorCode, Execution, Harness, HarnessConfig, Registry, Tool, ToolOutput,
};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

mod strategies {
    use super::*;

    /// Text mixing ASCII, newlines and 2-, 3- and 4-byte characters.
    pub fn text_strategy() -> impl Strategy<Value = String> {
        let ch = prop_oneof![
            4 => proptest::char::range('a', 'z'),
            2 => Just('\n'),
            1 => Just('é'),
            1 => Just('東'),
            1 => Just('😀'),
            1 => any::<char>(),
        ];
        prop::collection::vec(ch, 0..400).prop_map(String::from_iter)
    }

    /// Any cap: small limits (below the note) and larger ones, both units, both strategies.
    pub fn cap_strategy() -> impl Strategy<Value = CapConfig> {
        (
            prop_oneof![0usize..200, 100usize..1200],
            prop_oneof![Just(Unit::Bytes), Just(Unit::Chars)],
            prop_oneof![Just(Keep::HeadTail), Just(Keep::HeadOnly)],
            0u16..=1000,
        )
            .prop_map(|(limit, unit, strategy, head_permille)| CapConfig {
                limit,
                unit,
                strategy,
                head_permille,
            })
    }

    /// Cut points (as fractions of the text) for splitting it into chunks.
    pub fn splits_strategy() -> impl Strategy<Value = Vec<f64>> {
        prop::collection::vec(0.0f64..1.0, 0..12)
    }

    /// A JSON leaf or a small nested value.
    pub fn json_strategy() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-5i64..20).prop_map(Value::from),
            (-5.0f64..20.0).prop_map(Value::from),
            prop_oneof![
                Just("3".to_string()),
                Just("".to_string()),
                Just("red".to_string()),
                "[a-z]{0,8}"
            ]
            .prop_map(Value::String),
        ];
        leaf.prop_recursive(2, 8, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::btree_map("[a-c]", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    const FIELDS: [&str; 4] = ["a", "b", "c", "d"];

    /// An object schema over a few fields, built from the keywords the harness must support.
    pub fn schema_strategy() -> impl Strategy<Value = Value> {
        let field = prop_oneof![
            Just(json!({"type": "string"})),
            Just(json!({"type": "string", "minLength": 1})),
            Just(json!({"type": "integer", "minimum": 0})),
            Just(json!({"type": "number", "maximum": 10})),
            Just(json!({"type": "boolean"})),
            Just(json!({"enum": ["red", "green"]})),
            Just(json!({"type": "array", "items": {"type": "integer"}})),
            Just(json!({"type": "object", "properties": {"a": {"type": "integer"}}})),
        ];
        (
            prop::collection::vec(field, FIELDS.len()),
            prop::collection::vec(any::<bool>(), FIELDS.len()),
            prop::option::of(any::<bool>()),
        )
            .prop_map(|(fields, required, additional)| {
                let properties: Map<String, Value> = FIELDS
                    .iter()
                    .zip(fields)
                    .map(|(k, s)| (k.to_string(), s))
                    .collect();
                let required: Vec<&str> = FIELDS
                    .iter()
                    .zip(required)
                    .filter(|(_, r)| *r)
                    .map(|(k, _)| *k)
                    .collect();
                let mut schema =
                    json!({"type": "object", "properties": properties, "required": required});
                if let Some(additional) = additional {
                    schema["additionalProperties"] = Value::Bool(additional);
                }
                schema
            })
    }

    /// Arguments: an object over the schema's fields and a few others.
    pub fn args_strategy() -> impl Strategy<Value = Value> {
        prop::collection::btree_map(
            prop_oneof![Just("a"), Just("b"), Just("c"), Just("d"), Just("zz")],
            json_strategy(),
            0..5,
        )
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
    }

    /// A tool_use as it might arrive: well-formed, broken in one field, or raw text.
    pub fn call_strategy() -> impl Strategy<Value = Call> {
        let id = prop_oneof![
            4 => prop_oneof![Just("toolu_1"), Just("toolu_2"), Just("x")].prop_map(|s| json!(s)),
            1 => Just(json!("")),
            1 => Just(json!(7)),
            1 => Just(Value::Null),
        ];
        let name =
            prop_oneof![4 => Just(json!("echo")), 1 => Just(json!("nope")), 1 => Just(json!(""))];
        let structured =
            (id, name, args_strategy(), any::<bool>()).prop_map(|(id, name, input, drop_id)| {
                let mut call = json!({"name": name, "input": input});
                if !(drop_id || id.is_null()) {
                    call["id"] = id;
                }
                Call::Value(call)
            });
        prop_oneof![
            6 => structured,
            1 => json_strategy().prop_map(Call::Value),
            1 => "\\PC{0,40}".prop_map(Call::Text),
            1 => prop::collection::vec(any::<u8>(), 0..40).prop_map(Call::Bytes),
        ]
    }
}

use strategies::*;

const REPLACEMENT: char = '\u{FFFD}';

/// The id a result must carry: the call's `id` when it is a string and the call is an object.
fn expected_id(call: &Call) -> Option<String> {
    let value = match call {
        Call::Value(v) => Some(v.clone()),
        Call::Text(t) => serde_json::from_str(t).ok(),
        Call::Bytes(b) => serde_json::from_slice(b).ok(),
    };
    value?.get("id")?.as_str().map(str::to_string)
}

fn prefix_units(text: &str, units: u64, unit: Unit) -> &str {
    let end = match unit {
        Unit::Bytes => units as usize,
        Unit::Chars => text
            .char_indices()
            .nth(units as usize)
            .map_or(text.len(), |(i, _)| i),
        Unit::Lines => text
            .match_indices('\n')
            .nth((units as usize).wrapping_sub(1))
            .filter(|_| units > 0)
            .map_or(if units == 0 { 0 } else { text.len() }, |(i, _)| i + 1),
        // A token cut's sizes are estimates, not offsets; these properties generate byte and
        // char caps only (token caps: `cap::tests`).
        Unit::Tokens(_) => panic!("no prefix of an estimated token count"),
    };
    &text[..end]
}

fn suffix_units(text: &str, units: u64, unit: Unit) -> &str {
    let total = cap::measure(text, unit) as u64;
    let start = match unit {
        Unit::Bytes => text.len() - units as usize,
        Unit::Chars => text
            .char_indices()
            .nth((total - units) as usize)
            .map_or(text.len(), |(i, _)| i),
        // The start of line `total - units` (0-based): just after the `\n` ending the line before.
        Unit::Lines => match (total - units) as usize {
            0 => 0,
            skip => text
                .match_indices('\n')
                .nth(skip - 1)
                .map_or(text.len(), |(i, _)| i + 1),
        },
        Unit::Tokens(_) => panic!("no suffix of an estimated token count"),
    };
    &text[start..]
}

fn chunked(text: &str, splits: &[f64]) -> Vec<String> {
    let mut cuts: Vec<usize> = splits
        .iter()
        .map(|f| {
            let mut i = (f * text.len() as f64) as usize;
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        })
        .collect();
    cuts.push(0);
    cuts.push(text.len());
    cuts.sort_unstable();
    cuts.windows(2)
        .map(|w| text[w[0]..w[1]].to_string())
        .collect()
}

/// 256 cases by default; `PROPTEST_CASES=N` overrides (heavy runs use `--release`).
fn config() -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = 256;
    }
    config
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn prop_content_is_within_the_cap(text in text_strategy(), config in cap_strategy()) {
        let capped = cap::cap(&text, &config);
        prop_assert!(cap::measure(&capped.content, config.unit) <= config.limit);
    }

    #[test]
    fn prop_content_is_valid_text_without_invented_replacement_chars(text in text_strategy(), config in cap_strategy()) {
        let capped = cap::cap(&text, &config);
        prop_assert!(std::str::from_utf8(capped.content.as_bytes()).is_ok());
        if !text.contains(REPLACEMENT) {
            prop_assert!(!capped.content.contains(REPLACEMENT));
        }
    }

    #[test]
    fn prop_head_is_a_prefix_and_tail_a_suffix(text in text_strategy(), config in cap_strategy()) {
        let capped = cap::cap(&text, &config);
        match capped.truncation {
            None => prop_assert_eq!(&*capped.content, text.as_str()),
            Some(t) => {
                let head = prefix_units(&text, t.head_size, config.unit);
                let tail = suffix_units(&text, t.tail_size, config.unit);
                if t.head_size + t.tail_size > 0 || config.limit >= t.note().len() {
                    prop_assert!(capped.content.starts_with(head));
                    prop_assert!(capped.content.ends_with(tail));
                    prop_assert!(capped.content.contains(&t.note()));
                }
                if config.strategy == Keep::HeadOnly {
                    prop_assert_eq!(t.tail_size, 0);
                }
            }
        }
    }

    #[test]
    fn prop_note_numbers_are_exact(text in text_strategy(), config in cap_strategy()) {
        if let Some(t) = cap::cap(&text, &config).truncation {
            prop_assert_eq!(t.original_size, cap::measure(&text, config.unit) as u64);
            prop_assert_eq!(t.original_lines, cap::count_lines(&text));
            prop_assert_eq!(t.omitted_size, t.original_size - t.head_size - t.tail_size);
            let head = prefix_units(&text, t.head_size, config.unit);
            let tail = suffix_units(&text, t.tail_size, config.unit);
            let omitted = &text[head.len()..text.len() - tail.len()];
            prop_assert_eq!(t.omitted_size, cap::measure(omitted, config.unit) as u64);
            prop_assert_eq!(t.omitted_lines, omitted.matches('\n').count() as u64);
        }
    }

    #[test]
    fn prop_last_line_survives_when_it_fits_the_tail(text in text_strategy(), config in cap_strategy()) {
        let size = cap::measure(&text, config.unit) as u64;
        let body = text.strip_suffix('\n').unwrap_or(&text);
        let last_line = &text[body.rfind('\n').map_or(0, |i| i + 1)..];
        if let (Some((_, tail_budget)), Some(_)) =
            (config.text_budget(size, cap::count_lines(&text)), cap::cap(&text, &config).truncation)
        {
            if cap::measure(last_line, config.unit) <= tail_budget {
                prop_assert!(cap::cap(&text, &config).content.ends_with(last_line));
            }
        }
    }

    #[test]
    fn prop_capping_is_idempotent(text in text_strategy(), config in cap_strategy()) {
        let once = cap::cap(&text, &config).content.into_owned();
        let twice = cap::cap(&once, &config);
        prop_assert_eq!(&*twice.content, once.as_str());
        prop_assert!(twice.truncation.is_none());
    }

    #[test]
    fn prop_streaming_agrees_with_in_memory(text in text_strategy(), config in cap_strategy(), splits in splits_strategy()) {
        let whole = cap::cap(&text, &config);
        let mut capper = StreamCapper::new(config);
        for chunk in chunked(&text, &splits) {
            capper.push(&chunk);
        }
        prop_assert_eq!(capper.finish(), whole.clone().into_owned());
        prop_assert_eq!(cap::cap_reader(text.as_bytes(), &config).unwrap(), whole.into_owned());
    }

    #[test]
    fn prop_invalid_arguments_never_run_the_handler(schema in schema_strategy(), args in args_strategy()) {
        let runs = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&runs);
        let mut registry = Registry::new();
        registry.register(Tool::new("t", "", schema, move |_: Value, _: &CallContext<'_>| {
            counter.fetch_add(1, Ordering::SeqCst);
            Ok(ToolOutput::text("ran"))
        }).execution(Execution::Inline)).unwrap();
        let violations = registry.get("t").unwrap().check_arguments(&args);
        let harness = Harness::new(registry, HarnessConfig::default());
        let result = harness.handle(json!({"id": "toolu_1", "name": "t", "input": args.clone()}));
        if violations.is_empty() {
            prop_assert_eq!(runs.load(Ordering::SeqCst), 1);
            prop_assert!(!result.is_error());
        } else {
            prop_assert_eq!(runs.load(Ordering::SeqCst), 0);
            prop_assert_eq!(result.code(), Some(ErrorCode::InvalidArguments));
            prop_assert_eq!(result.violations(), violations.as_slice());
            for v in &violations {
                // Every pointer names a value in the arguments, or a missing required field
                // directly under one.
                let exists = args.pointer(&v.pointer).is_some();
                let parent = &v.pointer[..v.pointer.rfind('/').unwrap_or(0)];
                prop_assert!(exists || (v.keyword == "required" && args.pointer(parent).is_some()), "{}", v);
            }
        }
    }

    #[test]
    fn prop_every_input_yields_one_result_with_the_right_id(calls in prop::collection::vec(call_strategy(), 0..8)) {
        let mut registry = Registry::new();
        registry.register(Tool::new("echo", "", json!({"type": "object"}), |args: Value, _: &CallContext<'_>| {
            Ok(ToolOutput::json(args))
        }).execution(Execution::Inline)).unwrap();
        let harness = Harness::new(registry, HarnessConfig::default());
        let expected: Vec<Option<String>> = calls.iter().map(expected_id).collect();
        for (call, id) in calls.iter().zip(&expected) {
            let one = harness.handle(call.clone());
            prop_assert_eq!(one.tool_use_id(), id.as_deref());
        }
        let results = harness.handle_batch(calls.clone());
        prop_assert_eq!(results.len(), calls.len());
        let mut seen = std::collections::HashSet::new();
        for (result, id) in results.iter().zip(&expected) {
            prop_assert_eq!(result.tool_use_id(), id.as_deref());
            if let Some(id) = id.as_deref().filter(|id| !id.is_empty()) {
                if !seen.insert(id.to_string()) {
                    prop_assert_eq!(result.code(), Some(ErrorCode::DuplicateCallId));
                }
            }
        }
    }
}
