//! A typed subset of JSON Schema: generated from fuzz bytes, rendered to JSON for the harness,
//! and checked by a small validator of our own.
//!
//! The `structured_call` property needs an oracle that does not share code with the harness:
//! when `harness-ref` (through `jsonschema`) accepts arguments, this module must agree they
//! satisfy the schema, and the other way round. It is deliberately small — only the keywords
//! the generator emits — and written from the JSON Schema 2020-12 text and from harness-ref's
//! documented unknown-fields policy, not from either implementation.
//!
//! The unknown-fields policy modelled (harness-ref `schema` module docs): under
//! [`Policy::Reject`], a schema *at a location* (not a branch of `allOf`/`anyOf`/`oneOf`/`not`)
//! that is about objects (its `type` names `object`, it has `properties`, or a branch of its
//! compositions is about objects) and states no policy of its own behaves as if it had
//! `additionalProperties: false` — or, when it composes other schemas,
//! `unevaluatedProperties: false`, which allows exactly the fields the valid branches declare.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{json, Map, Number, Value};

use crate::bytes::{Reader, Writer};

/// Whether fields a schema does not declare are refused (mirrors `harness_ref`'s policy).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Objects that state no policy are closed.
    Reject,
    /// Schemas are used as written.
    Allow,
}

/// The JSON types of the `type` keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// `null`
    Null,
    /// `boolean`
    Boolean,
    /// `object`
    Object,
    /// `array`
    Array,
    /// `number`
    Number,
    /// `string`
    String,
    /// `integer`: a number with no fractional part (`1.0` included).
    Integer,
}

const TYS: [Ty; 7] = [
    Ty::Null,
    Ty::Boolean,
    Ty::Object,
    Ty::Array,
    Ty::Number,
    Ty::String,
    Ty::Integer,
];

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Null => "null",
            Ty::Boolean => "boolean",
            Ty::Object => "object",
            Ty::Array => "array",
            Ty::Number => "number",
            Ty::String => "string",
            Ty::Integer => "integer",
        }
    }

    fn matches(self, v: &Value) -> bool {
        match (self, v) {
            (Ty::Null, Value::Null) => true,
            (Ty::Boolean, Value::Bool(_)) => true,
            (Ty::Object, Value::Object(_)) => true,
            (Ty::Array, Value::Array(_)) => true,
            (Ty::Number, Value::Number(_)) => true,
            (Ty::String, Value::String(_)) => true,
            (Ty::Integer, Value::Number(n)) => is_integral(n),
            _ => false,
        }
    }
}

fn is_integral(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// Patterns the generator may use, each with a hand-written predicate equal to its meaning
/// (ECMA-262 regex, no flags: `$` matches only at the end).
pub const PATTERNS: [&str; 5] = ["^[a-z]+$", "^[0-9]{3}$", "x", "^$", "^é"];

fn pattern_matches(index: usize, s: &str) -> bool {
    match index {
        0 => !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase()),
        1 => s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()),
        2 => s.contains('x'),
        3 => s.is_empty(),
        _ => s.starts_with('é'),
    }
}

/// Field names: few, so that generated arguments hit declared fields, and some that need
/// escaping in a JSON pointer.
pub const KEYS: [&str; 8] = ["a", "b", "n", "", "a/b", "~1", "é", "x y"];

/// Strings generated values draw from.
pub const STRINGS: [&str; 10] = [
    "",
    "a",
    "abc",
    "x",
    "123",
    "é",
    "3",
    "true",
    "aaaaaaaaaaaa",
    "a\u{0}b",
];

/// Numbers generated values draw from: small integers, integral and fractional floats, and
/// the edges of the integer representations.
pub fn numbers() -> [Value; 16] {
    [
        json!(0),
        json!(1),
        json!(-1),
        json!(2),
        json!(3),
        json!(7),
        json!(-7),
        json!(255),
        json!(0.5),
        json!(1.0),
        json!(-2.5),
        json!(-0.0),
        json!(1e300),
        json!(9_007_199_254_740_993_u64),
        json!(u64::MAX),
        json!(i64::MIN),
    ]
}

