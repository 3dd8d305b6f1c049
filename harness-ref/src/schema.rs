//! Input schemas: compiled once at registration, checked on every call, reported as data.
//!
//! Validation is done by the `jsonschema` crate (draft 2020-12 unless the schema's `$schema`
//! says otherwise). Its `Display` wording changes between releases, so we never show it:
//! every message is composed here from the error's *kind*, its instance location (an RFC 6901
//! JSON pointer) and the offending value. See `docs/harness-ref.md` for the choice of crate.
//!
//! # Unknown fields
//! Objects are **closed by default**: at registration every object schema that says nothing
//! about extra fields (no `additionalProperties`, `unevaluatedProperties` or
//! `patternProperties`) gets `additionalProperties: false` — or `unevaluatedProperties: false`
//! when it composes other schemas (`allOf`, `anyOf`, `oneOf`, `$ref`, `if`, `dependentSchemas`),
//! so fields declared by its branches stay allowed. Branches of `allOf`/`anyOf`/`oneOf`/`not`/
//! `if`/`then`/`else` are not closed themselves (they describe the same object as their parent),
//! but objects nested inside them are. A schema that states its own policy is left alone.
//! [`UnknownFields::Allow`] turns the rewrite off for a tool.
//!
//! # Messages
//! Each violation is `<pointer>: expected <what>, got <received>`. The received value is
//! rendered as its JSON type and compact JSON, cut to [`RECEIVED_MAX_CHARS`] characters with
//! its full length stated; the schema is never dumped. A missing required field is reported at
//! the parent's pointer + `/name`, received `nothing`. Violations are sorted by pointer then
//! wording, so the order does not depend on the validator's internals.

use std::collections::HashMap;
use std::fmt::{self, Write};
use std::sync::{Arc, Mutex, PoisonError};

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::ValidationError;
use serde_json::{Map, Value};

/// How a declared field that no matching branch evaluated is described.
const DECLARED_ELSEWHERE: &str =
    " (it is declared only by an alternative these arguments do not match)";

/// The longest rendering of a received value, in characters, before it is cut.
pub const RECEIVED_MAX_CHARS: usize = 60;

/// Whether fields a schema does not declare are refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UnknownFields {
    /// Close every object schema that does not state a policy (the default).
    #[default]
    Reject,
    /// Use the schema exactly as written (JSON Schema's own default: extra fields allowed).
    Allow,
}

/// One way the arguments break the schema, as data.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Violation {
    /// RFC 6901 pointer into the arguments (`""` is the arguments object itself).
    pub pointer: String,
    /// What the schema wanted, in words (`integer`, `one of "a", "b"`, `a number >= 1`).
    pub expected: String,
    /// What arrived, bounded (`string "3"`, `nothing`).
    pub received: String,
    /// The JSON Schema keyword that failed (`type`, `required`, ...), or the name a semantic
    /// check gives itself.
    pub keyword: String,
}

impl Violation {
    /// A violation for a semantic check, rendering the received value like schema violations.
    pub fn new(pointer: impl Into<String>, expected: impl Into<String>, received: &Value) -> Self {
        Violation {
            pointer: pointer.into(),
            expected: expected.into(),
            received: describe_received(received),
            keyword: "semantic".to_string(),
        }
    }

    /// The same violation with another keyword name.
    pub fn with_keyword(mut self, keyword: impl Into<String>) -> Self {
        self.keyword = keyword.into();
        self
    }
}

impl fmt::Display for Violation {
    /// `<pointer>: expected <what>, got <received>`; the root pointer is shown as `(root)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_display_pointer(f, &self.pointer)?;
        f.write_str(": expected ")?;
        f.write_str(&self.expected)?;
        f.write_str(", got ")?;
        f.write_str(&self.received)
    }
}

/// The longest pointer shown in a message, in characters; longer ones keep their start and end.
pub const POINTER_MAX_CHARS: usize = 200;

/// A pointer as shown in messages: `(root)` for the empty pointer, long ones cut in the middle
/// (`/a/very/lo.../path`). The data keeps the exact pointer.
pub fn display_pointer(pointer: &str) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_display_pointer(&mut out, pointer);
    out
}

