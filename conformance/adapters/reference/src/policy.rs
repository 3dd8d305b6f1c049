//! The security features behind the protocol: a case's `context`, tool `policy`, `security`
//! setup and per-call options, run through harness-ref's [`SecureHarness`].
//!
//! A case that uses any security field is handled here instead of by the plain batch: the
//! case's harness is wrapped in the gates, each tool gets its policy (a tool without one gets
//! an open policy: no capability, effect `read`, cost 0), and the calls go through one
//! [`harness_ref::security::Turn`] in order. The clock is a [`ManualClock`] that only the
//! case's `before.advance_ms` moves, so token expiry is exact and never timed; the workspace is
//! a [`MapResolver`] built from `security.workspace.links` (pure: the in-process adapter does
//! no file-system I/O). A `commit` that names an earlier call takes the token that call's
//! prepare returned (none: an empty token, which matches nothing).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use harness_conformance_protocol::{CommitRef, ContextDef, EffectClass, PolicyDef, WireCase};
use harness_ref::security::{
    Approval, Bounds, CallOptions, Caller, Effect, ManualClock, MapResolver, Mode, SecureHarness,
    Target, ToolPolicy,
};
use harness_ref::{Harness, ToolResult};

use crate::fault::Fault;

/// The case's principal and tenant when its `context` leaves them out.
const DEFAULT_PRINCIPAL: &str = "user";
const DEFAULT_TENANT: &str = "default";

/// Where the scripted clock starts (any fixed instant; only differences matter).
const CLOCK_START_MS: u64 = 1_700_000_000_000;

/// Runs the case's calls through the gates, in order: one result per call.
///
/// The security variants are realised here by configuring the gates differently:
/// `ignores-capabilities` drops each policy's capability, `reruns-duplicate-keys` drops the
/// keys, `commits-unverified-tokens` drops `prepare_commit` and turns commits into direct
/// calls, `confines-paths-lexically` gives no link resolver, `echoes-sensitive-arguments`
/// drops the sensitive pointers.
pub(crate) fn run_secured(
    harness: Harness,
    case: &WireCase,
    calls: Vec<harness_ref::Call>,
    fault: Option<Fault>,
) -> Vec<ToolResult> {
    let clock = Arc::new(ManualClock::new(CLOCK_START_MS));
    let setup = case.security.as_deref().cloned().unwrap_or_default();
    let mut secure = SecureHarness::new(harness)
        .clock(clock.clone())
        .with_policy_version(setup.policy_version.unwrap_or(1));
    if let Some(budget) = setup.budget {
        secure = secure.budget(budget);
    }
    if let Some(ttl) = setup.token_ttl_ms {
        secure = secure.token_ttl(Duration::from_millis(ttl));
    }
    let workspace = setup
        .workspace
        .as_ref()
        .filter(|_| fault != Some(Fault::ConfinesPathsLexically));
    if let Some(ws) = workspace {
        let resolver = ws
            .links
            .iter()
            .fold(MapResolver::new(), |r, (link, target)| {
                r.link(link, target.clone())
            });
        secure = secure.resolver(Arc::new(resolver));
    }
    for tool in &case.tools {
        let mut def = tool.policy.clone();
        if let Some(p) = def.as_mut() {
            match fault {
                Some(Fault::IgnoresCapabilities) => p.capability = None,
                Some(Fault::CommitsUnverifiedTokens) => p.prepare_commit = false,
                Some(Fault::EchoesSensitiveArguments) => p.sensitive.clear(),
                _ => {}
            }
        }
        secure = secure.policy(tool.name.clone(), to_policy(def.as_ref()));
    }

    let base = case.context.as_deref().cloned().unwrap_or_default();
    let mut tokens: HashMap<String, String> = HashMap::new();
    let mut results = Vec::with_capacity(calls.len());
    let mut turn = secure.turn();
    for (wire_call, call) in case.calls.iter().zip(calls) {
        let options = wire_call.security();
        if let Some(before) = &options.before {
            if let Some(ms) = before.advance_ms {
                clock.advance(ms);
            }
            if let Some(version) = before.policy_version {
                secure.set_policy_version(version);
            }
        }
        let context = match &options.context {
            Some(over) => base.merged(over),
            None => base.clone(),
        };
        let mode = if options.prepare {
            Mode::Prepare
        } else if fault == Some(Fault::CommitsUnverifiedTokens) {
            Mode::Direct
        } else if let Some(commit) = &options.commit {
            Mode::Commit(match commit {
                CommitRef::TokenOf(id) => tokens.get(id).cloned().unwrap_or_default(),
                CommitRef::Token(token) => token.clone(),
            })
        } else {
            Mode::Direct
        };
        let outcome = turn.handle(
            &to_caller(&context),
            call,
            CallOptions {
                idempotency_key: options
                    .idempotency_key
                    .clone()
                    .filter(|_| fault != Some(Fault::RerunsDuplicateKeys)),
                mode,
            },
        );
        if let (Some(token), Some(id)) = (&outcome.token, wire_call.id()) {
            tokens.insert(id.to_owned(), token.clone());
        }
        results.push(outcome.result);
    }
    results
}

fn to_caller(c: &ContextDef) -> Caller {
    let mut caller = Caller::new(
        c.principal.as_deref().unwrap_or(DEFAULT_PRINCIPAL),
        c.tenant.as_deref().unwrap_or(DEFAULT_TENANT),
    )
    .grant_all(c.capabilities.clone().unwrap_or_default())
    .approval(if c.approved == Some(true) {
        Approval::Given
    } else {
        Approval::NotGiven
    });
    if let Some(targets) = &c.targets {
        caller = caller.targets(targets.clone());
    }
    caller
}

fn to_policy(p: Option<&PolicyDef>) -> ToolPolicy {
    let Some(p) = p else {
        return ToolPolicy::open();
    };
    let mut policy = match &p.capability {
        Some(cap) => ToolPolicy::new(cap.clone()),
        None => ToolPolicy::open(),
    }
    .effect(match p.effect {
        EffectClass::Read => Effect::Read,
        EffectClass::Write => Effect::Write,
        EffectClass::External => Effect::External,
    })
    .cost(p.cost);
    if let Some(target) = &p.target {
        policy = policy.target(Target::Pointer(target.clone()));
    }
    for pointer in &p.sensitive {
        policy = policy.sensitive(pointer.clone());
    }
    for pointer in &p.paths {
        policy = policy.path(pointer.clone());
    }
    if p.requires_approval {
        policy = policy.requires_approval();
    }
    if p.prepare_commit {
        policy = policy.prepare_commit();
    }
    if let Some(b) = &p.bounds {
        let size = |n: Option<u64>| n.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        policy = policy.bounds(Bounds {
            max_string_chars: size(b.max_string_chars),
            max_array_items: size(b.max_array_items),
            max_depth: size(b.max_depth),
        });
    }
    policy
}