/// `additionalProperties`, as the generator writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Additional {
    /// Not written: the policy decides.
    Absent,
    /// `true`
    Allow,
    /// `false`
    Forbid,
    /// A schema for the extra fields.
    Schema(Box<Schema>),
}

/// Numeric bounds (all optional) and an integer `multipleOf`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bounds {
    /// `minimum`
    pub minimum: Option<f64>,
    /// `maximum`
    pub maximum: Option<f64>,
    /// `exclusiveMinimum`
    pub exclusive_minimum: Option<f64>,
    /// `exclusiveMaximum`
    pub exclusive_maximum: Option<f64>,
    /// `multipleOf` (1 to 4)
    pub multiple_of: Option<u8>,
}

/// An object schema's keywords.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectSchema {
    /// Whether `"type": "object"` is written (without it and without properties, the
    /// schema is not about objects and the policy leaves it open).
    pub typed: bool,
    /// `properties`, in order.
    pub properties: Vec<(String, Schema)>,
    /// `required`
    pub required: Vec<String>,
    /// `additionalProperties`
    pub additional: Additional,
    /// `minProperties`
    pub min_properties: Option<u8>,
    /// `maxProperties`
    pub max_properties: Option<u8>,
}

impl ObjectSchema {
    /// An object schema with these keywords and no bounds on its number of properties.
    pub fn new(
        typed: bool,
        properties: Vec<(String, Schema)>,
        required: Vec<String>,
        additional: Additional,
    ) -> ObjectSchema {
        ObjectSchema {
            typed,
            properties,
            required,
            additional,
            min_properties: None,
            max_properties: None,
        }
    }
}

/// The generated schemas.
#[derive(Debug, Clone, PartialEq)]
pub enum Schema {
    /// `{}`
    Any,
    /// `{"type": t}` or `{"type": [t, ...]}`
    Types(Vec<Ty>),
    /// An object schema.
    Object(ObjectSchema),
    /// `{"type": "array", ...}`
    Array {
        /// `items`
        items: Option<Box<Schema>>,
        /// `minItems`
        min_items: Option<u8>,
        /// `maxItems`
        max_items: Option<u8>,
        /// `uniqueItems: true`
        unique: bool,
    },
    /// `{"type": "string", ...}`
    Str {
        /// `minLength` (in Unicode scalar values)
        min_length: Option<u8>,
        /// `maxLength`
        max_length: Option<u8>,
        /// An index into [`PATTERNS`].
        pattern: Option<usize>,
    },
    /// `{"type": "integer", ...}`
    Int(Bounds),
    /// `{"type": "number", ...}`
    Num(Bounds),
    /// `{"enum": [...]}`
    Enum(Vec<Value>),
    /// `{"const": v}`
    Const(Value),
    /// `{"anyOf": [...]}`
    AnyOf(Vec<Schema>),
    /// `{"allOf": [...]}`
    AllOf(Vec<Schema>),
    /// `{"oneOf": [...]}`
    OneOf(Vec<Schema>),
    /// `{"not": s}`
    Not(Box<Schema>),
}

impl Schema {
    /// `{"type": [...]}` of these types, each once: a `type` array must not repeat a type (the
    /// meta-schema says so), so a repeat is dropped, the first place of each type kept.
    pub fn types(mut tys: Vec<Ty>) -> Schema {
        let mut seen = Vec::new();
        tys.retain(|t| {
            let fresh = !seen.contains(t);
            seen.push(*t);
            fresh
        });
        Schema::Types(tys)
    }
}

/// How deep generated schemas and values nest.
pub const MAX_DEPTH: usize = 3;

// Tags of the byte grammar, in decoding order.
const TAG_ANY: usize = 0;
const TAG_TYPES: usize = 1;
const TAG_STR: usize = 2;
const TAG_INT: usize = 3;
const TAG_NUM: usize = 4;
const TAG_ENUM: usize = 5;
const TAG_CONST: usize = 6;
const LEAF_TAGS: usize = 7;
const TAG_OBJECT: usize = 7;
const TAG_ARRAY: usize = 8;
const TAG_ANY_OF: usize = 9;
const TAG_ALL_OF: usize = 10;
const TAG_ONE_OF: usize = 11;
const TAG_NOT: usize = 12;
const ALL_TAGS: usize = 13;

