//! The private diagnostic channel: where details the model must not see go.
//!
//! An internal error's message, a panic's payload or a timed-out handler are facts an operator
//! needs and a model must never read (they can hold secrets, paths, stack traces). The harness
//! hands them to a [`DiagnosticSink`] the embedder supplies; the content only ever says that
//! something went wrong, with its code. No global state: each harness holds its own sink.

use std::fmt;
use std::sync::Mutex;

use crate::code::ErrorCode;
use crate::harness::Stage;

/// One private record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The call's id, when it could be read.
    pub tool_use_id: Option<String>,
    /// The tool, when known.
    pub tool: Option<String>,
    /// The code the call was answered with.
    pub code: ErrorCode,
    /// The stage that produced it.
    pub stage: Stage,
    /// The private detail (panic payload, internal error message, ...).
    pub detail: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{}] {} id={} tool={}: {}",
            self.code,
            self.stage.as_str(),
            self.tool_use_id.as_deref().unwrap_or("-"),
            self.tool.as_deref().unwrap_or("-"),
            self.detail
        )
    }
}

/// Receives private diagnostics. Must not block for long: it is called on the dispatch path
/// (and, for isolated handlers, possibly from their threads).
pub trait DiagnosticSink: Send + Sync {
    /// Records one diagnostic.
    fn record(&self, diagnostic: Diagnostic);
}

/// Discards everything (the default sink).
#[derive(Debug, Clone, Copy, Default)]
pub struct NullSink;

impl DiagnosticSink for NullSink {
    fn record(&self, _diagnostic: Diagnostic) {}
}

/// Keeps every diagnostic in memory, for tests and adapters that report them.
#[derive(Debug, Default)]
pub struct MemorySink {
    records: Mutex<Vec<Diagnostic>>,
}

impl MemorySink {
    /// An empty sink.
    pub fn new() -> Self {
        MemorySink::default()
    }

    /// A copy of everything recorded so far.
    pub fn records(&self) -> Vec<Diagnostic> {
        self.records
            .lock()
            .map(|r| r.clone())
            .unwrap_or_else(|p| p.into_inner().clone())
    }

    /// Removes and returns everything recorded so far.
    pub fn take(&self) -> Vec<Diagnostic> {
        match self.records.lock() {
            Ok(mut r) => std::mem::take(&mut *r),
            Err(p) => std::mem::take(&mut *p.into_inner()),
        }
    }
}

impl DiagnosticSink for MemorySink {
    fn record(&self, diagnostic: Diagnostic) {
        match self.records.lock() {
            Ok(mut r) => r.push(diagnostic),
            Err(p) => p.into_inner().push(diagnostic),
        }
    }
}
