//! `structured_call`: a schema built from the keywords harness-ref supports, arguments shaped
//! like it (or not), and what the handler does → validation is right and the handler is safe.
//!
//! The oracle is [`crate::schema::satisfies`], written independently of the harness: the
//! harness must refuse exactly the arguments the oracle refuses (no coercion, closed objects
//! per its documented policy), never run the handler for them, hand the handler exactly the
//! arguments sent, report violations that point at something in the arguments, and turn each
//! handler outcome (text, streamed chunks, JSON, refusals, failures) into its outcome class.
//! The same call is made to a twin tool whose output schema is the input schema: a structured
//! output is delivered exactly when the oracle finds it valid under the schema as written, and
//! every other outcome answers as it did without an output schema.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use arbitrary::{Arbitrary, Unstructured};
use harness_ref::cap::escape_note_copies;
use harness_ref::{
    ErrorCode, Execution, Harness, HarnessConfig, Registry, Tool, ToolError, ToolOutput, ToolValue,
    UnknownFields,
};
use serde_json::{json, Value};

use crate::bytes::{rust_byte_string, Reader, Writer};
use crate::schema::{read_args, write_value, Policy, Schema};
use crate::DELIBERATE_PANIC;

/// What the handler does when it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Returns this text.
    Text(String),
    /// Returns this JSON value.
    Json(Value),
    /// Returns its arguments as JSON.
    EchoArgs,
    /// Refuses (a domain error written for the model).
    Refuse(String),
    /// Its service is unreachable.
    Unavailable,
    /// Fails with an internal error whose detail holds [`SECRET`].
    Internal,
    /// Returns a NaN inside an object.
    NonFinite,
    /// Panics, with [`SECRET`] in the panic message.
    Panic,
    /// Mutates its own copy of the arguments, then returns it.
    MutateAndEcho,
    /// Streams these texts as chunks of one output ([`ToolOutput::Chunks`]).
    Chunks(Vec<String>),
}

/// A marker in private details; it must never reach the content.
pub const SECRET: &str = "SECRET-5be1d0";

const OUTCOMES: usize = 10;

/// The most chunks a streamed output has.
const MAX_CHUNKS: usize = 4;

/// Texts a handler returns or refuses with (arbitrary text is `cap_output`'s job).
pub const TEXTS: [&str; 8] = [
    "",
    "done",
    "the file is read-only; ask for a writable path",
    "é😀 line one\nline two\n",
    "Traceback (most recent call last):\n  File \"tool.py\", line 3\nValueError: bad",
    // A copy of harness-ref's note (SPEC.md FORGE-1), whole and split over two chunks.
    "log ends\n[truncated: 9 bytes omitted]",
    "partial [trunc",
    "ated: 4 chars omitted] tail",
];

fn text_index(s: &str) -> usize {
    TEXTS
        .iter()
        .position(|t| *t == s)
        .expect("a text from TEXTS")
}

impl Outcome {
    fn read(r: &mut Reader<'_>) -> Outcome {
        match r.choose(OUTCOMES) {
            0 => Outcome::Text(TEXTS[r.choose(TEXTS.len())].to_string()),
            1 => Outcome::Json(crate::schema::read_value(r, 1)),
            2 => Outcome::EchoArgs,
            3 => Outcome::Refuse(TEXTS[r.choose(TEXTS.len())].to_string()),
            4 => Outcome::Unavailable,
            5 => Outcome::Internal,
            6 => Outcome::NonFinite,
            7 => Outcome::Panic,
            8 => Outcome::MutateAndEcho,
            _ => Outcome::Chunks(
                (0..r.choose(MAX_CHUNKS + 1))
                    .map(|_| TEXTS[r.choose(TEXTS.len())].to_string())
                    .collect(),
            ),
        }
    }

