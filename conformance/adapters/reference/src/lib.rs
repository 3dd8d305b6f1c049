//! `harness-ref-adapter`: the reference harness behind the conformance adapter protocol.
//!
//! The conformance suite checks harnesses through adapters; this crate is the adapter for
//! harness-ref, the suite's own reference, so that the suite and the reference check each
//! other on every commit. It has two faces:
//!
//! - an in-process API, [`ReferenceAdapter`], which the runner calls directly for its built-in
//!   target and for `selftest` (no process, no JSON lines);
//! - a binary, `harness-ref-adapter [--fault NAME | --variant NAME]`, which speaks the
//!   protocol's JSON lines on stdin/stdout (see `conformance/PROTOCOL.md`), for
//!   `run --harness` and for the runner's own process-driver tests.
//!
//! # The API
//!
//! ```
//! use harness_conformance_protocol::WireCase;
//! use harness_ref_adapter::{Fault, ReferenceAdapter};
//!
//! let mut adapter = ReferenceAdapter::new(None); // Some(Fault::CoercesTypes) for a variant
//! let hello = adapter.hello();                   // the handshake answer, capabilities included
//! let case: WireCase = serde_json::from_value(serde_json::json!({
//!     "id": "validation/x",
//!     "tools": [{"name": "t", "input_schema": {"type": "object",
//!                "properties": {"n": {"type": "integer"}}},
//!                "behavior": {"return": {"json": {"ok": true}}}}],
//!     "calls": [{"id": "toolu_1", "name": "t", "input": {"n": "3"}}]
//! })).unwrap();
//! let reply = adapter.run(&case);                // seq is 0: the caller sets it
//! let results = reply.results.unwrap();
//! assert!(results[0].is_error);
//! assert_eq!(results[0].code.as_deref(), Some("invalid_arguments"));
//! assert!(reply.invocations.unwrap().is_empty());
//! # let _ = hello;
//! ```
//!
//! [`ReferenceAdapter::run`] never panics: a case the adapter cannot build (a schema that does
//! not compile, an unresolved size, two tools with one name) comes back as `Reply { error }`.
//!
//! # What a run does
//!
//! Each case gets a fresh harness-ref [`Harness`]: the case's tools with their JSON Schemas
//! (objects closed by default, harness-ref's documented policy) and a handler that performs the
//! scripted behaviour; the cap and deadline the case asks for (harness-ref's defaults
//! otherwise: 16 KiB head+tail in UTF-8 bytes, 30 s). All calls go to
//! [`Harness::handle_batch`] as one turn, in the form given: a structured block as a JSON
//! value, `arguments_text` as an OpenAI-style `arguments` string, a raw call as bytes.
//!
//! The reply reports, per result, the id, `is_error`, the content, the code, retryability and
//! `native` (harness-ref's Anthropic `tool_result` block); the `invocations`, each with a deep
//! copy of the arguments taken when the handler was entered and the id of the call it served,
//! sorted into call order (handlers of one turn run concurrently); and `history`:
//! the turn's calls as the adapter's transcript keeps them after the turn, one entry per call,
//! each equal to the call as it arrived on the wire (`{"raw": …}`, or the block with `id`,
//! `name`, `input` / `arguments_text` as written) unless a handler changed it.
//!
//! A case with security fields (`context`, tool `policy`, `security`, per-call
//! `idempotency_key` / `prepare` / `commit` / `context` / `before`) is run instead through
//! harness-ref's `SecureHarness`, call by call in order (`policy` module); the handshake declares
//! the features `authorization`, `bounds`, `budget`, `idempotency`, `path-confinement` and
//! `prepare-commit`.
//!
//! # Broken variants
//!
//! `ReferenceAdapter::new(Some(fault))` runs the same reference with one deliberate fault
//! ([`Fault`]; [`Fault::ALL`] lists them, [`Fault::name`] is the kebab-case name that
//! `--fault NAME` and [`str::parse`] take, [`Fault::describe`] says in one line what it gets
//! wrong; `harness-ref-adapter --list-faults` prints both). Each is realised at the boundary
//! between this adapter and harness-ref, using only harness-ref's public API:
//!
//! - rewriting the calls before the harness reads them (`coerces-types`,
//!   `drops-unknown-fields`, `nulls-as-absent`, `parses-arguments-leniently`,
//!   `folds-tool-names`, `accepts-duplicate-ids`);
//! - wrapping the handler (`runs-handler-before-validating` starts handlers at dispatch,
//!   `nan-as-null`, `normalizes-line-endings`, `retries-any-failure`, `mutation-leaks`,
//!   `shallow-copies-arguments`);
//! - configuring harness-ref differently (`caps-head-only`, `counts-chars-for-bytes`,
//!   `no-deadline`, `no-cap`);
//! - post-processing its results, with harness-ref's own cap primitives where the fault is in
//!   capping (`splits-code-point`, `note-outside-cap`, `omits-note`, `leaks-internal-error`,
//!   `dumps-schema`, `first-violation-only`, `loses-id`, `swaps-ids`, `error-as-success`,
//!   `internal-retryable`, `drops-malformed-call`, `unknown-tool-crash`,
//!   `pairs-results-by-position`, and for the cap strategies `trusts-note-in-output`,
//!   `rejects-as-success`, `spill-preview-over-cap`, `spills-cut-artifact`;
//!   `counts-newlines-as-lines` gives harness-ref a lines cap one line larger);
//! - ignoring the turn's tool subset (`runs-tools-not-offered` answers the batch with
//!   [`Harness::handle_batch`] instead of [`Harness::handle_batch_offering`]) or its stop
//!   reason (`runs-cut-off-calls`, instead of [`Harness::handle_cut_off_batch`]).
//!
//! - configuring harness-ref's security gates differently, on cases with security fields
//!   only (`ignores-capabilities`, `reruns-duplicate-keys`, `commits-unverified-tokens`,
//!   `confines-paths-lexically`, `echoes-sensitive-arguments`; [`Fault::SECURITY`]).
//!
//! The handshake is identical for every broken variant and no variant leaves a marker in what
//! it returns: a variant can only be told apart by what it does.
//!
//! # Legitimate variants
//!
//! `ReferenceAdapter::legitimate(variant)` runs the reference with one different but correct
//! design choice ([`Variant`]; `--variant NAME`, `--list-variants`): `selftest` requires each
//! to pass every MUST requirement, so a case that forbids a valid design shows up as a false
//! alarm. They are realised at the same boundary: the handshake declares what the variant has
//! (`folds`, no `codes`, a fixed cap or deadline, head-only, no history or retryability);
//! harness-ref is configured differently (another head/tail split, the fixed cap and
//! deadline); the handler serialises structured output itself (`pretty-json`, after
//! harness-ref's own output check); or harness-ref's answer is rewritten from its structured
//! side — the code for another class (`reword` module), other words for the same facts, the
//! note moved or rewritten around harness-ref's own cut (`renote` module).

mod blocks;
pub mod fault;
mod json_text;
mod names;
mod pause;
mod perturb;
mod policy;
mod renote;
mod replay;
mod resume;
mod reword;
mod rewrite;
mod spill;
pub mod variant;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use harness_conformance_protocol as protocol;
use harness_conformance_protocol::vocabulary;
use harness_conformance_protocol::{
    Behavior, CallForm, CapCapability, Capabilities, DeadlineCapability, Hello, Implementation,
    Invocation, NonJson, NoteDeclaration, ObservedResult, RaiseKind, Reply, WireCase,
    PROTOCOL_VERSION,
};
use harness_ref::cap::{self, CapConfig};
use harness_ref::{
    CallContext, CancelToken, ErrorCode, Execution, Harness, HarnessConfig, MemorySink, NotJson,
    Registry, Tool, ToolError, ToolOutput, ToolResult, ToolValue, UnknownFields,
};
use serde_json::{Map, Value};

pub use fault::{Fault, UnknownFault};
/// The handler threads adapters can share ([`ReferenceAdapter::with_handler_threads`]).
pub use harness_ref::HandlerThreads;
/// The compiled-schema cache adapters can share ([`ReferenceAdapter::with_schema_cache`]).
pub use harness_ref::SchemaCache;
pub use variant::{UnknownVariant, Variant};

use harness_conformance_protocol::script::{self, Outcome, Script};

/// The declarable keywords ([`vocabulary::declarable_keywords`]) harness-ref does not give
/// their effect, so its hello leaves them out: draft-07's `definitions`, `dependencies` and
/// `additionalItems` (it validates draft 2020-12 only), the content keywords (annotations in
/// 2020-12, which harness-ref does not check) and `$vocabulary`. Every other keyword is one
/// `jsonschema` evaluates (assertions, applicators, references; `format` is asserted) or an
/// annotation it correctly ignores.
pub const KEYWORDS_NOT_APPLIED: [&str; 7] = [
    "definitions",
    "dependencies",
    "additionalItems",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "$vocabulary",
];

/// The keywords the reference declares: every declarable one but [`KEYWORDS_NOT_APPLIED`].
pub fn keywords() -> Vec<&'static str> {
    vocabulary::declarable_keywords()
        .into_iter()
        .filter(|k| !KEYWORDS_NOT_APPLIED.contains(k))
        .collect()
}

/// The repair profile (SPEC "repair profile"): declared only by the `repairs-double-encoded`
/// configuration and the broken versions of it ([`Fault::REPAIR`]); harness-ref then runs with
/// [`HarnessConfig::repair`] on. Every other feature of the vocabulary the reference has: the
/// security gates ([`policy`]), a turn offering only some tools
/// ([`Harness::handle_batch_offering`]), a `max_tokens` stop reason
/// ([`Harness::handle_cut_off_batch`]), cancellation ([`Harness::handle_cancellable_batch`]),
/// parallel calls off ([`Harness::handle_serial_batch`]) and MCP results (`from_mcp_result`).
const REPAIR: &str = "repair";

/// The provider format harness-ref's results are made for: Messages API `tool_result` blocks
/// (docs/harness-ref.md); every result is judged by that provider's acceptance rules
/// (SPEC.md REPLAY-1).
pub const DIALECT: &str = "anthropic-messages";

/// `sdk-default-deadline`: the inner client's own default, which wins over a longer
/// configured deadline.
const SDK_DEFAULT_DEADLINE: Duration = Duration::from_millis(200);

/// harness-ref behind the adapter protocol, optionally with one deliberate fault or as one
/// legitimate variant.
#[derive(Debug, Clone, Default)]
pub struct ReferenceAdapter {
    fault: Option<Fault>,
    variant: Option<Variant>,
    /// The handler threads every case's harness shares (a harness is built per case; its
    /// threads outlive it, so a case does not pay for starting them).
    threads: HandlerThreads,
    /// The compiled schemas every case's registry shares (a registry is built per case; the
    /// same schemas come back case after case, and variant after variant when the cache is
    /// shared with [`ReferenceAdapter::with_schema_cache`]).
    schemas: SchemaCache,
}

impl ReferenceAdapter {
    /// The reference (`None`) or one of its broken variants.
    pub fn new(fault: Option<Fault>) -> Self {
        ReferenceAdapter {
            fault,
            variant: None,
            threads: HandlerThreads::new(),
            schemas: SchemaCache::new(),
        }
    }

    /// One of the reference's legitimate variants ([`Variant`]).
    pub fn legitimate(variant: Variant) -> Self {
        ReferenceAdapter {
            fault: None,
            variant: Some(variant),
            threads: HandlerThreads::new(),
            schemas: SchemaCache::new(),
        }
    }

    /// The same adapter compiling its cases' schemas through `cache`, shared with whoever else
    /// holds it (`selftest` shares one across the reference and all its variants). Answers are
    /// the same with any cache.
    pub fn with_schema_cache(mut self, cache: SchemaCache) -> Self {
        self.schemas = cache;
        self
    }