fn read_small(r: &mut Reader<'_>) -> Option<u8> {
    let b = r.byte();
    (b >= 128).then(|| (b - 128) % 6)
}

fn write_small(w: &mut Writer, v: Option<u8>) {
    w.byte(v.map_or(0, |v| 128 + v));
}

fn read_bound(r: &mut Reader<'_>, halves: bool) -> Option<f64> {
    let b = r.byte();
    if b < 128 {
        return None;
    }
    let v = f64::from(i32::from(b) - 192);
    Some(if halves { v / 2.0 } else { v })
}

fn write_bound(w: &mut Writer, v: Option<f64>, halves: bool) {
    let b = v.map_or(0, |v| {
        let v = if halves { v * 2.0 } else { v };
        (v as i32 + 192) as u8
    });
    w.byte(b);
}

fn read_bounds(r: &mut Reader<'_>, halves: bool) -> Bounds {
    Bounds {
        minimum: read_bound(r, halves),
        maximum: read_bound(r, halves),
        exclusive_minimum: read_bound(r, halves),
        exclusive_maximum: read_bound(r, halves),
        multiple_of: read_small(r).map(|m| m % 4 + 1),
    }
}

fn write_bounds(w: &mut Writer, b: &Bounds, halves: bool) {
    write_bound(w, b.minimum, halves);
    write_bound(w, b.maximum, halves);
    write_bound(w, b.exclusive_minimum, halves);
    write_bound(w, b.exclusive_maximum, halves);
    write_small(w, b.multiple_of.map(|m| m - 1));
}