    fn write(&self, w: &mut Writer) {
        match self {
            Outcome::Text(s) => {
                w.choose(0).choose(text_index(s));
            }
            Outcome::Json(v) => {
                w.choose(1);
                write_value(w, v);
            }
            Outcome::EchoArgs => {
                w.choose(2);
            }
            Outcome::Refuse(s) => {
                w.choose(3).choose(text_index(s));
            }
            Outcome::Unavailable => {
                w.choose(4);
            }
            Outcome::Internal => {
                w.choose(5);
            }
            Outcome::NonFinite => {
                w.choose(6);
            }
            Outcome::Panic => {
                w.choose(7);
            }
            Outcome::MutateAndEcho => {
                w.choose(8);
            }
            Outcome::Chunks(chunks) => {
                w.choose(9).choose(chunks.len());
                for c in chunks {
                    w.choose(text_index(c));
                }
            }
        }
    }

    fn run(&self, mut args: Value) -> Result<ToolOutput, ToolError> {
        match self {
            Outcome::Text(s) => Ok(ToolOutput::text(s.clone())),
            Outcome::Chunks(chunks) => Ok(ToolOutput::chunks(chunks.clone())),
            Outcome::Json(v) => Ok(ToolOutput::json(v.clone())),
            Outcome::EchoArgs => Ok(ToolOutput::json(args)),
            Outcome::Refuse(s) => Err(ToolError::refused(s.clone())),
            Outcome::Unavailable => {
                Err(ToolError::unavailable("the backing service did not answer"))
            }
            Outcome::Internal => Err(ToolError::internal(format!("connection string {SECRET}"))),
            Outcome::NonFinite => Ok(ToolOutput::Json(ToolValue::Object(vec![(
                "x".into(),
                ToolValue::Float(f64::NAN),
            )]))),
            Outcome::Panic => panic!("{DELIBERATE_PANIC}: {SECRET}"),
            Outcome::MutateAndEcho => {
                if let Value::Object(m) = &mut args {
                    m.insert("mutated".into(), json!(true));
                    m.clear();
                }
                Ok(ToolOutput::json(args))
            }
        }
    }
}

/// One structured call: a tool's schema and policy, what its handler does, the arguments.
#[derive(Clone, PartialEq)]
pub struct StructuredCall {
    /// The tool's unknown-fields policy.
    pub policy: Policy,
    /// What the handler does.
    pub outcome: Outcome,
    /// The tool's input schema.
    pub schema: Schema,
    /// The call's `input`.
    pub args: Value,
}

impl StructuredCall {
    /// Decodes an input from fuzz bytes.
    pub fn read(r: &mut Reader<'_>) -> StructuredCall {
        let policy = if r.flag() {
            Policy::Allow
        } else {
            Policy::Reject
        };
        let outcome = Outcome::read(r);
        let schema = Schema::read(r, 0);
        let args = read_args(r, &schema);
        StructuredCall {
            policy,
            outcome,
            schema,
            args,
        }
    }

    /// The bytes [`StructuredCall::read`] decodes back into `self` (values from the
    /// generator's alphabets only).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.flag(self.policy == Policy::Allow);
        self.outcome.write(&mut w);
        self.schema.write(&mut w);
        w.choose(0); // arguments as a plain value
        write_value(&mut w, &self.args);
        w.finish()
    }

    /// The call as a `tool_use` block.
    pub fn block(&self) -> Value {
        json!({"type": "tool_use", "id": "toolu_fuzz", "name": "t", "input": self.args})
    }
}

/// Where the arguments start in an input's bytes: after the policy, the handler outcome and
/// the schema. Bytes from here on change only the arguments.
pub fn arguments_offset(data: &[u8]) -> usize {
    let mut r = Reader::new(data);
    r.flag();
    Outcome::read(&mut r);
    Schema::read(&mut r, 0);
    data.len() - r.remaining()
}

