//! The generator: random [`Model`]s shaped by what the adapter declared.
//!
//! Schemas and argument values come from the fuzz helper's byte-grammar strategies
//! ([`harness_ref_props::schema`]), fed with bytes from the seeded [`Rng`], then cut down to the
//! JSON Schema keywords the adapter says it can express — so a harness is never sent a schema it
//! would have to skip. Arguments are drawn shaped like the schema and then, for about a third of
//! the calls, broken in the ways lenient harnesses mishandle (a numeric string, an unknown
//! field, a missing or null property). The generator only *intends*: whether a set of arguments
//! is valid is decided later, by the reference validator ([`super::oracle`]).
//!
//! Outputs are sized relative to the cap (`{"cap": 1.0, "plus": -1}`), so the same seed tests a
//! fixed 16 KiB cap and a configured 500-char cap at their boundaries alike.

use std::collections::BTreeSet;

use harness_conformance_protocol::{
    Behavior, CapRequest, Capabilities, Gen, Lines, Mutation, NonFinite, Output, Raise, RaiseKind,
    Size, StopReason, Strategy, Unit,
};
use harness_ref_props::bytes::Reader;
use harness_ref_props::schema::{self, Additional, Bounds, ObjectSchema, Schema};
use serde_json::{json, Map, Value};

use super::model::{CallModel, Input, Model, ToolModel};
use super::rng::Rng;

/// What the generator may use, from the adapter's handshake.
#[derive(Debug, Clone)]
pub struct Scope {
    /// The declared JSON Schema keywords.
    pub keywords: BTreeSet<String>,
    /// The cap may be configured per case.
    pub cap_configurable: bool,
    /// The strategies that may be asked for (`head_tail` first when available).
    pub strategies: Vec<Strategy>,
    /// A deadline may be configured per case (timeouts are generated only then).
    pub deadline_configurable: bool,
    /// `arguments_text` calls are accepted.
    pub arguments_text: bool,
    /// Raw calls are accepted.
    pub raw: bool,
    /// One turn's calls go as one batch (otherwise one call per case).
    pub parallel: bool,
    /// The transcript is reported (argument-isolation checks need it).
    pub history: bool,
    /// A turn may offer only some of the tools (feature `offered-tools`).
    pub offered_tools: bool,
    /// The turn's stop reason is read (feature `stop-reason`).
    pub stop_reason: bool,
}

impl Scope {
    /// The scope a handshake allows.
    pub fn of(caps: &Capabilities) -> Scope {
        use harness_conformance_protocol::CallForm;
        let (cap_configurable, strategies) = match &caps.cap {
            Some(c) if c.configurable => (true, c.strategies.clone()),
            Some(c) => (false, c.strategies.first().copied().into_iter().collect()),
            None => (false, Vec::new()),
        };
        Scope {
            keywords: caps.keywords.iter().cloned().collect(),
            cap_configurable,
            strategies,
            deadline_configurable: caps.deadline.as_ref().is_some_and(|d| d.configurable),
            arguments_text: caps.call_forms.contains(&CallForm::ArgumentsText),
            raw: caps.call_forms.contains(&CallForm::Raw),
            parallel: caps.parallel,
            history: caps.history,
            offered_tools: caps.features.iter().any(|f| f == "offered-tools"),
            stop_reason: caps.features.iter().any(|f| f == "stop-reason"),
        }
    }

    fn has(&self, keyword: &str) -> bool {
        self.keywords.contains(keyword)
    }
}

/// Tool names; near-misses of them make unknown-tool calls.
pub const TOOL_NAMES: [&str; 5] = [
    "get_weather",
    "search_docs",
    "run_query",
    "list_files",
    "send_mail",
];

/// Property names: distinctive words (so a message naming them can be recognised) and a few
/// the fuzz helper uses for JSON-pointer escaping.
pub const PROPERTY_NAMES: [&str; 10] = [
    "alpha",
    "bravo",
    "charlie",
    "delta_count",
    "echo_label",
    "foxtrot",
    "a/b",
    "~1",
    "é",
    "x y",
];

