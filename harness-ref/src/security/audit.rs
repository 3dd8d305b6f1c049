//! The audit trail: one event per call, to a sink the embedder supplies.
//!
//! An event says who called what under which contract, what the policy decided and at which
//! gate, when the effect started and ended, how it ended, whether the content was cut and what
//! it cost — and identifies the arguments by their keyed digest, with a masked copy. Raw
//! sensitive values never enter an event; neither do handler diagnostics (those go to the
//! private `DiagnosticSink`). Sinks are embedder code: a panicking sink is contained.

use std::fmt;
use std::sync::{Mutex, PoisonError};

use serde_json::Value;

use crate::code::ErrorCode;

use super::gates::Gate;

/// What the gates decided about a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Decision {
    /// Every gate passed; the effect ran.
    Allowed,
    /// A gate refused; nothing ran.
    Refused(Gate),
    /// A duplicate delivery: the first outcome was returned, nothing ran.
    Replayed,
    /// A prepare: a preview and token were returned, nothing ran.
    Prepared,
}

impl Decision {
    /// `allowed`, `refused:<gate>`, `replayed`, `prepared`.
    pub fn label(self) -> String {
        match self {
            Decision::Allowed => "allowed".into(),
            Decision::Refused(g) => format!("refused:{}", g.as_str()),
            Decision::Replayed => "replayed".into(),
            Decision::Prepared => "prepared".into(),
        }
    }
}

/// One call, as the audit trail records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEvent {
    /// Unique per harness: `inv-<n>`.
    pub invocation_id: String,
    /// The call's id, when readable.
    pub tool_use_id: Option<String>,
    /// The tool, when the call named a registered one.
    pub tool: Option<String>,
    /// The caller's principal.
    pub principal: String,
    /// The caller's tenant.
    pub tenant: String,
    /// The tool's contract version (`None` when no registered tool was reached).
    pub contract_version: Option<String>,
    /// Keyed SHA-256 of the canonical arguments (`None` when they were never read).
    pub argument_digest: Option<String>,
    /// The arguments with sensitive values replaced by `[redacted]`.
    pub masked_arguments: Option<Value>,
    /// The target derived from the arguments.
    pub target: Option<String>,
    /// What the gates decided.
    pub decision: Decision,
    /// Effect start, clock milliseconds (only when the effect ran).
    pub effect_started_ms: Option<u64>,
    /// Effect end, clock milliseconds (only when the effect ran).
    pub effect_ended_ms: Option<u64>,
    /// The result's code (`None` for success).
    pub result_class: Option<ErrorCode>,
    /// Whether the content was cut by the cap.
    pub truncated: bool,
    /// Budget units charged.
    pub charge: u64,
    /// The idempotency key the caller supplied, if any.
    pub idempotency_key: Option<String>,
}

impl fmt::Display for AuditEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} id={} tool={} principal={} tenant={} contract={} args={} decision={} class={} truncated={} charge={}",
            self.invocation_id,
            self.tool_use_id.as_deref().unwrap_or("-"),
            self.tool.as_deref().unwrap_or("-"),
            self.principal,
            self.tenant,
            self.contract_version.as_deref().unwrap_or("-"),
            self.argument_digest.as_deref().unwrap_or("-"),
            self.decision.label(),
            self.result_class.map_or("ok", ErrorCode::code),
            self.truncated,
            self.charge
        )
    }
}

/// Receives audit events; called once per call, after its result is built.
pub trait AuditSink: Send + Sync {
    /// Records one event.
    fn record(&self, event: AuditEvent);
}

/// Drops events (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct NullAuditSink;

impl AuditSink for NullAuditSink {
    fn record(&self, _event: AuditEvent) {}
}

/// Keeps events in memory, for tests and adapters.
#[derive(Debug, Default)]
pub struct MemoryAuditSink {
    events: Mutex<Vec<AuditEvent>>,
}

impl MemoryAuditSink {
    /// An empty sink.
    pub fn new() -> MemoryAuditSink {
        MemoryAuditSink::default()
    }

    /// Every event so far, oldest first.
    pub fn events(&self) -> Vec<AuditEvent> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Takes the events, leaving the sink empty.
    pub fn take(&self) -> Vec<AuditEvent> {
        std::mem::take(&mut *self.events.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl AuditSink for MemoryAuditSink {
    fn record(&self, event: AuditEvent) {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
    }
}
