//! The entry point and its stages: parse → correlate id → look up tool → validate → semantic
//! checks → run → check output → cap → envelope.
//!
//! Each stage is a function that either passes the call on or produces the one result the call
//! gets; [`Harness::handle`] and [`Harness::handle_batch`] chain them. Nothing here returns
//! `Err` or panics to the caller: a handler's panic is caught, a failure to spawn a thread is an
//! `internal_error`, and every message is composed in [`crate::messages`].

// A refused call carries its whole answer in the `Err` side (~170 bytes); moving it is cheaper
// than the allocation boxing would add on the invalid-call path, which is benchmarked.
#![allow(clippy::result_large_err)]

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::block::{fields_of, fields_of_ref, Field, Fields};
use crate::cancel::CancelToken;
use crate::cap::{self, CapConfig, Strategy, StreamCapper, Truncation};
use crate::code::ErrorCode;
use crate::content::Part;
use crate::diagnostics::{Diagnostic, DiagnosticSink, NullSink};
use crate::envelope::{Artifact, ErrorInfo, ToolResult};
use crate::messages;
use crate::output::{self, OutputLimits, OutputProblem};
use crate::schema::{InputSchema, SchemaCache, SchemaError, UnknownFields, Violation};
use crate::threads::HandlerThreads;
use crate::tool::{
    CallContext, Execution, Handler, SemanticCheck, Tool, ToolErrorKind, ToolOutput,
};

/// The named stages, in order. Diagnostics say which stage produced them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Stage {
    /// Raw text/bytes → JSON value.
    Parse,
    /// Read the call's id (and refuse duplicates in a batch).
    CorrelateId,
    /// Find the tool by name.
    LookUpTool,
    /// Check the arguments against the compiled schema.
    Validate,
    /// Run the tool's semantic checks.
    SemanticChecks,
    /// Run the handler under its deadline.
    Run,
    /// Check the handler's output is representable.
    CheckOutput,
    /// Cap the content.
    Cap,
    /// Build the result.
    Envelope,
}

impl Stage {
    /// The stage's name, e.g. `"look_up_tool"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::CorrelateId => "correlate_id",
            Stage::LookUpTool => "look_up_tool",
            Stage::Validate => "validate",
            Stage::SemanticChecks => "semantic_checks",
            Stage::Run => "run",
            Stage::CheckOutput => "check_output",
            Stage::Cap => "cap",
            Stage::Envelope => "envelope",
        }
    }
}

/// A model's tool_use, in whatever form it arrived.
///
/// The value (or the parsed text) is a `tool_use` block: an object with a string `id`, a
/// string `name`, and the arguments either as an object `input` (Anthropic) or as a string
/// `arguments` holding JSON text (OpenAI-style). `type`, when present, must be `"tool_use"`;
/// other keys are ignored.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// An already-parsed block.
    Value(Value),
    /// The block as JSON text.
    Text(String),
    /// The block as raw bytes (must be UTF-8 JSON).
    Bytes(Vec<u8>),
}

impl From<Value> for Call {
    fn from(v: Value) -> Self {
        Call::Value(v)
    }
}

impl From<String> for Call {
    fn from(s: String) -> Self {
        Call::Text(s)
    }
}

impl From<&str> for Call {
    fn from(s: &str) -> Self {
        Call::Text(s.to_string())
    }
}

impl From<Vec<u8>> for Call {
    fn from(b: Vec<u8>) -> Self {
        Call::Bytes(b)
    }
}

impl From<&[u8]> for Call {
    fn from(b: &[u8]) -> Self {
        Call::Bytes(b.to_vec())
    }
}

/// A model's tool_use, borrowed from the caller: the same three forms as [`Call`], for
/// [`Harness::handle_ref`].
///
/// The harness reads the call without taking it, so freeing the call (often the largest part
/// of a dispatch) stays with the caller, off the dispatch path. Results are identical to
/// [`Harness::handle`] on the same call. Inline handlers made with
/// [`crate::Tool::borrowing`] read the arguments in place; any other handler gets its own copy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CallRef<'a> {
    /// An already-parsed block.
    Value(&'a Value),
    /// The block as JSON text.
    Text(&'a str),
    /// The block as raw bytes (must be UTF-8 JSON).
    Bytes(&'a [u8]),
}

impl<'a> From<&'a Value> for CallRef<'a> {
    fn from(v: &'a Value) -> Self {
        CallRef::Value(v)
    }
}

impl<'a> From<&'a str> for CallRef<'a> {
    fn from(s: &'a str) -> Self {
        CallRef::Text(s)
    }
}

impl<'a> From<&'a String> for CallRef<'a> {
    fn from(s: &'a String) -> Self {
        CallRef::Text(s)
    }
}

impl<'a> From<&'a [u8]> for CallRef<'a> {
    fn from(b: &'a [u8]) -> Self {
        CallRef::Bytes(b)
    }
}

impl<'a> From<&'a Vec<u8>> for CallRef<'a> {
    fn from(b: &'a Vec<u8>) -> Self {
        CallRef::Bytes(b)
    }
}

impl<'a> From<&'a Call> for CallRef<'a> {
    fn from(call: &'a Call) -> Self {
        match call {
            Call::Value(v) => CallRef::Value(v),
            Call::Text(s) => CallRef::Text(s),
            Call::Bytes(b) => CallRef::Bytes(b),
        }
    }
}

/// Harness-wide settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HarnessConfig {
    /// The cap applied to every content (errors included).
    pub cap: CapConfig,
    /// The deadline of tools that do not set their own.
    pub deadline: Duration,
    /// Limits on handler outputs.
    pub limits: OutputLimits,
    /// Repair double-encoded nested arrays and objects ([`crate::repair`]); off by default,
    /// when a value of the wrong type is always refused (never coerced).
    pub repair: bool,
    /// A streamed output ([`ToolOutput::Chunks`]) still arriving at the deadline: keep what
    /// came in time in the timeout's content, capped, before the message that says the call
    /// timed out (on by default; SPEC.md STREAM-1). Off, the timeout shows the message alone.
    pub partial_output: bool,
    /// Rewrite copies of harness-ref's note openings in handler outputs before capping
    /// ([`cap::NOTE_ESCAPES`]), so that text a tool returned never reads as harness-ref's own
    /// note (SPEC.md FORGE-1); on by default. Error messages are not rewritten.
    pub escape_note_copies: bool,
    /// Frame every result's content as a tool's untrusted text ([`crate::wrap`], SPEC.md
    /// WRAP-1); off by default. With [`ResultWrapper::Escaped`](crate::wrap::ResultWrapper),
    /// copies of the markers in outputs and error messages are escaped before capping.
    pub wrapper: Option<crate::wrap::ResultWrapper>,
}

impl HarnessConfig {
    /// The rewrites applied to every handler output before capping: the note openings'
    /// ([`HarnessConfig::escape_note_copies`]) and the wrapper markers'.
    fn output_escapes(&self) -> &'static [(&'static str, &'static str)] {
        let markers = self.wrapper.is_some_and(|w| !w.escapes().is_empty());
        match (self.escape_note_copies, markers) {
            (true, true) => &cap::NOTE_AND_MARKER_ESCAPES,
            (true, false) => &cap::NOTE_ESCAPES,
            (false, true) => &crate::wrap::MARKER_ESCAPES,
            (false, false) => &[],
        }
    }

    /// `content` in the configured frame, or as it is.
    fn framed(&self, content: String) -> String {
        match self.wrapper {
            Some(w) => w.frame(&content),
            None => content,
        }
    }
}

impl Default for HarnessConfig {
    /// 16 KiB head+tail byte cap, 30 s deadline, default output limits.
    fn default() -> Self {
        HarnessConfig {
            cap: CapConfig::default(),
            deadline: Duration::from_secs(30),
            limits: OutputLimits::default(),
            repair: false,
            partial_output: true,
            escape_note_copies: true,
            wrapper: None,
        }
    }
}

/// Why a tool was refused at registration.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistrationErrorKind {
    /// The input schema does not compile.
    InvalidSchema(SchemaError),
    /// A tool by that name is already registered.
    DuplicateName,
    /// The name is empty.
    EmptyName,
}

