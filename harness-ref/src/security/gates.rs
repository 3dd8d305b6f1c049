//! The gated entry point: syntax → semantics → authorization → idempotency → commit → budget →
//! effect, each a named stage with its own refusal code.
//!
//! [`SecureHarness`] wraps a [`Harness`]. The syntax gate is the plain harness's own stages
//! (parse, id, tool lookup, schema, the tool's semantic checks: `malformed_call`,
//! `unknown_tool`, `duplicate_call_id`, `invalid_arguments`); the effect gate is its run stage
//! (handler under deadline, output checks, cap). Between them, the call's tool policy
//! ([`ToolPolicy`]) and the caller ([`Caller`]) decide:
//!
//! | gate | refuses with | checks |
//! |---|---|---|
//! | semantics | `semantic_violation` | path confinement, bounds, the embedder's rules |
//! | authorization | `permission_denied` | a policy exists, principal, capability, target, authorizer, approval |
//! | idempotency | `idempotency_conflict` (or replays) | the key's stored outcome and its argument digest |
//! | commit | `commit_rejected` | prepare-first tools; the token's principal, tool, arguments, policy version, target, expiry |
//! | budget | `budget_exhausted` | the tenant's remaining budget covers the tool's cost |
//! | effect | the handler's outcome | — |
//!
//! A refused call has no effect: the handler is only reachable through the last gate. Every
//! call — refused, replayed, prepared or run — produces exactly one [`AuditEvent`].
//!
//! Calls are handled one at a time in call order (a [`Turn`] keeps a batch's ids to refuse
//! duplicates), so that budget charges, idempotency claims and commits happen in the order the
//! model asked; concurrent callers may share one `SecureHarness` from several threads.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;

use crate::code::ErrorCode;
use crate::envelope::ToolResult;
use crate::harness::{Admitted, Call, Harness};
use crate::messages;
use crate::schema::Violation;

use super::audit::{AuditEvent, AuditSink, Decision, NullAuditSink};
use super::clock::{Clock, SystemClock};
use super::confine::{path_violations, Resolver};
use super::context::{Approval, Caller};
use super::digest::{canonical_json, keyed_digest, mask, MASK};
use super::idempotency::{Claim, IdempotencyStore, Stored};
use super::policy::{bound_violations, derive_target, Effect, ToolPolicy};
use super::prepare::{fresh_key, Binding, CommitProblem, TokenStore};

/// The gates, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Gate {
    /// The plain harness's stages up to its semantic checks (shape: schema, id, tool name).
    Syntax,
    /// The policy's semantic rules: path confinement, bounds, embedder rules.
    Semantics,
    /// Principal, capability, target, approval.
    Authorization,
    /// Idempotency keys: replay or conflict.
    Idempotency,
    /// Prepare/commit verification.
    Commit,
    /// The tenant's budget.
    Budget,
    /// The handler (or, for a prepare, the preview).
    Effect,
}

impl Gate {
    /// Every gate, in order.
    pub const ALL: [Gate; 7] = [
        Gate::Syntax,
        Gate::Semantics,
        Gate::Authorization,
        Gate::Idempotency,
        Gate::Commit,
        Gate::Budget,
        Gate::Effect,
    ];

    /// The gate's name, e.g. `"authorization"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Gate::Syntax => "syntax",
            Gate::Semantics => "semantics",
            Gate::Authorization => "authorization",
            Gate::Idempotency => "idempotency",
            Gate::Commit => "commit",
            Gate::Budget => "budget",
            Gate::Effect => "effect",
        }
    }
}

/// How a call is meant: run it, preview it, or commit an earlier preview.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Mode {
    /// Run now (refused for prepare-first tools).
    #[default]
    Direct,
    /// Validate, authorize (approval aside) and check the budget; return a preview and a token.
    Prepare,
    /// Run, if the token matches this call exactly.
    Commit(String),
}

/// What the caller (not the model) says about one call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CallOptions {
    /// The caller's idempotency key, scoped to tenant and tool.
    pub idempotency_key: Option<String>,
    /// Direct, prepare or commit.
    pub mode: Mode,
}

