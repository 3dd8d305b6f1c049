//! The `security_gates` target: a session of calls through [`SecureHarness`]'s gates, by
//! several callers, with idempotency keys, prepares and commits (of real, stale, foreign and
//! made-up tokens), a moving clock, policy-version bumps and a budget.
//!
//! The properties are seed 004's (`harness-ref/tests/security.rs` states them over a few fixed
//! calls; here over any sequence), checked after every call against a model the property keeps
//! itself:
//!
//! - a refused, replayed or prepared call has no effect: the handlers' run count grows by one
//!   exactly when the decision is `allowed`, and a refusal is an error result;
//! - exactly one audit event per call, agreeing with the outcome (decision, invocation id), with
//!   effect times only for a call that ran, and a charge only for one that ran;
//! - nothing is allowed or prepared for a caller that is unauthenticated, lacks the tool's
//!   capability or may not touch its target; nothing is allowed without approval where the
//!   policy asks for it;
//! - a path the gates let through normalises without `..`, is relative, and resolves inside the
//!   workspace through its links;
//! - a prepare-first tool runs only on a commit of a token prepared earlier by the same
//!   principal and tenant, for the same arguments, under the same policy version, within the
//!   token's lifetime, and each token runs at most once;
//! - an idempotency key (per tenant and tool) runs its effect at most once, and a replay
//!   follows an earlier run with that key;
//! - each tenant's spending is the sum of its audit events' charges, never above the budget;
//! - a sensitive argument's value never reaches a result's content or an audit event;
//! - every result's content is within the harness's cap.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use arbitrary::{Arbitrary, Unstructured};
use harness_ref::cap::{measure, CapConfig, Unit};
use harness_ref::security::{
    normalize, Approval, AuditSink, Bounds, CallOptions, Caller, Decision, Effect, ManualClock,
    MapResolver, MemoryAuditSink, SecureHarness, Target, ToolPolicy,
};
use harness_ref::{
    CallContext, Execution, Harness, HarnessConfig, Registry, SchemaCache, Tool, ToolOutput,
};
use serde_json::{json, Value};

use crate::bytes::{Reader, Writer};

/// The most calls one input makes.
pub const MAX_STEPS: usize = 8;

/// The tools a call can name: four registered (`write_file`, `transfer`, `read_note` with
/// policies; `unpoliced` without) and one unknown.
pub const TOOLS: [&str; 5] = ["write_file", "transfer", "read_note", "unpoliced", "nope"];

/// The callers a call can come from (see [`caller`]).
pub const CALLERS: usize = 5;

/// A sensitive value starts with this, so it cannot be mistaken for harness wording.
pub const PIN_PREFIX: &str = "PIN:";

/// How a call is meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModeChoice {
    /// Run now.
    Direct,
    /// Preview, for a token.
    Prepare,
    /// Commit the token of the `n`-th most recent prepare (0: the last), if there is one.
    CommitPrepared(u8),
    /// Commit a token no prepare issued.
    CommitMadeUp(String),
}

/// One call of the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Index into [`caller`]'s callers (mod [`CALLERS`]).
    pub caller: u8,
    /// Index into [`TOOLS`] (mod its length).
    pub tool: u8,
    /// `path` for `write_file`.
    pub path: String,
    /// `text` for `write_file` and `read_note`.
    pub text: String,
    /// `to` for `transfer`.
    pub to: String,
    /// `amount` for `transfer` (the schema wants an integer ≥ 1).
    pub amount: i32,
    /// `pin` for `transfer` (sensitive), sent as [`PIN_PREFIX`] + this.
    pub pin: Option<String>,
    /// Direct, prepare or commit.
    pub mode: ModeChoice,
    /// An idempotency key `k0`…`k3`.
    pub key: Option<u8>,
    /// Quarter-seconds the clock moves before the call.
    pub advance: u8,
    /// Bump the policy version before the call (outstanding tokens go stale).
    pub bump_policy: bool,
}

/// A whole session: the harness's settings and the calls.
#[derive(Clone, PartialEq, Eq)]
pub struct GatedSession {
    /// The cap on results, 0–1023.
    pub cap_limit: u16,
    /// The cap counts chars (else bytes).
    pub cap_chars: bool,
    /// The tenants' budget, when limited.
    pub budget: Option<u8>,
    /// Commit tokens' lifetime in seconds, 1–64.
    pub ttl_s: u8,
    /// The calls, at most [`MAX_STEPS`].
    pub steps: Vec<Step>,
}