fn read_list<T>(
    r: &mut Reader<'_>,
    max: usize,
    mut item: impl FnMut(&mut Reader<'_>) -> T,
) -> Vec<T> {
    let n = r.choose(max + 1);
    (0..n).map(|_| item(r)).collect()
}

impl Schema {
    /// Decodes a schema from fuzz bytes.
    pub fn read(r: &mut Reader<'_>, depth: usize) -> Schema {
        let tags = if depth >= MAX_DEPTH {
            LEAF_TAGS
        } else {
            ALL_TAGS
        };
        match r.choose(tags) {
            TAG_ANY => Schema::Any,
            TAG_TYPES => {
                let first = TYS[r.choose(TYS.len())];
                let mut tys = read_list(r, 2, |r| TYS[r.choose(TYS.len())]);
                tys.insert(0, first);
                Schema::types(tys)
            }
            TAG_STR => Schema::Str {
                min_length: read_small(r),
                max_length: read_small(r),
                pattern: r.choose(PATTERNS.len() + 1).checked_sub(1),
            },
            TAG_INT => Schema::Int(read_bounds(r, false)),
            TAG_NUM => Schema::Num(read_bounds(r, true)),
            TAG_ENUM => {
                let first = read_value(r, depth + 1);
                let mut values = read_list(r, 2, |r| read_value(r, depth + 1));
                values.insert(0, first);
                Schema::Enum(values)
            }
            TAG_CONST => Schema::Const(read_value(r, depth + 1)),
            TAG_OBJECT => {
                let typed = r.flag();
                let mut properties: Vec<(String, Schema)> = Vec::new();
                for _ in 0..r.choose(4) {
                    let key = KEYS[r.choose(KEYS.len())].to_string();
                    let schema = Schema::read(r, depth + 1);
                    if !properties.iter().any(|(k, _)| *k == key) {
                        properties.push((key, schema));
                    }
                }
                let mut required: Vec<String> = Vec::new();
                for _ in 0..r.choose(4) {
                    let key = KEYS[r.choose(KEYS.len())].to_string();
                    if !required.contains(&key) {
                        required.push(key);
                    }
                }
                let additional = match r.choose(4) {
                    0 => Additional::Absent,
                    1 => Additional::Allow,
                    2 => Additional::Forbid,
                    _ => Additional::Schema(Box::new(Schema::read(r, depth + 1))),
                };
                Schema::Object(ObjectSchema {
                    typed,
                    properties,
                    required,
                    additional,
                    min_properties: read_small(r),
                    max_properties: read_small(r),
                })
            }
            TAG_ARRAY => {
                let items = r.flag().then(|| Box::new(Schema::read(r, depth + 1)));
                Schema::Array {
                    items,
                    min_items: read_small(r),
                    max_items: read_small(r),
                    unique: r.flag(),
                }
            }
            tag @ (TAG_ANY_OF | TAG_ALL_OF | TAG_ONE_OF) => {
                let first = Schema::read(r, depth + 1);
                let mut branches = read_list(r, 2, |r| Schema::read(r, depth + 1));
                branches.insert(0, first);
                match tag {
                    TAG_ANY_OF => Schema::AnyOf(branches),
                    TAG_ALL_OF => Schema::AllOf(branches),
                    _ => Schema::OneOf(branches),
                }
            }
            _ => Schema::Not(Box::new(Schema::read(r, depth + 1))),
        }
    }
}

fn key_index(key: &str) -> usize {
    KEYS.iter()
        .position(|k| *k == key)
        .expect("seed keys come from KEYS")
}

impl Schema {
    /// Encodes the schema so that [`Schema::read`] decodes it back (values must come from the
    /// generator's alphabets; seeds only).
    pub fn write(&self, w: &mut Writer) {
        match self {
            Schema::Any => {
                w.choose(TAG_ANY);
            }
            Schema::Types(tys) => {
                let index = |t: &Ty| TYS.iter().position(|x| x == t).expect("a type");
                w.choose(TAG_TYPES)
                    .choose(index(&tys[0]))
                    .choose(tys.len() - 1);
                for t in &tys[1..] {
                    w.choose(index(t));
                }
            }
            Schema::Str {
                min_length,
                max_length,
                pattern,
            } => {
                w.choose(TAG_STR);
                write_small(w, *min_length);
                write_small(w, *max_length);
                w.choose(pattern.map_or(0, |p| p + 1));
            }
            Schema::Int(b) => {
                w.choose(TAG_INT);
                write_bounds(w, b, false);
            }
            Schema::Num(b) => {
                w.choose(TAG_NUM);
                write_bounds(w, b, true);
            }
            Schema::Enum(values) => {
                w.choose(TAG_ENUM);
                write_value(w, &values[0]);
                w.choose(values.len() - 1);
                for v in &values[1..] {
                    write_value(w, v);
                }
            }
            Schema::Const(v) => {
                w.choose(TAG_CONST);
                write_value(w, v);
            }
            Schema::Object(o) => {
                w.choose(TAG_OBJECT)
                    .flag(o.typed)
                    .choose(o.properties.len());
                for (k, s) in &o.properties {
                    w.choose(key_index(k));
                    s.write(w);
                }
                w.choose(o.required.len());
                for k in &o.required {
                    w.choose(key_index(k));
                }
                match &o.additional {
                    Additional::Absent => {
                        w.choose(0);
                    }
                    Additional::Allow => {
                        w.choose(1);
                    }
                    Additional::Forbid => {
                        w.choose(2);
                    }
                    Additional::Schema(s) => {
                        w.choose(3);
                        s.write(w);
                    }
                }
                write_small(w, o.min_properties);
                write_small(w, o.max_properties);
            }
            Schema::Array {
                items,
                min_items,
                max_items,
                unique,
            } => {
                w.choose(TAG_ARRAY).flag(items.is_some());
                if let Some(s) = items {
                    s.write(w);
                }
                write_small(w, *min_items);
                write_small(w, *max_items);
                w.flag(*unique);
            }
            Schema::AnyOf(bs) | Schema::AllOf(bs) | Schema::OneOf(bs) => {
                let tag = match self {
                    Schema::AnyOf(_) => TAG_ANY_OF,
                    Schema::AllOf(_) => TAG_ALL_OF,
                    _ => TAG_ONE_OF,
                };
                w.choose(tag);
                bs[0].write(w);
                w.choose(bs.len() - 1);
                for b in &bs[1..] {
                    b.write(w);
                }
            }
            Schema::Not(s) => {
                w.choose(TAG_NOT);
                s.write(w);
            }
        }
    }

    /// The schema as JSON, as a tool would declare it.
    pub fn to_json(&self) -> Value {
        match self {
            Schema::Any => json!({}),
            Schema::Types(tys) if tys.len() == 1 => json!({"type": tys[0].name()}),
            Schema::Types(tys) => json!({"type": tys.iter().map(|t| t.name()).collect::<Vec<_>>()}),
            Schema::Object(o) => {
                let mut m = Map::new();
                if o.typed {
                    m.insert("type".into(), json!("object"));
                }
                if !o.properties.is_empty() {
                    let props: Map<String, Value> = o
                        .properties
                        .iter()
                        .map(|(k, s)| (k.clone(), s.to_json()))
                        .collect();
                    m.insert("properties".into(), Value::Object(props));
                }
                if !o.required.is_empty() {
                    m.insert("required".into(), json!(o.required));
                }
                match &o.additional {
                    Additional::Absent => {}
                    Additional::Allow => {
                        m.insert("additionalProperties".into(), json!(true));
                    }
                    Additional::Forbid => {
                        m.insert("additionalProperties".into(), json!(false));
                    }
                    Additional::Schema(s) => {
                        m.insert("additionalProperties".into(), s.to_json());
                    }
                }
                insert_small(&mut m, "minProperties", o.min_properties);
                insert_small(&mut m, "maxProperties", o.max_properties);
                Value::Object(m)
            }
            Schema::Array {
                items,
                min_items,
                max_items,
                unique,
            } => {
                let mut m = Map::new();
                m.insert("type".into(), json!("array"));
                if let Some(s) = items {
                    m.insert("items".into(), s.to_json());
                }
                insert_small(&mut m, "minItems", *min_items);
                insert_small(&mut m, "maxItems", *max_items);
                if *unique {
                    m.insert("uniqueItems".into(), json!(true));
                }
                Value::Object(m)
            }
            Schema::Str {
                min_length,
                max_length,
                pattern,
            } => {
                let mut m = Map::new();
                m.insert("type".into(), json!("string"));
                insert_small(&mut m, "minLength", *min_length);
                insert_small(&mut m, "maxLength", *max_length);
                if let Some(p) = pattern {
                    m.insert("pattern".into(), json!(PATTERNS[*p]));
                }
                Value::Object(m)
            }
            Schema::Int(b) => bounds_json("integer", b, true),
            Schema::Num(b) => bounds_json("number", b, false),
            Schema::Enum(values) => json!({"enum": values}),
            Schema::Const(v) => json!({"const": v}),
            Schema::AnyOf(bs) => {
                json!({"anyOf": bs.iter().map(Schema::to_json).collect::<Vec<_>>()})
            }
            Schema::AllOf(bs) => {
                json!({"allOf": bs.iter().map(Schema::to_json).collect::<Vec<_>>()})
            }
            Schema::OneOf(bs) => {
                json!({"oneOf": bs.iter().map(Schema::to_json).collect::<Vec<_>>()})
            }
            Schema::Not(s) => json!({"not": s.to_json()}),
        }
    }

    /// Every field name some `required` in the schema lists.
    pub fn required_names(&self, out: &mut BTreeSet<String>) {
        match self {
            Schema::Object(o) => {
                out.extend(o.required.iter().cloned());
                o.properties.iter().for_each(|(_, s)| s.required_names(out));
                if let Additional::Schema(s) = &o.additional {
                    s.required_names(out);
                }
            }
            Schema::Array { items: Some(s), .. } | Schema::Not(s) => s.required_names(out),
            Schema::AnyOf(bs) | Schema::AllOf(bs) | Schema::OneOf(bs) => {
                bs.iter().for_each(|b| b.required_names(out));
            }
            _ => {}
        }
    }
}

fn insert_small(m: &mut Map<String, Value>, key: &str, v: Option<u8>) {
    if let Some(v) = v {
        m.insert(key.into(), json!(v));
    }
}

fn bounds_json(ty: &str, b: &Bounds, integral: bool) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!(ty));
    let num = |v: f64| if integral { json!(v as i64) } else { json!(v) };
    for (key, v) in [
        ("minimum", b.minimum),
        ("maximum", b.maximum),
        ("exclusiveMinimum", b.exclusive_minimum),
        ("exclusiveMaximum", b.exclusive_maximum),
    ] {
        if let Some(v) = v {
            m.insert(key.into(), num(v));
        }
    }
    if let Some(k) = b.multiple_of {
        m.insert("multipleOf".into(), json!(k));
    }
    Value::Object(m)
}