    /// The same adapter running its isolated handlers on `threads`, shared with whoever else
    /// holds them (`selftest` shares one set across the reference and all its variants, so a
    /// thread one variant's handler finished with serves the next variant's). Answers are the
    /// same with any set.
    pub fn with_handler_threads(mut self, threads: HandlerThreads) -> Self {
        self.threads = threads;
        self
    }

    /// The variant's fault, if any.
    pub fn fault(&self) -> Option<Fault> {
        self.fault
    }

    /// The legitimate variant, if this is one.
    pub fn variant(&self) -> Option<Variant> {
        self.variant
    }

    /// The frame harness-ref puts around results: `wraps-results` and the broken versions of
    /// it escape copies of the markers, `wraps-results-with-nonce` authenticates them.
    fn wrapper(&self) -> Option<harness_ref::wrap::ResultWrapper> {
        match self.variant {
            Some(Variant::WrapsResults) => Some(harness_ref::wrap::ResultWrapper::Escaped),
            Some(Variant::WrapsResultsWithNonce) => {
                Some(harness_ref::wrap::ResultWrapper::Nonce { key: WRAPPER_KEY })
            }
            _ => (self.fault.and_then(Fault::base) == Some(Variant::WrapsResults))
                .then_some(harness_ref::wrap::ResultWrapper::Escaped),
        }
    }

    /// Whether harness-ref escapes copies of its note in outputs: where the hello declares the
    /// escapes, except under the faults that take a copy for harness-ref's own note.
    fn escapes_note_copies(&self) -> bool {
        let declared = self
            .hello()
            .capabilities
            .cap
            .and_then(|c| c.note)
            .is_some_and(|n| !n.escapes.is_empty());
        declared
            && !matches!(
                self.fault,
                Some(Fault::TrustsForgedNotes | Fault::TrustsNoteInOutput)
            )
    }

    /// Whether this configuration repairs double-encoded values (and declares `repair`).
    fn repairs(&self) -> bool {
        self.variant == Some(Variant::RepairsDoubleEncoded)
            || self.fault.and_then(Fault::base) == Some(Variant::RepairsDoubleEncoded)
    }

    /// The answer to `start`: harness-ref's name and what it can do. The same for every
    /// broken variant; a legitimate variant declares what it really has.
    pub fn hello(&self) -> Hello {
        let mut hello = self.reference_hello();
        let caps = &mut hello.capabilities;
        match self.variant {
            Some(Variant::FoldsMalformedCall) => {
                let (from, to) = (
                    ErrorCode::MalformedCall.code(),
                    ErrorCode::InvalidArguments.code(),
                );
                if let Some(codes) = &mut caps.codes {
                    codes.remove(from);
                }
                caps.folds.insert(from.to_owned(), to.to_owned());
            }
            Some(Variant::NoCodes) => caps.codes = None,
            Some(Variant::FixedCharCap) => {
                let fixed = fixed_char_cap();
                caps.cap = Some(CapCapability {
                    unit: to_wire_unit(fixed.unit),
                    limit: fixed.limit as u64,
                    configurable: false,
                    strategies: vec![protocol::Strategy::HeadTail],
                    units: Vec::new(),
                    note: Some(reference_note()),
                    spill: None,
                    estimator: None,
                });
            }
            Some(Variant::HeadOnlyCap) => {
                if let Some(cap) = &mut caps.cap {
                    cap.strategies = vec![protocol::Strategy::HeadOnly];
                }
            }
            Some(Variant::FixedDeadline) => {
                caps.deadline = Some(DeadlineCapability {
                    configurable: false,
                    default_ms: Some(FIXED_DEADLINE.as_millis() as u64),
                });
            }
            // Their notes are worded otherwise, and forgeable: they declare no form.
            Some(Variant::GroupedNote | Variant::InlineNote) => {
                if let Some(cap) = &mut caps.cap {
                    cap.note = None;
                }
            }
            Some(Variant::NonceInNote) => {
                if let Some(cap) = &mut caps.cap {
                    cap.note = Some(NoteDeclaration {
                        form: Some(renote::NONCE_NOTE_FORM.to_owned()),
                        ..NoteDeclaration::default()
                    });
                }
            }
            Some(Variant::NoteBesideContent) => {
                if let Some(cap) = &mut caps.cap {
                    cap.note = Some(NoteDeclaration {
                        outside: true,
                        ..NoteDeclaration::default()
                    });
                }
            }
            Some(Variant::NoHistory) => caps.history = false,
            Some(Variant::NoRetryability) => caps.retryability = false,
            _ => {}
        }
        // `has-no-cap` says so: the one broken variant whose hello differs (besides the repair
        // profile's), because a harness without a cap declares none.
        if self.fault == Some(Fault::HasNoCap) {
            caps.cap = None;
        }
        if self.repairs() {
            caps.features.push(REPAIR.to_owned());
        }
        caps.wrapper = self.wrapper().map(wrapper_declaration);
        hello
    }

    fn reference_hello(&self) -> Hello {
        fn repository(suffix: &str) -> Option<String> {
            let repo = env!("CARGO_PKG_REPOSITORY");
            (!repo.is_empty()).then(|| format!("{repo}{suffix}"))
        }
        let defaults = HarnessConfig::default();
        Hello {
            protocol: PROTOCOL_VERSION,
            implementation: Implementation {
                name: "harness-ref".to_owned(),
                language: "rust".to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                homepage: Some(env!("CARGO_PKG_REPOSITORY").to_owned()),
                // The repository, once the workspace names one (Cargo.toml, `repository`).
                source: repository(""),
                issues: repository("/issues"),
            },
            capabilities: Capabilities {
                cap: Some(CapCapability {
                    unit: to_wire_unit(defaults.cap.unit),
                    limit: defaults.cap.limit as u64,
                    configurable: true,
                    strategies: vec![
                        protocol::Strategy::HeadTail,
                        protocol::Strategy::HeadOnly,
                        protocol::Strategy::Reject,
                        protocol::Strategy::Spill,
                    ],
                    units: vec![protocol::Unit::Lines, protocol::Unit::Tokens],
                    note: Some(reference_note()),
                    spill: Some(spill::declared(self.variant)),
                    estimator: Some(wire_estimator(TOKEN_ESTIMATE)),
                }),
                codes: Some(
                    ErrorCode::ALL
                        .iter()
                        .map(|c| (c.code().to_owned(), c.code().to_owned()))
                        .collect(),
                ),
                retryability: true,
                deadline: Some(DeadlineCapability {
                    configurable: true,
                    default_ms: Some(defaults.deadline.as_millis() as u64),
                }),
                keywords: keywords().into_iter().map(str::to_owned).collect(),
                call_forms: vec![CallForm::Structured, CallForm::ArgumentsText, CallForm::Raw],
                parallel: true,
                history: true,
                features: vocabulary::FEATURES
                    .iter()
                    .filter(|f| **f != REPAIR)
                    .map(|f| (*f).to_owned())
                    .collect(),
                folds: BTreeMap::new(),
                behaviors: vocabulary::BEHAVIORS
                    .iter()
                    .map(|b| (*b).to_owned())
                    .collect(),
                call_ids: true,
                // harness-ref builds Messages API `tool_result` blocks (docs/harness-ref.md).
                dialect: Some(DIALECT.to_owned()),
                wrapper: None,
            },
        }
    }

    /// Runs one case: a fresh harness with the case's tools, all calls as one batch. The reply's
    /// `seq` is 0 (the caller sets it). Never panics: an internal failure is `Reply { error }`.
    pub fn run(&mut self, case: &WireCase) -> Reply {
        let mut reply = Reply {
            case: case.id.clone(),
            ..Reply::default()
        };
        match catch_unwind(AssertUnwindSafe(|| self.observe(case))) {
            Ok(Ok(observed)) => {
                reply.results = Some(observed.results);
                reply.invocations = Some(observed.invocations);
                reply.history = observed.history;
                reply.spill_artifacts = observed.spill_artifacts;
            }
            Ok(Err(reason)) => reply.error = Some(reason),
            Err(payload) => {
                let detail = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic with a non-string payload".to_owned());
                reply.error = Some(format!("the adapter panicked: {detail}"));
            }
        }
        reply
    }

    fn observe(&self, case: &WireCase) -> Result<Observed, String> {
        let fault = self.fault;
        let variant = self.variant;
        let configured = cap_config(case, variant)?;
        let remaining = remaining_context(case)?;
        let intended = within_context(configured, remaining, variant);
        let harness_config = HarnessConfig {
            // `caps-in-quadratic-time` cuts text results itself; a result with blocks is left
            // to harness-ref, which caps its text blocks (the variant is the reference there).
            cap: match fault {
                Some(Fault::CapsInQuadraticTime) if returns_blocks(case) => intended,
                Some(Fault::IgnoresRemainingContext) => configured,
                Some(Fault::RaisesCapToRemainingContext) => CapConfig {
                    limit: remaining.unwrap_or(configured.limit),
                    ..configured
                },
                _ => harness_cap(intended, fault),
            },
            deadline: match (fault, variant) {
                (Some(Fault::NoDeadline), _) => Duration::MAX,
                (_, Some(Variant::FixedDeadline)) => FIXED_DEADLINE,
                (fault, _) => {
                    let configured = Duration::from_millis(
                        case.config
                            .deadline_ms
                            .unwrap_or(HarnessConfig::default().deadline.as_millis() as u64),
                    );
                    // `sdk-default-deadline`: the inner client's default cuts the call short.
                    if fault == Some(Fault::SdkDefaultDeadline) {
                        configured.min(SDK_DEFAULT_DEADLINE)
                    } else {
                        configured
                    }
                }
            },
            repair: self.repairs(),
            // `drops-partial-output`: a timeout shows its message alone.
            partial_output: fault != Some(Fault::DropsPartialOutput),
            escape_note_copies: self.escapes_note_copies(),
            // `wrapper-not-escaped` frames the content itself, after the fact.
            wrapper: match fault {
                Some(Fault::WrapperNotEscaped) => None,
                _ => self.wrapper(),
            },
            limits: harness_ref::OutputLimits {
                image: blocks::image_limit(case.config.image_limit.as_deref(), fault, variant),
                ..harness_ref::OutputLimits::default()
            },
        };
        let state = Arc::new(RunState::default());
        // Generated outputs are sized in the unit of the cap the harness applies; a harness that
        // declares no cap sizes them in the case's unit, else in chars (PROTOCOL.md), as the
        // runner does.
        let unit = match fault {
            Some(Fault::HasNoCap) => case
                .config
                .cap
                .as_ref()
                .and_then(|c| c.unit)
                .unwrap_or(protocol::Unit::Chars),
            // A token cap's outputs are sized in its estimate's unit (PROTOCOL.md 4l).
            _ => to_wire_unit(intended.unit.counting()),
        };

        let mut scripts = HashMap::new();
        let registry = self.registry(case, unit, &state, &mut scripts, false)?;
        let sink = Arc::new(MemorySink::new());
        let harness = Harness::new(registry, harness_config)
            .with_diagnostics(sink.clone())
            .with_handler_threads(self.threads.clone());
        self.answer(
            case,
            harness,
            harness_config,
            sink,
            state,
            scripts,
            intended,
        )
    }