impl GatedSession {
    /// Decodes with the byte grammar of [`crate::bytes`]; every byte string is an input.
    pub fn read(r: &mut Reader<'_>) -> GatedSession {
        let cap_limit = r.u16() % 1024;
        let cap_chars = r.flag();
        let budget = r.flag().then(|| r.byte());
        let ttl_s = r.byte() % 64 + 1;
        let mut steps = Vec::new();
        while !r.is_empty() && steps.len() < MAX_STEPS {
            let caller = r.byte();
            let tool = r.byte();
            let path = r.short_text();
            let text = r.short_text();
            let to = r.short_text();
            let amount = r.i32();
            let pin = r.flag().then(|| r.short_text());
            let mode = match r.choose(4) {
                0 => ModeChoice::Direct,
                1 => ModeChoice::Prepare,
                2 => ModeChoice::CommitPrepared(r.byte()),
                _ => ModeChoice::CommitMadeUp(r.short_text()),
            };
            let key = r.flag().then(|| r.byte() % 4);
            let advance = r.byte();
            let bump_policy = r.flag();
            steps.push(Step {
                caller,
                tool,
                path,
                text,
                to,
                amount,
                pin,
                mode,
                key,
                advance,
                bump_policy,
            });
        }
        GatedSession {
            cap_limit,
            cap_chars,
            budget,
            ttl_s,
            steps,
        }
    }

    /// The bytes [`GatedSession::read`] decodes to this session (for seeds).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u16(self.cap_limit).flag(self.cap_chars);
        w.flag(self.budget.is_some());
        if let Some(b) = self.budget {
            w.byte(b);
        }
        w.byte(self.ttl_s - 1);
        for s in &self.steps {
            w.byte(s.caller).byte(s.tool);
            w.short_string(&s.path)
                .short_string(&s.text)
                .short_string(&s.to);
            w.i32(s.amount).flag(s.pin.is_some());
            if let Some(pin) = &s.pin {
                w.short_string(pin);
            }
            match &s.mode {
                ModeChoice::Direct => {
                    w.choose(0);
                }
                ModeChoice::Prepare => {
                    w.choose(1);
                }
                ModeChoice::CommitPrepared(n) => {
                    w.choose(2).byte(*n);
                }
                ModeChoice::CommitMadeUp(t) => {
                    w.choose(3).short_string(t);
                }
            }
            w.flag(s.key.is_some());
            if let Some(k) = s.key {
                w.byte(k);
            }
            w.byte(s.advance).flag(s.bump_policy);
        }
        w.finish()
    }
}

impl<'a> Arbitrary<'a> for GatedSession {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(GatedSession::read(&mut Reader::new(crate::all_bytes(u))))
    }
}

impl fmt::Debug for GatedSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "// security_gates reproduction (bytes for `decode`):")?;
        writeln!(f, "// {}", crate::bytes::rust_byte_string(&self.to_bytes()))?;
        writeln!(
            f,
            "// cap {} {}, budget {:?}, token ttl {} s",
            self.cap_limit,
            if self.cap_chars { "chars" } else { "bytes" },
            self.budget,
            self.ttl_s
        )?;
        for (i, s) in self.steps.iter().enumerate() {
            let (principal, tenant) = caller_names(s.caller);
            writeln!(
                f,
                "// call {i}: {principal:?}@{tenant} {} {} mode {} key {:?} after +{} ms{}",
                tool_name(s.tool),
                arguments(s),
                mode_label(&s.mode),
                s.key,
                u64::from(s.advance) * 250,
                if s.bump_policy { ", policy bumped" } else { "" }
            )?;
        }
        Ok(())
    }
}

fn mode_label(mode: &ModeChoice) -> String {
    match mode {
        ModeChoice::Direct => "direct".into(),
        ModeChoice::Prepare => "prepare".into(),
        ModeChoice::CommitPrepared(n) => format!("commit(prepared #{n} back)"),
        ModeChoice::CommitMadeUp(t) => format!("commit({t:?})"),
    }
}

fn tool_name(tool: u8) -> &'static str {
    TOOLS[usize::from(tool) % TOOLS.len()]
}

fn caller_names(caller: u8) -> (&'static str, &'static str) {
    match caller % CALLERS as u8 {
        0 | 1 => ("alice", "acme"),
        2 => ("bob", "acme"),
        3 => ("mallory", "evil"),
        _ => ("", "acme"),
    }
}