/// A tool refused at registration, with the tool's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistrationError {
    /// The tool's name.
    pub tool: String,
    /// What is wrong.
    pub kind: RegistrationErrorKind,
}

impl fmt::Display for RegistrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            RegistrationErrorKind::InvalidSchema(e) => {
                write!(f, "tool {:?}: input schema refused at {e}", self.tool)
            }
            RegistrationErrorKind::DuplicateName => {
                write!(f, "tool {:?} is already registered", self.tool)
            }
            RegistrationErrorKind::EmptyName => write!(f, "a tool name must not be empty"),
        }
    }
}

impl std::error::Error for RegistrationError {}

/// A registered tool: the declaration plus its compiled schema.
pub struct RegisteredTool {
    name: String,
    description: String,
    schema: InputSchema,
    handler: Arc<dyn Handler>,
    execution: Execution,
    deadline: Option<Duration>,
    semantic: Vec<SemanticCheck>,
    remedies: Vec<(String, String)>,
    output_schema: Option<InputSchema>,
}

impl fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.name)
            .field("schema", &self.schema)
            .field("execution", &self.execution)
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}

impl RegisteredTool {
    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The description.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The compiled schema.
    pub fn schema(&self) -> &InputSchema {
        &self.schema
    }

    /// Where the handler runs.
    pub fn execution(&self) -> Execution {
        self.execution
    }

    /// The compiled output schema, if the tool declares one ([`Tool::output_schema`]).
    pub fn output_schema(&self) -> Option<&InputSchema> {
        self.output_schema.as_ref()
    }

    /// Schema violations, then (only if there are none) semantic-check violations: exactly
    /// what decides `invalid_arguments`. Empty means the handler would run.
    pub fn check_arguments(&self, args: &Value) -> Vec<Violation> {
        let violations = self.schema.violations(args);
        if !violations.is_empty() {
            return violations;
        }
        self.semantic_violations(args)
    }

    fn semantic_violations(&self, args: &Value) -> Vec<Violation> {
        let mut out: Vec<Violation> = self.semantic.iter().flat_map(|check| check(args)).collect();
        out.sort();
        out.dedup();
        out
    }

    fn remedy_for(&self, reason: Option<&str>) -> Option<String> {
        let reason = reason?;
        self.remedies
            .iter()
            .find(|(r, _)| r == reason)
            .map(|(_, remedy)| remedy.clone())
    }
}

/// The tools a harness knows, by name. Schemas are compiled here, once.
#[derive(Debug, Default)]
pub struct Registry {
    tools: BTreeMap<String, Arc<RegisteredTool>>,
    /// Where schemas are compiled when the embedder shares compiled schemas across registries.
    schemas: Option<SchemaCache>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Registry::default()
    }

    /// An empty registry that compiles its tools' schemas through `cache`: a schema compiled
    /// before (by any registry sharing the cache) is reused, not compiled again. Registration
    /// refuses and accepts exactly what [`Registry::new`]'s does, and the tools answer the same.
    pub fn with_schema_cache(cache: SchemaCache) -> Self {
        Registry {
            tools: BTreeMap::new(),
            schemas: Some(cache),
        }
    }

    fn compile(&self, schema: &Value, policy: UnknownFields) -> Result<InputSchema, SchemaError> {
        match &self.schemas {
            Some(cache) => cache.compile(schema, policy),
            None => InputSchema::compile(schema, policy),
        }
    }

    /// Compiles the tool's schema and adds it. A schema that does not compile, a duplicate
    /// name or an empty name is refused here, never at call time.
    pub fn register(&mut self, tool: Tool) -> Result<(), RegistrationError> {
        if tool.name.is_empty() {
            return Err(RegistrationError {
                tool: tool.name,
                kind: RegistrationErrorKind::EmptyName,
            });
        }
        if self.tools.contains_key(&tool.name) {
            return Err(RegistrationError {
                tool: tool.name,
                kind: RegistrationErrorKind::DuplicateName,
            });
        }
        let schema = self
            .compile(&tool.input_schema, tool.unknown_fields)
            .map_err(|e| RegistrationError {
                tool: tool.name.clone(),
                kind: RegistrationErrorKind::InvalidSchema(e),
            })?;
        let output_schema =
            match &tool.output_schema {
                None => None,
                Some(schema) => Some(self.compile(schema, UnknownFields::Allow).map_err(|e| {
                    RegistrationError {
                        tool: tool.name.clone(),
                        kind: RegistrationErrorKind::InvalidSchema(e),
                    }
                })?),
            };
        let registered = RegisteredTool {
            output_schema,
            name: tool.name.clone(),
            description: tool.description,
            schema,
            handler: tool.handler,
            execution: tool.execution,
            deadline: tool.deadline,
            semantic: tool.semantic,
            remedies: tool.remedies,
        };
        self.tools.insert(tool.name, Arc::new(registered));
        Ok(())
    }

    /// The tool registered under `name`.
    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.tools.get(name).map(|t| &**t)
    }

    /// Registered names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// How many tools are registered.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// True when no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

/// The reference harness: a registry, settings and a private diagnostic sink.
pub struct Harness {
    registry: Registry,
    config: HarnessConfig,
    sink: Arc<dyn DiagnosticSink>,
    threads: HandlerThreads,
}

impl fmt::Debug for Harness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Harness")
            .field("registry", &self.registry)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A failure on its way to becoming a result.
pub(crate) struct Failure {
    code: ErrorCode,
    message: String,
    remedy: Option<String>,
    reason: Option<String>,
    violations: Vec<Violation>,
    /// Private detail for the sink. Boxed: most failures have none, and a smaller failure
    /// keeps every outcome small enough to move without a `memcpy` call.
    diagnostic: Option<Box<(Stage, String)>>,
    /// A timeout's partial output: what a streaming handler wrote before its deadline, already
    /// capped to fit beside the message ([`Harness::keep_partial`]). Boxed like `diagnostic`.
    partial: Option<Box<(String, Option<Truncation>)>>,
}

impl Failure {
    fn new(code: ErrorCode, message: String) -> Self {
        let remedy = messages::default_remedy(code);
        Failure {
            code,
            message,
            remedy,
            reason: None,
            violations: Vec::new(),
            diagnostic: None,
            partial: None,
        }
    }

    pub(crate) fn malformed(problem: String) -> Self {
        Failure::new(ErrorCode::MalformedCall, messages::malformed(&problem))
    }

    fn private(mut self, stage: Stage, detail: String) -> Self {
        self.diagnostic = Some(Box::new((stage, detail)));
        self
    }
}

/// A call refused before running: the id and tool when they were read, and why.
struct Rejected<'h> {
    id: Option<String>,
    tool: Option<&'h RegisteredTool>,
    failure: Failure,
}

impl Rejected<'_> {
    fn new(id: Option<String>, failure: Failure) -> Self {
        Rejected {
            id,
            tool: None,
            failure,
        }
    }
}

/// A call that passed every stage up to running. The arguments are the call's own (moved out
/// of an owned call) or borrowed from the caller's (a call passed by reference).
struct Ready<'a, 'h> {
    id: String,
    tool: &'h Arc<RegisteredTool>,
    args: Cow<'a, Value>,
    /// The pointers [`crate::repair`] decoded (empty unless the repair mode is on and was used).
    repairs: Vec<String>,
    /// Data the user gave for this call when it paused ([`crate::pause`]), for its handler.
    user_data: Option<Arc<Value>>,
}

/// What the run stage produced: content already checked and capped, or a failure.
type RunOutcome = Result<Success, Failure>;

/// A successful run's content, what the cap cut, a spill's artifact, and — for a multi-part
/// output — its parts (text parts capped; empty for a text or structured output). The
/// truncation is boxed: an outcome is moved through every stage, and most are not cut.
type Success = (
    String,
    Option<Box<Truncation>>,
    Option<Box<Artifact>>,
    Vec<Part>,
);