    /// The case's tools in a harness-ref registry, each with a scripted handler (recorded in
    /// `scripts`); `permissive`: with an input schema that takes anything
    /// (`runs-unvalidated-repairs`).
    fn registry(
        &self,
        case: &WireCase,
        unit: protocol::Unit,
        state: &Arc<RunState>,
        scripts: &mut HashMap<String, Arc<Script>>,
        permissive: bool,
    ) -> Result<Registry, String> {
        let (fault, variant) = (self.fault, self.variant);
        let mut registry = Registry::with_schema_cache(self.schemas.clone());
        for tool in &case.tools {
            let script = Arc::new(
                Script::compile(&tool.behavior, unit)
                    .map_err(|e| format!("tool {:?}: {e}", tool.name))?,
            );
            scripts.insert(tool.name.clone(), Arc::clone(&script));
            // The output-schema faults live in the handlers of tools that declare one.
            let handler_fault = match fault {
                Some(f) if f.needs_output_schema() && tool.output_schema.is_none() => None,
                f => f,
            };
            // `pretty-json` and `python-json` write the JSON text in the handler, past
            // harness-ref's output-schema check; for a tool with an output schema they leave
            // the value to harness-ref, which checks it (their text format is not the point there).
            let handler_variant = match variant {
                Some(Variant::PrettyJson | Variant::PythonJson) if tool.output_schema.is_some() => {
                    None
                }
                v => v,
            };
            let handler = scripted_handler(
                tool.name.clone(),
                script,
                Arc::clone(state),
                handler_fault,
                handler_variant,
            );
            let schema = if permissive {
                Value::Object(Map::new())
            } else if fault == Some(Fault::ValidatesWithoutRefs) {
                // The schema rewritten for a provider that rejects references, then validated
                // in place of the tool's own.
                let mut schema = tool.input_schema.clone();
                rewrite::strip_refs(&mut schema);
                schema
            } else {
                tool.input_schema.clone()
            };
            let mut registered =
                Tool::new(tool.name.clone(), tool.description.clone(), schema, handler)
                    .execution(execution(case, &tool.behavior, fault));
            // `ignores-output-schema`: the declared output schema never reaches the harness.
            if let Some(schema) = &tool.output_schema {
                if fault != Some(Fault::IgnoresOutputSchema) {
                    registered = registered.output_schema(schema.clone());
                }
            }
            registry
                .register(registered)
                .map_err(|e| format!("cannot register the case's tools: {e}"))?;
        }
        Ok(registry)
    }

    /// Runs the case's turn on `harness` and observes what it answered.
    #[allow(clippy::too_many_arguments)]
    fn answer(
        &self,
        case: &WireCase,
        harness: Harness,
        harness_config: HarnessConfig,
        sink: Arc<MemorySink>,
        state: Arc<RunState>,
        scripts: HashMap<String, Arc<Script>>,
        intended: CapConfig,
    ) -> Result<Observed, String> {
        let (fault, variant) = (self.fault, self.variant);

        // What the harness reads of each call, after the variant's edits (if any).
        let peeked: Vec<Peeked> = case.calls.iter().map(Peeked::of).collect();
        let mut edits = edit_calls(case, &peeked, fault);
        // `keeps-last-duplicate-key`: one parser, keeping a repeated key's last value, reads
        // arguments text for the validator and the handler alike.
        if variant == Some(Variant::KeepsLastDuplicateKey) {
            for (edit, call) in edits.iter_mut().zip(&case.calls) {
                if let Some((_, last)) = call.arguments_text().and_then(rewrite::duplicate_readings)
                {
                    edit.args = Some(last);
                }
            }
        }
        // `refuses-every-duplicate-id`: the first call of a reused id goes to harness-ref under
        // a name no tool has, so nothing runs and the id still counts as used; its answer is
        // rewritten as a duplicate-id refusal.
        let first_of_reused = match variant {
            Some(Variant::RefusesEveryDuplicateId) => first_of_reused_ids(&peeked),
            _ => vec![false; peeked.len()],
        };
        let nowhere = unregistered_name(&case.tools);
        for (edit, first) in edits.iter_mut().zip(&first_of_reused) {
            if *first {
                edit.name = Some(nowhere.clone());
            }
        }
        let fed: Vec<Peeked> = peeked
            .iter()
            .zip(&edits)
            .map(|(p, e)| p.edited(e))
            .collect();
        for (p, e) in peeked.iter().zip(&edits) {
            if let (Some(original), Some(renamed)) = (&p.id, &e.id) {
                lock(&state.aliases).insert(renamed.clone(), original.clone());
            }
        }
        for (p, e) in fed.iter().zip(&edits) {
            if let (Some(id), Some(args)) = (&p.id, &e.handed) {
                lock(&state.handed).insert(id.clone(), args.clone());
            }
        }
        let calls: Vec<harness_ref::Call> = case
            .calls
            .iter()
            .zip(&edits)
            .map(|(call, edit)| to_harness_call(call, edit))
            .collect();
        // A turn resumed from a saved transcript (feature `resume`).
        if let Some(resume) = &case.resume {
            let ids: Vec<Option<&str>> = peeked.iter().map(|p| p.id.as_deref()).collect();
            let observed = resume::resumed_turn(&harness, calls, &ids, resume, fault, variant);
            return Ok(report(case, &fed, &state, observed, fault, variant));
        }
        if fault == Some(Fault::RunsHandlerBeforeValidating) {
            dispatch_eagerly(&fed, &harness, &scripts, &state);
        }
        // The tools the model may call this turn: a variant's reworded message lists these.
        let tool_names: Vec<String> = harness
            .registry()
            .names()
            .filter(|n| {
                case.offered
                    .as_ref()
                    .is_none_or(|o| o.iter().any(|x| x == n))
            })
            .map(str::to_owned)
            .collect();

        // `runs-unvalidated-repairs`: the calls whose repair would still break the schema,
        // with the decoded arguments a harness that does not validate again hands on.
        let unvalidated: Vec<Option<Value>> = match fault {
            Some(Fault::RunsUnvalidatedRepairs) => {
                fed.iter().map(|p| failed_repair(p, &case.tools)).collect()
            }
            _ => Vec::new(),
        };

        // Turns of named sessions whose spilled artifacts are followed (`spill-lifecycle`).
        let mut spill_held = None;
        let mut spill_renamed = HashMap::new();
        // A case with security fields goes through harness-ref's gates, in call order.
        let mut results = if let Some(lifecycle) = &case.spill_lifecycle {
            let ids: Vec<Option<&str>> = peeked.iter().map(|p| p.id.as_deref()).collect();
            let run = spill::run(&harness, calls, &ids, lifecycle, fault, variant);
            spill_held = Some(run.held);
            spill_renamed = run.renamed;
            run.results
        } else if protocol::is_secured(case) {
            policy::run_secured(harness, case, calls, fault)
        } else if let Some(pause) = &case.pause {
            pause::paused_turn(&harness, calls, pause, fault)
        } else if let Some(after) = case.cancel_after_ms {
            let results = cancelled_turn(&harness, calls, Duration::from_millis(after), fault);
            // Handlers told to stop record it as they leave: report once they have (an
            // uninterruptible one is waited for until its scripted sleeps would have ended).
            let longest = case
                .tools
                .iter()
                .map(|t| t.behavior.scripted_sleep_ms())
                .max()
                .unwrap_or(0);
            state.wait_idle(Duration::from_millis(longest));
            results
        } else if case.parallel_calls == Some(false) {
            match (fault, variant) {
                (Some(Fault::SerialDropsExtraCalls), _) => {
                    harness.handle_serial_batch(calls.into_iter().take(1))
                }
                (_, Some(Variant::RefusesExtraCallsWhenSerial)) => {
                    harness.handle_one_call_per_turn(calls)
                }
                _ => harness.handle_serial_batch(calls),
            }
        } else {
            let cut_off = case.stop_reason == Some(protocol::StopReason::MaxTokens);
            match (&case.offered, fault) {
                // `runs-cut-off-calls`: the stop reason is never read.
                _ if cut_off && fault != Some(Fault::RunsCutOffCalls) => {
                    harness.handle_cut_off_batch(calls)
                }
                // `runs-tools-not-offered`: the turn's subset is never consulted.
                (Some(_), Some(Fault::RunsToolsNotOffered)) | (None, _) => {
                    harness.handle_batch(calls)
                }
                (Some(offered), _) => harness.handle_batch_offering(calls, offered),
            }
        };

        if unvalidated.iter().any(Option::is_some) {
            let mut unused = HashMap::new();
            let unit = to_wire_unit(intended.unit.counting());
            let lenient = Harness::new(
                self.registry(case, unit, &state, &mut unused, true)?,
                harness_config,
            )
            .with_handler_threads(self.threads.clone());
            for (i, decoded) in unvalidated.into_iter().enumerate() {
                let (Some(args), Some(call), Some(result)) =
                    (decoded, case.calls.get(i), results.get_mut(i))
                else {
                    continue;
                };
                if result.code() == Some(ErrorCode::InvalidArguments) {
                    let edit = Edit {
                        args: Some(args),
                        ..Edit::default()
                    };
                    *result = lenient.handle(to_harness_call(call, &edit));
                }
            }
        }

        // The variants that lose a whole turn: the dispatcher raises and the model is shown no
        // result at all (`unknown-tool-crash`, `crashes-on-invalid-arguments`,
        // `crashes-on-large-output`)…
        let crashed = fault.is_some_and(|f| results.iter().any(|r| crashes_on(f, r)));
        // …or the encoder recursed into a cycle until the stack ran out (`crashes-on-cycle`).
        let crashed = crashed
            || (fault == Some(Fault::CrashesOnCycle)
                && state
                    .returned_cycle
                    .load(std::sync::atomic::Ordering::SeqCst));
        let results = if crashed { Vec::new() } else { results };
        let cut_off_call = (case.stop_reason == Some(protocol::StopReason::MaxTokens))
            .then(|| results.len().saturating_sub(1));
        let diagnostics = sink.take();
        let aliases = lock(&state.aliases).clone();
        let mut observed: Vec<ObservedResult> = Vec::with_capacity(results.len());
        // harness-ref answers every call, in call order: result `i` is call `i`'s.
        let mut poisoned = false;
        for (i, result) in results.iter().enumerate() {
            // The variants that lose one call's answer.
            if fault.is_some_and(|f| drops(f, result, cut_off_call == Some(i))) {
                continue;
            }
            let mut o = observe_result(result);
            if let Some((from, to)) = spill_renamed.get(&i) {
                spill::rename(&mut o, from, to);
            }
            // `cancelled-as-empty-success`: the cancelled call looks as if it returned nothing.
            if fault == Some(Fault::CancelledAsEmptySuccess)
                && result.code() == Some(ErrorCode::Cancelled)
            {
                o.is_error = false;
                o.content = String::new();
                o.code = None;
                o.retryable = None;
            }
            if let Some(original) = result.tool_use_id().and_then(|id| aliases.get(id)) {
                o.tool_use_id = Value::from(original.as_str());
            }
            // The tool the call named, when there is one.
            let tool = fed
                .get(i)
                .and_then(|p| p.name.as_deref())
                .and_then(|name| case.tools.iter().find(|t| t.name == name));
            let schema = tool.map(|t| &t.input_schema);
            let context = Context {
                intended: &intended,
                harness_cap: &harness_config.cap,
                diagnostics: &diagnostics,
                schema,
                args: fed.get(i).and_then(|p| p.args.as_ref()),
            };
            perturb_result(&mut o, result, fault, &context);
            if let Some(harness_ref::wrap::ResultWrapper::Nonce { key }) = self.wrapper() {
                o.wrapper_nonce = Some(harness_ref::wrap::nonce(key));
            }
            // `wrapper-not-escaped`: the frame, around an output whose markers are not escaped.
            if fault == Some(Fault::WrapperNotEscaped) {
                o.content = harness_ref::wrap::ResultWrapper::Escaped.frame(&o.content);
            }
            blocks::perturb_result(&mut o, fault, &intended);
            blocks::limit_images(&mut o, fault, variant, case.config.image_limit.as_deref());
            replay::perturb_result(&mut o, fault, variant, tool);
            // `oversized-image-poisons-later-calls`: the transcript keeps the image it refused,
            // and every later request that replays it is refused by the provider.
            if fault == Some(Fault::OversizedImagePoisonsLaterCalls) {
                if poisoned {
                    o.is_error = true;
                    o.content = "the model provider refused the request: an image in the conversation is over its size limit".into();
                    o.blocks = None;
                    o.code = Some(ErrorCode::ToolUnavailable.code().to_owned());
                    o.retryable = Some(true);
                }
                poisoned |= blocks::refused_oversized_image(&o);
            }
            if let Some(variant) = variant {
                let cx = VariantContext {
                    cap: &intended,
                    call: fed.get(i),
                    first_of_reused: first_of_reused.get(i).copied().unwrap_or(false),
                    tools: &case.tools,
                    tool_names: &tool_names,
                    deadline: harness_config.deadline,
                };
                reshape_result(&mut o, result, variant, &cx);
            }
            if let Some(pause) = &case.pause {
                pause::reshape(&mut o, result, pause, fault, variant);
            }
            observed.push(o);
        }
        if fault == Some(Fault::SwapsIds) {
            for pair in observed.chunks_mut(2) {
                if let [a, b] = pair {
                    std::mem::swap(&mut a.tool_use_id, &mut b.tool_use_id);
                }
            }
        }
        if fault == Some(Fault::PairsResultsByPosition) && observed.len() == fed.len() {
            // Completion order: by each call's scripted sleep (a refused call finishes at
            // once), ties in call order; then the calls' ids are handed out by position.
            let sleep_of = |p: &Peeked| {
                p.name
                    .as_deref()
                    .and_then(|name| case.tools.iter().find(|t| t.name == name))
                    .map_or(0, |t| t.behavior.scripted_sleep_ms())
            };
            let ids: Vec<Value> = observed.iter().map(|o| o.tool_use_id.clone()).collect();
            let mut order: Vec<usize> = (0..observed.len()).collect();
            order.sort_by_key(|&i| {
                if observed[i].is_error {
                    0
                } else {
                    sleep_of(&fed[i])
                }
            });
            let mut slots: Vec<Option<ObservedResult>> = observed.into_iter().map(Some).collect();
            observed = order.iter().filter_map(|&i| slots[i].take()).collect();
            for (o, id) in observed.iter_mut().zip(ids) {
                o.tool_use_id = id;
            }
        }
        let mut reported = report(case, &fed, &state, observed, fault, variant);
        reported.spill_artifacts = spill_held;
        Ok(reported)
    }
}