// ---------------------------------------------------------------------------------------------
// Values.

// Value tags of the byte grammar.
const V_NULL: usize = 0;
const V_BOOL: usize = 1;
const V_NUMBER: usize = 2;
const V_STRING: usize = 3;
const V_ARRAY: usize = 4;
const V_OBJECT: usize = 5;

/// Decodes a JSON value drawn from the alphabets ([`KEYS`], [`STRINGS`], [`numbers`]).
pub fn read_value(r: &mut Reader<'_>, depth: usize) -> Value {
    let tags = if depth > MAX_DEPTH {
        V_ARRAY
    } else {
        V_OBJECT + 1
    };
    match r.choose(tags) {
        V_NULL => Value::Null,
        V_BOOL => Value::Bool(r.flag()),
        V_NUMBER => {
            let ns = numbers();
            ns[r.choose(ns.len())].clone()
        }
        V_STRING => Value::String(STRINGS[r.choose(STRINGS.len())].to_string()),
        // As many items and fields as `shaped` may produce, so that every generated value
        // can be written back as a plain value.
        V_ARRAY => Value::Array(read_list(r, 4, |r| read_value(r, depth + 1))),
        _ => {
            let mut m = Map::new();
            for _ in 0..r.choose(6) {
                let key = KEYS[r.choose(KEYS.len())].to_string();
                let v = read_value(r, depth + 1);
                m.insert(key, v);
            }
            Value::Object(m)
        }
    }
}