/// A call on its way: answered already, or an isolated handler still running.
enum Started<'h> {
    Finished {
        id: Option<String>,
        tool: Option<&'h RegisteredTool>,
        outcome: RunOutcome,
    },
    Waiting {
        id: String,
        tool: &'h RegisteredTool,
        rx: mpsc::Receiver<(RunOutcome, Instant)>,
        deadline: Instant,
        budget: Duration,
        progress: Progress,
    },
}

/// What a streaming handler has written so far ([`ToolOutput::Chunks`]), capped as it comes:
/// shared by the thread that reads the stream and the one that waits for the result, so that
/// a timeout can keep the output that came in time. `None` until the handler returns a stream.
type Progress = Arc<Mutex<Option<StreamCapper>>>;

/// The progress, whoever panicked while holding it (a capper is consistent between pushes).
fn lock(progress: &Mutex<Option<StreamCapper>>) -> std::sync::MutexGuard<'_, Option<StreamCapper>> {
    progress.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Harness {
    /// A harness over `registry` with `config` and a sink that discards diagnostics.
    pub fn new(registry: Registry, config: HarnessConfig) -> Self {
        Harness {
            registry,
            config,
            sink: Arc::new(NullSink),
            threads: HandlerThreads::new(),
        }
    }

    /// The same harness sending private diagnostics to `sink`.
    pub fn with_diagnostics(mut self, sink: Arc<dyn DiagnosticSink>) -> Self {
        self.sink = sink;
        self
    }

    /// The same harness running its isolated handlers on `threads`, shared with whoever else
    /// holds them: an embedder that builds a harness per turn keeps its handler threads warm
    /// across turns this way ([`HandlerThreads`]).
    pub fn with_handler_threads(mut self, threads: HandlerThreads) -> Self {
        self.threads = threads;
        self
    }

    /// The registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The settings.
    pub fn config(&self) -> &HarnessConfig {
        &self.config
    }

    /// Answers one call. Always exactly one result; never panics, never fails.
    pub fn handle(&self, call: impl Into<Call>) -> ToolResult {
        self.answer_one(self.prepare(fields_of(call.into()), None, None))
    }

    /// Answers one call without taking it: the same result as [`Harness::handle`], but the
    /// caller keeps (and frees) the call, and an inline handler made with
    /// [`crate::Tool::borrowing`] reads the arguments in place. This is the fastest path.
    pub fn handle_ref<'a>(&self, call: impl Into<CallRef<'a>>) -> ToolResult {
        self.answer_one(self.prepare(fields_of_ref(call.into()), None, None))
    }

    fn answer_one(&self, prepared: Result<Ready<'_, '_>, Rejected<'_>>) -> ToolResult {
        let started = match prepared {
            Ok(ready) => self.start(ready, None),
            Err(r) => Started::Finished {
                id: r.id,
                tool: r.tool,
                outcome: Err(r.failure),
            },
        };
        self.finish(started, None)
    }

    /// Answers a batch (one assistant turn): one result per call, in call order. A repeated id
    /// gets `duplicate_call_id` (its first use runs normally), an empty id `malformed_call`.
    /// Isolated handlers run concurrently, each under its own deadline measured from its own
    /// start; inline handlers run on this thread meanwhile.
    pub fn handle_batch<I, C>(&self, calls: I) -> Vec<ToolResult>
    where
        I: IntoIterator<Item = C>,
        C: Into<Call>,
    {
        self.handle_turn(calls, Turn::default())
    }

    /// Answers a batch of a turn in which only the tools named in `offered` were offered to
    /// the model (a per-turn tool subset): a call to a registered tool that is not among them
    /// is refused like an unknown tool (`unknown_tool`, the message listing only the offered
    /// tools) and runs nothing; everything else is as in [`Harness::handle_batch`]. Names in
    /// `offered` that no tool has are ignored.
    pub fn handle_batch_offering<I, C, S>(&self, calls: I, offered: &[S]) -> Vec<ToolResult>
    where
        I: IntoIterator<Item = C>,
        C: Into<Call>,
        S: AsRef<str>,
    {
        let offered: BTreeSet<String> = offered
            .iter()
            .map(|s| s.as_ref().to_owned())
            .filter(|name| self.registry.tools.contains_key(name))
            .collect();
        self.handle_turn(
            calls,
            Turn {
                offered: Some(&offered),
                ..Turn::default()
            },
        )
    }

    /// Answers the batch of a turn that the model's output limit cut off (`stop_reason:
    /// max_tokens`): the last call may be incomplete — whatever a partial-JSON parser recovered
    /// of it, however valid it looks — so it never runs and is answered `malformed_call`,
    /// telling the model to send it again whole. The calls before it arrived whole and are
    /// answered as in [`Harness::handle_batch`].
    pub fn handle_cut_off_batch<I, C>(&self, calls: I) -> Vec<ToolResult>
    where
        I: IntoIterator<Item = C>,
        C: Into<Call>,
    {
        self.handle_turn(
            calls,
            Turn {
                cut_off: true,
                ..Turn::default()
            },
        )
    }

    /// Answers a batch of a turn the user may cancel while its handlers run (`cancel`, flipped
    /// from another thread): still exactly one result per call, in call order. A call that
    /// finished before the cancellation keeps its result; one still running, or not started,
    /// is answered `cancelled` (its late result, if any, is discarded), and its handler is told
    /// through [`crate::CallContext::cancelled`] and [`crate::CallContext::sleep`]. Without a
    /// cancellation, the same as [`Harness::handle_batch`].
    pub fn handle_cancellable_batch<I, C>(&self, calls: I, cancel: &CancelToken) -> Vec<ToolResult>
    where
        I: IntoIterator<Item = C>,
        C: Into<Call>,
    {
        self.handle_turn(
            calls,
            Turn {
                cancel: Some(cancel),
                ..Turn::default()
            },
        )
    }

    /// Answers a batch with parallel tool calls disabled: the calls run one at a time, in call
    /// order, each started only after the one before it was answered — and every call is run
    /// or refused visibly, none dropped, however many the model sent. Results are those of
    /// [`Harness::handle_batch`].
    pub fn handle_serial_batch<I, C>(&self, calls: I) -> Vec<ToolResult>
    where
        I: IntoIterator<Item = C>,
        C: Into<Call>,
    {
        self.handle_turn(
            calls,
            Turn {
                serial: true,
                ..Turn::default()
            },
        )
    }

    /// Answers a batch with parallel tool calls disabled by allowing one call per turn: the
    /// first call is answered as in [`Harness::handle_batch`]; every later call that would
    /// run is refused visibly (`tool_refused`, telling the model to send it in a turn of its
    /// own) and runs nothing. Another correct design than [`Harness::handle_serial_batch`]:
    /// no call is dropped either way.
    pub fn handle_one_call_per_turn<I, C>(&self, calls: I) -> Vec<ToolResult>
    where
        I: IntoIterator<Item = C>,
        C: Into<Call>,
    {
        self.handle_turn(
            calls,
            Turn {
                serial: true,
                one_call: true,
                ..Turn::default()
            },
        )
    }

    /// Answers a batch in which the calls of the tools named in `tools` pause for the user's
    /// decision before they run ([`crate::pause`]): every such call that passes validation is
    /// opened on `approvals` at once, and the turn waits until each has its decision or `wait`
    /// has passed since they paused. An approved call runs (with the user's edited arguments,
    /// validated again, and the user's data for its handler, when given); a denied one is
    /// answered `permission_denied` saying the user denied it; one with no decision in time is
    /// answered `permission_denied` saying none came. Nothing is applied to a call but its own
    /// decision, and every other call is answered as in [`Harness::handle_batch`].
    pub fn handle_paused_batch<I, C, S>(
        &self,
        calls: I,
        tools: &[S],
        wait: Duration,
        approvals: &crate::pause::Approvals,
    ) -> Vec<ToolResult>
    where
        I: IntoIterator<Item = C>,
        C: Into<Call>,
        S: AsRef<str>,
    {
        let tools: Vec<String> = tools.iter().map(|t| t.as_ref().to_owned()).collect();
        self.handle_turn(
            calls,
            Turn {
                pause: Some(crate::pause::Pausing {
                    tools: &tools,
                    wait,
                    approvals,
                }),
                ..Turn::default()
            },
        )
    }

    /// Pauses the admitted calls of the paused tools, waits for the user's decisions, and
    /// applies each to its own call: `prepared` afterwards holds the calls that run and the
    /// refusals of the others.
    fn await_decisions<'h>(
        &'h self,
        prepared: &mut [Result<Ready<'static, 'h>, Rejected<'h>>],
        pause: crate::pause::Pausing<'_>,
        offered: Option<&BTreeSet<String>>,
    ) {
        use crate::pause::{Decision, Pending};
        let paused: Vec<usize> = prepared
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                p.as_ref()
                    .is_ok_and(|r| pause.tools.iter().any(|t| *t == r.tool.name))
            })
            .map(|(i, _)| i)
            .collect();
        if paused.is_empty() {
            return;
        }
        let pending: Vec<Pending> = paused
            .iter()
            .filter_map(|&i| prepared[i].as_ref().ok())
            .map(|r| Pending {
                tool_use_id: r.id.clone(),
                tool: r.tool.name.clone(),
                input: r.args.clone().into_owned(),
            })
            .collect();
        let ids: Vec<String> = pending.iter().map(|p| p.tool_use_id.clone()).collect();
        let end = deadline_after(Instant::now(), pause.wait);
        pause.approvals.open(pending);
        let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        let mut decisions = pause.approvals.collect(&id_refs, end);
        for i in paused {
            let Ok(ready) = &prepared[i] else { continue };
            let (id, tool) = (ready.id.clone(), ready.tool);
            let refuse = |message: String, remedy: String| {
                Err(Rejected {
                    id: Some(id.clone()),
                    tool: Some(tool.as_ref()),
                    failure: Failure {
                        remedy: Some(remedy),
                        ..Failure::new(ErrorCode::PermissionDenied, message)
                    },
                })
            };
            prepared[i] = match decisions.remove(&id) {
                None => refuse(
                    messages::no_decision(&tool.name, pause.wait),
                    messages::no_decision_remedy(),
                ),
                Some(Decision::Deny { reason }) => refuse(
                    messages::denied_by_user(&tool.name, reason.as_deref()),
                    messages::denied_by_user_remedy(),
                ),
                Some(Decision::Approve { input, data }) => {
                    let taken = std::mem::replace(
                        &mut prepared[i],
                        Err(Rejected::new(None, Failure::malformed(String::new()))),
                    );
                    let ready = match (taken, input) {
                        (Ok(ready), None) => Ok(ready),
                        // The user's edit is validated as the model's arguments are.
                        (_, Some(input)) => {
                            let edited = serde_json::json!({
                                "type": "tool_use", "id": id, "name": tool.name, "input": input,
                            });
                            self.prepare(fields_of(Call::Value(edited)), None, offered)
                        }
                        (Err(r), None) => Err(r),
                    };
                    ready.map(|mut ready| {
                        ready.user_data = data.map(Arc::new);
                        ready
                    })
                }
            };
        }
    }

    fn handle_turn<I, C>(&self, calls: I, turn: Turn<'_>) -> Vec<ToolResult>
    where
        I: IntoIterator<Item = C>,
        C: Into<Call>,
    {
        let mut seen = HashSet::new();
        let mut prepared: Vec<_> = calls
            .into_iter()
            .map(|c| self.prepare(fields_of(c.into()), Some(&mut seen), turn.offered))
            .collect();
        // The cut-off call is refused even when what was recovered of it passes every stage.
        if turn.cut_off {
            if let Some(last) = prepared.pop() {
                prepared.push(last.and_then(|ready| {
                    Err(Rejected {
                        id: Some(ready.id),
                        tool: Some(ready.tool.as_ref()),
                        failure: Failure {
                            remedy: Some(messages::cut_off_remedy()),
                            ..Failure::new(ErrorCode::MalformedCall, messages::cut_off())
                        },
                    })
                }));
            }
        }
        if turn.one_call {
            for p in prepared.iter_mut().skip(1) {
                if let Ok(ready) = p {
                    let (id, tool) = (ready.id.clone(), ready.tool);
                    *p = Err(Rejected {
                        id: Some(id),
                        tool: Some(tool.as_ref()),
                        failure: Failure {
                            remedy: Some(messages::one_call_per_turn_remedy()),
                            ..Failure::new(
                                ErrorCode::ToolRefused,
                                messages::one_call_per_turn(&tool.name),
                            )
                        },
                    });
                }
            }
        }
        if let Some(pause) = turn.pause {
            self.await_decisions(&mut prepared, pause, turn.offered);
        }
        let cancel = turn.cancel;
        if turn.serial {
            // One at a time: each call is answered before the next one starts.
            return prepared
                .into_iter()
                .map(|p| {
                    let started = match p {
                        Ok(ready) => self.start(ready, cancel),
                        Err(r) => Started::Finished {
                            id: r.id,
                            tool: r.tool,
                            outcome: Err(r.failure),
                        },
                    };
                    self.finish(started, cancel)
                })
                .collect();
        }
        let mut started: Vec<Option<Started>> = Vec::with_capacity(prepared.len());
        let mut inline = Vec::new();
        // Start isolated handlers first so they run while inline ones execute here.
        for (i, p) in prepared.into_iter().enumerate() {
            match p {
                Ok(ready) if ready.tool.execution == Execution::Inline => {
                    started.push(None);
                    inline.push((i, ready));
                }
                Ok(ready) => started.push(Some(self.start(ready, cancel))),
                Err(r) => started.push(Some(Started::Finished {
                    id: r.id,
                    tool: r.tool,
                    outcome: Err(r.failure),
                })),
            }
        }
        for (i, ready) in inline {
            started[i] = Some(self.start(ready, cancel));
        }
        started
            .into_iter()
            .map(|s| match s {
                Some(s) => self.finish(s, cancel),
                // Every slot was filled above; answer rather than panic if that ever changes.
                None => self.envelope(
                    None,
                    None,
                    Err(Failure::new(
                        ErrorCode::InternalError,
                        messages::internal(None),
                    )),
                ),
            })
            .collect()
    }

    /// Stages correlate id → look up tool → validate → semantic checks, on the fields stage
    /// parse read ([`fields_of`], [`fields_of_ref`]).
    fn prepare<'a>(
        &self,
        fields: Result<Fields<'a>, Failure>,
        seen: Option<&mut HashSet<String>>,
        offered: Option<&BTreeSet<String>>,
    ) -> Result<Ready<'a, '_>, Rejected<'_>> {
        let Fields {
            id,
            name,
            kind,
            input,
            arguments: args_text,
        } = fields.map_err(|f| Rejected::new(None, f))?;

        // Stage::CorrelateId
        let id = match id.map(Field::into_string) {
            Some(Ok(id)) if !id.is_empty() => id,
            Some(Ok(empty)) => {
                return Err(Rejected::new(
                    Some(empty),
                    Failure::malformed("\"id\" is empty".to_string()),
                ))
            }
            Some(Err(other)) => {
                let problem = format!(
                    "expected \"id\" to be a string, got {}",
                    crate::schema::describe_received(&other)
                );
                return Err(Rejected::new(None, Failure::malformed(problem)));
            }
            None => {
                return Err(Rejected::new(
                    None,
                    Failure::malformed("missing \"id\"".to_string()),
                ))
            }
        };
        if let Some(seen) = seen {
            if !seen.insert(id.clone()) {
                let failure = Failure::new(ErrorCode::DuplicateCallId, messages::duplicate_id(&id));
                return Err(Rejected::new(Some(id), failure));
            }
        }
        if let Some(kind) = kind.filter(|k| k.str_or_value() != Ok("tool_use")) {
            let problem = format!(
                "expected \"type\" to be \"tool_use\", got {}",
                crate::schema::describe_received(&kind.to_value())
            );
            return Err(Rejected::new(Some(id), Failure::malformed(problem)));
        }

        // Stage::LookUpTool
        let name = match name.as_ref().map(Field::str_or_value) {
            Some(Ok(name)) if !name.is_empty() => name,
            Some(Ok(_)) => {
                return Err(Rejected::new(
                    Some(id),
                    Failure::malformed("\"name\" is empty".to_string()),
                ))
            }
            Some(Err(other)) => {
                let problem = format!(
                    "expected \"name\" to be a string, got {}",
                    crate::schema::describe_received(other)
                );
                return Err(Rejected::new(Some(id), Failure::malformed(problem)));
            }
            None => {
                return Err(Rejected::new(
                    Some(id),
                    Failure::malformed("missing \"name\"".to_string()),
                ))
            }
        };
        let Some(tool) = self.registry.tools.get(name) else {
            // In a turn with a tool subset, only the offered tools are named.
            let message = match offered {
                Some(offered) => messages::unknown_tool(name, offered.iter().map(String::as_str)),
                None => messages::unknown_tool(name, self.registry.names()),
            };
            let failure = Failure::new(ErrorCode::UnknownTool, message);
            return Err(Rejected::new(Some(id), failure));
        };
        if let Some(offered) = offered.filter(|o| !o.contains(name)) {
            let failure = Failure::new(
                ErrorCode::UnknownTool,
                messages::not_offered(name, offered.iter().map(String::as_str)),
            );
            return Err(Rejected::new(Some(id), failure));
        }
        let args = match arguments(input, args_text) {
            Ok(args) => args,
            Err(failure) => {
                return Err(Rejected {
                    id: Some(id),
                    tool: Some(tool),
                    failure,
                })
            }
        };

        // Stage::Validate, then Stage::SemanticChecks. Semantic checks are embedder code and
        // the validator is a dependency: a panic in either is answered, not propagated.
        // A repair (when the mode is on) is accepted only when what it produced validates;
        // otherwise the violations are those of what the model sent.
        let checked = catch_unwind(AssertUnwindSafe(
            || -> Result<Option<(Value, Vec<String>)>, Failure> {
                let mut repaired = None;
                if !tool.schema.is_valid(&args) {
                    let violations = tool.schema.violations_of_invalid(&args);
                    repaired = self
                        .config
                        .repair
                        .then(|| crate::repair::decode(&args, &violations))
                        .flatten()
                        .filter(|(value, _)| tool.schema.is_valid(value));
                    if repaired.is_none() {
                        return Err(invalid_arguments(tool, violations));
                    }
                }
                if !tool.semantic.is_empty() {
                    let value = repaired.as_ref().map_or(&*args, |(v, _)| v);
                    let violations = tool.semantic_violations(value);
                    if !violations.is_empty() {
                        return Err(invalid_arguments(tool, violations));
                    }
                }
                Ok(repaired)
            },
        ));
        let mut args = args;
        let mut repairs = Vec::new();
        let failure = match checked {
            Ok(Ok(None)) => None,
            Ok(Ok(Some((value, pointers)))) => {
                args = Cow::Owned(value);
                repairs = pointers;
                None
            }
            Ok(Err(failure)) => Some(failure),
            Err(payload) => Some(
                Failure::new(
                    ErrorCode::InternalError,
                    messages::internal(Some(&tool.name)),
                )
                .private(
                    Stage::Validate,
                    format!("argument checks panicked: {}", panic_text(payload)),
                ),
            ),
        };
        if let Some(failure) = failure {
            return Err(Rejected {
                id: Some(id),
                tool: Some(tool),
                failure,
            });
        }
        Ok(Ready {
            id,
            tool,
            args,
            repairs,
            user_data: None,
        })
    }

    /// Stage::Run (with check output and cap inside the handler's deadline). A call of a
    /// cancelled turn is not started: it is answered `cancelled` at once.
    fn start<'h>(&'h self, ready: Ready<'_, 'h>, cancel: Option<&CancelToken>) -> Started<'h> {
        let Ready {
            id,
            tool,
            args,
            repairs,
            user_data,
        } = ready;
        if cancel.is_some_and(CancelToken::is_cancelled) {
            return Started::Finished {
                id: Some(id),
                tool: Some(tool),
                outcome: Err(cancelled(
                    &tool.name,
                    "the turn was cancelled before it started",
                )),
            };
        }
        let budget = tool.deadline.unwrap_or(self.config.deadline);
        // A repaired call's output is preceded by the note saying so, within the same cap.
        let note = (!repairs.is_empty()).then(|| crate::repair::note(&repairs));
        let mut cap = self.config.cap;
        if let Some(note) = &note {
            cap.limit = cap
                .limit
                .saturating_sub(cap::measure(note, cap.unit) + 1)
                .max(1);
        }
        let limits = self.config.limits;
        let escape = self.config.output_escapes();
        match tool.execution {
            Execution::Inline => {
                let started = Instant::now();
                // `end` is `None` only past the last instant, where no elapsed time exceeds
                // the budget (`deadline_after` then picks a far deadline).
                let end = started.checked_add(budget);
                let deadline = end.unwrap_or_else(|| deadline_after(started, budget));
                let progress = Progress::default();
                let call = Running {
                    tool,
                    id: &id,
                    started,
                    deadline,
                    cancel,
                    user_data: user_data.as_deref(),
                };
                let outcome = execute(&call, args, &cap, &limits, escape, &progress);
                let outcome = match &note {
                    Some(note) => with_note(outcome, Some(note)),
                    None => outcome,
                };
                let returned = Instant::now();
                let outcome = if cancel.is_some_and(CancelToken::is_cancelled) {
                    Err(cancelled(
                        &tool.name,
                        "the turn was cancelled while it ran; its result was discarded",
                    ))
                } else if end.is_some_and(|end| returned > end) {
                    let detail = format!(
                        "inline handler returned after {} ms, past its deadline of {} ms; its result was discarded",
                        returned.saturating_duration_since(started).as_millis(),
                        budget.as_millis()
                    );
                    Err(late(&tool.name, budget, detail, outcome))
                } else {
                    outcome
                };
                let outcome = self.keep_partial(outcome, &progress, &tool.name, budget);
                Started::Finished {
                    id: Some(id),
                    tool: Some(tool),
                    outcome,
                }
            }
            Execution::Isolated => {
                let (tx, rx) = mpsc::channel();
                let worker_tool = Arc::clone(tool);
                // The thread may outlive this call: it gets its own copy of borrowed arguments.
                let args: Value = args.into_owned();
                let worker_id = id.clone();
                let worker_cancel = cancel.cloned();
                let started = Instant::now();
                let deadline = deadline_after(started, budget);
                let progress = Progress::default();
                let worker_progress = Arc::clone(&progress);
                let spawned = self.threads.run(move || {
                    let call = Running {
                        tool: &worker_tool,
                        id: &worker_id,
                        started,
                        deadline,
                        cancel: worker_cancel.as_ref(),
                        user_data: user_data.as_deref(),
                    };
                    let outcome = execute(
                        &call,
                        Cow::Owned(args),
                        &cap,
                        &limits,
                        escape,
                        &worker_progress,
                    );
                    let outcome = with_note(outcome, note.as_deref());
                    // The receiver is gone when the caller already answered `timeout`.
                    let _ = tx.send((outcome, Instant::now()));
                });
                match spawned {
                    Ok(()) => Started::Waiting {
                        id,
                        tool,
                        rx,
                        deadline,
                        budget,
                        progress,
                    },
                    Err(e) => {
                        let failure = Failure::new(
                            ErrorCode::InternalError,
                            messages::internal(Some(&tool.name)),
                        )
                        .private(
                            Stage::Run,
                            format!("could not spawn the handler thread: {e}"),
                        );
                        Started::Finished {
                            id: Some(id),
                            tool: Some(tool),
                            outcome: Err(failure),
                        }
                    }
                }
            }
        }
    }

    /// Waits for a started call if needed (until its deadline, or the turn's cancellation),
    /// then builds its envelope.
    fn finish(&self, started: Started, cancel: Option<&CancelToken>) -> ToolResult {
        match started {
            Started::Finished { id, tool, outcome } => self.envelope(id, tool, outcome),
            Started::Waiting {
                id,
                tool,
                rx,
                deadline,
                budget,
                progress,
            } => {
                let received = match cancel {
                    Some(token) => receive_until_cancelled(&rx, deadline, token),
                    None => rx
                        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                        .map_err(Waited::from),
                };
                let outcome = match received {
                    // Judged by when it finished: a result that came before the cancellation
                    // is kept, even when we look after it.
                    Ok((_, finished))
                        if cancel
                            .and_then(CancelToken::cancelled_at)
                            .is_some_and(|at| finished > at) =>
                    {
                        Err(cancelled(
                            &tool.name,
                            "the handler finished after the turn was cancelled; its result was discarded",
                        ))
                    }
                    Err(Waited::Cancelled) => Err(cancelled(
                        &tool.name,
                        "the handler was still running when the turn was cancelled; its result (if any comes) is discarded",
                    )),
                    // Judged by when the handler finished, not when we looked: in a batch we
                    // may look late, and that must not change this call's result.
                    Ok((outcome, finished)) if finished <= deadline => outcome,
                    Ok((outcome, _)) => {
                        let detail = format!(
                            "handler finished after its deadline of {} ms; its result was discarded",
                            budget.as_millis()
                        );
                        Err(late(&tool.name, budget, detail, outcome))
                    }
                    Err(Waited::Timeout) => {
                        Err(Failure::new(ErrorCode::Timeout, messages::timeout(&tool.name, budget)).private(
                            Stage::Run,
                            format!(
                                "handler had not finished at its deadline of {} ms; its result (if any comes) is discarded and its thread left to finish",
                                budget.as_millis()
                            ),
                        ))
                    }
                    Err(Waited::Disconnected) => {
                        Err(Failure::new(ErrorCode::InternalError, messages::internal(Some(&tool.name)))
                            .private(Stage::Run, "the handler thread ended without a result".to_string()))
                    }
                };
                let outcome = self.keep_partial(outcome, &progress, &tool.name, budget);
                self.envelope(Some(id), Some(tool), outcome)
            }
        }
    }

    /// A timeout of a handler that streams: keeps what it wrote before its deadline, capped so
    /// that it and the message after it fit the cap together, and says so in the message
    /// (SPEC.md STREAM-1). Any other outcome, or a stream that wrote nothing, passes unchanged.
    fn keep_partial(
        &self,
        outcome: RunOutcome,
        progress: &Mutex<Option<StreamCapper>>,
        tool: &str,
        budget: Duration,
    ) -> RunOutcome {
        let mut failure = match outcome {
            Err(f) if f.code == ErrorCode::Timeout && self.config.partial_output => f,
            other => return other,
        };
        let guard = lock(progress);
        let Some(capper) = guard.as_ref() else {
            return Err(failure);
        };
        let message = messages::timeout_with_partial_output(tool, budget);
        let text = messages::render(&message, failure.remedy.as_deref());
        let cap = self.config.cap;
        // The message's own units, and a line break before it (in lines, the message's line).
        let reserve = match cap.unit {
            cap::Unit::Lines => 1,
            unit => cap::measure(&text, unit) + 1,
        };
        let Some(room) = cap.limit.checked_sub(reserve).filter(|&room| room > 0) else {
            return Err(failure);
        };
        let kept = capper.snapshot(room);
        if kept.content.is_empty() {
            return Err(failure);
        }
        failure.message = message;
        failure.partial = Some(Box::new((kept.content.into_owned(), kept.truncation)));
        Err(failure)
    }

    /// Stage::Envelope (and the cap of error contents).
    fn envelope(
        &self,
        id: Option<String>,
        tool: Option<&RegisteredTool>,
        outcome: RunOutcome,
    ) -> ToolResult {
        match outcome {
            Ok((content, truncation, artifact, parts)) => ToolResult {
                tool_use_id: id,
                content: self.config.framed(content),
                error: None,
                truncation,
                artifact,
                parts,
            },
            Err(failure) => {
                if let Some((stage, detail)) = failure.diagnostic.map(|d| *d) {
                    let diagnostic = Diagnostic {
                        tool_use_id: id.clone(),
                        tool: tool.map(|t| t.name.clone()),
                        code: failure.code,
                        stage,
                        detail,
                    };
                    // The sink is embedder code; its panic must not become ours.
                    let _ = catch_unwind(AssertUnwindSafe(|| self.sink.record(diagnostic)));
                }
                let mut text = messages::render(&failure.message, failure.remedy.as_deref());
                // A message can quote a tool's text (a domain refusal): a wrapper's markers in
                // it are escaped like an output's, before it is capped.
                if let Some(w) = self.config.wrapper {
                    if let Cow::Owned(escaped) = cap::escape_with(&text, w.escapes()) {
                        text = escaped;
                    }
                }
                let (content, truncation) = match failure.partial.map(|p| *p) {
                    // The output kept before the deadline, then the message on its own line.
                    Some((kept, truncation)) => {
                        let gap = if kept.ends_with('\n') { "" } else { "\n" };
                        (format!("{kept}{gap}{text}"), truncation.map(Box::new))
                    }
                    None => cap_boxed(text, &self.config.cap.for_messages()),
                };
                let info = ErrorInfo {
                    code: failure.code,
                    message: failure.message,
                    remedy: failure.remedy,
                    reason: failure.reason,
                    violations: failure.violations,
                };
                ToolResult {
                    tool_use_id: id,
                    content: self.config.framed(content),
                    error: Some(Box::new(info)),
                    truncation,
                    artifact: None,
                    parts: Vec::new(),
                }
            }
        }
    }
}