/// The reply's parts once the results are observed: each result's `native` block in step
/// with it, the invocations in call order, and the transcript as the harness keeps it.
fn report(
    case: &WireCase,
    fed: &[Peeked],
    state: &RunState,
    mut observed: Vec<ObservedResult>,
    fault: Option<Fault>,
    variant: Option<Variant>,
) -> Observed {
    for o in &mut observed {
        sync_native(o);
    }

    // Call position of each id the harness saw (the first call, for a repeated id).
    let order: HashMap<&str, usize> = fed
        .iter()
        .enumerate()
        .rev()
        .filter_map(|(i, p)| p.id.as_deref().map(|id| (id, i)))
        .collect();
    let position = |id: &str| order.get(id).copied().unwrap_or(usize::MAX);
    // `elapsed-in-content`: a slow success (its handler slept) says how long it took.
    if fault == Some(Fault::ElapsedInContent) && observed.len() == fed.len() {
        for (o, p) in observed.iter_mut().zip(fed) {
            let slept = p
                .name
                .as_deref()
                .and_then(|name| case.tools.iter().find(|t| t.name == name))
                .is_some_and(|t| t.behavior.scripted_sleep_ms() > 0);
            if slept && !o.is_error {
                o.content.push_str(&format!(
                    " (took {} µs)",
                    state.started.elapsed().as_micros()
                ));
            }
        }
    }
    let mut invocations = state.take_invocations();
    invocations.sort_by_key(|(id, _)| position(id));
    let invocations = invocations.into_iter().map(|(_, inv)| inv).collect();

    let mut history: Vec<Value> = case
        .calls
        .iter()
        .map(|c| serde_json::to_value(c).unwrap_or(Value::Null))
        .collect();
    for (id, args) in state.take_leaked() {
        if let Some(entry) = history.get_mut(position(&id)) {
            leak_into(entry, args);
        }
    }
    Observed {
        results: observed,
        invocations,
        history: (variant != Some(Variant::NoHistory)).then_some(history),
        spill_artifacts: None,
    }
}

/// What one case produced.
struct Observed {
    results: Vec<ObservedResult>,
    invocations: Vec<Invocation>,
    /// `None` when the variant does not report the transcript.
    history: Option<Vec<Value>>,
    /// Feature `spill-lifecycle`: what the spill store held after each step.
    spill_artifacts: Option<Vec<Vec<String>>>,
}

/// What the handlers of one case share with the adapter.
#[derive(Default)]
struct RunState {
    /// `(tool_use_id, invocation)` in the order handlers were entered.
    invocations: Mutex<Vec<(String, Invocation)>>,
    /// `mutation-leaks`: `(tool_use_id, arguments as the handler left them)`.
    leaked: Mutex<Vec<(String, Value)>>,
    /// `runs-handler-before-validating`: outcomes of handlers started at dispatch, by id.
    eager: Mutex<HashMap<String, mpsc::Receiver<Outcome>>>,
    /// `accepts-duplicate-ids`: the id the harness was given → the id the model sent.
    aliases: Mutex<HashMap<String, String>>,
    /// `crashes-on-cycle`: a handler returned a value that contains itself.
    returned_cycle: std::sync::atomic::AtomicBool,
    /// When the case started (`elapsed-in-content`).
    started: Started,
    /// How many handlers are running now, so a cancelled turn's report waits for the handlers
    /// it told to stop (their `stopped` is recorded as they leave).
    running: (Mutex<usize>, std::sync::Condvar),
    /// `parses-arguments-twice`: the arguments a handler receives instead of the validated
    /// ones, by the id the harness gave the call.
    handed: Mutex<HashMap<String, Value>>,
}

/// A running handler, counted in [`RunState::running`] until it is dropped.
struct Running<'a>(&'a RunState);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let mut n = lock(&self.0.running.0);
        *n = n.saturating_sub(1);
        self.0.running.1.notify_all();
    }
}

/// An [`Instant`] with a default: when the case's state was made.
struct Started(std::time::Instant);

impl Default for Started {
    fn default() -> Self {
        Started(std::time::Instant::now())
    }
}

impl Started {
    fn elapsed(&self) -> Duration {
        self.0.elapsed()
    }
}

/// Where a case's tool runs in harness-ref. A handler that cannot block (its script never
/// sleeps) runs inline, on the thread that answers the turn: it returns at once, so its answer
/// — judged by when it returned, against the same deadline — is what an isolated run gives,
/// without two thread hand-offs per call. Everything that can take time runs isolated, as
/// harness-ref's default: a sleeping script (deadlines, parallel calls), a cancelled turn (the
/// cancellation is judged against when each handler finished), and
/// `runs-handler-before-validating` (its handlers wait for a thread started at dispatch).
fn execution(case: &WireCase, behavior: &Behavior, fault: Option<Fault>) -> Execution {
    fn sleeps(b: &Behavior) -> bool {
        match b {
            Behavior::Sleep { .. } => true,
            Behavior::MutateArgs { then, .. } => sleeps(then),
            // A stream that waits between its parts.
            Behavior::Return {
                output: protocol::Output::Stream(parts),
            } => parts
                .iter()
                .any(|p| matches!(p, protocol::StreamPart::SleepMs(_))),
            Behavior::Return { .. } | Behavior::Raise { .. } => false,
        }
    }
    let may_block = sleeps(behavior)
        || case.cancel_after_ms.is_some()
        || fault == Some(Fault::RunsHandlerBeforeValidating);
    if may_block {
        Execution::Isolated
    } else {
        Execution::Inline
    }
}

/// Answers a turn the user cancels `after` it reached the harness: a timer thread flips the
/// token while the handlers run. `drops-cancelled-results` then drops the cancelled calls'
/// results; `cancelled-as-empty-success` is applied where results are observed.
fn cancelled_turn(
    harness: &Harness,
    calls: Vec<harness_ref::Call>,
    after: Duration,
    fault: Option<Fault>,
) -> Vec<ToolResult> {
    let token = CancelToken::new();
    let timer = {
        let token = token.clone();
        std::thread::spawn(move || {
            std::thread::sleep(after);
            token.cancel();
        })
    };
    let results = harness.handle_cancellable_batch(calls, &token);
    // The turn is over; the user's cancel (if it has not come yet) changes nothing now.
    let _ = timer.join();
    if fault == Some(Fault::DropsCancelledResults) {
        return results
            .into_iter()
            .filter(|r| r.code() != Some(ErrorCode::Cancelled))
            .collect();
    }
    results
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl RunState {
    /// Records a handler run under the id the harness gave it; the invocation carries the id
    /// the model sent.
    fn record(&self, tool: &str, id: &str, args: &Value) {
        let sent = lock(&self.aliases)
            .get(id)
            .cloned()
            .unwrap_or_else(|| id.to_owned());
        lock(&self.invocations).push((
            id.to_owned(),
            Invocation {
                tool: tool.to_owned(),
                tool_use_id: Some(Value::from(sent)),
                args: args.clone(),
                stopped: false,
            },
        ));
    }

    /// Counts a handler in until the guard drops.
    fn enter(&self) -> Running<'_> {
        *lock(&self.running.0) += 1;
        Running(self)
    }

    /// Waits until no handler runs, at most `limit`.
    fn wait_idle(&self, limit: Duration) {
        let guard = lock(&self.running.0);
        let _ = self.running.1.wait_timeout_while(guard, limit, |n| *n > 0);
    }

    /// Marks the latest run under this id as one that saw the cancellation and stopped.
    fn mark_stopped(&self, id: &str) {
        if let Some((_, inv)) = lock(&self.invocations)
            .iter_mut()
            .rev()
            .find(|(run, _)| run == id)
        {
            inv.stopped = true;
        }
    }

    fn take_invocations(&self) -> Vec<(String, Invocation)> {
        std::mem::take(&mut *lock(&self.invocations))
    }

    fn take_leaked(&self) -> Vec<(String, Value)> {
        std::mem::take(&mut *lock(&self.leaked))
    }
}