/// [`display_pointer`] written into `out` (no allocation for pointers that need no cut).
fn write_display_pointer(out: &mut impl fmt::Write, pointer: &str) -> fmt::Result {
    if pointer.is_empty() {
        return out.write_str("(root)");
    }
    // A pointer of at most POINTER_MAX_CHARS bytes has at most that many chars.
    if pointer.len() <= POINTER_MAX_CHARS {
        return out.write_str(pointer);
    }
    let len = pointer.chars().count();
    if len <= POINTER_MAX_CHARS {
        return out.write_str(pointer);
    }
    let keep = (POINTER_MAX_CHARS - 3) / 2;
    let head_end = pointer
        .char_indices()
        .nth(keep)
        .map_or(pointer.len(), |(i, _)| i);
    let tail_start = pointer
        .char_indices()
        .nth(len - keep)
        .map_or(pointer.len(), |(i, _)| i);
    out.write_str(&pointer[..head_end])?;
    out.write_str("...")?;
    out.write_str(&pointer[tail_start..])
}

/// A schema refused at registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// Where in the schema the problem is (RFC 6901 pointer into the schema).
    pub pointer: String,
    /// What is wrong, in words.
    pub problem: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", display_pointer(&self.pointer), self.problem)
    }
}

/// A compiled input schema. Cheap to clone: clones share one compiled validator (a
/// [`SchemaCache`] hands out clones of the schemas it compiled).
#[derive(Clone)]
pub struct InputSchema {
    compiled: Arc<Compiled>,
}

/// What compiling a schema produced, shared by every clone of an [`InputSchema`].
struct Compiled {
    validator: jsonschema::Validator,
    /// The schema as registered.
    original: Value,
    /// The schema actually enforced (after the unknown-fields rewrite).
    effective: Value,
    policy: UnknownFields,
}

impl fmt::Debug for InputSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InputSchema")
            .field("effective", &self.compiled.effective)
            .field("policy", &self.compiled.policy)
            .finish()
    }
}

impl InputSchema {
    /// Compiles `schema` under `policy`. Refuses schemas that are not valid JSON Schema or whose
    /// references cannot be resolved offline.
    pub fn compile(schema: &Value, policy: UnknownFields) -> Result<InputSchema, SchemaError> {
        if !matches!(schema, Value::Object(_) | Value::Bool(_)) {
            return Err(SchemaError {
                pointer: String::new(),
                problem: format!(
                    "expected a schema (an object or a boolean), got {}",
                    describe_received(schema)
                ),
            });
        }
        let mut effective = schema.clone();
        if policy == UnknownFields::Reject {
            close_objects(&mut effective, true);
        }
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&effective)
            .map_err(|e| schema_error(&e))?;
        Ok(InputSchema {
            compiled: Arc::new(Compiled {
                validator,
                original: schema.clone(),
                effective,
                policy,
            }),
        })
    }

    /// The schema as registered.
    pub fn schema(&self) -> &Value {
        &self.compiled.original
    }

    /// The schema enforced, after the unknown-fields policy was applied.
    pub fn effective_schema(&self) -> &Value {
        &self.compiled.effective
    }

    /// The unknown-fields policy this schema was compiled with.
    pub fn policy(&self) -> UnknownFields {
        self.compiled.policy
    }

    /// True when `args` satisfies the schema (the fast path; no allocation on success).
    pub fn is_valid(&self, args: &Value) -> bool {
        self.compiled.validator.is_valid(args)
    }

    /// Every violation, sorted by pointer; empty when `args` is valid.
    pub fn violations(&self, args: &Value) -> Vec<Violation> {
        if self.compiled.validator.is_valid(args) {
            return Vec::new();
        }
        self.violations_of_invalid(args)
    }

    /// [`InputSchema::violations`] for arguments [`InputSchema::is_valid`] just refused.
    pub(crate) fn violations_of_invalid(&self, args: &Value) -> Vec<Violation> {
        let mut out = Vec::new();
        for error in self.compiled.validator.iter_errors(args) {
            compose(&error, &self.compiled.effective, &mut out);
        }
        // A declared-but-unevaluated field is noise when its object's failure is reported
        // otherwise (a failed branch names the real problem), and the only explanation when
        // it is not (fuzz bug 1: `anyOf: [{}, {properties: {a}, required: [b]}]` with `{a}`).
        let conditional = |v: &Violation| v.expected.ends_with(DECLARED_ELSEWHERE);
        if out.iter().any(conditional) {
            let explained: Vec<String> = out
                .iter()
                .filter(|v| !conditional(v))
                .map(|v| v.pointer.clone())
                .collect();
            out.retain(|v| {
                let object = &v.pointer[..v.pointer.rfind('/').unwrap_or(0)];
                !conditional(v)
                    || !explained.iter().any(|p| {
                        p == object
                            || p.strip_prefix(object)
                                .is_some_and(|rest| rest.starts_with('/'))
                    })
            });
        }
        if out.is_empty() {
            // The validator refused the arguments without saying why; never answer
            // `invalid_arguments` with nothing to fix.
            out.push(Violation {
                pointer: String::new(),
                expected: "arguments matching the tool's input schema".to_string(),
                received: describe_received(args),
                keyword: "schema".to_string(),
            });
        }
        out.sort();
        out.dedup();
        out
    }
}