/// A success's content with the repair note on a line before it.
fn with_note(outcome: RunOutcome, note: Option<&str>) -> RunOutcome {
    match (outcome, note) {
        (Ok((content, truncation, artifact, mut parts)), Some(note)) => {
            // A multi-part answer gets the note as a text part of its own, first.
            if !parts.is_empty() {
                parts.insert(0, Part::Text(note.to_owned()));
            }
            Ok((format!("{note}\n{content}"), truncation, artifact, parts))
        }
        (outcome, _) => outcome,
    }
}

/// How a turn's batch is answered beyond its calls (the `handle_*batch` entry points).
#[derive(Default, Clone, Copy)]
struct Turn<'t> {
    /// The tools the turn offered, when only some.
    offered: Option<&'t BTreeSet<String>>,
    /// The output limit cut the turn off: its last call never runs.
    cut_off: bool,
    /// The user may cancel the turn while it runs.
    cancel: Option<&'t CancelToken>,
    /// Parallel tool calls are disabled: one call at a time.
    serial: bool,
    /// Parallel tool calls are disabled: only the first call runs, later ones are refused.
    one_call: bool,
    /// Calls of some tools wait for the user's decision before they run.
    pause: Option<crate::pause::Pausing<'t>>,
}

/// The call a handler runs for, as [`execute`] hands it to the handler's [`CallContext`].
#[derive(Clone, Copy)]
struct Running<'r> {
    tool: &'r RegisteredTool,
    id: &'r str,
    started: Instant,
    deadline: Instant,
    cancel: Option<&'r CancelToken>,
    user_data: Option<&'r Value>,
}

