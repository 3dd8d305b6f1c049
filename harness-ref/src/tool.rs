//! Tools as the embedder declares them: schema, handler, execution mode, checks, remedies.
//!
//! A [`Tool`] is plain data plus a [`Handler`]; [`crate::Registry::register`] compiles its
//! schema once and refuses it there if it does not compile. Handlers return a [`ToolOutput`]
//! or a [`ToolError`]; the output type can express what JSON cannot (NaN, ±inf, duplicate
//! keys, unbounded nesting) precisely so that the harness, not the handler, is the one that
//! decides it cannot be sent back (`invalid_tool_output`).

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::schema::{UnknownFields, Violation};

/// What a handler sees about the call it serves, besides its arguments.
#[derive(Debug, Clone, Copy)]
pub struct CallContext<'a> {
    pub(crate) tool_use_id: &'a str,
    pub(crate) tool: &'a str,
    pub(crate) started: Instant,
    pub(crate) deadline: Instant,
    pub(crate) cancel: Option<&'a crate::CancelToken>,
    pub(crate) user_data: Option<&'a Value>,
}

impl CallContext<'_> {
    /// The id of the tool_use being served.
    pub fn tool_use_id(&self) -> &str {
        self.tool_use_id
    }

    /// The tool's registered name.
    pub fn tool_name(&self) -> &str {
        self.tool
    }

    /// Data the user gave for this call when it paused for the user's decision (an
    /// elicitation's answer, a suspended tool's resume data: [`crate::pause`]); `None` when the
    /// call did not pause or the user gave none. It is this call's own: never another's.
    pub fn user_data(&self) -> Option<&Value> {
        self.user_data
    }

    /// When the handler started.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// The instant after which the result will be discarded as a `timeout`.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Time left before the deadline (zero once it has passed).
    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// True once the deadline has passed. Cooperative handlers poll this and stop early.
    pub fn expired(&self) -> bool {
        Instant::now() >= self.deadline
    }

    /// True once the user cancelled the turn (a batch answered with
    /// [`crate::Harness::handle_cancellable_batch`]). Cooperative handlers poll this and stop:
    /// whatever they return after it is discarded.
    pub fn cancelled(&self) -> bool {
        self.cancel.is_some_and(crate::CancelToken::is_cancelled)
    }

    /// Sleeps for `duration`, waking early when the turn is cancelled; true when it was (the
    /// handler should stop). Without a cancellable turn, an ordinary sleep.
    pub fn sleep(&self, duration: Duration) -> bool {
        match self.cancel {
            Some(token) => token.wait_timeout(duration),
            None => {
                std::thread::sleep(duration);
                false
            }
        }
    }
}

/// The code that runs a tool. Any `Fn(Value, &CallContext) -> Result<ToolOutput, ToolError>`
/// that is `Send + Sync + 'static` is a handler.
///
/// The handler receives the validated arguments **by value**: its own copy, which it may
/// mutate freely; the harness keeps no reference to them. A handler that only reads its
/// arguments can take them by reference instead ([`Tool::borrowing`], [`Handler::call_borrowed`]).
pub trait Handler: Send + Sync + 'static {
    /// Runs the tool.
    fn call(&self, args: Value, ctx: &CallContext<'_>) -> Result<ToolOutput, ToolError>;

    /// Runs the tool on arguments the harness only borrows: the caller passed the call by
    /// reference ([`crate::Harness::handle_ref`]) and the handler runs inline. The default
    /// gives [`Handler::call`] its own copy, so every handler keeps owning its arguments; a
    /// handler that only reads them ([`Tool::borrowing`]) takes the reference and no copy is
    /// made.
    fn call_borrowed(&self, args: &Value, ctx: &CallContext<'_>) -> Result<ToolOutput, ToolError> {
        self.call(args.clone(), ctx)
    }
}

impl<F> Handler for F
where
    F: Fn(Value, &CallContext<'_>) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
{
    fn call(&self, args: Value, ctx: &CallContext<'_>) -> Result<ToolOutput, ToolError> {
        self(args, ctx)
    }
}

/// A handler that reads its arguments through a reference ([`Tool::borrowing`]): on the
/// borrowed path it gets the caller's value itself, on the owned path the harness's copy.
struct Borrowing<F>(F);

impl<F> Handler for Borrowing<F>
where
    F: Fn(&Value, &CallContext<'_>) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
{
    fn call(&self, args: Value, ctx: &CallContext<'_>) -> Result<ToolOutput, ToolError> {
        (self.0)(&args, ctx)
    }

    fn call_borrowed(&self, args: &Value, ctx: &CallContext<'_>) -> Result<ToolOutput, ToolError> {
        (self.0)(args, ctx)
    }
}

/// A value a handler returns. Unlike `serde_json::Value` it can hold non-finite floats,
/// duplicate keys and values JSON has no form for ([`NotJson`]: a cycle, a set, bytes, a date,
/// an opaque object), which the harness refuses as `invalid_tool_output`. Non-exhaustive, so
/// that what handlers in other languages can return can be added without breaking matches.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolValue {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A float; NaN and ±inf are representable here but not in JSON.
    Float(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<ToolValue>),
    /// An object as ordered key/value pairs (duplicate keys are representable here but refused).
    Object(Vec<(String, ToolValue)>),
    /// A value JSON has no form for, as a handler's language holds it.
    NotJson(NotJson),
}

/// A value a JSON encoder cannot take as it is: what a Python or TypeScript handler returns
/// when it hands back its own objects instead of JSON values. The harness has no rule that
/// would turn any of them into JSON without guessing (a set's order, bytes' encoding, a date's
/// format) or losing something (a cycle, private state), so it refuses them all.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum NotJson {
    /// A reference back to an enclosing value: the output contains itself. In a tree the
    /// back edge is written as the RFC 6901 pointer of the value it refers to (`""`, the root).
    Cycle {
        /// The pointer of the enclosing value.
        to: String,
    },
    /// A set of values.
    Set(Vec<ToolValue>),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// A date-time, as RFC 3339 text.
    Date(String),
    /// An object of a type with no JSON form, by its type name.
    Opaque(String),
}