/// The handler registered for a case's tool: records the call, performs the script.
fn scripted_handler(
    tool: String,
    script: Arc<Script>,
    state: Arc<RunState>,
    fault: Option<Fault>,
    variant: Option<Variant>,
) -> impl Fn(Value, &CallContext<'_>) -> Result<ToolOutput, ToolError> + Send + Sync + 'static {
    move |mut args: Value, ctx: &CallContext<'_>| {
        let id = ctx.tool_use_id();
        let eager = lock(&state.eager).remove(id);
        if let Some(rx) = eager {
            // Started at dispatch, before validation: its invocation is recorded already.
            let outcome = rx.recv().unwrap_or_else(|_| {
                Outcome::Raised(RaiseKind::Internal, "the handler thread ended early".into())
            });
            return into_tool_output(outcome, fault, variant);
        }
        // `parses-arguments-twice`: the handler reads the text again, with another parser.
        if let Some(other) = lock(&state.handed).remove(id) {
            args = other;
        }
        // Feature `pause`: data the user gave for this call when it paused is set into the
        // handler's own arguments on entry (PROTOCOL.md 4k).
        if let (Some(Value::Object(data)), Value::Object(own)) = (ctx.user_data(), &mut args) {
            for (key, value) in data {
                own.insert(key.clone(), value.clone());
            }
        }
        let entry = args.clone();
        let _running = state.enter();
        state.record(&tool, id, &entry);
        // Sleeps wake early when the turn is cancelled, and the handler stops there (its
        // remaining steps are instant); `uninterruptible-handlers` never looks.
        let mut stopped = false;
        let mut sleep = |d: Duration| {
            if stopped {
                return;
            }
            if variant == Some(Variant::UninterruptibleHandlers) {
                std::thread::sleep(d);
            } else {
                stopped = ctx.sleep(d);
            }
        };
        let mut outcome = script.perform_with(&mut args, &mut sleep);
        if stopped {
            state.mark_stopped(id);
        }
        if let Outcome::NonJsonIn(_, at) = &outcome {
            if at.iter().any(|(_, kind)| *kind == NonJson::Cycle) {
                state
                    .returned_cycle
                    .store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        // `retries-any-failure` runs every failed handler again; `retries-transport-failures`
        // one that failed in transport, whose effect may have happened.
        let retried = match fault {
            Some(Fault::RetriesAnyFailure) => matches!(outcome, Outcome::Raised(..)),
            Some(Fault::RetriesTransportFailures) => {
                matches!(outcome, Outcome::Raised(RaiseKind::Transport, _))
            }
            _ => false,
        };
        if retried {
            let mut again = entry.clone();
            state.record(&tool, id, &again);
            outcome = script.perform(&mut again);
        }
        match fault {
            Some(Fault::MutationLeaks) if args != entry => {
                lock(&state.leaked).push((id.to_owned(), args));
            }
            Some(Fault::ShallowCopiesArguments) => {
                // Top-level fields were copied; everything nested is shared with the transcript.
                let mut shared = entry.clone();
                for (pointer, value) in script.mutations() {
                    if pointer.matches('/').count() >= 2 {
                        let _ = script::set_pointer(&mut shared, &pointer, value);
                    }
                }
                if shared != entry {
                    lock(&state.leaked).push((id.to_owned(), shared));
                }
            }
            _ => {}
        }
        into_tool_output(outcome, fault, variant)
    }
}

fn into_tool_output(
    outcome: Outcome,
    fault: Option<Fault>,
    variant: Option<Variant>,
) -> Result<ToolOutput, ToolError> {
    match outcome {
        // `skips-falsy-output-validation`: `if (result.structuredContent) validate(...)` — a
        // falsy value is passed on as its text, unchecked.
        Outcome::Json(value)
            if fault == Some(Fault::SkipsFalsyOutputValidation) && is_falsy(&value) =>
        {
            Ok(ToolOutput::Text(value.to_string()))
        }
        // `validates-error-results`: the refusal's payload is checked against the output
        // schema too, and fails it.
        Outcome::Raised(RaiseKind::Domain, message)
            if fault == Some(Fault::ValidatesErrorResults) =>
        {
            Ok(ToolOutput::json(
                serde_json::json!({ "isError": true, "error": message }),
            ))
        }
        // `pretty-json`, `python-json`: harness-ref's own output check, then the variant's
        // JSON text; a value the check refuses goes to harness-ref as is, which answers
        // `invalid_tool_output`.
        Outcome::Json(value)
            if matches!(variant, Some(Variant::PrettyJson | Variant::PythonJson)) =>
        {
            let limits = harness_ref::OutputLimits::default();
            match harness_ref::output::to_json(ToolValue::from(value.clone()), &limits) {
                Ok(checked) if variant == Some(Variant::PrettyJson) => {
                    Ok(ToolOutput::Text(json_text::pretty(&checked)))
                }
                Ok(checked) => Ok(ToolOutput::Text(json_text::python(&checked))),
                Err(_) => Ok(ToolOutput::json(value)),
            }
        }
        // Text read through a "universal newlines" decoder.
        Outcome::Text(text) if fault == Some(Fault::NormalizesLineEndings) => {
            Ok(ToolOutput::Text(text.replace("\r\n", "\n")))
        }
        Outcome::Text(text) => Ok(ToolOutput::Text(text.to_string())),
        Outcome::Json(value) => Ok(ToolOutput::json(value)),
        // JSON.stringify(NaN) and json.dumps-with-a-fallback both give `null`.
        Outcome::NonFinite(_) if fault == Some(Fault::NanAsNull) => {
            Ok(ToolOutput::json(Value::Null))
        }
        Outcome::NonFinite(f) => Ok(ToolOutput::Json(ToolValue::Float(f))),
        Outcome::NonFiniteIn(value, _) if fault == Some(Fault::NanAsNull) => {
            Ok(ToolOutput::json(value))
        }
        Outcome::NonFiniteIn(value, at) => {
            let mut tree = ToolValue::from(value);
            for (pointer, f) in at {
                place(&mut tree, &pointer, ToolValue::Float(f))
                    .map_err(|e| ToolError::internal(format!("`non_finite_in`: {e}")))?;
            }
            Ok(ToolOutput::Json(tree))
        }
        Outcome::NonJsonIn(value, at) => {
            let mut tree = ToolValue::from(value);
            for (pointer, kind) in at {
                place(&mut tree, &pointer, not_json(kind, fault, variant))
                    .map_err(|e| ToolError::internal(format!("`non_json`: {e}")))?;
            }
            Ok(ToolOutput::Json(tree))
        }
        Outcome::Blocks(blocks) => blocks::blocks_output(&blocks, fault)
            .and_then(|out| blocks::refuse_non_text_in(out, variant)),
        Outcome::McpResult(result) => blocks::mcp_output(&result, fault)
            .and_then(|out| blocks::refuse_non_text_in(out, variant)),
        Outcome::Stream(pieces) => Ok(ToolOutput::Chunks(Box::new(stream_chunks(pieces)))),
        Outcome::Raised(RaiseKind::Domain, message) => Err(ToolError::refused(message)),
        Outcome::Raised(RaiseKind::Transport, message) => Err(ToolError::unavailable(message)),
        Outcome::Raised(RaiseKind::Internal, message) => Err(ToolError::internal(message)),
    }
}

/// A `stream` output as harness-ref reads it: each wait happens when the harness asks for the
/// part after it, so the harness sees every part at the time the case scripts.
fn stream_chunks(pieces: Arc<[script::Piece]>) -> impl Iterator<Item = String> + Send {
    (0..pieces.len()).filter_map(move |i| match &pieces[i] {
        script::Piece::Text(text) => Some(text.to_string()),
        script::Piece::Sleep(d) => {
            std::thread::sleep(*d);
            None
        }
    })
}

/// A timeout whose content keeps the output a stream wrote before the deadline: harness-ref
/// puts it above the message, which is one line (a bare timeout is that line alone).
fn keeps_partial_output(result: &ToolResult) -> bool {
    result.code() == Some(ErrorCode::Timeout) && result.content().contains('\n')
}

/// What JavaScript's `if (value)` and Python's `if value:` treat as false.
fn is_falsy(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(_) | Value::Object(_) => false,
    }
}

/// A `non_json` value as a Rust handler holds it: harness-ref's [`NotJson`] (which it refuses
/// as `invalid_tool_output`), or, for the variants that encode what JSON cannot hold, what
/// their encoder turns it into (`converts-non-json` correctly, the broken ones not).
fn not_json(kind: NonJson, fault: Option<Fault>, variant: Option<Variant>) -> ToolValue {
    let set = || {
        NonJson::SET_MEMBERS
            .iter()
            .map(|&n| ToolValue::Int(n))
            .collect()
    };
    if variant == Some(Variant::ConvertsNonJson) {
        // A correct conversion: everything the value held can be read back.
        match kind {
            NonJson::Set => return ToolValue::Array(set()),
            NonJson::Bytes => return ToolValue::String("AP9B".into()), // base64 of 00 FF 41
            NonJson::Date => return ToolValue::String(NonJson::DATE_RFC3339.into()),
            NonJson::Cycle => return ToolValue::String("[Circular]".into()),
            _ => {}
        }
    }
    match (fault, kind) {
        // `json.dumps(value, default=str)`: whatever the encoder cannot take becomes its
        // `str()` (a cycle still raises "Circular reference detected").
        (Some(Fault::StringifiesNonJson), NonJson::Set) => ToolValue::String("{1, 2, 3}".into()),
        (Some(Fault::StringifiesNonJson), NonJson::Bytes) => {
            ToolValue::String("b'\\x00\\xffA'".into())
        }
        (Some(Fault::StringifiesNonJson), NonJson::Date) => {
            ToolValue::String("2024-01-02 03:04:05+00:00".into())
        }
        (Some(Fault::StringifiesNonJson), NonJson::Opaque) => {
            ToolValue::String("<Handle object at 0x7f3a2c1e9d50>".into())
        }
        // `JSON.stringify` with a cycle-safe replacer: a Set and a class instance have no
        // enumerable properties, a Uint8Array is an object of indices, a Date has `toJSON`, and
        // the replacer writes a cycle as a marker.
        (Some(Fault::EncodesLikeJsonStringify), NonJson::Set | NonJson::Opaque) => {
            ToolValue::Object(Vec::new())
        }
        (Some(Fault::EncodesLikeJsonStringify), NonJson::Bytes) => ToolValue::Object(
            NonJson::BYTES
                .iter()
                .enumerate()
                .map(|(i, &b)| (i.to_string(), ToolValue::UInt(u64::from(b))))
                .collect(),
        ),
        (Some(Fault::EncodesLikeJsonStringify), NonJson::Date) => {
            ToolValue::String("2024-01-02T03:04:05.000Z".into())
        }
        (Some(Fault::EncodesLikeJsonStringify), NonJson::Cycle) => {
            ToolValue::String("[Circular]".into())
        }
        (_, NonJson::Cycle) => ToolValue::NotJson(NotJson::Cycle { to: String::new() }),
        (_, NonJson::Set) => ToolValue::NotJson(NotJson::Set(set())),
        (_, NonJson::Bytes) => ToolValue::NotJson(NotJson::Bytes(NonJson::BYTES.to_vec())),
        (_, NonJson::Date) => ToolValue::NotJson(NotJson::Date(NonJson::DATE_RFC3339.into())),
        (_, _) => ToolValue::NotJson(NotJson::Opaque("Handle".into())),
    }
}

/// Puts `v` at the RFC 6901 `pointer` inside `tree` (adding or replacing; the parent must exist).
fn place(tree: &mut ToolValue, pointer: &str, v: ToolValue) -> Result<(), String> {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        *tree = v;
        return Ok(());
    };
    let key = last.replace("~1", "/").replace("~0", "~");
    let mut cur = tree;
    for part in parent.split('/').skip(1) {
        let part = part.replace("~1", "/").replace("~0", "~");
        cur = match cur {
            ToolValue::Object(pairs) => pairs
                .iter_mut()
                .find(|(k, _)| *k == part)
                .map(|(_, v)| v)
                .ok_or_else(|| format!("no value at {parent:?}"))?,
            ToolValue::Array(items) => part
                .parse::<usize>()
                .ok()
                .and_then(|i| items.get_mut(i))
                .ok_or_else(|| format!("no value at {parent:?}"))?,
            _ => return Err(format!("no value at {parent:?}")),
        };
    }
    match cur {
        ToolValue::Object(pairs) => match pairs.iter_mut().find(|(k, _)| *k == key) {
            Some((_, old)) => *old = v,
            None => pairs.push((key, v)),
        },
        ToolValue::Array(items) => match key.parse::<usize>() {
            Ok(i) if i < items.len() => items[i] = v,
            Ok(i) if i == items.len() => items.push(v),
            _ => return Err(format!("no array index {key:?} at {parent:?}")),
        },
        _ => return Err(format!("{parent:?} is neither an object nor an array")),
    }
    Ok(())
}

/// `runs-handler-before-validating`: every call that names a tool with object arguments and a
/// usable id has its handler started at once, on its own thread, before the harness validates
/// anything; the harness's handler then just waits for that outcome. Calls the harness refuses
/// still ran.
fn dispatch_eagerly(
    peeked: &[Peeked],
    harness: &Harness,
    scripts: &HashMap<String, Arc<Script>>,
    state: &Arc<RunState>,
) {
    let mut seen = HashSet::new();
    for p in peeked {
        let (Some(id), Some(name), Some(args)) = (&p.id, &p.name, &p.args) else {
            continue;
        };
        if id.is_empty() || !args.is_object() || !p.tool_use || !seen.insert(id.clone()) {
            continue;
        }
        let (Some(script), Some(_)) = (scripts.get(name), harness.registry().get(name)) else {
            continue;
        };
        state.record(name, id, args);
        let (tx, rx) = mpsc::channel();
        let script = Arc::clone(script);
        let mut args = args.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("eager:{name}"))
            .spawn(move || {
                let _ = tx.send(script.perform(&mut args));
            });
        if spawned.is_ok() {
            lock(&state.eager).insert(id.clone(), rx);
        }
    }
}