/// The field added to break a closed object.
pub const UNKNOWN_FIELD: &str = "zulu_extra";

/// The deadline a case with a timing-out handler asks for, and how long that handler sleeps.
pub const TIMEOUT_DEADLINE_MS: u64 = 60;
/// See [`TIMEOUT_DEADLINE_MS`].
pub const TIMEOUT_SLEEP_MS: u64 = 1_000;

/// Cuts `schema` down to the keywords in `scope`, keeping its meaning where a keyword stays.
pub fn restrict(schema: &Schema, scope: &Scope) -> Schema {
    let has = |k: &str| scope.has(k);
    let opt = |k: &str, v: Option<u8>| if has(k) { v } else { None };
    match schema {
        Schema::Any => Schema::Any,
        Schema::Types(t) if has("type") => Schema::types(t.clone()),
        Schema::Types(_) => Schema::Any,
        Schema::Object(o) => Schema::Object(ObjectSchema {
            typed: o.typed && has("type"),
            properties: if has("properties") {
                o.properties
                    .iter()
                    .map(|(k, s)| (k.clone(), restrict(s, scope)))
                    .collect()
            } else {
                Vec::new()
            },
            required: if has("required") {
                o.required.clone()
            } else {
                Vec::new()
            },
            additional: match &o.additional {
                _ if !has("additionalProperties") => Additional::Absent,
                Additional::Schema(s) => Additional::Schema(Box::new(restrict(s, scope))),
                other => other.clone(),
            },
            min_properties: opt("minProperties", o.min_properties),
            max_properties: opt("maxProperties", o.max_properties),
        }),
        Schema::Array {
            items,
            min_items,
            max_items,
            unique,
        } if has("type") => Schema::Array {
            items: items
                .as_ref()
                .filter(|_| has("items"))
                .map(|s| Box::new(restrict(s, scope))),
            min_items: opt("minItems", *min_items),
            max_items: opt("maxItems", *max_items),
            unique: *unique && has("uniqueItems"),
        },
        Schema::Str {
            min_length,
            max_length,
            pattern,
        } if has("type") => Schema::Str {
            min_length: opt("minLength", *min_length),
            max_length: opt("maxLength", *max_length),
            pattern: pattern.filter(|_| has("pattern")),
        },
        Schema::Int(b) if has("type") => Schema::Int(restrict_bounds(b, scope)),
        Schema::Num(b) if has("type") => Schema::Num(restrict_bounds(b, scope)),
        Schema::Enum(v) if has("enum") => Schema::Enum(v.clone()),
        Schema::Const(v) if has("const") => Schema::Const(v.clone()),
        Schema::Const(v) if has("enum") => Schema::Enum(vec![v.clone()]),
        Schema::AnyOf(bs) if has("anyOf") => {
            Schema::AnyOf(bs.iter().map(|b| restrict(b, scope)).collect())
        }
        Schema::AllOf(bs) if has("allOf") => {
            Schema::AllOf(bs.iter().map(|b| restrict(b, scope)).collect())
        }
        Schema::OneOf(bs) if has("oneOf") => {
            Schema::OneOf(bs.iter().map(|b| restrict(b, scope)).collect())
        }
        Schema::Not(s) if has("not") => Schema::Not(Box::new(restrict(s, scope))),
        _ => Schema::Any,
    }
}

fn restrict_bounds(b: &Bounds, scope: &Scope) -> Bounds {
    let f = |k: &str, v: Option<f64>| if scope.has(k) { v } else { None };
    Bounds {
        minimum: f("minimum", b.minimum),
        maximum: f("maximum", b.maximum),
        exclusive_minimum: f("exclusiveMinimum", b.exclusive_minimum),
        exclusive_maximum: f("exclusiveMaximum", b.exclusive_maximum),
        multiple_of: b.multiple_of.filter(|_| scope.has("multipleOf")),
    }
}