/// Compiled schemas shared across registries: the same schema under the same unknown-fields
/// policy is compiled once and handed out as clones of one [`InputSchema`].
///
/// Compiling a schema costs far more than checking a call against it, and an embedder that
/// builds a registry per turn (or a test runner that builds one per case, as the conformance
/// suite's reference adapter does) registers the same few schemas again and again. A
/// [`Registry`](crate::Registry) made with
/// [`Registry::with_schema_cache`](crate::Registry::with_schema_cache) compiles through one.
///
/// Entries are keyed by the schema's compact JSON text (serde_json's serialisation, which
/// writes object keys in the map's order) and the policy, so two schemas share an entry only
/// when they are the same JSON; a schema that does not compile is not kept (its error is
/// returned every time). Cheap to clone: clones share the entries. At most
/// [`SchemaCache::MAX_ENTRIES`] are kept; past that the cache starts again empty, so memory stays
/// bounded when schemas keep changing.
#[derive(Clone, Default)]
pub struct SchemaCache {
    entries: Arc<Mutex<HashMap<(String, UnknownFields), InputSchema>>>,
}

impl SchemaCache {
    /// How many compiled schemas one cache keeps before it starts again empty.
    pub const MAX_ENTRIES: usize = 4096;

    /// An empty cache.
    pub fn new() -> Self {
        SchemaCache::default()
    }

    /// [`InputSchema::compile`], or a clone of the schema compiled earlier from the same JSON
    /// under the same policy.
    pub fn compile(
        &self,
        schema: &Value,
        policy: UnknownFields,
    ) -> Result<InputSchema, SchemaError> {
        let key = (schema.to_string(), policy);
        if let Some(hit) = self.lock().get(&key) {
            return Ok(hit.clone());
        }
        // Compiled outside the lock: another thread may compile the same schema meanwhile, and
        // the entry it stores is as good as this one.
        let compiled = InputSchema::compile(schema, policy)?;
        let mut entries = self.lock();
        if entries.len() >= Self::MAX_ENTRIES {
            entries.clear();
        }
        entries.insert(key, compiled.clone());
        Ok(compiled)
    }

    /// How many compiled schemas the cache holds.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when the cache holds nothing.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, UnknownFields), InputSchema>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl fmt::Debug for SchemaCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchemaCache")
            .field("entries", &self.len())
            .finish()
    }
}

// ---------------------------------------------------------------------------------------------
// The unknown-fields rewrite.

const COMPOSERS: [&str; 7] = [
    "allOf",
    "anyOf",
    "oneOf",
    "$ref",
    "$dynamicRef",
    "if",
    "dependentSchemas",
];

fn is_objectish(m: &Map<String, Value>) -> bool {
    let typed_object = match m.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => false,
    };
    typed_object || m.contains_key("properties")
}

/// True when the schema or any branch describing the same instance is about objects.
fn objectish_here(m: &Map<String, Value>) -> bool {
    if is_objectish(m) {
        return true;
    }
    ["allOf", "anyOf", "oneOf"].iter().any(|k| {
        m.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|bs| bs.iter().any(|b| b.as_object().is_some_and(objectish_here)))
    })
}