impl CallOptions {
    /// Direct, no key.
    pub fn direct() -> CallOptions {
        CallOptions::default()
    }

    /// With an idempotency key.
    pub fn key(key: impl Into<String>) -> CallOptions {
        CallOptions {
            idempotency_key: Some(key.into()),
            mode: Mode::Direct,
        }
    }

    /// A prepare.
    pub fn prepare() -> CallOptions {
        CallOptions {
            idempotency_key: None,
            mode: Mode::Prepare,
        }
    }

    /// A commit of `token`.
    pub fn commit(token: impl Into<String>) -> CallOptions {
        CallOptions {
            idempotency_key: None,
            mode: Mode::Commit(token.into()),
        }
    }

    /// The same options with an idempotency key.
    pub fn with_key(mut self, key: impl Into<String>) -> CallOptions {
        self.idempotency_key = Some(key.into());
        self
    }
}

/// A custom authorization rule, consulted after the built-in checks pass.
pub trait Authorizer: Send + Sync {
    /// True to allow.
    fn authorize(&self, request: &AuthRequest<'_>) -> bool;
}

/// What an [`Authorizer`] decides on.
#[derive(Debug, Clone, Copy)]
pub struct AuthRequest<'a> {
    /// The caller.
    pub caller: &'a Caller,
    /// The tool.
    pub tool: &'a str,
    /// The capability the tool needs.
    pub capability: Option<&'a str>,
    /// The effect class.
    pub effect: Effect,
    /// The target derived from the arguments.
    pub target: Option<&'a str>,
    /// The validated arguments.
    pub arguments: &'a Value,
    /// The current policy version.
    pub policy_version: u64,
}

/// What a gated call produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The one result.
    pub result: ToolResult,
    /// What the gates decided.
    pub decision: Decision,
    /// For a prepare: the commit token (also in the preview text).
    pub token: Option<String>,
    /// The audit event's invocation id.
    pub invocation_id: String,
    /// The tool's contract version, when a registered tool was reached.
    pub contract_version: Option<String>,
}

/// A harness behind the security gates. See the module docs.
pub struct SecureHarness {
    harness: Harness,
    policies: HashMap<String, ToolPolicy>,
    resolver: Option<Arc<dyn Resolver>>,
    authorizer: Option<Arc<dyn Authorizer>>,
    audit: Arc<dyn AuditSink>,
    clock: Arc<dyn Clock>,
    policy_version: AtomicU64,
    budget: Option<u64>,
    spent: Mutex<HashMap<String, u64>>,
    token_ttl: Duration,
    key: Vec<u8>,
    tokens: TokenStore,
    idempotency: IdempotencyStore,
    invocations: AtomicU64,
}

impl fmt::Debug for SecureHarness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecureHarness")
            .field("harness", &self.harness)
            .field("policies", &self.policies)
            .field("policy_version", &self.policy_version)
            .field("budget", &self.budget)
            .field("token_ttl", &self.token_ttl)
            .finish_non_exhaustive()
    }
}

/// The default lifetime of a commit token.
pub const DEFAULT_TOKEN_TTL: Duration = Duration::from_secs(300);

/// The longest argument text a preview shows, in chars.
const PREVIEW_ARGS_MAX_CHARS: usize = 400;

impl SecureHarness {
    /// `harness` behind the gates: no policies (so every tool is refused until it gets one),
    /// policy version 1, no budget limit, no link resolver (lexical path checks only), system
    /// clock, audit events dropped, 300 s tokens, a fresh random digest key.
    pub fn new(harness: Harness) -> SecureHarness {
        let key = fresh_key();
        SecureHarness {
            harness,
            policies: HashMap::new(),
            resolver: None,
            authorizer: None,
            audit: Arc::new(NullAuditSink),
            clock: Arc::new(SystemClock),
            policy_version: AtomicU64::new(1),
            budget: None,
            spent: Mutex::new(HashMap::new()),
            token_ttl: DEFAULT_TOKEN_TTL,
            tokens: TokenStore::new(key.clone()),
            key,
            idempotency: IdempotencyStore::default(),
            invocations: AtomicU64::new(0),
        }
    }