/// Whether a schema uses composition anywhere (messages about it are worded too freely to
/// check which properties they name).
pub fn has_composition(s: &Schema) -> bool {
    match s {
        Schema::AnyOf(_) | Schema::AllOf(_) | Schema::OneOf(_) | Schema::Not(_) => true,
        Schema::Object(o) => {
            o.properties.iter().any(|(_, s)| has_composition(s))
                || matches!(&o.additional, Additional::Schema(s) if has_composition(s))
        }
        Schema::Array { items: Some(s), .. } => has_composition(s),
        _ => false,
    }
}

fn sub_schema(rng: &mut Rng) -> Schema {
    let bytes = rng.bytes(48);
    Schema::read(&mut Reader::new(&bytes), 1)
}

fn top_schema(rng: &mut Rng, scope: &Scope) -> Schema {
    let mut properties: Vec<(String, Schema)> = Vec::new();
    for _ in 0..rng.weighted(&[10, 30, 30, 20, 10]) {
        let name = if rng.chance(85) {
            PROPERTY_NAMES[rng.below(6)]
        } else {
            PROPERTY_NAMES[6 + rng.below(4)]
        };
        if !properties.iter().any(|(k, _)| k == name) {
            properties.push((name.to_owned(), sub_schema(rng)));
        }
    }
    let mut required: Vec<String> = properties
        .iter()
        .filter(|_| rng.chance(50))
        .map(|(k, _)| k.clone())
        .collect();
    if rng.chance(5) && !required.iter().any(|r| r == "foxtrot") {
        required.push("foxtrot".to_owned());
    }
    let additional = match rng.weighted(&[55, 25, 20]) {
        0 => Additional::Forbid,
        1 => Additional::Allow,
        _ => Additional::Schema(Box::new(sub_schema(rng))),
    };
    let min_max = |rng: &mut Rng| rng.chance(8).then(|| rng.below(3) as u8);
    let schema = Schema::Object(ObjectSchema {
        min_properties: min_max(rng),
        max_properties: min_max(rng).map(|n| n + 2),
        ..ObjectSchema::new(true, properties, required, additional)
    });
    restrict(&schema, scope)
}

/// The fixed schema of a tool whose handler mutates its arguments: `nested.inner` always
/// exists in valid arguments, so the mutation's parent is there.
fn mutation_schema(scope: &Scope) -> Option<Schema> {
    let needed = ["type", "properties", "required", "additionalProperties"];
    if !needed.iter().all(|k| scope.has(k)) {
        return None;
    }
    let inner = Schema::Object(ObjectSchema::new(
        true,
        vec![("inner".into(), Schema::Types(vec![schema_ty_integer()]))],
        vec!["inner".into()],
        Additional::Forbid,
    ));
    Some(Schema::Object(ObjectSchema::new(
        true,
        vec![("nested".into(), inner), ("alpha".into(), Schema::Any)],
        vec!["nested".into()],
        Additional::Forbid,
    )))
}

fn schema_ty_integer() -> schema::Ty {
    schema::Ty::Integer
}

/// Pieces of small text outputs: multibyte characters, line endings, a byte-order mark.
const TEXT_PIECES: [&str; 10] = [
    "ok",
    "é",
    "日本",
    "😀",
    "\r\n",
    "\n",
    "  ",
    "\u{feff}",
    "line 1",
    "Error: not really",
];
/// Units repeated to fill a size: 1, 2, 3 and 4 bytes wide.
const UNITS: [&str; 5] = ["a", "é", "€", "😀", "ab"];

fn rel(cap: f64, plus: i64) -> Size {
    Size::Relative { cap, plus }
}

fn ret(output: Output) -> Behavior {
    Behavior::Return { output }
}

fn small_text(rng: &mut Rng) -> String {
    (0..rng.range(1, 8))
        .map(|_| *rng.pick(&TEXT_PIECES))
        .collect()
}

