//! `harness-conformance`: the runner of the conformance suite for LLM agent harnesses.
//!
//! A harness sits between a model's `tool_use` and the `tool_result` it gets back; this crate
//! holds it to `conformance/SPEC.md` the way toml-test holds TOML decoders to theirs. The
//! pipeline is a chain of small modules, each with one job, so that every verdict can be
//! traced to the step that produced it:
//!
//! ```text
//! loader (embedded cases, strict) ─► select (--run/--skip) ─► needs (skip or run)
//!   ─► client (a Harness: in-process reference, or an adapter process via driver)
//!   ─► checks (expectations + universal checks) ─► verdict ─► baseline ─► report
//! ```
//!
//! Blame is explicit: FAIL is the harness's fault, ERROR the adapter's, BUG IN CASE the
//! suite's. All modules are pure except [`driver`] (processes and pipes), [`client`]
//! (which owns a driver) and [`snapshot::store`] (wording snapshot files); the binary does the
//! remaining I/O (files, terminal).

pub mod baseline;
pub mod case;
pub mod checks;
pub mod client;
pub mod driver;
pub mod generate;
pub mod loader;
pub mod matrix;
pub mod needs;
pub mod quote;
pub mod report;
pub mod runner;
pub mod select;
pub mod snapshot;
pub mod spec;
pub mod teaching;
pub mod verdict;
