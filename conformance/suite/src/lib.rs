//! `harness-conformance-suite`: the conformance suite for LLM agent harnesses, as a library.
//!
//! A harness sits between a model's `tool_use` and the `tool_result` it gets back. It must
//! validate the arguments against the tool's JSON Schema before anything runs, run the handler
//! only if they pass, and hand back exactly one result per call id, flagged when something
//! failed, with a teaching message, a stable code, no leaked internals, and never larger than
//! its cap. This crate holds a harness to `conformance/SPEC.md` the way toml-test holds TOML
//! decoders to theirs: it is the suite itself — the cases (embedded), the requirements, the
//! checks, the verdicts and the baselines — and nothing else. It starts no process, spawns no
//! thread, reads and writes no file and prints nothing, so a Rust harness can depend on it in
//! `[dev-dependencies]` without pulling in a command line, a thread pool or a renderer.
//!
//! # Gating a Rust harness in `cargo test`
//!
//! Implement [`gate::InProcessHarness`] — the Rust side of the adapter contract: a handshake
//! that declares the harness's capabilities honestly, and one case's turn (build the case's
//! tools in a fresh harness, give it all the calls as one turn, report what it returned and
//! what its handlers received) — and call [`gate::run`] from a test. Every case runs on the
//! test's thread through the same code the command line uses, and the baseline of known
//! failures works as the command line's `--baseline`: a listed case that fails as listed is
//! XFAIL, one that fails less or passes is STALE, and [`run::RunResult::failed`] is true on any
//! new failure, new skip or stale entry — exactly when the command line would exit non-zero. The scripted handlers of the cases are interpreted by
//! `harness_conformance_protocol::script`, so the glue is only the mapping onto the harness's
//! own types:
//!
//! ```no_run
//! use harness_conformance_protocol::script::{Outcome, Script};
//! use harness_conformance_protocol::{Hello, Invocation, ObservedResult, ReplyOutcome, Unit, WireCase};
//! use harness_conformance_suite::baseline::Baseline;
//! use harness_conformance_suite::gate::{self, Gate, InProcessHarness};
//!
//! struct MyHarness;
//!
//! impl InProcessHarness for MyHarness {
//!     fn hello(&mut self) -> Hello {
//!         serde_json::from_value(serde_json::json!({
//!             "protocol": 1,
//!             "implementation": {"name": "my-harness", "language": "rust", "version": "0.1.0"},
//!             "capabilities": {"cap": null, "keywords": ["type", "properties", "required"]}
//!         }))
//!         .unwrap()
//!     }
//!
//!     fn run(&mut self, case: &WireCase) -> ReplyOutcome {
//!         // Build `case.tools` in a fresh harness; each handler performs its script:
//!         for tool in &case.tools {
//!             let script = match Script::compile(&tool.behavior, Unit::Chars) {
//!                 Ok(s) => s,
//!                 Err(e) => return ReplyOutcome::Error(e),
//!             };
//!             let _handler = move |mut args: serde_json::Value| match script.perform(&mut args) {
//!                 Outcome::Text(text) => Ok(text.to_string()),
//!                 Outcome::Json(value) => Ok(value.to_string()),
//!                 Outcome::NonFinite(f) => Err(format!("not JSON: {f}")),
//!                 Outcome::NonFiniteIn(value, at) => Err(format!("not JSON: {value} {at:?}")),
//!                 Outcome::NonJsonIn(value, at) => Err(format!("not JSON: {value} {at:?}")),
//!                 Outcome::Blocks(blocks) => Err(format!("content blocks: {blocks:?}")),
//!                 Outcome::McpResult(result) => Err(format!("an MCP result: {result:?}")),
//!                 Outcome::Stream(parts) => Err(format!("a stream: {parts:?}")),
//!                 Outcome::Raised(kind, message) => Err(format!("{kind:?}: {message}")),
//!             };
//!             // … register `tool.name`, `tool.input_schema` and `_handler` with the harness …
//!         }
//!         // … hand the harness `case.calls` as one turn, then report:
//!         let results: Vec<ObservedResult> = Vec::new(); // one per result, in order
//!         let invocations: Vec<Invocation> = Vec::new(); // one per handler run
//!         ReplyOutcome::Observed { results, invocations, history: None, spill_artifacts: None }
//!     }
//! }
//!
//! #[test]
//! fn conformance() {
//!     let text = include_str!("conformance-baseline.json");
//!     let known = Baseline::parse(text, harness_conformance_suite::SUITE_VERSION).unwrap();
//!     let result = gate::run(&mut MyHarness, &Gate::with_baseline(known));
//!     assert!(!result.failed(), "{}", result.summary());
//! }
//! ```
//!
//! A complete, working harness of about seventy lines that gates itself this way, with its
//! baseline, is this crate's `tests/gate_example.rs`; harness-ref's own conformance test is
//! `tests/reference.rs`. [`baseline::from_run`] writes the baseline of today's failures.
//! What the command line adds: adapter processes for harnesses in other languages, per-case
//! timeouts (in-process, a hanging harness hangs its test), worker threads, and reports.
//!
//! # How a verdict is made
//!
//! The pipeline is a chain of small modules, each with one job, so that every verdict can be
//! traced to the step that produced it:
//!
//! ```text
//! loader (embedded cases, strict) ─► select (--run/--skip) ─► needs (skip or run)
//!   ─► run (one case through a `harness::Harness`) ─► checks (expectations + universal checks)
//!   ─► verdict ─► baseline
//! ```
//!
//! Blame is explicit: FAIL is the harness's fault, ERROR the adapter's (or the in-process
//! glue's), BUG IN CASE the suite's. [`harness::Harness`] is the one seam: the driver crate
//! implements it over adapter processes, [`gate`] over an [`gate::InProcessHarness`]; the
//! verdict does not depend on which.
//!
//! # Where the other jobs live
//!
//! `harness-conformance-driver` runs the suite against adapter processes on worker threads,
//! `harness-conformance-report` renders results (terminal, JSON, JUnit, Markdown, matrix,
//! wording snapshots), `harness-conformance-generate` generates and shrinks cases, and
//! `harness-conformance` is the command line over all of them. They depend on this crate, never
//! the other way round.

/// The suite's version (docs/versioning.md): which edition of the cases and of the rules for
/// reading them judged a harness. Written into every report and baseline, sent in `start`.
pub const SUITE_VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod audit;
pub mod baseline;
pub mod blame;
pub mod blocks;
pub mod case;
pub mod checks;
pub mod coverage;
pub mod forge;
pub mod gate;
pub mod harness;
pub mod loader;
pub mod needs;
pub mod note;
pub mod quote;
pub mod replay;
pub mod represent;
pub mod run;
pub mod select;
pub mod spec;
pub mod spill;
pub mod timing;
pub mod verdict;
pub mod wrap;