/// A behaviour and the label the summary counts it under.
fn behavior(rng: &mut Rng, scope: &Scope, allow_timeout: bool) -> (Behavior, &'static str) {
    let weights = [
        14, // small text
        4,  // empty
        8,  // exactly at the cap
        8,  // cap ± 1
        9,  // multibyte across the cap boundary
        10, // lines with a short last line
        5,  // lines with a long last line
        5,  // far over the cap
        6,  // json
        4,  // non-finite
        6,  // domain
        4,  // transport
        6,  // internal
        if allow_timeout { 4 } else { 0 },
        3, // short sleep, then text
    ];
    match rng.weighted(&weights) {
        0 => (ret(Output::Text(small_text(rng))), "text"),
        1 => (ret(Output::Text(String::new())), "empty"),
        2 => {
            let unit = rng.pick(&UNITS).to_string();
            (
                ret(Output::Generate(Gen::Repeat {
                    repeat: unit,
                    size: rel(1.0, 0),
                })),
                "at-cap",
            )
        }
        3 => {
            let plus = if rng.chance(50) { -1 } else { 1 };
            (
                ret(Output::Generate(Gen::Repeat {
                    repeat: "a".into(),
                    size: rel(1.0, plus),
                })),
                "cap-plus-minus-one",
            )
        }
        4 => {
            let k = rng.range(0, 4) as i64;
            let wide = rng.pick(&["é", "€", "😀", "日本"]).to_string();
            let gen = Gen::Concat {
                concat: vec![
                    Gen::Repeat {
                        repeat: "a".into(),
                        size: rel(1.0, -k),
                    },
                    Gen::Repeat {
                        repeat: wide,
                        size: Size::Exact(rng.range(4, 24)),
                    },
                ],
            };
            (ret(Output::Generate(gen)), "multibyte-boundary")
        }
        k @ (5 | 6) => {
            let (last, label) = if k == 5 {
                (
                    format!(
                        "ValueError: {}",
                        rng.pick(&["boom", "bad input é", "😀 failed"])
                    ),
                    "lines",
                )
            } else {
                (
                    "E".repeat(rng.range(200, 3000) as usize) + "nd",
                    "long-last-line",
                )
            };
            let gen = Gen::Lines {
                lines: Lines {
                    size: rel(
                        *rng.pick(&[0.5, 1.0, 1.5, 2.0, 3.0]),
                        rng.range(0, 40) as i64 - 20,
                    ),
                    width: rng.range(7, 90),
                    last,
                },
            };
            (ret(Output::Generate(gen)), label)
        }
        7 => {
            let unit = rng.pick(&UNITS).to_string();
            (
                ret(Output::Generate(Gen::Repeat {
                    repeat: unit,
                    size: rel(*rng.pick(&[2.0, 4.0]), 3),
                })),
                "far-over-cap",
            )
        }
        8 => {
            let v = rng
                .pick(&[
                    json!({"ok": true}),
                    json!(0),
                    json!(null),
                    json!(""),
                    json!([1, "é", {"a": false}]),
                    json!("NaN"),
                ])
                .clone();
            (ret(Output::Json(v)), "json")
        }
        9 => (
            ret(Output::NonFinite(*rng.pick(&[
                NonFinite::Nan,
                NonFinite::Inf,
                NonFinite::NegInf,
            ]))),
            "non-finite",
        ),
        10 => (
            raise(
                RaiseKind::Domain,
                format!("no data for Atlantis-{}", rng.range(100, 999)),
                None,
            ),
            "domain-error",
        ),
        11 => (
            raise(
                RaiseKind::Transport,
                "connection refused by weather service".into(),
                None,
            ),
            "transport-error",
        ),
        12 => {
            let secret = format!("SECRET-{:06x}", rng.next_u64() & 0xff_ffff);
            (
                raise(
                    RaiseKind::Internal,
                    format!("KeyError at /srv/app/db.py:42 password=hunter2 {secret}"),
                    Some(secret),
                ),
                "internal-error",
            )
        }
        13 => (
            Behavior::Sleep {
                sleep_ms: TIMEOUT_SLEEP_MS.into(),
                then: Box::new(ret(Output::Text("late".into()))),
            },
            "timeout",
        ),
        _ => {
            let _ = scope;
            (
                Behavior::Sleep {
                    sleep_ms: rng.range(1, 5).into(),
                    then: Box::new(ret(Output::Text(small_text(rng)))),
                },
                "short-sleep",
            )
        }
    }
}