/// Encodes a value for [`read_value`] (alphabet values only; seeds only).
pub fn write_value(w: &mut Writer, v: &Value) {
    match v {
        Value::Null => {
            w.choose(V_NULL);
        }
        Value::Bool(b) => {
            w.choose(V_BOOL).flag(*b);
        }
        Value::Number(_) => {
            let i = numbers()
                .iter()
                .position(|n| n == v)
                .expect("a number from the alphabet");
            w.choose(V_NUMBER).choose(i);
        }
        Value::String(s) => {
            let i = STRINGS
                .iter()
                .position(|x| x == s)
                .expect("a string from the alphabet");
            w.choose(V_STRING).choose(i);
        }
        Value::Array(items) => {
            w.choose(V_ARRAY).choose(items.len());
            items.iter().for_each(|x| write_value(w, x));
        }
        Value::Object(m) => {
            w.choose(V_OBJECT).choose(m.len());
            for (k, x) in m {
                w.choose(key_index(k));
                write_value(w, x);
            }
        }
    }
}

/// Decodes arguments for `schema`: mostly shaped like the schema asks (so that valid calls
/// are common), sometimes anything. Mode 0 is a plain [`read_value`], which is what seeds use.
pub fn read_args(r: &mut Reader<'_>, schema: &Schema) -> Value {
    if r.choose(4) == 0 {
        return read_value(r, 0);
    }
    shaped(r, schema, 0)
}