/// Why waiting for a handler's result ended without one.
enum Waited {
    Timeout,
    Disconnected,
    Cancelled,
}

impl From<mpsc::RecvTimeoutError> for Waited {
    fn from(e: mpsc::RecvTimeoutError) -> Self {
        match e {
            mpsc::RecvTimeoutError::Timeout => Waited::Timeout,
            mpsc::RecvTimeoutError::Disconnected => Waited::Disconnected,
        }
    }
}

/// How often a wait for a handler looks at the turn's cancellation.
const CANCEL_POLL: Duration = Duration::from_millis(5);

/// Waits for a handler's result until its deadline, looking at `token` every
/// [`CANCEL_POLL`]; a result already sent wins over a cancellation seen at the same look.
fn receive_until_cancelled(
    rx: &mpsc::Receiver<(RunOutcome, Instant)>,
    deadline: Instant,
    token: &CancelToken,
) -> Result<(RunOutcome, Instant), Waited> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if token.is_cancelled() {
            return rx.try_recv().map_err(|e| match e {
                mpsc::TryRecvError::Empty => Waited::Cancelled,
                mpsc::TryRecvError::Disconnected => Waited::Disconnected,
            });
        }
        match rx.recv_timeout(left.min(CANCEL_POLL)) {
            Err(mpsc::RecvTimeoutError::Timeout) if !left.is_zero() => continue,
            other => return other.map_err(Waited::from),
        }
    }
}

