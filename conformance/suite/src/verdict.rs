//! Verdicts: who is to blame for each case's outcome.
//!
//! Blame is the point (as in toml-test and MCP's conformance suite): a FAIL is the harness's
//! fault, an ERROR the adapter's (it broke the protocol), a BUG IN CASE the suite's own. A
//! baseline of known failures turns FAIL into XFAIL; a baseline entry for a case that now
//! passes is STALE and fails the run, so the baseline can only shrink.

use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::checks::{Check, NotRun};

/// The outcome of one case against one harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Verdict {
    /// Every check held.
    #[serde(rename = "PASS")]
    Pass,
    /// The harness broke a requirement.
    #[serde(rename = "FAIL")]
    Fail,
    /// A capability the case needs is missing (the reason says which).
    #[serde(rename = "SKIP")]
    Skip,
    /// The adapter broke the protocol or could not run the case.
    #[serde(rename = "ERROR")]
    Error,
    /// The case itself is inconsistent.
    #[serde(rename = "BUG IN CASE")]
    BugInCase,
    /// Failed, as the baseline says it does.
    #[serde(rename = "XFAIL")]
    Xfail,
    /// Listed in the baseline, but passed: the baseline is out of date.
    #[serde(rename = "STALE")]
    Stale,
    /// Skipped, where the baseline's run did not skip it: a capability went missing.
    #[serde(rename = "NEW SKIP")]
    NewSkip,
}

impl Verdict {
    /// The label reports print.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Skip => "SKIP",
            Verdict::Error => "ERROR",
            Verdict::BugInCase => "BUG IN CASE",
            Verdict::Xfail => "XFAIL",
            Verdict::Stale => "STALE",
            Verdict::NewSkip => "NEW SKIP",
        }
    }

    /// Whether this outcome makes the run fail.
    pub fn is_unexpected(self) -> bool {
        matches!(
            self,
            Verdict::Fail | Verdict::Error | Verdict::BugInCase | Verdict::Stale | Verdict::NewSkip
        )
    }

    /// Every verdict, in report order.
    pub const ALL: [Verdict; 8] = [
        Verdict::Pass,
        Verdict::Fail,
        Verdict::Error,
        Verdict::BugInCase,
        Verdict::Stale,
        Verdict::NewSkip,
        Verdict::Xfail,
        Verdict::Skip,
    ];

    /// Whether the case ran far enough to be checked (its checks say how it did).
    pub fn was_checked(self) -> bool {
        matches!(
            self,
            Verdict::Pass | Verdict::Fail | Verdict::Xfail | Verdict::Stale
        )
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One case's outcome, with everything a report needs.
///
/// Read back from a saved JSON report strictly (unknown fields are refused): what the report
/// adds around an outcome (`type`, `level`, `reproduce`) is removed by the reader first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseOutcome {
    /// The case id.
    pub id: String,
    /// The requirements the case tests.
    pub requirements: Vec<String>,
    /// The verdict after the baseline was applied.
    pub verdict: Verdict,
    /// Why: the failed checks (expected vs returned), the skip reason, the protocol error.
    pub messages: Vec<String>,
    /// Every check evaluated on the harness's answer, passed or failed, each with the
    /// requirement it belongs to. Empty when the case did not run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Check>,
    /// The checks the case asks for that could not be judged on this harness, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<NotRun>,
    /// A short account of what the harness returned (for matrix cells), if it returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned: Option<String>,
    /// The baseline's reason, for XFAIL and STALE.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// How long the case took, adapter round trips included.
    #[serde(
        serialize_with = "ser_ms",
        deserialize_with = "de_ms",
        rename = "duration_ms"
    )]
    pub duration: Duration,
    /// The results exactly as the harness returned them (None when it returned none), for
    /// snapshots of the wording (`run --snapshots`).
    #[serde(skip)]
    pub results: Option<Vec<harness_conformance_protocol::ObservedResult>>,
}

fn ser_ms<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(ms(*d))
}

fn de_ms<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let ms = f64::deserialize(d)?;
    from_ms(ms).ok_or_else(|| serde::de::Error::custom(format!("not a duration in ms: {ms}")))
}

/// A duration in milliseconds, as reports write it.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The duration a report's milliseconds stand for, to the nanosecond [`ms`] wrote (`None` when
/// negative or not finite), so that a saved report renders exactly as the run did.
pub fn from_ms(ms: f64) -> Option<Duration> {
    if !ms.is_finite() || ms < 0.0 {
        return None;
    }
    let nanos = (ms * 1e6).round();
    (nanos < u64::MAX as f64).then(|| Duration::from_nanos(nanos as u64))
}

impl CaseOutcome {
    /// An outcome with no messages yet.
    pub fn new(id: &str, requirements: &[String], verdict: Verdict) -> CaseOutcome {
        CaseOutcome {
            id: id.to_owned(),
            requirements: requirements.to_vec(),
            verdict,
            messages: Vec::new(),
            checks: Vec::new(),
            not_run: Vec::new(),
            returned: None,
            baseline: None,
            duration: Duration::ZERO,
            results: None,
        }
    }

    /// Adds a message and returns self.
    pub fn with(mut self, message: impl Into<String>) -> CaseOutcome {
        self.messages.push(message.into());
        self
    }

    /// The requirements at least one of whose checks failed here, in order.
    pub fn failing_requirements(&self) -> BTreeSet<&str> {
        self.checks
            .iter()
            .filter(|c| !c.passed())
            .map(|c| c.requirement.as_str())
            .collect()
    }

    /// The requirements with at least one check evaluated here.
    pub fn tested_requirements(&self) -> BTreeSet<&str> {
        self.checks.iter().map(|c| c.requirement.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_survive_the_report_in_milliseconds_to_the_nanosecond() {
        for nanos in [0u64, 1, 999, 1_000_000, 1_234_567_891, 3_600_000_000_017] {
            let d = Duration::from_nanos(nanos);
            assert_eq!(from_ms(ms(d)), Some(d), "{nanos} ns");
        }
        assert_eq!(from_ms(-1.0), None);
        assert_eq!(from_ms(f64::NAN), None);
    }

    #[test]
    fn outcomes_are_read_back_strictly() {
        let mut o = CaseOutcome::new("a/b", &["VAL-1".to_owned()], Verdict::NewSkip).with("why");
        o.duration = Duration::from_micros(1500);
        let text = serde_json::to_string(&o).unwrap();
        let back: CaseOutcome = serde_json::from_str(&text).unwrap();
        assert_eq!(back, o);
        let extra = text.replacen('{', r#"{"surprise":1,"#, 1);
        assert!(serde_json::from_str::<CaseOutcome>(&extra).is_err());
        let bad = text.replace("NEW SKIP", "MAYBE");
        assert!(serde_json::from_str::<CaseOutcome>(&bad).is_err());
    }
}