fn shaped(r: &mut Reader<'_>, schema: &Schema, depth: usize) -> Value {
    if depth > MAX_DEPTH || r.choose(8) == 0 {
        return read_value(r, depth);
    }
    let pick_number = |r: &mut Reader<'_>| {
        let ns = numbers();
        ns[r.choose(ns.len())].clone()
    };
    match schema {
        Schema::Any | Schema::Not(_) => read_value(r, depth),
        Schema::Types(tys) => {
            let ty = tys[r.choose(tys.len())];
            match ty {
                Ty::Null => Value::Null,
                Ty::Boolean => Value::Bool(r.flag()),
                Ty::Number | Ty::Integer => pick_number(r),
                Ty::String => Value::String(STRINGS[r.choose(STRINGS.len())].to_string()),
                Ty::Array => Value::Array(read_list(r, 3, |r| read_value(r, depth + 1))),
                Ty::Object => read_value(r, depth),
            }
        }
        Schema::Object(ObjectSchema {
            properties,
            additional,
            ..
        }) => {
            let mut m = Map::new();
            for (k, s) in properties {
                if r.choose(4) != 0 {
                    m.insert(k.clone(), shaped(r, s, depth + 1));
                }
            }
            for _ in 0..r.choose(3) {
                let key = KEYS[r.choose(KEYS.len())].to_string();
                let v = match additional {
                    Additional::Schema(s) => shaped(r, s, depth + 1),
                    _ => read_value(r, depth + 1),
                };
                m.insert(key, v);
            }
            Value::Object(m)
        }
        Schema::Array { items, .. } => Value::Array(read_list(r, 4, |r| match items {
            Some(s) => shaped(r, s, depth + 1),
            None => read_value(r, depth + 1),
        })),
        Schema::Str { .. } => Value::String(STRINGS[r.choose(STRINGS.len())].to_string()),
        Schema::Int(_) | Schema::Num(_) => pick_number(r),
        Schema::Enum(values) => values[r.choose(values.len())].clone(),
        Schema::Const(v) => v.clone(),
        Schema::AnyOf(bs) | Schema::AllOf(bs) | Schema::OneOf(bs) => {
            let b = &bs[r.choose(bs.len())];
            shaped(r, b, depth)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The independent checker.

/// JSON equality as JSON Schema defines it: numbers equal by mathematical value.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(xs), Value::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(xs), Value::Object(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .all(|(k, x)| ys.get(k).is_some_and(|y| json_equal(x, y)))
        }
        _ => a == b,
    }
}

/// Exact comparison of two JSON numbers (no rounding through `f64` for large integers).
fn numbers_equal(x: &Number, y: &Number) -> bool {
    match (as_i128(x), as_i128(y)) {
        (Some(a), Some(b)) => a == b,
        // Two floats that are not (small enough) integers: equal as floats.
        (None, None) => x.as_f64() == y.as_f64(),
        // An integer (below 2^64) never equals a fractional float or one beyond 1e30.
        _ => false,
    }
}

/// The number as an integer when it is one exactly (`3.0` included).
fn as_i128(n: &Number) -> Option<i128> {
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    let f = n.as_f64()?;
    (f.fract() == 0.0 && f.abs() < 1e30).then_some(f as i128)
}

/// Exact `value <op> bound` for the small bounds the generator writes.
fn compare(n: &Number, bound: f64) -> std::cmp::Ordering {
    if let Some(i) = as_i128(n) {
        // Bounds are multiples of 0.5 in [-64, 64]: exact in f64, and integers that large
        // compare the same way after conversion.
        let f = i as f64;
        return f.partial_cmp(&bound).expect("finite");
    }
    n.as_f64()
        .expect("a number")
        .partial_cmp(&bound)
        .expect("finite")
}

fn multiple_of(n: &Number, k: u8) -> bool {
    match as_i128(n) {
        Some(i) => i % i128::from(k) == 0,
        // A float with a fractional part (k is an integer), or beyond i128: its float remainder.
        None => {
            let f = n.as_f64().expect("a number");
            f.fract() == 0.0 && f % f64::from(k) == 0.0
        }
    }
}

/// The result of checking a value at one location.
struct Checked {
    valid: bool,
    /// Fields of an object instance evaluated by this schema (for `unevaluatedProperties`).
    evaluated: BTreeSet<String>,
}

fn objectish_here(schema: &Schema) -> bool {
    match schema {
        Schema::Types(tys) => tys.contains(&Ty::Object),
        Schema::Object(o) => o.typed || !o.properties.is_empty(),
        Schema::AnyOf(bs) | Schema::AllOf(bs) | Schema::OneOf(bs) => bs.iter().any(objectish_here),
        _ => false,
    }
}

/// True when `value` satisfies `schema` under `policy`, by this module's own reading.
pub fn satisfies(schema: &Schema, value: &Value, policy: Policy) -> bool {
    check(schema, value, policy, true).valid
}