/// A `cancelled` failure; `detail` goes to the diagnostic sink.
fn cancelled(tool: &str, detail: &str) -> Failure {
    Failure {
        remedy: Some(messages::cancelled_remedy()),
        ..Failure::new(ErrorCode::Cancelled, messages::cancelled(tool))
    }
    .private(Stage::Run, detail.to_owned())
}

fn deadline_after(started: Instant, budget: Duration) -> Instant {
    started
        .checked_add(budget)
        .or_else(|| started.checked_add(Duration::from_secs(100 * 365 * 24 * 3600)))
        .unwrap_or(started)
}

/// A `timeout` for a handler that finished late. The late outcome is discarded, but a private
/// detail it carried (a panic, an internal error) is kept in the timeout's diagnostic.
fn late(tool: &str, budget: Duration, mut detail: String, outcome: RunOutcome) -> Failure {
    if let Err(Failure {
        diagnostic: Some(diagnostic),
        ..
    }) = outcome
    {
        let (stage, inner) = *diagnostic;
        detail.push_str(&format!(
            "; it had also failed at stage {}: {inner}",
            stage.as_str()
        ));
    }
    Failure::new(ErrorCode::Timeout, messages::timeout(tool, budget)).private(Stage::Run, detail)
}

/// The message of a panic payload. Dropping a payload can itself panic, so it is dropped
/// inside `catch_unwind` too.
fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    let text = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    };
    let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
    text
}