/// A lenient look at a call: what a harness reading it would find, if anything.
#[derive(Debug, Default, Clone)]
struct Peeked {
    id: Option<String>,
    name: Option<String>,
    args: Option<Value>,
    /// False when the block says it is something other than a `tool_use`.
    tool_use: bool,
    /// Whether the block carries arguments at all (`input`, `arguments` or `arguments_text`),
    /// readable or not.
    has_args: bool,
}

impl Peeked {
    fn of(call: &protocol::Call) -> Peeked {
        let block = match call {
            protocol::Call::Block(map) => Some(map.clone()),
            protocol::Call::Raw(raw) => match serde_json::from_str(raw) {
                Ok(Value::Object(map)) => Some(map),
                _ => None,
            },
        };
        let Some(block) = block else {
            return Peeked::default();
        };
        let args = match (
            block.get("input"),
            block.get("arguments"),
            block.get("arguments_text"),
        ) {
            (Some(input), None, None) => Some(input.clone()),
            (None, Some(Value::String(text)), None) | (None, None, Some(Value::String(text))) => {
                serde_json::from_str(text).ok()
            }
            (None, Some(other), None) => Some(other.clone()),
            _ => None,
        };
        Peeked {
            id: block.get("id").and_then(Value::as_str).map(str::to_owned),
            name: block.get("name").and_then(Value::as_str).map(str::to_owned),
            args,
            tool_use: block.get("type").is_none_or(|t| t == "tool_use"),
            has_args: ["input", "arguments", "arguments_text"]
                .iter()
                .any(|k| block.contains_key(*k)),
        }
    }

    /// The call as the harness reads it once `edit` is applied.
    fn edited(&self, edit: &Edit) -> Peeked {
        Peeked {
            id: edit.id.clone().or_else(|| self.id.clone()),
            name: edit.name.clone().or_else(|| self.name.clone()),
            args: edit.args.clone().or_else(|| self.args.clone()),
            tool_use: self.tool_use,
            has_args: self.has_args || edit.args.is_some(),
        }
    }
}

/// How a variant changes a call before the harness reads it (all `None` for the reference).
#[derive(Debug, Default)]
struct Edit {
    id: Option<String>,
    name: Option<String>,
    args: Option<Value>,
    /// `parses-arguments-twice`: what the handler receives in place of the validated `args`.
    handed: Option<Value>,
}

impl Edit {
    fn is_empty(&self) -> bool {
        self.id.is_none() && self.name.is_none() && self.args.is_none()
    }
}

/// For each call, whether it is the first of two or more calls with its (usable) id.
fn first_of_reused_ids(peeked: &[Peeked]) -> Vec<bool> {
    let usable = |p: &Peeked| p.id.clone().filter(|id| !id.is_empty());
    let mut count: HashMap<String, usize> = HashMap::new();
    for id in peeked.iter().filter_map(usable) {
        *count.entry(id).or_default() += 1;
    }
    let mut seen = HashSet::new();
    peeked
        .iter()
        .map(|p| {
            usable(p).is_some_and(|id| count.get(&id).is_some_and(|&n| n > 1) && seen.insert(id))
        })
        .collect()
}

/// A tool name none of the case's tools has.
fn unregistered_name(tools: &[protocol::ToolDef]) -> String {
    let mut name = "no-such-tool".to_owned();
    while tools.iter().any(|t| t.name == name) {
        name.push('~');
    }
    name
}

/// The edits a variant makes to the calls of a turn.
fn edit_calls(case: &WireCase, peeked: &[Peeked], fault: Option<Fault>) -> Vec<Edit> {
    let all_ids: HashSet<&str> = peeked.iter().filter_map(|p| p.id.as_deref()).collect();
    let mut seen = HashSet::new();
    let mut edits = Vec::with_capacity(peeked.len());
    for (i, (call, peek)) in case.calls.iter().zip(peeked).enumerate() {
        let mut edit = Edit::default();
        match fault {
            Some(
                Fault::CoercesTypes
                | Fault::DropsUnknownFields
                | Fault::NullsAsAbsent
                | Fault::RepairsScalarStrings
                | Fault::RepairsStringsTheSchemaAccepts
                | Fault::FoldsPropertyNames,
            ) => {
                edit.args = rewrite_args(peek, &case.tools, fault);
            }
            Some(Fault::ParsesArgumentsLeniently)
                if !peek.args.as_ref().is_some_and(Value::is_object) =>
            {
                edit.args = call.arguments_text().and_then(rewrite::lenient_arguments);
            }
            Some(Fault::ParsesArgumentsTwice) => {
                let readings = call.arguments_text().and_then(rewrite::duplicate_readings);
                if let Some((first, last)) = readings {
                    edit.args = Some(first);
                    edit.handed = Some(last);
                }
            }
            Some(Fault::FoldsToolNames) => {
                edit.name = peek.name.as_deref().and_then(|name| {
                    rewrite::fold_tool_name(name, case.tools.iter().map(|t| t.name.as_str()))
                });
            }
            Some(Fault::AcceptsDuplicateIds) => {
                if let Some(id) = peek.id.as_deref().filter(|id| !id.is_empty()) {
                    if !seen.insert(id) {
                        // A harness that keys calls by position: give the repeat a private id.
                        let mut private = format!("{id}#{i}");
                        while all_ids.contains(private.as_str()) {
                            private.push('#');
                        }
                        edit.id = Some(private);
                    }
                }
            }
            _ => {}
        }
        edits.push(edit);
    }
    edits
}

/// The call as harness-ref receives it: a structured block as a JSON value, arguments text as
/// an OpenAI-style `arguments` string, a raw call as bytes; with the variant's edit applied.
fn to_harness_call(call: &protocol::Call, edit: &Edit) -> harness_ref::Call {
    let block = match call {
        protocol::Call::Raw(raw) => {
            if edit.is_empty() {
                return harness_ref::Call::Bytes(raw.clone().into_bytes());
            }
            match serde_json::from_str::<Map<String, Value>>(raw) {
                Ok(block) => block,
                Err(_) => return harness_ref::Call::Bytes(raw.clone().into_bytes()),
            }
        }
        protocol::Call::Block(map) if map.contains_key("arguments_text") => map
            .iter()
            .map(|(key, value)| {
                let key = if key == "arguments_text" {
                    "arguments"
                } else {
                    key
                };
                (key.to_owned(), value.clone())
            })
            .collect(),
        protocol::Call::Block(_) => match call.tool_use_block() {
            Some(Value::Object(block)) => block,
            _ => Map::new(),
        },
    };
    let mut block = block;
    if let Some(id) = &edit.id {
        block.insert("id".into(), Value::from(id.as_str()));
    }
    if let Some(name) = &edit.name {
        block.insert("name".into(), Value::from(name.as_str()));
    }
    if let Some(args) = &edit.args {
        if block.contains_key("input") {
            block.insert("input".into(), args.clone());
        } else {
            block.insert("arguments".into(), Value::String(args.to_string()));
        }
    }
    match call {
        protocol::Call::Raw(_) => {
            harness_ref::Call::Bytes(Value::Object(block).to_string().into_bytes())
        }
        protocol::Call::Block(_) => harness_ref::Call::Value(Value::Object(block)),
    }
}

/// The arguments a rewriting variant passes on, when it changed them.
fn rewrite_args(peek: &Peeked, tools: &[protocol::ToolDef], fault: Option<Fault>) -> Option<Value> {
    let rewrite: fn(&mut Value, &Value) = match fault {
        // `repairs-scalar-strings`: harness-ref's repair, plus the coercion of scalars.
        Some(Fault::CoercesTypes | Fault::RepairsScalarStrings) => rewrite::coerce,
        Some(Fault::RepairsStringsTheSchemaAccepts) => rewrite::decode_json_strings,
        Some(Fault::DropsUnknownFields) => rewrite::strip_unknown,
        Some(Fault::NullsAsAbsent) => rewrite::drop_nulls,
        Some(Fault::FoldsPropertyNames) => rewrite::fold_property_names,
        _ => return None,
    };
    let tool = tools.iter().find(|t| Some(&t.name) == peek.name.as_ref())?;
    let original = peek.args.as_ref().filter(|a| a.is_object())?;
    let mut args = original.clone();
    rewrite(&mut args, &tool.input_schema);
    (args != *original).then_some(args)
}

/// `runs-unvalidated-repairs`: the decoded arguments of a call whose repair does not make it
/// valid (`None` when nothing in it is double-encoded, or when the repair validates).
fn failed_repair(peek: &Peeked, tools: &[protocol::ToolDef]) -> Option<Value> {
    let tool = tools.iter().find(|t| Some(&t.name) == peek.name.as_ref())?;
    let args = peek.args.as_ref().filter(|a| a.is_object())?;
    let schema =
        harness_ref::InputSchema::compile(&tool.input_schema, UnknownFields::Reject).ok()?;
    let (decoded, _) = harness_ref::repair::decode(args, &schema.violations(args))?;
    (!schema.is_valid(&decoded)).then_some(decoded)
}

/// `mutation-leaks`: the transcript's entry for a call now holds the handler's arguments.
fn leak_into(entry: &mut Value, args: Value) {
    let Value::Object(map) = entry else { return };
    if map.contains_key("input") {
        map.insert("input".into(), args);
    } else if map.contains_key("arguments_text") {
        map.insert("arguments_text".into(), Value::String(args.to_string()));
    }
}

fn observe_result(result: &ToolResult) -> ObservedResult {
    ObservedResult {
        tool_use_id: result.tool_use_id().map_or(Value::Null, Value::from),
        is_error: result.is_error(),
        content: result.content().to_owned(),
        code: result.code_str().map(str::to_owned),
        retryable: Some(result.retryable()),
        native: Some(result.to_block()),
        truncation: None,
        // A spill's artifact, which the embedder reads back through `ToolResult::artifact`.
        artifact: result.artifact().map(|a| protocol::Artifact {
            id: a.id.clone(),
            text: a.text.clone(),
        }),
        structured: None,
        repaired: Vec::new(),
        blocks: (!result.parts().is_empty())
            .then(|| result.parts().iter().map(blocks::block_of).collect()),
        note_nonce: None,
        wrapper_nonce: None,
    }
}

/// The secret `wraps-results-with-nonce` derives its nonce from (never shown to tools).
const WRAPPER_KEY: u64 = 0x7e57_ab1e_5eed_0001;

/// A wrapper as the hello declares it (`wrapper`): its markers, `{nonce}` for the nonce, and
/// the escapes it applies to copies of them.
fn wrapper_declaration(w: harness_ref::wrap::ResultWrapper) -> protocol::WrapperDeclaration {
    let (open, close) = match w {
        harness_ref::wrap::ResultWrapper::Escaped => w.markers(),
        harness_ref::wrap::ResultWrapper::Nonce { .. } => (
            "<tool_output nonce=\"{nonce}\">\n".into(),
            "\n</tool_output nonce=\"{nonce}\">".into(),
        ),
    };
    protocol::WrapperDeclaration {
        open: open.into_owned(),
        close: close.into_owned(),
        escapes: w
            .escapes()
            .iter()
            .map(|(from, to)| protocol::Escape {
                from: (*from).to_owned(),
                to: (*to).to_owned(),
            })
            .collect(),
    }
}

/// harness-ref's note as the hello declares it (`cap.note`): its form, `{...}` standing for
/// where the cut was made (`from the middle`, `at the end`) and for the remedy, and the escapes harness-ref
/// applies to copies of it in an output ([`harness_ref::cap::NOTE_ESCAPES`]).
fn reference_note() -> NoteDeclaration {
    NoteDeclaration {
        form: Some(
            "[truncated: {omitted} of {total} {unit} omitted {...} ({omitted_lines} of {total_lines} lines); {...}]"
                .to_owned(),
        ),
        escapes: harness_ref::cap::NOTE_ESCAPES
            .iter()
            .map(|(from, to)| protocol::Escape {
                from: (*from).to_owned(),
                to: (*to).to_owned(),
            })
            .collect(),
        outside: false,
    }
}