/// The callers: 0 alice (every capability, approval given), 1 alice without approval, 2 bob
/// (files only, under `docs/`), 3 mallory of another tenant (nothing granted), 4 an
/// unauthenticated caller with every capability.
pub fn caller(index: u8) -> Caller {
    let (principal, tenant) = caller_names(index);
    let all = ["files.write", "payments.send"];
    match index % CALLERS as u8 {
        0 => Caller::new(principal, tenant)
            .grant_all(all)
            .approval(Approval::Given),
        1 => Caller::new(principal, tenant).grant_all(all),
        2 => Caller::new(principal, tenant)
            .grant("files.write")
            .targets(["docs"]),
        3 => Caller::new(principal, tenant),
        _ => Caller::new(principal, tenant)
            .grant_all(all)
            .approval(Approval::Given),
    }
}

/// The call's arguments, as the tool it names expects them (or not).
pub fn arguments(s: &Step) -> Value {
    match tool_name(s.tool) {
        "write_file" => json!({"path": s.path, "text": s.text}),
        "transfer" => {
            let mut args = json!({"to": s.to, "amount": s.amount});
            if let Some(pin) = &s.pin {
                args["pin"] = json!(format!("{PIN_PREFIX}{pin}"));
            }
            args
        }
        _ => json!({"text": s.text}),
    }
}

/// The policies: what each gated tool declares (`unpoliced` has none).
fn policy(tool: &str) -> Option<ToolPolicy> {
    Some(match tool {
        "write_file" => ToolPolicy::new("files.write")
            .effect(Effect::Write)
            .target(Target::Pointer("/path".into()))
            .path("/path")
            .bounds(Bounds {
                max_string_chars: Some(48),
                max_array_items: Some(4),
                max_depth: Some(3),
            })
            .cost(1),
        "transfer" => ToolPolicy::new("payments.send")
            .effect(Effect::External)
            .target(Target::Pointer("/to".into()))
            .sensitive("/pin")
            .cost(3)
            .requires_approval()
            .prepare_commit(),
        "read_note" => ToolPolicy::open(),
        _ => return None,
    })
}

fn schema(tool: &str) -> Value {
    match tool {
        "write_file" => json!({"type": "object",
            "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
            "required": ["path", "text"]}),
        "transfer" => json!({"type": "object",
            "properties": {"to": {"type": "string"}, "amount": {"type": "integer", "minimum": 1},
                           "pin": {"type": "string"}},
            "required": ["to", "amount"]}),
        _ => json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    }
}

/// The workspace's links: `out` leaves it, `up` is its parent.
fn workspace() -> MapResolver {
    MapResolver::new().link("out", "/etc").link("up", "..")
}

/// A prepare the model keeps: who asked, for what, when, under which policy version.
struct Issued {
    token: String,
    caller: (&'static str, &'static str),
    tool: &'static str,
    args: Value,
    at_ms: u64,
    version: u64,
}

/// The fixed tools' schemas, compiled once per process instead of once per input (the same
/// four schemas every time); a registry compiling through a cache accepts and answers exactly
/// what one without does.
fn compiled_schemas() -> SchemaCache {
    static SCHEMAS: OnceLock<SchemaCache> = OnceLock::new();
    SCHEMAS.get_or_init(SchemaCache::new).clone()
}