/// Closes object schemas in place. `at_location` is true when `schema` is the outermost schema
/// describing its instance (not a branch of a composition).
fn close_objects(schema: &mut Value, at_location: bool) {
    let Value::Object(m) = schema else { return };
    if at_location
        && objectish_here(m)
        && !m.contains_key("additionalProperties")
        && !m.contains_key("unevaluatedProperties")
        && !m.contains_key("patternProperties")
    {
        let composes = COMPOSERS.iter().any(|k| m.contains_key(*k));
        let key = if composes {
            "unevaluatedProperties"
        } else {
            "additionalProperties"
        };
        m.insert(key.to_string(), Value::Bool(false));
    }
    for (key, value) in m.iter_mut() {
        match key.as_str() {
            // Maps of schemas, each describing a different instance.
            "properties" | "patternProperties" | "$defs" | "definitions" => {
                if let Value::Object(children) = value {
                    children.values_mut().for_each(|c| close_objects(c, true));
                }
            }
            // Single schemas describing other instances.
            "additionalProperties"
            | "unevaluatedProperties"
            | "items"
            | "contains"
            | "unevaluatedItems"
            | "additionalItems" => match value {
                Value::Array(children) => children.iter_mut().for_each(|c| close_objects(c, true)),
                other => close_objects(other, true),
            },
            "prefixItems" => {
                if let Value::Array(children) = value {
                    children.iter_mut().for_each(|c| close_objects(c, true));
                }
            }
            // Schemas describing the same instance as their parent.
            "allOf" | "anyOf" | "oneOf" => {
                if let Value::Array(children) = value {
                    children.iter_mut().for_each(|c| close_objects(c, false));
                }
            }
            "not" | "if" | "then" | "else" => close_objects(value, false),
            "dependentSchemas" => {
                if let Value::Object(children) = value {
                    children.values_mut().for_each(|c| close_objects(c, false));
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Composing messages from error kinds.

/// `string "3"`, `number 3`, `boolean true`, `null`, `object {...}`; bounded.
pub fn describe_received(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(true) => "boolean true".to_string(),
        Value::Bool(false) => "boolean false".to_string(),
        Value::Number(n) => {
            // A number's JSON is short (at most ~24 chars): written in place, never cut.
            let mut out = String::with_capacity(32);
            out.push_str("number ");
            // Writing to a String cannot fail.
            let _ = write!(out, "{n}");
            if out.len() - "number ".len() <= RECEIVED_MAX_CHARS {
                return out;
            }
            bounded("number", &n.to_string(), None)
        }
        Value::String(s) if s.len() + 2 <= RECEIVED_MAX_CHARS && !needs_escape(s) => {
            // Short and plain: `string "<s>"` in one allocation.
            let mut out = String::with_capacity("string \"\"".len() + s.len());
            out.push_str("string \"");
            out.push_str(s);
            out.push('"');
            out
        }
        Value::String(s) => bounded(
            "string",
            &json_string(s),
            Some((s.chars().count(), "chars")),
        ),
        Value::Array(a) => bounded("array", &value.to_string(), Some((a.len(), "items"))),
        Value::Object(o) => bounded("object", &value.to_string(), Some((o.len(), "fields"))),
    }
}

/// `s` as a JSON string, exactly as `serde_json` writes it (it escapes only `"`, `\` and
/// control characters), without going through a `Value`.
pub(crate) fn json_string(s: &str) -> String {
    if !needs_escape(s) {
        let mut json = String::with_capacity(s.len() + 2);
        json.push('"');
        json.push_str(s);
        json.push('"');
        return json;
    }
    Value::String(s.to_string()).to_string()
}

/// True when JSON writes `s` with escapes (`"`, `\\`, control characters).
fn needs_escape(s: &str) -> bool {
    s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\')
}

/// `<kind> <json>`, the JSON cut after `RECEIVED_MAX_CHARS - 10` chars when longer than
/// `RECEIVED_MAX_CHARS`, then `... (<count> <noun>)` (or `...` without a size).
fn bounded(kind: &str, json: &str, size: Option<(usize, &str)>) -> String {
    // At most RECEIVED_MAX_CHARS bytes is at most that many chars.
    if json.len() <= RECEIVED_MAX_CHARS || json.chars().count() <= RECEIVED_MAX_CHARS {
        let mut out = String::with_capacity(kind.len() + 1 + json.len());
        out.push_str(kind);
        out.push(' ');
        out.push_str(json);
        return out;
    }
    let cut = prefix_chars(json, RECEIVED_MAX_CHARS - 10);
    match size {
        Some((count, noun)) => format!("{kind} {cut}... ({count} {noun})"),
        None => format!("{kind} {cut}..."),
    }
}

/// The first `n` chars of `s` (all of it when shorter).
fn prefix_chars(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// A short phrase for a value in the schema's own words (enum options, const, limits): compact
/// JSON, bounded.
fn short_json(value: &Value) -> String {
    let json = match value {
        Value::String(s) => json_string(s),
        other => other.to_string(),
    };
    if json.len() <= RECEIVED_MAX_CHARS || json.chars().count() <= RECEIVED_MAX_CHARS {
        json
    } else {
        format!("{}...", prefix_chars(&json, RECEIVED_MAX_CHARS - 3))
    }
}

fn list_bounded<I: IntoIterator<Item = String>>(items: I, max_items: usize) -> String {
    let items: Vec<String> = items.into_iter().collect();
    let mut out = items
        .iter()
        .take(max_items)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > max_items {
        out.push_str(&format!(", ... ({} in all)", items.len()));
    }
    out
}

/// A phrase for what a (sub)schema accepts: its type(s), enum or const; `None` when it says
/// nothing short.
fn describe_schema(schema: &Value) -> Option<String> {
    let m = schema.as_object()?;
    if let Some(options) = m.get("enum").and_then(Value::as_array) {
        return Some(format!(
            "one of {}",
            list_bounded(options.iter().map(short_json), 10)
        ));
    }
    if let Some(c) = m.get("const") {
        return Some(format!("exactly {}", short_json(c)));
    }
    if let Some(required) = m.get("required").and_then(Value::as_array) {
        if !required.is_empty() {
            let fields = list_bounded(required.iter().map(short_json), 5);
            return Some(format!("an object with {fields}"));
        }
    }
    if let (Some(Value::String(t)), Some(Value::String(format))) = (m.get("type"), m.get("format"))
    {
        if t == "string" {
            return Some(format!("a string in the {format:?} format"));
        }
    }
    match m.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(ts)) => {
            let names: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            (!names.is_empty()).then(|| names.join(" or "))
        }
        _ => None,
    }
}

fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The subschema holding the failing keyword: the schema path minus its last segment.
fn keyword_parent<'s>(root: &'s Value, schema_path: &str) -> Option<&'s Value> {
    let parent = match schema_path.rfind('/') {
        Some(i) => &schema_path[..i],
        None => "",
    };
    root.pointer(parent)
}

/// Field names an object schema declares, looking one level into compositions.
fn known_fields(schema: &Value) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut add = |s: &Value| {
        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            names.extend(props.keys().cloned());
        }
    };
    add(schema);
    for k in ["allOf", "anyOf", "oneOf"] {
        if let Some(bs) = schema.get(k).and_then(Value::as_array) {
            bs.iter().for_each(&mut add);
        }
    }
    names.sort();
    names.dedup();
    names
}

