//! The expected-failures baseline: case id → why it fails, with an optional link.
//!
//! A harness adopting the suite usually fails some cases on day one. Its baseline records them
//! with reasons, so CI turns red only when behaviour changes: a listed case that fails (or
//! errors) is XFAIL; a listed case that passes is STALE and fails the run until the entry is
//! removed. The file is JSON: `{"<case id>": {"reason": "...", "link": "..."}}`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::verdict::{CaseOutcome, Verdict};

/// Why a case is expected to fail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// In plain words, what the harness does.
    pub reason: String,
    /// An issue or document about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

/// The whole baseline, ordered by case id.
pub type Baseline = BTreeMap<String, Entry>;

/// Parses a baseline file.
pub fn parse(text: &str) -> Result<Baseline, serde_json::Error> {
    serde_json::from_str(text)
}

/// Applies the baseline to one outcome: FAIL/ERROR → XFAIL, PASS → STALE.
pub fn apply(baseline: &Baseline, outcome: &mut CaseOutcome) {
    let Some(entry) = baseline.get(&outcome.id) else {
        return;
    };
    let reason = match &entry.link {
        Some(link) => format!("{} ({link})", entry.reason),
        None => entry.reason.clone(),
    };
    match outcome.verdict {
        Verdict::Fail | Verdict::Error => {
            outcome.verdict = Verdict::Xfail;
            outcome.baseline = Some(reason);
        }
        Verdict::Pass => {
            outcome.verdict = Verdict::Stale;
            outcome.messages.push(format!(
                "listed in the baseline as failing ({reason:?}) but it passed: remove the entry"
            ));
            outcome.baseline = Some(reason);
        }
        _ => {}
    }
}

/// Baseline entries naming cases the run did not see (renamed or removed cases).
pub fn unknown_entries<'a>(baseline: &'a Baseline, known: &[&str]) -> Vec<&'a str> {
    baseline
        .keys()
        .filter(|id| !known.contains(&id.as_str()))
        .map(String::as_str)
        .collect()
}

/// A baseline listing every FAIL and ERROR of a run, keeping reasons already written in `old`.
pub fn from_outcomes(outcomes: &[CaseOutcome], old: &Baseline) -> Baseline {
    outcomes
        .iter()
        .filter(|o| matches!(o.verdict, Verdict::Fail | Verdict::Error | Verdict::Xfail))
        .map(|o| {
            let entry = old.get(&o.id).cloned().unwrap_or_else(|| Entry {
                reason: o
                    .messages
                    .first()
                    .map(|m| first_line(m))
                    .unwrap_or_else(|| o.verdict.as_str().to_owned()),
                link: None,
            });
            (o.id.clone(), entry)
        })
        .collect()
}

fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    let cut: String = line.chars().take(200).collect();
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(id: &str, v: Verdict) -> CaseOutcome {
        CaseOutcome::new(id, &["VAL-1".into()], v).with("expected x, got y")
    }

    #[test]
    fn listed_failures_are_expected_and_listed_passes_are_stale() {
        let b =
            parse(r#"{"a/b": {"reason": "coerces"}, "a/c": {"reason": "r", "link": "https://x"}}"#)
                .unwrap();
        let mut fail = outcome("a/b", Verdict::Fail);
        apply(&b, &mut fail);
        assert_eq!(fail.verdict, Verdict::Xfail);
        assert!(!fail.verdict.is_unexpected());
        let mut pass = outcome("a/c", Verdict::Pass);
        apply(&b, &mut pass);
        assert_eq!(pass.verdict, Verdict::Stale);
        assert!(pass.verdict.is_unexpected());
        let mut other = outcome("a/d", Verdict::Fail);
        apply(&b, &mut other);
        assert_eq!(other.verdict, Verdict::Fail);
        assert_eq!(unknown_entries(&b, &["a/b"]), vec!["a/c"]);
    }

    #[test]
    fn unknown_fields_are_refused() {
        assert!(parse(r#"{"a/b": {"reason": "x", "why": "y"}}"#).is_err());
    }

    #[test]
    fn written_baselines_keep_old_reasons() {
        let old = parse(r#"{"a/b": {"reason": "known"}}"#).unwrap();
        let outs = vec![
            outcome("a/b", Verdict::Xfail),
            outcome("a/c", Verdict::Fail),
            outcome("a/d", Verdict::Pass),
        ];
        let b = from_outcomes(&outs, &old);
        assert_eq!(b.len(), 2);
        assert_eq!(b["a/b"].reason, "known");
        assert_eq!(b["a/c"].reason, "expected x, got y");
    }
}