/// Checks the session; panics with the reproduction when a property fails.
pub fn check(input: &GatedSession) {
    let runs = Arc::new(AtomicUsize::new(0));
    let mut registry = Registry::with_schema_cache(compiled_schemas());
    for tool in &TOOLS[..4] {
        let runs = Arc::clone(&runs);
        let handler = move |args: Value, _ctx: &CallContext<'_>| {
            runs.fetch_add(1, Ordering::SeqCst);
            // Output long enough for small caps to cut; never the sensitive argument.
            let shown = args.get("text").or(args.get("to")).cloned();
            Ok(ToolOutput::text(format!(
                "done: {}",
                shown.unwrap_or_default()
            )))
        };
        registry
            .register(Tool::new(*tool, "", schema(tool), handler).execution(Execution::Inline))
            .expect("the fixed tools register");
    }
    let unit = if input.cap_chars {
        Unit::Chars
    } else {
        Unit::Bytes
    };
    let limit = usize::from(input.cap_limit);
    let config = HarnessConfig {
        cap: CapConfig::new(limit, unit),
        ..HarnessConfig::default()
    };
    let audit = Arc::new(MemoryAuditSink::new());
    let clock = Arc::new(ManualClock::new(1_000_000));
    let ttl_ms = u64::from(input.ttl_s) * 1000;
    let mut secure = SecureHarness::new(Harness::new(registry, config))
        .resolver(Arc::new(workspace()))
        .audit(Arc::clone(&audit) as Arc<dyn AuditSink>)
        .clock(Arc::clone(&clock) as Arc<dyn harness_ref::security::Clock>)
        .token_ttl(Duration::from_secs(u64::from(input.ttl_s)));
    for tool in TOOLS {
        if let Some(p) = policy(tool) {
            secure = secure.policy(tool, p);
        }
    }
    if let Some(b) = input.budget {
        secure = secure.budget(u64::from(b));
    }

    let mut now_ms: u64 = 1_000_000;
    let mut issued: Vec<Issued> = Vec::new();
    let mut tokens_run: HashSet<String> = HashSet::new();
    let mut keys_run: HashSet<(&'static str, &'static str, u8)> = HashSet::new();
    let mut charged: HashMap<&'static str, u64> = HashMap::new();
    for (i, step) in input.steps.iter().enumerate() {
        let ctx = || format!("call {i} of\n{input:?}");
        clock.advance(u64::from(step.advance) * 250);
        now_ms += u64::from(step.advance) * 250;
        if step.bump_policy {
            secure.set_policy_version(secure.policy_version() + 1);
        }
        let who = caller(step.caller);
        let names = caller_names(step.caller);
        let tool = tool_name(step.tool);
        let args = arguments(step);
        let mut options = match &step.mode {
            ModeChoice::Direct => CallOptions::direct(),
            ModeChoice::Prepare => CallOptions::prepare(),
            ModeChoice::CommitPrepared(n) => {
                let back = usize::from(*n);
                match issued.len().checked_sub(back + 1) {
                    Some(at) => CallOptions::commit(issued[at].token.clone()),
                    None => CallOptions::commit("never-issued"),
                }
            }
            ModeChoice::CommitMadeUp(t) => CallOptions::commit(t.clone()),
        };
        if let Some(k) = step.key {
            options = options.with_key(format!("k{k}"));
        }
        let committed = match &options.mode {
            harness_ref::security::Mode::Commit(t) => Some(t.clone()),
            _ => None,
        };
        let keyed = options.idempotency_key.is_some()
            && options.mode != harness_ref::security::Mode::Prepare;

        let before = runs.load(Ordering::SeqCst);
        let call = json!({"id": format!("c{i}"), "name": tool, "input": args});
        let out = secure.handle(&who, call, options);
        let ran = runs.load(Ordering::SeqCst) - before;
        let decision = out.decision;
        let result = &out.result;

        // No effect unless allowed; a refusal is an error.
        assert_eq!(
            ran,
            usize::from(decision == Decision::Allowed),
            "{decision:?} ran the handler {ran} time(s), {}",
            ctx()
        );
        if matches!(decision, Decision::Refused(_)) {
            assert!(result.is_error(), "a refusal that is no error, {}", ctx());
        }
        assert_eq!(
            out.token.is_some(),
            decision == Decision::Prepared,
            "a token without a prepare (or none for one), {}",
            ctx()
        );

        // One audit event, agreeing with the outcome.
        let events = audit.take();
        assert_eq!(events.len(), 1, "{} audit events, {}", events.len(), ctx());
        let event = &events[0];
        assert_eq!(event.decision, decision, "audit decision, {}", ctx());
        assert_eq!(event.invocation_id, out.invocation_id, "{}", ctx());
        assert_eq!(
            event.effect_started_ms.is_some(),
            decision == Decision::Allowed,
            "effect times, {}",
            ctx()
        );
        assert!(
            event.charge == 0 || decision == Decision::Allowed,
            "charged {} for {decision:?}, {}",
            event.charge,
            ctx()
        );
        *charged.entry(names.1).or_default() += event.charge;

        // Authorization.
        if matches!(decision, Decision::Allowed | Decision::Prepared) {
            let p = policy(tool).unwrap_or_else(|| panic!("{tool} has no policy, {}", ctx()));
            assert!(!who.principal().is_empty(), "unauthenticated, {}", ctx());
            if let Some(cap) = p.capability_name() {
                assert!(who.has(cap), "without {cap}, {}", ctx());
            }
            if let Some(target) = &event.target {
                assert!(who.may_touch(target), "target {target:?}, {}", ctx());
            }
        }

        if decision == Decision::Allowed {
            // Confinement.
            if tool == "write_file" {
                let normal = normalize(&step.path)
                    .unwrap_or_else(|e| panic!("allowed path {:?}: {e:?}, {}", step.path, ctx()));
                assert!(
                    !normal.components().any(|c| c == ".." || c.is_empty()),
                    "allowed path {:?} has .. or an empty component, {}",
                    step.path,
                    ctx()
                );
                assert!(
                    !step.path.starts_with('/') && !step.path.contains('\\'),
                    "allowed path {:?}, {}",
                    step.path,
                    ctx()
                );
                assert!(
                    workspace().resolve(&normal).is_ok(),
                    "{:?} escaped the workspace, {}",
                    step.path,
                    ctx()
                );
            }
            // Prepare/commit.
            if tool == "transfer" {
                assert_eq!(
                    who.approval_state(),
                    Approval::Given,
                    "ran without approval, {}",
                    ctx()
                );
                let token = committed
                    .as_ref()
                    .unwrap_or_else(|| panic!("a prepare-first tool ran directly, {}", ctx()));
                let prepared = issued
                    .iter()
                    .find(|p| &p.token == token)
                    .unwrap_or_else(|| panic!("ran on a token never issued, {}", ctx()));
                assert_eq!(prepared.caller, names, "another caller's token, {}", ctx());
                assert_eq!(prepared.tool, tool, "another tool's token, {}", ctx());
                assert_eq!(prepared.args, args, "other arguments' token, {}", ctx());
                assert_eq!(
                    prepared.version,
                    secure.policy_version(),
                    "a stale policy's token, {}",
                    ctx()
                );
                assert!(
                    now_ms - prepared.at_ms <= ttl_ms,
                    "an expired token, {}",
                    ctx()
                );
                assert!(
                    tokens_run.insert(token.clone()),
                    "a token ran twice, {}",
                    ctx()
                );
            }
            if keyed {
                let k = step.key.unwrap_or_default();
                assert!(
                    keys_run.insert((names.1, tool, k)),
                    "key k{k} ran twice, {}",
                    ctx()
                );
            }
        }
        if decision == Decision::Replayed {
            let k = step
                .key
                .unwrap_or_else(|| panic!("a replay without key, {}", ctx()));
            assert!(
                keys_run.contains(&(names.1, tool, k)),
                "replayed key k{k} that never ran, {}",
                ctx()
            );
        }
        if let Some(token) = out.token.clone() {
            issued.push(Issued {
                token,
                caller: names,
                tool,
                args: args.clone(),
                at_ms: now_ms,
                version: secure.policy_version(),
            });
        }

        // Budget.
        for (tenant, sum) in &charged {
            assert_eq!(secure.spent(tenant), *sum, "{tenant}'s spending, {}", ctx());
            if let Some(b) = input.budget {
                assert!(
                    *sum <= u64::from(b),
                    "{tenant} spent {sum} > {b}, {}",
                    ctx()
                );
            }
        }

        // Sensitive values stay hidden (unless the model also sent them in the clear).
        if let (Some(pin), "transfer") = (&step.pin, tool) {
            let pin = format!("{PIN_PREFIX}{pin}");
            if !step.to.contains(&pin) {
                assert!(
                    !result.content().contains(&pin),
                    "the pin reached the content {:?}, {}",
                    result.content(),
                    ctx()
                );
                if let Some(masked) = &event.masked_arguments {
                    assert!(
                        !contains_string(masked, &pin),
                        "the pin reached the audit event {masked}, {}",
                        ctx()
                    );
                }
            }
        }

        // The cap.
        let size = measure(result.content(), unit);
        assert!(
            size <= limit,
            "content of {size} over the cap {limit}: {:?}, {}",
            result.content(),
            ctx()
        );
    }
}

/// True when a string in `v` (a value or an object key) contains `needle`.
fn contains_string(v: &Value, needle: &str) -> bool {
    match v {
        Value::String(s) => s.contains(needle),
        Value::Array(items) => items.iter().any(|x| contains_string(x, needle)),
        Value::Object(map) => map
            .iter()
            .any(|(k, x)| k.contains(needle) || contains_string(x, needle)),
        _ => false,
    }
}