/// The arguments: `input` (an object) or `arguments` (JSON text holding an object).
fn arguments<'a>(
    input: Option<Cow<'a, Value>>,
    arguments: Option<Cow<'a, Value>>,
) -> Result<Cow<'a, Value>, Failure> {
    let args = match (input, arguments) {
        (Some(_), Some(_)) => {
            return Err(Failure::malformed(
                "both \"input\" and \"arguments\" are present; send one".to_string(),
            ))
        }
        (Some(input), None) => input,
        (None, Some(arguments)) => match arguments.as_ref() {
            Value::String(text) => {
                let args = serde_json::from_str(text)
                    .map_err(|e| Failure::malformed(messages::not_json("\"arguments\"", &e)))?;
                // The parse above keeps a repeated key's last value; refusing the text keeps
                // every reader of it on the same value (SPEC.md CALL-10).
                if let Some((pointer, key)) = crate::unique_keys::first_duplicate(text) {
                    return Err(Failure::malformed(messages::duplicate_key(&pointer, &key)));
                }
                Cow::Owned(args)
            }
            _ => arguments,
        },
        (None, None) => return Err(Failure::malformed("missing \"input\"".to_string())),
    };
    if !args.is_object() {
        let problem = format!(
            "expected the arguments to be an object, got {}",
            crate::schema::describe_received(&args)
        );
        return Err(Failure::malformed(problem));
    }
    Ok(args)
}

fn invalid_arguments(tool: &RegisteredTool, violations: Vec<Violation>) -> Failure {
    // Built whole rather than through `Failure::new`, whose default remedy would be composed
    // only to be replaced.
    Failure {
        code: ErrorCode::InvalidArguments,
        message: messages::invalid_arguments(&tool.name, &violations),
        remedy: Some(messages::invalid_arguments_remedy(&tool.name)),
        reason: None,
        violations,
        diagnostic: None,
        partial: None,
    }
}

/// Runs the handler, then checks and caps its output, all under `catch_unwind`.
// Everything a handler's context and its output check need, passed as it is owned (the worker
// thread of an isolated handler owns its copies).
fn execute(
    call: &Running<'_>,
    args: Cow<'_, Value>,
    cap: &CapConfig,
    limits: &OutputLimits,
    escape: &'static [(&'static str, &'static str)],
    progress: &Mutex<Option<StreamCapper>>,
) -> RunOutcome {
    let Running {
        tool,
        id,
        started,
        deadline,
        cancel,
        user_data,
    } = *call;
    let ctx = CallContext {
        tool_use_id: id,
        tool: &tool.name,
        started,
        deadline,
        cancel,
        user_data,
    };
    let run = catch_unwind(AssertUnwindSafe(|| -> RunOutcome {
        let called = match args {
            Cow::Owned(args) => tool.handler.call(args, &ctx),
            Cow::Borrowed(args) => tool.handler.call_borrowed(args, &ctx),
        };
        let output = match called {
            Ok(output) => output,
            Err(e) => return Err(tool_failure(tool, e)),
        };
        check_and_cap(tool, output, &ctx, cap, limits, escape, progress)
            .map(|success| replayable(success, cap))
    }));
    match run {
        Ok(outcome) => outcome,
        Err(payload) => {
            let detail = panic_text(payload);
            Err(Failure::new(
                ErrorCode::InternalError,
                messages::internal(Some(&tool.name)),
            )
            .private(Stage::Run, format!("handler panicked: {detail}")))
        }
    }
}

fn tool_failure(tool: &RegisteredTool, e: crate::tool::ToolError) -> Failure {
    let reason = e.reason().map(str::to_string);
    let mut failure = match e.kind() {
        ToolErrorKind::Refused => {
            let mut f = Failure::new(
                ErrorCode::ToolRefused,
                messages::refused(&tool.name, e.message()),
            );
            f.remedy = tool.remedy_for(e.reason()).or(f.remedy);
            f
        }
        ToolErrorKind::Unavailable => {
            let mut f = Failure::new(
                ErrorCode::ToolUnavailable,
                messages::unavailable(&tool.name, e.message()),
            );
            f.remedy = tool.remedy_for(e.reason()).or(f.remedy);
            f
        }
        ToolErrorKind::Internal => Failure::new(
            ErrorCode::InternalError,
            messages::internal(Some(&tool.name)),
        )
        .private(
            Stage::Run,
            format!("handler reported an internal error: {}", e.message()),
        ),
    };
    failure.reason = reason;
    failure
}