fn check(schema: &Schema, value: &Value, policy: Policy, at_location: bool) -> Checked {
    let closed = policy == Policy::Reject && at_location && objectish_here(schema);
    let mut evaluated = BTreeSet::new();
    let valid = match schema {
        Schema::Any => true,
        Schema::Types(tys) => {
            let ok = tys.iter().any(|t| t.matches(value));
            // Closed with `additionalProperties: false`: an object must be empty.
            ok && !(closed && value.as_object().is_some_and(|m| !m.is_empty()))
        }
        Schema::Object(o) => {
            match value {
                Value::Object(m) => {
                    let mut ok = o.required.iter().all(|k| m.contains_key(k));
                    ok &= o.min_properties.is_none_or(|n| m.len() >= usize::from(n));
                    ok &= o.max_properties.is_none_or(|n| m.len() <= usize::from(n));
                    for (k, v) in m {
                        if let Some((_, s)) = o.properties.iter().find(|(p, _)| p == k) {
                            ok &= check(s, v, policy, true).valid;
                            evaluated.insert(k.clone());
                        } else {
                            match &o.additional {
                                Additional::Absent => ok &= !closed,
                                Additional::Allow => {}
                                Additional::Forbid => ok = false,
                                Additional::Schema(s) => ok &= check(s, v, policy, true).valid,
                            }
                            if !matches!(o.additional, Additional::Absent) || closed {
                                evaluated.insert(k.clone());
                            }
                        }
                    }
                    ok
                }
                // `"type": "object"` refuses everything else; without it, the keywords
                // only apply to objects.
                _ => !o.typed,
            }
        }
        Schema::Array {
            items,
            min_items,
            max_items,
            unique,
        } => match value {
            Value::Array(xs) => {
                let mut ok = min_items.is_none_or(|n| xs.len() >= usize::from(n));
                ok &= max_items.is_none_or(|n| xs.len() <= usize::from(n));
                if let Some(s) = items {
                    ok &= xs.iter().all(|x| check(s, x, policy, true).valid);
                }
                if *unique {
                    for (i, x) in xs.iter().enumerate() {
                        ok &= !xs[..i].iter().any(|y| json_equal(x, y));
                    }
                }
                ok
            }
            _ => false,
        },
        Schema::Str {
            min_length,
            max_length,
            pattern,
        } => match value {
            Value::String(s) => {
                let len = s.chars().count();
                min_length.is_none_or(|n| len >= usize::from(n))
                    && max_length.is_none_or(|n| len <= usize::from(n))
                    && pattern.is_none_or(|p| pattern_matches(p, s))
            }
            _ => false,
        },
        Schema::Int(b) | Schema::Num(b) => match value {
            Value::Number(n) => {
                use std::cmp::Ordering::{Greater, Less};
                let integral = matches!(schema, Schema::Num(_)) || is_integral(n);
                integral
                    && b.minimum.is_none_or(|m| compare(n, m) != Less)
                    && b.maximum.is_none_or(|m| compare(n, m) != Greater)
                    && b.exclusive_minimum.is_none_or(|m| compare(n, m) == Greater)
                    && b.exclusive_maximum.is_none_or(|m| compare(n, m) == Less)
                    && b.multiple_of.is_none_or(|k| multiple_of(n, k))
            }
            _ => false,
        },
        Schema::Enum(values) => values.iter().any(|v| json_equal(v, value)),
        Schema::Const(v) => json_equal(v, value),
        Schema::AnyOf(bs) | Schema::AllOf(bs) | Schema::OneOf(bs) => {
            let results: Vec<Checked> = bs.iter().map(|b| check(b, value, policy, false)).collect();
            let passing = results.iter().filter(|c| c.valid).count();
            let ok = match schema {
                Schema::AnyOf(_) => passing > 0,
                Schema::AllOf(_) => passing == bs.len(),
                _ => passing == 1,
            };
            if ok {
                for c in results.into_iter().filter(|c| c.valid) {
                    evaluated.extend(c.evaluated);
                }
            }
            // Closed with `unevaluatedProperties: false`.
            ok && !(closed
                && value
                    .as_object()
                    .is_some_and(|m| m.keys().any(|k| !evaluated.contains(k))))
        }
        Schema::Not(s) => !check(s, value, policy, false).valid,
    };
    if !valid {
        evaluated.clear();
    }
    Checked { valid, evaluated }
}

/// A Rust expression that rebuilds `value` (for reproductions).
pub fn rust_json(value: &Value) -> String {
    let mut out = String::new();
    let _ = write!(out, "serde_json::json!({value})");
    out
}
