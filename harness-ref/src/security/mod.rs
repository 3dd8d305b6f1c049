//! Tools as security interfaces: the gates a well-formed call still has to pass before it may
//! have an effect, and the records it leaves.
//!
//! The plain [`crate::Harness`] proves a call's *shape*. Seed 004's point is that shape is not
//! permission: a transfer can be a valid object and still exceed the caller's authority, a path
//! can be a valid string and still leave the workspace, a retried payment can be a valid call
//! and still charge twice. [`SecureHarness`] puts named gates between validation and the effect
//! — syntax → semantics → authorization → idempotency → commit → budget → effect — each
//! refusing with its own stable code and no effect, and writes one [`AuditEvent`] per call.
//!
//! - [`context`]: who calls ([`Caller`]: principal, tenant, capabilities, approval, targets);
//! - [`policy`]: what a tool declares ([`ToolPolicy`]: capability, [`Effect`], [`Target`],
//!   sensitive arguments, cost, approval, prepare/commit, path and [`Bounds`] rules);
//! - [`confine`]: workspace path confinement, lexical and through a [`Resolver`];
//! - [`gates`]: the pipeline ([`SecureHarness`], [`Gate`], [`CallOptions`], [`Outcome`]);
//! - `idempotency` (private) / [`prepare`]: duplicate deliveries and previewed commits;
//! - [`audit`], [`digest`], [`clock`]: records, argument digests and masking, injected time;
//! - `fs` (feature `fs`): [`confine::Resolver`] over a real directory, the crate's only I/O.
//!
//! `docs/security.md` is the user guide: codes, the order of the gates, what is not covered.

pub mod audit;
pub mod clock;
pub mod confine;
pub mod context;
pub mod digest;
#[cfg(any(feature = "fs", test))]
pub mod fs;
pub mod gates;
mod idempotency;
pub mod policy;
pub mod prepare;

pub use audit::{AuditEvent, AuditSink, Decision, MemoryAuditSink, NullAuditSink};
pub use clock::{Clock, ManualClock, SystemClock};
pub use confine::{normalize, MapResolver, PathProblem, Resolver, WorkspacePath};
pub use context::{Approval, Caller};
pub use gates::{
    AuthRequest, Authorizer, CallOptions, Gate, Mode, Outcome, SecureHarness, Turn,
    DEFAULT_TOKEN_TTL,
};
pub use policy::{Bounds, Effect, SemanticRule, Target, ToolPolicy};
pub use prepare::CommitProblem;