impl NotJson {
    /// What it is, in words (`a set`), for the message the model sees.
    pub fn what(&self) -> &'static str {
        match self {
            NotJson::Cycle { .. } => "a reference back to an enclosing value (a cycle)",
            NotJson::Set(_) => "a set",
            NotJson::Bytes(_) => "raw bytes",
            NotJson::Date(_) => "a date",
            NotJson::Opaque(_) => "an opaque object",
        }
    }
}

impl From<Value> for ToolValue {
    fn from(v: Value) -> Self {
        match v {
            Value::Null => ToolValue::Null,
            Value::Bool(b) => ToolValue::Bool(b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    ToolValue::Int(i)
                } else if let Some(u) = n.as_u64() {
                    ToolValue::UInt(u)
                } else {
                    ToolValue::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => ToolValue::String(s),
            Value::Array(a) => ToolValue::Array(a.into_iter().map(ToolValue::from).collect()),
            Value::Object(o) => ToolValue::Object(
                o.into_iter()
                    .map(|(k, v)| (k, ToolValue::from(v)))
                    .collect(),
            ),
        }
    }
}

/// What a handler produced.
#[non_exhaustive]
pub enum ToolOutput {
    /// Text, shown as is (then capped).
    Text(String),
    /// A structured value, checked (finite numbers, unique keys, nesting and size limits) and
    /// sent as compact JSON (then capped).
    Json(ToolValue),
    /// Several parts — text, images, embedded resources — delivered as blocks in this order;
    /// each text part is capped, other parts pass whole ([`crate::content`]).
    Parts(Vec<crate::content::Part>),
    /// Text produced in chunks, capped as it streams in O(cap) memory; the harness stops
    /// pulling chunks once the deadline passes.
    Chunks(Box<dyn Iterator<Item = String> + Send>),
}

impl ToolOutput {
    /// Text output.
    pub fn text(s: impl Into<String>) -> Self {
        ToolOutput::Text(s.into())
    }

    /// Structured output from a JSON value.
    pub fn json(v: Value) -> Self {
        ToolOutput::Json(ToolValue::from(v))
    }

    /// Streamed text output.
    pub fn chunks<I>(chunks: I) -> Self
    where
        I: IntoIterator<Item = String>,
        I::IntoIter: Send + 'static,
    {
        ToolOutput::Chunks(Box::new(chunks.into_iter()))
    }
}

impl fmt::Debug for ToolOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolOutput::Text(s) => f.debug_tuple("Text").field(s).finish(),
            ToolOutput::Json(v) => f.debug_tuple("Json").field(v).finish(),
            ToolOutput::Parts(p) => f.debug_tuple("Parts").field(p).finish(),
            ToolOutput::Chunks(_) => f.write_str("Chunks(..)"),
        }
    }
}

/// How a handler failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// The tool ran and said no (`tool_refused`); the message is written for the model.
    Refused,
    /// The tool's service could not be reached (`tool_unavailable`, retryable); the message
    /// is shown to the model.
    Unavailable,
    /// Something unexpected (`internal_error`); the message is private and goes to the
    /// diagnostic sink only.
    Internal,
}

/// A failure a handler reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    kind: ToolErrorKind,
    message: String,
    reason: Option<String>,
}

impl ToolError {
    /// The tool ran and refused; `message` is shown to the model.
    pub fn refused(message: impl Into<String>) -> Self {
        ToolError {
            kind: ToolErrorKind::Refused,
            message: message.into(),
            reason: None,
        }
    }

    /// The tool's service could not be reached; `message` is shown to the model.
    pub fn unavailable(message: impl Into<String>) -> Self {
        ToolError {
            kind: ToolErrorKind::Unavailable,
            message: message.into(),
            reason: None,
        }
    }