    /// Declares `tool`'s policy. A tool without one is refused (`permission_denied`).
    pub fn policy(mut self, tool: impl Into<String>, policy: ToolPolicy) -> SecureHarness {
        self.policies.insert(tool.into(), policy);
        self
    }

    /// The file-system half of path confinement.
    pub fn resolver(mut self, resolver: Arc<dyn Resolver>) -> SecureHarness {
        self.resolver = Some(resolver);
        self
    }

    /// A custom authorization rule.
    pub fn authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> SecureHarness {
        self.authorizer = Some(authorizer);
        self
    }

    /// Where audit events go.
    pub fn audit(mut self, sink: Arc<dyn AuditSink>) -> SecureHarness {
        self.audit = sink;
        self
    }

    /// The clock (tokens, effect times).
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> SecureHarness {
        self.clock = clock;
        self
    }

    /// Each tenant's budget, in cost units, for this harness's lifetime.
    pub fn budget(mut self, units: u64) -> SecureHarness {
        self.budget = Some(units);
        self
    }

    /// How long a commit token lives.
    pub fn token_ttl(mut self, ttl: Duration) -> SecureHarness {
        self.token_ttl = ttl;
        self
    }

    /// The key for argument digests and tokens (default: random per harness). Give a stable
    /// one to correlate digests across restarts.
    pub fn digest_key(mut self, key: impl Into<Vec<u8>>) -> SecureHarness {
        self.key = key.into();
        self.tokens = TokenStore::new(self.key.clone());
        self
    }

    /// The initial policy version (default 1).
    pub fn with_policy_version(self, version: u64) -> SecureHarness {
        self.policy_version.store(version, Ordering::SeqCst);
        self
    }

    /// Changes the policy version: tokens prepared under another version stop committing.
    pub fn set_policy_version(&self, version: u64) {
        self.policy_version.store(version, Ordering::SeqCst);
    }

    /// The current policy version.
    pub fn policy_version(&self) -> u64 {
        self.policy_version.load(Ordering::SeqCst)
    }

    /// Units charged to `tenant` so far.
    pub fn spent(&self, tenant: &str) -> u64 {
        self.spent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(tenant)
            .copied()
            .unwrap_or(0)
    }

    /// The wrapped harness.
    pub fn harness(&self) -> &Harness {
        &self.harness
    }

    /// The argument digest this harness records for `args`.
    pub fn digest(&self, args: &Value) -> String {
        keyed_digest(&self.key, canonical_json(args).as_bytes())
    }

    /// Answers one call through every gate.
    pub fn handle(&self, caller: &Caller, call: impl Into<Call>, options: CallOptions) -> Outcome {
        self.gate(caller, call.into(), &options, None)
    }

