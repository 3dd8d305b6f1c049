//! The `repair_call` target: arguments, some of whose nested arrays and objects arrive as the
//! JSON text of themselves, against schemas that want arrays, objects, strings and scalars, with
//! the repair profile on and off (SPEC "repair profile", harness-ref's `repair` module).
//!
//! The properties (REPAIR-*), checked by comparing the harness with repair on against the same
//! harness with it off, and the repaired arguments against the schema compiled on its own:
//!
//! - a call accepted without repair is answered identically with repair on (nothing repaired);
//! - a call refused with repair on gets exactly the refusal it gets without repair (the
//!   violations of what the model sent, not of a half-repaired value);
//! - a repaired call was refused without repair as `invalid_arguments`; every pointer repaired
//!   is nested (never the arguments themselves), was a `type` violation of that refusal, and held
//!   a string whose whole text is one JSON array or object; the handler received exactly the
//!   arguments with those strings decoded, and they satisfy the schema; the content says which
//!   pointers were repaired.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use arbitrary::{Arbitrary, Unstructured};
use harness_ref::{
    CallContext, ErrorCode, Execution, Harness, HarnessConfig, InputSchema, Registry, Tool,
    ToolOutput, UnknownFields,
};
use serde_json::{json, Value};

use crate::bytes::{rust_byte_string, Reader, Writer};

/// The schemas a call is checked against: containers to repair, strings and `anyOf` branches
/// that must stay strings, scalars that must never be decoded, nesting, closed objects.
pub fn schemas() -> [Value; 5] {
    [
        json!({"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 4},
            "meta": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
            "required": ["tags"]}),
        json!({"type": "object", "properties": {
            "v": {"anyOf": [{"type": "string"}, {"type": "array"}]},
            "s": {"type": "string"}}}),
        json!({"type": "object", "properties": {
            "rows": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}}}),
        json!({"type": "object", "properties": {
            "q": {"type": "object", "properties": {
                "filter": {"type": "object"}, "limit": {"type": "integer", "maximum": 10}}}},
            "additionalProperties": false}),
        json!({"type": "object", "properties": {
            "n": {"type": "number"}, "b": {"type": "boolean"}, "z": {"type": "null"},
            "list": {"type": ["array", "null"]}}}),
    ]
}

/// How a chosen value is turned into text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// `serde_json::to_string`.
    Compact,
    /// `serde_json::to_string_pretty`.
    Pretty,
    /// Compact, with whitespace around it (still one JSON value).
    Padded,
    /// Compact, followed by a second value (not one JSON value: never repaired).
    Trailing,
    /// Compact with the last byte cut (not JSON: never repaired).
    Cut,
}

const ENCODINGS: [Encoding; 5] = [
    Encoding::Compact,
    Encoding::Pretty,
    Encoding::Padded,
    Encoding::Trailing,
    Encoding::Cut,
];

/// One call: a schema, the model's arguments, and which of their values to send as text.
#[derive(Clone, PartialEq)]
pub struct RepairCall {
    /// Index into [`schemas`] (mod its length).
    pub schema: u8,
    /// Closed objects (harness-ref's default) or open.
    pub reject_unknown: bool,
    /// Values to send as their JSON text: (which value, in document order, mod their count;
    /// how).
    pub encode: Vec<(u8, Encoding)>,
    /// The arguments before encoding, as JSON text (anything that does not parse is sent as
    /// a string, a malformed call).
    pub args_text: Vec<u8>,
}

impl RepairCall {
    /// Decodes with the byte grammar of [`crate::bytes`].
    pub fn read(r: &mut Reader<'_>) -> RepairCall {
        let schema = r.byte();
        let reject_unknown = !r.flag();
        let n = r.choose(4);
        let encode = (0..n)
            .map(|_| (r.byte(), ENCODINGS[r.choose(ENCODINGS.len())]))
            .collect();
        RepairCall {
            schema,
            reject_unknown,
            encode,
            args_text: r.rest().to_vec(),
        }
    }

    /// The bytes [`RepairCall::read`] decodes to this call (for seeds).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.byte(self.schema).flag(!self.reject_unknown);
        w.choose(self.encode.len());
        for (at, how) in &self.encode {
            let index = ENCODINGS.iter().position(|e| e == how).unwrap_or(0);
            w.byte(*at).choose(index);
        }
        w.rest(&self.args_text);
        w.finish()
    }

    /// The schema.
    pub fn schema_json(&self) -> Value {
        schemas()[usize::from(self.schema) % schemas().len()].clone()
    }

    /// The arguments as the model sends them: the parsed text with the chosen values encoded.
    pub fn arguments(&self) -> Value {
        let text = String::from_utf8_lossy(&self.args_text);
        let mut args = serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text.into()));
        for (at, how) in &self.encode {
            let pointers = value_pointers(&args);
            let pointer = &pointers[usize::from(*at) % pointers.len()];
            if let Some(slot) = args.pointer_mut(pointer) {
                let compact = slot.to_string();
                let text = match how {
                    Encoding::Compact => compact,
                    Encoding::Pretty => serde_json::to_string_pretty(slot).unwrap_or(compact),
                    Encoding::Padded => format!(" \n{compact}\t "),
                    Encoding::Trailing => format!("{compact} {compact}"),
                    Encoding::Cut => compact[..compact.len() - 1].to_string(),
                };
                *slot = Value::String(text);
            }
        }
        args
    }

    fn policy(&self) -> UnknownFields {
        if self.reject_unknown {
            UnknownFields::Reject
        } else {
            UnknownFields::Allow
        }
    }
}

