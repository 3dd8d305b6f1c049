//! `harness-ref`: the reference tool-call harness.
//!
//! A model proposes a tool call; this crate proves the arguments, runs the handler only if they
//! pass, and answers with exactly one `tool_result` that the model can act on. It is the oracle
//! the conformance suite, the fuzzers and the wording snapshots are checked against, so it is
//! written to be boring in the right ways: a pure library (no I/O, no printing, no global
//! state; threads only to enforce deadlines), one entry point that cannot fail, and every
//! outcome expressed as data before it is expressed as prose.
//!
//! # The path of a call
//!
//! [`Harness::handle`] (one call) and [`Harness::handle_batch`] (one assistant turn) run the
//! same named stages ([`Stage`]):
//!
//! 1. **parse** — a [`Call`] is a parsed `serde_json::Value` or raw text/bytes;
//! 2. **correlate id** — read the `id` first, so every later failure still answers that id
//!    (a batch refuses a repeated id with `duplicate_call_id`, never dropping a call);
//! 3. **look up tool** — unknown names get `unknown_tool`, listing what exists;
//! 4. **validate** — the arguments against the schema compiled at registration, every
//!    violation at once, as data ([`Violation`]: pointer, expected, received);
//! 5. **semantic checks** — rules JSON Schema cannot express, same violation format;
//! 6. **run** — the handler gets its own copy of the arguments, under a deadline, inside
//!    `catch_unwind`;
//! 7. **check output** — NaN, ±inf, duplicate keys, nesting and size limits;
//! 8. **cap** — [`cap`] keeps head and tail within a byte or char limit, note included;
//! 9. **envelope** — a [`ToolResult`]: id, content, `is_error`, [`ErrorCode`], truncation.
//!
//! A stage either passes the call on or produces its result; there is no `Err` for the
//! caller to handle and no path that yields zero or two results.
//!
//! # Why this shape
//!
//! * **Errors are data first.** Each failure is one [`ErrorCode`] (a `#[non_exhaustive]`
//!   enum whose strings never change) plus structured detail ([`ErrorInfo`]); the sentence
//!   the model reads is composed from those in one module, so wording can improve without
//!   breaking anyone who routes on codes, and the snapshots pin the wording.
//! * **Closed by default.** An unknown field usually means the model guessed an API; running
//!   anyway silently drops intent. Object schemas that say nothing about extra fields are
//!   closed at registration ([`UnknownFields`]), per tool switchable.
//! * **No coercion.** `"3"` is not an integer and `true` is not a number: coercion makes one
//!   call succeed and teaches the model nothing.
//! * **Private details stay private.** Panics and internal errors reach the model as a
//!   generic sentence with the code; the detail goes to the embedder's [`DiagnosticSink`].
//! * **Deadlines are per tool, with two execution modes** ([`Execution`]): `Isolated`
//!   (default) runs the handler on a thread of its own (reused from call to call,
//!   [`HandlerThreads`]) and stops waiting at the deadline;
//!   `Inline` runs on the caller's thread for fast or cooperative handlers — no thread
//!   cost, the deadline is checked when the handler returns and can be polled through
//!   [`CallContext::expired`].
//! * **The cap is honest.** Limits count UTF-8 bytes or Unicode scalar values, the note is
//!   inside the limit, a code point is never split, and the in-memory and streaming forms
//!   ([`cap::cap`], [`cap::StreamCapper`]) give identical results.
//!
//! # Using it
//!
//! ```
//! use harness_ref::{Harness, HarnessConfig, Registry, Tool, ToolOutput, Execution};
//! use serde_json::json;
//!
//! let mut registry = Registry::new();
//! registry.register(
//!     Tool::new("set_count", "Set the counter.",
//!         json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
//!         |args: serde_json::Value, _ctx: &harness_ref::CallContext<'_>| {
//!             Ok(ToolOutput::text(format!("count is {}", args["n"])))
//!         })
//!     .execution(Execution::Inline),
//! ).unwrap();
//! let harness = Harness::new(registry, HarnessConfig::default());
//!
//! let bad = harness.handle(json!({"id": "toolu_01", "name": "set_count", "input": {"n": "3"}}));
//! assert!(bad.is_error());
//! assert_eq!(bad.code_str(), Some("invalid_arguments"));
//! assert_eq!(bad.tool_use_id(), Some("toolu_01"));
//! assert!(bad.content().contains(r#"/n: expected integer, got string "3""#));
//!
//! let good = harness.handle(r#"{"id": "toolu_02", "name": "set_count", "input": {"n": 3}}"#);
//! assert_eq!(good.content(), "count is 3");
//! assert_eq!(serde_json::to_value(&good).unwrap()["type"], "tool_result");
//! ```
//!
//! # Security gates
//!
//! A well-formed call can still be not allowed, not affordable or not safe to repeat.
//! [`security::SecureHarness`] wraps a `Harness` and puts named gates between validation and the
//! effect — syntax → semantics → authorization → idempotency → commit → budget → effect — with
//! a caller context, per-tool policies, workspace path confinement, idempotency keys,
//! prepare/commit tokens and one audit event per call (`docs/security.md`).
//!
//! `docs/harness-ref.md` documents the codes table, the unknown-fields policy, the cap's
//! note format, deadlines, the choice of `jsonschema` and the diagnostic channel.

mod block;
mod cancel;
pub mod cap;
mod code;
pub mod content;
mod diagnostics;
mod envelope;
mod harness;
mod messages;
pub mod output;
pub mod pause;
pub mod repair;
pub mod resume;
pub mod schema;
pub mod security;
pub mod spill;
mod threads;
mod tool;
mod unique_keys;
pub mod wrap;

pub use cancel::CancelToken;
pub use cap::{CapConfig, Counted, Strategy, TokenEstimate, Truncation, Unit};
pub use code::ErrorCode;
pub use content::{from_mcp_result, ImageLimit, Link, Part, ResourceBody};
pub use diagnostics::{Diagnostic, DiagnosticSink, MemorySink, NullSink};
pub use envelope::{Artifact, ErrorInfo, ToolResult};
pub use harness::{
    Call, CallRef, Harness, HarnessConfig, RegisteredTool, RegistrationError,
    RegistrationErrorKind, Registry, Stage,
};
pub use output::{OutputLimits, OutputProblem};
pub use pause::{Approvals, Decision};
pub use schema::{InputSchema, SchemaCache, SchemaError, UnknownFields, Violation};
pub use spill::{SpillBound, SpillStore};
pub use threads::HandlerThreads;
pub use tool::{
    CallContext, Execution, Handler, NotJson, SemanticCheck, Tool, ToolError, ToolErrorKind,
    ToolOutput, ToolValue,
};