/// What the result-side faults may need besides the result.
struct Context<'a> {
    /// The cap the case asked for.
    intended: &'a CapConfig,
    /// The cap harness-ref was given.
    harness_cap: &'a CapConfig,
    /// harness-ref's private diagnostics for the turn.
    diagnostics: &'a [harness_ref::Diagnostic],
    /// The input schema of the tool the call named, if any.
    schema: Option<&'a Value>,
    /// The call's arguments as the harness read them, if any.
    args: Option<&'a Value>,
}

/// Applies the result-side faults to one observed result.
fn perturb_result(
    o: &mut ObservedResult,
    result: &ToolResult,
    fault: Option<Fault>,
    cx: &Context<'_>,
) {
    let Some(fault) = fault else { return };
    let code = result.code();
    match fault {
        Fault::SplitsCodePoint if cuts_itself(cx.intended) => {
            o.content = perturb::split_code_point(result.content(), cx.intended);
        }
        Fault::NoteOutsideCap if cuts_itself(cx.intended) => {
            o.content = perturb::note_outside_cap(result.content(), cx.intended);
        }
        Fault::CapsInQuadraticTime if cuts_itself(cx.intended) => {
            o.content = perturb::cap_in_quadratic_time(result.content(), cx.intended);
        }
        // `repairs-silently`: the repair note harness-ref put before the output is dropped.
        Fault::RepairsSilently if code.is_none() => {
            let note = cx
                .schema
                .zip(cx.args)
                .and_then(|(schema, args)| {
                    let schema =
                        harness_ref::InputSchema::compile(schema, UnknownFields::Reject).ok()?;
                    harness_ref::repair::repair(&schema, args)
                })
                .map(|(_, pointers)| format!("{}\n", harness_ref::repair::note(&pointers)));
            if let Some(rest) = note.and_then(|n| o.content.strip_prefix(&n).map(str::to_owned)) {
                o.content = rest;
            }
        }
        Fault::OmitsNote => {
            if let Some(truncation) = result.truncation() {
                o.content = perturb::strip_note(result.content(), truncation);
            }
        }
        Fault::MiscountsOmittedLines => {
            if let Some(truncation) = result.truncation() {
                let wrong = harness_ref::Truncation {
                    omitted_lines: truncation.omitted_lines * 2 + 1,
                    ..*truncation
                };
                // The wrong number can be a digit longer: the note drops a word to make room,
                // so the fault is the number alone, not a note over the cap.
                let note = wrong.note().replacen(" again", "", 1);
                o.content = result.content().replacen(&truncation.note(), &note, 1);
            }
        }
        Fault::MissesTheLastLinesInItsCount => {
            if let Some(truncation) = result.truncation() {
                let content = result.content();
                let is_head_tail = truncation.strategy == cap::Strategy::HeadTail;
                // The kept tail ends where the output ends; its last 32 bytes are the output's
                // when it holds that many (chars or bytes: at least 32 bytes either way).
                if is_head_tail && truncation.tail_size >= 32 {
                    let mut start = content.len() - 32;
                    while !content.is_char_boundary(start) {
                        start += 1;
                    }
                    let missed = content[start..].matches('\n').count() as u64;
                    let wrong = harness_ref::Truncation {
                        original_lines: truncation.original_lines.saturating_sub(missed),
                        omitted_lines: truncation.omitted_lines.saturating_sub(missed),
                        ..*truncation
                    };
                    // Fewer digits at most: the wrong note is never longer than the right one.
                    o.content = content.replacen(&truncation.note(), &wrong.note(), 1);
                }
            }
        }
        Fault::CutsErrorsHeadOnly
            if matches!(
                code,
                Some(ErrorCode::ToolRefused | ErrorCode::ToolUnavailable)
            ) =>
        {
            if let (Some(_), Some(error)) = (result.truncation(), result.error()) {
                let head =
                    perturb::head_units(&error.message, cx.intended.limit as u64, cx.intended.unit);
                o.content = head.to_owned();
            }
        }
        Fault::TrustsNoteInOutput => {
            if let Some(truncation) = result.truncation() {
                let head =
                    perturb::head_units(result.content(), truncation.head_size, truncation.unit);
                if head.contains("[truncated") {
                    o.content = perturb::strip_note(result.content(), truncation);
                }
            }
        }
        Fault::RejectsAsSuccess if code == Some(ErrorCode::OutputTooLarge) => {
            o.is_error = false;
            o.code = None;
            o.retryable = Some(false);
        }
        Fault::SpillPreviewOverCap => {
            if let (Some(a), Some(t)) = (result.artifact(), result.truncation()) {
                let head = perturb::head_units(&a.text, cx.intended.limit as u64, t.unit);
                let note = harness_ref::Truncation {
                    head_size: harness_ref::cap::measure(head, t.unit) as u64,
                    ..*t
                }
                .note();
                o.content = format!("{head}\n{note}");
            }
        }
        Fault::SpillsCutArtifact => {
            if let Some(a) = &mut o.artifact {
                a.text = result.content().to_owned();
            }
        }
        Fault::LeaksInternalError if code == Some(ErrorCode::InternalError) => {
            let detail = cx.diagnostics.iter().find(|d| {
                d.code == ErrorCode::InternalError
                    && d.tool_use_id.as_deref() == result.tool_use_id()
            });
            if let Some(d) = detail {
                let leaked = format!("{}\n{}", result.content(), d.detail);
                o.content = cap::cap(&leaked, cx.harness_cap).content.into_owned();
            }
        }
        Fault::DumpsSchema if code == Some(ErrorCode::InvalidArguments) => {
            if let Some(schema) = cx.schema {
                let dumped = format!("{}\nschema: {schema}", result.content());
                o.content = cap::cap(&dumped, cx.harness_cap).content.into_owned();
            }
        }
        Fault::FirstViolationOnly if code == Some(ErrorCode::InvalidArguments) => {
            o.content = perturb::first_violation_only(result.content(), result.violations());
        }
        Fault::ErrorAsSuccess => o.is_error = false,
        Fault::GenericTimeoutMessage if code == Some(ErrorCode::Timeout) => {
            const GENERIC: &str = "the tool call failed; it may succeed if retried";
            // A stream's partial output stays; only the words that said it timed out change.
            o.content = match result.content().rsplit_once('\n') {
                Some((kept, _message)) if keeps_partial_output(result) => {
                    format!("{kept}\n{GENERIC}")
                }
                _ => GENERIC.to_owned(),
            };
        }
        // The output that came before the deadline, as if it were the whole answer.
        Fault::PartialOutputAsSuccess if keeps_partial_output(result) => {
            if let Some((kept, _message)) = result.content().rsplit_once('\n') {
                o.content = kept.to_owned();
            }
            o.is_error = false;
            o.code = None;
            o.retryable = Some(false);
        }
        Fault::InternalRetryable if code == Some(ErrorCode::InternalError) => {
            o.retryable = Some(true);
        }
        Fault::LosesId => o.tool_use_id = Value::Null,
        _ => {}
    }
}

/// What a legitimate variant's rewrite of a result may need besides the result.
struct VariantContext<'a> {
    /// The cap the variant applies.
    cap: &'a CapConfig,
    /// The call as the harness read it.
    call: Option<&'a Peeked>,
    /// Whether the call is the first of several with its id (`refuses-every-duplicate-id`).
    first_of_reused: bool,
    /// The case's tools.
    tools: &'a [protocol::ToolDef],
    /// The registered tool names, in the harness's order.
    tool_names: &'a [String],
    /// The deadline handlers run under.
    deadline: Duration,
}

impl VariantContext<'_> {
    /// The call's id, when it is a usable one (a non-empty string in a `tool_use` block).
    fn usable_call(&self) -> Option<&Peeked> {
        self.call
            .filter(|c| c.tool_use && c.id.as_deref().is_some_and(|id| !id.is_empty()))
    }

    /// For a call to a tool the case defines whose arguments are not an object: the tool and
    /// the arguments (`None`: the block has none). Arguments text that is not JSON is not this.
    fn non_object_arguments(&self) -> Option<(&protocol::ToolDef, Option<&Value>)> {
        let call = self.usable_call()?;
        let tool = self
            .tools
            .iter()
            .find(|t| Some(&t.name) == call.name.as_ref())?;
        match (&call.args, call.has_args) {
            (Some(args), _) if !args.is_object() => Some((tool, Some(args))),
            (None, false) => Some((tool, None)),
            _ => None,
        }
    }

    /// The call's name, when it is a string of whitespace only (or empty) that names no tool.
    fn blank_name(&self) -> Option<&str> {
        let name = self.usable_call()?.name.as_deref()?;
        (name.trim().is_empty() && !self.tool_names.iter().any(|t| t == name)).then_some(name)
    }
}

/// Applies a legitimate variant's design to one observed result.
fn reshape_result(
    o: &mut ObservedResult,
    result: &ToolResult,
    variant: Variant,
    cx: &VariantContext<'_>,
) {
    let capped = |text: &str| cap::cap(text, cx.cap).content.into_owned();
    let code = result.code();
    if keeps_partial_output(result) {
        // A timeout that keeps a stream's partial output: the variants that word messages
        // their own way keep harness-ref's here (a message of another length would not fit
        // beside the kept output); `timeout-note-first` and the note variants rearrange it.
        reshape_partial_output(o, result, variant, cx);
        return;
    }
    match variant {
        Variant::FoldsMalformedCall if code == Some(ErrorCode::MalformedCall) => {
            o.code = Some(ErrorCode::InvalidArguments.code().to_owned());
        }
        Variant::NonObjectAsInvalidArguments if code == Some(ErrorCode::MalformedCall) => {
            if let Some((tool, args)) = cx.non_object_arguments() {
                o.code = Some(ErrorCode::InvalidArguments.code().to_owned());
                o.content = capped(&reword::non_object_arguments(
                    &tool.name,
                    &tool.input_schema,
                    args,
                ));
            }
        }
        Variant::EmptyNameAsUnknownTool if code == Some(ErrorCode::MalformedCall) => {
            if let Some(name) = cx.blank_name() {
                o.code = Some(ErrorCode::UnknownTool.code().to_owned());
                o.content = capped(&reword::unknown_tool(name, cx.tool_names));
            }
        }
        Variant::BlankNameAsMalformedCall
            if code == Some(ErrorCode::UnknownTool) && cx.blank_name().is_some() =>
        {
            o.code = Some(ErrorCode::MalformedCall.code().to_owned());
            o.content = capped(&reword::blank_name());
        }
        Variant::RewordedMessages => {
            let facts = reword::Facts {
                tool: cx.call.and_then(|c| c.name.as_deref()),
                tools: cx.tool_names,
                deadline: cx.deadline,
            };
            if let Some(text) = reword::reworded(result, &facts) {
                o.content = capped(&text);
            }
        }
        Variant::PythonStyleMessages => {
            if let Some(text) =
                reword::python_style(result, cx.call.and_then(|c| c.name.as_deref()))
            {
                o.content = capped(&text);
            }
        }
        Variant::UnknownToolWithoutList if code == Some(ErrorCode::UnknownTool) => {
            if let Some(name) = cx.call.and_then(|c| c.name.as_deref()) {
                o.content = capped(&reword::unknown_tool_unlisted(name));
            }
        }
        Variant::CodePrefixedMessages => {
            if let Some(text) = reword::code_prefixed(result) {
                o.content = capped(&text);
            }
        }
        Variant::NoRemedies => {
            if let Some(text) = reword::without_remedy(result) {
                o.content = capped(&text);
            }
        }
        Variant::NoteAfterTail
        | Variant::NoteBeforeHead
        | Variant::GroupedNote
        | Variant::InlineNote => {
            o.content = renote::renote(result.content(), result.truncation(), note_style(variant));
        }
        Variant::NonceInNote => {
            o.content = renote::with_nonce(result.content(), result.truncation());
            o.note_nonce = Some(renote::nonce().to_owned());
        }
        Variant::NoteBesideContent => {
            if let Some(t) = result.truncation().filter(|t| t.artifact.is_none()) {
                o.content = perturb::strip_note(result.content(), t);
                o.truncation = Some(protocol::TruncationMeta {
                    unit: Some(to_wire_unit(t.unit)),
                    total: Some(t.original_size),
                    omitted: Some(t.omitted_size),
                    direction: Some(
                        match t.strategy {
                            cap::Strategy::HeadTail | cap::Strategy::Reject => "middle",
                            cap::Strategy::HeadOnly | cap::Strategy::Spill => "end",
                        }
                        .to_owned(),
                    ),
                    ..protocol::TruncationMeta::default()
                });
            }
        }
        Variant::RefusesEveryDuplicateId if cx.first_of_reused => {
            o.is_error = true;
            o.code = Some(ErrorCode::DuplicateCallId.code().to_owned());
            o.retryable = Some(ErrorCode::DuplicateCallId.retryable());
            let id = o.tool_use_id.as_str().unwrap_or_default().to_owned();
            o.content = capped(&reword::reused_id(&id));
        }
        Variant::NoCodes => o.code = None,
        Variant::NoRetryability => o.retryable = None,
        _ => {}
    }
}