    /// A turn: calls handled in order, a repeated id refused as in a batch.
    pub fn turn(&self) -> Turn<'_> {
        Turn {
            harness: self,
            seen: HashSet::new(),
        }
    }

    /// Answers a batch in call order (see [`Turn`]).
    pub fn handle_batch<I, C>(&self, caller: &Caller, calls: I) -> Vec<Outcome>
    where
        I: IntoIterator<Item = (C, CallOptions)>,
        C: Into<Call>,
    {
        let mut turn = self.turn();
        calls
            .into_iter()
            .map(|(call, options)| turn.handle(caller, call, options))
            .collect()
    }

    fn gate(
        &self,
        caller: &Caller,
        call: Call,
        options: &CallOptions,
        seen: Option<&mut HashSet<String>>,
    ) -> Outcome {
        let n = self.invocations.fetch_add(1, Ordering::SeqCst) + 1;
        let mut event = AuditEvent {
            invocation_id: format!("inv-{n}"),
            tool_use_id: None,
            tool: None,
            principal: caller.principal().to_string(),
            tenant: caller.tenant().to_string(),
            contract_version: None,
            argument_digest: None,
            masked_arguments: None,
            target: None,
            decision: Decision::Refused(Gate::Syntax),
            effect_started_ms: None,
            effect_ended_ms: None,
            result_class: None,
            truncated: false,
            charge: 0,
            idempotency_key: options.idempotency_key.clone(),
        };
        let mut token = None;
        let result = self.gates(caller, call, options, seen, &mut event, &mut token);
        event.result_class = result.code();
        event.truncated = result.truncation().is_some();
        event.tool_use_id = result.tool_use_id().map(str::to_string);
        let outcome = Outcome {
            result,
            decision: event.decision,
            token,
            invocation_id: event.invocation_id.clone(),
            contract_version: event.contract_version.clone(),
        };
        let sink = Arc::clone(&self.audit);
        // The sink is embedder code; its panic must not become ours.
        let _ = catch_unwind(AssertUnwindSafe(move || sink.record(event)));
        outcome
    }

    fn gates(
        &self,
        caller: &Caller,
        call: Call,
        options: &CallOptions,
        seen: Option<&mut HashSet<String>>,
        event: &mut AuditEvent,
        token_out: &mut Option<String>,
    ) -> ToolResult {
        // Gate: syntax (the plain harness's stages up to its semantic checks).
        let admitted = match self.harness.admit(call, seen) {
            Ok(admitted) => admitted,
            Err((result, tool)) => {
                let policy = tool.as_deref().and_then(|t| self.policies.get(t));
                event.contract_version = policy.map(|p| p.contract_version.clone());
                event.tool = tool.clone();
                return match (policy, tool) {
                    (Some(p), Some(t)) if !p.sensitive.is_empty() => {
                        self.masked_syntax_refusal(result, &t, p)
                    }
                    _ => result,
                };
            }
        };
        let id = admitted.id().to_string();
        let name = admitted.tool().name().to_string();
        event.tool = Some(name.clone());
        let refuse = |event: &mut AuditEvent, gate: Gate, r: ToolResult| {
            event.decision = Decision::Refused(gate);
            r
        };
        let Some(policy) = self.policies.get(&name) else {
            let r = self.harness.refusal(
                Some(id),
                ErrorCode::PermissionDenied,
                messages::permission_denied(&name),
                None,
                Some("no_policy".into()),
                Vec::new(),
            );
            return refuse(event, Gate::Authorization, r);
        };
        let args = admitted.args().clone();
        let digest = self.digest(&args);
        let target = derive_target(policy, &args);
        event.contract_version = Some(policy.contract_version.clone());
        event.argument_digest = Some(digest.clone());
        event.masked_arguments = Some(mask(&args, &policy.sensitive));
        event.target = target.clone();

        // Gate: semantics.
        let checked = catch_unwind(AssertUnwindSafe(|| {
            let mut v = path_violations(&args, &policy.paths, self.resolver.as_deref());
            v.extend(bound_violations(&args, &policy.bounds));
            for rule in &policy.rules {
                v.extend(rule(&args));
            }
            v
        }));
        let violations = match checked {
            Ok(v) => v,
            Err(_) => {
                let r = self.harness.refusal(
                    Some(id),
                    ErrorCode::InternalError,
                    messages::internal(Some(&name)),
                    None,
                    None,
                    Vec::new(),
                );
                return refuse(event, Gate::Semantics, r);
            }
        };
        if !violations.is_empty() {
            let violations = masked_violations(violations, policy);
            let r = self.harness.refusal(
                Some(id),
                ErrorCode::SemanticViolation,
                messages::semantic_violation(&name, &violations),
                Some(messages::semantic_violation_remedy(&name)),
                None,
                violations,
            );
            return refuse(event, Gate::Semantics, r);
        }

        // Gate: authorization.
        let version = self.policy_version();
        if let Some(reason) = self.authorization(
            caller,
            &name,
            policy,
            target.as_deref(),
            &args,
            options,
            version,
        ) {
            let (message, remedy) = if reason == "approval_required" {
                (
                    messages::approval_required(&name),
                    Some(messages::approval_required_remedy()),
                )
            } else {
                (messages::permission_denied(&name), None)
            };
            let r = self.harness.refusal(
                Some(id),
                ErrorCode::PermissionDenied,
                message,
                remedy,
                Some(reason.to_string()),
                Vec::new(),
            );
            return refuse(event, Gate::Authorization, r);
        }

        // Gate: idempotency (a prepare runs nothing, so it claims nothing).
        let mut guard = None;
        if let (Some(key), false) = (&options.idempotency_key, options.mode == Mode::Prepare) {
            match self.idempotency.claim(caller.tenant(), &name, key, &digest) {
                Claim::Replay(stored) => {
                    event.decision = Decision::Replayed;
                    return stored.replay(Some(id));
                }
                Claim::Conflict => {
                    let r = self.harness.refusal(
                        Some(id),
                        ErrorCode::IdempotencyConflict,
                        messages::idempotency_conflict(&name),
                        None,
                        None,
                        Vec::new(),
                    );
                    return refuse(event, Gate::Idempotency, r);
                }
                Claim::Run(g) => guard = Some(g),
            }
        }

        // Gate: commit.
        let binding = Binding {
            principal: caller.principal().to_string(),
            tenant: caller.tenant().to_string(),
            tool: name.clone(),
            digest: digest.clone(),
            policy_version: version,
            target: target.clone(),
        };
        let now = self.clock.now_ms();
        let problem = match &options.mode {
            Mode::Commit(token) => self.tokens.redeem(token, &binding, now).err(),
            Mode::Direct if policy.prepare_commit => Some(CommitProblem::NotPrepared),
            _ => None,
        };
        if let Some(problem) = problem {
            let remedy = if problem == CommitProblem::NotPrepared {
                Some(messages::prepare_required_remedy(&name))
            } else {
                None
            };
            let r = self.harness.refusal(
                Some(id),
                ErrorCode::CommitRejected,
                messages::commit_rejected(&name, problem.phrase()),
                remedy,
                Some(problem.reason().to_string()),
                Vec::new(),
            );
            return refuse(event, Gate::Commit, r);
        }

        // Gate: budget (a prepare checks, a run charges).
        if let Some(limit) = self.budget {
            let mut spent = self.spent.lock().unwrap_or_else(PoisonError::into_inner);
            let used = spent.get(caller.tenant()).copied().unwrap_or(0);
            if used.saturating_add(policy.cost) > limit {
                drop(spent);
                let r = self.harness.refusal(
                    Some(id),
                    ErrorCode::BudgetExhausted,
                    messages::budget_exhausted(&name),
                    None,
                    None,
                    Vec::new(),
                );
                return refuse(event, Gate::Budget, r);
            }
            if options.mode != Mode::Prepare {
                spent.insert(caller.tenant().to_string(), used + policy.cost);
                event.charge = policy.cost;
            }
        } else if options.mode != Mode::Prepare {
            // No limit, but still metered: `spent` agrees with the audit events' charges.
            let mut spent = self.spent.lock().unwrap_or_else(PoisonError::into_inner);
            let used = spent.entry(caller.tenant().to_string()).or_insert(0);
            *used = used.saturating_add(policy.cost);
            event.charge = policy.cost;
        }

        // Gate: effect.
        if options.mode == Mode::Prepare {
            let expires = now.saturating_add(self.token_ttl.as_millis() as u64);
            let token = self.tokens.issue(binding, now, expires);
            let shown = bounded_chars(
                &canonical_json(&mask(&args, &policy.sensitive)),
                PREVIEW_ARGS_MAX_CHARS,
            );
            let text = messages::preview(
                &name,
                policy.effect,
                target.as_deref(),
                &shown,
                &token,
                self.token_ttl.as_secs(),
            );
            event.decision = Decision::Prepared;
            *token_out = Some(token);
            return self.harness.answer(id, text);
        }
        event.decision = Decision::Allowed;
        event.effect_started_ms = Some(self.clock.now_ms());
        let result = self.run(admitted);
        event.effect_ended_ms = Some(self.clock.now_ms());
        if let Some(guard) = guard {
            // Transport failures mean the effect never happened: release the key for a retry.
            let stored =
                (result.code() != Some(ErrorCode::ToolUnavailable)).then(|| Stored::of(&result));
            guard.complete(stored);
        }
        result
    }

    fn run(&self, admitted: Admitted) -> ToolResult {
        self.harness.run_admitted(admitted)
    }

    /// The reason to refuse, if any (`approval_required` is told to the model; the others
    /// are not).
    #[allow(clippy::too_many_arguments)]
    fn authorization(
        &self,
        caller: &Caller,
        tool: &str,
        policy: &ToolPolicy,
        target: Option<&str>,
        args: &Value,
        options: &CallOptions,
        version: u64,
    ) -> Option<&'static str> {
        if caller.principal().is_empty() {
            return Some("unauthenticated");
        }
        if let Some(cap) = &policy.capability {
            if !caller.has(cap) {
                return Some("capability");
            }
        }
        if let Some(t) = target {
            if !caller.may_touch(t) {
                return Some("target");
            }
        }
        if let Some(authorizer) = &self.authorizer {
            let request = AuthRequest {
                caller,
                tool,
                capability: policy.capability.as_deref(),
                effect: policy.effect,
                target,
                arguments: args,
                policy_version: version,
            };
            let allowed = catch_unwind(AssertUnwindSafe(|| authorizer.authorize(&request)));
            if !matches!(allowed, Ok(true)) {
                return Some("authorizer");
            }
        }
        if policy.requires_approval
            && options.mode != Mode::Prepare
            && caller.approval_state() != Approval::Given
        {
            return Some("approval_required");
        }
        None
    }

    /// A syntax refusal rebuilt with sensitive arguments masked in its violations.
    fn masked_syntax_refusal(
        &self,
        result: ToolResult,
        tool: &str,
        policy: &ToolPolicy,
    ) -> ToolResult {
        let Some(info) = result.error() else {
            return result;
        };
        if info.code != ErrorCode::InvalidArguments
            || !info
                .violations
                .iter()
                .any(|v| touches_sensitive(&v.pointer, policy))
        {
            return result;
        }
        let violations = masked_violations(info.violations.clone(), policy);
        self.harness.refusal(
            result.tool_use_id().map(str::to_string),
            ErrorCode::InvalidArguments,
            messages::invalid_arguments(tool, &violations),
            Some(messages::invalid_arguments_remedy(tool)),
            info.reason.clone(),
            violations,
        )
    }
}