fn raise(kind: RaiseKind, message: String, secret: Option<String>) -> Behavior {
    Behavior::Raise {
        raise: Raise {
            kind,
            message,
            secret,
        },
    }
}

/// Arguments shaped like `schema` (the fuzz helper's strategy), retried a few times for a set
/// the reference accepts when `want_valid`.
fn arguments(rng: &mut Rng, tool: &ToolModel, want_valid: bool) -> Value {
    let mut last = Value::Object(Map::new());
    for _ in 0..16 {
        let bytes = rng.bytes(64);
        let mut v = schema::read_args(&mut Reader::new(&bytes), &tool.schema);
        tame_numbers(rng, &mut v);
        let ok =
            v.is_object() && super::oracle::reference_valid(&tool.schema_json(), &v) == Some(true);
        last = v;
        if ok || !want_valid {
            break;
        }
    }
    if !last.is_object() {
        last = Value::Object(Map::new());
    }
    last
}

/// Replaces most numbers beyond 2^53 (the oracle leaves calls holding them ambiguous, since
/// SPEC.md does not require their exactness) by small ones, keeping a few.
fn tame_numbers(rng: &mut Rng, v: &mut Value) {
    match v {
        Value::Number(n) => {
            let huge = n.as_u64().is_some_and(|u| u > 1 << 53)
                || n.as_i64().is_some_and(|i| i < -(1 << 53))
                || n.as_f64()
                    .is_some_and(|f| f.abs() > 9_007_199_254_740_992.0);
            if huge && !rng.chance(10) {
                *v = json!(rng.range(0, 9));
            }
        }
        Value::Array(xs) => xs.iter_mut().for_each(|x| tame_numbers(rng, x)),
        Value::Object(m) => m.values_mut().for_each(|x| tame_numbers(rng, x)),
        _ => {}
    }
}

/// Breaks `args` the way lenient harnesses mishandle.
fn perturb(rng: &mut Rng, tool: &ToolModel, args: &mut Value) {
    let Value::Object(m) = args else { return };
    let props: Vec<(String, Schema)> = match &tool.schema {
        Schema::Object(o) => o.properties.clone(),
        _ => Vec::new(),
    };
    let numeric_string =
        |rng: &mut Rng| Value::from(*rng.pick(&["3", "42", "true", "1.5", " 7", "false"]));
    match rng.below(6) {
        0 => {
            // a string where the schema wants a number or a boolean, and the reverse
            if let Some((k, s)) = props
                .iter()
                .find(|(_, s)| matches!(s, Schema::Int(_) | Schema::Num(_) | Schema::Types(_)))
            {
                let v = match s {
                    Schema::Types(t) if t.contains(&schema::Ty::String) => json!(3),
                    _ => numeric_string(rng),
                };
                m.insert(k.clone(), v);
            } else {
                let k = rng.pick(&PROPERTY_NAMES[..6]).to_string();
                m.insert(k, numeric_string(rng));
            }
        }
        1 => {
            m.insert(UNKNOWN_FIELD.into(), json!(1));
        }
        2 => {
            if let Schema::Object(o) = &tool.schema {
                if let Some(k) = o.required.first() {
                    m.remove(k);
                }
            }
        }
        3 => {
            if let Some((k, _)) = props.first() {
                m.insert(k.clone(), Value::Null);
            }
        }
        4 => {
            if let Some((k, _)) = props.last() {
                m.insert(k.clone(), json!([1, 2]));
            }
        }
        _ => {
            if let Some((k, _)) = props.first() {
                m.insert(k.clone(), json!({"deep": {"er": "3"}}));
            }
        }
    }
}

