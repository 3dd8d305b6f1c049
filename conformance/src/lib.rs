//! `harness-conformance-suite`: the conformance suite for LLM agent harnesses, as a library.
//!
//! A harness sits between a model's `tool_use` and the `tool_result` it gets back; this crate
//! holds it to `conformance/SPEC.md` the way toml-test holds TOML decoders to theirs. It is the
//! suite itself — the cases (embedded), the requirements, the checks and the verdicts — and
//! nothing else: no processes, no threads, no files, no terminal. The other crates of the
//! project build on it (`harness-conformance-driver` runs it against adapter processes,
//! `harness-conformance-report` renders its results, `harness-conformance-generate` generates
//! cases for it, `harness-conformance` is the command line).
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
//! Blame is explicit: FAIL is the harness's fault, ERROR the adapter's, BUG IN CASE the
//! suite's.

/// The suite's version (docs/versioning.md): which edition of the cases and of the rules for
/// reading them judged a harness. Written into every report and baseline, sent in `start`.
pub const SUITE_VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod baseline;
pub mod blame;
pub mod case;
pub mod checks;
pub mod coverage;
pub mod harness;
pub mod loader;
pub mod needs;
pub mod note;
pub mod quote;
pub mod run;
pub mod select;
pub mod spec;
pub mod verdict;