/// A batch in progress: calls handled in order; an id used twice is refused
/// (`duplicate_call_id`) as [`Harness::handle_batch`] does.
#[derive(Debug)]
pub struct Turn<'a> {
    harness: &'a SecureHarness,
    seen: HashSet<String>,
}

impl Turn<'_> {
    /// Answers the turn's next call.
    pub fn handle(
        &mut self,
        caller: &Caller,
        call: impl Into<Call>,
        options: CallOptions,
    ) -> Outcome {
        self.harness
            .gate(caller, call.into(), &options, Some(&mut self.seen))
    }
}

/// True when `pointer` is at, under or above a sensitive argument (an ancestor's received
/// value would show the sensitive one).
fn touches_sensitive(pointer: &str, policy: &ToolPolicy) -> bool {
    policy.is_sensitive(pointer)
        || policy
            .sensitive
            .iter()
            .any(|s| s.starts_with(&format!("{pointer}/")) || pointer.is_empty())
}

fn masked_violations(violations: Vec<Violation>, policy: &ToolPolicy) -> Vec<Violation> {
    violations
        .into_iter()
        .map(|mut v| {
            if touches_sensitive(&v.pointer, policy) && v.received != "nothing" {
                v.received = MASK.to_string();
            }
            v
        })
        .collect()
}

fn bounded_chars(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max).collect();
    format!("{head}… ({n} chars)")
}
