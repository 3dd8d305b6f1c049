//! Who is calling: the authenticated principal, its tenant, the capabilities it was granted and
//! whether the user approved the action.
//!
//! A model proposes calls; it never *is* the caller. The embedder authenticates the session and
//! builds a [`Caller`] from trusted state (its login, its tenant, the grants of its role, the
//! approval button the user pressed). Nothing here is read from the model's arguments.

use std::collections::BTreeSet;

/// Whether the user approved the call the model is making.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Approval {
    /// No approval was given (the default).
    #[default]
    NotGiven,
    /// The user approved (for example, after seeing a prepare's preview).
    Given,
}

/// The authenticated caller of a tool: principal, tenant, granted capabilities, approval, and
/// optionally the targets it may touch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Caller {
    principal: String,
    tenant: String,
    capabilities: BTreeSet<String>,
    approval: Approval,
    targets: Option<Vec<String>>,
}

impl Caller {
    /// A caller with no capabilities and no approval. An empty principal is unauthenticated:
    /// every gated call is refused.
    pub fn new(principal: impl Into<String>, tenant: impl Into<String>) -> Caller {
        Caller {
            principal: principal.into(),
            tenant: tenant.into(),
            ..Caller::default()
        }
    }

    /// Grants a capability (e.g. `files.write`).
    pub fn grant(mut self, capability: impl Into<String>) -> Caller {
        self.capabilities.insert(capability.into());
        self
    }

    /// Grants several capabilities.
    pub fn grant_all<I, S>(mut self, capabilities: I) -> Caller
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.capabilities
            .extend(capabilities.into_iter().map(Into::into));
        self
    }

    /// Sets the approval state.
    pub fn approval(mut self, approval: Approval) -> Caller {
        self.approval = approval;
        self
    }

    /// Restricts the targets this caller may touch: a target is allowed when it equals one of
    /// `prefixes` or starts with one followed by `/`. Without this, any target is allowed.
    pub fn targets<I, S>(mut self, prefixes: I) -> Caller
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.targets = Some(prefixes.into_iter().map(Into::into).collect());
        self
    }

    /// The principal (`""` when unauthenticated).
    pub fn principal(&self) -> &str {
        &self.principal
    }

    /// The tenant.
    pub fn tenant(&self) -> &str {
        &self.tenant
    }

    /// The granted capabilities.
    pub fn capabilities(&self) -> &BTreeSet<String> {
        &self.capabilities
    }

    /// Whether `capability` was granted.
    pub fn has(&self, capability: &str) -> bool {
        self.capabilities.contains(capability)
    }

    /// The approval state.
    pub fn approval_state(&self) -> Approval {
        self.approval
    }

    /// Whether the caller may touch `target`.
    pub fn may_touch(&self, target: &str) -> bool {
        match &self.targets {
            None => true,
            Some(prefixes) => prefixes.iter().any(|p| {
                target == p
                    || (target.starts_with(p.as_str())
                        && (p.ends_with('/') || target[p.len()..].starts_with('/')))
            }),
        }
    }

    /// The target restriction, if any.
    pub fn target_prefixes(&self) -> Option<&[String]> {
        self.targets.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_match_whole_components() {
        let c = Caller::new("alice", "acme").targets(["docs", "tmp/"]);
        assert!(c.may_touch("docs"));
        assert!(c.may_touch("docs/a.txt"));
        assert!(!c.may_touch("docsecret"));
        assert!(c.may_touch("tmp/x"));
        assert!(!c.may_touch("src/main.rs"));
        assert!(Caller::new("a", "t").may_touch("anything"));
    }
}