/// [`reshape_result`] for a timeout that keeps a stream's partial output (`kept`, then the
/// message on the last line).
fn reshape_partial_output(
    o: &mut ObservedResult,
    result: &ToolResult,
    variant: Variant,
    cx: &VariantContext<'_>,
) {
    let Some((kept, message)) = result.content().rsplit_once('\n') else {
        return;
    };
    match variant {
        // The message first, then the output (the same length).
        Variant::TimeoutNoteFirst => {
            let moved = format!("{message}\n{kept}");
            if cap::measure(&moved, cx.cap.unit) <= cx.cap.limit {
                o.content = moved;
            }
        }
        Variant::NoteAfterTail
        | Variant::NoteBeforeHead
        | Variant::GroupedNote
        | Variant::InlineNote => {
            let renoted = renote::renote(kept, result.truncation(), note_style(variant));
            o.content = format!("{renoted}\n{message}");
        }
        Variant::NoCodes => o.code = None,
        Variant::NoRetryability => o.retryable = None,
        _ => {}
    }
}

/// How a note variant (`note-after-tail`, `note-before-head`, `grouped-note`, `inline-note`)
/// places and words harness-ref's note.
fn note_style(variant: Variant) -> renote::NoteStyle {
    match variant {
        Variant::NoteAfterTail => renote::NoteStyle::AfterTail,
        Variant::NoteBeforeHead => renote::NoteStyle::BeforeHead,
        Variant::GroupedNote => renote::NoteStyle::Grouped,
        _ => renote::NoteStyle::Inline,
    }
}

/// Keeps `native` (the `tool_result` block) in step with a perturbed result.
fn sync_native(o: &mut ObservedResult) {
    if let Some(Value::Object(block)) = &mut o.native {
        block.insert("tool_use_id".into(), o.tool_use_id.clone());
        block.insert("content".into(), Value::from(o.content.as_str()));
        block.insert("is_error".into(), Value::from(o.is_error));
    }
}

/// `fixed-deadline`'s deadline, whatever a case asks.
const FIXED_DEADLINE: Duration = Duration::from_millis(1000);

/// `fixed-char-cap`'s cap, whatever a case asks.
fn fixed_char_cap() -> CapConfig {
    CapConfig::new(16 * 1024, harness_ref::Unit::Chars)
}

/// The cap this harness applies to a case: the one the case asks for, harness-ref's defaults
/// filling the gaps; a legitimate variant's own split, or its fixed cap.
fn cap_config(case: &WireCase, variant: Option<Variant>) -> Result<CapConfig, String> {
    let config = match variant {
        Some(Variant::FixedCharCap) => fixed_char_cap(),
        _ => requested_cap(case)?,
    };
    Ok(match variant {
        Some(Variant::HeadHeavySplit) => config.with_head_share(0.8),
        Some(Variant::TailHeavySplit) => config.with_head_share(0.2),
        Some(Variant::HeadOnlyCap) => config.with_strategy(harness_ref::Strategy::HeadOnly),
        _ => config,
    })
}

/// The room left in the model's context window, when the case gives it (feature
/// `context-cap`; the runner sends it exact, in the cap's unit).
fn remaining_context(case: &WireCase) -> Result<Option<usize>, String> {
    match case
        .config
        .cap
        .as_ref()
        .and_then(|c| c.remaining.as_deref())
    {
        None => Ok(None),
        Some(&protocol::Size::Exact(n)) => usize::try_from(n)
            .map(Some)
            .map_err(|_| format!("remaining context {n} is too large")),
        Some(size) => Err(format!(
            "the runner sends sizes exact; got a remaining context of {size:?}"
        )),
    }
}

/// The cap a context-aware harness applies: the smaller of its cap and the room left in the
/// context (`context-headroom` keeps half of that room free for the model's answer).
fn within_context(cap: CapConfig, remaining: Option<usize>, variant: Option<Variant>) -> CapConfig {
    match (remaining, variant) {
        (None, _) => cap,
        (Some(r), Some(Variant::ContextHeadroom)) => cap.within_context(r / 2),
        (Some(r), _) => cap.within_context(r),
    }
}

/// The cap the case asks for, harness-ref's defaults filling the gaps.
fn requested_cap(case: &WireCase) -> Result<CapConfig, String> {
    let defaults = HarnessConfig::default().cap;
    let Some(request) = &case.config.cap else {
        return Ok(defaults);
    };
    let limit = match request.limit {
        Some(limit) => {
            usize::try_from(limit).map_err(|_| format!("cap limit {limit} is too large"))?
        }
        None => defaults.limit,
    };
    Ok(CapConfig {
        limit,
        unit: request.unit.map_or(defaults.unit, from_wire_unit),
        strategy: request
            .strategy
            .map_or(defaults.strategy, from_wire_strategy),
        ..defaults
    })
}

/// The cap harness-ref itself is given: the one asked for, unless the variant's fault is in
/// how it caps.
fn harness_cap(intended: CapConfig, fault: Option<Fault>) -> CapConfig {
    match fault {
        Some(Fault::CapsHeadOnly) if intended.strategy == harness_ref::Strategy::HeadTail => {
            intended.with_strategy(harness_ref::Strategy::HeadOnly)
        }
        // One line short: what counting `\n`s gives for an output whose last line has none.
        Some(Fault::CountsNewlinesAsLines) if intended.unit == harness_ref::Unit::Lines => {
            CapConfig {
                limit: intended.limit.saturating_add(1),
                ..intended
            }
        }
        Some(Fault::CountsTokensAsChars) => match intended.unit {
            harness_ref::Unit::Tokens(e) => CapConfig {
                unit: harness_ref::Unit::Tokens(harness_ref::TokenEstimate {
                    of: harness_ref::Counted::Chars,
                    ..e
                }),
                ..intended
            },
            _ => intended,
        },
        Some(Fault::NotesTokenCutsInBytes) => match intended.unit {
            harness_ref::Unit::Tokens(e) => CapConfig {
                unit: e.counted(),
                limit: e.counted_limit(intended.limit),
                ..intended
            },
            _ => intended,
        },
        Some(Fault::CountsCharsForBytes) if intended.unit == harness_ref::Unit::Bytes => {
            CapConfig {
                unit: harness_ref::Unit::Chars,
                ..intended
            }
        }
        // These variants cut the full output themselves, sloppily (where the strategy cuts:
        // reject and spill are left to harness-ref, so each variant is its one fault)…
        Some(Fault::SplitsCodePoint | Fault::NoteOutsideCap | Fault::CapsInQuadraticTime)
            if cuts_itself(&intended) =>
        {
            CapConfig {
                limit: usize::MAX,
                ..intended
            }
        }
        // …or not at all.
        Some(Fault::NoCap | Fault::HasNoCap) => CapConfig {
            limit: usize::MAX,
            ..intended
        },
        _ => intended,
    }
}

/// Whether a tool of the case returns content blocks.
fn returns_blocks(case: &WireCase) -> bool {
    case.tools.iter().any(|t| {
        matches!(
            &t.behavior,
            Behavior::Return {
                output: protocol::Output::ContentBlocks(_)
            }
        )
    })
}

/// Whether `result` makes a variant that loses whole turns raise out of the dispatcher.
fn crashes_on(fault: Fault, result: &ToolResult) -> bool {
    match fault {
        Fault::UnknownToolCrash => result.code() == Some(ErrorCode::UnknownTool),
        Fault::CrashesOnInvalidArguments => result.code() == Some(ErrorCode::InvalidArguments),
        Fault::CrashesOnLargeOutput => {
            result.truncation().is_some() || result.code() == Some(ErrorCode::OutputTooLarge)
        }
        _ => false,
    }
}

/// Whether a variant that loses one call's answer loses `result`'s; `cut_off`: the result is
/// the answer to a call a length stop cut off.
fn drops(fault: Fault, result: &ToolResult, cut_off: bool) -> bool {
    let code = result.code();
    match fault {
        Fault::DropsMalformedCall => code == Some(ErrorCode::MalformedCall),
        Fault::DropsCutOffCall => cut_off,
        Fault::DropsFailedCalls => matches!(
            code,
            Some(ErrorCode::ToolRefused | ErrorCode::ToolUnavailable | ErrorCode::InternalError)
        ),
        Fault::DropsTimedOutCalls => code == Some(ErrorCode::Timeout),
        Fault::DropsRefusedCalls => matches!(
            code,
            Some(
                ErrorCode::SemanticViolation
                    | ErrorCode::PermissionDenied
                    | ErrorCode::BudgetExhausted
                    | ErrorCode::IdempotencyConflict
                    | ErrorCode::CommitRejected
            )
        ),
        Fault::DropsBlockResults => !result.parts().is_empty(),
        _ => false,
    }
}

/// Whether a variant that makes its own cut (`splits-code-point`, `note-outside-cap`) makes it
/// under this cap: the strategies that cut (head+tail, head-only).
fn cuts_itself(intended: &CapConfig) -> bool {
    matches!(
        intended.strategy,
        harness_ref::Strategy::HeadTail | harness_ref::Strategy::HeadOnly
    )
}

/// How this harness estimates tokens for a token cap: openai/codex's `ceil(bytes / 4)`.
const TOKEN_ESTIMATE: harness_ref::TokenEstimate = harness_ref::TokenEstimate::BYTES_OVER_4;

/// A token estimate as the hello declares it.
fn wire_estimator(e: harness_ref::TokenEstimate) -> protocol::TokenEstimator {
    protocol::TokenEstimator {
        of: to_wire_unit(e.counted()),
        divisor: u64::from(e.divisor),
    }
}

fn to_wire_unit(unit: harness_ref::Unit) -> protocol::Unit {
    match unit {
        harness_ref::Unit::Bytes => protocol::Unit::Bytes,
        harness_ref::Unit::Chars => protocol::Unit::Chars,
        harness_ref::Unit::Lines => protocol::Unit::Lines,
        harness_ref::Unit::Tokens(_) => protocol::Unit::Tokens,
    }
}

fn from_wire_unit(unit: protocol::Unit) -> harness_ref::Unit {
    match unit {
        protocol::Unit::Bytes => harness_ref::Unit::Bytes,
        protocol::Unit::Chars => harness_ref::Unit::Chars,
        protocol::Unit::Lines => harness_ref::Unit::Lines,
        protocol::Unit::Tokens => harness_ref::Unit::Tokens(TOKEN_ESTIMATE),
    }
}

fn from_wire_strategy(strategy: protocol::Strategy) -> harness_ref::Strategy {
    match strategy {
        protocol::Strategy::HeadTail => harness_ref::Strategy::HeadTail,
        protocol::Strategy::HeadOnly => harness_ref::Strategy::HeadOnly,
        protocol::Strategy::Reject => harness_ref::Strategy::Reject,
        protocol::Strategy::Spill => harness_ref::Strategy::Spill,
    }
}