/// Ids: mostly plain, sometimes with characters that must be echoed exactly.
fn call_id(rng: &mut Rng, i: usize) -> String {
    match rng.weighted(&[85, 5, 5, 5]) {
        0 => format!("toolu_{:02}{}", i + 1, ["A", "b", "C9", "xq"][rng.below(4)]),
        1 => format!("toolu_é{i}"),
        2 => format!("call {i} "),
        _ => format!("TOOLU_{i:02}"),
    }
}

/// A near-miss of a tool name: what a name-folding harness would wrongly match.
fn near_miss(rng: &mut Rng, name: &str) -> String {
    match rng.below(4) {
        0 => name.to_uppercase(),
        1 => name.replace('_', "-"),
        2 => format!(" {name}"),
        _ => format!("{name}s"),
    }
}

/// Generates one case.
pub fn generate(rng: &mut Rng, scope: &Scope) -> Model {
    let cap = if scope.cap_configurable && rng.chance(75) {
        let strategy = if scope.strategies.contains(&Strategy::HeadOnly) && rng.chance(20) {
            Strategy::HeadOnly
        } else if scope.strategies.contains(&Strategy::HeadTail) {
            Strategy::HeadTail
        } else {
            scope
                .strategies
                .first()
                .copied()
                .unwrap_or(Strategy::HeadTail)
        };
        Some(CapRequest {
            limit: Some(*rng.pick(&[512, 700, 1000, 1500, 2000, 4096])),
            unit: Some(if rng.chance(50) {
                Unit::Bytes
            } else {
                Unit::Chars
            }),
            strategy: Some(strategy),
            remaining: None,
        })
    } else {
        None
    };
    let n_tools = 1 + rng.weighted(&[50, 30, 20]);
    let mut names: Vec<&str> = TOOL_NAMES.to_vec();
    let mut tools = Vec::new();
    let mut has_timeout = false;
    for _ in 0..n_tools {
        let name = names.remove(rng.below(names.len())).to_owned();
        let mutation = if scope.history && rng.chance(7) {
            mutation_schema(scope)
        } else {
            None
        };
        let tool = match mutation {
            Some(schema) => {
                let deep = rng.chance(50);
                let (ptr, value) = if deep {
                    ("/nested/inner", json!(999))
                } else {
                    ("/alpha", json!("changed"))
                };
                ToolModel {
                    name,
                    schema,
                    marker: None,
                    behavior: Behavior::MutateArgs {
                        mutate_args: Mutation {
                            set: [(ptr.to_owned(), value)].into_iter().collect(),
                        },
                        then: Box::new(ret(Output::EchoArgs(true))),
                    },
                    shape: if deep {
                        "mutates-nested-args"
                    } else {
                        "mutates-args"
                    },
                }
            }
            None => {
                let (behavior, shape) = behavior(rng, scope, scope.deadline_configurable);
                has_timeout |= shape == "timeout";
                let marker = (scope.has("description") && rng.chance(20))
                    .then(|| format!("SCHEMA-DOC-{:04x}", rng.next_u64() & 0xffff));
                ToolModel {
                    name,
                    schema: top_schema(rng, scope),
                    marker,
                    behavior,
                    shape,
                }
            }
        };
        tools.push(tool);
    }
    let n_calls = if scope.parallel {
        1 + rng.weighted(&[35, 30, 20, 15])
    } else {
        1
    };
    let mut calls: Vec<CallModel> = Vec::new();
    for i in 0..n_calls {
        let tool = &tools[rng.below(tools.len())];
        let kind = rng.weighted(&[
            45, // valid
            28, // invalid
            if i > 0 { 7 } else { 0 },
            6, // unknown name
            4, // broken id
            2, // broken name
            3, // arguments not an object
            if scope.arguments_text { 8 } else { 0 },
            if scope.raw { 2 } else { 0 },
        ]);
        let id = Some(Value::from(call_id(rng, i)));
        let call = match kind {
            0 | 1 => {
                let mut args = arguments(rng, tool, true);
                if kind == 1 {
                    perturb(rng, tool, &mut args);
                }
                CallModel::Block {
                    id,
                    name: Some(tool.name.clone()),
                    input: Input::Value(args),
                }
            }
            2 => {
                let earlier: Vec<String> = calls
                    .iter()
                    .filter_map(|c| c.id_str().map(str::to_owned))
                    .collect();
                let id = earlier
                    .get(rng.below(earlier.len().max(1)))
                    .cloned()
                    .map(Value::from)
                    .or(id);
                CallModel::Block {
                    id,
                    name: Some(tool.name.clone()),
                    input: Input::Value(arguments(rng, tool, true)),
                }
            }
            3 => {
                let name = if rng.chance(60) {
                    near_miss(rng, &tool.name)
                } else {
                    "delete_everything".into()
                };
                CallModel::Block {
                    id,
                    name: Some(name),
                    input: Input::Value(arguments(rng, tool, true)),
                }
            }
            4 => {
                let id = match rng.below(3) {
                    0 => None,
                    1 => Some(Value::from("")),
                    _ => Some(json!(7)),
                };
                CallModel::Block {
                    id,
                    name: Some(tool.name.clone()),
                    input: Input::Value(arguments(rng, tool, true)),
                }
            }
            5 => {
                let name = if rng.chance(50) {
                    None
                } else {
                    Some((*rng.pick(&["", "  "])).to_owned())
                };
                CallModel::Block {
                    id,
                    name,
                    input: Input::Value(arguments(rng, tool, true)),
                }
            }
            6 => {
                let input = rng
                    .pick(&[
                        json!([1, 2]),
                        json!("{\"alpha\": 1}"),
                        json!(null),
                        json!(3),
                    ])
                    .clone();
                CallModel::Block {
                    id,
                    name: Some(tool.name.clone()),
                    input: Input::Value(input),
                }
            }
            7 => {
                let mut args = arguments(rng, tool, true);
                if rng.chance(30) {
                    perturb(rng, tool, &mut args);
                }
                let text = serde_json::to_string(&args).unwrap_or_default();
                let text = match rng.weighted(&[55, 15, 10, 10, 10]) {
                    0 => text,
                    1 => format!("  {text}\n"),
                    2 => format!("{text} trailing"),
                    3 => serde_json::to_string(&text).unwrap_or_default(),
                    _ => text[..text.len() / 2].to_owned(),
                };
                CallModel::Block {
                    id,
                    name: Some(tool.name.clone()),
                    input: Input::Text(text),
                }
            }
            _ => CallModel::Raw(
                rng.pick(&[
                    "not json at all",
                    "{\"id\": \"toolu_r\", \"name\": ",
                    "[1, 2, 3]",
                ])
                .to_string(),
            ),
        };
        calls.push(call);
    }
    // The turn's shape, drawn last so the rest of a seed's cases stays as it was.
    let offered = (scope.offered_tools && tools.len() > 1 && rng.chance(12)).then(|| {
        let held_back = rng.below(tools.len());
        tools
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != held_back)
            .map(|(_, t)| t.name.clone())
            .collect()
    });
    // Not both at once: harness-ref answers a cut-off turn without consulting a tool subset.
    let stop_reason = (scope.stop_reason && offered.is_none() && rng.chance(10)).then(|| {
        *rng.pick(&[
            StopReason::MaxTokens,
            StopReason::MaxTokens,
            StopReason::ToolUse,
            StopReason::EndTurn,
        ])
    });
    Model {
        cap,
        deadline_ms: has_timeout.then_some(TIMEOUT_DEADLINE_MS),
        tools,
        calls,
        offered,
        stop_reason,
    }
}