/// The custom mutator of `structured_call` (`fuzz_mutator!`): three mutations in four touch
/// only the arguments' bytes, keeping the policy, the handler and the schema, so the harness
/// compiled for that schema is reused from the cache and the fuzzer explores arguments
/// against a schema rather than recompiling a new schema nearly every run; the fourth
/// mutates the whole input (new schemas). `default` is libFuzzer's own mutator
/// (`fuzzer_mutate`: mutates `data[..size]` in place within `max_size`, returns the new size).
/// Returns the new size.
pub fn mutate(
    data: &mut [u8],
    size: usize,
    max_size: usize,
    seed: u32,
    default: fn(&mut [u8], usize, usize) -> usize,
) -> usize {
    let size = size.min(data.len());
    let max_size = max_size.min(data.len());
    let split = arguments_offset(&data[..size]);
    if seed.is_multiple_of(4) || split >= size || split >= max_size {
        return default(data, size, max_size);
    }
    split + default(&mut data[split..], size - split, max_size - split)
}

impl<'a> Arbitrary<'a> for StructuredCall {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(StructuredCall::read(&mut Reader::new(crate::all_bytes(u))))
    }
}

impl fmt::Debug for StructuredCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "// structured_call reproduction")?;
        writeln!(
            f,
            "// policy: {:?}; handler: {:?}",
            self.policy, self.outcome
        )?;
        writeln!(f, "// schema: {}", self.schema.to_json())?;
        writeln!(f, "// input:  {}", self.args)?;
        writeln!(
            f,
            "// oracle: {}",
            if crate::schema::satisfies(&self.schema, &self.args, self.policy) {
                "valid"
            } else {
                "invalid"
            }
        )?;
        writeln!(f, "// run it as a test in props/tests:")?;
        writeln!(
            f,
            "harness_ref_props::structured::check(&harness_ref_props::decode(b\"{}\").unwrap());",
            rust_byte_string(&self.to_bytes())
        )
    }
}

/// The property. Panics with a description when an invariant fails.
pub fn check(input: &StructuredCall) {
    crate::quiet_deliberate_panics();
    let schema_json = input.schema.to_json();
    let (harness, slot) = harness_for(&schema_json, input.policy);
    {
        let mut slot = lock(&slot);
        slot.outcome = input.outcome.clone();
        slot.received.clear();
    }
    let result = harness.handle_ref(&input.block());
    let runs = std::mem::take(&mut lock(&slot).received);
    crate::tool_use::check_envelope(&result, harness.config().cap);
    assert_eq!(result.tool_use_id(), Some("toolu_fuzz"), "the id");
    assert!(
        !result.content().contains(SECRET),
        "a private detail leaked: {}",
        result.content()
    );

    let code = result.code();
    let ctx = || {
        format!(
            "\nschema: {schema_json}\ninput: {}\nresult: {result:?}",
            input.args
        )
    };

    // Arguments that are not an object are a malformed call; the handler never runs.
    if !input.args.is_object() {
        assert_eq!(
            code,
            Some(ErrorCode::MalformedCall),
            "non-object arguments{}",
            ctx()
        );
        assert!(
            runs.is_empty(),
            "the handler ran for non-object arguments{}",
            ctx()
        );
        return;
    }

    let oracle = crate::schema::satisfies(&input.schema, &input.args, input.policy);
    let refused = code == Some(ErrorCode::InvalidArguments);
    assert_eq!(
        refused,
        !oracle,
        "the harness {} arguments the independent check finds {}{}",
        if refused { "refused" } else { "accepted" },
        if oracle { "valid" } else { "invalid" },
        ctx()
    );
    if refused {
        assert!(
            runs.is_empty(),
            "the handler ran for invalid arguments{}",
            ctx()
        );
        let violations = result.violations();
        assert!(
            !violations.is_empty(),
            "invalid_arguments without violations{}",
            ctx()
        );
        let mut required = BTreeSet::new();
        input.schema.required_names(&mut required);
        for v in violations {
            assert!(
                crate::pointer_is_explained(&v.pointer, &input.args, &required),
                "violation {v} points at nothing in the arguments{}",
                ctx()
            );
        }
        return;
    }

    // Valid: the handler ran once, with exactly the arguments sent (no coercion, no drops).
    assert_eq!(
        runs.len(),
        1,
        "the handler ran {} times for a valid call{}",
        runs.len(),
        ctx()
    );
    assert_eq!(
        runs[0],
        input.args,
        "the handler received other arguments than were sent{}",
        ctx()
    );
    check_output_schema(input, &harness, &slot, &result);
    let content = result.content();
    match &input.outcome {
        Outcome::Text(s) => {
            assert!(!result.is_error(), "a text result became an error{}", ctx());
            if result.truncation().is_none() {
                assert_eq!(content, escape_note_copies(s), "text content{}", ctx());
            }
        }
        Outcome::Chunks(chunks) => {
            assert!(
                !result.is_error(),
                "a streamed result became an error{}",
                ctx()
            );
            if result.truncation().is_none() {
                assert_eq!(
                    content,
                    escape_note_copies(&chunks.concat()),
                    "streamed content{}",
                    ctx()
                );
            }
        }
        Outcome::Json(v) => json_content(&result, v, &ctx),
        Outcome::EchoArgs => json_content(&result, &input.args, &ctx),
        Outcome::MutateAndEcho => json_content(&result, &json!({}), &ctx),
        Outcome::Refuse(s) => {
            assert_eq!(code, Some(ErrorCode::ToolRefused), "refusal{}", ctx());
            assert!(
                content.contains(s.as_str()) || result.truncation().is_some(),
                "the refusal's message is not shown{}",
                ctx()
            );
        }
        Outcome::Unavailable => {
            assert_eq!(
                code,
                Some(ErrorCode::ToolUnavailable),
                "transport failure{}",
                ctx()
            );
            assert!(result.retryable(), "a transport failure is retryable");
        }
        Outcome::Internal | Outcome::Panic => {
            assert_eq!(
                code,
                Some(ErrorCode::InternalError),
                "internal failure{}",
                ctx()
            );
        }
        Outcome::NonFinite => {
            assert_eq!(
                code,
                Some(ErrorCode::InvalidToolOutput),
                "NaN output{}",
                ctx()
            );
        }
    }
}