fn join_types(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(t) => t.as_str().to_string(),
        TypeKind::Multiple(set) => set
            .iter()
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

fn alternatives(schema: Option<&Value>, keyword: &str, exactly: bool) -> String {
    let branches = schema
        .and_then(|s| s.get(keyword))
        .and_then(Value::as_array);
    let quantifier = if exactly {
        "exactly one"
    } else {
        "at least one"
    };
    let Some(branches) = branches else {
        return format!("a value matching {quantifier} of the allowed forms");
    };
    let described: Option<Vec<String>> = branches.iter().map(describe_schema).collect();
    match described {
        Some(ds) if !ds.is_empty() && !exactly => ds.join(" or "),
        _ => format!(
            "a value matching {quantifier} of {} allowed forms",
            branches.len()
        ),
    }
}

fn push(
    out: &mut Vec<Violation>,
    pointer: String,
    expected: String,
    received: String,
    keyword: &str,
) {
    out.push(Violation {
        pointer,
        expected,
        received,
        keyword: keyword.to_string(),
    });
}

/// Turns one validator error into violations (one error may name several unknown fields).
fn compose(error: &ValidationError<'_>, root: &Value, out: &mut Vec<Violation>) {
    let pointer = error.instance_path().as_str().to_string();
    let instance: &Value = error.instance();
    let schema_path = error.schema_path().as_str();
    // Only some kinds need the subschema; finding it walks the schema.
    let here = || keyword_parent(root, schema_path);
    let kind = error.kind();
    let keyword = kind.keyword();
    let got = || describe_received(instance);
    let (expected, received) = match kind {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let known = here().map(known_fields).unwrap_or_default();
            let allowed = if known.is_empty() {
                "this object takes no fields".to_string()
            } else {
                format!(
                    "known fields: {}",
                    list_bounded(
                        known.iter().map(|k| short_json(&Value::String(k.clone()))),
                        20
                    )
                )
            };
            for name in unexpected {
                let value = instance
                    .get(name)
                    .map_or_else(|| "nothing".to_string(), describe_received);
                let field = short_json(&Value::String(name.clone()));
                // Under `unevaluatedProperties`, a declared field is "unevaluated" when the
                // branch declaring it did not match. `InputSchema::violations` keeps this one
                // only when nothing else explains the object's failure.
                let expected = if known.contains(name) {
                    format!("no field {field}{DECLARED_ELSEWHERE}")
                } else {
                    format!("no field {field} ({allowed})")
                };
                push(
                    out,
                    format!("{pointer}/{}", escape_token(name)),
                    expected,
                    value,
                    keyword,
                );
            }
            return;
        }
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_string);
            let want = here()
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get(&name))
                .and_then(describe_schema)
                .unwrap_or_else(|| "a value".to_string());
            let field_pointer = format!("{pointer}/{}", escape_token(&name));
            push(
                out,
                field_pointer,
                format!("{want} (required field)"),
                "nothing".to_string(),
                keyword,
            );
            return;
        }
        ValidationErrorKind::PropertyNames { error: inner } => {
            let name = inner
                .instance()
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| inner.instance().to_string());
            let mut nested = Vec::new();
            compose(inner, root, &mut nested);
            let what = nested
                .first()
                .map_or_else(|| "valid".to_string(), |v| v.expected.clone());
            push(
                out,
                format!("{pointer}/{}", escape_token(&name)),
                format!("a field name that is {what}"),
                format!("field name {}", short_json(&Value::String(name))),
                keyword,
            );
            return;
        }
        ValidationErrorKind::Type { kind } => (join_types(kind), got()),
        ValidationErrorKind::Enum { options } => {
            let opts = options.as_array().map_or_else(
                || short_json(options),
                |a| list_bounded(a.iter().map(short_json), 10),
            );
            (format!("one of {opts}"), got())
        }
        ValidationErrorKind::Constant { expected_value } => {
            (format!("exactly {}", short_json(expected_value)), got())
        }
        ValidationErrorKind::Minimum { limit } => (format!("a number >= {limit}"), got()),
        ValidationErrorKind::ExclusiveMinimum { limit } => (format!("a number > {limit}"), got()),
        ValidationErrorKind::Maximum { limit } => (format!("a number <= {limit}"), got()),
        ValidationErrorKind::ExclusiveMaximum { limit } => (format!("a number < {limit}"), got()),
        ValidationErrorKind::MultipleOf { multiple_of } => {
            (format!("a multiple of {multiple_of}"), got())
        }
        ValidationErrorKind::MinLength { limit } => (
            format!("a string of at least {}", plural(*limit, "char")),
            got(),
        ),
        ValidationErrorKind::MaxLength { limit } => (
            format!("a string of at most {}", plural(*limit, "char")),
            got(),
        ),
        ValidationErrorKind::MinItems { limit } => (
            format!("an array of at least {}", plural(*limit, "item")),
            got(),
        ),
        ValidationErrorKind::MaxItems { limit } => (
            format!("an array of at most {}", plural(*limit, "item")),
            got(),
        ),
        ValidationErrorKind::AdditionalItems { limit } => (
            format!("an array of at most {}", plural(*limit as u64, "item")),
            got(),
        ),
        ValidationErrorKind::MinProperties { limit } => (
            format!("an object with at least {}", plural(*limit, "field")),
            got(),
        ),
        ValidationErrorKind::MaxProperties { limit } => (
            format!("an object with at most {}", plural(*limit, "field")),
            got(),
        ),
        ValidationErrorKind::UniqueItems => ("an array without duplicate items".to_string(), got()),
        ValidationErrorKind::Contains => ("an array containing a matching item".to_string(), got()),
        ValidationErrorKind::UnevaluatedItems { .. } => (
            "no items beyond those the schema describes".to_string(),
            got(),
        ),
        ValidationErrorKind::Pattern { pattern } => (
            format!(
                "a string matching the pattern {}",
                short_json(&Value::String(pattern.clone()))
            ),
            got(),
        ),
        ValidationErrorKind::Format { format } => {
            (format!("a string in the {format:?} format"), got())
        }
        ValidationErrorKind::ContentEncoding { content_encoding } => {
            (format!("a string in {content_encoding:?} encoding"), got())
        }
        ValidationErrorKind::FromUtf8 { .. } => (
            "encoded content that decodes to UTF-8 text".to_string(),
            got(),
        ),
        ValidationErrorKind::ContentMediaType { content_media_type } => (
            format!("a string of media type {content_media_type:?}"),
            got(),
        ),
        ValidationErrorKind::FalseSchema => {
            ("nothing (no value is allowed here)".to_string(), got())
        }
        ValidationErrorKind::AnyOf { .. } => (alternatives(here(), "anyOf", false), got()),
        ValidationErrorKind::OneOfNotValid { .. } => (alternatives(here(), "oneOf", false), got()),
        ValidationErrorKind::OneOfMultipleValid { .. } => (
            alternatives(here(), "oneOf", true),
            format!("{} (it matches more than one)", got()),
        ),
        ValidationErrorKind::Not { .. } => (
            "a value outside the form this field excludes".to_string(),
            got(),
        ),
        ValidationErrorKind::Custom { message, .. } => (message.clone(), got()),
        ValidationErrorKind::BacktrackLimitExceeded { .. }
        | ValidationErrorKind::RegexEngineFailure { .. } => (
            "a string the pattern check can evaluate (the check gave up)".to_string(),
            got(),
        ),
        ValidationErrorKind::Referencing(_) => (
            "a value the schema can check (a $ref did not resolve)".to_string(),
            got(),
        ),
    };
    push(out, pointer, expected, received, keyword);
}