/// The pointer of every value in `v`, the root first, in document order.
fn value_pointers(v: &Value) -> Vec<String> {
    fn walk(v: &Value, at: String, out: &mut Vec<String>) {
        out.push(at.clone());
        match v {
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    walk(x, format!("{at}/{i}"), out);
                }
            }
            Value::Object(map) => {
                for (k, x) in map {
                    let k = k.replace('~', "~0").replace('/', "~1");
                    walk(x, format!("{at}/{k}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, String::new(), &mut out);
    out
}

impl<'a> Arbitrary<'a> for RepairCall {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(RepairCall::read(&mut Reader::new(crate::all_bytes(u))))
    }
}

impl fmt::Debug for RepairCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "// repair_call reproduction (bytes for `decode`):")?;
        writeln!(f, "// {}", rust_byte_string(&self.to_bytes()))?;
        writeln!(f, "// schema ({:?}): {}", self.policy(), self.schema_json())?;
        writeln!(f, "// encoded: {:?}", self.encode)?;
        write!(f, "// arguments sent: {}", self.arguments())
    }
}

/// The harness with repair off and on, for one schema and policy.
struct Pair {
    off: Harness,
    on: Harness,
    schema: InputSchema,
}

thread_local! {
    /// Compiled per (schema, policy): the schemas are few, the calls many.
    static PAIRS: RefCell<HashMap<(u8, bool), std::rc::Rc<Pair>>> = RefCell::new(HashMap::new());
}

fn pair(input: &RepairCall) -> std::rc::Rc<Pair> {
    let key = (input.schema % schemas().len() as u8, input.reject_unknown);
    if let Some(p) = PAIRS.with(|p| p.borrow().get(&key).cloned()) {
        return p;
    }
    let schema = input.schema_json();
    let harness = |repair: bool| {
        let mut registry = Registry::new();
        let tool = Tool::new(
            "t",
            "",
            schema.clone(),
            |args: Value, _ctx: &CallContext<'_>| Ok(ToolOutput::json(args)),
        )
        .unknown_fields(input.policy())
        .execution(Execution::Inline);
        registry.register(tool).expect("the fixed schemas compile");
        Harness::new(
            registry,
            HarnessConfig {
                repair,
                ..HarnessConfig::default()
            },
        )
    };
    let compiled = InputSchema::compile(&schema, input.policy()).expect("the schema compiles");
    let p = std::rc::Rc::new(Pair {
        off: harness(false),
        on: harness(true),
        schema: compiled,
    });
    PAIRS.with(|m| m.borrow_mut().insert(key, p.clone()));
    p
}

/// The repair the profile promises for `args`: every nested string that the schema refused
/// for its type and whose whole text is one JSON array or object, decoded; `None` when there
/// is none or the decoded arguments still fail the schema.
fn promised(schema: &InputSchema, args: &Value) -> Option<(Value, Vec<String>)> {
    let mut repaired = args.clone();
    let mut pointers: Vec<String> = Vec::new();
    for v in schema.violations(args) {
        if v.keyword != "type" || v.pointer.is_empty() || pointers.contains(&v.pointer) {
            continue;
        }
        let Some(Value::String(text)) = args.pointer(&v.pointer) else {
            continue;
        };
        let Ok(decoded @ (Value::Array(_) | Value::Object(_))) = serde_json::from_str(text) else {
            continue;
        };
        if let Some(slot) = repaired.pointer_mut(&v.pointer) {
            *slot = decoded;
            pointers.push(v.pointer.clone());
        }
    }
    (!pointers.is_empty() && schema.is_valid(&repaired)).then_some((repaired, pointers))
}

/// Checks the call; panics with the reproduction when a property fails.
pub fn check(input: &RepairCall) {
    let pair = pair(input);
    let args = input.arguments();
    let call = |args: &Value| json!({"id": "r1", "name": "t", "input": args});
    let off = pair.off.handle(call(&args));
    let on = pair.on.handle(call(&args));
    let ctx = || format!("\n{input:?}\nwithout repair: {off:?}\nwith repair: {on:?}");

    let Some((repaired, pointers)) = promised(&pair.schema, &args) else {
        // Nothing to repair (or a repair that would not validate): the answer without repair.
        assert_eq!(
            on,
            off,
            "repair changed a call it could not repair{}",
            ctx()
        );
        return;
    };
    assert!(
        off.code() == Some(ErrorCode::InvalidArguments),
        "a repairable call was not refused without repair{}",
        ctx()
    );
    assert!(!on.is_error(), "a repairable call was refused{}", ctx());
    // What the handler received is what it echoes: the repaired arguments, after the note.
    let plain = pair.off.handle(call(&repaired));
    assert!(
        !plain.is_error(),
        "the repaired arguments are refused{}",
        ctx()
    );
    if on.truncation().is_none() && plain.truncation().is_none() {
        let note = harness_ref::repair::note(&pointers);
        assert_eq!(
            on.content(),
            format!("{note}\n{}", plain.content()),
            "the repaired call's content{}",
            ctx()
        );
    }
}