/// The tool that declares the input schema as its output schema too.
const OUTPUT_SCHEMA_TOOL: &str = "typed";

/// The same valid call to the tool with an output schema: a structured output the independent
/// check finds valid under the schema as written is delivered unchanged; any other is
/// `invalid_tool_output`, naming a violation. Text outputs and errors are never checked
/// against it, so they answer exactly as the tool without one did.
fn check_output_schema(
    input: &StructuredCall,
    harness: &Harness,
    slot: &Mutex<Slot>,
    untyped: &harness_ref::ToolResult,
) {
    let produced = match &input.outcome {
        Outcome::Json(v) => v.clone(),
        Outcome::EchoArgs => input.args.clone(),
        Outcome::MutateAndEcho => json!({}),
        _ => {
            let block = json!({"type": "tool_use", "id": "toolu_fuzz", "name": OUTPUT_SCHEMA_TOOL, "input": input.args});
            let typed = harness.handle_ref(&block);
            lock(slot).received.clear();
            // Messages name the tool, so errors are compared by their code.
            let shown = |r: &harness_ref::ToolResult| {
                (r.code(), (!r.is_error()).then(|| r.content().to_owned()))
            };
            assert_eq!(
                shown(&typed),
                shown(untyped),
                "an output schema changed a result that is not structured output\nschema: {}\nresult: {typed:?}",
                input.schema.to_json()
            );
            return;
        }
    };
    let block = json!({"type": "tool_use", "id": "toolu_fuzz", "name": OUTPUT_SCHEMA_TOOL, "input": input.args});
    let result = harness.handle_ref(&block);
    lock(slot).received.clear();
    let ctx = || {
        format!(
            "\noutput schema: {}\noutput: {produced}\nresult: {result:?}",
            input.schema.to_json()
        )
    };
    if crate::schema::satisfies(&input.schema, &produced, Policy::Allow) {
        json_content(&result, &produced, &ctx);
    } else {
        assert_eq!(
            result.code(),
            Some(ErrorCode::InvalidToolOutput),
            "a structured output the independent check finds invalid under the output schema was delivered{}",
            ctx()
        );
        assert!(
            result.content().contains("output schema") || result.truncation().is_some(),
            "the refusal does not say the output schema was not met{}",
            ctx()
        );
    }
}