/// A registration error from a compile error: the pointer into the schema, and the problem
/// composed from the kind (a meta-schema violation reads like an argument violation).
fn schema_error(error: &ValidationError<'_>) -> SchemaError {
    if let ValidationErrorKind::Referencing(inner) = error.kind() {
        let detail: String = inner.to_string().chars().take(200).collect();
        return SchemaError {
            pointer: String::new(),
            problem: format!("a reference does not resolve offline: {detail}"),
        };
    }
    let mut violations = Vec::new();
    compose(error, &Value::Null, &mut violations);
    match violations.into_iter().next() {
        Some(v) => SchemaError {
            pointer: v.pointer,
            problem: format!(
                "not a valid JSON Schema: expected {}, got {}",
                v.expected, v.received
            ),
        },
        None => SchemaError {
            pointer: error.instance_path().as_str().to_string(),
            problem: format!(
                "not a valid JSON Schema ({} keyword)",
                error.kind().keyword()
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The wording functions were rewritten for speed; the first versions are kept here as the
    /// oracle they must agree with, byte for byte.
    mod first_versions {
        use serde_json::Value;

        use super::super::RECEIVED_MAX_CHARS;

        pub fn describe_received(value: &Value) -> String {
            match value {
                Value::Null => "null".to_string(),
                Value::Bool(b) => format!("boolean {b}"),
                Value::Number(n) => bounded("number", &n.to_string(), None),
                Value::String(s) => {
                    let json = Value::String(s.clone()).to_string();
                    let len = s.chars().count();
                    bounded("string", &json, Some(format!("{len} chars")))
                }
                Value::Array(a) => bounded(
                    "array",
                    &value.to_string(),
                    Some(format!("{} items", a.len())),
                ),
                Value::Object(o) => bounded(
                    "object",
                    &value.to_string(),
                    Some(format!("{} fields", o.len())),
                ),
            }
        }

        fn bounded(kind: &str, json: &str, size: Option<String>) -> String {
            if json.chars().count() <= RECEIVED_MAX_CHARS {
                return format!("{kind} {json}");
            }
            let cut: String = json.chars().take(RECEIVED_MAX_CHARS - 10).collect();
            match size {
                Some(size) => format!("{kind} {cut}... ({size})"),
                None => format!("{kind} {cut}..."),
            }
        }

        pub fn short_json(value: &Value) -> String {
            let json = value.to_string();
            if json.chars().count() <= RECEIVED_MAX_CHARS {
                json
            } else {
                let cut: String = json.chars().take(RECEIVED_MAX_CHARS - 3).collect();
                format!("{cut}...")
            }
        }

        pub fn display_pointer(pointer: &str) -> String {
            if pointer.is_empty() {
                return "(root)".to_string();
            }
            let len = pointer.chars().count();
            if len <= 200 {
                return pointer.to_string();
            }
            let keep = (200 - 3) / 2;
            let head: String = pointer.chars().take(keep).collect();
            let tail: String = pointer.chars().skip(len - keep).collect();
            format!("{head}...{tail}")
        }
    }

    /// Strings around every length boundary, with escapes, multi-byte and astral characters.
    fn strings() -> Vec<String> {
        let mut out = Vec::new();
        for piece in [
            "a", "é", "😀", "\"", "\\", "\n", "\u{1}", "\u{7f}", "/", "~",
        ] {
            for n in [
                0, 1, 2, 9, 10, 48, 49, 50, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 99, 100, 101,
                201, 400,
            ] {
                out.push(piece.repeat(n));
                out.push(format!("x{}", piece.repeat(n)));
            }
        }
        out
    }

    #[test]
    fn wording_agrees_with_the_first_versions() {
        let mut values: Vec<Value> = strings().into_iter().map(Value::String).collect();
        values.extend([
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-1),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1.5),
            json!(1e300),
            json!(-2.2250738585072014e-308),
            json!([]),
            json!([1, "a", null]),
            json!({"k": "é😀".repeat(40)}),
            json!((0..40).collect::<Vec<_>>()),
        ]);
        for value in &values {
            assert_eq!(
                describe_received(value),
                first_versions::describe_received(value),
                "describe_received({value})"
            );
            assert_eq!(
                short_json(value),
                first_versions::short_json(value),
                "short_json({value})"
            );
        }
        for s in strings() {
            for pointer in [s.clone(), format!("/{s}"), format!("/a/{s}/b")] {
                assert_eq!(
                    display_pointer(&pointer),
                    first_versions::display_pointer(&pointer),
                    "display_pointer({pointer:?})"
                );
            }
        }
    }

    #[test]
    fn escape_follows_rfc6901() {
        assert_eq!(escape_token("a/b~c"), "a~1b~0c");
    }

    #[test]
    fn closing_uses_unevaluated_properties_for_compositions() {
        let mut s = json!({"type": "object", "allOf": [{"properties": {"a": {}}}], "properties": {"b": {"type": "object"}}});
        close_objects(&mut s, true);
        assert_eq!(s["unevaluatedProperties"], json!(false));
        assert!(s["allOf"][0].get("additionalProperties").is_none());
        assert_eq!(s["properties"]["b"]["additionalProperties"], json!(false));
    }

    #[test]
    fn explicit_policy_is_left_alone() {
        let mut s = json!({"type": "object", "additionalProperties": true});
        close_objects(&mut s, true);
        assert_eq!(s, json!({"type": "object", "additionalProperties": true}));
    }
}