    /// An unexpected failure; `detail` is private (diagnostic sink only, never in content).
    pub fn internal(detail: impl Into<String>) -> Self {
        ToolError {
            kind: ToolErrorKind::Internal,
            message: detail.into(),
            reason: None,
        }
    }

    /// Attaches the tool's own machine reason (e.g. `FS_STALE_VERSION`), which selects a
    /// remedy registered with [`Tool::remedy`].
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// The kind.
    pub fn kind(&self) -> ToolErrorKind {
        self.kind
    }

    /// The message (for `Internal`, the private detail).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The tool's own reason code, if any.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

/// Where a handler runs, and so how its deadline is enforced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Execution {
    /// On a thread of its own (the default), reused from call to call ([`crate::HandlerThreads`]).
    /// The caller waits until the deadline, then answers `timeout`; a handler that never
    /// returns keeps its thread, whose late result is dropped, and later calls get others.
    #[default]
    Isolated,
    /// On the caller's thread, for fast or cooperative handlers (no thread cost; with a
    /// borrowed call and a borrowing handler, the ≤ 150 ns dispatch path). The deadline is checked when the handler returns (a late
    /// result becomes `timeout`) and the handler can poll [`CallContext::expired`]; a handler
    /// that blocks forever blocks the caller.
    Inline,
}

/// A semantic check: runs after the schema passed and before the handler; any violation
/// makes the call `invalid_arguments` and the handler does not run.
pub type SemanticCheck = Arc<dyn Fn(&Value) -> Vec<Violation> + Send + Sync>;

/// A tool as declared by the embedder. Register it with [`crate::Registry::register`].
#[derive(Clone)]
pub struct Tool {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) input_schema: Value,
    pub(crate) handler: Arc<dyn Handler>,
    pub(crate) unknown_fields: UnknownFields,
    pub(crate) execution: Execution,
    pub(crate) deadline: Option<Duration>,
    pub(crate) semantic: Vec<SemanticCheck>,
    pub(crate) remedies: Vec<(String, String)>,
    pub(crate) output_schema: Option<Value>,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("unknown_fields", &self.unknown_fields)
            .field("execution", &self.execution)
            .field("deadline", &self.deadline)
            .field("semantic_checks", &self.semantic.len())
            .field("remedies", &self.remedies)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool with closed objects, isolated execution and the harness's default deadline.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: impl Handler,
    ) -> Tool {
        Tool {
            name: name.into(),
            description: description.into(),
            input_schema,
            handler: Arc::new(handler),
            unknown_fields: UnknownFields::default(),
            execution: Execution::default(),
            deadline: None,
            semantic: Vec::new(),
            remedies: Vec::new(),
            output_schema: None,
        }
    }

    /// A tool whose handler only reads its arguments, through a reference. Otherwise the same
    /// as [`Tool::new`]; the difference is cost: a call passed by reference
    /// ([`crate::Harness::handle_ref`]) to an inline borrowing handler copies nothing, where
    /// an owning handler ([`Handler::call`]) gets its arguments cloned.
    pub fn borrowing<F>(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        handler: F,
    ) -> Tool
    where
        F: Fn(&Value, &CallContext<'_>) -> Result<ToolOutput, ToolError> + Send + Sync + 'static,
    {
        Tool::new(name, description, input_schema, Borrowing(handler))
    }

    /// Sets the unknown-fields policy (default [`UnknownFields::Reject`]).
    pub fn unknown_fields(mut self, policy: UnknownFields) -> Tool {
        self.unknown_fields = policy;
        self
    }

    /// Sets where the handler runs (default [`Execution::Isolated`]).
    pub fn execution(mut self, execution: Execution) -> Tool {
        self.execution = execution;
        self
    }

    /// Overrides the harness's deadline for this tool.
    pub fn deadline(mut self, deadline: Duration) -> Tool {
        self.deadline = Some(deadline);
        self
    }

    /// Adds a semantic check (run in order after the schema, all violations gathered).
    pub fn semantic_check<F>(mut self, check: F) -> Tool
    where
        F: Fn(&Value) -> Vec<Violation> + Send + Sync + 'static,
    {
        self.semantic.push(Arc::new(check));
        self
    }

    /// Registers a remedy appended (after ` — `) to refusals and unavailability errors that
    /// carry `reason` (seed 002: the tool's message stays unchanged, the code is kept).
    pub fn remedy(mut self, reason: impl Into<String>, remedy: impl Into<String>) -> Tool {
        self.remedies.push((reason.into(), remedy.into()));
        self
    }

    /// Declares the JSON Schema every structured output ([`ToolOutput::Json`]) must match
    /// (MCP's `outputSchema`). It is used as written — objects stay open unless the schema
    /// closes them — and checked on every successful structured output, falsy ones (`0`, `""`,
    /// `null`, `false`) included; an error the handler returns is never checked against it.
    /// An output that does not match is answered as `invalid_tool_output`, naming each
    /// violation. Text outputs are not structured and are not checked.
    pub fn output_schema(mut self, schema: Value) -> Tool {
        self.output_schema = Some(schema);
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}