/// What the cached tool's handler does on its next run, and what it received.
#[derive(Debug)]
struct Slot {
    outcome: Outcome,
    received: Vec<Value>,
}

fn lock(slot: &Mutex<Slot>) -> std::sync::MutexGuard<'_, Slot> {
    // A deliberate handler panic never holds the lock, but stay usable if one ever does.
    slot.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

type Cached = (Rc<Harness>, Arc<Mutex<Slot>>);

thread_local! {
    /// Harnesses by (schema, policy). Compiling a schema costs far more than checking a call,
    /// and libFuzzer mostly mutates the arguments, so reusing the registered tool keeps the
    /// target fast; the handler reads what to do from its slot on every run.
    static HARNESSES: RefCell<HashMap<(String, bool), Cached>> = RefCell::new(HashMap::new());
}

fn harness_for(schema_json: &Value, policy: Policy) -> Cached {
    let key = (schema_json.to_string(), policy == Policy::Allow);
    if let Some(cached) = HARNESSES.with(|h| h.borrow().get(&key).cloned()) {
        return cached;
    }
    let slot = Arc::new(Mutex::new(Slot {
        outcome: Outcome::EchoArgs,
        received: Vec::new(),
    }));
    let handler_slot = Arc::clone(&slot);
    let handler = move |args: Value, _ctx: &harness_ref::CallContext<'_>| {
        let outcome = {
            let mut slot = lock(&handler_slot);
            slot.received.push(args.clone());
            slot.outcome.clone()
        };
        outcome.run(args)
    };
    let unknown_fields = match policy {
        Policy::Reject => UnknownFields::Reject,
        Policy::Allow => UnknownFields::Allow,
    };
    let mut registry = Registry::new();
    let tool = Tool::new("t", "A tool.", schema_json.clone(), handler.clone())
        .unknown_fields(unknown_fields)
        .execution(Execution::Inline);
    if let Err(e) = registry.register(tool) {
        panic!("a valid schema was refused at registration: {e:?}\nschema: {schema_json}");
    }
    // The same tool with the schema as its output schema too: its structured outputs are
    // checked against the schema as written (objects open unless the schema closes them).
    let typed = Tool::new(
        OUTPUT_SCHEMA_TOOL,
        "A typed tool.",
        schema_json.clone(),
        handler,
    )
    .unknown_fields(unknown_fields)
    .execution(Execution::Inline)
    .output_schema(schema_json.clone());
    if let Err(e) = registry.register(typed) {
        panic!("a valid output schema was refused at registration: {e:?}\nschema: {schema_json}");
    }
    let cached = (
        Rc::new(Harness::new(registry, HarnessConfig::default())),
        slot,
    );
    HARNESSES.with(|h| {
        let mut h = h.borrow_mut();
        if h.len() >= 1024 {
            h.clear();
        }
        h.insert(key, cached.clone());
    });
    cached
}

fn json_content(result: &harness_ref::ToolResult, expected: &Value, ctx: &dyn Fn() -> String) {
    assert!(!result.is_error(), "a JSON result became an error{}", ctx());
    if result.truncation().is_none() {
        let shown: Value = serde_json::from_str(result.content())
            .unwrap_or_else(|e| panic!("JSON output shown as something else ({e}){}", ctx()));
        // Strings that copy the harness's note openings are escaped at the same length
        // (SPEC.md FORGE-1); an opening can only occur inside a JSON string, and its
        // replacement holds no quote or backslash, so the escaped text is still the JSON of
        // the same value with those strings escaped.
        let expected: Value = serde_json::from_str(&escape_note_copies(&expected.to_string()))
            .expect("escaping keeps JSON text valid");
        assert_eq!(shown, expected, "JSON output changed on the way{}", ctx());
    }
}
