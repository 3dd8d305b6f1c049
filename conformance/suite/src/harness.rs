//! The seam between the suite and whatever runs its cases: the [`Harness`] trait, and the
//! [`AdapterError`] that blames a failure on the adapter (verdict ERROR) rather than on the
//! harness (FAIL).
//!
//! The trait lives here, in the pure suite, so that [`crate::run`] can turn one case into a
//! verdict without knowing whether the answer came from an adapter process (the driver crate's
//! `ProcessHarness`), a worker thread, or a Rust harness called in-process. Its error codes are
//! API: reports print them and users grep for them.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use harness_conformance_protocol::{Hello, Reply, WireCase};

/// What went wrong between the runner and an adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AdapterErrorKind {
    /// The adapter could not be started.
    Spawn,
    /// The handshake failed (bad hello, wrong version, no answer).
    Handshake,
    /// No answer before the deadline.
    Timeout,
    /// The adapter exited (or closed stdout) before answering.
    Exited,
    /// The answer is not a valid message.
    Garbage,
    /// The answer is a line longer than the limit.
    TooLong,
    /// The answer carries another `seq` or case id.
    WrongAnswer,
    /// Restarted too many times; the runner no longer tries.
    GaveUp,
    /// The adapter left a process running outside its process group when it answered (one
    /// that called `setsid`, or a double fork's orphan); the runner killed it.
    LeftProcess,
}

impl AdapterErrorKind {
    /// A stable code for reports.
    pub fn code(self) -> &'static str {
        match self {
            AdapterErrorKind::Spawn => "adapter_spawn",
            AdapterErrorKind::Handshake => "adapter_handshake",
            AdapterErrorKind::Timeout => "adapter_timeout",
            AdapterErrorKind::Exited => "adapter_exited",
            AdapterErrorKind::Garbage => "adapter_garbage",
            AdapterErrorKind::TooLong => "adapter_line_too_long",
            AdapterErrorKind::WrongAnswer => "adapter_wrong_answer",
            AdapterErrorKind::GaveUp => "adapter_gave_up",
            AdapterErrorKind::LeftProcess => "adapter_left_process",
        }
    }
}

/// A protocol failure, blamed on the adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterError {
    /// What kind of failure.
    pub kind: AdapterErrorKind,
    /// The account, with the offending bytes quoted.
    pub message: String,
}

impl fmt::Display for AdapterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.kind.code(), self.message)
    }
}

impl std::error::Error for AdapterError {}

/// Something that runs cases: an adapter process, the reference run in-process, or a Rust
/// harness through [`crate::gate`].
///
/// Not `Send` itself: the driver asks for `Box<dyn Harness + Send>` where a harness moves to a
/// worker thread, and a Rust harness gated in-process runs on the test's thread, so it need
/// not be.
pub trait Harness {
    /// The handshake's answer (the first call performs it; later calls return it).
    /// Shared, not copied: the hello is stored once per harness and every case reads the same
    /// one.
    fn hello(&mut self) -> Result<Arc<Hello>, AdapterError>;
    /// Runs one case (sizes resolved) and returns the adapter's reply, already checked to
    /// answer this case.
    fn run(&mut self, case: &WireCase, timeout: Duration) -> Result<Reply, AdapterError>;
    /// Stops the adapter (politely, then firmly).
    fn close(&mut self) {}
}