/// Stage::CheckOutput then Stage::Cap, for a successful handler. Copies of harness-ref's note
/// openings (and wrapper markers) in the output's text are rewritten first by `escape`
/// ([`HarnessConfig::output_escapes`]).
fn check_and_cap(
    tool: &RegisteredTool,
    output: ToolOutput,
    ctx: &CallContext<'_>,
    cap: &CapConfig,
    limits: &OutputLimits,
    escape: &'static [(&'static str, &'static str)],
    progress: &Mutex<Option<StreamCapper>>,
) -> RunOutcome {
    let escaped = |text: String| match cap::escape_with(&text, escape) {
        Cow::Borrowed(_) => text,
        Cow::Owned(escaped) => escaped,
    };
    let invalid = |problem: OutputProblem| {
        Failure::new(
            ErrorCode::InvalidToolOutput,
            messages::invalid_output(&tool.name, &problem),
        )
        .private(Stage::CheckOutput, problem.to_string())
    };
    let text = match output {
        ToolOutput::Text(text) => escaped(text),
        ToolOutput::Json(value) => {
            let json = output::to_json(value, limits).map_err(invalid)?;
            // Every structured output, whatever its value: `0`, `""` and `null` included.
            if let Some(schema) = &tool.output_schema {
                let violations = schema.violations(&json);
                if !violations.is_empty() {
                    return Err(invalid(OutputProblem::OutputSchema {
                        violations: violations.iter().map(ToString::to_string).collect(),
                    }));
                }
            }
            escaped(json.to_string())
        }
        ToolOutput::Parts(parts) => {
            if let Some(why) = parts.iter().find_map(|p| p.unsupported(&limits.image)) {
                return Err(Failure::new(
                    ErrorCode::InvalidToolOutput,
                    messages::unsupported_part(&tool.name, &why),
                )
                .private(Stage::CheckOutput, why));
            }
            let parts = parts
                .into_iter()
                .map(|part| match part {
                    Part::Text(text) => Part::Text(escaped(text)),
                    other => other,
                })
                .collect();
            return Ok(cap_parts(parts, cap));
        }
        ToolOutput::Chunks(chunks) => {
            let streamed_too_long = || {
                Failure::new(
                    ErrorCode::Timeout,
                    messages::timeout(&tool.name, ctx.deadline - ctx.started),
                )
                .private(
                    Stage::CheckOutput,
                    "streamed output still arriving at the deadline".to_string(),
                )
            };
            // A rejecting cap must see the whole output before it can refuse it, and a
            // spilling one keeps all of it: both take the text path below, and their progress
            // (what a timeout shows) is cut head+tail in O(cap) memory.
            let whole = matches!(cap.strategy, Strategy::Reject | Strategy::Spill);
            let progress_cap = if whole { cap.for_messages() } else { *cap };
            *lock(progress) = Some(StreamCapper::new(progress_cap));
            let mut text = String::new();
            let mut escaper = (!escape.is_empty()).then(|| cap::NoteEscaper::with_escapes(escape));
            for chunk in chunks {
                // A part that came after the deadline is not the output's: the timeout keeps
                // only what came in time.
                if ctx.expired() {
                    return Err(streamed_too_long());
                }
                let chunk = match &mut escaper {
                    Some(e) => e.push(&chunk),
                    None => chunk,
                };
                if whole {
                    text.push_str(&chunk);
                }
                if let Some(capper) = lock(progress).as_mut() {
                    capper.push(&chunk);
                }
            }
            if let Some(e) = escaper {
                let rest = e.finish();
                if whole {
                    text.push_str(&rest);
                }
                if let Some(capper) = lock(progress).as_mut() {
                    capper.push(&rest);
                }
            }
            if whole {
                text
            } else {
                let capped = lock(progress)
                    .take()
                    .map_or_else(|| StreamCapper::new(*cap).finish(), StreamCapper::finish);
                return Ok((
                    capped.content.into_owned(),
                    capped.truncation.map(Box::new),
                    None,
                    Vec::new(),
                ));
            }
        }
    };
    if text.len() > limits.max_bytes {
        return Err(invalid(OutputProblem::TooLarge {
            size: text.len(),
            limit: limits.max_bytes,
        }));
    }
    if cap.strategy == Strategy::Reject {
        if let Some(size) = cap::over_limit(&text, cap) {
            return Err(Failure::new(
                ErrorCode::OutputTooLarge,
                messages::output_too_large(&tool.name, size, cap.limit, cap.unit),
            ));
        }
    }
    let spilled = (cap.strategy == Strategy::Spill && cap::over_limit(&text, cap).is_some())
        .then(|| text.clone());
    let (content, truncation) = cap_boxed(text, cap);
    let artifact = spilled.map(|text| {
        Box::new(Artifact {
            id: cap::artifact_id(cap::artifact_hash(&text)),
            text,
        })
    });
    Ok((content, truncation, artifact, Vec::new()))
}

/// A success the Messages API takes when the transcript is replayed (SPEC.md REPLAY-1): it
/// refuses a text block that is empty or white space alone, in a `tool_result` too ("text
/// content blocks must be non-empty", "… must contain non-whitespace text"), and then refuses
/// every later request that replays it. A multi-part output drops its blank text parts (the
/// parts beside them are what the tool returned); a text of white space alone is kept whole
/// and followed by a word saying so, or, where the cap leaves no room for it, replaced by a
/// statement of its size. An empty text stays empty: it is sent as a `tool_result` without
/// content, which the API takes for a success.
fn replayable(success: Success, cap: &CapConfig) -> Success {
    let (content, truncation, artifact, parts) = success;
    if !parts.is_empty() {
        if !parts.iter().any(|p| p.text().is_some_and(is_blank)) {
            return (content, truncation, artifact, parts);
        }
        let parts: Vec<Part> = parts
            .into_iter()
            .filter(|p| !p.text().is_some_and(is_blank))
            .collect();
        return (crate::content::text_of(&parts), truncation, artifact, parts);
    }
    if content.is_empty() || !is_blank(&content) {
        return (content, truncation, artifact, parts);
    }
    let marked = format!("{content}{}", messages::WHITE_SPACE_ONLY);
    let content = if cap::measure(&marked, cap.unit) <= cap.limit {
        marked
    } else {
        messages::white_space_only(cap::measure(&content, cap.unit), cap.unit)
    };
    (content, truncation, artifact, parts)
}

/// Whether a text is blank to a provider: white space alone (or nothing).
fn is_blank(text: &str) -> bool {
    text.chars().all(char::is_whitespace)
}

/// [`cap::cap_string`] with the truncation boxed, as results and outcomes hold it.
#[inline]
fn cap_boxed(text: String, cap: &CapConfig) -> (String, Option<Box<Truncation>>) {
    let (content, truncation) = cap::cap_string(text, cap);
    (content, truncation.map(Box::new))
}

/// Caps each text part on its own; other parts are not text and pass whole. The content is the
/// text parts joined; the truncation reported is the first cut's.
fn cap_parts(parts: Vec<Part>, cap: &CapConfig) -> Success {
    let mut first_cut = None;
    let parts: Vec<Part> = parts
        .into_iter()
        .map(|part| match part {
            Part::Text(text) => {
                let (text, truncation) = cap_boxed(text, cap);
                if first_cut.is_none() {
                    first_cut = truncation;
                }
                Part::Text(text)
            }
            other => other,
        })
        .collect();
    (crate::content::text_of(&parts), first_cut, None, parts)
}

/// A call that passed parse → correlate id → look up tool → validate → semantic checks, held
/// by the security gates ([`crate::security`]), which decide whether it runs.
pub(crate) struct Admitted<'h> {
    ready: Ready<'static, 'h>,
}

impl Admitted<'_> {
    pub(crate) fn id(&self) -> &str {
        &self.ready.id
    }

    pub(crate) fn tool(&self) -> &RegisteredTool {
        self.ready.tool
    }

    pub(crate) fn args(&self) -> &Value {
        &self.ready.args
    }
}

/// The hook the security gates use: the same stages as [`Harness::handle`], split at the point
/// where the handler would start, so that authorization, budget, idempotency and prepare/commit
/// run between validation and the effect.
impl Harness {
    /// Stages parse → semantic checks: the call ready to run, or its one result (with its tool's
    /// name when known). `seen` is the batch's id set, as in [`Harness::handle_batch`].
    pub(crate) fn admit(
        &self,
        call: Call,
        seen: Option<&mut HashSet<String>>,
    ) -> Result<Admitted<'_>, (ToolResult, Option<String>)> {
        match self.prepare(fields_of(call), seen, None) {
            Ok(ready) => Ok(Admitted { ready }),
            Err(r) => {
                let tool = r.tool.as_ref().map(|t| t.name.clone());
                Err((self.envelope(r.id, r.tool, Err(r.failure)), tool))
            }
        }
    }

    /// Stages run → envelope for an admitted call.
    pub(crate) fn run_admitted(&self, admitted: Admitted<'_>) -> ToolResult {
        self.finish(self.start(admitted.ready, None), None)
    }

    /// The result of a call a gate refused: capped like every content; no diagnostic (a
    /// refusal is policy, not a fault).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn refusal(
        &self,
        id: Option<String>,
        code: ErrorCode,
        message: String,
        remedy: Option<String>,
        reason: Option<String>,
        violations: Vec<Violation>,
    ) -> ToolResult {
        let mut failure = Failure::new(code, message);
        if remedy.is_some() {
            failure.remedy = remedy;
        }
        failure.reason = reason;
        failure.violations = violations;
        self.envelope(id, None, Err(failure))
    }

    /// A successful result with `text` as its content (capped), for a gate's own answer (a
    /// prepare's preview).
    pub(crate) fn answer(&self, id: String, text: String) -> ToolResult {
        let (content, truncation) = cap_boxed(text, &self.config.cap.for_messages());
        ToolResult {
            tool_use_id: Some(id),
            content: self.config.framed(content),
            error: None,
            truncation,
            artifact: None,
            parts: Vec::new(),
        }
    }
}
